//! Out-of-band buffers, as pickle protocol 5 has them: `packb(obj, buffer_callback=cb)` hands
//! large buffers to `cb` (as `pickle.PickleBuffer`s) instead of copying them into the output,
//! and leaves a small reference in their place; `unpackb(data, buffers=...)`
//! puts the buffers back, without a copy. Here are the entry points that pack with them.

use fastmsgpack_core::buffer_ref::DEFAULT_THRESHOLD;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::request::Pack;
use crate::ser;

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
    request: &Pack<'_, 'py>,
    threshold: usize,
) -> PyResult<Bound<'py, PyList>> {
    let buffers = PyList::empty(py);
    // `list.append` returns None: every buffer offered goes out of band.
    let append = buffers.getattr(crate::intern!(py, "append"))?;
    let oob = Some((&append, threshold));
    let message = ser::packb_oob(py, obj, request.hooks(py), request.opts, oob)?;
    let frames = PyList::empty(py);
    frames.append(message)?;
    let raw = crate::intern!(py, "raw");
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
    request: &Pack<'_, 'py>,
    callback: &Bound<'py, PyAny>,
    threshold_arg: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let threshold = threshold(threshold_arg)?;
    let oob = Some((callback, threshold));
    ser::packb_oob(py, obj, request.hooks(py), request.opts, oob)
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
    let request = Pack::parse("packb_frames", default, option, None)?;
    pack_frames(py, obj, &request, threshold(buffer_threshold)?)
}
