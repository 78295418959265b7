use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{float_value, Ref};

/// A `float` (or subclass) as float64, bit for bit (NaN, infinities and -0.0 kept).
///
/// # Safety
/// `obj` is a live float.
#[inline(always)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live float (this function's precondition), whose value is stored inline.
    e.float(unsafe { float_value(obj.as_ptr()) })
}
