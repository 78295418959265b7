//! Awaitables that are ready as soon as they are awaited, given a `send` slot (`am_send`).
//!
//! `await x` (and `async for`) drive the awaitable with `PyIter_Send`, which calls the type's
//! `am_send` when it has one. Without it, an awaitable hands its value back by raising
//! `StopIteration(value)` from `__next__`: an exception object made, raised and caught for every
//! value. `am_send` returns the value directly. PyO3 does not generate the slot, so it is set on
//! the type object once, when the module is initialised; the type's `__next__` stays, for callers
//! that drive the awaitable by hand. `am_await` is set beside it, to return the awaitable itself
//! without going through PyO3's method machinery.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::PyClass;

use super::Obj;

/// A class whose instances are their own awaitable, ready at once.
pub trait Ready: PyClass {
    /// The value `await` gives; an error (a Python exception) when there is none.
    fn take<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>>;
}

/// The `am_send` slot of a [`Ready`] class: the awaitable returns its value on the first send.
unsafe extern "C" fn send_ready<T: Ready>(
    awaitable: Obj,
    _arg: Obj,
    result: *mut Obj,
) -> ffi::PySendResult {
    // SAFETY: the interpreter calls `am_send` attached, with `awaitable` an instance of the type
    // the slot was set on (a `T`, by `install_send`) kept alive by the caller for the call, and
    // with `result` pointing to writable storage.
    unsafe {
        let py = Python::assume_attached();
        let slf = pyo3::Borrowed::from_ptr(py, awaitable).cast_unchecked::<T>();
        match T::take(&slf) {
            Ok(value) => {
                *result = value.into_ptr();
                ffi::PySendResult::PYGEN_RETURN
            }
            Err(err) => {
                err.restore(py);
                *result = std::ptr::null_mut();
                ffi::PySendResult::PYGEN_ERROR
            }
        }
    }
}

/// The `am_await` slot of a [`Ready`] class: the awaitable is its own iterator (what its
/// `__await__` returns), handed back with no call through PyO3's method machinery, once for every
/// `await`.
unsafe extern "C" fn await_self(awaitable: Obj) -> Obj {
    // SAFETY: the interpreter calls `am_await` attached, with `awaitable` a live object kept alive
    // by the caller for the call; the strong reference taken here is the one returned.
    unsafe { ffi::Py_INCREF(awaitable) };
    awaitable
}

/// A class whose `__anext__` is its `am_anext` slot directly (see [`install_anext`]).
pub trait Anext: PyClass {
    /// What `__anext__` returns: the awaitable of the next value.
    fn anext<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>>;
}

/// The `am_anext` slot of an [`Anext`] class: `T::anext`, with no call through PyO3's method
/// machinery, once for every step of an `async for`.
unsafe extern "C" fn anext_slot<T: Anext>(slf: Obj) -> Obj {
    // SAFETY: the interpreter calls `am_anext` attached, with `slf` an instance of the type the
    // slot was set on (a `T`, by `install_anext`) kept alive by the caller for the call.
    unsafe {
        let py = Python::assume_attached();
        let slf = pyo3::Borrowed::from_ptr(py, slf).cast_unchecked::<T>();
        match T::anext(&slf) {
            Ok(value) => value.into_ptr(),
            Err(err) => {
                err.restore(py);
                std::ptr::null_mut()
            }
        }
    }
}

/// Gives the class `T` (whose type object is `ty`) its `__anext__` as the `am_anext` slot
/// itself: an `async for` over a stream of small objects steps once per object, and PyO3's
/// trampoline around the method cost about 45 of the some 3,200 instructions an object
/// (callgrind, CPython 3.11, 100,000 messages of three fields over loopback TCP).
/// Called once, while the module is initialised, before any instance is iterated.
pub fn install_anext<T: Anext>(ty: &Bound<'_, PyType>) {
    let ty = ty.as_type_ptr();
    // SAFETY: as in `install_send`: `tp_as_async` points into the heap type PyO3 made for `T`,
    // writable, and no other thread reads the slot yet; `PyType_Modified` drops cached lookups.
    unsafe {
        let methods = (*ty).tp_as_async;
        if methods.is_null() {
            return;
        }
        (*methods).am_anext = Some(anext_slot::<T>);
        ffi::PyType_Modified(ty);
    }
}

/// Gives the class `T` (whose type object is `ty`) the `am_send` and `am_await` slots of a
/// [`Ready`] awaitable. Called once, while the module is initialised, before any instance is
/// awaited.
pub fn install_send<T: Ready>(ty: &Bound<'_, PyType>) {
    let ty = ty.as_type_ptr();
    // SAFETY: `ty` is the heap type PyO3 made for `T` (`PyType_FromSpec`), whose `tp_as_async`
    // points into the type object itself and is writable; the module is being initialised, so
    // no other thread can be reading the slot yet. `PyType_Modified` drops the cached lookups.
    unsafe {
        let methods = (*ty).tp_as_async;
        if methods.is_null() {
            return;
        }
        (*methods).am_send = Some(send_ready::<T>);
        (*methods).am_await = Some(await_self);
        ffi::PyType_Modified(ty);
    }
}
