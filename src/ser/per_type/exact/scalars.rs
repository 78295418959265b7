//! Big ints, `complex`, `UUID` and `Decimal` as fixed binary payloads.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

use fastmsgpack_core::exact::{self as code, BigInt, Complex, Decimal, Uuid};

use crate::emit::Emitter;
use crate::error::Res;
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
    let bits: u64 = magnitude
        .and_then(|m| m.call_method0(crate::intern!(py, "bit_length")))
        .and_then(|b| b.extract())
        .map_err(|c| error::attribute_failed("int.bit_length() raised", c))?;
    let Some(len) = BigInt::len_for_bits(bits) else {
        return Err(refused(format!(
            "int of {bits} bits is too large for OPT_EXACT (at most {} bytes)",
            code::MAX_BIG_INT_BYTES
        )));
    };
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
    let value = BigInt::new(bytes.as_bytes())
        .map_err(|why| refused(format!("int cannot be packed with OPT_EXACT: {why}")))?;
    // What `BigInt::write` writes, without the copy: Python gave the fewest bytes already.
    e.ext(code::BIG_INT, value.payload())
}

/// # Safety
/// `obj` is a live complex.
#[inline(never)]
pub unsafe fn write_complex<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live complex (this function's precondition), as `complex_parts` needs.
    let (re, im) = unsafe { ffi::complex_parts(obj.as_ptr()) };
    e.ext(code::COMPLEX, &Complex { re, im }.to_bytes())
}

/// A UUID's 128 bits, big-endian (RFC 9562 byte order).
///
/// # Safety
/// `obj` is a live UUID; the GIL is held.
#[inline(never)]
pub unsafe fn write_uuid<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    let k = cx.known;
    if let Some(offset) = k.uuid_int_slot {
        // SAFETY: `obj` is a live exact UUID and the GIL is held (this function's precondition), so
        // `offset` is that of its `int` slot; the slot's int is held by the UUID, and nothing runs
        // Python code before its value is read.
        let value = unsafe { ffi::slot_value(obj.as_ptr(), offset).map(|i| ffi::small_u128(i)) };
        if let Some(Some(v)) = value {
            return e.ext(code::UUID, &Uuid(v).to_bytes());
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
    e.ext(code::UUID, &Uuid(v).to_bytes())
}

/// A Decimal, read from `str(d)`, which keeps every digit, as the core's value.
///
/// # Safety
/// `obj` is a live Decimal; the GIL is held.
#[inline(never)]
pub unsafe fn write_decimal<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live Decimal and the GIL is held (this function's precondition), as
    // `to_str` needs; `str()` of a Decimal is an ASCII str owned here.
    let text = unsafe { ffi::to_str(obj.as_ptr()) }
        .map_err(|c| error::attribute_failed("str(Decimal) raised", c))?;
    // SAFETY: `text` is a live str.
    let utf8 = unsafe { ffi::str_utf8(text.as_ptr()) }
        .ok_or_else(|| error::attribute_failed("str(Decimal) is not text", ffi::fetch_error()))?;
    let value = Decimal::from_text(utf8)
        .map_err(|why| refused(format!("Decimal cannot be packed with OPT_EXACT: {why}")))?;
    super::write_payload(code::DECIMAL, cx, e, |out| value.write(out))
}
