//! Snapshots (`fastmsgpack.snapshot`, doc/snapshots.md): MessagePack written durably to a file,
//! or framed in memory, with a header, a checksum and optional compression.
//!
//! The Python side packs and unpacks (`packb` and `unpackb`, with all their arguments); this
//! module does the rest with the GIL released: the header ([`fastmsgpack_core::snapshot`]),
//! compressing ([`codec`]) straight into the temporary file, `fsync`, the rename and the
//! directory's `fsync` ([`write`]), and reading, checking and decompressing straight into the
//! `bytes` that `unpackb` then reads ([`read`]). Record files share the checksum ([`records`]).
//! A compressed save packs in `crate::api` instead, into [`pieces`] that a thread of their own
//! compresses while the walk goes on.

mod codec;
mod error;
mod pieces;
mod read;
mod records;
mod send;
mod temp;
mod write;

use pyo3::prelude::*;

pub use error::SnapshotError;
pub use pieces::{Packed, Plan};
pub use write::begin;

/// Adds the snapshot functions (all private: `fastmsgpack.snapshot` wraps them) to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SnapshotError", py.get_type::<SnapshotError>())?;
    error::add_defaults(py)?;
    m.add_function(wrap_pyfunction!(write::_snapshot_save, m)?)?;
    m.add_function(wrap_pyfunction!(write::_snapshot_dumps, m)?)?;
    m.add_function(wrap_pyfunction!(write::_snapshot_remove_stale, m)?)?;
    m.add_function(wrap_pyfunction!(read::_snapshot_load, m)?)?;
    m.add_function(wrap_pyfunction!(read::_snapshot_loads, m)?)?;
    m.add_function(wrap_pyfunction!(read::_snapshot_info, m)?)?;
    m.add_function(wrap_pyfunction!(read::_snapshot_header, m)?)?;
    m.add_function(wrap_pyfunction!(records::_record_frame, m)?)?;
    m.add_function(wrap_pyfunction!(records::_record_scan, m)?)?;
    m.add(
        "_RECORD_FILE_HEADER",
        pyo3::types::PyBytes::new(py, fastmsgpack_core::frame::FILE_HEADER),
    )?;
    Ok(())
}
