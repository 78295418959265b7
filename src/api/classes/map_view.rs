//! The Python methods of `crate::view::map`'s `MapView`.

use crate::de::DeError;
use crate::view::export;
use crate::view::map::*;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::{PyTraverseError, PyVisit};

#[pymethods]
impl MapView {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        self.place.traverse(&visit, &self.kids)
    }

    fn __len__(&self) -> usize {
        self.place.header.len
    }

    fn __getitem__<'py>(&self, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match self.lookup(key)? {
            Some(entry) => self.value(key.py(), &entry),
            None => Err(PyKeyError::new_err(key.clone().unbind())),
        }
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.lookup(key)?.is_some())
    }

    /// The value of `key` (decoded into `type` when given), or `default`.
    #[pyo3(signature = (key, default=None, *, r#type=None))]
    fn get<'py>(
        &self,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
        r#type: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = key.py();
        match self.lookup(key)? {
            Some(entry) => self.value_as(py, &entry, r#type),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.every(py, Part::Keys)
    }

    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.every(py, Part::Values)
    }

    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.every(py, Part::Items)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.keys(py)?.try_iter().map(Bound::into_any)
    }

    /// The whole map, decoded as `unpackb` decodes it (into `type` when given).
    #[pyo3(signature = (*, r#type=None))]
    fn to_python<'py>(
        &self,
        py: Python<'py>,
        r#type: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.decode_whole(py, r#type)
    }

    fn __eq__<'py>(&self, py: Python<'py>, other: &Bound<'py, PyAny>) -> PyResult<bool> {
        let other = plain(py, other)?;
        self.decode_whole(py, None)?.eq(other)
    }

    fn __repr__(&self) -> String {
        let h = &self.place.header;
        format!("<MapView of {} entries at byte {}>", h.len, h.start)
    }

    /// The map's MessagePack bytes, read-only: `bytes(view)`, `unpackb(view)`.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: std::os::raw::c_int,
    ) -> PyResult<()> {
        let this = slf.get();
        let (header, opts) = (this.place.header, this.place.doc().opts());
        let input = this.place.doc().input();
        let end = this
            .table
            .end(input, &header, opts)
            .map_err(DeError::into_pyerr)?;
        let bytes = this
            .place
            .doc()
            .data()
            .get(header.start..end)
            .unwrap_or_default();
        // SAFETY: the view holds the document, which holds the bytes unchanged.
        unsafe { export(slf.as_any(), view, bytes, flags) }
    }
}

crate::heap_class!(MapView);
