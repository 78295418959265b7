use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{int_value, IntValue, Ref};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{error, per_type, Ctx};

/// The largest magnitude `OPT_STRICT_INTEGER` lets through: 2**53-1, the largest integer up to
/// which every integer has an exact IEEE double (JavaScript's `Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// An `int` (or subclass) in its shortest form; outside 64 bits an error, or `default` with
/// `OPT_PASSTHROUGH_BIG_INT`. JSON with `OPT_STRICT_INTEGER` refuses magnitudes above 2**53-1.
///
/// # Safety
/// `obj` is a live int; the GIL is held.
#[inline(always)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live int and the GIL is held (this function's precondition), as
    // `int_value` needs.
    match unsafe { int_value(obj.as_ptr()) } {
        IntValue::I64(v) => write_i64(v, st, e),
        IntValue::U64(v) => write_u64(v, st, e),
        // SAFETY: `obj` is a live int and the GIL is held (the precondition), as `write_big` needs.
        IntValue::Big => unsafe { write_big(obj, st, cx, e) },
    }
}

/// The value of an int that fits `i64`.
#[inline(always)]
pub fn write_i64<E: Emitter>(v: i64, st: State, e: &mut E) -> Res {
    if E::JSON_TEXT
        && st.has(opt::STRICT_INTEGER)
        && !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&v)
    {
        return Err(error::int_not_53_bit());
    }
    e.int(v)
}

/// The value of an int above `i64::MAX` that fits `u64`.
#[inline(always)]
pub fn write_u64<E: Emitter>(v: u64, st: State, e: &mut E) -> Res {
    if E::JSON_TEXT && st.has(opt::STRICT_INTEGER) && v > MAX_SAFE_INTEGER as u64 {
        return Err(error::int_not_53_bit());
    }
    e.uint(v)
}

/// # Safety
/// `obj` is a live int; the GIL is held.
#[cold]
unsafe fn write_big<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    if st.has(opt::EXACT) {
        // SAFETY: `obj` is a live int and the GIL is held (this function's precondition), as
        // `write_big_int` needs.
        return unsafe { per_type::exact::write_big_int(obj, e) };
    }
    if st.has(opt::PASSTHROUGH_BIG_INT) && cx.default.is_some() {
        return per_type::default::write(obj, st, cx, e);
    }
    Err(error::int_too_big())
}
