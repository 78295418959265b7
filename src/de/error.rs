//! Decode errors: what is wrong and the byte offset where it was found.

use std::fmt;

use pyo3::PyErr;

use crate::error::with_cause;
use crate::exc::MsgpackDecodeError;

/// What went wrong in the input.
#[derive(Debug)]
pub enum Kind {
    /// The input ends before the value that starts at the offset is complete.
    Truncated {
        what: &'static str,
        declared: u64,
        available: usize,
    },
    Empty,
    Reserved,
    InvalidUtf8,
    TooDeep,
    Trailing {
        extra: usize,
    },
    KeyNotStr {
        found: &'static str,
    },
    MapAsKey,
    BadTimestamp(&'static str),
    BadNumpy(&'static str),
    /// An out-of-band reference that the given buffers do not satisfy.
    BadBuffer(String),
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Truncated {
                what,
                declared,
                available,
            } => write!(
                f,
                "truncated input: {what} needs {declared} more bytes, only {available} left"
            ),
            Kind::Empty => write!(f, "empty input"),
            Kind::Reserved => write!(f, "reserved marker byte 0xc1"),
            Kind::InvalidUtf8 => write!(f, "str is not valid UTF-8"),
            Kind::TooDeep => write!(
                f,
                "containers nested deeper than {} levels",
                crate::limits::MAX_DECODE_DEPTH
            ),
            Kind::Trailing { extra } => write!(f, "{extra} trailing bytes after the object"),
            Kind::KeyNotStr { found } => {
                write!(f, "map key must be str, not {found} (see OPT_NON_STR_KEYS)")
            }
            Kind::MapAsKey => write!(f, "a map cannot be a map key (unhashable)"),
            Kind::BadTimestamp(why) => write!(f, "invalid timestamp extension: {why}"),
            Kind::BadNumpy(why) => write!(f, "invalid numpy array map: {why}"),
            Kind::BadBuffer(why) => write!(f, "out-of-band buffer: {why}"),
        }
    }
}

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

    /// Whether the input ended before the item was complete (a stream may still bring the
    /// rest).
    pub fn is_truncated(&self) -> bool {
        matches!(
            *self.0,
            Failure::Input {
                kind: Kind::Truncated { .. },
                ..
            }
        )
    }

    /// What is wrong with the input, when the input (not Python code) is at fault.
    #[cold]
    pub fn input_kind(&self) -> Option<&Kind> {
        match &*self.0 {
            Failure::Input { kind, .. } => Some(kind),
            _ => None,
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
                MsgpackDecodeError::new_err(format!("{kind} at byte offset {offset}"))
            }
            Failure::Callback {
                what,
                offset,
                cause,
            } => with_cause(
                MsgpackDecodeError::new_err(format!("{what} at byte offset {offset}")),
                cause,
            ),
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
