use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, Ref};
use crate::ser::state::State;
use crate::ser::{dispatch, Ctx};

/// A `list` (or subclass) as an array. An empty list is written here, inline in the caller's
/// loop, as an empty dict is: documents hold many (a field with no items), and two calls out of
/// line took more time than writing it. Lists of one or two items are written by
/// [`write_short`], longer ones by [`write_list`], both out of line.
///
/// # Safety
/// `obj` is a live list; the GIL is held.
#[inline(always)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live list and the GIL is held (this function's precondition), so its size
    // can be read and the writers below get what they need.
    unsafe {
        let len = ffi::var_size(obj.as_ptr());
        if len == 0 {
            // Nothing to hold or walk, but it still counts toward the nesting limit.
            st.enter_container()?;
            return e.array_empty();
        }
        if st.checks_stack() {
            // Every few levels, on a stack with room for the levels below (crate::stack).
            return crate::stack::grown(|| write_list(obj, st, cx, e));
        }
        if len <= 2 {
            write_short(obj, st, cx, e)
        } else {
            write_list(obj, st, cx, e)
        }
    }
}

/// A list of one or two items: a pair of floats (a point, a range), or else the general walk.
/// Every case is a tail call, so this function saves no registers: what it adds to the other
/// short lists is its checks, 0.4-0.8 ns per list (packing 1000 pairs of ints: 9.6 us against
/// 8.8 us), where a pair of floats takes 3.8 ns less (5.3 us against 9.1 us).
///
/// # Safety
/// `obj` is a live list of one or two items; the GIL is held.
#[inline(never)]
unsafe fn write_short<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live list (this function's precondition), so its size can be read.
    let len = unsafe { ffi::var_size(obj.as_ptr()) };
    if len == 2 {
        // SAFETY: the list is live.
        if let Some((a, b)) = unsafe { ffi::float_pair(obj.as_ptr()) } {
            return write_float_pair(a, b, st, e);
        }
    }
    // SAFETY: `obj` is a live list and the GIL is held (this function's precondition), as
    // `write_list` needs.
    unsafe { write_list(obj, st, cx, e) }
}

/// A list of exactly two floats (a point, a range), by their values: written without holding
/// the list or dispatching on its items' types.
#[inline(never)]
fn write_float_pair<E: Emitter>(a: f64, b: f64, st: State, e: &mut E) -> Res {
    st.enter_container()?;
    e.float_pair(a, b)
}

/// A non-empty list's walk.
///
/// The list is held for the duration. With the GIL its length is read again before each item,
/// so Python code run from `default` can neither free it nor make us read past its end; a
/// change of length is an error (the array header has already been written). In free-threaded
/// builds the items are read under the list's lock, and those that cannot be written there are
/// held from it ([`crate::ser::per_type::locked`]): the array is the list as it was at one
/// moment, whatever other threads do to it meanwhile.
///
/// # Safety
/// `obj` is a live list; the thread is attached.
#[inline(never)]
unsafe fn write_list<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let st = st.enter_container()?;
    // SAFETY: `obj` is a live list and the thread is attached (this function's precondition);
    // `while_held` keeps it alive for the walk, and the walk reads its items by the rules of the
    // build (bounds-checked with the GIL, under its lock without).
    unsafe { ffi::while_held(obj.as_ptr(), || walk_items(obj, st, cx, e)) }
}

/// Free-threaded: the items are written under the list's lock, or from references taken under
/// it.
#[cfg(Py_GIL_DISABLED)]
use crate::ser::per_type::locked::write_list as walk_items;

/// With the GIL: a held list's items, each read from the list as it is written.
///
/// # Safety
/// `obj` is a live list, held by the caller; the GIL is held.
#[cfg(not(Py_GIL_DISABLED))]
#[inline(always)]
unsafe fn walk_items<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live list, held by the caller, and the GIL is held (the precondition).
    unsafe {
        let items = ffi::ListItems::new(obj.as_ptr());
        let len = items.len();
        e.array_begin(len)?;
        for i in 0..len {
            // SAFETY: the list holds the item, and no Python code has run since it was read: it
            // is live until Python code runs, `Ref`'s contract, and the writers that run Python
            // code hold it first.
            let Some(item) = items.get(i).map(|item| Ref::new(item)) else {
                return Err(crate::ser::error::changed_size("list"));
            };
            e.array_item(i)?;
            dispatch::write(item, st, cx, e).map_err(|err| err.at_index(i, obj))?;
        }
        if items.changed() {
            return Err(crate::ser::error::changed_size("list"));
        }
        e.array_end()
    }
}

/// A named tuple as the array of its items, as msgpack-python and msgspec pack it, so that a
/// typed decoder can build it again from its positions. JSON output (`json.dumps`, and `packb` with
/// [`crate::opt::JSON_MODEL`]) writes the same array, as the standard library's `json` does, so that both
/// formats follow one rule (orjson refuses named tuples: doc/json.md lists the difference).
///
/// # Safety
/// `obj` is a live tuple subclass instance; the GIL is held.
#[inline(always)]
pub unsafe fn write_named_tuple<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live tuple subclass instance and the GIL is held (this function's
    // precondition), which is what `write_tuple` needs; such an instance stores its items as a
    // tuple does.
    unsafe { write_tuple(obj, st, cx, e) }
}

/// A `tuple` (or named tuple) as an array.
///
/// # Safety
/// `obj` is a live tuple or tuple subclass instance; the GIL is held.
#[inline(never)]
pub unsafe fn write_tuple<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let st = st.enter_container()?;
    // SAFETY: `obj` is a live tuple (or subclass instance) and the GIL is held (this function's
    // precondition); holding it keeps its items, which never change, alive for the walk.
    unsafe {
        ffi::while_held(obj.as_ptr(), || {
            let items = ffi::tuple_items(obj.as_ptr());
            e.array_begin(items.len())?;
            for (i, &item) in items.iter().enumerate() {
                e.array_item(i)?;
                // SAFETY: the tuple is held for the walk and its items never change, so each
                // item lives while it is written.
                dispatch::write(Ref::new(item), st, cx, e).map_err(|err| err.at_index(i, obj))?;
            }
            e.array_end()
        })
    }
}
