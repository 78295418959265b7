//! The error type of the serializer's hot paths: one pointer wide, so a `Result<(), Error>`
//! comes back in a register instead of through memory. The `PyErr` is boxed on the (cold)
//! error path and unboxed at the Python boundary.

use pyo3::prelude::*;

use crate::exc::MsgpackEncodeError;
use crate::limits::MAX_ENCODE_DEPTH;

pub struct Error(Box<PyErr>);

pub type Res<T = ()> = Result<T, Error>;

impl From<PyErr> for Error {
    #[cold]
    #[inline(never)]
    fn from(err: PyErr) -> Error {
        Error(Box::new(err))
    }
}

impl From<Error> for PyErr {
    #[cold]
    fn from(err: Error) -> PyErr {
        *err.0
    }
}

// Errors that more than one direction raises: the serializer, the emitters and the transcoder
// (which refuses what `json.dumps` would).

#[cold]
pub fn too_long(what: &str) -> Error {
    MsgpackEncodeError::new_err(format!("{what} is too long for MessagePack (over 2**32-1)")).into()
}

#[cold]
pub fn too_deep() -> Error {
    MsgpackEncodeError::new_err(format!(
        "containers nested deeper than {MAX_ENCODE_DEPTH} levels (or a circular reference)"
    ))
    .into()
}

/// `err`, with `cause` as its `__cause__`.
#[cold]
pub fn with_cause(err: PyErr, cause: PyErr) -> PyErr {
    // SAFETY: errors are only built while the GIL is held.
    let py = unsafe { Python::assume_attached() };
    err.set_cause(py, Some(cause));
    err
}
