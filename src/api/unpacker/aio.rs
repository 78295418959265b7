//! The objects of `fastmsgpack.aio.AsyncUnpacker`, one per `__anext__`: `async for obj in
//! AsyncUnpacker(reader)`.
//!
//! Most objects of a stream are whole in the bytes already read: `__anext__` decodes the next
//! one at once and returns the iterator itself as the awaitable, which gives the object back on
//! the first send ([`ffi::Ready`]), with no coroutine frame and no `StopIteration` made for it.
//! Only when the bytes held hold no whole object does `__anext__` return the coroutine that reads
//! more (`AsyncUnpacker._next_after_read`, in Python), which raises `StopAsyncIteration` at the
//! end of the stream.
//!
//! An awaitable returned by `__anext__` and never awaited keeps its object: the next `__anext__`
//! returns the same awaitable, so that no object is lost. Awaiting one twice raises
//! `RuntimeError`, as awaiting a coroutine twice does.

use pyo3::exceptions::{PyRuntimeError, PyStopIteration};
use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::{PyTraverseError, PyVisit};

use super::{busy_check, Unpacker};
use crate::ffi::{self, Anext, Ready};

#[pyclass(
    crate = "crate::ffi::pyo3_per_interp",
    module = "fastmsgpack",
    name = "_AsyncObjects"
)]
pub struct AsyncObjects {
    unpacker: Option<Py<Unpacker>>,
    /// Makes the coroutine that reads more of the stream and returns the next object.
    read_then_next: Option<Py<PyAny>>,
    /// The object decoded by the last `__anext__`, until it is awaited.
    ready: Option<Py<PyAny>>,
}

#[pymethods]
impl AsyncObjects {
    #[new]
    #[pyo3(signature = (unpacker, read_then_next, /))]
    fn py_new(unpacker: Py<Unpacker>, read_then_next: Py<PyAny>) -> AsyncObjects {
        AsyncObjects {
            unpacker: Some(unpacker),
            read_then_next: Some(read_then_next),
            ready: None,
        }
    }

    // Itself, unborrowed (as `__await__` and `__iter__`): a borrow would fail while another
    // thread decodes.
    fn __aiter__<'py>(slf: &Bound<'py, Self>) -> Bound<'py, Self> {
        slf.clone()
    }

    // `ffi::install_anext` sets the slot to `Anext::anext` itself, with no call through PyO3;
    // the method stays for callers that call it by name.
    fn __anext__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        <Self as Anext>::anext(slf)
    }

    // `ffi::install_send` replaces the slot with one that does the same without a call through
    // PyO3 (once per object of the stream).
    fn __await__<'py>(slf: &Bound<'py, Self>) -> Bound<'py, Self> {
        slf.clone()
    }

    /// Itself: `yield from` (asyncio's wrapper of an awaitable that is not a coroutine) iterates
    /// what `__await__` returns.
    fn __iter__<'py>(slf: &Bound<'py, Self>) -> Bound<'py, Self> {
        slf.clone()
    }

    /// The object, as `StopIteration(obj)`, for a caller that drives the awaitable by hand (an
    /// `await` goes through the send slot instead).
    fn __next__(slf: &Bound<'_, Self>) -> PyResult<()> {
        let obj = <Self as Ready>::take(slf)?;
        Err(PyStopIteration::new_err((obj.unbind(),)))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.unpacker)?;
        visit.call(&self.read_then_next)?;
        visit.call(&self.ready)?;
        Ok(())
    }

    fn __clear__(&mut self) {
        self.unpacker = None;
        self.read_then_next = None;
        self.ready = None;
    }
}

impl Anext for AsyncObjects {
    /// Itself, holding the next object, when the bytes held have it whole; else the coroutine
    /// that reads more.
    ///
    /// Inlined into the slot: it runs once per object, and the call from the slot cost about
    /// ten instructions an object; reading more is a call of its own.
    #[inline(always)]
    fn anext<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let mut this = slf.try_borrow_mut().map_err(|_| busy())?;
        if this.ready.is_none() {
            let Some(unpacker) = &this.unpacker else {
                return Err(busy());
            };
            let unpacker = unpacker.bind(py);
            let next = {
                let mut reading = busy_check(unpacker, "__anext__")?;
                let result = reading.next_object(py);
                reading.compat_errors(py, result)?
            };
            match next {
                Some(obj) => this.ready = Some(obj.unbind()),
                None => return read_then_next(this),
            }
        }
        Ok(slf.clone().into_any())
    }
}

/// The coroutine that reads more of the stream and returns the next object: the bytes held
/// have no whole object (once per piece read, not per object).
#[cold]
#[inline(never)]
fn read_then_next<'py>(this: PyRefMut<'py, AsyncObjects>) -> PyResult<Bound<'py, PyAny>> {
    let py = this.py();
    let Some(read) = this.read_then_next.as_ref().map(|r| r.clone_ref(py)) else {
        return Err(busy());
    };
    drop(this);
    read.into_bound(py).call0()
}

impl Ready for AsyncObjects {
    #[inline]
    fn take<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let ready = slf.try_borrow_mut().map_err(|_| busy())?.ready.take();
        match ready {
            Some(obj) => Ok(obj.into_bound(slf.py())),
            None => Err(awaited_twice()),
        }
    }
}

/// Gives the class its send and `__anext__` slots, once made for an interpreter.
fn install(ty: &Bound<'_, PyType>) -> PyResult<()> {
    ffi::install_send::<AsyncObjects>(ty);
    ffi::install_anext::<AsyncObjects>(ty);
    Ok(())
}

#[cold]
fn busy() -> PyErr {
    PyRuntimeError::new_err(
        "AsyncUnpacker's iterator is in use: not from its hooks, nor from two threads at once",
    )
}

#[cold]
fn awaited_twice() -> PyErr {
    PyRuntimeError::new_err("cannot await an AsyncUnpacker's __anext__() result twice")
}

crate::heap_class!(AsyncObjects, finish: install);
