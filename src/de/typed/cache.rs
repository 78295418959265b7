//! The plans of the types decoded so far, worked out once per type and kept here, in the
//! module: nothing is written onto the user's classes.
//!
//! The cache is bounded, not weak. A plan must own what it builds from (the classes, their
//! defaults and factories, enum members), and a value that refers to its own weak key keeps
//! that key alive for good; `list[Route]` is also a new object at each call, equal to the last
//! one but not the same, so only a cache keyed by equality finds it again. So the plans are held
//! in a dict keyed by the type, the oldest dropped past [`CAPACITY`]: a class made at run time
//! and decoded once is freed once newer types have pushed its plan out, as `typing`'s own
//! bounded caches of `Optional[...]` and the like free theirs.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::compile::compile;
use super::plan::TypePlan;
use crate::ffi;

/// How many plans are kept; a program with more types in use works some out again.
pub const CAPACITY: usize = 1024;

/// `type -> TypePlan`, in the order they were made. A dict locks itself under free-threaded
/// CPython; two threads that work out the same plan at once both keep theirs (the last one
/// stays in the cache), and both are right.
static PLANS: crate::ffi::PerInterp<Py<PyDict>> = crate::ffi::PerInterp::new();

/// The plan for `tp`: from the cache, or worked out now and kept.
pub fn plan_for<'py>(py: Python<'py>, tp: &Bound<'py, PyAny>) -> PyResult<Bound<'py, TypePlan>> {
    let plans = PLANS.get_or_init(py, || PyDict::new(py).unbind()).bind(py);
    match plans.get_item(tp) {
        Ok(Some(found)) => {
            if let Ok(plan) = found.cast_into::<TypePlan>() {
                // A class is its own key: one whose metaclass makes it equal to another class
                // still gets a plan of its own.
                // SAFETY: attached; `tp` is live.
                if !unsafe { ffi::is_type(tp.as_ptr()) } || plan.get().tp.is(tp) {
                    return Ok(plan);
                }
            }
        }
        Ok(None) => {}
        // Unhashable (`Annotated[int, []]`): worked out at every call.
        Err(_) => return Bound::new(py, compile(py, tp)?),
    }
    let plan = Bound::new(py, compile(py, tp)?)?;
    make_room(plans);
    // A key that hashed once hashes again; should its `__eq__` fail now, the plan is still
    // good for this call.
    let _ = plans.set_item(tp, &plan);
    Ok(plan)
}

/// Drops the oldest plans until there is room for one more. Another thread may be dropping
/// the same ones: a key already gone, or a dict changed under the iterator, ends the round.
#[cold]
fn make_room(plans: &Bound<'_, PyDict>) {
    while plans.len() >= CAPACITY {
        let Ok(mut keys) = plans.try_iter() else {
            return;
        };
        let Some(Ok(oldest)) = keys.next() else {
            return;
        };
        drop(keys);
        if plans.del_item(oldest).is_err() {
            return;
        }
    }
}

/// How many plans the cache holds, for tests.
pub fn plan_cache_size(py: Python<'_>) -> usize {
    PLANS.get(py).map_or(0, |plans| plans.bind(py).len())
}
