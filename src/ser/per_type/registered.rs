//! Instances of a class in the call's `Registry`: the extension of its code, whose payload is
//! what its `encode` returned, packed.

use crate::emit::Emitter;
use crate::error::Res;
use crate::exc::MsgpackEncodeError;
use crate::ffi::{self, Obj, Owned};
use crate::ser::state::State;
use crate::ser::{dispatch, error, per_type, Ctx};

/// # Safety
/// `obj` is live, of a type the call's registry holds; the GIL is held.
#[inline(never)]
pub unsafe fn write<E: Emitter>(obj: Obj, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is live and the GIL is held (this function's precondition), so its type can be
    // read.
    let ty = unsafe { ffi::type_of(obj) };
    let table = cx.exact.as_deref().and_then(|x| x.registry.as_ref());
    let Some(entry) = table.and_then(|t| t.by_type(ty)) else {
        // SAFETY: `obj` is live and the GIL is held (the precondition), as `unsupported` needs to
        // name its type.
        return Err(unsafe { error::unsupported(obj) });
    };
    // An encoder returning an instance of its own class recurses: counted as `default` is.
    let st = st.enter_default()?;
    if entry.members.is_some() {
        // An Enum registered without functions: the member's value.
        // SAFETY: `obj` is live, the GIL is held (the precondition), and the entry has members, so
        // its type is the registered Enum class: `obj` is one of its members, as `member_value`
        // needs.
        let value = unsafe { per_type::enums::member_value(obj, cx)? };
        let mark = e.ext_begin()?;
        dispatch::write(value.as_ptr(), st, cx, e)?;
        return e.ext_end(mark, entry.code);
    }
    // The call runs Python code, which could free `obj` by emptying its container.
    // SAFETY: `obj` is live and the GIL is held (the precondition), so a strong reference can be
    // taken to it before the encoder runs.
    let obj = unsafe { Owned::from_borrowed(obj) };
    // SAFETY: the table (held by the context) holds `encode`; `obj` is held.
    let value = unsafe { ffi::call1(entry.encode.as_ptr(), obj.as_ptr()) }.map_err(|cause| {
        // SAFETY: `obj` is held.
        let name = unsafe { ffi::type_name(obj.as_ptr()) };
        error::with_cause(
            MsgpackEncodeError::new_err(format!(
                "the registered encode function raised an exception for type {name}"
            )),
            cause,
        )
    })?;
    let mark = e.ext_begin()?;
    dispatch::write(value.as_ptr(), st, cx, e)?;
    e.ext_end(mark, entry.code)
}
