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
    super::python_runs();
    // SAFETY: `func` and `arg` are live and the GIL is held (the precondition); the call borrows
    // them and returns a new reference, or null with an error set.
    unsafe { Owned::from_new(ffi::PyObject_CallOneArg(func, arg)).ok_or_else(fetch_error) }
}

/// `func(a, b)`; on failure the raised exception.
///
/// # Safety
/// All three are live and the GIL is held.
#[inline]
pub unsafe fn call2(func: Obj, a: Obj, b: Obj) -> Result<Owned, PyErr> {
    super::python_runs();
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
    debug_assert!(super::attached(), "fetch_error on a detached thread");
    // SAFETY: reached only after a call of the C API reported failure, and every function here
    // that makes one requires an attached thread (its `# Safety`), so this thread is attached;
    // checked in debug builds. (`Python::attach` would check it in every build: the untyped
    // decode of a 1,000-child route measured about 1% slower with it.)
    let py = unsafe { Python::assume_attached() };
    PyErr::fetch(py)
}

/// `obj.name()`; on failure the raised exception.
///
/// # Safety
/// `obj` and `name` (a str) are live and the GIL is held.
#[inline]
pub unsafe fn call_method0(obj: Obj, name: Obj) -> Result<Owned, PyErr> {
    super::python_runs();
    // SAFETY: `obj` and `name` (a str) are live and the GIL is held (the precondition); the call
    // borrows them and returns a new reference, or null with an error set.
    unsafe { Owned::from_new(ffi::PyObject_CallMethodNoArgs(obj, name)).ok_or_else(fetch_error) }
}

/// `obj.name`; on failure the raised exception.
///
/// # Safety
/// `obj` and `name` (a str) are live and the GIL is held.
#[inline]
pub unsafe fn get_attr(obj: Obj, name: Obj) -> Result<Owned, PyErr> {
    super::python_runs();
    // SAFETY: `obj` and `name` (a str) are live and the GIL is held (the precondition); the lookup
    // borrows them and returns a new reference, or null with an error set.
    unsafe { Owned::from_new(ffi::PyObject_GetAttr(obj, name)).ok_or_else(fetch_error) }
}

/// `str(obj)`.
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline]
pub unsafe fn to_str(obj: Obj) -> Result<Owned, PyErr> {
    super::python_runs();
    // SAFETY: `obj` is live and the GIL is held (the precondition); `PyObject_Str` returns a new
    // reference, or null with an error set.
    unsafe { Owned::from_new(ffi::PyObject_Str(obj)).ok_or_else(fetch_error) }
}

/// The next item of an iterator, `Ok(None)` at its end.
///
/// # Safety
/// `iter` is a live iterator and the GIL is held.
#[inline]
pub unsafe fn iter_next(iter: Obj) -> Result<Option<Owned>, PyErr> {
    super::python_runs();
    // SAFETY: `iter` is a live iterator and the GIL is held (the precondition); `PyIter_Next`
    // returns a new reference, or null: exhausted unless an error is set.
    unsafe {
        match Owned::from_new(ffi::PyIter_Next(iter)) {
            Some(item) => Ok(Some(item)),
            None if ffi::PyErr_Occurred().is_null() => Ok(None),
            None => Err(fetch_error()),
        }
    }
}

/// `iter(obj)`.
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline]
pub unsafe fn get_iter(obj: Obj) -> Result<Owned, PyErr> {
    super::python_runs();
    // SAFETY: `obj` is live and the GIL is held (the precondition); `PyObject_GetIter` returns a
    // new reference, or null with an error set.
    unsafe { Owned::from_new(ffi::PyObject_GetIter(obj)).ok_or_else(fetch_error) }
}

/// `obj.name(arg)`; on failure the raised exception.
///
/// # Safety
/// All three are live, `name` is a str, and the GIL is held.
#[inline]
pub unsafe fn call_method1(obj: Obj, name: Obj, arg: Obj) -> Result<Owned, PyErr> {
    super::python_runs();
    // SAFETY: `obj`, `name` (a str) and `arg` are live and the GIL is held (the precondition); the
    // call borrows them and returns a new reference, or null with an error set.
    unsafe {
        Owned::from_new(ffi::PyObject_CallMethodOneArg(obj, name, arg)).ok_or_else(fetch_error)
    }
}

/// Free-threaded builds: how many calls into Python code this thread has made (through the
/// functions above). A walk that copied a list or dict compares it before and after: when its
/// own thread ran Python code meanwhile (a `default`, an enum's `value`), a change of the
/// container's size is that code's doing, and an error, as with the GIL; a change made by
/// another thread is not.
#[cfg(Py_GIL_DISABLED)]
mod python_calls {
    use std::cell::Cell;

    thread_local! {
        static CALLS: Cell<u64> = const { Cell::new(0) };
    }

    #[inline(always)]
    pub fn python_runs() {
        CALLS.with(|c| c.set(c.get().wrapping_add(1)));
    }

    #[inline(always)]
    pub fn python_calls() -> u64 {
        CALLS.with(Cell::get)
    }
}

#[cfg(Py_GIL_DISABLED)]
pub use python_calls::{python_calls, python_runs};

/// With the GIL nothing is counted: walks re-read the container itself.
#[cfg(not(Py_GIL_DISABLED))]
#[inline(always)]
pub fn python_runs() {}
