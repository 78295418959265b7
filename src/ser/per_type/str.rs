use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, fetch_error, Obj};
use crate::opt;
use crate::ser::error;
use crate::ser::state::State;

/// A `str` (or subclass) as UTF-8.
///
/// # Safety
/// `obj` is a live str; the GIL is held.
#[inline(always)]
pub unsafe fn write<E: Emitter>(obj: Obj, st: State, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    match unsafe { ffi::str_utf8(obj) } {
        Some(utf8) => e.str(utf8),
        // SAFETY: forwarded from the caller.
        None => unsafe { write_surrogates(obj, st, e) },
    }
}

/// A string with lone surrogates: an error, or `?` in their place with the option.
#[cold]
unsafe fn write_surrogates<E: Emitter>(obj: Obj, st: State, e: &mut E) -> Res {
    let cause = fetch_error();
    if !st.has(opt::REPLACE_SURROGATES) {
        return Err(error::surrogates(cause));
    }
    // SAFETY: forwarded from the caller; the replaced form is a bytes object we own.
    unsafe {
        let replaced = ffi::str_utf8_replacing(obj).ok_or_else(fetch_error)?;
        e.str(ffi::bytes_data(replaced.as_ptr()))
    }
}
