//! The two exception classes, real subclasses of `TypeError` and `ValueError`.

use crate::intern;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// An exception class made once per interpreter (as `pyo3::create_exception!` makes one per
/// process): `py.get_type::<Name>()`, `Name::new_err(...)` and `err.is_instance_of::<Name>(py)`
/// reach the class of the interpreter the call runs in.
#[macro_export]
macro_rules! exception {
    ($module:literal, $name:ident, $base:ty, $doc:literal) => {
        #[doc = $doc]
        #[repr(transparent)]
        pub struct $name(pyo3::PyAny);

        impl pyo3::types::DerefToPyAny for $name {}

        // SAFETY: `type_object_raw` always gives a live type object whose instances are
        // exception objects (a subclass of `$base`, or `$base` itself if making it failed), so
        // the layout of `PyAny` fits them.
        unsafe impl pyo3::type_object::PyTypeInfo for $name {
            #[inline]
            fn type_object_raw(py: pyo3::Python<'_>) -> *mut pyo3::ffi::PyTypeObject {
                static TYPE: $crate::ffi::PerInterp<pyo3::Py<pyo3::types::PyType>> =
                    $crate::ffi::PerInterp::new();
                let made = TYPE.get_or_try_init(py, || {
                    pyo3::PyErr::new_type(
                        py,
                        pyo3::ffi::c_str!(concat!($module, ".", stringify!($name))),
                        Some(pyo3::ffi::c_str!($doc)),
                        Some(&py.get_type::<$base>()),
                        None,
                    )
                });
                match made {
                    Ok(class) => class.as_ptr().cast(),
                    Err(err) => $crate::exc::class_not_made(py, err, || {
                        <$base as pyo3::type_object::PyTypeInfo>::type_object_raw(py)
                    }),
                }
            }
        }

        impl pyo3::ToPyErr for $name {}

        impl $name {
            /// An error of this class, with `args` as its arguments, made at once in the
            /// interpreter the call runs in (see [`crate::exc::settled`]).
            #[inline]
            pub fn new_err<A>(args: A) -> pyo3::PyErr
            where
                A: pyo3::PyErrArguments + Send + Sync + 'static,
            {
                // Every caller runs inside a call from Python (PyO3's trampolines count the
                // thread as attached), so `attach` only takes the token.
                pyo3::Python::attach(|py| {
                    $crate::exc::settled(py, pyo3::PyErr::new::<$name, A>(args))
                })
            }
        }
    };
}

/// `err` with its exception object made, here, in the interpreter the call runs in.
///
/// pyo3 makes the object of an error created lazily (`new_err`) the first time it is looked at
/// (`value`, `get_type`, `is_instance_of`), after detaching the thread and attaching it again
/// with `PyGILState_Ensure`, which in a subinterpreter attaches the main interpreter's thread
/// state: the object, and the class looked up for it, would be the main interpreter's. Raising
/// it here and fetching it back makes the object on this thread state.
#[cold]
pub fn settled(py: Python<'_>, err: PyErr) -> PyErr {
    err.restore(py);
    PyErr::fetch(py)
}

/// Making an exception class failed (out of memory): reported as unraisable, and its base
/// class stands in, so that raising still gives an error of the right family.
#[cold]
pub fn class_not_made(
    py: Python<'_>,
    err: PyErr,
    base: impl FnOnce() -> *mut pyo3::ffi::PyTypeObject,
) -> *mut pyo3::ffi::PyTypeObject {
    err.write_unraisable(py, None);
    base()
}

exception!(
    "fastmsgpack",
    MsgpackEncodeError,
    PyTypeError,
    "An object could not be packed. Subclass of TypeError."
);
exception!(
    "fastmsgpack",
    MsgpackDecodeError,
    PyValueError,
    "Input is not valid MessagePack, or a value could not be built from it. Subclass of ValueError."
);

// Named after the module that exports it, so that the name a traceback shows is importable.
exception!(
    "fastmsgpack.json",
    JSONEncodeError,
    MsgpackEncodeError,
    "An object could not be written as JSON. Subclass of MsgpackEncodeError (and so of TypeError)."
);

exception!(
    "fastmsgpack",
    OutOfData,
    MsgpackDecodeError,
    "Unpacker.unpack() or skip() found no complete object in what was fed or read. Subclass of \
     MsgpackDecodeError."
);
exception!(
    "fastmsgpack",
    BufferFull,
    MsgpackDecodeError,
    "Unpacker: holding more would go over max_buffer_size. Subclass of MsgpackDecodeError."
);

exception!(
    "fastmsgpack",
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
    let err = settled(py, err);
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
