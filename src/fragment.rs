//! `Fragment` and `json.Fragment`: already-serialized values that the writers insert verbatim.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

use crate::de;

/// Fragment(contents): MessagePack bytes that `packb` writes as they are, wherever a value
/// may stand. `contents` (bytes-like) is checked once, here, to hold exactly one well-formed
/// MessagePack object (MsgpackDecodeError otherwise).
///
/// Example:
///     >>> fastmsgpack.packb({"cached": Fragment(b'\x92\x01\x02')})
///     b'\x81\xa6cached\x92\x01\x02'
#[pyclass(module = "fastmsgpack", frozen)]
pub struct Fragment {
    contents: Py<PyBytes>,
}

impl Fragment {
    pub fn bytes<'a>(&'a self, py: Python<'a>) -> &'a [u8] {
        self.contents.bind(py).as_bytes()
    }
}

#[pymethods]
impl Fragment {
    #[new]
    fn py_new(contents: &Bound<'_, PyAny>) -> PyResult<Fragment> {
        let py = contents.py();
        let contents = if contents.is_exact_instance_of::<PyBytes>() {
            contents.cast::<PyBytes>()?.clone().unbind()
        } else if contents.is_instance_of::<PyBytes>()
            || contents.is_instance_of::<PyByteArray>()
            || contents.is_instance_of::<PyMemoryView>()
        {
            // A copy: what was checked must be what is written, whatever happens to the buffer.
            let bytes = py
                .import("builtins")?
                .getattr("bytes")?
                .call1((contents,))?;
            bytes.cast_into::<PyBytes>()?.unbind()
        } else {
            let ty = contents.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "Fragment contents must be bytes, bytearray or memoryview, not {ty}"
            )));
        };
        de::skip::check_one(contents.bind(py).as_bytes())
            .map_err(|e| de::DeError::from(e).into_pyerr())?;
        Ok(Fragment { contents })
    }

    /// The MessagePack bytes.
    #[getter]
    fn contents(&self, py: Python<'_>) -> Py<PyBytes> {
        self.contents.clone_ref(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Fragment({})", self.contents.bind(py).repr()?))
    }
}

/// Fragment(contents): JSON text that `json.dumps` writes as it is, wherever a value may
/// stand. Like orjson's `Fragment`, `contents` is not checked: a str is written as UTF-8,
/// bytes as they are, and anything else is refused when it is written.
///
/// Example:
///     >>> fastmsgpack.json.dumps({"cached": fastmsgpack.json.Fragment('[1,2]')})
///     b'{"cached":[1,2]}'
#[pyclass(module = "fastmsgpack.json", name = "Fragment", frozen)]
pub struct JsonFragment {
    pub contents: Py<PyAny>,
}

#[pymethods]
impl JsonFragment {
    #[new]
    fn py_new(contents: Bound<'_, PyAny>) -> JsonFragment {
        JsonFragment {
            contents: contents.unbind(),
        }
    }

    /// The JSON text, as given.
    #[getter]
    fn contents(&self, py: Python<'_>) -> Py<PyAny> {
        self.contents.clone_ref(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let contents = self.contents.bind(py);
        if contents.is_instance_of::<PyString>() || contents.is_instance_of::<PyBytes>() {
            return Ok(format!("Fragment({})", contents.repr()?));
        }
        Ok(format!("Fragment(<{}>)", contents.get_type().name()?))
    }
}
