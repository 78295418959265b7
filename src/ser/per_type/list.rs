use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, Obj};
use crate::ser::state::State;
use crate::ser::{dispatch, error, Ctx};

/// A `list` (or subclass) as an array. An empty list is written here, inline in the caller's
/// loop; the walk is out of line.
///
/// # Safety
/// `obj` is a live list; the GIL is held.
#[inline(always)]
pub unsafe fn write<E: Emitter>(obj: Obj, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    if unsafe { ffi::var_size(obj) } == 0 {
        // Nothing to hold or walk, but it still counts toward the nesting limit.
        st.enter_container()?;
        return e.array_empty();
    }
    // SAFETY: forwarded from the caller.
    unsafe { write_list(obj, st, cx, e) }
}

/// A non-empty list's walk.
///
/// The list is held for the duration, and its length is read again before each item, so
/// Python code run from `default` can neither free it nor make us read past its end; a change
/// of length is an error (the array header has already been written).
///
/// # Safety
/// `obj` is a live list; the GIL is held.
#[inline(never)]
unsafe fn write_list<E: Emitter>(obj: Obj, st: State, cx: &Ctx, e: &mut E) -> Res {
    let st = st.enter_container()?;
    // SAFETY: forwarded from the caller.
    let len = unsafe { ffi::var_size(obj) };
    // SAFETY: forwarded from the caller.
    unsafe {
        ffi::while_held(obj, || {
            e.array_begin(len)?;
            for i in 0..len {
                // SAFETY: the list is held; `list_get` bounds-checks against the live length.
                let Some(item) = ffi::list_get(obj, i) else {
                    return Err(error::changed_size("list"));
                };
                e.array_item(i)?;
                dispatch::write(item, st, cx, e)?;
            }
            if ffi::var_size(obj) != len {
                return Err(error::changed_size("list"));
            }
            e.array_end()
        })
    }
}

/// A `tuple` as an array.
///
/// # Safety
/// `obj` is a live tuple; the GIL is held.
#[inline(never)]
pub unsafe fn write_tuple<E: Emitter>(obj: Obj, st: State, cx: &Ctx, e: &mut E) -> Res {
    let st = st.enter_container()?;
    // SAFETY: forwarded from the caller; holding the tuple keeps its (immutable) items alive.
    unsafe {
        ffi::while_held(obj, || {
            let items = ffi::tuple_items(obj);
            e.array_begin(items.len())?;
            for (i, &item) in items.iter().enumerate() {
                e.array_item(i)?;
                dispatch::write(item, st, cx, e)?;
            }
            e.array_end()
        })
    }
}
