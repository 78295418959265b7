//! Instances of a class in the call's `Registry`: the extension of its code, whose payload is
//! what its `encode` returned, packed.

use crate::emit::Emitter;
use crate::error::Res;
use crate::exc::MsgpackEncodeError;
use crate::ffi::{self, Ref};
use crate::ser::state::State;
use crate::ser::{dispatch, error, per_type, Ctx};

/// An instance of a registered class (or any object: one whose type the registry does not hold
/// is an error).
#[inline(never)]
pub fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let ty = obj.type_of();
    let table = cx.exact.as_deref().and_then(|x| x.registry.as_ref());
    let Some(entry) = table.and_then(|t| t.by_type(ty)) else {
        return Err(error::unsupported(obj));
    };
    // Encoders returning instances of each other's classes recurse: counted as `default` is,
    // with a message of their own (no `default` may have been given).
    let st = st.enter_default().map_err(|_| encode_too_deep(obj))?;
    if entry.members.is_some() {
        // An Enum registered without functions: the member's value.
        // SAFETY: `obj` is live and the thread attached (`Ref`'s invariant), and the entry has
        // members, so its type is the registered Enum class: `obj` is one of its members, as
        // `member_value` needs.
        let value = unsafe { per_type::enums::member_value(obj, cx)? };
        let mark = e.ext_begin()?;
        dispatch::write(Ref::of(&value), st, cx, e)?;
        return e.ext_end(mark, entry.code);
    }
    // The call runs Python code, which could free `obj` by emptying its container.
    let obj = obj.hold();
    // SAFETY: the table (held by the context) holds `encode`; `obj` is held; attached.
    let value = unsafe { ffi::call1(entry.encode.as_ptr(), obj.as_ptr()) }.map_err(|cause| {
        let name = Ref::of(&obj).type_name();
        crate::error::Error::new(
            crate::error::Kind::CallFailed,
            error::with_cause(
                MsgpackEncodeError::new_err(format!(
                    "the registered encode function raised an exception for type {name}"
                )),
                cause,
            ),
        )
        .refusing(Ref::of(&obj))
    })?;
    if value.as_ptr() == obj.as_ptr() {
        return Err(returned_itself(Ref::of(&obj)));
    }
    let mark = e.ext_begin()?;
    dispatch::write(Ref::of(&value), st, cx, e)?;
    e.ext_end(mark, entry.code)
}

/// An `encode` returned the object it was given, which would be encoded again without end.
#[cold]
fn returned_itself(obj: Ref<'_>) -> crate::error::Error {
    let name = obj.type_name();
    MsgpackEncodeError::new_err(format!(
        "the registered encode function for type {name} returned the object it was given: it \
         must return a value to pack in its place (a tuple, a dict, ...)"
    ))
    .into()
}

/// Registered encode functions returned instances of each other's classes, nested too deep.
#[cold]
fn encode_too_deep(obj: Ref<'_>) -> crate::error::Error {
    let name = obj.type_name();
    MsgpackEncodeError::new_err(format!(
        "registered encode functions (and default) called recursively more than {} times, at \
         type {name}: an encode function must not return instances of registered classes \
         without end",
        fastmsgpack_core::limits::MAX_DEFAULT_DEPTH
    ))
    .into()
}
