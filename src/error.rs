//! The error type of the serializer's hot paths: one pointer wide, so a `Result<(), Error>`
//! comes back in a register instead of through memory. The `PyErr` is boxed on the (cold)
//! error path and unboxed at the Python boundary.

use pyo3::PyErr;

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
