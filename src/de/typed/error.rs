//! Errors of typed decoding: malformed input (a [`DeError`], as untyped decoding gives), or a
//! value that does not fit the type (`ValidationError`), with the path to it. The path is built
//! while the error travels up, one step per container it leaves, so a successful decode pays
//! nothing for it.

use pyo3::PyErr;

use crate::de::DeError;
use crate::error::with_cause;
use crate::exc::{with_data, ErrorData, ValidationError};

pub type TResult<T> = Result<T, TError>;

/// One step of a path, as it is written: `[3]`, `.name` or `["key"]`.
pub enum Step {
    Index(usize),
    Field(Box<str>),
    Key(String),
}

pub struct TError(Box<Failure>);

enum Failure {
    De(DeError),
    Invalid {
        /// The `kind` attribute of the `ValidationError`.
        kind: &'static str,
        message: String,
        offset: usize,
        /// Innermost step first.
        path: Vec<Step>,
        cause: Option<PyErr>,
    },
}

impl TError {
    /// A value that does not fit: `message` says what was expected and what was found.
    #[cold]
    pub fn invalid(message: String, offset: usize) -> TError {
        TError::invalid_as("mismatch", message, offset)
    }

    /// As [`TError::invalid`], of the kind named `kind` (`"missing_field"`, ...).
    #[cold]
    pub fn invalid_as(kind: &'static str, message: String, offset: usize) -> TError {
        TError(Box::new(Failure::Invalid {
            kind,
            message,
            offset,
            path: Vec::new(),
            cause: None,
        }))
    }

    /// As [`TError::invalid`], caused by what Python code raised (a validator, a constructor).
    #[cold]
    pub fn invalid_from(message: String, offset: usize, cause: PyErr) -> TError {
        TError(Box::new(Failure::Invalid {
            kind: "refused",
            message,
            offset,
            path: Vec::new(),
            cause: Some(cause),
        }))
    }

    /// Whether this is a value that does not fit (a union then tries its next member).
    pub fn is_invalid(&self) -> bool {
        matches!(*self.0, Failure::Invalid { .. })
    }

    /// The same error, one container further out.
    #[cold]
    pub fn at(mut self, step: Step) -> TError {
        if let Failure::Invalid { path, .. } = &mut *self.0 {
            path.push(step);
        }
        self
    }

    /// The same error, its offset counted from `base` bytes earlier (from the start of a
    /// stream instead of the start of the object).
    #[cold]
    pub fn shifted(self, base: u64) -> TError {
        TError(Box::new(match *self.0 {
            Failure::De(err) => Failure::De(err.shifted(base)),
            Failure::Invalid {
                kind,
                message,
                offset,
                path,
                cause,
            } => Failure::Invalid {
                kind,
                message,
                offset: offset.saturating_add(base as usize),
                path,
                cause,
            },
        }))
    }

    #[cold]
    pub fn into_pyerr(self) -> PyErr {
        match *self.0 {
            Failure::De(err) => err.into_pyerr(),
            Failure::Invalid {
                kind,
                message,
                offset,
                path,
                cause,
            } => {
                let mut where_ = String::from("$");
                for step in path.iter().rev() {
                    match step {
                        Step::Index(i) => where_ += &format!("[{i}]"),
                        Step::Field(name) => {
                            where_.push('.');
                            where_ += name;
                        }
                        Step::Key(key) => where_ += &format!("[{key}]"),
                    }
                }
                let err = ValidationError::new_err(format!(
                    "{message} at {where_} (byte offset {offset})"
                ));
                let err = with_data(
                    err,
                    &ErrorData {
                        kind,
                        reason: &message,
                        offset: Some(offset),
                        path: Some(&where_),
                    },
                );
                match cause {
                    Some(cause) => with_cause(err, cause),
                    None => err,
                }
            }
        }
    }
}

impl From<DeError> for TError {
    #[cold]
    fn from(err: DeError) -> TError {
        TError(Box::new(Failure::De(err)))
    }
}

impl From<crate::de::error::InputError> for TError {
    #[cold]
    fn from(err: crate::de::error::InputError) -> TError {
        TError::from(DeError::from(err))
    }
}

impl From<PyErr> for TError {
    #[cold]
    fn from(err: PyErr) -> TError {
        TError(Box::new(Failure::De(DeError::python(err))))
    }
}
