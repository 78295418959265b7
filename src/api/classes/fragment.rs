//! The Python methods of `crate::fragment`'s `Fragment`, `JsonFragment`.

use crate::de;
use crate::fragment::*;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

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

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Fragment({})", self.contents.bind(py).repr()?))
    }
}

#[pymethods]
impl JsonFragment {
    #[new]
    fn py_new(contents: Bound<'_, PyAny>) -> JsonFragment {
        JsonFragment {
            contents: contents.unbind(),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let contents = self.contents.bind(py);
        if contents.is_instance_of::<PyString>() || contents.is_instance_of::<PyBytes>() {
            return Ok(format!("Fragment({})", contents.repr()?));
        }
        Ok(format!("Fragment(<{}>)", contents.get_type().name()?))
    }
}

/// `Fragment.contents`.
fn fragment_contents<'py>(slf: &Bound<'py, Fragment>) -> PyResult<Bound<'py, PyAny>> {
    Ok(slf.get().contents.bind(slf.py()).clone().into_any())
}

/// `fastmsgpack.json.Fragment.contents`.
fn json_fragment_contents<'py>(slf: &Bound<'py, JsonFragment>) -> PyResult<Bound<'py, PyAny>> {
    Ok(slf.get().contents.bind(slf.py()).clone())
}

crate::heap_class!(Fragment, getters: [(c"contents", c"The MessagePack bytes.", fragment_contents)]);
crate::heap_class!(JsonFragment, getters: [(c"contents", c"The JSON text, as given.", json_fragment_contents)]);
