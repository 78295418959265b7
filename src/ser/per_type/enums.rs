//! `enum.Enum` members as their value, packed with the same options.

use std::cell::{Cell, UnsafeCell};

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Ref};
use crate::ser::state::State;
use crate::ser::{dispatch, error, Ctx};

/// # Safety
/// `obj` is a live enum member; the GIL is held.
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live enum member and the GIL is held (this function's precondition), as
    // `member_value` needs.
    let value = unsafe { member_value(obj, cx) }?;
    // A value may be another enum or a container: count it as one level of nesting.
    dispatch::write(Ref::of(&value), st.enter_container()?, cx, e)
}

/// A member's `value`. When the enum keeps `Enum`'s own `value` property, which returns
/// `_value_` through Python code, `_value_` is read directly, once per call (see
/// [`MemberValues`]).
///
/// # Safety
/// `obj` is a live enum member; the GIL is held.
#[inline]
pub unsafe fn member_value(obj: Ref<'_>, cx: &Ctx) -> Res<ffi::Owned> {
    if let Some(value) = cx.member_values.get(obj) {
        return Ok(value);
    }
    // SAFETY: `obj` is a live enum member and the GIL is held (this function's precondition), as
    // `member_value_uncached` needs.
    unsafe { member_value_uncached(obj, cx) }
}

/// # Safety
/// `obj` is a live enum member; the GIL is held.
#[inline(never)]
unsafe fn member_value_uncached(obj: Ref<'_>, cx: &Ctx) -> Res<ffi::Owned> {
    let names = &cx.known.names;
    // SAFETY: `obj` is a live enum member and the GIL is held (this function's precondition), so
    // its type and its instance dict can be read; the lookups' results are strong references.
    unsafe {
        let standard = ffi::type_lookup(obj.type_of(), names.value)
            .is_some_and(|found| found.as_ptr() == cx.known.enum_value_descriptor);
        if standard {
            // Members keep `_value_` in their instance dict: read there, it skips the lookup
            // along the enum's bases that `getattr` makes first.
            let slot = match ffi::instance_dict(obj.as_ptr()) {
                Some(dict) => ffi::dict_get(dict.as_ptr(), names.value_slot),
                None => None,
            };
            if let Some(value) = slot.or_else(|| ffi::get_attr(obj.as_ptr(), names.value_slot).ok())
            {
                cx.member_values.remember(obj, &value);
                return Ok(value);
            }
        }
        ffi::get_attr(obj.as_ptr(), names.value)
            .map_err(|cause| error::attribute_failed("enum member has no value", cause))
    }
}

/// The members of enums with the standard `value` met in one call, and their `_value_`: a
/// payload usually repeats a few members (a status, a kind), and reading `_value_` takes a
/// type lookup, the instance dict and a dict lookup. So each member's value is read once per
/// call: a member whose `_value_` Python code (a `default`) reassigns during the call keeps,
/// for the rest of that call, the value it packed as first.
///
/// The first [`MemberValues::SLOTS`] members of a call are kept, inside the call's context:
/// a table allocated on first use cost a call with one member 25 ns. Members and values are
/// held, so that no other object can take a member's address during the call, and released
/// with the context when the call ends (releasing can run Python code).
#[derive(Default)]
pub struct MemberValues {
    /// How many slots are used.
    used: Cell<usize>,
    /// Members and their values, the first `used` filled.
    slots: UnsafeCell<[Option<(ffi::Owned, ffi::Owned)>; MemberValues::SLOTS]>,
}

impl MemberValues {
    const SLOTS: usize = 4;

    /// The value remembered for `member`, held anew.
    #[inline(always)]
    fn get(&self, member: Ref<'_>) -> Option<ffi::Owned> {
        // SAFETY: only `remember` writes the slots, never while this shared reference lives:
        // both are called by the one thread that serves the call, one at a time.
        let slots = unsafe { &*self.slots.get() };
        let (_, value) = slots[..self.used.get()]
            .iter()
            .flatten()
            .find(|(m, _)| m.as_ptr() == member.as_ptr())?;
        Some(Ref::of(value).hold())
    }

    #[cold]
    fn remember(&self, member: Ref<'_>, value: &ffi::Owned) {
        let used = self.used.get();
        if used < Self::SLOTS {
            let entry = Some((member.hold(), Ref::of(value).hold()));
            // SAFETY: no reference into the slots is alive (`get` returns before this runs, on
            // the same thread), and `used < SLOTS` keeps the write in bounds. The slot is empty,
            // so nothing is released while the cell is borrowed.
            unsafe { (*self.slots.get())[used] = entry };
            self.used.set(used + 1);
        }
    }
}
