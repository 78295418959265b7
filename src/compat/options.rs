//! `fastmsgpack.compat`'s decoding options: msgpack-python's keyword arguments, read once into
//! a [`CompatOptions`].
//!
//! As in msgpack-python, the boolean options take any object and use its truth (`use_list=0`);
//! the Python side passes each of them, its default when the caller gave none.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// A hook, checked to be callable.
pub(crate) fn hook(value: Option<Bound<'_, PyAny>>, name: &str) -> PyResult<Option<Py<PyAny>>> {
    match value {
        Some(h) if h.is_none() => Ok(None),
        Some(h) if !h.is_callable() => {
            Err(PyTypeError::new_err(format!("`{name}` is not callable")))
        }
        h => Ok(h.map(Bound::unbind)),
    }
}
