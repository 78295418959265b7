use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, Ref};
use crate::ser::state::State;
use crate::ser::{dispatch, error, Ctx};

/// Hands `obj` to the user's `default` and packs what it returns; without `default`, an error.
///
/// In a call with a hook ([`crate::ser::hook`]), `default` is the caller's conversion, which packs
/// some objects itself and hands the rest unchanged to [`Hook::user_default`]: the core calls that
/// one itself for an object the conversion would hand over ([`Hook::callee`]), which saves a
/// Python call and the conversion's tests per object. What either raises propagates unchanged.
///
/// [`Hook::user_default`]: crate::ser::hook::Hook::user_default
/// [`Hook::callee`]: crate::ser::hook::Hook::callee
#[inline(never)]
pub fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    if super::oob::is_pickle_buffer(obj)? {
        // SAFETY: `obj` is a live PickleBuffer (checked just above), which exports its memory
        // as a memoryview does, and the thread is attached.
        return unsafe { super::bytes::write_memoryview(obj, cx, e) };
    }
    let Some(default) = cx.default else {
        return Err(error::unsupported(obj));
    };
    let st = st.enter_default()?;
    // The call runs Python code, which could free `obj` (by emptying its container) before the
    // error below reads it.
    let obj = obj.hold();
    // SAFETY: `default` is an argument of the call and `obj` is held here, both on the attached
    // thread (`Ref`'s invariant).
    let callee = match &cx.hook {
        Some(hook) => hook.callee(Ref::of(&obj)).unwrap_or(default),
        None => default,
    };
    // SAFETY: as above.
    let replacement = unsafe { ffi::call1(callee.as_ptr(), obj.as_ptr()) }.map_err(|cause| {
        if cx.hook.is_some() {
            cause.into()
        } else {
            error::default_failed(Ref::of(&obj), cause)
        }
    })?;
    dispatch::write(Ref::of(&replacement), st, cx, e)
}
