//! Reading the value of an `int` or `float`.

use pyo3::ffi;

use super::Obj;

/// The value of an `int` as it fits: `I64`, `U64` (positive, above `i64::MAX`) or `Big`.
pub enum IntValue {
    I64(i64),
    U64(u64),
    Big,
}

/// # Safety
/// `obj` is a live `int` (or subclass) and the GIL is held.
#[inline(always)]
pub unsafe fn int_value(obj: Obj) -> IntValue {
    // SAFETY: forwarded from the caller.
    if let Some(v) = unsafe { compact_int(obj) } {
        return IntValue::I64(v);
    }
    let mut overflow = 0;
    // SAFETY: `obj` is an int, so no `__index__` runs and the call fails only by overflow,
    // which is reported in `overflow` without setting an error.
    let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(obj, &mut overflow) };
    if overflow == 0 {
        IntValue::I64(v)
    } else if overflow < 0 {
        IntValue::Big
    } else {
        // SAFETY: forwarded from the caller.
        unsafe { int_value_wide(obj) }
    }
}

/// The value of an int of at most two internal digits (under 2**60 in magnitude), read from
/// the object without a call; `None` for larger ints.
///
/// On every supported CPython with the GIL, an int is the object header (refcount, type), one
/// word of size or tag, then its 30-bit digits. Up to 3.11 the word is the signed digit count;
/// from 3.12 it is a tag holding the digit count above three bits, and the sign in its low two
/// bits (0 positive, 1 zero, 2 negative).
///
/// # Safety
/// `obj` is a live `int` (or subclass).
#[cfg(not(any(Py_GIL_DISABLED, PyPy, GraalPy, Py_3_14)))]
#[inline(always)]
unsafe fn compact_int(obj: Obj) -> Option<i64> {
    // SAFETY: the caller guarantees an int, whose layout is described above; only the digits
    // the int has are read.
    unsafe {
        let word = *(obj as *const isize).add(2);
        let digits = (obj as *const u8).add(3 * std::mem::size_of::<isize>()) as *const u32;
        #[cfg(Py_3_12)]
        let (count, negative) = ((word as usize) >> 3, word & 3 == 2);
        #[cfg(not(Py_3_12))]
        let (count, negative) = (word.unsigned_abs(), word < 0);
        let magnitude = match count {
            0 => return Some(0),
            1 => i64::from(*digits),
            2 => i64::from(*digits) | i64::from(*digits.add(1)) << 30,
            _ => return None,
        };
        Some(if negative { -magnitude } else { magnitude })
    }
}

/// Layouts not described above take the API call.
#[cfg(any(Py_GIL_DISABLED, PyPy, GraalPy, Py_3_14))]
#[inline(always)]
unsafe fn compact_int(_obj: Obj) -> Option<i64> {
    None
}

#[inline(never)]
unsafe fn int_value_wide(obj: Obj) -> IntValue {
    // SAFETY: `obj` is a positive int; failure only means it needs more than 64 bits, which
    // sets an OverflowError that is cleared here.
    unsafe {
        let u = ffi::PyLong_AsUnsignedLongLong(obj);
        if u == u64::MAX && !ffi::PyErr_Occurred().is_null() {
            ffi::PyErr_Clear();
            return IntValue::Big;
        }
        IntValue::U64(u)
    }
}

/// Whether `obj` is exactly a `float` (not a subclass).
///
/// # Safety
/// `obj` is live.
#[inline(always)]
pub unsafe fn is_exact_float(obj: Obj) -> bool {
    // SAFETY: a live object's type pointer is readable.
    unsafe { super::type_of(obj) == super::float_type() }
}

/// # Safety
/// `obj` is a live `float` (or subclass).
#[inline(always)]
pub unsafe fn float_value(obj: Obj) -> f64 {
    // SAFETY: a float stores its value inline.
    unsafe { ffi::PyFloat_AS_DOUBLE(obj) }
}
