//! The only module that touches the raw CPython API.
//!
//! Everything above this layer works with [`Obj`] (a borrowed object pointer, valid while the GIL
//! is held and its owner keeps it alive) and [`Owned`] (a strong reference released on drop). Each
//! function here states what its caller must guarantee in a `# Safety` section.

mod buffer;
mod build;
mod bytearray;
mod call;
mod containers;
mod datetime;
mod dict_cursor;
mod dict_iter;
// 3.11+ (not PyPy or GraalPy): a combined dict's entries read from its table.
#[cfg(all(Py_3_11, not(any(PyPy, GraalPy))))]
mod dict_table;
mod exact;
mod fastcall;
mod gc;
mod heap_class;
mod interp;
mod known;
mod module;
mod numpy;
mod owned;
pub mod pyo3_per_interp;
mod refcount;
mod refs;
mod scalars;
mod send;
// Free-threaded builds only: per-object locks (critical sections).
#[cfg(Py_GIL_DISABLED)]
mod sync;
mod text;
// Python 3.14+: reading a str's header without the C macros (see the module).
#[cfg(Py_3_14)]
mod text_layout;
mod typed;
mod types;
mod writer;

pub use buffer::{fill_readonly, slice_of, with_exported, InputBuffer, KeptBuffer};
pub use build::*;
pub use bytearray::{offset_past_end, place_at};
#[cfg(Py_GIL_DISABLED)]
pub use call::python_calls;
pub use call::{
    call1, call2, call_method0, call_method1, fetch_error, get_attr, get_iter, iter_next,
    python_runs, to_str,
};
pub use containers::*;
pub use datetime::*;
pub use dict_cursor::DictCursor;
pub use dict_iter::DictIter;
#[cfg(Py_GIL_DISABLED)]
pub use dict_iter::{with_dict_entries, LockedEntries};
pub use exact::*;
pub use fastcall::{FastArgs, MethodDef};
pub use gc::{untrack_acyclic, untrack_atomic_dict, GcPause};
pub use heap_class::{add_class, class_type, dealloc_body, ClassStorage, Getter, HeapClass};
pub use interp::{kept_elsewhere, module_token, PerInterp};
pub use known::Known;
pub use module::{module_add, ModuleDef, ModuleExec, ModuleSlots};
pub use numpy::{parse_dtype, scalar_value, ArrayBuffer, Elem, Numpy, Order, TimeUnit};
pub use owned::{ref_count, Owned};
pub use refcount::verify as verify_refcount;
pub use refs::Ref;
pub use scalars::*;
pub use send::{install_anext, install_send, Anext, Ready};
pub use text::*;
#[cfg(Py_3_14)]
pub use text_layout::verify as verify_text_layout;

/// From 3.14 the reading of a dict's table is checked at import (see `dict_table`).
#[cfg(all(Py_3_14, not(any(PyPy, GraalPy))))]
pub use dict_table::verify as verify_dict_table;
pub use typed::*;
pub use types::*;
pub use writer::{scratch, BytesWriter, Pieces, SCRATCH_LEN};

pub use pyo3::ffi::PyObject;

/// A borrowed pointer to a live Python object.
pub type Obj = *mut PyObject;

/// Whether this thread is attached to the interpreter (holds the GIL, or on free-threaded builds
/// has an attached thread state): for debug checks.
pub fn attached() -> bool {
    // SAFETY: `PyGILState_Check` may be called on any thread, attached or not.
    unsafe { pyo3::ffi::PyGILState_Check() == 1 }
}

/// The layout checks run at import on this build, by name, and whether each agreed with CPython
/// (its fast path is on): the str header and the dict table from 3.14, the thread id of inline
/// reference counting on free-threaded builds. Empty before 3.14 with the GIL: nothing is
/// checked there.
pub fn layout_checks() -> Vec<(&'static str, bool)> {
    #[allow(unused_mut)]
    let mut checks = Vec::new();
    #[cfg(Py_3_14)]
    checks.push(("str", text_layout::verified()));
    #[cfg(all(Py_3_14, not(any(PyPy, GraalPy))))]
    checks.push(("dict", dict_table::verified()));
    if let Some(agreed) = refcount::verified() {
        checks.push(("refcount", agreed));
    }
    checks
}

/// Before 3.14 a dict's table is read as declared, or not at all: nothing to check.
#[cfg(not(all(Py_3_14, not(any(PyPy, GraalPy)))))]
pub fn verify_dict_table(_py: pyo3::Python<'_>) -> pyo3::PyResult<()> {
    Ok(())
}

/// Before 3.14 pyo3-ffi reads a str's header itself: nothing to check.
#[cfg(not(Py_3_14))]
pub fn verify_text_layout(_py: pyo3::Python<'_>) -> pyo3::PyResult<()> {
    Ok(())
}

impl crate::error::Live for Ref<'_> {
    #[inline(always)]
    fn object(self) -> Obj {
        self.as_ptr()
    }
}
