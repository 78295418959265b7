//! `MapView`: a MessagePack map seen as a read-only mapping.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::scan::{At, Entry, MapTable};
use super::{child, child_in, ArrayView, Kids, Place};
use crate::de::{self, token, DeError, Reading};
use crate::{ffi, opt};

/// A MessagePack map, read where it lies: keys and values are decoded when they are read, a
/// nested map or array is another view. Reads as a `Mapping` (`len`, `[]`, `in`, iteration over
/// the keys, `get`, `keys`, `values`, `items`); `to_python()` decodes it whole.
///
/// Example:
///     >>> View(fastmsgpack.packb({"id": 7, "tags": ["a"]}))["tags"][0]
///     'a'
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack", frozen)]
pub struct MapView {
    pub(crate) place: Place,
    pub(crate) table: MapTable,
    /// The views handed out for the map's nested containers, by entry index.
    pub(crate) kids: Kids,
}

impl MapView {
    pub fn new(place: Place) -> MapView {
        let table = MapTable::new(&place.header);
        MapView {
            place,
            table,
            kids: Kids::default(),
        }
    }

    /// Every entry.
    #[inline]
    pub(crate) fn all(&self) -> PyResult<&[Entry]> {
        let (header, doc) = (&self.place.header, self.place.doc());
        self.table
            .all(doc.input(), header, doc.opts())
            .map_err(DeError::into_pyerr)
    }

    /// The first entry whose key equals `key`, reading no further into the map than needed.
    pub(crate) fn lookup(&self, key: &Bound<'_, PyAny>) -> PyResult<Option<Entry>> {
        let (header, opts) = (self.place.header, self.place.doc().opts());
        if let Ok(text) = key.cast::<PyString>() {
            // A str with lone surrogates has no UTF-8 form: no key of the input can equal it.
            let Ok(text) = text.to_str() else {
                self.all()?;
                return Ok(None);
            };
            let input = self.place.doc().input();
            let found = self
                .table
                .find_str(input, &header, opts, text.as_bytes())
                .map_err(DeError::into_pyerr)?;
            if found.is_some() || opts & opt::NON_STR_KEYS == 0 {
                return Ok(found);
            }
        }
        // A key of another type (or a str subclass whose equality may differ): compared with
        // the keys `unpackb` would make, as a dict would (hashable first).
        key.hash()?;
        let py = key.py();
        for entry in self.all()? {
            if entry.text.is_some() && !key.is_instance_of::<PyString>() {
                continue;
            }
            if self.key(py, entry)?.eq(key)? {
                return Ok(Some(*entry));
            }
        }
        Ok(None)
    }

    fn key<'py>(&self, py: Python<'py>, entry: &Entry) -> PyResult<Bound<'py, PyAny>> {
        let doc = self.place.doc();
        let depth = self.place.header.depth + 1;
        de::decode_key_at(py, doc.data(), &doc.setup, entry.key, depth).map_err(DeError::into_pyerr)
    }

    pub(crate) fn value<'py>(&self, py: Python<'py>, entry: &Entry) -> PyResult<Bound<'py, PyAny>> {
        let doc = self.place.doc();
        let text = entry.text.and_then(|(s, t)| doc.data().get(s..t));
        let node = match self.place.node {
            Some(_) => doc.map_child(py, self.place.node, text),
            None => None,
        };
        let depth = self.place.header.depth + 1;
        let (handle, kids) = (&self.place.doc, &self.kids);
        child(
            py,
            handle,
            kids,
            entry.index,
            false,
            entry.value,
            depth,
            node,
        )
    }

    /// [`MapView::value`], read in a pass over the map's entries.
    fn value_in<'py>(
        &self,
        py: Python<'py>,
        entry: &Entry,
        reading: &mut Reading<'py, '_>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let doc = self.place.doc();
        let node = match self.place.node {
            Some(_) => {
                let text = entry.text.and_then(|(s, t)| doc.data().get(s..t));
                doc.map_child(py, self.place.node, text)
            }
            None => None,
        };
        let (handle, kids) = (&self.place.doc, &self.kids);
        let depth = self.place.header.depth + 1;
        child_in(
            py,
            handle,
            kids,
            entry.index,
            entry.value,
            depth,
            node,
            reading,
        )
    }

    pub(crate) fn value_as<'py>(
        &self,
        py: Python<'py>,
        entry: &Entry,
        tp: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match tp.filter(|t| !t.is_none()) {
            Some(tp) => {
                self.place
                    .doc()
                    .decode_as(py, entry.value.pos, self.place.header.depth + 1, tp)
            }
            None => self.value(py, entry),
        }
    }

    /// The key, value or item of every entry, in order. A map whose table is not made yet, read
    /// untyped, is read in one pass over its bytes, each key and value read once where it lies
    /// (a walk reads most maps once, whole): the table is not made. Otherwise the table gives
    /// where each entry lies.
    pub(crate) fn every<'py>(&self, py: Python<'py>, part: Part) -> PyResult<Bound<'py, PyList>> {
        if self.place.node.is_none() && self.table.done().is_none() {
            return self.pass(py, part);
        }
        let (header, doc) = (&self.place.header, self.place.doc());
        let entries = self.all()?;
        let depth = header.depth + 1;
        de::reading(py, doc.data(), &doc.setup, |reading| {
            ffi::list_of(py, entries.len(), |i| {
                let e = nth(entries, i)?;
                match part {
                    Part::Keys => reading.key(e.key, depth).map_err(DeError::into_pyerr),
                    Part::Values => self.value_in(py, e, reading),
                    Part::Items => {
                        let key = reading.key(e.key, depth).map_err(DeError::into_pyerr)?;
                        let value = self.value_in(py, e, reading)?;
                        ffi::pair(key, value)
                    }
                }
            })
        })
    }

    /// [`MapView::every`] in one pass over the map's bytes, untyped: each key is read (and
    /// checked, as `unpackb` checks a key) where it lies, then its value, and the next entry
    /// starts where the value ends. A key's value is not passed over for `Part::Keys` when it is
    /// the last.
    fn pass<'py>(&self, py: Python<'py>, part: Part) -> PyResult<Bound<'py, PyList>> {
        let (header, doc) = (&self.place.header, self.place.doc());
        let input = doc.input();
        let data = doc.data();
        let depth = header.depth + 1;
        let (handle, kids) = (&self.place.doc, &self.kids);
        let is_container = |pos: usize| {
            data.get(pos)
                .is_some_and(|&m| token::is_container_marker(m))
        };
        let mut at = header.first();
        de::reading(py, data, &doc.setup, |reading| {
            ffi::list_of(py, header.len, |i| {
                let (key, key_end) = reading
                    .key_end(at.pos, depth)
                    .map_err(DeError::into_pyerr)?;
                let value_at = match is_container(at.pos) {
                    // An array key (`OPT_NON_STR_KEYS`): its containers' spans are passed too.
                    true => input.next(at, header.depth).map_err(DeError::into_pyerr)?,
                    false => At {
                        pos: key_end,
                        span: at.span,
                    },
                };
                let last = i + 1 == header.len;
                if part == Part::Keys {
                    if !last {
                        at = input
                            .next(value_at, header.depth)
                            .map_err(DeError::into_pyerr)?;
                    }
                    return Ok(key);
                }
                let value = if is_container(value_at.pos) {
                    let view = child_in(py, handle, kids, i, value_at, depth, None, reading)?;
                    if !last {
                        at = input
                            .next(value_at, header.depth)
                            .map_err(DeError::into_pyerr)?;
                    }
                    view
                } else {
                    let (value, end) = reading
                        .value_end(value_at.pos, depth)
                        .map_err(DeError::into_pyerr)?;
                    at = At {
                        pos: end,
                        span: value_at.span,
                    };
                    value
                };
                match part {
                    Part::Items => ffi::pair(key, value),
                    _ => Ok(value),
                }
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

/// What a pass over a map's entries reads of each.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Keys,
    Values,
    Items,
}

/// Entry `i` of `entries` (always there: `i` counts up to their number).
fn nth(entries: &[Entry], i: usize) -> PyResult<&Entry> {
    entries
        .get(i)
        .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("entry out of range"))
}

/// `other` as a plain value: a view decoded whole, anything else as it is.
pub fn plain<'py>(py: Python<'py>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(map) = other.cast::<MapView>() {
        return map.get().decode_whole(py, None);
    }
    if let Ok(array) = other.cast::<ArrayView>() {
        return array.get().decode_whole(py, None);
    }
    Ok(other.clone())
}
