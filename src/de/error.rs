//! Decode errors: what is wrong and the byte offset where it was found.

pub use fastmsgpack_core::error::{InputError, Kind};
use pyo3::PyErr;

use crate::error::with_cause;
use crate::exc::{with_data, ErrorData, MsgpackDecodeError};

/// A decode error: one pointer wide, so a `DeResult<Owned>` comes back in registers instead of
/// through memory (an array of 1000 small ints decoded in 4.7 us instead of 5.0-5.4). What went
/// wrong is boxed, on the (cold) error path.
pub struct DeError(Box<Failure>);

enum Failure {
    /// Malformed input.
    Input { kind: Kind, offset: usize },
    /// Python code (`ext_hook`, a key's `__hash__`) raised while handling the value at `offset`.
    Callback {
        what: &'static str,
        offset: usize,
        cause: PyErr,
    },
    /// The interpreter failed (out of memory): passed on as it is.
    Python(PyErr),
}

impl DeError {
    #[cold]
    pub fn input(kind: Kind, offset: usize) -> DeError {
        DeError(Box::new(Failure::Input { kind, offset }))
    }

    /// Python code raised `cause` while handling the value at `offset`.
    #[cold]
    pub fn callback(what: &'static str, offset: usize, cause: PyErr) -> DeError {
        DeError(Box::new(Failure::Callback {
            what,
            offset,
            cause,
        }))
    }

    /// What is wrong with the input, when the input (not Python code) is at fault.
    #[cold]
    pub fn input_kind(&self) -> Option<&Kind> {
        match &*self.0 {
            Failure::Input { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// Whether the input ended before the item was complete (a stream may still bring the
    /// rest).
    pub fn is_truncated(&self) -> bool {
        matches!(self.input_kind(), Some(Kind::Truncated { .. }))
    }

    /// Where the error was found, when the input or a callback is at fault.
    #[cold]
    pub fn offset(&self) -> Option<usize> {
        match &*self.0 {
            Failure::Input { offset, .. } | Failure::Callback { offset, .. } => Some(*offset),
            Failure::Python(_) => None,
        }
    }

    /// The same error, its offset counted from `base` bytes earlier (from the start of a
    /// stream instead of the start of the object).
    #[cold]
    pub fn shifted(mut self, base: u64) -> DeError {
        match &mut *self.0 {
            Failure::Input { offset, .. } | Failure::Callback { offset, .. } => {
                *offset = offset.saturating_add(base as usize);
            }
            Failure::Python(_) => {}
        }
        self
    }

    /// The interpreter failed: `err` is passed on as it is.
    #[cold]
    pub fn python(err: PyErr) -> DeError {
        DeError(Box::new(Failure::Python(err)))
    }

    #[cold]
    pub fn into_pyerr(self) -> PyErr {
        match *self.0 {
            Failure::Input { kind, offset } => {
                let reason = kind.to_string();
                let err = MsgpackDecodeError::new_err(format!("{reason} at byte offset {offset}"));
                with_data(
                    err,
                    &ErrorData {
                        kind: kind.name(),
                        reason: &reason,
                        offset: Some(offset),
                        path: None,
                    },
                )
            }
            Failure::Callback {
                what,
                offset,
                cause,
            } => {
                let err = MsgpackDecodeError::new_err(format!("{what} at byte offset {offset}"));
                let data = ErrorData {
                    kind: "callback",
                    reason: what,
                    offset: Some(offset),
                    path: None,
                };
                with_cause(with_data(err, &data), cause)
            }
            Failure::Python(err) => err,
        }
    }
}

impl From<PyErr> for DeError {
    #[cold]
    fn from(err: PyErr) -> DeError {
        DeError::python(err)
    }
}

impl From<InputError> for DeError {
    #[cold]
    #[inline(never)]
    fn from(err: InputError) -> DeError {
        let (kind, offset) = err.into_parts();
        DeError::input(kind, offset)
    }
}
