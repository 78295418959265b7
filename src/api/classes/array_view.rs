//! The Python methods of `crate::view::array`'s `ArrayView`.

use crate::de::DeError;
use crate::view::array::*;
use crate::view::doc::lock;
use crate::view::export;
use crate::view::map::plain;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice};
use pyo3::{PyTraverseError, PyVisit};

#[pymethods]
impl ArrayView {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        self.place.traverse(&visit, &self.kids)
    }

    fn __len__(&self) -> usize {
        self.place.header.len
    }

    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = index.py();
        if let Ok(slice) = index.cast::<PySlice>() {
            let len = self.place.header.len as isize;
            let found = slice.indices(len)?;
            let mut items = Vec::with_capacity(found.slicelength);
            let mut i = found.start;
            for _ in 0..found.slicelength {
                items.push(self.at(py, i as usize)?);
                i += found.step;
            }
            return PyList::new(py, items).map(Bound::into_any);
        }
        let Ok(index) = index.extract::<isize>() else {
            let ty = index.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "view indices must be integers or slices, not {ty}"
            )));
        };
        self.at(py, self.index(index)?)
    }

    /// Item `index` (decoded into `type` when given), or `default` when out of range.
    #[pyo3(signature = (index, default=None, *, r#type=None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        index: isize,
        default: Option<Bound<'py, PyAny>>,
        r#type: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Ok(i) = self.index(index) else {
            return Ok(default.unwrap_or_else(|| py.None().into_bound(py)));
        };
        match r#type.filter(|t| !t.is_none()) {
            Some(tp) => {
                let start = self.start(i)?;
                let depth = self.place.header.depth + 1;
                self.place.doc().decode_as(py, start.pos, depth, tp)
            }
            None => self.at(py, i),
        }
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.all(py)?.try_iter().map(Bound::into_any)
    }

    fn __contains__(&self, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = value.py();
        let value = plain(py, value)?;
        for i in 0..self.place.header.len {
            let item = plain(py, &self.at(py, i)?)?;
            if item.eq(&value)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The whole array, decoded as `unpackb` decodes it (into `type` when given).
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
        format!("<ArrayView of {} items at byte {}>", h.len, h.start)
    }

    /// The array's MessagePack bytes, read-only: `bytes(view)`, `unpackb(view)`.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: std::os::raw::c_int,
    ) -> PyResult<()> {
        let this = slf.get();
        let header = this.place.header;
        let end = lock(&this.table)
            .end(this.place.doc().input(), &header)
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

crate::heap_class!(ArrayView);
