//! Big ints, `complex`, `UUID` and `Decimal` as fixed binary payloads.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

use crate::emit::Emitter;
use crate::error::Res;
use crate::exact as code;
use crate::exc::MsgpackEncodeError;
use crate::ffi::{self, Ref};
use crate::ser::{error, Ctx};

#[cold]
fn refused(msg: String) -> crate::error::Error {
    crate::error::Error::new(
        crate::error::Kind::InvalidValue,
        MsgpackEncodeError::new_err(msg),
    )
}

/// An `int` outside 64 bits: its big-endian two's complement, in as few bytes as hold it and its
/// sign (`(n if n >= 0 else ~n).bit_length() // 8 + 1`), up to [`code::MAX_BIG_INT_BYTES`].
///
/// # Safety
/// `obj` is a live int; the GIL is held.
#[cold]
pub unsafe fn write_big_int<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: attached (the GIL is held); `obj` is live for the call.
    let py = unsafe { Python::assume_attached() };
    // SAFETY: as above.
    let int = unsafe { Borrowed::from_ptr(py, obj.as_ptr()) };
    // A negative n takes the bits of ~n (= -n - 1) and a sign bit: -2**15 fits 2 bytes.
    let negative = int
        .lt(0)
        .map_err(|c| error::attribute_failed("int comparison raised", c))?;
    let magnitude = if negative {
        int.call_method0(crate::intern!(py, "__invert__"))
    } else {
        Ok(int.to_owned())
    };
    let bits: usize = magnitude
        .and_then(|m| m.call_method0(crate::intern!(py, "bit_length")))
        .and_then(|b| b.extract())
        .map_err(|c| error::attribute_failed("int.bit_length() raised", c))?;
    let len = bits / 8 + 1;
    if len > code::MAX_BIG_INT_BYTES {
        return Err(refused(format!(
            "int of {bits} bits is too large for OPT_EXACT (at most {} bytes)",
            code::MAX_BIG_INT_BYTES
        )));
    }
    let kwargs = PyDict::new(py);
    kwargs
        .set_item(crate::intern!(py, "signed"), true)
        .map_err(|c| error::attribute_failed("int.to_bytes() failed", c))?;
    let bytes = py
        .get_type::<PyInt>()
        .call_method(
            crate::intern!(py, "to_bytes"),
            (int, len, "big"),
            Some(&kwargs),
        )
        .map_err(|c| error::attribute_failed("int.to_bytes() raised", c))?;
    let bytes = bytes
        .cast::<pyo3::types::PyBytes>()
        .map_err(|_| refused("int.to_bytes() did not return bytes".to_owned()))?;
    e.ext(code::BIG_INT, bytes.as_bytes())
}

/// # Safety
/// `obj` is a live complex.
pub unsafe fn write_complex<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live complex (this function's precondition), as `complex_parts` needs.
    let (re, im) = unsafe { ffi::complex_parts(obj.as_ptr()) };
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&re.to_be_bytes());
    out[8..].copy_from_slice(&im.to_be_bytes());
    e.ext(code::COMPLEX, &out)
}

/// A UUID's 128 bits, big-endian (RFC 9562 byte order).
///
/// # Safety
/// `obj` is a live UUID; the GIL is held.
pub unsafe fn write_uuid<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    let k = cx.known;
    if let Some(offset) = k.uuid_int_slot {
        // SAFETY: `obj` is a live exact UUID and the GIL is held (this function's precondition), so
        // `offset` is that of its `int` slot; the slot's int is held by the UUID, and nothing runs
        // Python code before its value is read.
        let value = unsafe { ffi::slot_value(obj.as_ptr(), offset).map(|i| ffi::small_u128(i)) };
        if let Some(Some(v)) = value {
            return e.ext(code::UUID, &v.to_be_bytes());
        }
    }
    // SAFETY: `obj` is a live UUID and `names.int` a str the context holds, with the GIL held (this
    // function's precondition); the result is a new reference.
    let int = unsafe { ffi::get_attr(obj.as_ptr(), k.names.int) }
        .map_err(|c| error::attribute_failed("UUID.int could not be read", c))?;
    // SAFETY: attached; `int` is a live object we own.
    let v: u128 = unsafe { Borrowed::from_ptr(Python::assume_attached(), int.as_ptr()) }
        .extract()
        .map_err(|c| error::attribute_failed("UUID.int is not a 128-bit int", c))?;
    e.ext(code::UUID, &v.to_be_bytes())
}

/// A Decimal: a flags byte (sign, kind), then for a finite one its exponent (i32) and for every
/// kind its coefficient's (or NaN payload's) decimal digits in ASCII. Read from `str(d)`,
/// which keeps them all.
///
/// # Safety
/// `obj` is a live Decimal; the GIL is held.
pub unsafe fn write_decimal<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live Decimal and the GIL is held (this function's precondition), as
    // `to_str` needs; `str()` of a Decimal is an ASCII str owned here.
    let text = unsafe { ffi::to_str(obj.as_ptr()) }
        .map_err(|c| error::attribute_failed("str(Decimal) raised", c))?;
    // SAFETY: `text` is a live str.
    let utf8 = unsafe { ffi::str_utf8(text.as_ptr()) }
        .ok_or_else(|| error::attribute_failed("str(Decimal) is not text", ffi::fetch_error()))?;
    let mut out = Vec::with_capacity(utf8.len() + 5);
    decimal_payload(utf8, &mut out)
        .map_err(|why| refused(format!("Decimal cannot be packed with OPT_EXACT: {why}")))?;
    e.ext(code::DECIMAL, &out)
}

/// The payload of a Decimal from its scientific string (`-1.25E+7`, `0.00`, `sNaN12`,
/// `-Infinity`).
pub fn decimal_payload(text: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let (negative, rest) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    let sign = if negative { code::DEC_NEGATIVE } else { 0 };
    let nan_digits = |digits: &[u8]| -> Result<Vec<u8>, String> {
        let digits: Vec<u8> = digits.iter().copied().skip_while(|&d| d == b'0').collect();
        if !digits.iter().all(u8::is_ascii_digit) || digits.len() > code::MAX_DECIMAL_DIGITS {
            return Err("unreadable NaN payload".to_owned());
        }
        Ok(digits)
    };
    if rest.eq_ignore_ascii_case(b"Infinity") || rest.eq_ignore_ascii_case(b"Inf") {
        out.push(sign | code::DEC_INFINITE);
        return Ok(());
    }
    if rest.len() >= 4 && rest[..4].eq_ignore_ascii_case(b"sNaN") {
        out.push(sign | code::DEC_SNAN);
        out.extend(nan_digits(&rest[4..])?);
        return Ok(());
    }
    if rest.len() >= 3 && rest[..3].eq_ignore_ascii_case(b"NaN") {
        out.push(sign | code::DEC_NAN);
        out.extend(nan_digits(&rest[3..])?);
        return Ok(());
    }
    let (mantissa, exp) = match rest.iter().position(|&c| c == b'e' || c == b'E') {
        Some(at) => {
            let exp = std::str::from_utf8(&rest[at + 1..])
                .ok()
                .and_then(|t| t.parse::<i64>().ok())
                .ok_or("unreadable exponent")?;
            (&rest[..at], exp)
        }
        None => (rest, 0),
    };
    let (int_part, frac) = match mantissa.iter().position(|&c| c == b'.') {
        Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
        None => (mantissa, &mantissa[..0]),
    };
    if int_part.is_empty() && frac.is_empty()
        || !int_part.iter().chain(frac).all(u8::is_ascii_digit)
    {
        return Err("unreadable digits".to_owned());
    }
    let exponent = exp - frac.len() as i64;
    if exponent.abs() > code::MAX_DECIMAL_EXPONENT {
        return Err(format!(
            "exponent {exponent} is beyond ±{}",
            code::MAX_DECIMAL_EXPONENT
        ));
    }
    let mut digits: Vec<u8> = int_part
        .iter()
        .chain(frac)
        .copied()
        .skip_while(|&d| d == b'0')
        .collect();
    if digits.is_empty() {
        digits.push(b'0');
    }
    if digits.len() > code::MAX_DECIMAL_DIGITS {
        return Err(format!(
            "{} digits is more than {}",
            digits.len(),
            code::MAX_DECIMAL_DIGITS
        ));
    }
    out.push(sign | code::DEC_FINITE);
    out.extend_from_slice(&(exponent as i32).to_be_bytes());
    out.extend(digits);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::decimal_payload;

    fn payload(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        assert!(decimal_payload(text.as_bytes(), &mut out).is_ok(), "{text}");
        out
    }

    #[test]
    fn decimals() {
        assert_eq!(
            payload("1.25"),
            [0, 0xff, 0xff, 0xff, 0xfe, b'1', b'2', b'5']
        );
        assert_eq!(payload("-0.00"), [1, 0xff, 0xff, 0xff, 0xfe, b'0']);
        assert_eq!(payload("1.2E+7"), [0, 0, 0, 0, 6, b'1', b'2']);
        assert_eq!(payload("-Infinity"), [1 | 2]);
        assert_eq!(payload("NaN12"), [4, b'1', b'2']);
        assert_eq!(payload("-sNaN"), [1 | 6]);
        let mut out = Vec::new();
        assert!(decimal_payload(b"1E+1000000000", &mut out).is_err());
    }
}
