//! `Unpacker`: objects from a stream whose bytes arrive in pieces, fed by hand or read from a
//! file-like object.
//!
//! The bytes not yet consumed are kept in one buffer, or in the `bytes` piece fed last, read where
//! it is rather than copied ([`piece`]). After each piece, the scanner
//! ([`de::scan`]) walks on from where it stopped to find where the next object ends; only a
//! complete object is decoded, by the same decoder as `unpackb`. Nothing is allocated by a
//! declared length, and no byte is scanned twice, so feeding a large object in small pieces
//! costs time in proportion to its size.
//!
//! Errors: malformed bytes (a reserved marker, nesting beyond the limit) leave no way to tell
//! where the next object starts, so the Unpacker raises that error again on every later call.
//! An object whose end was found but which cannot be decoded (invalid UTF-8, a key the options
//! do not allow, a hook that raises) is consumed, its error raised, and the next object can be
//! read.
//!
//! In compat mode (`fastmsgpack.compat.Unpacker`, given a [`CompatOptions`]) objects are decoded
//! by the compat decoder, in place in the buffer, and errors are those of msgpack-python's
//! reader, where it reports them: the scanner checks each item as it arrives (limits, UTF-8,
//! `strict_map_key`), the object in progress is dropped on an error, and the stream goes on from
//! the last byte of the item the error was found in, as msgpack-python's does. Only the bytes not
//! yet scanned count towards `max_buffer_size`, as msgpack-python's reader holds only the bytes
//! it has not parsed.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::{PyTraverseError, PyVisit};

use super::request::UnpackArgs;
use crate::compat::decode::options::CompatOptions;
use crate::compat::scan::Checks;
use crate::de::scan::{Fault, Scan, Scanner, Structure};
use crate::de::typed::error::TError;
use crate::de::typed::plan::TypePlan;
use crate::de::typed::Typed;
use crate::de::{self, DeError, Setup};
use crate::exc::{with_data, ErrorData, OutOfData};
use crate::opt::{self, Opt};

mod ahead;
mod aio;
mod buffer;
mod piece;
mod raw;

pub use aio::AsyncObjects;

/// Unpacker(file_like=None, /, *, ext_hook=None, option=None, read_size=65536,
/// max_buffer_size=104857600, type=None, dec_hook=None, buffers=None, registry=None): takes a
/// stream apart into its objects. Give it bytes with `feed(data)`, or a `file_like` with a
/// `read(n)` method, read `read_size` bytes at a time. Iterating yields each complete object;
/// `unpack()` returns the next one (OutOfData when none is complete), `skip()` consumes one,
/// `tell()` is the stream offset of the next. At most `max_buffer_size` bytes are held
/// (BufferFull). A `file_like` that ends inside an object raises MsgpackDecodeError.
/// `ext_hook`, `option`, `type`, `dec_hook`, `buffers` and `registry` are those of `unpackb`
/// and apply to every object.
///
/// Example:
///     >>> unpacker = Unpacker(); unpacker.feed(b'\x01\x02'); list(unpacker)
///     [1, 2]
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack", weakref)]
pub struct Unpacker {
    /// Bytes fed or read, copied; those before `head` are consumed (with `piece`: see [`piece`]).
    buf: Vec<u8>,
    head: usize,
    /// The last `bytes` piece fed or read, kept rather than copied (see [`piece`]).
    piece: Option<piece::Piece>,
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
    /// Compat mode: msgpack-python's options, errors and stream semantics.
    compat: Option<Py<CompatOptions>>,
    /// Refuse an object whose headers already declare more than `max_buffer_size` bytes, rather
    /// than wait for its bytes (off in `fastmsgpack.compat`, which waits as msgpack-python does).
    refuse_unfit: bool,
    /// `buffers=`: an iterator over the out-of-band buffers of the messages to come.
    buffers: Option<Py<PyAny>>,
    /// The table of the `registry` given, taken when the Unpacker was made.
    registry: Option<std::sync::Arc<crate::registry::Table>>,
    /// The length of the last object decoded. Fewer bytes held than that most likely hold only
    /// the start of the next one, in a stream of large objects: the scanner then waits for it
    /// whole, rather than decoding its start to throw it away.
    last_len: usize,
    /// Objects decoded ahead, whose bytes follow `head` (see [`ahead`]).
    ahead: ahead::Ahead,
}

/// The extent of a complete object in the buffer.
struct Extent {
    start: usize,
    end: usize,
}

impl Unpacker {
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
    /// when the bytes at hand (and, with a file, all it had) hold no complete object. In compat
    /// mode, items are checked as msgpack-python's reader checks them when `build` (not for
    /// `skip`).
    fn next_extent(&mut self, py: Python<'_>, build: bool) -> PyResult<Option<Extent>> {
        let compat = self.compat.as_ref().map(|o| o.clone_ref(py));
        loop {
            self.check_broken(py)?;
            let data = &piece::front(&self.buf, &self.piece)[self.head..];
            let scanned = match &compat {
                Some(o) => self.scanner.scan(
                    data,
                    &mut Checks {
                        py,
                        o: o.get(),
                        build,
                    },
                ),
                None => self.scanner.scan(data, &mut Structure),
            };
            match scanned {
                Ok(Scan::Complete(len)) => {
                    return Ok(Some(Extent {
                        start: self.head,
                        end: self.head + len,
                    }))
                }
                Ok(Scan::Incomplete) => {
                    self.check_fits(py)?;
                    if !self.more_held(py)? {
                        return Ok(None);
                    }
                }
                Err(Fault { err, end }) => {
                    if let Some(o) = &compat {
                        self.fail_at(self.head + end);
                        return Err(o.get().error(py, err));
                    }
                    let err = err.shifted(self.consumed).into_pyerr();
                    self.broken = Some((err.get_type(py).unbind(), err.value(py).to_string()));
                    return Err(err);
                }
            }
        }
    }

    /// The next object in compat mode: decoded in place by the compat decoder.
    fn next_compat<'py>(
        &mut self,
        py: Python<'py>,
        o: &CompatOptions,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if o.pure && self.scanner.is_idle() && self.held() > 0 {
            // Most objects are whole in the buffer: decoded at once. Without hooks of the
            // caller's, an object that turns out not to be whole yet is simply decoded again.
            match crate::compat::decode::decode_in_stream(py, self.window(), 0, o) {
                Ok((obj, len)) => {
                    let extent = Extent {
                        start: self.head,
                        end: self.head + len,
                    };
                    self.consume(&extent);
                    return Ok(Some(obj));
                }
                Err((err, _)) if err.is_truncated() => {}
                Err((err, end)) => {
                    self.fail_at(self.head + end);
                    return Err(o.error(py, err));
                }
            }
        }
        let Some(extent) = self.next_extent(py, true)? else {
            return Ok(None);
        };
        let input = &self.front()[extent.start..extent.end];
        match crate::compat::decode::decode_in_stream(py, input, 0, o) {
            Ok((obj, _)) => {
                self.consume(&extent);
                Ok(Some(obj))
            }
            Err((err, end)) => {
                self.fail_at(extent.start + end);
                Err(o.error(py, err))
            }
        }
    }

    /// The next object, decoded; `None` when there is no complete one.
    ///
    /// Inlined into each caller: in a stream of small objects most come from the queue of
    /// objects decoded ahead, and taking one is a few instructions, less than the call to the
    /// rest (whose frame holds a decoder's set-up).
    #[inline(always)]
    fn next_object<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if let Some((obj, _)) = self.next_ahead(py) {
            return Ok(Some(obj));
        }
        self.next_decoded(py)
    }

    /// [`Unpacker::next_object`] when no object decoded ahead is queued: decodes the next one
    /// (and a run ahead of it, when the options allow).
    #[inline(never)]
    fn next_decoded<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if let Some(o) = self.compat.as_ref().map(|o| o.clone_ref(py)) {
            return self.next_compat(py, o.get());
        }
        let hook = self.ext_hook.as_ref().map(|h| h.bind(py).clone());
        let buffers = self.buffers.as_ref().map(|b| b.bind(py).clone());
        let views = de::make_views(py, self.opts, None, buffers.as_ref(), false)?;
        let setup = Setup::of(py, self.opts, hook.as_ref(), None)?
            .with_views(views)
            .with_registry(py, self.registry.clone())?;
        // Only whole objects are decoded when they take buffers: a decode that ran out of bytes
        // would have taken buffers for an object that is decoded again.
        let mut direct = hook.is_none() && buffers.is_none();
        if self.runs_ahead() && self.decodes_direct() {
            if let Some(obj) = self.decode_ahead(py, &setup) {
                return Ok(Some(obj));
            }
            // The first object is not whole, or has an error: the scanner takes over.
            direct = false;
        }
        let Some(plan) = self.plan.as_ref().map(|p| p.bind(py).clone()) else {
            return self.next_with(py, direct, |input, whole| {
                de::decode_message(py, input, &setup, whole).map_err(Failure::Untyped)
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

    /// Whether the next object may be decoded straight from the bytes held, before the scanner
    /// has found its end: the scanner is not half-way through one, and the bytes held may hold it
    /// whole (see `last_len`).
    #[inline]
    fn decodes_direct(&self) -> bool {
        self.scanner.is_idle() && self.broken.is_none() && self.held() >= self.last_len.max(1)
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
        if direct && self.decodes_direct() {
            // On an error, the scanner finds where the object ends (or waits for it) and the
            // decoder below raises the error again once the object is whole.
            if let Ok((obj, len)) = decode(self.window(), false) {
                let extent = Extent {
                    start: self.head,
                    end: self.head + len,
                };
                self.consume(&extent);
                self.last_len = len;
                return Ok(Some(obj));
            }
        }
        let Some(extent) = self.next_extent(py, true)? else {
            return Ok(None);
        };
        let offset = self.consumed;
        self.last_len = extent.end - extent.start;
        let result = decode(&self.front()[extent.start..extent.end], true);
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

#[pymethods]
impl Unpacker {
    #[new]
    // max_buffer_size: 100 MiB.
    #[pyo3(signature = (file_like=None, /, *, ext_hook=None, option=None, read_size=65536,
                        max_buffer_size=104857600, r#type=None, dec_hook=None, buffers=None,
                        registry=None))]
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
        registry: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Unpacker> {
        let buffers = match buffers.filter(|b| !b.is_none()) {
            Some(b) => Some(b.try_iter()?.into_any().unbind()),
            None => None,
        };
        let args = UnpackArgs {
            option,
            ext_hook: ext_hook.as_ref(),
            tp: r#type.as_ref(),
            dec_hook: dec_hook.as_ref(),
            registry,
            buffers: None,
        };
        let request = super::request::unpack("Unpacker", opt::UNPACKB_MASK, args)?;
        let (opts, registry) = (request.opts, request.registry);
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
            piece: None,
            scanner: Scanner::default(),
            consumed: 0,
            file: file_like.map(Bound::unbind),
            eof: false,
            read_size: read_size.min(max_buffer_size),
            max_buffer_size,
            opts,
            ext_hook: ext_hook.map(Bound::unbind),
            broken: None,
            compat: None,
            refuse_unfit: true,
            buffers,
            registry,
            last_len: 0,
            ahead: ahead::Ahead::default(),
        })
    }

    /// Adds bytes to the stream (bytes, bytearray or a C-contiguous memoryview; in compat mode,
    /// any buffer, copied when it is not contiguous).
    #[pyo3(signature = (data, /))]
    fn feed(slf: &Bound<'_, Self>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let mut this = busy_check(slf, "feed")?;
        if this.file.is_some() {
            return Err(PyTypeError::new_err(
                "Unpacker.feed() cannot be used with file_like: the Unpacker reads it itself",
            ));
        }
        let copy;
        let data = match &this.compat {
            Some(_) => match super::compat::contiguous_copy(data)? {
                Some(c) => {
                    copy = c;
                    &copy
                }
                None => data,
            },
            None => data,
        };
        let result = this.feed_object(py, data, "feed() argument");
        this.compat_errors(py, result)
    }

    /// The next object; `OutOfData` when there is no complete one yet.
    fn unpack<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let mut this = busy_check(slf, "unpack")?;
        let result = this
            .next_object(py)
            .and_then(|obj| obj.ok_or_else(out_of_data));
        this.compat_errors(py, result)
    }

    /// Consumes the next object without building it; `OutOfData` when there is no complete one.
    fn skip(slf: &Bound<'_, Self>) -> PyResult<()> {
        let py = slf.py();
        let mut this = busy_check(slf, "skip")?;
        if this.next_ahead(py).is_some() {
            return Ok(());
        }
        // Without the limits, as msgpack-python skips.
        let result = this
            .next_extent(py, false)
            .and_then(|extent| extent.ok_or_else(out_of_data))
            .map(|extent| this.consume(&extent));
        this.compat_errors(py, result)
    }

    /// The number of bytes consumed since the Unpacker was made: the stream offset of the next
    /// object.
    fn tell(slf: &Bound<'_, Self>) -> PyResult<u64> {
        Ok(busy_check(slf, "tell")?.consumed)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next object, or the end of the iteration when there is no complete one (more may be
    /// fed later).
    fn __next__<'py>(slf: &Bound<'py, Self>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let py = slf.py();
        let mut this = busy_check(slf, "__next__")?;
        let result = this.next_object(py);
        this.compat_errors(py, result)
    }

    /// Puts a new Unpacker in compat mode, with msgpack-python's options (`fastmsgpack.compat`,
    /// right after making it).
    fn _set_compat(slf: &Bound<'_, Self>, options: Py<CompatOptions>) -> PyResult<()> {
        let mut this = busy_check(slf, "_set_compat")?;
        this.compat = Some(options);
        // msgpack-python waits for the bytes of an object however long it says it is.
        this.refuse_unfit = false;
        Ok(())
    }

    /// Whether the Unpacker is unpacking (called from a hook): `fastmsgpack.compat` refuses to
    /// initialise it again then.
    fn _busy(slf: &Bound<'_, Self>) -> bool {
        slf.try_borrow_mut().is_err()
    }

    // The file-like object and the hook can refer back to the Unpacker (a file object that
    // keeps its reader, a hook whose closure or raised exception holds it): the garbage
    // collector must see them to free such cycles.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.file)?;
        visit.call(&self.ext_hook)?;
        visit.call(&self.plan)?;
        visit.call(&self.dec_hook)?;
        visit.call(&self.compat)?;
        visit.call(&self.buffers)?;
        if let Some(table) = &self.registry {
            table.traverse(&visit)?;
        }
        self.ahead.traverse(&visit)
    }

    fn __clear__(&mut self) {
        self.ahead.clear();
        self.compat = None;
        self.buffers = None;
        self.file = None;
        self.ext_hook = None;
        self.plan = None;
        self.dec_hook = None;
        self.registry = None;
    }

    /// The item count of the array header next in the stream (`fastmsgpack.compat`).
    fn _read_array_header(slf: &Bound<'_, Self>) -> PyResult<usize> {
        let mut this = busy_check(slf, "read_array_header")?;
        let result = this.take_header(slf.py(), false);
        this.compat_errors(slf.py(), result)
    }

    /// The entry count of the map header next in the stream (`fastmsgpack.compat`).
    fn _read_map_header(slf: &Bound<'_, Self>) -> PyResult<usize> {
        let mut this = busy_check(slf, "read_map_header")?;
        let result = this.take_header(slf.py(), true);
        this.compat_errors(slf.py(), result)
    }

    /// Up to `n` bytes of the stream as they are (`fastmsgpack.compat`).
    fn _read_bytes<'py>(slf: &Bound<'py, Self>, n: usize) -> PyResult<Bound<'py, PyBytes>> {
        busy_check(slf, "read_bytes")?.take_bytes(slf.py(), n)
    }

    /// The bytes of the next complete object, not decoded, or `None` (for the command line,
    /// which converts each object with the transcoder).
    fn _next_raw<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        // Objects decoded ahead are dropped: their bytes are taken as they are.
        self.ahead.clear();
        let Some(extent) = self.next_extent(py, true)? else {
            return Ok(None);
        };
        let bytes = PyBytes::new(py, &self.front()[extent.start..extent.end]);
        self.consume(&extent);
        Ok(Some(bytes))
    }
}

impl Unpacker {
    /// In compat mode, the stream's errors (`OutOfData`, `BufferFull`) as msgpack-python's
    /// classes.
    #[inline(always)]
    fn compat_errors<T>(&self, py: Python<'_>, result: PyResult<T>) -> PyResult<T> {
        match (&self.compat, result) {
            (Some(o), Err(err)) => Err(o.get().stream_error(py, err)),
            (_, result) => result,
        }
    }
}

/// The Unpacker, borrowed for a call of `method`: a `RuntimeError` that says so when it is
/// unpacking already (the call comes from one of its hooks, or from another thread).
#[inline(always)]
fn busy_check<'py>(slf: &Bound<'py, Unpacker>, method: &str) -> PyResult<PyRefMut<'py, Unpacker>> {
    slf.try_borrow_mut().map_err(|_| busy(method))
}

#[cold]
fn busy(method: &str) -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err(format!(
        "Unpacker.{method}() cannot be called while this Unpacker is unpacking: not from its \
         hooks, nor from two threads at once (use one Unpacker per thread)"
    ))
}

#[cold]
fn out_of_data() -> PyErr {
    const REASON: &str = "no complete object in the data fed or read so far";
    let data = ErrorData {
        kind: "out_of_data",
        reason: REASON,
        offset: None,
        path: None,
    };
    with_data(OutOfData::new_err(REASON), &data)
}

crate::heap_class!(Unpacker);
