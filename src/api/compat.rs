//! The entry points of `fastmsgpack.compat` ([`crate::compat`]): `_unpackb_compat`, which
//! decodes with msgpack-python's options (a [`CompatOptions`]), `_packb_compat`, which packs as
//! msgpack-python's `Packer`, and `_set_compat_ext_type`, which names compat's classes once.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView, PyType};

use crate::compat::decode::{self, options::CompatOptions};
use crate::compat::{self, pack};
use crate::de;

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
    let copy;
    let data = match contiguous_copy(data)? {
        Some(c) => {
            copy = c;
            &copy
        }
        None => data,
    };
    let mut holder = None;
    let input = de::input_of(py, data, &mut holder, "unpackb() argument")?;
    let (value, end) = decode::decode_at(py, input, 0, o).map_err(|e| o.error(py, e))?;
    if end < input.len() {
        let extra = PyBytes::new(py, &input[end..]);
        let exc = o.extra_data.bind(py).call1((value, extra))?;
        return Err(PyErr::from_value(exc));
    }
    Ok(value)
}

/// A copy of `data` in one piece when it is a memoryview that is not C-contiguous (a strided
/// slice): msgpack-python reads such a buffer from a contiguous copy.
#[inline(always)]
pub fn contiguous_copy<'py>(data: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if !data.is_instance_of::<PyMemoryView>() {
        return Ok(None);
    }
    copy_if_strided(data)
}

#[cold]
fn copy_if_strided<'py>(data: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = data.py();
    if data
        .getattr(crate::intern!(py, "c_contiguous"))?
        .is_truthy()?
    {
        return Ok(None);
    }
    Ok(Some(data.call_method0(crate::intern!(py, "tobytes"))?))
}

/// Packs `obj` as `packb(obj, default, option)` does, with msgpack-python's `use_bin_type`,
/// `use_single_float` and `unicode_errors` (a codec error handler's name, as ASCII bytes), the
/// output starting with room for `start` bytes (see [`pack::packb`]).
///
/// `default` is the `Packer`'s own conversion, which ends by calling its user's `default`;
/// `user_default`, when given, is that user's `default`, called directly for the objects the
/// conversion would hand it unchanged ([`crate::ser::hook`] says which). What
/// either raises propagates as it is, as in msgpack-python.
#[pyfunction]
#[pyo3(signature = (obj, default, option, use_bin_type=true, use_single_float=false,
                    unicode_errors=None, start=0, user_default=None, /))]
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
    user_default: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if option & !crate::opt::PACKB_MASK != 0 {
        return Err(PyValueError::new_err("invalid option"));
    }
    let unicode_errors = unicode_errors
        .map(std::ffi::CString::new)
        .transpose()
        .map_err(|_| PyValueError::new_err("unicode_errors holds a NUL byte"))?;
    let legacies = pack::Legacies {
        old_spec: !use_bin_type,
        single_float: use_single_float,
        unicode_errors,
    };
    let defaults = (default, user_default.filter(|d| !d.is_none()));
    pack::packb(py, obj, defaults, option, legacies, start)
}

/// Registers `fastmsgpack.compat`'s `ExtType`, a named tuple class, so that `packb` hands its
/// instances to `default` instead of packing them as arrays (compat's `Packer` packs an `ExtType`
/// itself as an extension value), and its `Timestamp`, which that `Packer` converts before any
/// `default` of its user's. Called once, when `fastmsgpack.compat` is imported.
#[pyfunction]
#[pyo3(signature = (cls, timestamp, /))]
pub fn _set_compat_ext_type(cls: &Bound<'_, PyType>, timestamp: &Bound<'_, PyType>) {
    compat::set(cls.py(), cls.clone().unbind(), timestamp.clone().unbind());
}
