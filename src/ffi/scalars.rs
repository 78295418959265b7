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
#[cfg(not(any(PyPy, GraalPy)))]
#[inline(always)]
pub unsafe fn int_value(obj: Obj) -> IntValue {
    // SAFETY: `obj` is a live int (this function's precondition), whose layout is described at
    // `digits_of`.
    let (digits, count, negative) = unsafe { digits_of(obj) };
    // SAFETY: `digits` points at the int's `count` digits.
    unsafe {
        let magnitude = match count {
            0 => return IntValue::I64(0),
            1 => i64::from(*digits),
            2 => i64::from(*digits) | i64::from(*digits.add(1)) << 30,
            _ => return wide_value(digits, count, negative),
        };
        IntValue::I64(if negative { -magnitude } else { magnitude })
    }
}

/// An int's digits, their count and its sign, read from the object.
///
/// On every supported CPython, an int is the object header (with the GIL: refcount and type;
/// free-threaded: the owning thread, flags, lock, both counts and type, as pyo3-ffi's
/// `PyObject` declares it), one word of size or tag, then its 30-bit digits, least significant
/// first, with no leading zero digit. Up to 3.11 the word is the signed digit count; from 3.12
/// (3.14 and its free-threaded build included: Include/cpython/longintrepr.h) it is a tag
/// holding the digit count above three bits (the third is a flag), and the sign in its low two
/// bits (0 positive, 1 zero, 2 negative). An int never changes once made, so another thread
/// cannot change what is read.
///
/// # Safety
/// `obj` is a live `int` (or subclass).
#[cfg(not(any(PyPy, GraalPy)))]
#[inline(always)]
unsafe fn digits_of(obj: Obj) -> (*const u32, usize, bool) {
    // SAFETY: `obj` is a live int (this function's precondition), whose layout is described
    // above.
    unsafe {
        let header = std::mem::size_of::<ffi::PyObject>();
        let word = *(obj as *const u8).add(header).cast::<isize>();
        let digits = (obj as *const u8).add(header + std::mem::size_of::<isize>()) as *const u32;
        #[cfg(Py_3_12)]
        let (count, negative) = ((word as usize) >> 3, word & 3 == 2);
        #[cfg(not(Py_3_12))]
        let (count, negative) = (word.unsigned_abs(), word < 0);
        (digits, count, negative)
    }
}

/// An int of three digits or more (2**60 and above in magnitude): it fits 64 bits only with
/// three digits, whose top one is then small.
///
/// # Safety
/// `digits` points at `count` (at least 3) digits.
#[cfg(not(any(PyPy, GraalPy)))]
#[inline(never)]
unsafe fn wide_value(digits: *const u32, count: usize, negative: bool) -> IntValue {
    if count > 3 {
        return IntValue::Big; // at least 2**90
    }
    // SAFETY: three digits are readable.
    let magnitude = unsafe {
        u128::from(*digits) | u128::from(*digits.add(1)) << 30 | u128::from(*digits.add(2)) << 60
    };
    if negative {
        if magnitude <= 1 << 63 {
            IntValue::I64((magnitude as i128).wrapping_neg() as i64)
        } else {
            IntValue::Big
        }
    } else if let Ok(v) = i64::try_from(magnitude) {
        IntValue::I64(v)
    } else if let Ok(v) = u64::try_from(magnitude) {
        IntValue::U64(v)
    } else {
        IntValue::Big
    }
}

/// Layouts not described at `digits_of` take the API calls.
///
/// # Safety
/// `obj` is a live `int` (or subclass) and the GIL is held.
#[cfg(any(PyPy, GraalPy))]
#[inline(always)]
pub unsafe fn int_value(obj: Obj) -> IntValue {
    let mut overflow = 0;
    // SAFETY: `obj` is an int, so no `__index__` runs and the call fails only by overflow,
    // which is reported in `overflow` without setting an error.
    let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(obj, &mut overflow) };
    if overflow == 0 {
        IntValue::I64(v)
    } else if overflow < 0 {
        IntValue::Big
    } else {
        // SAFETY: `obj` is a live int (this function's precondition) that overflowed `i64` upwards,
        // which is what `int_value_wide` takes.
        unsafe { int_value_wide(obj) }
    }
}

/// # Safety
/// `obj` is a live int whose value is above `i64::MAX`, and the GIL is held.
#[cfg(any(PyPy, GraalPy))]
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

/// The value of an exact, non-negative `int` below 2**128 (a UUID's `int`), read from its digits;
/// `None` for anything else, which then takes the general conversion.
///
/// # Safety
/// `obj` is live and the GIL is held.
#[cfg(not(any(PyPy, GraalPy)))]
#[inline]
pub unsafe fn small_u128(obj: Obj) -> Option<u128> {
    // SAFETY: `obj` is live and the GIL is held (the precondition), so its type can be read;
    // `digits_of` reads the `PyLongObject` layout only once the type check below has found an exact
    // int.
    unsafe {
        if super::type_of(obj) != super::int_type() {
            return None;
        }
        let (digits, count, negative) = digits_of(obj);
        // Five 30-bit digits hold 150 bits: the top one must then be under 2**8.
        if negative || count > 5 || (count == 5 && *digits.add(4) >= 1 << 8) {
            return None;
        }
        Some((0..count).fold(0u128, |acc, i| acc | u128::from(*digits.add(i)) << (30 * i)))
    }
}

/// Layouts not described at `digits_of`: the general conversion.
///
/// # Safety
/// None needed.
#[cfg(any(PyPy, GraalPy))]
#[inline]
pub unsafe fn small_u128(_obj: Obj) -> Option<u128> {
    None
}
