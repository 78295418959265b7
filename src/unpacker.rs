//! `Unpacker`: objects from a stream whose bytes arrive in pieces, fed by hand or read from a
//! file-like object.
//!
//! The bytes not yet consumed are kept in one buffer. After each piece, the scanner
//! ([`de::scan`]) walks on from where it stopped to find where the next object ends; only a
//! complete object is decoded, by the same decoder as `unpackb`. Nothing is allocated by a
//! declared length, and no byte is scanned twice, so feeding a large object in small pieces
//! costs time in proportion to its size.
//!
//! Errors: malformed bytes (a reserved marker, nesting beyond the limit) leave no way to tell
//! where the next object starts, so the Unpacker raises that error again on every later call;
//! so does an item over one of `fastmsgpack.compat`'s `max_*_len` limits (a `ValueError`, raised
//! by the scanner as the item arrives).
//! An object whose end was found but which cannot be decoded (invalid UTF-8, a key the options
//! do not allow, a hook that raises) is consumed, its error raised, and the next object can be
//! read.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::{PyTraverseError, PyVisit};

use crate::compat::Limits;
use crate::de::scan::{Scan, Scanner};
use crate::de::typed::error::TError;
use crate::de::typed::plan::TypePlan;
use crate::de::typed::Typed;
use crate::de::{self, DeError, Setup};
use crate::exc::{BufferFull, OutOfData};
use crate::opt::{self, Opt};

mod raw;

#[pyclass(module = "fastmsgpack", weakref)]
pub struct Unpacker {
    /// Bytes fed or read; those before `head` are consumed.
    buf: Vec<u8>,
    head: usize,
    scanner: Scanner,
    /// Bytes consumed since creation: the stream offset of `head`.
    consumed: u64,
    file: Option<Py<PyAny>>,
    /// The file-like object returned no more bytes.
    eof: bool,
    read_size: usize,
    max_buffer_size: usize,
    opts: Opt,
    ext_hook: Option<Py<PyAny>>,
    /// `type=`: each object is decoded into it, by this plan, with `dec_hook`.
    plan: Option<Py<TypePlan>>,
    dec_hook: Option<Py<PyAny>>,
    /// The error that stopped the stream: its class and message.
    broken: Option<(Py<pyo3::types::PyType>, String)>,
    /// `fastmsgpack.compat`'s `max_*_len` limits, checked as each item arrives.
    limits: Option<Limits>,
    /// `buffers=`: an iterator over the out-of-band buffers of the messages to come.
    buffers: Option<Py<PyAny>>,
}

/// The extent of a complete object in the buffer.
struct Extent {
    start: usize,
    end: usize,
}

impl Unpacker {
    /// Bytes held and not yet consumed.
    fn held(&self) -> usize {
        self.buf.len() - self.head
    }

    /// Adds `data` after what is held, or refuses it whole when the buffer would then hold more
    /// than `max_buffer_size` bytes.
    fn append(&mut self, data: &[u8]) -> PyResult<()> {
        let held = self.held();
        if held.saturating_add(data.len()) > self.max_buffer_size {
            return Err(buffer_full(held, data.len(), self.max_buffer_size));
        }
        // Drop the consumed bytes once they are at least as many as those held, so that each
        // byte is moved a bounded number of times.
        if self.head > 0 && self.head >= held {
            self.buf.drain(..self.head);
            self.head = 0;
            let keep = held.max(self.read_size).saturating_mul(4);
            if self.buf.capacity() > keep {
                self.buf.shrink_to(keep);
            }
        }
        self.buf.extend_from_slice(data);
        Ok(())
    }

    /// The error that stopped the stream, raised again; `Ok` when it is not stopped.
    fn check_broken(&self, py: Python<'_>) -> PyResult<()> {
        match &self.broken {
            Some((class, message)) => {
                Err(PyErr::from_type(class.bind(py).clone(), message.clone()))
            }
            None => Ok(()),
        }
    }

    /// Where the next complete object is, reading from the file-like object as needed; `None`
    /// when the bytes at hand (and, with a file, all it had) hold no complete object. Items are
    /// checked against the `max_*_len` limits when `limited`.
    fn next_extent(&mut self, py: Python<'_>, limited: bool) -> PyResult<Option<Extent>> {
        loop {
            self.check_broken(py)?;
            let limits = if limited { self.limits.as_ref() } else { None };
            match self.scanner.scan(&self.buf[self.head..], limits) {
                Ok(Scan::Complete(len)) => {
                    return Ok(Some(Extent {
                        start: self.head,
                        end: self.head + len,
                    }))
                }
                Ok(Scan::Incomplete) => {
                    if !self.read_more(py)? {
                        return Ok(None);
                    }
                }
                Err(err) => {
                    let err = err.shifted(self.consumed).into_pyerr();
                    self.broken = Some((err.get_type(py).unbind(), err.value(py).to_string()));
                    return Err(err);
                }
            }
        }
    }

    /// Reads up to `read_size` more bytes from the file-like object; `false` when there is none
    /// or it has no more.
    fn read_more(&mut self, py: Python<'_>) -> PyResult<bool> {
        let Some(file) = &self.file else {
            return Ok(false);
        };
        if self.eof {
            return Ok(false);
        }
        let room = self.max_buffer_size.saturating_sub(self.held());
        if room == 0 {
            return Err(buffer_full(self.held(), 1, self.max_buffer_size));
        }
        let chunk = file
            .bind(py)
            .call_method1("read", (self.read_size.min(room),))?;
        let mut holder = None;
        let data = de::input_of(
            py,
            &chunk,
            &mut holder,
            "what Unpacker's file_like.read() returns",
        )?;
        if data.is_empty() {
            self.eof = true;
            return Ok(false);
        }
        self.append(data)?;
        Ok(true)
    }

    /// Marks the object at `extent` consumed.
    fn consume(&mut self, extent: &Extent) {
        self.consumed += (extent.end - extent.start) as u64;
        self.head = extent.end;
        if self.head == self.buf.len() {
            self.buf.clear();
            self.head = 0;
        }
    }

    /// The next object, decoded; `None` when there is no complete one.
    fn next_object<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let hook = self.ext_hook.as_ref().map(|h| h.bind(py).clone());
        let buffers = self.buffers.as_ref().map(|b| b.bind(py).clone());
        let views = de::make_views(py, self.opts, None, buffers.as_ref(), false)?;
        let setup = Setup::new(py, self.opts, hook.as_ref(), None)?.with_views(views);
        // Only whole objects are decoded when they take buffers: a decode that ran out of bytes
        // would have taken buffers for an object that is decoded again.
        let direct = hook.is_none() && buffers.is_none();
        let Some(plan) = self.plan.as_ref().map(|p| p.bind(py).clone()) else {
            return self.next_with(py, direct, |input, whole| {
                if whole {
                    let obj = de::decode_whole(py, input, &setup).map_err(Failure::Untyped)?;
                    Ok((obj, input.len()))
                } else {
                    de::decode_first(py, input, &setup).map_err(Failure::Untyped)
                }
            });
        };
        let dec_hook = self.dec_hook.as_ref().map(|h| h.bind(py).clone());
        let typed = Typed::with_plan(py, plan, dec_hook.as_ref(), self.opts, hook.as_ref(), None)?;
        let direct = direct && dec_hook.is_none();
        self.next_with(py, direct, |input, whole| {
            typed
                .decode_at(py, input, &setup, whole)
                .map_err(Failure::Typed)
        })
    }

    /// The next object, by `decode(input, whole)`: the object `input` starts with (all of `input`
    /// when `whole`) and its length.
    ///
    /// Most objects of a stream are whole in the buffer: decoded straight away, each byte is
    /// read once. Only when the decoder runs out of bytes does the scanner take over, and it goes
    /// on from call to call until the object is complete. Not when `direct` is false (a hook is
    /// set): a decode that ran out of bytes would have called the hook for values that are
    /// decoded again.
    fn next_with<'py>(
        &mut self,
        py: Python<'py>,
        direct: bool,
        decode: impl Fn(&[u8], bool) -> Result<(Bound<'py, PyAny>, usize), Failure>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if direct && self.scanner.is_idle() && self.broken.is_none() && self.held() > 0 {
            // On an error, the scanner finds where the object ends (or waits for it) and the
            // decoder below raises the error again once the object is whole.
            if let Ok((obj, len)) = decode(&self.buf[self.head..], false) {
                let extent = Extent {
                    start: self.head,
                    end: self.head + len,
                };
                self.consume(&extent);
                return Ok(Some(obj));
            }
        }
        let Some(extent) = self.next_extent(py, true)? else {
            return Ok(None);
        };
        let offset = self.consumed;
        let result = decode(&self.buf[extent.start..extent.end], true);
        // Decoded or not, the object's bytes are done with: its end is known.
        self.consume(&extent);
        result
            .map(|(obj, _)| Some(obj))
            .map_err(|failure| failure.at_stream_offset(offset))
    }
}

/// Why an object could not be decoded, kept as the decoder's own error until it is raised: the
/// first, direct attempt drops it, most often because the object is not whole yet.
enum Failure {
    Untyped(DeError),
    Typed(TError),
}

impl Failure {
    /// The Python exception, its offset counted from the start of the stream.
    #[cold]
    fn at_stream_offset(self, base: u64) -> PyErr {
        match self {
            Failure::Untyped(err) => err.shifted(base).into_pyerr(),
            Failure::Typed(err) => err.shifted(base).into_pyerr(),
        }
    }
}

#[cold]
fn buffer_full(held: usize, more: usize, max: usize) -> PyErr {
    BufferFull::new_err(format!(
        "holding {held} bytes, {more} more would go over max_buffer_size ({max})"
    ))
}

#[pymethods]
impl Unpacker {
    #[new]
    // max_buffer_size: 100 MiB.
    #[pyo3(signature = (file_like=None, /, *, ext_hook=None, option=None, read_size=65536,
                        max_buffer_size=104857600, r#type=None, dec_hook=None, buffers=None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        file_like: Option<Bound<'_, PyAny>>,
        ext_hook: Option<Bound<'_, PyAny>>,
        option: Option<&Bound<'_, PyAny>>,
        read_size: usize,
        max_buffer_size: usize,
        r#type: Option<Bound<'_, PyAny>>,
        dec_hook: Option<Bound<'_, PyAny>>,
        buffers: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Unpacker> {
        let buffers = match buffers.filter(|b| !b.is_none()) {
            Some(b) => Some(b.try_iter()?.into_any().unbind()),
            None => None,
        };
        let opts = opt::parse_for_reading(option, opt::UNPACKB_MASK, "Unpacker")?;
        if read_size == 0 || max_buffer_size == 0 {
            return Err(PyValueError::new_err(
                "read_size and max_buffer_size must be at least 1",
            ));
        }
        if let Some(file) = &file_like {
            if !file.hasattr("read")? {
                let ty = file.get_type().name()?;
                return Err(PyTypeError::new_err(format!(
                    "Unpacker file_like must have a read() method; {ty} has none"
                )));
            }
        }
        if let Some(hook) = &ext_hook {
            if !hook.is_callable() {
                return Err(PyTypeError::new_err("ext_hook must be callable"));
            }
        }
        let dec_hook = dec_hook.filter(|h| !h.is_none());
        // The plan is worked out now, so that an unsupported type fails here, not mid-stream.
        let plan = match r#type.filter(|t| !t.is_none()) {
            Some(tp) => {
                let plan = Typed::plan(py, &tp)?;
                Typed::with_plan(py, plan.clone(), dec_hook.as_ref(), opts, None, None)?;
                Some(plan.unbind())
            }
            None => None,
        };
        Ok(Unpacker {
            plan,
            dec_hook: dec_hook.map(Bound::unbind),
            buf: Vec::new(),
            head: 0,
            scanner: Scanner::default(),
            consumed: 0,
            file: file_like.map(Bound::unbind),
            eof: false,
            read_size: read_size.min(max_buffer_size),
            max_buffer_size,
            opts,
            ext_hook: ext_hook.map(Bound::unbind),
            broken: None,
            limits: None,
            buffers,
        })
    }

    /// Adds bytes to the stream (bytes, bytearray or a C-contiguous memoryview).
    #[pyo3(signature = (data, /))]
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        if self.file.is_some() {
            return Err(PyTypeError::new_err(
                "Unpacker.feed() cannot be used with file_like: the Unpacker reads it itself",
            ));
        }
        let mut holder = None;
        let bytes = de::input_of(py, data, &mut holder, "feed() argument")?;
        self.append(bytes)
    }

    /// The next object; `OutOfData` when there is no complete one yet.
    fn unpack<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.next_object(py)?.ok_or_else(out_of_data)
    }

    /// Consumes the next object without building it; `OutOfData` when there is no complete one.
    fn skip(&mut self, py: Python<'_>) -> PyResult<()> {
        // Without the limits, as msgpack-python skips.
        let extent = self.next_extent(py, false)?.ok_or_else(out_of_data)?;
        self.consume(&extent);
        Ok(())
    }

    /// The number of bytes consumed since the Unpacker was made: the stream offset of the next
    /// object.
    fn tell(&self) -> u64 {
        self.consumed
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next object, or the end of the iteration when there is no complete one (more may be
    /// fed later).
    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.next_object(py)
    }

    // The file-like object and the hook can refer back to the Unpacker (a file object that
    // keeps its reader, a hook whose closure or raised exception holds it): the garbage
    // collector must see them to free such cycles.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.file)?;
        visit.call(&self.ext_hook)?;
        visit.call(&self.plan)?;
        visit.call(&self.dec_hook)?;
        visit.call(&self.buffers)
    }

    fn __clear__(&mut self) {
        self.buffers = None;
        self.file = None;
        self.ext_hook = None;
        self.plan = None;
        self.dec_hook = None;
    }

    /// The item count of the array header next in the stream (`fastmsgpack.compat`).
    fn _read_array_header(&mut self, py: Python<'_>) -> PyResult<usize> {
        self.take_header(py, false)
    }

    /// The entry count of the map header next in the stream (`fastmsgpack.compat`).
    fn _read_map_header(&mut self, py: Python<'_>) -> PyResult<usize> {
        self.take_header(py, true)
    }

    /// Checks each item, as it arrives, against msgpack-python's `max_*_len` limits (a negative
    /// one is no limit), raising `ValueError` for one over its limit (`fastmsgpack.compat`).
    fn _limit_lengths(&mut self, str: i64, bin: i64, array: i64, map: i64, ext: i64) {
        let limits = Limits::new(str, bin, array, map, ext);
        self.limits = limits.any.then_some(limits);
    }

    /// Up to `n` bytes of the stream as they are (`fastmsgpack.compat`).
    fn _read_bytes<'py>(&mut self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyBytes>> {
        self.take_bytes(py, n)
    }

    /// The bytes of the next complete object, not decoded, or `None` (for the command line,
    /// which converts each object with the transcoder).
    fn _next_raw<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let Some(extent) = self.next_extent(py, true)? else {
            return Ok(None);
        };
        let bytes = PyBytes::new(py, &self.buf[extent.start..extent.end]);
        self.consume(&extent);
        Ok(Some(bytes))
    }
}

#[cold]
fn out_of_data() -> PyErr {
    OutOfData::new_err("no complete object in the data fed or read so far")
}
