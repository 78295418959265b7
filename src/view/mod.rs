//! Lazy views: `fastmsgpack.View(data)` reads MessagePack where it lies and builds Python objects
//! only for what is read.
//!
//! A map is seen as a [`MapView`], an array as an [`ArrayView`]; any other value is decoded
//! when it is read, by the decoder `unpackb` uses, with the view's options. A container's items
//! are found on first access by passing over them with the skip grammar (`de::skip`), and their
//! offsets are kept in the view's table; a view hands out the same view again for the same
//! nested container read with `[]` or `get` ([`kids::Kids`]), tables filled.

pub(crate) mod array;
pub(crate) mod doc;
mod kids;
pub(crate) mod map;
mod scan;
mod typed;

use fastmsgpack_core::snapshot::index::Index;
use pyo3::prelude::*;
use pyo3::{IntoPyObjectExt, PyTraverseError, PyVisit};

pub use array::ArrayView;
use doc::Doc;
use kids::Kids;
pub use map::MapView;
use scan::{At, Header};

use crate::de::token;
use crate::de::{DeError, Reading};
use crate::ffi;
use crate::opt;

/// Where a view is: its document, its container's header, and the node of the type it is read
/// as (`View(data, type=T)`), if any.
pub struct Place {
    pub(crate) doc: Py<Doc>,
    pub(crate) header: Header,
    node: Option<usize>,
}

impl Place {
    /// The document the view reads.
    #[inline(always)]
    pub(crate) fn doc(&self) -> &Doc {
        self.doc.get()
    }

    /// Tells the garbage collector of the document, which holds the hooks and the type (a hook
    /// or an object of the type that refers back to a view makes a cycle it must see), and of
    /// the views of the container's items that it keeps.
    pub(crate) fn traverse(&self, visit: &PyVisit<'_>, kids: &Kids) -> Result<(), PyTraverseError> {
        visit.call(&self.doc)?;
        kids.traverse(visit)
    }
}

/// The item at `offset`, nested `depth` deep and read as `node` of the document's type: a view
/// for a map or array, else the value decoded (as `unpackb` would, or as the type says).
pub fn item<'py>(
    py: Python<'py>,
    handle: &Py<Doc>,
    at: At,
    depth: u32,
    node: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let doc = handle.get();
    let offset = at.pos;
    let data = doc.data();
    let container = data
        .get(offset)
        .is_some_and(|&m| token::is_container_marker(m));
    if let Some(n) = node {
        if !doc.navigable(py, n) {
            return doc.decode_typed(py, offset, depth, Some(n));
        }
    }
    if !container {
        return match node {
            Some(_) => doc.decode_typed(py, offset, depth, node),
            None => doc.decode(py, offset, depth),
        };
    }
    let span = doc.input().span_at(offset, at.span);
    let Some((header, is_map)) =
        Header::read(data, offset, depth, span).map_err(DeError::into_pyerr)?
    else {
        return doc.decode(py, offset, depth);
    };
    if is_map && doc.opts() & opt::NUMPY_RAW != 0 && numpy_layout(data, &header) {
        return doc.decode(py, offset, depth);
    }
    let place = Place {
        doc: handle.clone_ref(py),
        header,
        node,
    };
    let view = if is_map {
        MapView::new(place).into_bound_py_any(py)?
    } else {
        ArrayView::new(place).into_bound_py_any(py)?
    };
    if !doc.refers_out() {
        // SAFETY: `view` is a new view (a GC type) that no other thread has seen, and we are
        // attached. It refers only to its document, which refers to no object that could refer
        // back (no hook, no type; its bytes are an exact `bytes` object or its own copy), and to
        // views of the same document: no cycle can go through it, and the collector would go
        // over every view alive at each collection.
        unsafe { ffi::untrack_acyclic(view.as_ptr()) };
    }
    Ok(view)
}

/// Item `i` of a container (at `at`): the view kept for it, if any, else [`item`], kept in
/// `kids` when it is a view, unless `pass` (a pass over all the container's items) made it.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn child<'py>(
    py: Python<'py>,
    handle: &Py<Doc>,
    kids: &Kids,
    i: usize,
    pass: bool,
    at: At,
    depth: u32,
    node: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let container = handle
        .get()
        .data()
        .get(at.pos)
        .is_some_and(|&m| token::is_container_marker(m));
    if !container {
        return item(py, handle, at, depth, node);
    }
    if let Some(view) = kids.get(py, i) {
        return Ok(view);
    }
    let made = item(py, handle, at, depth, node)?;
    if pass {
        return Ok(made);
    }
    if made.is_instance_of::<MapView>() || made.is_instance_of::<ArrayView>() {
        return Ok(kids.keep(i, made));
    }
    Ok(made)
}

/// [`child`], read in a pass over all of a container's items: a scalar (read untyped) is
/// decoded by the pass's decoder instead of one set up for it alone.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn child_in<'py>(
    py: Python<'py>,
    handle: &Py<Doc>,
    kids: &Kids,
    i: usize,
    at: At,
    depth: u32,
    node: Option<usize>,
    reading: &mut Reading<'py, '_>,
) -> PyResult<Bound<'py, PyAny>> {
    let scalar = handle
        .get()
        .data()
        .get(at.pos)
        .is_some_and(|&m| !token::is_container_marker(m));
    if node.is_none() && scalar {
        return reading.value(at.pos, depth).map_err(DeError::into_pyerr);
    }
    child(py, handle, kids, i, true, at, depth, node)
}

/// Whether the map is in msgpack-numpy's layout, which `OPT_NUMPY_RAW` reads as an array.
fn numpy_layout(data: &[u8], header: &Header) -> bool {
    (header.len == 3 || header.len == 5) && token::starts_with_bin8(data, header.body, b"nd")
}

/// A snapshot's offset index, parsed and checked against its payload
/// (`fastmsgpack_core::snapshot::index`), for `_view_indexed`.
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack", frozen)]
pub struct SnapshotIndex(pub Index);

/// A view of the one object `data` holds, or that object itself when it is neither a map nor an
/// array, read as `request` asks (`View(data, ...)`; its `buffers` and registry are not
/// offered). With `validate`, the whole input is checked first. With a snapshot's `index` of
/// `data`, large containers and long arrays are reached through it.
pub fn open<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    request: &crate::de::Request<'_, 'py>,
    validate: bool,
    index: Option<&Index>,
) -> PyResult<Bound<'py, PyAny>> {
    let (opts, ext_hook) = (request.opts, request.ext_hook);
    let (tp, dec_hook) = match request.typed {
        Some((tp, dec_hook)) => (Some(tp), dec_hook),
        None => (None, None),
    };
    let handle = Py::new(
        py,
        Doc::new(py, data, opts, ext_hook, dec_hook, tp, validate, index)?,
    )?;
    let doc = handle.get();
    let bytes = doc.data();
    if bytes.is_empty() {
        return Err(DeError::input(crate::de::Kind::Empty, 0).into_pyerr());
    }
    let root = doc.root_node(py);
    let value = item(py, &handle, At { pos: 0, span: 0 }, 0, root)?;
    let is_view = value.is_instance_of::<MapView>() || value.is_instance_of::<ArrayView>();
    if !validate && !is_view {
        // Decoded whole, as `unpackb` decodes it: nothing may follow it.
        let end = scan::end_of(bytes, 0, 0).map_err(DeError::into_pyerr)?;
        if end != bytes.len() {
            let extra = bytes.len() - end;
            return Err(DeError::input(crate::de::Kind::Trailing { extra }, end).into_pyerr());
        }
    }
    Ok(value)
}

/// Exports `bytes` of the document that `owner` (a view) keeps alive, read-only.
///
/// # Safety
/// `view` is the request CPython passed to `owner`'s `bf_getbuffer`, the GIL is held, and `bytes`
/// lie in the document `owner` holds.
pub(crate) unsafe fn export(
    owner: &Bound<'_, PyAny>,
    view: *mut pyo3::ffi::Py_buffer,
    bytes: &[u8],
    flags: std::os::raw::c_int,
) -> PyResult<()> {
    // SAFETY: `view` is `owner`'s buffer request and the GIL is held (this function's
    // precondition); `owner` holds the document, which holds `bytes` unchanged (read-only) for as
    // long as the export, which holds `owner`, lives.
    unsafe { ffi::fill_readonly(view, owner.as_ptr(), bytes, flags) }
}

crate::heap_class!(SnapshotIndex);
