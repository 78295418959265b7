//! fastmsgpack: fast, correct MessagePack for Python.
//!
//! Layout: [`ffi`] is the only module that touches the raw CPython API; [`ser`] classifies each
//! object once and dispatches to per-type writers that drive an [`emit::Emitter`]; [`de`] reads
//! MessagePack into Python objects; [`opt`] holds the option bits; [`packer`] is the `Packer`
//! class, which packs message after message with what the earlier ones needed.

mod compat;
mod de;
mod decoder;
mod emit;
mod error;
mod exact;
mod exc;
mod ext;
mod ffi;
mod fragment;
mod json;
mod oob;
mod opt;
mod packer;
mod registry;
mod ser;
mod snapshot;
mod stack;
mod unpacker;
mod view;

// The pure-Rust core (core/), under the names the crate has always used.
use fastmsgpack_core::{calendar, limits};

use pyo3::prelude::*;

use exc::{MsgpackDecodeError, MsgpackEncodeError};
use opt::OptError;

/// `packb(obj, /, default=None, option=None, *, buffer_callback=None, buffer_threshold=None)`,
/// in the module's method table by hand, as `unpackb`: its arguments are read by
/// [`ffi::FastArgs`], so that the keywords of out-of-band buffers cost a plain call nothing.
static PACKB: ffi::MethodDef = ffi::MethodDef::new(
    b"packb\0",
    pyo3::impl_::trampoline::get_trampoline_function!(fastcall_cfunction_with_keywords, packb_fast),
    b"packb(obj, /, default=None, option=None, *, buffer_callback=None, buffer_threshold=None, \
      registry=None)\n\
      --\n\n\
      Packs `obj` as MessagePack and returns the bytes.\n\
      \n\
      Arguments:\n\
      - default: a callable for objects of types not packed natively (and, with the\n\
      \x20\x20OPT_PASSTHROUGH_* options, for those types); what it returns is packed instead.\n\
      - option: OPT_* flags combined with |, or None (OPT_NON_STR_KEYS, OPT_SORT_KEYS,\n\
      \x20\x20OPT_SERIALIZE_PYDANTIC, OPT_EXACT, OPT_JSON_COMPAT, ...: README's option table).\n\
      - buffer_callback: a callable given each buffer of at least buffer_threshold bytes\n\
      \x20\x20(DEFAULT_BUFFER_THRESHOLD unless given) as a pickle.PickleBuffer, out of band.\n\
      - registry: a Registry of your own classes, packed by a code.\n\
      Raises MsgpackEncodeError (its kind, path and type say what and where) and TypeError for\n\
      a bad argument.\n\
      \n\
      Example:\n\
      \x20\x20\x20\x20>>> fastmsgpack.packb({\"id\": 1, \"tags\": [\"a\"]})\n\
      \x20\x20\x20\x20b'\\x82\\xa2id\\x01\\xa4tags\\x91\\xa1a'\n\
      \0",
);

/// The body of `packb`, called by PyO3's trampoline (which turns a panic into an exception).
///
/// # Safety
/// The arguments are those CPython passes to a `METH_FASTCALL | METH_KEYWORDS` function.
unsafe fn packb_fast(
    py: Python<'_>,
    _module: *mut pyo3::ffi::PyObject,
    args: *const *mut pyo3::ffi::PyObject,
    nargsf: pyo3::ffi::Py_ssize_t,
    kwnames: *mut pyo3::ffi::PyObject,
) -> PyResult<*mut pyo3::ffi::PyObject> {
    // SAFETY: `args`, `nargsf` and `kwnames` are what CPython passed to this `METH_FASTCALL |
    // METH_KEYWORDS` function (its precondition), while it runs and with the GIL held: what
    // `FastArgs::new` needs.
    let call = unsafe { ffi::FastArgs::new(args, nargsf, kwnames) };
    // `obj` may be None: it is read from the arguments themselves below.
    let [_, default, option] = call.positionals(py, "packb", 1)?;
    // SAFETY: `positionals` checked that there is at least one positional argument.
    let obj = unsafe { Bound::from_borrowed_ptr(py, *args) };
    let names = [
        pyo3::intern!(py, "default"),
        pyo3::intern!(py, "option"),
        pyo3::intern!(py, "buffer_callback"),
        pyo3::intern!(py, "buffer_threshold"),
        pyo3::intern!(py, "registry"),
    ];
    let [kw_default, kw_option, callback, threshold, registry] =
        // `default` and `option` may also come by position, after `obj`.
        call.keywords(py, "packb", names, call.positional_count().saturating_sub(1))?;
    let default = one_of(default, kw_default, "default")?;
    let option = one_of(option, kw_option, "option")?;
    let opts = opt::parse_for_packing(option.as_deref(), "packb")?;
    opt::check_hook(default.as_deref(), "default")?;
    opt::check_hook(callback.as_deref(), "buffer_callback")?;
    let registry = registry::table_of(registry.as_deref())?;
    let value = match callback {
        None => ser::packb(py, &obj, (default.as_deref(), registry), opts)?,
        Some(callback) => oob::packb(
            py,
            &obj,
            default.as_deref(),
            opts,
            callback.to_owned(),
            threshold.as_deref(),
        )?,
    };
    Ok(value.into_ptr())
}

/// An argument given by position or by keyword, not both.
#[inline(always)]
fn one_of<'a, 'py>(
    positional: Option<pyo3::Borrowed<'a, 'py, PyAny>>,
    keyword: Option<pyo3::Borrowed<'a, 'py, PyAny>>,
    name: &str,
) -> PyResult<Option<pyo3::Borrowed<'a, 'py, PyAny>>> {
    match (positional, keyword) {
        (Some(_), Some(_)) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "packb() got multiple values for argument '{name}'"
        ))),
        (p, k) => Ok(p.or(k)),
    }
}

/// Packs `obj` as `packb` does (the same `default`, `option` and `registry`) and writes the
/// bytes to `fp`, anything with a `write()` method, with one call of `fp.write`.
///
/// Example:
///     >>> out = io.BytesIO(); fastmsgpack.pack([1, 2], out); out.getvalue()
///     b'\x92\x01\x02'
#[pyfunction]
#[pyo3(signature = (obj, fp, /, default=None, option=None, *, registry=None))]
fn pack<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    fp: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    option: Option<&Bound<'py, PyAny>>,
    registry: Option<&Bound<'py, PyAny>>,
) -> PyResult<()> {
    let opts = opt::parse_for_packing(option, "pack")?;
    opt::check_hook(default, "default")?;
    let registry = registry::table_of(registry)?;
    // Looked up first: a wrong `fp` fails before any packing.
    let write = fp
        .getattr(pyo3::intern!(py, "write"))
        .map_err(|cause| no_write_method(fp, cause))?;
    let bytes = ser::packb(py, obj, (default, registry), opts)?;
    write.call1((bytes,))?;
    Ok(())
}

/// `packb`'s walk over `obj` with nothing written: the reading alone, for measurements
/// (`scripts/profile_row.py`'s `walk` library; only in builds with the `walk-probe` feature).
#[cfg(feature = "walk-probe")]
#[pyfunction]
#[pyo3(signature = (obj, /))]
fn _walk(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<()> {
    ser::walk(py, obj, 0)
}

#[cold]
fn no_write_method(fp: &Bound<'_, PyAny>, cause: PyErr) -> PyErr {
    if !cause.is_instance_of::<pyo3::exceptions::PyAttributeError>(fp.py()) {
        return cause;
    }
    let ty = fp
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    let err = pyo3::exceptions::PyTypeError::new_err(format!(
        "fp must have a write() method (a file opened for writing in binary mode, io.BytesIO, \
         ...); {ty} has none"
    ));
    err.set_cause(fp.py(), Some(cause));
    err
}

/// `unpackb(data, /, *, ext_hook=None, option=None, type=None, dec_hook=None, buffers=None)`, in
/// the module's method table by hand: its arguments are read by [`ffi::FastArgs`], not by PyO3's
/// generic
/// extraction, which cost 159 instructions a call (callgrind), about 2% of a small message.
static UNPACKB: ffi::MethodDef = ffi::MethodDef::new(
    b"unpackb\0",
    pyo3::impl_::trampoline::get_trampoline_function!(
        fastcall_cfunction_with_keywords,
        unpackb_fast
    ),
    b"unpackb(data, /, *, ext_hook=None, option=None, type=None, dec_hook=None, buffers=None, \
      registry=None)\n--\n\n\
      Unpacks the one MessagePack object `data` holds: bytes, bytearray, a C-contiguous\n\
      memoryview, or an mmap of a file (read where it lies, without a copy).\n\
      \n\
      Arguments:\n\
      - ext_hook: a callable ext_hook(tag, data) for extension values (else Ext values).\n\
      - option: OPT_* flags combined with | (OPT_NON_STR_KEYS, OPT_DATETIME_AS_TIMESTAMP_EXT,\n\
      \x20\x20OPT_NUMPY_RAW, OPT_EXACT, OPT_BIN_MEMORYVIEW; OPT_FORBID_UNKNOWN_FIELDS with type).\n\
      - type: decode into this type (dataclass, pydantic model, TypedDict, list[T], ...),\n\
      \x20\x20checked as it is read; ValidationError names the path of a value that does not fit.\n\
      - dec_hook: a callable dec_hook(type, obj) for types fastmsgpack cannot build itself.\n\
      - buffers: the out-of-band buffers of a message packed with buffer_callback.\n\
      - registry: the Registry the message was packed with.\n\
      Raises MsgpackDecodeError (kind, reason and offset say what and where).\n\
      \n\
      Example:\n\
      \x20\x20\x20\x20>>> fastmsgpack.unpackb(b'\\x82\\xa2id\\x01\\xa4tags\\x91\\xa1a')\n\
      \x20\x20\x20\x20{'id': 1, 'tags': ['a']}\n\
      \0",
);

/// The body of `unpackb`, called by PyO3's trampoline (which turns a panic into an exception).
///
/// # Safety
/// The arguments are those CPython passes to a `METH_FASTCALL | METH_KEYWORDS` function.
unsafe fn unpackb_fast(
    py: Python<'_>,
    _module: *mut pyo3::ffi::PyObject,
    args: *const *mut pyo3::ffi::PyObject,
    nargsf: pyo3::ffi::Py_ssize_t,
    kwnames: *mut pyo3::ffi::PyObject,
) -> PyResult<*mut pyo3::ffi::PyObject> {
    // SAFETY: `args`, `nargsf` and `kwnames` are what CPython passed to this `METH_FASTCALL |
    // METH_KEYWORDS` function (its precondition), while it runs and with the GIL held: what
    // `FastArgs::new` needs.
    let call = unsafe { ffi::FastArgs::new(args, nargsf, kwnames) };
    let data = call.only_positional(py, "unpackb")?;
    let names = [
        pyo3::intern!(py, "ext_hook"),
        pyo3::intern!(py, "option"),
        pyo3::intern!(py, "type"),
        pyo3::intern!(py, "dec_hook"),
        pyo3::intern!(py, "buffers"),
        pyo3::intern!(py, "registry"),
    ];
    let [ext_hook, option, tp, dec_hook, buffers, registry] =
        call.keywords(py, "unpackb", names, 0)?;
    let opts = opt::parse_for_reading(option.as_deref(), opt::UNPACKB_MASK, "unpackb")?;
    opt::check_hook(ext_hook.as_deref(), "ext_hook")?;
    opt::check_hook(dec_hook.as_deref(), "dec_hook")?;
    if tp.as_deref().is_none_or(|t| t.is_none()) {
        opt::check_untyped(opts, "unpackb")?;
    }
    let registry = registry::table_of(registry.as_deref())?;
    let what = "unpackb() argument";
    let value = match tp {
        Some(tp) => de::unpackb_typed(
            py,
            &data,
            ext_hook.as_deref(),
            opts,
            what,
            &tp,
            dec_hook.as_deref(),
            buffers.as_deref(),
            registry,
        )?,
        None if registry.is_none() && opts & opt::EXACT == 0 => de::unpackb(
            py,
            &data,
            ext_hook.as_deref(),
            opts,
            what,
            buffers.as_deref(),
        )?,
        None => de::unpackb_exact(
            py,
            &data,
            ext_hook.as_deref(),
            opts,
            what,
            buffers.as_deref(),
            registry,
        )?,
    };
    Ok(value.into_ptr())
}

/// Unpacks the one MessagePack object that `fp.read()` returns (all of it), as `unpackb`
/// does, with the same `ext_hook`, `option`, `type`, `dec_hook`, `buffers` and `registry`.
///
/// Example:
///     >>> fastmsgpack.unpack(io.BytesIO(b'\x92\x01\x02'))
///     [1, 2]
#[pyfunction]
#[pyo3(signature = (fp, /, *, ext_hook=None, option=None, r#type=None, dec_hook=None, buffers=None,
                    registry=None))]
#[allow(clippy::too_many_arguments)]
fn unpack<'py>(
    py: Python<'py>,
    fp: &Bound<'py, PyAny>,
    ext_hook: Option<&Bound<'py, PyAny>>,
    option: Option<&Bound<'py, PyAny>>,
    r#type: Option<&Bound<'py, PyAny>>,
    dec_hook: Option<&Bound<'py, PyAny>>,
    buffers: Option<&Bound<'py, PyAny>>,
    registry: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = opt::parse_for_reading(option, opt::UNPACKB_MASK, "unpack")?;
    opt::check_hook(ext_hook, "ext_hook")?;
    opt::check_hook(dec_hook, "dec_hook")?;
    if r#type.is_none_or(|t| t.is_none()) {
        opt::check_untyped(opts, "unpack")?;
    }
    let registry = registry::table_of(registry)?;
    let data = fp.call_method0("read")?;
    let what = "what unpack()'s fp.read() returns";
    match r#type {
        Some(tp) if !tp.is_none() => {
            let dec_hook = dec_hook.filter(|h| !h.is_none());
            de::unpackb_typed(
                py, &data, ext_hook, opts, what, tp, dec_hook, buffers, registry,
            )
        }
        _ => match registry {
            None if opts & opt::EXACT == 0 => de::unpackb(py, &data, ext_hook, opts, what, buffers),
            registry => de::unpackb_exact(py, &data, ext_hook, opts, what, buffers, registry),
        },
    }
}

/// Serializes `obj` as JSON bytes, with the type rules, `default` and options of `packb`
/// (dataclasses, datetimes, UUIDs, enums, sets, named tuples...), plus the JSON options
/// OPT_INDENT_2, OPT_APPEND_NEWLINE and OPT_STRICT_INTEGER. Raises JSONEncodeError.
///
/// Example:
///     >>> fastmsgpack.json.dumps({"id": 1, "at": datetime.date(2024, 5, 17)})
///     b'{"id":1,"at":"2024-05-17"}'
#[pyfunction]
#[pyo3(signature = (obj, /, default=None, option=None))]
fn json_dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    option: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = opt::parse(option, opt::JSON_DUMPS_MASK, "json.dumps").map_err(|e| match e {
        OptError::NotAnInt(msg) | OptError::Invalid(msg) => exc::JSONEncodeError::new_err(msg),
    })?;
    opt::check_hook(default, "default")?;
    json::dumps(py, obj, default, opts)
}

/// The one MessagePack object in `data` (bytes-like) as JSON bytes, transcoded without
/// building Python objects: the bytes `json.dumps(unpackb(data))` gives. `option`:
/// OPT_NON_STR_KEYS, OPT_INDENT_2, OPT_APPEND_NEWLINE.
///
/// Example:
///     >>> fastmsgpack.json.from_msgpack(b'\x92\x01\xc0')
///     b'[1,null]'
#[pyfunction]
#[pyo3(signature = (data, /, option=None))]
fn json_from_msgpack<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    option: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = parse_from_msgpack_option(option)?;
    json::from_msgpack(py, data, opts)
}

/// The MessagePack object that starts at `offset`, as JSON, and its end offset.
#[pyfunction]
#[pyo3(signature = (data, offset, /, option=None))]
fn _json_from_msgpack_at<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    offset: usize,
    option: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let opts = parse_from_msgpack_option(option)?;
    json::from_msgpack_at(py, data, offset, opts)
}

fn parse_from_msgpack_option(option: Option<&Bound<'_, PyAny>>) -> PyResult<opt::Opt> {
    opt::parse_for_reading(option, opt::JSON_FROM_MSGPACK_MASK, "json.from_msgpack")
}

// Safe without the GIL: on free-threaded builds the walks own what they read from containers
// other threads can change (src/ffi/sync.rs), and shared caches are locked or per thread
// (doc/threads.md). A free-threaded interpreter keeps the GIL off when it imports this module.
#[pymodule(gil_used = false)]
fn _fastmsgpack(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    ffi::verify_text_layout(py)?;
    ffi::verify_refcount(py);
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("packb", PACKB.function(py, &m.name()?)?)?;
    m.add_function(wrap_pyfunction!(pack, m)?)?;
    m.add_function(wrap_pyfunction!(oob::packb_frames, m)?)?;
    m.add("BUFFER_EXT_TYPE", oob::TAG)?;
    m.add("DEFAULT_BUFFER_THRESHOLD", oob::DEFAULT_THRESHOLD)?;
    m.add("unpackb", UNPACKB.function(py, &m.name()?)?)?;
    m.add_function(wrap_pyfunction!(unpack, m)?)?;
    m.add_function(wrap_pyfunction!(json_dumps, m)?)?;
    m.add_function(wrap_pyfunction!(json_from_msgpack, m)?)?;
    m.add_function(wrap_pyfunction!(_json_from_msgpack_at, m)?)?;
    m.add("JSONEncodeError", py.get_type::<exc::JSONEncodeError>())?;
    m.add_class::<ext::Ext>()?;
    m.add_class::<fragment::Fragment>()?;
    m.add_class::<packer::Packer>()?;
    m.add_class::<registry::Registry>()?;
    m.add("JsonFragment", py.get_type::<fragment::JsonFragment>())?;
    m.add("MsgpackEncodeError", py.get_type::<MsgpackEncodeError>())?;
    m.add("MsgpackDecodeError", py.get_type::<MsgpackDecodeError>())?;
    m.add("ValidationError", py.get_type::<exc::ValidationError>())?;
    exc::add_data_defaults(py)?;
    m.add_class::<de::typed::plan::TypePlan>()?;
    m.add_function(wrap_pyfunction!(de::typed::cache::_plan_cache_size, m)?)?;
    m.add("_PLAN_CACHE_CAPACITY", de::typed::cache::CAPACITY)?;
    m.add("OutOfData", py.get_type::<exc::OutOfData>())?;
    m.add("BufferFull", py.get_type::<exc::BufferFull>())?;
    m.add_class::<unpacker::Unpacker>()?;
    m.add_class::<unpacker::AsyncObjects>()?;
    unpacker::install_aio(py);
    m.add_class::<decoder::Decoder>()?;
    m.add_class::<de::compat::options::CompatOptions>()?;
    m.add_function(wrap_pyfunction!(compat::_unpackb_compat, m)?)?;
    m.add_function(wrap_pyfunction!(compat::_packb_compat, m)?)?;
    m.add_function(wrap_pyfunction!(compat::_set_compat_ext_type, m)?)?;
    m.add_class::<view::MapView>()?;
    m.add_class::<view::ArrayView>()?;
    m.add_function(wrap_pyfunction!(view::_view, m)?)?;
    snapshot::add(m)?;
    #[cfg(feature = "walk-probe")]
    m.add_function(wrap_pyfunction!(_walk, m)?)?;
    #[cfg(feature = "walk-probe")]
    m.add_class::<ser::native_probe::NativeRoute>()?;
    for (name, bit) in opt::ALL {
        m.add(*name, *bit)?;
    }
    // The option list for the Python side: `fastmsgpack.__all__`, the stubs and the docs' tables
    // are made from it (scripts/options.py) and tested against it.
    m.add("_OPTIONS", opt::ALL.to_vec())?;
    m.add("_OPTION_MASKS", opt::ENTRY_POINTS.to_vec())?;
    m.add(
        "_ENCODE_KINDS",
        error::KINDS.iter().map(|k| k.name()).collect::<Vec<_>>(),
    )?;
    Ok(())
}
