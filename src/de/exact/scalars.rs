//! Big ints, `complex`, `UUID` and `Decimal` from their fixed payloads.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt};

use super::{bad, refused, Exact};
use crate::de::error::DeError;
use crate::de::reader::DeResult;
use crate::exact as code;
use crate::ffi::{self, Owned};

fn owned(obj: Bound<'_, PyAny>) -> Owned {
    Owned::from_bound(obj)
}

/// `int.from_bytes(data, "big", signed=True)`, at most [`code::MAX_BIG_INT_BYTES`] bytes.
pub fn big_int(data: &[u8], start: usize) -> DeResult<Owned> {
    if data.is_empty() {
        return Err(bad(code::BIG_INT, "empty payload", start));
    }
    if data.len() > code::MAX_BIG_INT_BYTES {
        return Err(bad(
            code::BIG_INT,
            format!(
                "{} bytes is more than the limit of {}",
                data.len(),
                code::MAX_BIG_INT_BYTES
            ),
            start,
        ));
    }
    // SAFETY: the decoder runs attached.
    let py = unsafe { Python::assume_attached() };
    let kwargs = PyDict::new(py);
    kwargs.set_item(crate::intern!(py, "signed"), true)?;
    let int = py.get_type::<PyInt>().call_method(
        crate::intern!(py, "from_bytes"),
        (PyBytes::new(py, data), "big"),
        Some(&kwargs),
    )?;
    Ok(owned(int))
}

pub fn complex(data: &[u8], start: usize) -> DeResult<Owned> {
    let Ok(raw) = <[u8; 16]>::try_from(data) else {
        return Err(bad(
            code::COMPLEX,
            format!("payload must be 16 bytes, not {}", data.len()),
            start,
        ));
    };
    let re = f64::from_be_bytes(raw[..8].try_into().unwrap_or_default());
    let im = f64::from_be_bytes(raw[8..].try_into().unwrap_or_default());
    // SAFETY: attached.
    Ok(unsafe { ffi::new_complex(re, im) }?)
}

/// A UUID made as `UUID.__init__` makes one: its `int` and `is_safe` slots set directly.
pub fn uuid(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let Ok(raw) = <[u8; 16]>::try_from(data) else {
        return Err(bad(
            code::UUID,
            format!("payload must be 16 bytes, not {}", data.len()),
            start,
        ));
    };
    let h = exact.handles;
    // SAFETY: attached; `UUID.__new__` is `object.__new__`, and its constructor sets the same
    // two slots.
    unsafe {
        let int = ffi::new_u128(u128::from_be_bytes(raw))
            .ok_or_else(|| DeError::python(ffi::fetch_error()))?;
        let obj = ffi::object_new(exact.known.uuid.cast())?;
        ffi::set_attr_direct(obj.as_ptr(), h.names.int, int.as_ptr())?;
        ffi::set_attr_direct(obj.as_ptr(), h.names.is_safe, h.uuid_safe_unknown)?;
        Ok(obj)
    }
}

/// A Decimal from its flags, exponent and digits, built from its scientific text.
pub fn decimal(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let text = decimal_text(data).map_err(|why| bad(code::DECIMAL, why, start))?;
    // SAFETY: attached; the text is ASCII.
    unsafe {
        let arg = ffi::new_ascii_str(text.as_bytes())
            .ok_or_else(|| DeError::python(ffi::fetch_error()))?;
        ffi::call1(exact.known.decimal.cast(), arg.as_ptr())
            .map_err(|cause| refused(code::DECIMAL, cause, start))
    }
}

/// The text `Decimal()` reads for a payload, or why the payload is malformed.
pub fn decimal_text(data: &[u8]) -> Result<String, String> {
    let Some((&flags, rest)) = data.split_first() else {
        return Err("empty payload".to_owned());
    };
    if flags & !0b111 != 0 {
        return Err(format!("unknown flags {flags:#04x}"));
    }
    let sign = if flags & code::DEC_NEGATIVE != 0 {
        "-"
    } else {
        ""
    };
    let digits_of = |d: &[u8]| -> Result<String, String> {
        if d.len() > code::MAX_DECIMAL_DIGITS {
            return Err(format!(
                "{} digits is more than the limit of {}",
                d.len(),
                code::MAX_DECIMAL_DIGITS
            ));
        }
        if !d.iter().all(u8::is_ascii_digit) {
            return Err("digits must be ASCII 0-9".to_owned());
        }
        Ok(String::from_utf8_lossy(d).into_owned())
    };
    match flags & 0b110 {
        code::DEC_INFINITE if rest.is_empty() => Ok(format!("{sign}Infinity")),
        code::DEC_INFINITE => Err("an infinity has no digits".to_owned()),
        code::DEC_NAN => Ok(format!("{sign}NaN{}", digits_of(rest)?)),
        code::DEC_SNAN => Ok(format!("{sign}sNaN{}", digits_of(rest)?)),
        _ => {
            if rest.len() < 5 {
                return Err("a finite Decimal needs an exponent and at least one digit".to_owned());
            }
            let exponent = i32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as i64;
            if exponent.abs() > code::MAX_DECIMAL_EXPONENT {
                return Err(format!(
                    "exponent {exponent} is beyond the limit of ±{}",
                    code::MAX_DECIMAL_EXPONENT
                ));
            }
            Ok(format!("{sign}{}E{exponent}", digits_of(&rest[4..])?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::decimal_text;

    #[test]
    fn decimal_texts() {
        assert_eq!(
            decimal_text(&[0, 0xff, 0xff, 0xff, 0xfe, b'1', b'2', b'5']).as_deref(),
            Ok("125E-2")
        );
        assert_eq!(decimal_text(&[3]).as_deref(), Ok("-Infinity"));
        assert_eq!(decimal_text(&[7, b'4']).as_deref(), Ok("-sNaN4"));
        assert!(decimal_text(&[0, 0x7f, 0xff, 0xff, 0xff, b'1']).is_err());
        assert!(decimal_text(&[0, 0, 0, 0, 0]).is_err());
        assert!(decimal_text(&[0, 0, 0, 0, 0, b'x']).is_err());
        assert!(decimal_text(&[8]).is_err());
    }
}
