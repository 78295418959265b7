//! `Packer`: many messages packed with one `default` and one set of options, each starting with
//! the room the previous ones needed.
//!
//! `pack` starts each message in a `bytes` object of the previous message's size (plus a
//! quarter), so a run of similar messages is written without growing its output from a small
//! buffer, nor copying it at the end. `pack_into` needs the message complete before it touches
//! the caller's bytearray (left unchanged on error), so it writes into a buffer the `Packer`
//! keeps, of up to [`KEEP_MAX`] bytes, and copies the message over once done.

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use pyo3::{PyTraverseError, PyVisit};

use super::frames;
use super::request::Pack;
use crate::ffi::{self, BytesWriter};
use crate::opt::Opt;
use crate::ser;

/// The largest buffer a `Packer` keeps between calls of `pack_into` (1 MiB). A message that
/// outgrows the buffer continues in a `bytes` object, as `packb` does, and the buffer is then
/// replaced by one of the message's size rounded up to a power of two, up to this size.
pub const KEEP_MAX: usize = 1 << 20;

/// The buffer of a new `Packer`: the size of `packb`'s scratch buffer.
const START: usize = ffi::SCRATCH_LEN;

/// Packer(*, default=None, option=None, buffer_callback=None, buffer_threshold=None,
/// registry=None): packs message after message with one `default` and one `option` (those
/// of `packb`, checked once, here), reusing the room earlier messages needed.
/// `buffer_callback`, `buffer_threshold` and `registry` are those of `packb`. `pack(obj)`
/// returns the bytes; `pack_into(obj, buffer, offset=0)` writes them into a bytearray.
///
/// Example:
///     >>> Packer(option=OPT_SORT_KEYS).pack({"b": 1, "a": 2})
///     b'\x82\xa1a\x02\xa1b\x01'
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack")]
pub struct Packer {
    default: Option<Py<PyAny>>,
    opts: Opt,
    /// Where the next `pack` output starts, from the size of the last one.
    next_start: usize,
    /// Where each `pack_into` message is written: only its capacity is used, its length
    /// stays 0.
    buf: Vec<u8>,
    /// `buffer_callback`: where the out-of-band buffers of each message go.
    buffer_callback: Option<Py<PyAny>>,
    /// `buffer_threshold`: buffers of at least this many bytes go out of band.
    threshold: usize,
    /// The table of the `registry` given, taken when the Packer was made.
    registry: Option<std::sync::Arc<crate::registry::Table>>,
}

#[pymethods]
impl Packer {
    #[new]
    #[pyo3(signature = (*, default=None, option=None, buffer_callback=None, buffer_threshold=None,
                        registry=None))]
    fn py_new(
        default: Option<Bound<'_, PyAny>>,
        option: Option<&Bound<'_, PyAny>>,
        buffer_callback: Option<Bound<'_, PyAny>>,
        buffer_threshold: Option<&Bound<'_, PyAny>>,
        registry: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Packer> {
        let request = Pack::parse("Packer", default.as_ref(), option, registry)?;
        let threshold = frames::threshold(buffer_threshold)?;
        let buffer_callback = frames::callback(buffer_callback)?;
        Ok(Packer {
            default: request.default.map(|d| d.clone().unbind()),
            opts: request.opts,
            next_start: 0,
            buf: Vec::with_capacity(START),
            buffer_callback: buffer_callback.map(Bound::unbind),
            threshold,
            registry: request.registry,
        })
    }

    /// `obj` packed, as `packb(obj, default, option)` packs it.
    #[pyo3(signature = (obj, /))]
    fn pack<'py>(slf: &Bound<'py, Self>, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let mut this = slf.try_borrow_mut().map_err(|_| busy())?;
        // Held for the call: `default` may run code that drops other references to itself.
        let default = this.default.as_ref().map(|d| d.bind(py).clone());
        let callback = this.buffer_callback.as_ref().map(|c| c.bind(py).clone());
        let oob = callback.as_ref().map(|c| (c, this.threshold));
        let hooks = this.request(default.as_ref()).hooks(py);
        let (out, len) = ser::pack_sized(py, obj, hooks, this.opts, this.next_start, oob)?;
        this.next_start = len.saturating_add(len / 4);
        Ok(out)
    }

    /// `obj` packed as a list of frames, for `socket.sendmsg` or `writelines`: the message,
    /// then each out-of-band buffer (as `packb_frames`); `buffer_callback` is not called.
    #[pyo3(signature = (obj, /))]
    fn pack_frames<'py>(
        slf: &Bound<'py, Self>,
        obj: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, pyo3::types::PyList>> {
        let py = slf.py();
        let this = slf.try_borrow_mut().map_err(|_| busy())?;
        let default = this.default.as_ref().map(|d| d.bind(py).clone());
        super::frames::pack_frames(py, obj, &this.request(default.as_ref()), this.threshold)
    }

    /// Packs `obj` into `buffer` from `offset` on, leaving `buffer` ending where the message
    /// ends; on error `buffer` is left unchanged.
    #[pyo3(signature = (obj, buffer, /, offset=0))]
    fn pack_into<'py>(
        slf: &Bound<'py, Self>,
        obj: &Bound<'py, PyAny>,
        buffer: &Bound<'py, PyAny>,
        offset: isize,
    ) -> PyResult<()> {
        let py = slf.py();
        let Ok(target) = buffer.cast::<PyByteArray>() else {
            return Err(not_a_bytearray(buffer));
        };
        let Ok(offset) = usize::try_from(offset) else {
            return Err(PyValueError::new_err(format!(
                "offset must be 0 or more, not {offset} (to append, pass len(buffer))"
            )));
        };
        if offset > target.len() {
            return Err(ffi::offset_past_end(offset, target.len()));
        }
        let mut this = slf.try_borrow_mut().map_err(|_| busy())?;
        this.pack_in_buffer(py, obj, |writer| {
            // SAFETY: the message is in the Packer's buffer or in a bytes object of its own,
            // never in the bytearray.
            unsafe { ffi::place_at(target, offset, writer.written()) }
        })
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.default)?;
        visit.call(&self.buffer_callback)?;
        if let Some(table) = &self.registry {
            table.traverse(&visit)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.default = None;
        self.buffer_callback = None;
        self.registry = None;
    }
}

impl Packer {
    /// The request each message is packed with: the `Packer`'s options and registry, with
    /// `default` (held by the caller for the call).
    #[inline(always)]
    fn request<'a, 'py>(&self, default: Option<&'a Bound<'py, PyAny>>) -> Pack<'a, 'py> {
        Pack {
            opts: self.opts,
            default,
            registry: self.registry.clone(),
        }
    }

    /// Packs `obj` starting in the kept buffer and hands the finished output to `done`; then
    /// keeps a larger buffer if the message outgrew this one.
    fn pack_in_buffer<'py, R>(
        &mut self,
        py: Python<'py>,
        obj: &Bound<'py, PyAny>,
        done: impl FnOnce(BytesWriter) -> PyResult<R>,
    ) -> PyResult<R> {
        // Held for the call: `default` may run code that drops other references to itself.
        let default = self.default.as_ref().map(|d| d.bind(py).clone());
        let callback = self.buffer_callback.as_ref().map(|c| c.bind(py).clone());
        let oob = callback.as_ref().map(|c| (c, self.threshold));
        let mut outgrown = 0;
        let hooks = self.request(default.as_ref()).hooks(py);
        let buf = self.buf.spare_capacity_mut();
        let result = ser::pack_in(py, obj, hooks, self.opts, buf, oob, |writer| {
            if writer.outgrew_buffer() {
                outgrown = writer.written().len();
            }
            done(writer)
        });
        if outgrown > 0 {
            self.keep_room_for(outgrown);
        }
        result
    }

    #[cold]
    #[inline(never)]
    fn keep_room_for(&mut self, len: usize) {
        let want = len
            .checked_next_power_of_two()
            .unwrap_or(KEEP_MAX)
            .min(KEEP_MAX);
        if want > self.buf.capacity() {
            let mut bigger = Vec::new();
            // Without memory for it, the current buffer is kept.
            if bigger.try_reserve_exact(want).is_ok() {
                self.buf = bigger;
            }
        }
    }
}

#[cold]
fn busy() -> PyErr {
    PyRuntimeError::new_err(
        "this Packer is already packing a message: it cannot be used again from its default \
         callback, nor from two threads at once (use one Packer per thread)",
    )
}

#[cold]
fn not_a_bytearray(buffer: &Bound<'_, PyAny>) -> PyErr {
    let ty = buffer
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    PyTypeError::new_err(format!("buffer must be a bytearray, not {ty}"))
}

crate::heap_class!(Packer);
