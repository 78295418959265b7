//! `SnapshotError`: a snapshot or record file refused, as data (`kind`, `path`, `offset`).

use std::path::Path;

use crate::{exception, intern};
use fastmsgpack_core::snapshot::Refusal;
use pyo3::prelude::*;

use crate::exc::MsgpackDecodeError;

exception!(
    "fastmsgpack.snapshot",
    SnapshotError,
    MsgpackDecodeError,
    "A snapshot or record file was refused: truncated, a checksum that does not match, not a \
     snapshot (magic), an unknown codec or a newer format version. `kind` names which, `path` \
     the file (None for bytes) and `offset` the byte where it was found. Subclass of \
     MsgpackDecodeError."
);

/// The attributes every `SnapshotError` has, `None` on the class.
pub fn add_defaults(py: Python<'_>) -> PyResult<()> {
    let class = py.get_type::<SnapshotError>();
    for name in ["kind", "reason", "offset", "path"] {
        class.setattr(name, py.None())?;
    }
    Ok(())
}

/// The error for `refusal` of the file at `path` (None: bytes in memory).
#[cold]
pub fn refused(py: Python<'_>, refusal: &Refusal, path: Option<&Path>) -> PyErr {
    let what = match path {
        Some(path) => format!("{}", path.display()),
        None => "snapshot bytes".to_owned(),
    };
    let message = format!(
        "{what}: {} ({}, at byte {})",
        refusal.reason,
        refusal.fault.name(),
        refusal.offset
    );
    let err = SnapshotError::new_err(message);
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr(intern!(py, "kind"), refusal.fault.name())?;
        value.setattr(intern!(py, "reason"), &refusal.reason)?;
        value.setattr(intern!(py, "offset"), refusal.offset)?;
        value.setattr(intern!(py, "path"), path.map(Path::as_os_str))?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

/// An `OSError` (of the subclass its errno picks) naming `path`.
#[cold]
pub fn os_error(err: &std::io::Error, path: &Path) -> PyErr {
    let errno = err.raw_os_error().unwrap_or(0);
    let text = match err.raw_os_error() {
        Some(_) => std::io::Error::from_raw_os_error(errno).to_string(),
        None => err.to_string(),
    };
    // Cut the " (os error N)" std adds: Python's OSError shows the errno itself.
    let text = match text.rfind(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    };
    pyo3::exceptions::PyOSError::new_err((errno, text, path.as_os_str().to_os_string()))
}
