//! `ArrayView`: a MessagePack array seen as a read-only sequence.

use std::sync::Mutex;

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::doc::lock;
use super::scan::{ArrayScan, At};
use super::{child, child_in, Kids, Place};
use crate::de::{self, DeError, Reading};
use crate::ffi;

/// A MessagePack array, read where it lies: items are decoded when they are read, a nested map
/// or array is another view. Reads as a `Sequence` (`len`, `[]` with an index or a slice, `in`,
/// iteration); `to_python()` decodes it whole.
///
/// Example:
///     >>> View(fastmsgpack.packb([1, [2, 3]]))[1].to_python()
///     [2, 3]
#[pyclass(
    crate = "crate::ffi::pyo3_per_interp",
    module = "fastmsgpack",
    frozen,
    sequence
)]
pub struct ArrayView {
    pub(crate) place: Place,
    pub(crate) table: Mutex<ArrayScan>,
    /// The views handed out for the array's nested containers, by index.
    pub(crate) kids: Kids,
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
    pub(crate) fn start(&self, i: usize) -> PyResult<At> {
        let mut scan = lock(&self.table);
        scan.item(self.place.doc().input(), &self.place.header, i)
            .map_err(DeError::into_pyerr)
    }

    /// Item `i` (in range).
    pub(crate) fn at<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
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
    pub(crate) fn index(&self, index: isize) -> PyResult<usize> {
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
    pub(crate) fn all<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
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
