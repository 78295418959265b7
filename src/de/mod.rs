//! MessagePack to Python objects.

mod error;
mod ext;
mod keycache;
pub mod msgpack;
mod numpy;
mod reader;
pub mod skip;
mod token;
pub mod transcode;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::ffi::{self, GcPause, InputBuffer, Known, Numpy};
use crate::opt;
use crate::opt::Opt;
use keycache::KEY_CACHE;
use msgpack::Decoder;

pub use error::{DeError, Kind};

/// Inputs above this many bytes are decoded with automatic garbage collection paused.
const GC_PAUSE_MIN_INPUT: usize = 1024;

/// Decodes one MessagePack object from `data` (bytes, bytearray or a C-contiguous memoryview).
pub fn unpackb<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    ext_hook: Option<&Bound<'py, PyAny>>,
    opts: Opt,
) -> PyResult<Bound<'py, PyAny>> {
    let mut holder = None;
    let input = input_of(py, data, &mut holder, "unpackb")?;
    // A nested call (from ext_hook) or another thread finds the cache busy and goes without.
    let mut claim = KEY_CACHE.claim(py);
    let keys = claim.as_deref_mut();
    // Inputs this small build too few objects for a collection to start.
    // SAFETY: attached; the pause is dropped before this function returns.
    let _gc = (input.len() > GC_PAUSE_MIN_INPUT).then(|| unsafe { GcPause::new() });
    let timestamps = if opts & opt::DATETIME_AS_TIMESTAMP_EXT != 0 {
        Some(Known::get(py)?)
    } else {
        None
    };
    let numpy = if opts & opt::NUMPY_RAW != 0 {
        let source = data
            .is_exact_instance_of::<PyBytes>()
            .then(|| data.as_ptr());
        Numpy::get(py)?.map(|np| (np, source))
    } else {
        None
    };
    let hook = ext_hook.map(|h| h.as_ptr());
    let mut decoder = Decoder::new(py, input, opts, hook, timestamps, numpy, keys);
    let value = decoder.decode_document().map_err(DeError::into_pyerr)?;
    // SAFETY: the decoder hands over a strong reference.
    Ok(unsafe { Bound::from_owned_ptr(py, value.into_raw()) })
}

/// The object that starts at `offset` in `bytes`, read with only `OPT_NON_STR_KEYS` (no hook,
/// no timestamps, no numpy), and where it ends; errors give offsets in the whole input.
pub fn unpack_at<'py>(
    py: Python<'py>,
    bytes: &[u8],
    offset: usize,
    opts: Opt,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let mut claim = KEY_CACHE.claim(py);
    let keys = claim.as_deref_mut();
    let mut decoder = Decoder::new(py, bytes, opts & opt::NON_STR_KEYS, None, None, None, keys);
    let (value, end) = decoder.decode_at(offset).map_err(DeError::into_pyerr)?;
    // SAFETY: the decoder hands over a strong reference.
    Ok((unsafe { Bound::from_owned_ptr(py, value.into_raw()) }, end))
}

/// The MessagePack input of the entry point `function`: bytes, bytearray or a C-contiguous
/// memoryview, else a `TypeError` that names the function.
///
/// `bytes` is read in place and needs nothing held; for the other types the export or copy that
/// the bytes come from is put in `holder`, which must outlive them.
///
/// Always inlined, with the other types out of line, so that a `bytes` input stays a pointer and
/// a length in registers. Returned as an `InputBuffer` instead, the buffer went through memory
/// and was read back with a wider load than the stores that wrote it, which stalled the call (a
/// failed store-to-load forward).
#[inline(always)]
pub fn input_of<'a>(
    py: Python<'_>,
    data: &'a Bound<'_, PyAny>,
    holder: &'a mut Option<InputBuffer>,
    function: &str,
) -> PyResult<&'a [u8]> {
    // SAFETY: `data` is borrowed for `'a`, and a bytes object's storage never changes.
    if let Some(bytes) = unsafe { ffi::bytes_of(data.as_ptr()) } {
        return Ok(bytes);
    }
    input_not_bytes(py, data, holder, function)
}

/// [`input_of`] for inputs that are not `bytes`.
#[inline(never)]
fn input_not_bytes<'a>(
    py: Python<'_>,
    data: &'a Bound<'_, PyAny>,
    holder: &'a mut Option<InputBuffer>,
    function: &str,
) -> PyResult<&'a [u8]> {
    // SAFETY: `data` is borrowed for `'a`, so it is alive for as long as the buffer is read, and
    // we are attached.
    match unsafe { InputBuffer::acquire(data.as_ptr()) } {
        Ok(Some(input)) => Ok(holder.insert(input).as_slice()),
        Ok(None) => Err(wrong_input_type(data, function)),
        Err(cause) => Err(not_contiguous(py, cause, function)),
    }
}

#[cold]
fn wrong_input_type(data: &Bound<'_, PyAny>, function: &str) -> PyErr {
    let name = data
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    PyTypeError::new_err(format!(
        "{function}() argument must be bytes, bytearray or memoryview, not {name}"
    ))
}

#[cold]
fn not_contiguous(py: Python<'_>, cause: PyErr, function: &str) -> PyErr {
    let err = PyTypeError::new_err(format!("{function}() needs a C-contiguous memoryview"));
    err.set_cause(py, Some(cause));
    err
}
