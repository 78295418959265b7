//! Python objects to an [`Emitter`]: classify each object once, then one dispatch.

pub mod dispatch;
pub mod error;
pub mod hook;
#[cfg(feature = "walk-probe")]
pub mod native_probe;
pub mod obtype;
mod per_type;
pub mod state;
mod type_memo;

use pyo3::prelude::*;

use crate::emit::{JsonEmitter, JsonModel, MsgpackEmitter};
use crate::error::Res;
use crate::ffi::{self, BytesWriter, Known, Numpy, Owned, Ref, TypePtr};
use crate::opt::{self, Opt};
use state::State;

/// What stays the same for a whole call: the user's `default` and type pointers looked up once.
/// `'a` is the call's: the arguments it borrows live while it runs.
pub struct Ctx<'a> {
    pub default: Option<Ref<'a>>,
    /// The caller's say over classification and `default` ([`hook`]); none for `packb`.
    pub hook: Option<hook::Hook<'a>>,
    pub ext_type: TypePtr,
    /// A tuple subclass of `(code, data)` that the caller names (null: none): its instances and
    /// its subclasses' go to `default`, never packed as named tuples; with a [`hook`], that class
    /// exactly is written as an extension value.
    pub ext_tuple: TypePtr,
    /// `Fragment` and `json.Fragment` (final classes: told by pointer).
    pub fragment_types: (TypePtr, TypePtr),
    pub known: &'static Known,
    /// numpy's handles, looked up only with `OPT_SERIALIZE_NUMPY`, `OPT_NUMPY_RAW` or
    /// `OPT_EXACT`, and when numpy is imported.
    pub numpy: Option<&'static Numpy>,
    /// The last fixed-offset timezone seen (held, so its address cannot be reused by another
    /// object) and its offset in seconds: the datetimes of one call usually share one.
    pub last_fixed_tz: std::cell::Cell<Option<(Owned, i64)>>,
    /// The last types classified by their lineage (subclasses, enums, dataclasses, models).
    pub lineage: type_memo::TypeMemo<obtype::ObType>,
    /// The type `lineage` kept last, and its answer: tested right after the builtins, before any
    /// other rule, as a list of named tuples or of members repeats one type. Always a type
    /// `lineage` holds (it is set when the type is kept there, and a type is only replaced there
    /// by one that is then set here), so its address cannot be taken by another type during the
    /// call; null before the first.
    pub last_lineage: std::cell::Cell<(TypePtr, obtype::ObType)>,
    /// The last dataclass types packed, and the names of their fields (a tuple of str).
    pub dataclass_names: type_memo::TypeMemo<Owned>,
    /// Enum members met in this call, and their values.
    pub member_values: per_type::enums::MemberValues,
    /// The codec error handler for a str that strict UTF-8 refuses (lone surrogates), other
    /// than "strict" and "replace"; none for `packb`.
    pub unicode_errors: Option<std::ffi::CString>,
    /// `buffer_callback`: where out-of-band buffers go.
    pub oob: Option<per_type::oob::Sink<'a>>,
    /// Buffers of at least this many bytes are offered to `oob` (`usize::MAX` without it).
    pub oob_threshold: usize,
    /// With `OPT_EXACT` or a `Registry`: what they need (boxed: one word, null without them, so
    /// that calls without them pay for no more than one pointer).
    pub exact: Option<Box<per_type::exact::ExactCx>>,
    /// Free-threaded: the strong references a list's or dict's walk takes under the container's
    /// lock to the items it writes after the lock is released ([`per_type::locked`]), one stack
    /// for the whole call: each walk pushes its items and pops them when done, nested walks above
    /// it, so a call allocates it once instead of a buffer per container.
    #[cfg(Py_GIL_DISABLED)]
    pub held: per_type::locked::Held,
}

/// What the user passed besides the object and the options (`default` and a registry's table),
/// and the class the caller names as [`Ctx::ext_tuple`] (null: none).
pub struct Hooks<'a, 'py> {
    pub default: Option<&'a Bound<'py, PyAny>>,
    pub registry: Option<std::sync::Arc<crate::registry::Table>>,
    pub ext_tuple: TypePtr,
}

/// What stays the same for a whole call, looked up once.
#[inline(always)]
pub fn context<'a, 'py>(py: Python<'py>, hooks: Hooks<'a, 'py>, opts: Opt) -> PyResult<Ctx<'a>> {
    let Hooks {
        default,
        registry,
        ext_tuple,
    } = hooks;
    Ok(Ctx {
        default: default.map(Ref::of_bound),
        hook: None,
        ext_type: <crate::ext::Ext as pyo3::PyTypeInfo>::type_object_raw(py),
        ext_tuple,
        fragment_types: (
            <crate::fragment::Fragment as pyo3::PyTypeInfo>::type_object_raw(py),
            <crate::fragment::JsonFragment as pyo3::PyTypeInfo>::type_object_raw(py),
        ),
        known: Known::get(py)?,
        numpy: if opts & (opt::SERIALIZE_NUMPY | opt::NUMPY_RAW | opt::EXACT) != 0 {
            numpy_for(py)?
        } else {
            None
        },
        last_fixed_tz: std::cell::Cell::new(None),
        lineage: Default::default(),
        last_lineage: std::cell::Cell::new((std::ptr::null_mut(), obtype::ObType::Other)),
        dataclass_names: Default::default(),
        member_values: Default::default(),
        unicode_errors: None,
        oob: None,
        oob_threshold: usize::MAX,
        exact: if opts & opt::EXACT != 0 || registry.is_some() {
            Some(per_type::exact::ExactCx::new(py, registry)?)
        } else {
            None
        },
        #[cfg(Py_GIL_DISABLED)]
        held: Default::default(),
    })
}

/// numpy's handles for the numpy options and `OPT_EXACT`, only when numpy is imported already:
/// there can be no numpy object to pack otherwise, so an option naming numpy costs one look in
/// `sys.modules` when numpy is not imported or not installed, and never imports it.
#[inline(never)]
fn numpy_for(py: Python<'_>) -> PyResult<Option<&'static Numpy>> {
    Numpy::if_imported(py)
}

/// Packs `obj` as MessagePack into a new `bytes` object (restricted to JSON's data model with
/// [`opt::JSON_MODEL`]).
pub fn packb<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    hooks: Hooks<'_, 'py>,
    opts: Opt,
) -> PyResult<Bound<'py, PyAny>> {
    let cx = context(py, hooks, opts)?;
    let mut scratch = ffi::scratch();
    // SAFETY: the GIL is held for the whole call (`py`), and `scratch` outlives the writer,
    // which `finish` consumes before this function returns.
    let writer = unsafe { BytesWriter::in_scratch(&mut scratch) };
    let writer = write_msgpack(obj, opts, &cx, writer)?;
    finish(py, writer)
}

/// Walks `obj` as `packb` does, reading every value and writing nothing (the `walk-probe`
/// feature's measurement of the reading alone).
#[cfg(feature = "walk-probe")]
pub fn walk<'py>(py: Python<'py>, obj: &Bound<'py, PyAny>, opts: Opt) -> PyResult<()> {
    let hooks = Hooks {
        default: None,
        registry: None,
        ext_tuple: std::ptr::null_mut(),
    };
    let cx = context(py, hooks, opts)?;
    let mut emitter = crate::emit::WalkEmitter;
    dispatch::write(Ref::of_bound(obj), start(opts, &cx), &cx, &mut emitter)?;
    Ok(())
}

/// `buffer_callback` and `buffer_threshold`: buffers of at least that many bytes are offered to
/// the callback.
pub type OobArgs<'a, 'py> = Option<(&'a Bound<'py, PyAny>, usize)>;

/// Sends the out-of-band buffers of this call to `oob`'s callback.
fn set_oob<'a, 'py: 'a>(py: Python<'py>, cx: &mut Ctx<'a>, oob: OobArgs<'a, 'py>) -> PyResult<()> {
    if let Some((callback, threshold)) = oob {
        cx.oob = Some(per_type::oob::Sink {
            callback: Ref::of_bound(callback),
            pickle_buffer: Ref::of_bound(per_type::oob::pickle_buffer_type(py)?.as_any()),
            count: std::cell::Cell::new(0),
        });
        cx.oob_threshold = threshold;
    }
    Ok(())
}

/// Packs `obj` as `packb` does, with out-of-band buffers (`packb(obj, buffer_callback=...)`).
pub fn packb_oob<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    hooks: Hooks<'_, 'py>,
    opts: Opt,
    oob: OobArgs<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut cx = context(py, hooks, opts)?;
    set_oob(py, &mut cx, oob)?;
    let mut scratch = ffi::scratch();
    // SAFETY: as in `packb`.
    let writer = unsafe { BytesWriter::in_scratch(&mut scratch) };
    let writer = write_msgpack(obj, opts, &cx, writer)?;
    finish(py, writer)
}

/// Packs `obj` as `packb` does, into a `bytes` object that starts at `start` bytes (in a scratch
/// buffer, as `packb`, when that is no larger); returns it with its length.
pub fn pack_sized<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    hooks: Hooks<'_, 'py>,
    opts: Opt,
    start: usize,
    oob: OobArgs<'_, 'py>,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let mut cx = context(py, hooks, opts)?;
    set_oob(py, &mut cx, oob)?;
    let mut scratch = ffi::scratch();
    let sized = if start > ffi::SCRATCH_LEN {
        // SAFETY: the GIL is held (`py`).
        unsafe { BytesWriter::with_capacity(start) }.ok()
    } else {
        None
    };
    // Without memory for `start` bytes (only a guess from an earlier output), the output
    // starts in the scratch buffer, as in `packb`.
    let writer = match sized {
        Some(writer) => writer,
        // SAFETY: as in `packb`.
        None => unsafe { BytesWriter::in_scratch(&mut scratch) },
    };
    let writer = write_msgpack(obj, opts, &cx, writer)?;
    let len = writer.written().len();
    Ok((finish(py, writer)?, len))
}

/// Packs `obj` as `packb` does, starting in `buf` (a caller's buffer kept between calls), and
/// hands the finished writer to `done`: the output is in `buf` unless it outgrew it.
pub fn pack_in<'py, R>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    hooks: Hooks<'_, 'py>,
    opts: Opt,
    buf: &mut [std::mem::MaybeUninit<u8>],
    oob: OobArgs<'_, 'py>,
    done: impl FnOnce(BytesWriter) -> PyResult<R>,
) -> PyResult<R> {
    let mut cx = context(py, hooks, opts)?;
    set_oob(py, &mut cx, oob)?;
    // SAFETY: the GIL is held for the whole call (`py`), and `buf` outlives the writer, which
    // `done` consumes (or which is dropped) before this function returns.
    let writer = unsafe { BytesWriter::in_buffer(buf) };
    let writer = write_msgpack(obj, opts, &cx, writer)?;
    done(writer)
}

/// Packs `obj` as `packb` does into buffers that `pieces` owns and takes away as they fill
/// (a snapshot compressed while it is packed); returns how many bytes the last buffer holds.
pub fn pack_in_pieces<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    hooks: Hooks<'_, 'py>,
    opts: Opt,
    pieces: &mut (dyn ffi::Pieces + 'static),
) -> PyResult<usize> {
    let cx = context(py, hooks, opts)?;
    // SAFETY: the GIL is held for the whole call (`py`), and `pieces` outlives the writer,
    // which is dropped before this function returns.
    let writer = unsafe { BytesWriter::in_pieces(pieces) };
    let writer = write_msgpack(obj, opts, &cx, writer)?;
    Ok(writer.position())
}

/// The state at the top of a call: as deep as its hook says, or as [`MAX_ENCODE_DEPTH`].
///
/// [`MAX_ENCODE_DEPTH`]: fastmsgpack_core::limits::MAX_ENCODE_DEPTH
#[inline(always)]
pub fn start(opts: Opt, cx: &Ctx) -> State {
    let depth = match &cx.hook {
        Some(hook) => hook.max_depth,
        None => fastmsgpack_core::limits::MAX_ENCODE_DEPTH,
    };
    State::new(opts, depth)
}

/// Writes `obj` as MessagePack with `writer`, and gives the writer back.
#[inline(always)]
pub fn write_msgpack(
    obj: &Bound<'_, PyAny>,
    opts: Opt,
    cx: &Ctx,
    writer: BytesWriter,
) -> Res<BytesWriter> {
    if opts & opt::JSON_MODEL != 0 {
        let mut emitter = JsonModel::new(MsgpackEmitter::new(writer));
        dispatch::write(Ref::of_bound(obj), start(opts, cx), cx, &mut emitter)?;
        Ok(emitter.into_inner().into_writer())
    } else {
        let mut emitter = MsgpackEmitter::new(writer);
        dispatch::write(Ref::of_bound(obj), start(opts, cx), cx, &mut emitter)?;
        Ok(emitter.into_writer())
    }
}

/// Serializes `obj` as JSON (the same type rules as `packb`) into a new `bytes` object.
pub fn json_dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    hooks: Hooks<'_, 'py>,
    opts: Opt,
) -> PyResult<Bound<'py, PyAny>> {
    let cx = context(py, hooks, opts)?;
    let mut scratch = ffi::scratch();
    // SAFETY: as in `packb`.
    let writer = unsafe { BytesWriter::in_scratch(&mut scratch) };
    let mut writer = if opts & opt::INDENT_2 != 0 {
        write_json::<true>(Ref::of_bound(obj), opts, &cx, writer)?
    } else {
        write_json::<false>(Ref::of_bound(obj), opts, &cx, writer)?
    };
    if opts & opt::APPEND_NEWLINE != 0 {
        writer.put(b"\n")?;
    }
    finish(py, writer)
}

fn write_json<const INDENT: bool>(
    obj: Ref<'_>,
    opts: Opt,
    cx: &Ctx,
    writer: BytesWriter,
) -> Res<BytesWriter> {
    let mut emitter = JsonEmitter::<INDENT>::new(writer);
    dispatch::write(obj, start(opts, cx), cx, &mut emitter)?;
    Ok(emitter.into_writer())
}

pub fn finish(py: Python<'_>, writer: BytesWriter) -> PyResult<Bound<'_, PyAny>> {
    let bytes = writer.finish()?;
    // SAFETY: `finish` hands over a strong reference to a complete bytes object.
    Ok(unsafe { Bound::from_owned_ptr(py, bytes) })
}
