//! `ArrayView`: a MessagePack array seen as a read-only sequence.

use std::sync::Mutex;

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice};
use pyo3::{PyTraverseError, PyVisit};

use super::doc::lock;
use super::map::plain;
use super::scan::{ArrayScan, At};
use super::{child, child_in, export, Kids, Place};
use crate::de::{self, DeError, Reading};
use crate::ffi;

/// A MessagePack array, read where it lies: items are decoded when they are read, a nested map
/// or array is another view. Reads as a `Sequence` (`len`, `[]` with an index or a slice, `in`,
/// iteration); `to_python()` decodes it whole.
///
/// Example:
///     >>> View(fastmsgpack.packb([1, [2, 3]]))[1].to_python()
///     [2, 3]
#[pyclass(module = "fastmsgpack", frozen, sequence)]
pub struct ArrayView {
    place: Place,
    table: Mutex<ArrayScan>,
    /// The views handed out for the array's nested containers, by index.
    kids: Kids,
}

impl ArrayView {
    pub fn new(place: Place) -> ArrayView {
        let table = Mutex::new(ArrayScan::new(place.doc().input(), &place.header));
        ArrayView {
            place,
            table,
            kids: Kids::default(),
        }
    }

    /// Where item `i` (in range) starts.
    fn start(&self, i: usize) -> PyResult<At> {
        let mut scan = lock(&self.table);
        scan.item(self.place.doc().input(), &self.place.header, i)
            .map_err(DeError::into_pyerr)
    }

    /// Item `i` (in range).
    fn at<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let start = self.start(i)?;
        let doc = self.place.doc();
        let node = match self.place.node {
            Some(_) => doc.array_child(py, self.place.node, i),
            None => None,
        };
        let depth = self.place.header.depth + 1;
        child(
            py,
            &self.place.doc,
            &self.kids,
            i,
            false,
            start,
            depth,
            node,
        )
    }

    /// `index` (negative from the end) as an index in range.
    fn index(&self, index: isize) -> PyResult<usize> {
        let len = self.place.header.len;
        let i = if index < 0 {
            index.checked_add_unsigned(len)
        } else {
            Some(index)
        };
        match i {
            Some(i) if i >= 0 && (i as usize) < len => Ok(i as usize),
            _ => Err(PyIndexError::new_err("view index out of range")),
        }
    }

    /// Every item, read in one pass.
    fn all<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let (doc, header) = (self.place.doc(), &self.place.header);
        let input = doc.input();
        let depth = header.depth + 1;
        let read = |i: usize, start: At, reading: &mut Reading<'py, '_>| {
            let node = match self.place.node {
                Some(_) => doc.array_child(py, self.place.node, i),
                None => None,
            };
            let (handle, kids) = (&self.place.doc, &self.kids);
            child_in(py, handle, kids, i, start, depth, node, reading)
        };
        if input.checked {
            // Checked at creation: each item is one step from the one before, so the pass keeps
            // its own place, and leaves the table (for reads by index) as it was.
            let mut at = header.first();
            return de::reading(py, doc.data(), &doc.setup, |reading| {
                ffi::list_of(py, header.len, |i| {
                    if i > 0 {
                        at = input.next(at, header.depth).map_err(DeError::into_pyerr)?;
                    }
                    read(i, at, reading)
                })
            });
        }
        let mut scan = lock(&self.table);
        let starts = scan.all(input, header).map_err(DeError::into_pyerr)?;
        drop(scan);
        de::reading(py, doc.data(), &doc.setup, |reading| {
            ffi::list_of(py, starts.len(), |i| {
                let Some(&start) = starts.get(i) else {
                    return Err(PyIndexError::new_err("view index out of range"));
                };
                read(i, start, reading)
            })
        })
    }

    pub fn decode_whole<'py>(
        &self,
        py: Python<'py>,
        tp: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (doc, header) = (self.place.doc(), &self.place.header);
        match tp.filter(|t| !t.is_none()) {
            Some(tp) => doc.decode_as(py, header.start, header.depth, tp),
            None => match self.place.node {
                Some(_) => doc.decode_typed(py, header.start, header.depth, self.place.node),
                None => doc.decode(py, header.start, header.depth),
            },
        }
    }
}

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
