//! Out-of-band buffers, as pickle protocol 5 has them: `packb(obj, buffer_callback=cb)` hands
//! large buffers to `cb` (as `pickle.PickleBuffer`s) instead of copying them into the output,
//! and leaves a small reference in their place; `unpackb(data, buffers=...)` puts the buffers
//! back, without a copy.
//!
//! The reference is the extension type [`TAG`] with a 16-byte payload: the buffer's index among
//! the message's out-of-band buffers, then its length in bytes, both big-endian `u64`s. It stands
//! where the bin would stand, also as the `data` of a raw numpy map (`OPT_NUMPY_RAW`), whose
//! other entries (dtype, shape) stay in the message.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyType};

/// The extension type of an out-of-band reference: in the range MessagePack keeps for itself,
/// next to the exact types (`crate::exact`), so that no application's own code (0 to 127) is
/// ever read as a reference.
pub const TAG: i8 = -113;

/// The payload length of a reference.
pub const REF_LEN: usize = 16;

/// Buffers of at least this many bytes go out of band unless `buffer_threshold` says otherwise:
/// below it, the copy costs less than the callback and the extra frame.
pub const DEFAULT_THRESHOLD: usize = 4096;

/// A reference's payload.
#[inline]
pub fn encode_ref(index: u64, len: u64) -> [u8; REF_LEN] {
    let mut out = [0; REF_LEN];
    out[..8].copy_from_slice(&index.to_be_bytes());
    out[8..].copy_from_slice(&len.to_be_bytes());
    out
}

/// A reference's index and length; `None` when the payload is not 16 bytes.
#[inline]
pub fn decode_ref(payload: &[u8]) -> Option<(u64, u64)> {
    let payload: &[u8; REF_LEN] = payload.try_into().ok()?;
    let (index, len) = payload.split_at(8);
    Some((
        u64::from_be_bytes(index.try_into().ok()?),
        u64::from_be_bytes(len.try_into().ok()?),
    ))
}

static PICKLE_BUFFER: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `pickle.PickleBuffer`.
pub fn pickle_buffer_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    PICKLE_BUFFER.import(py, "pickle", "PickleBuffer")
}

/// Reads the `buffer_threshold` argument: `None` is the default.
pub fn threshold(value: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    match value {
        Some(v) if !v.is_none() => v.extract::<usize>().map_err(|_| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "buffer_threshold must be an int of 0 or more, not {v}"
            ))
        }),
        _ => Ok(DEFAULT_THRESHOLD),
    }
}

/// Reads the `buffer_callback` argument: `None`, or a callable.
pub fn callback(value: Option<Bound<'_, PyAny>>) -> PyResult<Option<Bound<'_, PyAny>>> {
    crate::opt::check_hook(value.as_ref(), "buffer_callback")?;
    Ok(value.filter(|v| !v.is_none()))
}

/// `obj` packed as frames: the message, then each out-of-band buffer as a flat `memoryview`
/// (`PickleBuffer.raw()`), in the order of their references.
pub fn pack_frames<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    opts: crate::opt::Opt,
    threshold: usize,
) -> PyResult<Bound<'py, PyList>> {
    let buffers = PyList::empty(py);
    // `list.append` returns None: every buffer offered goes out of band.
    let append = buffers.getattr(pyo3::intern!(py, "append"))?;
    let message = crate::ser::packb_oob(
        py,
        obj,
        crate::compat::classes::hooks(default, None),
        opts,
        Some((&append, threshold)),
    )?;
    let frames = PyList::empty(py);
    frames.append(message)?;
    let raw = pyo3::intern!(py, "raw");
    for buffer in buffers.iter() {
        frames.append(buffer.call_method0(raw)?)?;
    }
    Ok(frames)
}

/// `packb(obj, ..., buffer_callback=callback, buffer_threshold=...)`.
#[cold]
pub fn packb<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    opts: crate::opt::Opt,
    callback: Bound<'py, PyAny>,
    threshold_arg: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let threshold = threshold(threshold_arg)?;
    match self::callback(Some(callback))? {
        Some(callback) => crate::ser::packb_oob(
            py,
            obj,
            crate::compat::classes::hooks(default, None),
            opts,
            Some((&callback, threshold)),
        ),
        None => crate::ser::packb(py, obj, crate::compat::classes::hooks(default, None), opts),
    }
}

/// The message `packb(obj, default, option)` packs, and its out-of-band buffers (those of
/// at least `buffer_threshold` bytes), as a list of frames, for `socket.sendmsg` or a file's
/// `writelines`: the message first, then each buffer, without copying them.
///
/// Example:
///     >>> frames = packb_frames([b"x" * 100_000]); len(frames)
///     2
#[pyfunction]
#[pyo3(signature = (obj, /, default=None, option=None, *, buffer_threshold=None))]
pub fn packb_frames<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    option: Option<&Bound<'py, PyAny>>,
    buffer_threshold: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let opts = crate::opt::parse_for_packing(option, "packb_frames")?;
    pack_frames(py, obj, default, opts, threshold(buffer_threshold)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_round_trip_and_refuse_other_lengths() {
        let payload = encode_ref(3, u64::MAX);
        assert_eq!(decode_ref(&payload), Some((3, u64::MAX)));
        assert_eq!(payload[..8], [0, 0, 0, 0, 0, 0, 0, 3]);
        assert_eq!(decode_ref(&payload[..15]), None);
        assert_eq!(decode_ref(&[0; 17]), None);
    }
}
