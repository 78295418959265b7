//! Out-of-band buffers (`packb(obj, buffer_callback=cb)`): a buffer of at least the threshold's
//! size is handed to `cb` as a `pickle.PickleBuffer`; when `cb` returns a false value (as
//! pickle's contract has it) a reference takes its place in the output
//! ([`fastmsgpack_core::buffer_ref`]).

use std::cell::Cell;

use pyo3::prelude::*;

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Ref};
use crate::ser::Ctx;
use fastmsgpack_core::buffer_ref as oob;
use pyo3::types::PyType;

/// Where out-of-band buffers go, for one call.
pub struct Sink<'a> {
    /// The user's `buffer_callback`, an argument of the call.
    pub callback: Ref<'a>,
    /// `pickle.PickleBuffer`, held by the module's cache of imports.
    pub pickle_buffer: Ref<'a>,
    /// The buffers handed out so far: the index of the next one.
    pub count: Cell<u64>,
}

/// Offers `obj` (which exports C-contiguous memory) to the callback; `Some((index, len))` when
/// the callback takes it out of band (the caller writes [`write_ref`] where the bin would go),
/// `None` when it is to be written in band. The length is read from the `PickleBuffer`'s own
/// export, which holds the memory (a bytearray cannot be resized while it lives). Runs Python
/// code: the caller reads `obj`'s memory again afterwards, or holds an export of it.
///
/// # Safety
/// `obj` is live and exports a buffer; the GIL is held.
#[cold]
#[inline(never)]
pub unsafe fn claim(obj: Ref<'_>, cx: &Ctx) -> Res<Option<(u64, usize)>> {
    let Some(sink) = &cx.oob else {
        return Ok(None);
    };
    // SAFETY: `obj`, the callback and the type are live on an attached thread (`Ref`'s
    // invariant: `obj` is held by the caller, the other two by the call and the import cache).
    // `obj` exports a buffer (this function's precondition), so `PickleBuffer(obj)` succeeds or
    // raises; the buffer and the answer are strong references held here.
    let len = unsafe {
        let buffer = ffi::call1(sink.pickle_buffer.as_ptr(), obj.as_ptr())?;
        let len = ffi::with_exported(buffer.as_ptr(), <[u8]>::len)?;
        let answer = ffi::call1(sink.callback.as_ptr(), buffer.as_ptr())?;
        let py = Python::assume_attached();
        if Bound::from_borrowed_ptr(py, answer.as_ptr()).is_truthy()? {
            return Ok(None);
        }
        len
    };
    let index = sink.count.get();
    sink.count.set(index + 1);
    Ok(Some((index, len)))
}

/// The reference to out-of-band buffer `index`, of `len` bytes.
#[inline]
pub fn write_ref<E: Emitter>(index: u64, len: usize, e: &mut E) -> Res {
    e.ext(oob::TAG, &oob::encode_ref(index, len as u64))
}

/// `obj` (`len` bytes) as a reference when the callback takes it; `true` then.
///
/// # Safety
/// As [`claim`].
#[inline(always)]
pub unsafe fn offer<E: Emitter>(obj: Ref<'_>, len: usize, cx: &Ctx, e: &mut E) -> Res<bool> {
    if len < cx.oob_threshold {
        return Ok(false);
    }
    // SAFETY: `obj` is live and exports a buffer, and the GIL is held (this function's
    // precondition, the same as `claim`'s).
    match unsafe { claim(obj, cx) }? {
        Some((index, len)) => write_ref(index, len, e).map(|()| true),
        None => Ok(false),
    }
}

/// Is `obj` a `pickle.PickleBuffer`? Those are packed as bin, in band or out of band, as pickle
/// protocol 5 packs them.
///
pub fn is_pickle_buffer(obj: Ref<'_>) -> Res<bool> {
    // SAFETY: a `Ref` exists only on an attached thread (its invariant).
    let py = unsafe { Python::assume_attached() };
    let ty = pickle_buffer_type(py)?;
    Ok(obj.type_of() == ty.as_ptr().cast())
}

static PICKLE_BUFFER: crate::ffi::PerInterp<Py<PyType>> = crate::ffi::PerInterp::new();

/// `pickle.PickleBuffer`.
pub fn pickle_buffer_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    PICKLE_BUFFER.import(py, "pickle", "PickleBuffer")
}
