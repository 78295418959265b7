//! `tuple`, `set` and `frozenset`: one array of the items, as an extension's payload.

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::Ref;
use crate::ser::state::State;
use crate::ser::{per_type, Ctx};
use fastmsgpack_core::exact as code;

/// # Safety
/// `obj` is a live tuple; the GIL is held.
pub unsafe fn write_tuple<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let mark = e.ext_begin()?;
    // SAFETY: `obj` is a live tuple and the GIL is held (this function's precondition), as
    // `list::write_tuple` needs.
    unsafe { per_type::list::write_tuple(obj, st, cx, e)? };
    e.ext_end(mark, code::TUPLE)
}

/// # Safety
/// `obj` is a live set or frozenset; the GIL is held.
pub unsafe fn write_set<E: Emitter>(obj: Ref<'_>, tag: i8, st: State, cx: &Ctx, e: &mut E) -> Res {
    let mark = e.ext_begin()?;
    // SAFETY: `obj` is a live set or frozenset and the GIL is held (this function's precondition),
    // as `set::write` needs.
    unsafe { per_type::set::write(obj, st, cx, e)? };
    e.ext_end(mark, tag)
}
