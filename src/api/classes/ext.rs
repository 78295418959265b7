//! The Python methods of `crate::ext`'s `Ext`.

use crate::ext::*;
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyMemoryView, PyTuple};

#[pymethods]
impl Ext {
    #[new]
    fn py_new(tag: &Bound<'_, PyAny>, data: &Bound<'_, PyAny>) -> PyResult<Ext> {
        if !tag.is_instance_of::<PyInt>() {
            let ty = tag.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "Ext tag must be an int, not {ty}"
            )));
        }
        let tag = tag
            .extract::<i64>()
            .ok()
            .and_then(|t| i8::try_from(t).ok())
            .ok_or_else(|| {
                PyValueError::new_err(format!("Ext tag must be in -128..127, not {tag}"))
            })?;
        let py = data.py();
        let data = if let Ok(b) = data.cast::<PyBytes>() {
            b.clone().unbind()
        } else if data.is_instance_of::<PyByteArray>() || data.is_instance_of::<PyMemoryView>() {
            let bytes = py.import("builtins")?.getattr("bytes")?.call1((data,))?;
            bytes.cast_into::<PyBytes>()?.unbind()
        } else {
            let ty = data.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "Ext data must be bytes, bytearray or memoryview, not {ty}"
            )));
        };
        Ok(Ext { tag, data })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let data = self.data.bind(py).repr()?;
        Ok(format!("Ext(tag={}, data={})", self.tag, data))
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        let Ok(other) = other.cast::<Ext>() else {
            return py.NotImplemented();
        };
        let other = other.get();
        let same = self.tag == other.tag && self.payload(py) == other.payload(py);
        match op {
            CompareOp::Eq => same
                .into_pyobject(py)
                .map(|b| b.to_owned().into_any().unbind()),
            CompareOp::Ne => (!same)
                .into_pyobject(py)
                .map(|b| b.to_owned().into_any().unbind()),
            _ => return py.NotImplemented(),
        }
        .unwrap_or_else(|never| match never {})
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        PyTuple::new(
            py,
            [
                self.tag.into_pyobject(py)?.into_any(),
                self.data.bind(py).clone().into_any(),
            ],
        )?
        .hash()
    }

    /// Pickles as `Ext(tag, data)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let args = PyTuple::new(
            py,
            [
                this.tag.into_pyobject(py)?.into_any(),
                this.data.bind(py).clone().into_any(),
            ],
        )?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}

/// `Ext.tag`.
fn ext_tag<'py>(slf: &Bound<'py, Ext>) -> PyResult<Bound<'py, PyAny>> {
    Ok(slf.get().tag.into_pyobject(slf.py())?.into_any())
}

/// `Ext.data`.
fn ext_data<'py>(slf: &Bound<'py, Ext>) -> PyResult<Bound<'py, PyAny>> {
    Ok(slf.get().data.bind(slf.py()).clone().into_any())
}

crate::heap_class!(Ext, getters: [(c"tag", c"The tag, -128 to 127.", ext_tag), (c"data", c"The payload (bytes).", ext_data)]);
