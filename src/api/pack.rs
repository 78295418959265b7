//! `packb` and `pack`: the arguments read into a [`Pack`] request, then the engine's walk
//! ([`crate::ser`]).

use pyo3::prelude::*;

use super::frames;
use super::request::Pack;
use crate::{ffi, opt, ser};

/// `packb(obj, /, default=None, option=None, *, buffer_callback=None, buffer_threshold=None)`,
/// in the module's method table by hand, as `unpackb`: its arguments are read by
/// [`ffi::FastArgs`], so that the keywords of out-of-band buffers cost a plain call nothing.
pub static PACKB: ffi::MethodDef = ffi::MethodDef::new(
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
        crate::intern!(py, "default"),
        crate::intern!(py, "option"),
        crate::intern!(py, "buffer_callback"),
        crate::intern!(py, "buffer_threshold"),
        crate::intern!(py, "registry"),
    ];
    let [kw_default, kw_option, callback, threshold, registry] =
        // `default` and `option` may also come by position, after `obj`.
        call.keywords(py, "packb", names, call.positional_count().saturating_sub(1))?;
    let default = one_of(default, kw_default, "default")?;
    let option = one_of(option, kw_option, "option")?;
    let request = Pack::parse(
        "packb",
        default.as_deref(),
        option.as_deref(),
        registry.as_deref(),
    )?;
    opt::check_hook(callback.as_deref(), "buffer_callback")?;
    let value = match callback {
        None => ser::packb(py, &obj, request.hooks(py), request.opts)?,
        Some(callback) => frames::packb(py, &obj, &request, &callback, threshold.as_deref())?,
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
pub fn pack<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    fp: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    option: Option<&Bound<'py, PyAny>>,
    registry: Option<&Bound<'py, PyAny>>,
) -> PyResult<()> {
    let request = Pack::parse("pack", default, option, registry)?;
    // Looked up first: a wrong `fp` fails before any packing.
    let write = fp
        .getattr(crate::intern!(py, "write"))
        .map_err(|cause| no_write_method(fp, cause))?;
    let bytes = ser::packb(py, obj, request.hooks(py), request.opts)?;
    write.call1((bytes,))?;
    Ok(())
}

/// `packb`'s walk over `obj` with nothing written: the reading alone, for measurements
/// (`scripts/profile_row.py`'s `walk` library; only in builds with the `walk-probe` feature).
#[cfg(feature = "walk-probe")]
#[pyfunction]
#[pyo3(signature = (obj, /))]
pub fn _walk(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<()> {
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
