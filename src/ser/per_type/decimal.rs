//! `decimal.Decimal` as its string form, which keeps every digit.

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Ref};
use crate::ser::error;

/// # Safety
/// `obj` is a live Decimal; the GIL is held.
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live Decimal and the GIL is held (this function's precondition), as
    // `to_str` needs; `str()` of a Decimal is an ASCII str owned here, alive while its bytes are
    // written.
    unsafe {
        let text = ffi::to_str(obj.as_ptr())
            .map_err(|cause| error::attribute_failed("str(Decimal) raised", cause))?;
        let utf8 = ffi::str_utf8(text.as_ptr()).ok_or_else(|| {
            error::attribute_failed("str(Decimal) is not text", ffi::fetch_error())
        })?;
        e.str(utf8)
    }
}
