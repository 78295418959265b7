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
    let value = unsafe { ffi::get_attr(obj, cx.known.names.value) }
        .map_err(|cause| error::attribute_failed("enum member has no value", cause))?;
    // A value may be another enum or a container: count it as one level of nesting.
    dispatch::write(value.as_ptr(), st.enter_container()?, cx, e)
}
