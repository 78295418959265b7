//! `unpackb` and `unpack`: the arguments read into the decoder's request
//! ([`request::unpack`]), which decodes ([`crate::de::Request::decode`]).

use pyo3::prelude::*;

use super::request::{self, UnpackArgs};
use crate::{ffi, opt};

/// `unpackb(data, /, *, ext_hook=None, option=None, type=None, dec_hook=None, buffers=None)`, in
/// the module's method table by hand: its arguments are read by [`ffi::FastArgs`], not by PyO3's
/// generic
/// extraction, which cost 159 instructions a call (callgrind), about 2% of a small message.
pub static UNPACKB: ffi::MethodDef = ffi::MethodDef::new(
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
        crate::intern!(py, "ext_hook"),
        crate::intern!(py, "option"),
        crate::intern!(py, "type"),
        crate::intern!(py, "dec_hook"),
        crate::intern!(py, "buffers"),
        crate::intern!(py, "registry"),
    ];
    let [ext_hook, option, tp, dec_hook, buffers, registry] =
        call.keywords(py, "unpackb", names, 0)?;
    let args = UnpackArgs {
        option: option.as_deref(),
        ext_hook: ext_hook.as_deref(),
        tp: tp.as_deref(),
        dec_hook: dec_hook.as_deref(),
        buffers: buffers.as_deref(),
        registry: registry.as_deref(),
    };
    let request = request::unpack("unpackb", opt::UNPACKB_MASK, args)?;
    let value = request.decode(py, &data, "unpackb() argument")?;
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
pub fn unpack<'py>(
    py: Python<'py>,
    fp: &Bound<'py, PyAny>,
    ext_hook: Option<&Bound<'py, PyAny>>,
    option: Option<&Bound<'py, PyAny>>,
    r#type: Option<&Bound<'py, PyAny>>,
    dec_hook: Option<&Bound<'py, PyAny>>,
    buffers: Option<&Bound<'py, PyAny>>,
    registry: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let args = UnpackArgs {
        option,
        ext_hook,
        tp: r#type,
        dec_hook,
        buffers,
        registry,
    };
    let request = request::unpack("unpack", opt::UNPACKB_MASK, args)?;
    let data = fp.call_method0("read")?;
    request.decode(py, &data, "what unpack()'s fp.read() returns")
}
