use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, fetch_error, Ref};
use crate::opt;
use crate::ser::error;
use crate::ser::state::State;
use crate::ser::Ctx;

/// A `str` (or subclass) as UTF-8.
///
/// # Safety
/// `obj` is a live str; the GIL is held.
#[inline(always)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live str and the GIL is held (this function's precondition), as `str_utf8`
    // needs; the slice is written before this function returns, while `obj` still lives.
    match unsafe { ffi::str_utf8(obj.as_ptr()) } {
        Some(utf8) => e.str(utf8),
        // SAFETY: `obj` is a live str and the GIL is held (the precondition), as `write_surrogates`
        // needs.
        None => unsafe { write_surrogates(obj, st, cx, e) },
    }
}

/// A string with lone surrogates, which strict UTF-8 refuses.
///
/// # Safety
/// `obj` is a live str; the GIL is held.
#[cold]
unsafe fn write_surrogates<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live str and the GIL is held (this function's precondition), as
    // `encode_surrogates` needs; the encoded form is a bytes object owned here, alive while its
    // data is written.
    unsafe {
        let encoded = encode_surrogates(obj, st, cx)?;
        e.str(ffi::bytes_data(encoded.as_ptr()))
    }
}

/// The bytes of a str that strict UTF-8 refused (its `UnicodeEncodeError` pending): encoded
/// with the call's error handler ([`crate::ser::Ctx::unicode_errors`]), whose own error
/// (`LookupError` for an unknown name, `UnicodeEncodeError` from `"strict"`) is passed on as it
/// is; else with each lone surrogate replaced by `?` under `OPT_REPLACE_SURROGATES`; else an
/// error.
///
/// # Safety
/// `obj` is a live str; the GIL is held.
#[cold]
pub unsafe fn encode_surrogates(obj: Ref<'_>, st: State, cx: &Ctx) -> Res<ffi::Owned> {
    let cause = fetch_error();
    // SAFETY: `obj` is a live str and the GIL is held (this function's precondition), as the
    // encoders called below need; the error fetched above is the one `str_utf8` set.
    unsafe {
        if let Some(errors) = &cx.unicode_errors {
            return ffi::str_utf8_with(obj.as_ptr(), errors).ok_or_else(|| fetch_error().into());
        }
        if !st.has(opt::REPLACE_SURROGATES) {
            return Err(error::surrogates(cause));
        }
        ffi::str_utf8_replacing(obj.as_ptr()).ok_or_else(|| fetch_error().into())
    }
}
