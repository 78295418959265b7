//! Record files: the frame header of one record, and the scan of a whole file
//! ([`fastmsgpack_core::frame`]); `fastmsgpack.snapshot.RecordWriter` and `read_records` do the
//! file handling.

use std::path::PathBuf;

use fastmsgpack_core::frame;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::error::refused;
use super::send::Shared;
use crate::ffi::InputBuffer;

/// `_record_frame(payload)`: the 20 bytes that go before `payload` in a record file.
pub fn frame_header<'py>(
    py: Python<'py>,
    payload: &Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = payload.as_bytes();
    // SAFETY: `payload` is a `bytes` object, immutable, held for the whole call.
    let shared = unsafe { Shared::new(bytes) };
    match py.detach(|| frame::frame_header(shared.get())) {
        Some(header) => Ok(PyBytes::new(py, &header)),
        None => Err(pyo3::exceptions::PyValueError::new_err(
            "a record must pack to under 4 GiB",
        )),
    }
}

/// `_record_scan(data, path)`: the places of the complete records of the record file held in
/// `data`, where the last complete frame ends, and whether a torn frame follows it.
#[allow(clippy::type_complexity)]
pub fn scan(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    path: Option<PathBuf>,
) -> PyResult<(Vec<(usize, usize)>, usize, bool)> {
    // SAFETY: `data` is alive (borrowed for the call) and the GIL is held.
    let buffer = match unsafe { InputBuffer::acquire(data.as_ptr()) }? {
        Some(buffer) => buffer,
        None => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "a bytes-like object is required",
            ))
        }
    };
    // SAFETY: `buffer` (a read-only export or a private copy) outlives the detached call.
    let shared = unsafe { Shared::new(buffer.as_slice()) };
    let scan = py
        .detach(|| frame::scan(shared.get()))
        .map_err(|r| refused(py, &r, path.as_deref()))?;
    drop(buffer);
    let records = scan.records.iter().map(|r| (r.start, r.end)).collect();
    Ok((records, scan.end, scan.torn))
}
