//! Free-threaded builds: the values a container walk writes while it holds the container's lock
//! (src/ser/per_type/locked.rs).
//!
//! A leaf is a value read from its own object, with nothing that could suspend the container's
//! critical section: no Python code, no lock (not even its own object's), no blocking. That is
//! `None`, `True` and `False`; an exact `float`; an exact `int` that fits 64 bits; and an exact
//! `str` whose UTF-8 is at hand (a compact ASCII string, or one whose UTF-8 form CPython already
//! keeps: making it takes the string's lock); and an exact `list` or `dict` that is empty when its
//! size is read (one relaxed atomic load, as CPython's own `len` reads it without the lock: the
//! empty container it writes is a state the container passed through, and writing it frees
//! nothing and runs nothing, so no entry after it needs to be held). Everything else, a subclass or a str still to
//! encode included, is written by the dispatch after the walk has left the lock, from a strong
//! reference.
//!
//! A leaf is written exactly as the dispatch writes it: the same emitter calls, and for ints the
//! same `OPT_STRICT_INTEGER` check.

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, IntValue, Ref};
use crate::ser::per_type;
use crate::ser::state::State;

/// A leaf's value, read from its object.
#[derive(Clone, Copy)]
pub enum Leaf<'a> {
    Nil,
    Bool(bool),
    Float(f64),
    I64(i64),
    U64(u64),
    Str(&'a [u8]),
    /// An exact list with no items.
    EmptyList,
    /// An exact dict with no entries.
    EmptyDict,
}

/// `obj`'s value if it is a leaf; `None` (and nothing read that needs more) for anything else.
///
/// Reads nothing but `obj` itself: no Python code runs, and no lock is taken.
#[inline(always)]
pub fn of(obj: Ref<'_>) -> Option<Leaf<'_>> {
    if obj.is_none() {
        return Some(Leaf::Nil);
    }
    let ty = obj.type_of();
    // SAFETY: `obj` is live (`Ref`'s invariant) and its type was checked to be the one each
    // reader takes. `str_utf8_ready` reads the string's own fields and no lock; `int_value`
    // reads an exact int without running Python code (no `__index__`) or taking a lock;
    // `float_value` reads the value stored in the float; `var_size` and `dict_len` read a list's
    // `ob_size` and a dict's `ma_used` with one atomic load each, no lock.
    unsafe {
        if ty == ffi::str_type() {
            ffi::str_utf8_ready(obj.as_ptr()).map(Leaf::Str)
        } else if ty == ffi::int_type() {
            match ffi::int_value(obj.as_ptr()) {
                IntValue::I64(v) => Some(Leaf::I64(v)),
                IntValue::U64(v) => Some(Leaf::U64(v)),
                IntValue::Big => None,
            }
        } else if ty == ffi::float_type() {
            Some(Leaf::Float(ffi::float_value(obj.as_ptr())))
        } else if ty == ffi::bool_type() {
            Some(Leaf::Bool(obj.as_ptr() == ffi::true_obj()))
        } else if ty == ffi::list_type() {
            (ffi::var_size(obj.as_ptr()) == 0).then_some(Leaf::EmptyList)
        } else if ty == ffi::dict_type() {
            (ffi::dict_len(obj.as_ptr()) == 0).then_some(Leaf::EmptyDict)
        } else {
            None
        }
    }
}

/// Writes a leaf as the dispatch writes its object; only the emitter runs (no Python code).
#[inline(always)]
pub fn write<E: Emitter>(leaf: Leaf<'_>, st: State, e: &mut E) -> Res {
    match leaf {
        Leaf::Nil => e.nil(),
        Leaf::Bool(v) => e.bool(v),
        Leaf::Float(v) => e.float(v),
        Leaf::I64(v) => per_type::int::write_i64(v, st, e),
        Leaf::U64(v) => per_type::int::write_u64(v, st, e),
        Leaf::Str(utf8) => e.str(utf8),
        // As `list::write` and `dict::write` write an empty one: it counts toward the nesting
        // limit.
        Leaf::EmptyList => {
            st.enter_container()?;
            e.array_empty()
        }
        Leaf::EmptyDict => {
            st.enter_container()?;
            e.map_empty()
        }
    }
}
