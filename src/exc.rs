//! The two exception classes, real subclasses of `TypeError` and `ValueError`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::{create_exception, intern};

create_exception!(
    fastmsgpack,
    MsgpackEncodeError,
    PyTypeError,
    "An object could not be packed. Subclass of TypeError."
);
create_exception!(
    fastmsgpack,
    MsgpackDecodeError,
    PyValueError,
    "Input is not valid MessagePack, or a value could not be built from it. Subclass of ValueError."
);

// Named after the module that exports it, so that the name a traceback shows is importable.
create_exception!(
    fastmsgpack.json,
    JSONEncodeError,
    MsgpackEncodeError,
    "An object could not be written as JSON. Subclass of MsgpackEncodeError (and so of TypeError)."
);

create_exception!(
    fastmsgpack,
    OutOfData,
    MsgpackDecodeError,
    "Unpacker.unpack() or skip() found no complete object in what was fed or read. Subclass of \
     MsgpackDecodeError."
);
create_exception!(
    fastmsgpack,
    BufferFull,
    MsgpackDecodeError,
    "Unpacker: holding more would go over max_buffer_size. Subclass of MsgpackDecodeError."
);

create_exception!(
    fastmsgpack,
    ValidationError,
    MsgpackDecodeError,
    "unpackb(data, type=T): the input is MessagePack, but a value does not fit T (the message \
     names the expected type, what was found and where, as a path such as $.stops[3].at). \
     Subclass of MsgpackDecodeError."
);

/// The attributes that make an error data: code reads these instead of parsing messages.
///
/// - `kind`: what went wrong, as a short lowercase name (`"truncated"`, `"too_deep"`, ...);
/// - `reason`: the same in words, without the location;
/// - `offset`: the byte offset in the input of the value at fault (from the start of the stream
///   for `Unpacker`);
/// - `path` (`ValidationError` only): where in the value, as `$.stops[1].id`.
///
/// The classes hold `None` for each, so an error raised without them (an invalid `option`)
/// still has every attribute.
pub struct ErrorData<'a> {
    pub kind: &'static str,
    pub reason: &'a str,
    pub offset: Option<usize>,
    pub path: Option<&'a str>,
}

/// `err`, an instance of one of the classes above, with `data` set as its attributes.
#[cold]
pub fn with_data(err: PyErr, data: &ErrorData<'_>) -> PyErr {
    // SAFETY: errors are only built while attached to the interpreter (the GIL held), which is
    // all `assume_attached` requires; the token does not outlive this call.
    let py = unsafe { Python::assume_attached() };
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr(intern!(py, "kind"), data.kind)?;
        value.setattr(intern!(py, "reason"), data.reason)?;
        value.setattr(intern!(py, "offset"), data.offset)?;
        if let Some(path) = data.path {
            value.setattr(intern!(py, "path"), path)?;
        }
        Ok(())
    };
    match set() {
        Ok(()) => err,
        // Out of memory while setting them: that error, not one without its data.
        Err(failed) => failed,
    }
}

/// Sets the attributes of [`ErrorData`] to `None` on the classes, the module's defaults.
pub fn add_data_defaults(py: Python<'_>) -> PyResult<()> {
    for class in [
        py.get_type::<MsgpackDecodeError>(),
        py.get_type::<JSONEncodeError>(),
    ] {
        for name in ["kind", "reason", "offset"] {
            class.setattr(name, py.None())?;
        }
    }
    // Encode errors: `kind` (one of `fastmsgpack._ENCODE_KINDS`), `path` (`$.rows[3].x`) and
    // `type` (the type refused, where one is).
    for name in ["kind", "path", "type"] {
        py.get_type::<MsgpackEncodeError>()
            .setattr(name, py.None())?;
    }
    py.get_type::<BufferFull>().setattr("declared", py.None())?;
    py.get_type::<ValidationError>().setattr("path", py.None())
}
