//! `fastmsgpack.snapshot.save` of a compressed snapshot: the object packed and compressed at
//! once ([`crate::snapshot`]'s pieces), the walk being `packb`'s ([`crate::ser`]).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::request::Pack;
use crate::{ser, snapshot};

/// `_snapshot_save_packing(path, obj, default, option, registry, codec, level, threads, meta,
/// piece, start)`: packs `obj` as `packb(obj, default, option, registry=registry)` and saves it
/// compressed at `path`, durably; once the packed output passes `start` bytes, its pieces of
/// `piece` bytes are compressed by a thread of their own while the walk goes on. Returns whether they were.
#[pyfunction]
#[pyo3(signature = (path, obj, default, option, registry, codec, level, threads, meta, piece, start))]
#[allow(clippy::too_many_arguments)]
pub fn _snapshot_save_packing(
    py: Python<'_>,
    path: PathBuf,
    obj: &Bound<'_, PyAny>,
    default: Option<&Bound<'_, PyAny>>,
    option: Option<&Bound<'_, PyAny>>,
    registry: Option<&Bound<'_, PyAny>>,
    codec: &str,
    level: i32,
    threads: u32,
    meta: &Bound<'_, PyBytes>,
    piece: usize,
    start: usize,
) -> PyResult<bool> {
    let request = Pack::parse("save", default, option, registry)?;
    let plan = snapshot::Plan {
        piece: piece.max(4096),
        from: start,
    };
    let (saving, mut sink) =
        snapshot::begin(py, path, (codec, level, threads), meta.as_bytes(), plan)?;
    match ser::pack_in_pieces(py, obj, request.hooks(py), request.opts, &mut sink) {
        Ok(len) => {
            let packed = sink.end(len);
            let in_pieces = matches!(packed, snapshot::Packed::Sent(_));
            saving.finish(py, packed).map(|()| in_pieces)
        }
        Err(err) => Err(saving.abandon(py, sink, err)),
    }
}
