use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, Obj};
use crate::ser::state::State;
use crate::ser::{dispatch, error, Ctx};

/// Hands `obj` to the user's `default` and packs what it returns; without `default`, an error.
///
/// # Safety
/// `obj` is live; the GIL is held.
#[inline(never)]
pub unsafe fn write<E: Emitter>(obj: Obj, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is live and the GIL is held (this function's precondition), as
    // `is_pickle_buffer` needs.
    if unsafe { super::oob::is_pickle_buffer(obj) }? {
        // SAFETY: a PickleBuffer exports its memory like a memoryview.
        return unsafe { super::bytes::write_memoryview(obj, cx, e) };
    }
    let Some(default) = cx.default else {
        // SAFETY: `obj` is live and the GIL is held (this function's precondition), as
        // `unsupported` needs to name its type.
        return Err(unsafe { error::unsupported(obj) });
    };
    let st = st.enter_default()?;
    // The call runs Python code, which could free `obj` (by emptying its container) before the
    // error below reads it.
    // SAFETY: `obj` is live and the GIL is held (this function's precondition), so a strong
    // reference can be taken to it before `default` runs.
    let obj = unsafe { ffi::Owned::from_borrowed(obj) };
    // SAFETY: `default` is kept alive by the caller of packb, `obj` here.
    let replacement = unsafe { ffi::call1(default, obj.as_ptr()) }
        // SAFETY: `obj` is held.
        .map_err(|cause| unsafe { error::default_failed(obj.as_ptr(), cause) })?;
    dispatch::write(replacement.as_ptr(), st, cx, e)
}
