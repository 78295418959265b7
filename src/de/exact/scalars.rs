//! Big ints, `complex`, `UUID` and `Decimal`, built from the core's values of their payloads.

use fastmsgpack_core::exact::{self as code, BigInt, Complex, Decimal, Uuid};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt};

use super::{malformed, refused, Exact};
use crate::de::error::DeError;
use crate::de::reader::DeResult;
use crate::ffi::{self, Owned};

/// `int.from_bytes(data, "big", signed=True)`, at most [`code::MAX_BIG_INT_BYTES`] bytes.
pub fn big_int(data: &[u8], start: usize) -> DeResult<Owned> {
    let value = BigInt::read(data).map_err(|why| malformed(code::BIG_INT, why, start))?;
    // SAFETY: the decoder runs attached.
    let py = unsafe { Python::assume_attached() };
    let kwargs = PyDict::new(py);
    kwargs.set_item(crate::intern!(py, "signed"), true)?;
    let int = py.get_type::<PyInt>().call_method(
        crate::intern!(py, "from_bytes"),
        (PyBytes::new(py, value.as_bytes()), "big"),
        Some(&kwargs),
    )?;
    Ok(Owned::from_bound(int))
}

pub fn complex(data: &[u8], start: usize) -> DeResult<Owned> {
    let Complex { re, im } =
        Complex::read(data).map_err(|why| malformed(code::COMPLEX, why, start))?;
    // SAFETY: attached.
    Ok(unsafe { ffi::new_complex(re, im) }?)
}

/// A UUID made as `UUID.__init__` makes one: its `int` and `is_safe` slots set directly.
pub fn uuid(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let Uuid(value) = Uuid::read(data).map_err(|why| malformed(code::UUID, why, start))?;
    let h = exact.handles;
    // SAFETY: attached; `UUID.__new__` is `object.__new__`, and its constructor sets the same
    // two slots.
    unsafe {
        let int = ffi::new_u128(value).ok_or_else(|| DeError::python(ffi::fetch_error()))?;
        let obj = ffi::object_new(exact.known.uuid.cast())?;
        ffi::set_attr_direct(obj.as_ptr(), h.names.int, int.as_ptr())?;
        ffi::set_attr_direct(obj.as_ptr(), h.names.is_safe, h.uuid_safe_unknown)?;
        Ok(obj)
    }
}

/// A Decimal from the scientific text of the core's value (`-125E-2`, `sNaN4`).
pub fn decimal(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let value = Decimal::read(data).map_err(|why| malformed(code::DECIMAL, why, start))?;
    let text = value.text();
    // SAFETY: attached; the text is ASCII.
    unsafe {
        let arg = ffi::new_ascii_str(text.as_bytes())
            .ok_or_else(|| DeError::python(ffi::fetch_error()))?;
        ffi::call1(exact.known.decimal.cast(), arg.as_ptr())
            .map_err(|cause| refused(code::DECIMAL, cause, start))
    }
}
