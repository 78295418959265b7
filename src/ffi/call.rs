//! Calling user callbacks (`default`, `ext_hook`) and collecting what they raise.

use pyo3::ffi;
use pyo3::{PyErr, Python};

use super::{Obj, Owned};

/// `func(arg)`; on failure the raised exception.
///
/// # Safety
/// `func` and `arg` are live and the GIL is held.
#[inline]
pub unsafe fn call1(func: Obj, arg: Obj) -> Result<Owned, PyErr> {
    // SAFETY: forwarded from the caller.
    unsafe { Owned::from_new(ffi::PyObject_CallOneArg(func, arg)).ok_or_else(fetch_error) }
}

/// `func(a, b)`; on failure the raised exception.
///
/// # Safety
/// All three are live and the GIL is held.
#[inline]
pub unsafe fn call2(func: Obj, a: Obj, b: Obj) -> Result<Owned, PyErr> {
    let args = [a, b];
    // SAFETY: `args` holds two live objects; vectorcall borrows them for the call.
    unsafe {
        Owned::from_new(ffi::PyObject_Vectorcall(
            func,
            args.as_ptr(),
            2,
            std::ptr::null_mut(),
        ))
        .ok_or_else(fetch_error)
    }
}

/// Takes the Python error currently set (after a C-API call reported failure).
#[cold]
pub fn fetch_error() -> PyErr {
    // SAFETY: every caller holds the GIL (they just made a C-API call).
    let py = unsafe { Python::assume_attached() };
    PyErr::fetch(py)
}
