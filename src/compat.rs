//! The core of `fastmsgpack.compat`: msgpack-python's decoding options, parsed once into
//! [`CompatOptions`], and `_unpackb_compat`, which decodes with them (see [`de::compat`]).
//!
//! The Python module supplies the classes msgpack-python's API names (`Timestamp`, `ExtType`,
//! the exceptions), so that the objects and errors are the ones its users import.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyType};

use crate::de::{self, compat, Kind};

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

/// msgpack-python's decoding options, with the classes its results and errors are made of.
#[pyclass(module = "fastmsgpack", frozen)]
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
    pub limits: Limits,
    format_error: Py<PyAny>,
    stack_error: Py<PyAny>,
    extra_data: Py<PyAny>,
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

/// A hook, checked to be callable.
fn hook(value: Option<Bound<'_, PyAny>>, name: &str) -> PyResult<Option<Py<PyAny>>> {
    match value {
        Some(h) if h.is_none() => Ok(None),
        Some(h) if !h.is_callable() => {
            Err(PyTypeError::new_err(format!("`{name}` is not callable")))
        }
        h => Ok(h.map(Bound::unbind)),
    }
}

#[pymethods]
impl CompatOptions {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (*, timestamp_type, ext_hook, format_error, stack_error, extra_data,
                        use_list=true, raw=false, timestamp=0, strict_map_key=true,
                        object_hook=None, object_pairs_hook=None, list_hook=None,
                        unicode_errors=None, max_str_len=-1, max_bin_len=-1,
                        max_array_len=-1, max_map_len=-1, max_ext_len=-1))]
    fn py_new(
        py: Python<'_>,
        timestamp_type: Py<PyAny>,
        ext_hook: Bound<'_, PyAny>,
        format_error: Py<PyAny>,
        stack_error: Py<PyAny>,
        extra_data: Py<PyAny>,
        use_list: bool,
        raw: bool,
        timestamp: i64,
        strict_map_key: bool,
        object_hook: Option<Bound<'_, PyAny>>,
        object_pairs_hook: Option<Bound<'_, PyAny>>,
        list_hook: Option<Bound<'_, PyAny>>,
        unicode_errors: Option<Bound<'_, PyString>>,
        max_str_len: i64,
        max_bin_len: i64,
        max_array_len: i64,
        max_map_len: i64,
        max_ext_len: i64,
    ) -> PyResult<CompatOptions> {
        if !(0..=3).contains(&timestamp) {
            return Err(PyValueError::new_err("timestamp must be 0..3"));
        }
        let object_hook = hook(object_hook, "object_hook")?;
        let object_pairs_hook = hook(object_pairs_hook, "object_pairs_hook")?;
        if object_hook.is_some() && object_pairs_hook.is_some() {
            return Err(PyTypeError::new_err(
                "object_pairs_hook and object_hook are mutually exclusive",
            ));
        }
        let Some(ext_hook) = hook(Some(ext_hook), "ext_hook")? else {
            return Err(PyTypeError::new_err("`ext_hook` is not callable"));
        };
        Ok(CompatOptions {
            use_list,
            raw,
            strict_map_key,
            object_hook,
            object_pairs_hook,
            list_hook: hook(list_hook, "list_hook")?,
            ext_hook,
            timestamp: timestamp as u8,
            timestamp_type,
            unicode_errors: match unicode_errors {
                Some(e) => e.unbind(),
                None => pyo3::intern!(py, "strict").clone().unbind(),
            },
            limits: Limits::new(
                max_str_len,
                max_bin_len,
                max_array_len,
                max_map_len,
                max_ext_len,
            ),
            format_error,
            stack_error,
            extra_data,
        })
    }
}

impl CompatOptions {
    /// A decode error as msgpack-python raises it: `ValueError` for an incomplete input,
    /// `StackError` for nesting too deep, `FormatError` for other malformed input, and what
    /// Python code (a hook, a key's hash) raised as it is.
    #[cold]
    fn error(&self, py: Python<'_>, err: de::DeError) -> PyErr {
        let class = match err.input_kind() {
            None => return err.into_pyerr(),
            Some(Kind::Truncated { .. } | Kind::Empty) => {
                return PyValueError::new_err("Unpack failed: incomplete input")
            }
            Some(Kind::TooDeep) => &self.stack_error,
            Some(_) => &self.format_error,
        };
        let message = err.into_pyerr().value(py).to_string();
        match class.bind(py).call1((message,)) {
            Ok(exc) => PyErr::from_value(exc),
            Err(failed) => failed,
        }
    }
}

/// Decodes the one object that makes up `data` with msgpack-python's options; trailing bytes
/// raise `ExtraData(obj, extra)`.
#[pyfunction]
#[pyo3(signature = (data, options, /))]
pub fn _unpackb_compat<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    options: &Bound<'py, CompatOptions>,
) -> PyResult<Bound<'py, PyAny>> {
    let o = options.get();
    let mut holder = None;
    let input = de::input_of(py, data, &mut holder, "unpackb() argument")?;
    let (value, end) = compat::decode_at(py, input, 0, o).map_err(|e| o.error(py, e))?;
    if end < input.len() {
        let extra = PyBytes::new(py, &input[end..]);
        let exc = o.extra_data.bind(py).call1((value, extra))?;
        return Err(PyErr::from_value(exc));
    }
    Ok(value)
}

/// Packs `obj` as `packb(obj, default, option)` does, with msgpack-python's `use_bin_type`,
/// `use_single_float` and `unicode_errors` (a codec error handler's name, as ASCII bytes), the
/// output starting with room for `start` bytes (see [`crate::ser::packb_compat`]).
#[pyfunction]
#[pyo3(signature = (obj, default, option, use_bin_type, use_single_float, unicode_errors=None,
                    start=0, /))]
#[allow(clippy::too_many_arguments)]
pub fn _packb_compat<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    option: u32,
    use_bin_type: bool,
    use_single_float: bool,
    unicode_errors: Option<&[u8]>,
    start: usize,
) -> PyResult<Bound<'py, PyAny>> {
    if option & !crate::opt::PACKB_MASK != 0 {
        return Err(PyValueError::new_err("invalid option"));
    }
    let unicode_errors = unicode_errors
        .map(std::ffi::CString::new)
        .transpose()
        .map_err(|_| PyValueError::new_err("unicode_errors holds a NUL byte"))?;
    crate::ser::packb_compat(
        py,
        obj,
        default,
        option,
        !use_bin_type,
        use_single_float,
        unicode_errors,
        start,
    )
}

/// Registers `fastmsgpack.compat`'s `ExtType`, a named tuple class, so that `packb` hands its
/// instances to `default` (compat's, which packs them as extension values) instead of packing
/// them as arrays. Called once, when `fastmsgpack.compat` is imported.
#[pyfunction]
#[pyo3(signature = (cls, /))]
pub fn _set_compat_ext_type(cls: &Bound<'_, PyType>) {
    crate::ffi::set_compat_ext_type(cls.clone().unbind());
}
