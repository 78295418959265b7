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

/// # Safety
/// `obj` is a live `float` (or subclass).
#[inline(always)]
pub unsafe fn float_value(obj: Obj) -> f64 {
    // SAFETY: a float stores its value inline.
    unsafe { ffi::PyFloat_AS_DOUBLE(obj) }
}
