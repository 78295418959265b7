//! `enum.Enum` members as their value, packed with the same options.

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Obj};
use crate::ser::state::State;
use crate::ser::{dispatch, error, Ctx};

/// # Safety
/// `obj` is a live enum member; the GIL is held.
pub unsafe fn write<E: Emitter>(obj: Obj, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    let value = unsafe { member_value(obj, cx) }?;
    // A value may be another enum or a container: count it as one level of nesting.
    dispatch::write(value.as_ptr(), st.enter_container()?, cx, e)
}

/// A member's `value`. When the enum keeps `Enum`'s own `value` property, which returns
/// `_value_` through Python code, `_value_` is read directly.
///
/// # Safety
/// `obj` is a live enum member; the GIL is held.
pub unsafe fn member_value(obj: Obj, cx: &Ctx) -> Res<ffi::Owned> {
    let names = &cx.known.names;
    // SAFETY: forwarded from the caller.
    unsafe {
        let standard = ffi::type_lookup(ffi::type_of(obj), names.value)
            == Some(cx.known.enum_value_descriptor);
        if standard {
            // Members keep `_value_` in their instance dict: read there, it skips the lookup
            // along the enum's bases that `getattr` makes first.
            if let Some(dict) = ffi::instance_dict(obj) {
                if let Some(value) = ffi::dict_get(dict.as_ptr(), names.value_slot) {
                    return Ok(ffi::Owned::from_borrowed(value));
                }
            }
            if let Ok(value) = ffi::get_attr(obj, names.value_slot) {
                return Ok(value);
            }
        }
        ffi::get_attr(obj, names.value)
            .map_err(|cause| error::attribute_failed("enum member has no value", cause))
    }
}
