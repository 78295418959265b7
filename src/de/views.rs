//! Bins and raw arrays without copies: `OPT_BIN_MEMORYVIEW` makes bins read-only `memoryview`
//! slices of an input whose memory cannot change, and `buffers=` puts back the out-of-band
//! buffers that `packb(obj, buffer_callback=...)` left references to ([`fastmsgpack_core::buffer_ref`]).

use std::cell::{Cell, OnceCell};

use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator, PyMemoryView, PyType};

use super::error::{DeError, Kind};
use crate::ffi::{Owned, Ref};
use fastmsgpack_core::buffer_ref as oob;

/// What a decode needs for views: built once per call, only when an option or `buffers=` asks.
pub struct Views {
    /// `OPT_BIN_MEMORYVIEW`: bins become `memoryview`s.
    pub bin_memoryview: bool,
    /// The input object, when its memory cannot change: bins view it in place.
    source: Option<Owned>,
    /// `source` as a flat, read-only memoryview of bytes, made on first use.
    flat: OnceCell<Owned>,
    /// The `buffers=` iterator, and the index the next reference must have.
    buffers: Option<(Owned, Cell<u64>)>,
}

impl Views {
    /// `source` is the immutable input, or `None`; both it and `buffers` are held.
    pub fn new(
        py: Python<'_>,
        bin_memoryview: bool,
        source: Option<Ref<'_>>,
        buffers: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Views> {
        let buffers = match buffers {
            Some(b) if !b.is_none() => {
                let iter = b.try_iter().map_err(|cause| {
                    let err = pyo3::exceptions::PyTypeError::new_err(
                        "buffers must be an iterable of objects with a buffer",
                    );
                    err.set_cause(py, Some(cause));
                    err
                })?;
                // SAFETY: `into_ptr` hands over a strong reference.
                let iter = unsafe { Owned::from_new(iter.into_ptr()) };
                iter.map(|i| (i, Cell::new(0)))
            }
            _ => None,
        };
        Ok(Views {
            bin_memoryview,
            source: source.map(Ref::hold),
            flat: OnceCell::new(),
            buffers,
        })
    }

    /// A bin's bytes, at `offset` in the input, as a `memoryview`: a slice of the input when it
    /// cannot change, else of a copy.
    pub fn bin(&self, py: Python<'_>, bytes: &[u8], offset: usize) -> Result<Owned, DeError> {
        let view = match self.flat(py)? {
            Some(flat) => {
                // SAFETY: attached (`py`); `flat` is held for the call.
                return unsafe {
                    crate::ffi::slice_of(flat.as_ptr(), offset, offset + bytes.len())
                }
                .ok_or_else(|| DeError::python(fetch(py)));
            }
            None => PyMemoryView::from(&PyBytes::new(py, bytes))?.into_any(),
        };
        // SAFETY: `into_ptr` hands over a strong reference.
        unsafe { Owned::from_new(view.into_ptr()) }.ok_or_else(|| DeError::python(fetch(py)))
    }

    /// The flat memoryview of the immutable input, `None` when the input can change.
    fn flat<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyMemoryView>>> {
        let Some(source) = &self.source else {
            return Ok(None);
        };
        if let Some(flat) = self.flat.get() {
            // SAFETY: held by `self.flat`.
            let flat = unsafe { Bound::from_borrowed_ptr(py, flat.as_ptr()) };
            return Ok(Some(flat.cast_into::<PyMemoryView>()?));
        }
        // SAFETY: `self.source` holds the input, and `py` says the thread is attached.
        let source = unsafe { Bound::from_borrowed_ptr(py, source.as_ptr()) };
        let flat = flat_view(&source)?;
        // SAFETY: a new strong reference.
        if let Some(owned) = unsafe { Owned::from_new(flat.clone().into_any().into_ptr()) } {
            let _ = self.flat.set(owned);
        }
        Ok(Some(flat))
    }

    /// The out-of-band buffer a reference (its extension payload, the item at `offset`) names,
    /// as a flat memoryview of the buffer (writable when the buffer is), and its length.
    pub fn take(
        &self,
        py: Python<'_>,
        payload: &[u8],
        offset: usize,
    ) -> Result<(Owned, usize), DeError> {
        let (buffer, index, len) = self.next_buffer(py, payload, offset)?;
        let flat = flat_view(&buffer).map_err(|cause| not_contiguous(index, cause, offset))?;
        let nbytes: usize = flat.getattr("nbytes")?.extract()?;
        check_len(index, nbytes, len, offset)?;
        // SAFETY: a new strong reference.
        let flat = unsafe { Owned::from_new(flat.into_any().into_ptr()) }
            .ok_or_else(|| DeError::python(fetch(py)))?;
        Ok((flat, nbytes))
    }

    /// As [`Views::take`], but the buffer object itself, for a reader of any C-contiguous
    /// export (`np.frombuffer`): no memoryview is made and cast for it, which took most of the
    /// time of putting an array back.
    pub fn take_export(
        &self,
        py: Python<'_>,
        payload: &[u8],
        offset: usize,
    ) -> Result<(Owned, usize), DeError> {
        let (buffer, index, len) = self.next_buffer(py, payload, offset)?;
        // SAFETY: `buffer` is live, held here, on this attached thread; measuring its export
        // runs no Python code.
        let nbytes = unsafe { crate::ffi::with_exported(buffer.as_ptr(), <[u8]>::len) }
            .map_err(|cause| not_contiguous(index, cause, offset))?;
        check_len(index, nbytes, len, offset)?;
        // SAFETY: a new strong reference.
        let buffer = unsafe { Owned::from_new(buffer.into_ptr()) }
            .ok_or_else(|| DeError::python(fetch(py)))?;
        Ok((buffer, nbytes))
    }

    /// The next buffer given, for the reference `payload` (the item at `offset`): the object,
    /// its index, and the length the reference states.
    fn next_buffer<'py>(
        &self,
        py: Python<'py>,
        payload: &[u8],
        offset: usize,
    ) -> Result<(Bound<'py, PyAny>, u64, u64), DeError> {
        let bad = |why: String| DeError::input(Kind::BadBuffer(why), offset);
        let Some((index, len)) = oob::decode_ref(payload) else {
            return Err(bad(format!(
                "a reference's payload is {} bytes, not {}",
                payload.len(),
                oob::REF_LEN
            )));
        };
        let Some((iter, next)) = &self.buffers else {
            return Err(bad(
                "the data refers to an out-of-band buffer, but no buffers were given \
                 (unpackb(..., buffers=...))"
                    .to_owned(),
            ));
        };
        let expected = next.get();
        if index != expected {
            return Err(bad(format!(
                "reference to buffer {index} where buffer {expected} comes next"
            )));
        }
        // SAFETY: held by `self.buffers`.
        let iter = unsafe { Bound::from_borrowed_ptr(py, iter.as_ptr()) };
        let iter = iter.cast_into::<PyIterator>().map_err(PyErr::from)?;
        let buffer = match iter.clone().next() {
            Some(Ok(buffer)) => buffer,
            Some(Err(cause)) => {
                return Err(DeError::callback(
                    "the buffers iterable raised an exception",
                    offset,
                    cause,
                ))
            }
            None => {
                return Err(bad(format!(
                    "reference to buffer {index}, but only {index} buffers were given"
                )))
            }
        };
        next.set(expected + 1);
        Ok((buffer, index, len))
    }

    /// A bin from an out-of-band buffer: the flat memoryview itself with `OPT_BIN_MEMORYVIEW`,
    /// else `bytes` (the buffer itself when it is one).
    pub fn bin_from_buffer(&self, py: Python<'_>, flat: Owned) -> Result<Owned, DeError> {
        if self.bin_memoryview {
            return Ok(flat);
        }
        self.bytes_from_buffer(py, flat)
    }

    /// `bytes` from an out-of-band buffer: the buffer itself when it is one, else a copy.
    pub fn bytes_from_buffer(&self, py: Python<'_>, flat: Owned) -> Result<Owned, DeError> {
        // SAFETY: held by `flat`.
        let view = unsafe { Bound::from_borrowed_ptr(py, flat.as_ptr()) };
        let base = view.getattr("obj")?;
        let bytes = if base.is_exact_instance_of::<PyBytes>()
            && base.len()? == view.getattr("nbytes")?.extract::<usize>()?
        {
            base
        } else {
            view.call_method0("tobytes")?
        };
        // SAFETY: a new strong reference.
        unsafe { Owned::from_new(bytes.into_ptr()) }.ok_or_else(|| DeError::python(fetch(py)))
    }

    /// After a whole message: every buffer given was used.
    pub fn finish(&self, py: Python<'_>, end: usize) -> Result<(), DeError> {
        let Some((iter, next)) = &self.buffers else {
            return Ok(());
        };
        // SAFETY: held by `self.buffers`.
        let iter = unsafe { Bound::from_borrowed_ptr(py, iter.as_ptr()) };
        let mut iter = iter.cast_into::<PyIterator>().map_err(PyErr::from)?;
        match iter.next() {
            None => Ok(()),
            Some(Err(cause)) => Err(DeError::callback(
                "the buffers iterable raised an exception",
                end,
                cause,
            )),
            Some(Ok(_)) => Err(DeError::input(
                Kind::BadBuffer(format!(
                    "more buffers were given than the {} the data refers to",
                    next.get()
                )),
                end,
            )),
        }
    }
}

#[cold]
fn not_contiguous(index: u64, cause: PyErr, offset: usize) -> DeError {
    DeError::input(
        Kind::BadBuffer(format!(
            "buffer {index} is not a C-contiguous buffer: {cause}"
        )),
        offset,
    )
}

/// The buffer holds as many bytes as its reference states.
fn check_len(index: u64, nbytes: usize, len: u64, offset: usize) -> Result<(), DeError> {
    if u64::try_from(nbytes).ok() != Some(len) {
        return Err(DeError::input(
            Kind::BadBuffer(format!(
                "buffer {index} holds {nbytes} bytes, its reference {len}"
            )),
            offset,
        ));
    }
    Ok(())
}

fn fetch(py: Python<'_>) -> PyErr {
    PyErr::take(py).unwrap_or_else(|| PyStopIteration::new_err("no object"))
}

/// `memoryview(obj)`, cast to one dimension of bytes when it is not already; it must be
/// C-contiguous.
fn flat_view<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyMemoryView>> {
    let view = PyMemoryView::from(obj)?;
    let flat = view.getattr("ndim")?.extract::<usize>()? == 1
        && view.getattr("format")?.extract::<String>()? == "B";
    if flat {
        return Ok(view);
    }
    if !view.getattr("c_contiguous")?.is_truthy()? {
        return Err(pyo3::exceptions::PyBufferError::new_err(
            "memoryview is not C-contiguous",
        ));
    }
    Ok(view
        .call_method1("cast", ("B",))?
        .cast_into::<PyMemoryView>()?)
}

static MMAP: crate::ffi::PerInterp<Py<PyType>> = crate::ffi::PerInterp::new();

/// The input object, when its memory cannot change for as long as a view of it lives: a
/// `bytes`, a read-only `mmap`, or a memoryview of one. (A read-only view of a `bytearray` can
/// still change, through the bytearray.)
pub fn immutable_source<'a>(data: &'a Bound<'_, PyAny>) -> Option<Ref<'a>> {
    if data.is_exact_instance_of::<PyBytes>() {
        return Some(Ref::of_bound(data));
    }
    immutable_other(data).then(|| Ref::of_bound(data))
}

#[cold]
#[inline(never)]
fn immutable_other(data: &Bound<'_, PyAny>) -> bool {
    let base = match data.cast::<PyMemoryView>() {
        Ok(view) => match view.getattr("obj") {
            Ok(base) => base,
            Err(_) => return false,
        },
        Err(_) => data.clone(),
    };
    if base.is_exact_instance_of::<PyBytes>() {
        return true;
    }
    let Ok(mmap) = MMAP.import(data.py(), "mmap", "mmap") else {
        return false;
    };
    if !base.get_type().is(mmap) {
        return false;
    }
    // A mapping opened with ACCESS_READ exports read-only memory.
    PyMemoryView::from(&base)
        .and_then(|v| v.getattr("readonly"))
        .and_then(|r| r.is_truthy())
        .unwrap_or(false)
}
