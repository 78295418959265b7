//! msgpack-python's decoding options, as the compat decoder, the stream scanner and the
//! `Unpacker`'s compat mode read them. They are parsed from Python's keyword arguments in
//! [`crate::opt::compat`].

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::de::error::{DeError, Kind};

/// The longest length each kind of item may declare.
#[derive(Clone, Copy)]
pub struct Limits {
    pub str: usize,
    pub bin: usize,
    pub array: usize,
    pub map: usize,
    pub ext: usize,
    /// Whether any limit is set: without one, headers are not looked at twice.
    pub any: bool,
}

/// A limit given as msgpack-python takes it: -1 (or any negative) for none.
fn limit(value: i64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

impl Limits {
    /// The limits as msgpack-python takes them: a negative one is no limit.
    pub fn new(str: i64, bin: i64, array: i64, map: i64, ext: i64) -> Limits {
        Limits {
            str: limit(str),
            bin: limit(bin),
            array: limit(array),
            map: limit(map),
            ext: limit(ext),
            any: [str, bin, array, map, ext].iter().any(|&l| l >= 0),
        }
    }
}

/// msgpack-python's decoding options, with the classes its results and errors are made of.
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack", frozen)]
pub struct CompatOptions {
    pub use_list: bool,
    pub raw: bool,
    pub strict_map_key: bool,
    pub object_hook: Option<Py<PyAny>>,
    pub object_pairs_hook: Option<Py<PyAny>>,
    pub list_hook: Option<Py<PyAny>>,
    /// Called with `(code, data)` for every extension but timestamps (`ExtType` by default).
    pub ext_hook: Py<PyAny>,
    /// 0 `Timestamp`, 1 float seconds, 2 int nanoseconds, 3 datetime.
    pub timestamp: u8,
    pub timestamp_type: Py<PyAny>,
    pub unicode_errors: Py<PyString>,
    /// Invalid UTF-8 raises (`raw` off, `unicode_errors` "strict"): the stream scanner reports it
    /// as the str arrives.
    pub strict_utf8: bool,
    /// No hook of the caller's is called (`ext_hook` is `ExtType`): an object may be decoded
    /// before it is known to be whole, and decoded again if it was not.
    pub pure: bool,
    pub limits: Limits,
    pub format_error: Py<PyAny>,
    pub stack_error: Py<PyAny>,
    pub extra_data: Py<PyAny>,
    /// The stream's `OutOfData` and `BufferFull` (the core's own when not given).
    pub out_of_data: Option<Py<PyAny>>,
    pub buffer_full: Option<Py<PyAny>>,
}

impl CompatOptions {
    /// A decode error as msgpack-python raises it: `ValueError` for an incomplete input,
    /// `StackError` for nesting too deep, `FormatError` for other malformed input, and what
    /// Python code (a hook, a key's hash) raised as it is.
    #[cold]
    pub fn error(&self, py: Python<'_>, err: DeError) -> PyErr {
        let class = match err.input_kind() {
            None => return err.into_pyerr(),
            Some(Kind::Truncated { .. } | Kind::Empty) => {
                return PyValueError::new_err("Unpack failed: incomplete input")
            }
            Some(Kind::TooDeep) => &self.stack_error,
            Some(_) => &self.format_error,
        };
        let message = err.into_pyerr().value(py).to_string();
        raise(py, class, message)
    }

    /// An error of the stream (`OutOfData`, `BufferFull`) as the class msgpack-python's
    /// `Unpacker` raises.
    #[cold]
    pub fn stream_error(&self, py: Python<'_>, err: PyErr) -> PyErr {
        let class = if err.is_instance_of::<crate::exc::OutOfData>(py) {
            &self.out_of_data
        } else if err.is_instance_of::<crate::exc::BufferFull>(py) {
            &self.buffer_full
        } else {
            return err;
        };
        match class {
            Some(class) => raise(py, class, err.value(py).to_string()),
            None => err,
        }
    }
}

/// `class(message)`, raised.
#[cold]
fn raise(py: Python<'_>, class: &Py<PyAny>, message: String) -> PyErr {
    match class.bind(py).call1((message,)) {
        Ok(exc) => PyErr::from_value(exc),
        Err(failed) => failed,
    }
}
