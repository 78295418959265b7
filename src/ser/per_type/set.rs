//! `set` and `frozenset` (and subclasses) as arrays, in iteration order.

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Ref};
use crate::ser::state::State;
use crate::ser::{dispatch, error, Ctx};

/// # Safety
/// `obj` is a live set or frozenset; the GIL is held.
#[inline(never)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let st = st.enter_container()?;
    // SAFETY: `obj` is a live set or frozenset and the GIL is held (this function's precondition).
    // It is held while iterated, and the iterator raises if the set changes size meanwhile.
    unsafe {
        let _hold = ffi::hold(obj.as_ptr());
        let len = ffi::set_len(obj.as_ptr());
        e.array_begin(len)?;
        let iter = ffi::get_iter(obj.as_ptr())
            .map_err(|c| error::attribute_failed("set could not be iterated", c))?;
        let mut n = 0;
        while let Some(item) =
            ffi::iter_next(iter.as_ptr()).map_err(|_| error::changed_size("set"))?
        {
            if n == len {
                return Err(error::changed_size("set"));
            }
            e.array_item(n)?;
            dispatch::write(Ref::of(&item), st, cx, e).map_err(|err| err.at_index(n, obj))?;
            n += 1;
        }
        if n != len {
            return Err(error::changed_size("set"));
        }
    }
    e.array_end()
}
