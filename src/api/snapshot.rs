//! `fastmsgpack.snapshot`'s entry points (all private: `python/fastmsgpack/snapshot.py` wraps
//! them). Each reads its arguments and hands them to `crate::snapshot`, which does the work with
//! the GIL released; a compressed save of an object is `snapshot_save.rs`.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::snapshot::{self, SnapshotError};
use crate::view::SnapshotIndex;

/// Adds the snapshot functions, `SnapshotError` and the record file's header to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    super::add(m, "SnapshotError", py.get_type::<SnapshotError>())?;
    snapshot::add_defaults(py)?;
    super::add_function(m, wrap_pyfunction!(_snapshot_save, m)?)?;
    super::add_function(m, wrap_pyfunction!(_snapshot_dumps, m)?)?;
    super::add_function(m, wrap_pyfunction!(_snapshot_remove_stale, m)?)?;
    super::add_function(m, wrap_pyfunction!(_snapshot_load, m)?)?;
    super::add_function(m, wrap_pyfunction!(_snapshot_loads, m)?)?;
    super::add_function(m, wrap_pyfunction!(_snapshot_info, m)?)?;
    super::add_function(m, wrap_pyfunction!(_snapshot_header, m)?)?;
    super::add_function(m, wrap_pyfunction!(_record_frame, m)?)?;
    super::add_function(m, wrap_pyfunction!(_record_scan, m)?)?;
    super::add(
        m,
        "_RECORD_FILE_HEADER",
        PyBytes::new(py, fastmsgpack_core::frame::FILE_HEADER),
    )?;
    Ok(())
}

/// `_snapshot_save(path, data, codec, level, threads, meta, index=None)`: the packed `data`
/// saved durably at `path` (`snapshot::save_buffer`).
#[pyfunction]
#[pyo3(signature = (path, data, codec, level, threads, meta, index=None))]
#[allow(clippy::too_many_arguments)]
fn _snapshot_save(
    py: Python<'_>,
    path: PathBuf,
    data: &Bound<'_, PyAny>,
    codec: &str,
    level: i32,
    threads: u32,
    meta: &Bound<'_, PyBytes>,
    index: Option<bool>,
) -> PyResult<()> {
    let settings = snapshot::settings(codec, level, threads)?;
    snapshot::save_buffer(py, path, data, settings, meta, index)
}

/// `_snapshot_dumps(data, codec, level, threads, meta, index=False)`: the snapshot of the
/// packed `data`, as bytes (`snapshot::dumps`).
#[pyfunction]
#[pyo3(signature = (data, codec, level, threads, meta, index=false))]
fn _snapshot_dumps<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    codec: &str,
    level: i32,
    threads: u32,
    meta: &Bound<'py, PyBytes>,
    index: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let settings = snapshot::settings(codec, level, threads)?;
    snapshot::dumps(py, data, settings, meta, index)
}

/// `_snapshot_remove_stale(directory)`: the paths of the temporary files removed.
#[pyfunction]
fn _snapshot_remove_stale(py: Python<'_>, directory: PathBuf) -> PyResult<Vec<std::ffi::OsString>> {
    snapshot::remove_stale(py, directory)
}

/// `_snapshot_load(path)`: the header and the checked payload of the snapshot at `path`.
#[pyfunction]
fn _snapshot_load(
    py: Python<'_>,
    path: PathBuf,
) -> PyResult<(Bound<'_, PyDict>, Bound<'_, PyBytes>)> {
    snapshot::load(py, path)
}

/// `_snapshot_loads(data)`: the header of the snapshot in `data`, and its payload if stored
/// compressed.
#[pyfunction]
fn _snapshot_loads<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyDict>, Option<Bound<'py, PyBytes>>)> {
    snapshot::loads(py, data)
}

/// `_snapshot_info(path)`: the header of the snapshot at `path`, read alone.
#[pyfunction]
fn _snapshot_info(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    snapshot::info(py, path)
}

/// `_snapshot_header(data, path, verify)`: the header and index of a mapped snapshot, for `view`.
#[pyfunction]
fn _snapshot_header<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    path: Option<PathBuf>,
    verify: bool,
) -> PyResult<(Bound<'py, PyDict>, Option<Bound<'py, SnapshotIndex>>)> {
    snapshot::header(py, data, path, verify)
}

/// `_record_frame(payload)`: the 20 bytes that go before `payload` in a record file.
#[pyfunction]
fn _record_frame<'py>(
    py: Python<'py>,
    payload: &Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyBytes>> {
    snapshot::frame_header(py, payload)
}

/// `_record_scan(data, path)`: the complete records of a record file's bytes, where the last
/// one ends, and whether a torn frame follows it.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn _record_scan(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    path: Option<PathBuf>,
) -> PyResult<(Vec<(usize, usize)>, usize, bool)> {
    snapshot::scan(py, data, path)
}
