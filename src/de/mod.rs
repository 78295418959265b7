//! MessagePack to Python objects.

pub(crate) mod error;
mod exact;
mod ext;
pub(crate) mod keycache;
pub mod msgpack;
mod numpy;
pub(crate) mod reader;
mod request;
pub mod scan;
mod session;
pub use fastmsgpack_core::{skip, token};
pub mod transcode;
pub mod typed;
pub mod views;
pub(crate) mod walk;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::ffi::{self, InputBuffer, Known, Numpy, Owned, Ref};
use crate::opt;
use crate::opt::Opt;
use keycache::KEY_CACHE;
use msgpack::Decoder;
pub(crate) use session::Session;

pub use error::{DeError, Kind};
pub use request::Request;

/// Decodes one MessagePack object from `data` (bytes, bytearray or a C-contiguous memoryview),
/// plainly (no type, no exact types, no registry). `what` names the input in a `TypeError` for a
/// wrong type ("unpackb() argument").
#[inline(always)]
fn unpackb<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    what: &str,
    req: &Request<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let (ext_hook, opts, buffers) = (req.ext_hook, req.opts, req.buffers);
    let mut holder = None;
    let input = input_of(py, data, &mut holder, what)?;
    // A raw numpy array may view the input in place when its memory cannot change.
    let source = source_of(data, opts);
    if buffers.is_some() || opts & opt::BIN_MEMORYVIEW != 0 {
        return unpackb_views(py, input, ext_hook, opts, source, buffers);
    }
    let setup = Setup::of(py, opts, ext_hook, source)?;
    decode_whole(py, input, &setup).map_err(DeError::into_pyerr)
}

/// [`unpackb`] with `OPT_EXACT` or a registry: their extensions come back as the types they
/// stand for.
#[inline(never)]
fn unpackb_exact<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    what: &str,
    req: &Request<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let (ext_hook, opts, buffers) = (req.ext_hook, req.opts, req.buffers);
    let registry = req.registry.clone();
    let mut holder = None;
    let input = input_of(py, data, &mut holder, what)?;
    let source = source_of(data, opts);
    let views = make_views(py, opts, source, buffers, false)?;
    let setup = Setup::of(py, opts, ext_hook, source)?
        .with_views(views.clone())
        .with_registry(py, registry)?;
    let value = decode_whole(py, input, &setup).map_err(DeError::into_pyerr)?;
    finish_views(py, views.as_deref(), input.len()).map_err(DeError::into_pyerr)?;
    Ok(value)
}

/// The input object when views of it may outlive the call (its memory cannot change): always
/// a `bytes`, and with the options that make views, a read-only `mmap` or a memoryview of one
/// of the two.
#[inline(always)]
fn source_of<'a>(data: &'a Bound<'_, PyAny>, opts: Opt) -> Option<Ref<'a>> {
    if data.is_exact_instance_of::<PyBytes>() {
        return Some(Ref::of_bound(data));
    }
    if opts & (opt::NUMPY_RAW | opt::BIN_MEMORYVIEW) == 0 {
        return None;
    }
    views::immutable_source(data)
}

/// [`unpackb`] with `OPT_BIN_MEMORYVIEW` or `buffers=`.
#[cold]
#[inline(never)]
fn unpackb_views<'py>(
    py: Python<'py>,
    input: &[u8],
    ext_hook: Option<&Bound<'py, PyAny>>,
    opts: Opt,
    source: Option<Ref<'_>>,
    buffers: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let views = make_views(py, opts, source, buffers, false)?;
    let setup = Setup::of(py, opts, ext_hook, source)?.with_views(views.clone());
    let value = decode_whole(py, input, &setup).map_err(DeError::into_pyerr)?;
    finish_views(py, views.as_deref(), input.len()).map_err(DeError::into_pyerr)?;
    Ok(value)
}

/// The views a call with these options and `buffers` needs, if any (`views_input`: bins of
/// `memoryview` fields view the input).
pub fn make_views(
    py: Python<'_>,
    opts: Opt,
    source: Option<Ref<'_>>,
    buffers: Option<&Bound<'_, PyAny>>,
    views_input: bool,
) -> PyResult<Option<std::rc::Rc<views::Views>>> {
    let buffers = buffers.filter(|b| !b.is_none());
    if buffers.is_none() && opts & opt::BIN_MEMORYVIEW == 0 && !views_input {
        return Ok(None);
    }
    let bin_memoryview = opts & opt::BIN_MEMORYVIEW != 0;
    Ok(Some(std::rc::Rc::new(views::Views::new(
        py,
        bin_memoryview,
        source,
        buffers,
    )?)))
}

/// After a whole message: every buffer given was used.
pub fn finish_views(
    py: Python<'_>,
    views: Option<&views::Views>,
    end: usize,
) -> Result<(), DeError> {
    match views {
        Some(views) => views.finish(py, end),
        None => Ok(()),
    }
}

/// [`unpackb`] into the type `tp` (`unpackb(data, type=tp)`), with `dec_hook` for the types
/// fastmsgpack cannot build itself; the extensions of the request's registry are read as their
/// classes wherever the type leaves the value untyped, as an `Unpacker` reads them.
fn unpackb_typed<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    what: &str,
    req: &Request<'_, 'py>,
    (tp, dec_hook): (&Bound<'py, PyAny>, Option<&Bound<'py, PyAny>>),
) -> PyResult<Bound<'py, PyAny>> {
    let (ext_hook, opts, buffers) = (req.ext_hook, req.opts, req.buffers);
    let registry = req.registry.clone();
    let source = source_of(data, opts);
    let typed = typed::Typed::new(py, tp, dec_hook, opts, ext_hook, source)?;
    let mut holder = None;
    let input = input_of(py, data, &mut holder, what)?;
    // A memoryview field views the input, as bins do with OPT_BIN_MEMORYVIEW.
    let views = make_views(py, opts, source, buffers, typed.has_memoryview)?;
    let setup = Setup::of(py, opts, ext_hook, source)?
        .with_views(views.clone())
        .with_registry(py, registry)?;
    let (value, _) = typed
        .decode_at(py, input, &setup, true)
        .map_err(typed::error::TError::into_pyerr)?;
    finish_views(py, views.as_deref(), input.len()).map_err(DeError::into_pyerr)?;
    Ok(value)
}

/// What a decoder needs besides its input, looked up once per call: the options, the hook, and
/// the handles the options ask for. Every decoder is built from one, in [`Setup::decoder`].
pub struct Setup {
    opts: Opt,
    /// `ext_hook`, held (a `Py`, which a garbage-collected holder of the set-up visits).
    hook: Option<Py<PyAny>>,
    /// With `OPT_DATETIME_AS_TIMESTAMP_EXT`: timestamps become datetimes.
    timestamps: Option<&'static Known>,
    /// With `OPT_NUMPY_RAW`: numpy's handles (when it is installed), and the input object
    /// when raw arrays may view it in place.
    numpy: Option<(&'static Numpy, Option<Owned>)>,
    /// With `OPT_BIN_MEMORYVIEW` or `buffers=`: how bins and out-of-band buffers are read.
    views: Option<std::rc::Rc<views::Views>>,
    /// With `OPT_EXACT` or a registry: what reading their extensions needs (one word, null
    /// without them).
    exact: Option<std::rc::Rc<exact::Exact>>,
}

impl Setup {
    /// The set-up for `opts`, with `ext_hook` and `source` (the input object, when raw numpy
    /// arrays may view it in place); the set-up holds both.
    pub fn of(
        py: Python<'_>,
        opts: Opt,
        ext_hook: Option<&Bound<'_, PyAny>>,
        source: Option<Ref<'_>>,
    ) -> PyResult<Setup> {
        let timestamps = if opts & opt::DATETIME_AS_TIMESTAMP_EXT != 0 {
            Some(Known::get(py)?)
        } else {
            None
        };
        let numpy = if opts & opt::NUMPY_RAW != 0 {
            Numpy::get(py)?.map(|np| (np, source.map(Ref::hold)))
        } else {
            None
        };
        let exact = if opts & opt::EXACT != 0 {
            Some(exact::Exact::new(py, true, None)?)
        } else {
            None
        };
        Ok(Setup {
            opts,
            hook: ext_hook.map(|h| h.clone().unbind()),
            timestamps,
            numpy,
            views: None,
            exact,
        })
    }

    /// The same set-up, reading the extensions of `registry` (a `Registry`'s table) too.
    pub fn with_registry(
        mut self,
        py: Python<'_>,
        registry: Option<std::sync::Arc<crate::registry::Table>>,
    ) -> PyResult<Setup> {
        if registry.is_some() {
            self.exact = Some(exact::Exact::new(
                py,
                self.opts & opt::EXACT != 0,
                registry,
            )?);
        }
        Ok(self)
    }

    /// The `ext_hook` the set-up holds, for a holder's `__traverse__` and for typed reads.
    pub fn ext_hook(&self) -> Option<&Py<PyAny>> {
        self.hook.as_ref()
    }

    /// The options the decoders follow.
    pub fn opts(&self) -> Opt {
        self.opts
    }

    /// The setup with `views` for its bins and out-of-band buffers.
    pub fn with_views(mut self, views: Option<std::rc::Rc<views::Views>>) -> Setup {
        self.views = views;
        self
    }

    /// Its views, for a setup that decodes parts of the same input (a typed decode's arrays).
    pub fn views(&self) -> Option<std::rc::Rc<views::Views>> {
        self.views.clone()
    }

    fn decoder<'a, const VIEWS: bool>(
        &'a self,
        py: Python<'a>,
        input: &'a [u8],
        keys: Option<&'a mut keycache::KeyCache>,
    ) -> Decoder<'a, VIEWS> {
        self.decoder_with(py, input, keys, self.views.clone())
    }

    /// Bins are memoryviews (`OPT_BIN_MEMORYVIEW`): decoders are `Decoder<'_, true>`.
    pub(super) fn bin_views(&self) -> bool {
        self.opts & opt::BIN_MEMORYVIEW != 0
    }

    /// [`Setup::decoder`], with the views of another setup for the same input.
    pub(super) fn decoder_with<'a, const VIEWS: bool>(
        &'a self,
        py: Python<'a>,
        input: &'a [u8],
        keys: Option<&'a mut keycache::KeyCache>,
        views: Option<std::rc::Rc<views::Views>>,
    ) -> Decoder<'a, VIEWS> {
        let mut decoder = Decoder::new(
            py,
            input,
            self.opts,
            self.hook.as_ref().map(|h| Ref::of_py(h, py)),
            self.timestamps,
            self.numpy
                .as_ref()
                .map(|(np, source)| (*np, source.as_ref().map(Ref::of))),
            keys,
            views,
        );
        decoder.exact = self.exact.clone();
        decoder
    }
}

/// The one object that makes up `input`, decoded as `setup` says.
pub fn decode_whole<'py>(
    py: Python<'py>,
    input: &[u8],
    setup: &Setup,
) -> Result<Bound<'py, PyAny>, DeError> {
    let mut session = Session::begin(py, input.len());
    let value = if setup.bin_views() {
        views_document(py, input, setup, session.keys())?
    } else {
        let mut decoder = setup.decoder::<false>(py, input, session.keys());
        decoder.decode_document()?
    };
    // SAFETY: the decoder hands over a strong reference.
    Ok(unsafe { Bound::from_owned_ptr(py, value.into_raw()) })
}

/// [`decode_whole`] with bins as memoryviews.
#[cold]
#[inline(never)]
fn views_document(
    py: Python<'_>,
    input: &[u8],
    setup: &Setup,
    keys: Option<&mut keycache::KeyCache>,
) -> Result<ffi::Owned, DeError> {
    setup.decoder::<true>(py, input, keys).decode_document()
}

/// One message of a stream (an `Unpacker`'s), decoded as `setup` says: the object `input` starts
/// with and its length (what follows it is left alone), or when `whole`, the one object that
/// makes up `input`. Collection is paused however short the message is (see
/// [`Session::begin_run`]).
pub fn decode_message<'py>(
    py: Python<'py>,
    input: &[u8],
    setup: &Setup,
    whole: bool,
) -> Result<(Bound<'py, PyAny>, usize), DeError> {
    let mut session = Session::begin_run(py);
    let (value, end) = if setup.bin_views() {
        message_in::<true>(py, input, setup, session.keys(), whole)?
    } else {
        message_in::<false>(py, input, setup, session.keys(), whole)?
    };
    // SAFETY: the decoder hands over a strong reference.
    Ok((unsafe { Bound::from_owned_ptr(py, value.into_raw()) }, end))
}

#[inline(always)]
fn message_in<const VIEWS: bool>(
    py: Python<'_>,
    input: &[u8],
    setup: &Setup,
    keys: Option<&mut keycache::KeyCache>,
    whole: bool,
) -> Result<(ffi::Owned, usize), DeError> {
    let mut decoder = setup.decoder::<VIEWS>(py, input, keys);
    if whole {
        Ok((decoder.decode_document()?, input.len()))
    } else {
        decoder.decode_at(0)
    }
}

/// The objects that follow one another from the start of `input`, each decoded as
/// [`decode_message`] decodes it, in one session: the key cache claimed and collection paused once
/// for them all. `take(object, end)` is given each in turn with the offset where it ends, and
/// says whether to go on. The run stops before the first object that is not whole or cannot be
/// decoded (its error is dropped: the caller decodes it alone, and raises it there) and at the
/// end of `input`. `setup` has no views and no `ext_hook` or registry: nothing here calls Python
/// code of the caller's.
pub fn decode_run<'py>(
    py: Python<'py>,
    input: &[u8],
    setup: &Setup,
    mut take: impl FnMut(Bound<'py, PyAny>, usize) -> bool,
) {
    let mut session = Session::begin_run(py);
    let mut decoder = setup.decoder::<false>(py, input, session.keys());
    decoder.decode_run(|value, end| {
        // SAFETY: the decoder hands over a strong reference.
        let value = unsafe { Bound::from_owned_ptr(py, value.into_raw()) };
        take(value, end)
    });
}

/// The object that starts at `offset` of `input`, nested `depth` containers deep, decoded as
/// `setup` says (what follows it is left alone); errors give offsets in the whole input. A lazy
/// view decodes what is read through it with this.
pub fn decode_nested_at<'py>(
    py: Python<'py>,
    input: &[u8],
    setup: &Setup,
    offset: usize,
    depth: u32,
) -> Result<Bound<'py, PyAny>, DeError> {
    let mut session = Session::begin_at(py, input, offset);
    let mut decoder = setup.decoder::<false>(py, input, session.keys());
    let (value, _) = decoder.decode_nested(offset, depth)?;
    // SAFETY: the decoder hands over a strong reference.
    Ok(unsafe { Bound::from_owned_ptr(py, value.into_raw()) })
}

/// The map key that starts at `offset` of `input`, made as `unpackb` makes a key in a map
/// nested `depth` containers deep (a str from the key cache, another type with
/// `OPT_NON_STR_KEYS`, else the same error).
pub fn decode_key_at<'py>(
    py: Python<'py>,
    input: &[u8],
    setup: &Setup,
    offset: usize,
    depth: u32,
) -> Result<Bound<'py, PyAny>, DeError> {
    let mut claim = KEY_CACHE.claim(py);
    let mut decoder = setup.decoder::<false>(py, input, claim.as_deref_mut());
    let value = decoder.key_at(offset, depth)?;
    // SAFETY: the decoder hands over a strong reference.
    Ok(unsafe { Bound::from_owned_ptr(py, value.into_raw()) })
}

/// Reads several items of `input` with one decoder set up as `setup` says: a lazy view reading
/// a container's items in one pass claims the key cache and sets up a decoder once, not once
/// per item. The items are read with [`Reading::value`] and [`Reading::key`].
pub fn reading<'py, R>(
    py: Python<'py>,
    input: &[u8],
    setup: &Setup,
    read: impl FnOnce(&mut Reading<'py, '_>) -> R,
) -> R {
    let mut claim = KEY_CACHE.claim(py);
    let decoder = setup.decoder::<false>(py, input, claim.as_deref_mut());
    read(&mut Reading { py, decoder })
}

/// A decoder lent to [`reading`].
pub struct Reading<'py, 'a> {
    py: Python<'py>,
    decoder: Decoder<'a, false>,
}

impl<'py> Reading<'py, '_> {
    /// The object at `offset`, nested `depth` deep, as `unpackb` makes it.
    #[inline]
    pub fn value(&mut self, offset: usize, depth: u32) -> Result<Bound<'py, PyAny>, DeError> {
        let (value, _) = self.decoder.decode_nested(offset, depth)?;
        // SAFETY: the decoder hands over a strong reference.
        Ok(unsafe { Bound::from_owned_ptr(self.py, value.into_raw()) })
    }

    /// The map key at `offset` (in a map nested `depth` deep), as [`decode_key_at`] makes it.
    #[inline]
    pub fn key(&mut self, offset: usize, depth: u32) -> Result<Bound<'py, PyAny>, DeError> {
        let value = self.decoder.key_at(offset, depth)?;
        // SAFETY: the decoder hands over a strong reference.
        Ok(unsafe { Bound::from_owned_ptr(self.py, value.into_raw()) })
    }

    /// [`Reading::value`], and where the object ends.
    #[inline]
    pub fn value_end(
        &mut self,
        offset: usize,
        depth: u32,
    ) -> Result<(Bound<'py, PyAny>, usize), DeError> {
        let (value, end) = self.decoder.decode_nested(offset, depth)?;
        // SAFETY: the decoder hands over a strong reference.
        Ok((
            unsafe { Bound::from_owned_ptr(self.py, value.into_raw()) },
            end,
        ))
    }

    /// [`Reading::key`], and where the key ends.
    #[inline]
    pub fn key_end(
        &mut self,
        offset: usize,
        depth: u32,
    ) -> Result<(Bound<'py, PyAny>, usize), DeError> {
        let key = self.key(offset, depth)?;
        Ok((key, self.decoder.r.pos))
    }
}

/// The object that starts at `offset` in `bytes`, read with only `OPT_NON_STR_KEYS` (no hook,
/// no timestamps, no numpy), and where it ends; errors give offsets in the whole input.
pub fn unpack_at<'py>(
    py: Python<'py>,
    bytes: &[u8],
    offset: usize,
    opts: Opt,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let setup = Setup::of(py, opts & opt::NON_STR_KEYS, None, None)?;
    let mut claim = KEY_CACHE.claim(py);
    let mut decoder = setup.decoder::<false>(py, bytes, claim.as_deref_mut());
    let (value, end) = decoder.decode_at(offset).map_err(DeError::into_pyerr)?;
    // SAFETY: the decoder hands over a strong reference.
    Ok((unsafe { Bound::from_owned_ptr(py, value.into_raw()) }, end))
}

/// The MessagePack input that `what` names ("unpackb() argument"): bytes, bytearray or a
/// C-contiguous memoryview, else a `TypeError` that names it.
///
/// `bytes` is read in place and needs nothing held; for the other types the export or copy that
/// the bytes come from is put in `holder`, which must outlive them.
///
/// Always inlined, with the other types out of line, so that a `bytes` input stays a pointer and
/// a length in registers. Returned as an `InputBuffer` instead, the buffer went through memory
/// and was read back with a wider load than the stores that wrote it, which stalled the call (a
/// failed store-to-load forward).
#[inline(always)]
pub fn input_of<'a>(
    py: Python<'_>,
    data: &'a Bound<'_, PyAny>,
    holder: &'a mut Option<InputBuffer>,
    what: &str,
) -> PyResult<&'a [u8]> {
    // SAFETY: `data` is borrowed for `'a`, and a bytes object's storage never changes.
    if let Some(bytes) = unsafe { ffi::bytes_of(data.as_ptr()) } {
        return Ok(bytes);
    }
    input_not_bytes(py, data, holder, what)
}

/// [`input_of`] for inputs that are not `bytes`.
#[inline(never)]
fn input_not_bytes<'a>(
    py: Python<'_>,
    data: &'a Bound<'_, PyAny>,
    holder: &'a mut Option<InputBuffer>,
    what: &str,
) -> PyResult<&'a [u8]> {
    // SAFETY: `data` is borrowed for `'a`, so it is alive for as long as the buffer is read, and
    // we are attached.
    match unsafe { InputBuffer::acquire(data.as_ptr()) } {
        Ok(Some(input)) => Ok(holder.insert(input).as_slice()),
        Ok(None) => Err(wrong_input_type(data, what)),
        Err(cause) => Err(not_contiguous(py, cause, what)),
    }
}

#[cold]
fn wrong_input_type(data: &Bound<'_, PyAny>, what: &str) -> PyErr {
    let name = data
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    PyTypeError::new_err(format!(
        "{what} must be bytes, bytearray, memoryview or another object with a buffer (mmap), \
         not {name}"
    ))
}

#[cold]
fn not_contiguous(py: Python<'_>, cause: PyErr, what: &str) -> PyErr {
    let err = PyTypeError::new_err(format!("{what} must be a C-contiguous buffer"));
    err.set_cause(py, Some(cause));
    err
}
