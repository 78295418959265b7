//! The document a view reads: its bytes, held for as long as any view of them lives, the
//! options they are decoded with, and where its containers start and end when it was checked.
//! (Each container's table of items is kept by its view, which its parent view hands out
//! again when the same item is read again.)

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use fastmsgpack_core::snapshot::index::Index;

use super::scan::{ArrayMarks, Input, Spans};
use crate::de::typed::plan::TypePlan;
use crate::de::{self, DeError, Setup};
use crate::ffi::{InputBuffer, KeptBuffer};
use crate::opt::Opt;

/// Where the bytes come from.
pub(crate) enum Source {
    /// A `bytes` object (or an instance of a subclass), read in place (its storage never
    /// changes).
    Bytes(Py<PyBytes>),
    /// A read-only export (a memoryview of bytes, an `mmap` opened with `ACCESS_READ`), held so
    /// that the memory can be neither freed nor resized, its exporter seen by the garbage
    /// collector; or the copy of a writable buffer (`bytearray`, a writable `mmap`), which Python
    /// code could otherwise change or resize under the view.
    Buffer(KeptBuffer),
}

impl Source {
    /// The object the bytes belong to, when it is one that can refer to other objects (and so,
    /// through an attribute, back to a view of itself): a `bytes` subclass or an exporter.
    fn owner(&self, py: Python<'_>) -> Option<&Py<PyAny>> {
        match self {
            Source::Bytes(b) if b.bind(py).is_exact_instance_of::<PyBytes>() => None,
            Source::Bytes(b) => Some(b.as_any()),
            Source::Buffer(b) => b.exporter(),
        }
    }
}

/// Shared by every view of the document, as a Python object so that the garbage collector sees
/// what it holds (the hooks and the type's plan) once, however many views refer to it.
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack", frozen)]
pub struct Doc {
    pub(crate) source: Source,
    /// Whether `source` has an owner the collector must see (see [`Source::owner`]).
    pub(crate) owned: bool,
    pub(crate) data: *const u8,
    len: usize,
    /// Holds `ext_hook` too (the one reference to it the document has).
    pub setup: Setup,
    pub dec_hook: Option<Py<PyAny>>,
    /// The plan of the type the document is read as (`View(data, type=T)`).
    pub plan: Option<Py<TypePlan>>,
    /// Where each container starts and ends, when the document was checked at creation; where
    /// the large ones do, when a snapshot's index gave them.
    spans: Spans,
    /// Whether the document was checked at creation.
    checked: bool,
    /// The marks of long arrays a snapshot's index gave.
    marks: Vec<ArrayMarks>,
}

// SAFETY: `data` points into memory that `source` owns and keeps unchanged (a bytes object, a
// read-only export, or our own copy) until the document is dropped; `setup` holds the hook (a
// `Py`) and the process's handles of `Known` and `Numpy`, used only while attached; it holds no
// bin views (`Setup::of` makes none, and `View` refuses `OPT_BIN_MEMORYVIEW`), so no `Rc` is
// shared. The tables are behind locks.
unsafe impl Send for Doc {}
// SAFETY: as above; nothing is written through `data`.
unsafe impl Sync for Doc {}

/// A read-only memoryview's bytes exported from the object it views (a `bytes` subclass, a
/// read-only `mmap`), with where they lie in that object's memory: the document then holds
/// that object, not the memoryview. A memoryview's `tp_clear` drops the memory it views even
/// while exported, so a view in a garbage cycle with the memoryview it held (a frame's locals
/// kept by a traceback) read freed memory once the collector ran; and the object viewed is the
/// one that can refer back to the view, which the collector must see. `None` when the
/// memoryview is not read-only or views no object: it is then read as any buffer is.
fn through_memoryview(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
) -> Option<(KeptBuffer, usize, usize)> {
    if !data.is_exact_instance_of::<pyo3::types::PyMemoryView>() {
        return None;
    }
    if data
        .getattr(crate::intern!(py, "readonly"))
        .ok()?
        .extract::<bool>()
        .ok()
        != Some(true)
    {
        return None;
    }
    let base = data.getattr(crate::intern!(py, "obj")).ok()?;
    if base.is_none() {
        return None;
    }
    // SAFETY: `data` and `base` are alive (borrowed, and held) and we are attached; the exports
    // are released when dropped (the memoryview's below, the base's by the document).
    let (viewed, whole) = unsafe {
        let viewed = InputBuffer::export(data.as_ptr()).ok()?;
        let whole = InputBuffer::export(base.as_ptr()).ok()?;
        (viewed, whole)
    };
    let part = viewed.as_slice();
    let all = whole.as_slice();
    let start = (part.as_ptr() as usize).checked_sub(all.as_ptr() as usize)?;
    if start > all.len() || part.len() > all.len() - start || !whole.is_readonly() {
        return None;
    }
    let len = part.len();
    drop(viewed);
    Some((whole.keep(py), start, len))
}

impl Doc {
    /// The document over `data` (bytes, bytearray, memoryview, mmap or another C-contiguous
    /// buffer), read with `opts` and `ext_hook`; unchecked, a snapshot's `index` of it (parsed
    /// and checked against it: its offsets lie within it) says where its large containers are.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        opts: Opt,
        ext_hook: Option<&Bound<'_, PyAny>>,
        dec_hook: Option<&Bound<'_, PyAny>>,
        tp: Option<&Bound<'_, PyAny>>,
        validate: bool,
        index: Option<&Index>,
    ) -> PyResult<Doc> {
        let plan = tp.map(|tp| super::typed::plan_of(py, tp)).transpose()?;
        let mut region = None;
        let source = match (data.cast::<PyBytes>(), through_memoryview(py, data)) {
            (Ok(bytes), _) if data.is_exact_instance_of::<PyBytes>() => {
                Source::Bytes(bytes.clone().unbind())
            }
            (_, Some((kept, start, len))) => {
                region = Some((start, len));
                Source::Buffer(kept)
            }
            _ => {
                let mut holder = None;
                de::input_of(py, data, &mut holder, "View() argument")?;
                match holder {
                    Some(buffer) => Source::Buffer(buffer.keep(py)),
                    // A bytes subclass: read in place as bytes are.
                    None => Source::Bytes(data.cast::<PyBytes>()?.clone().unbind()),
                }
            }
        };
        let bytes: &[u8] = match &source {
            Source::Bytes(b) => b.bind(py).as_bytes(),
            Source::Buffer(b) => b.as_slice(),
        };
        let bytes = match region {
            Some((start, len)) => &bytes[start..start + len],
            None => bytes,
        };
        let owned = source.owner(py).is_some();
        let (ptr, len) = (bytes.as_ptr(), bytes.len());
        let (spans, marks) = match (validate, index.and_then(|i| usable(i, len))) {
            (true, _) => (
                Spans::check(bytes).map_err(DeError::into_pyerr)?,
                Vec::new(),
            ),
            (false, Some((spans, marks))) => (spans, marks),
            (false, None) => (Spans::default(), Vec::new()),
        };
        let setup = Setup::of(py, opts, ext_hook, None)?;
        Ok(Doc {
            source,
            owned,
            data: ptr,
            len,
            setup,
            dec_hook: dec_hook.map(|h| h.clone().unbind()),
            plan,
            spans,
            checked: validate,
            marks,
        })
    }

    /// The whole input.
    pub fn data(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `data` and `len` describe memory that `source` keeps alive and unchanged for
        // as long as `self` lives (see `Send`).
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }

    /// The input with the spans of its containers.
    pub fn input(&self) -> Input<'_> {
        Input {
            data: self.data(),
            spans: self.spans.as_slice(),
            checked: self.checked,
            marks: &self.marks,
        }
    }

    /// Whether the document holds objects that may refer back to its views (hooks, a type, a
    /// `bytes` subclass or an exporter with attributes), so that its views must be seen by the
    /// garbage collector.
    pub fn refers_out(&self) -> bool {
        self.owned
            || self.setup.ext_hook().is_some()
            || self.dec_hook.is_some()
            || self.plan.is_some()
    }

    pub fn opts(&self) -> Opt {
        self.setup.opts()
    }

    /// The object at `offset`, nested `depth` deep, decoded whole as `unpackb` would.
    pub fn decode<'py>(
        &self,
        py: Python<'py>,
        offset: usize,
        depth: u32,
    ) -> PyResult<Bound<'py, PyAny>> {
        de::decode_nested_at(py, self.data(), &self.setup, offset, depth)
            .map_err(DeError::into_pyerr)
    }
}

/// The spans and marks of `index`, for a document of `len` bytes: `None` when an offset or a
/// stride does not fit the 32 bits of the view's tables (a document of 4 GiB or more) or lies
/// outside the document.
fn usable(index: &Index, len: usize) -> Option<(Spans, Vec<ArrayMarks>)> {
    let fits = |v: u64| u32::try_from(v).ok().filter(|&v| (v as usize) <= len);
    if index.spans.iter().any(|&(_, end)| fits(end).is_none()) {
        return None;
    }
    let mut marks = Vec::with_capacity(index.arrays.len());
    for array in &index.arrays {
        let items: Option<Box<[u32]>> = array.items.iter().map(|&p| fits(p)).collect();
        marks.push(ArrayMarks {
            start: fits(array.start)?,
            stride: u32::try_from(array.stride).ok()?,
            items: items?,
        });
    }
    Some((Spans::from_index(&index.spans), marks))
}

/// Locks a table. A lock is only ever held by plain Rust code that cannot panic half-way
/// through a change, so a poisoned lock still guards a consistent table.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
