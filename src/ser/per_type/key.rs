//! Dict keys: `str`, or with `OPT_NON_STR_KEYS` also None, bool, int, float, bytes, str
//! subclasses, datetime, date, time, UUID, enum members and tuples of these, written as the
//! values they are.

use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, int_value, IntValue, Owned, Ref, TypePtr};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{dispatch, error, per_type, Ctx};

/// A dict entry: its key, then (after `map_value`) its value.
///
/// # Safety
/// `key` and `value` are live, held by a dict that the caller holds; the GIL is held.
#[inline(always)]
pub unsafe fn write_entry<E: Emitter>(
    key: Ref<'_>,
    value: Ref<'_>,
    st: State,
    cx: &Ctx,
    e: &mut E,
) -> Res {
    // SAFETY: `key` and `value` are live, held by a dict the caller holds, and the GIL is held
    // (this function's precondition). `key` is read as a str only once its type is `str`, and the
    // fast path runs no Python code that could free either.
    unsafe {
        if ffi::type_of(key.as_ptr()) == ffi::str_type() {
            if let Some(utf8) = ffi::str_utf8_ready(key.as_ptr()) {
                e.str(utf8)?;
                e.map_value()?;
                return dispatch::write(value, st, cx, e);
            }
        }
        write_entry_held(key, value, st, cx, e)
    }
}

/// An entry whose key can run Python code while it is written (a key that needs encoding, or
/// one that is not a str). That code could remove the entry from the dict and so free the key
/// or the value: both are held.
///
/// # Safety
/// `key` and `value` are live, held by a dict that the caller holds; the GIL is held.
#[inline(never)]
unsafe fn write_entry_held<E: Emitter>(
    key: Ref<'_>,
    value: Ref<'_>,
    st: State,
    cx: &Ctx,
    e: &mut E,
) -> Res {
    // SAFETY: `key` and `value` are live, held by a dict the caller holds, with the GIL (this
    // function's precondition), so strong references can be taken to them before any Python code
    // runs.
    let (key, value) = unsafe {
        (
            Owned::from_borrowed(key.as_ptr()),
            Owned::from_borrowed(value.as_ptr()),
        )
    };
    // SAFETY: both are held.
    unsafe { write(Ref::of(&key), st, cx, e).map_err(crate::error::Error::in_key)? };
    e.map_value()?;
    dispatch::write(Ref::of(&value), st, cx, e)
}

/// A dict key.
///
/// # Safety
/// `key` is held by the caller (writing a key of a richer type can run Python code, which could
/// otherwise free it); the GIL is held.
#[inline(always)]
pub unsafe fn write<E: Emitter>(key: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `key` is held by the caller and the GIL is held (this function's precondition); each
    // writer gets `key` only once its type has been checked to be the writer's.
    unsafe {
        if ffi::type_of(key.as_ptr()) == ffi::str_type() {
            return per_type::str::write(key, st, cx, e);
        }
        if !st.has(opt::NON_STR_KEYS | opt::EXACT) {
            return Err(error::bad_key(key, false));
        }
        write_non_str(key, st, cx, e)
    }
}

/// Keys of the richer types can run Python code; a tuple key is held by the caller, which keeps
/// its items alive.
///
/// # Safety
/// `key` is live and held by the caller; the GIL is held.
#[inline(never)]
unsafe fn write_non_str<E: Emitter>(key: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    if cx.exact.is_some() {
        // Keys come back as themselves too: a tuple key stays a tuple, a frozenset a frozenset.
        return dispatch::write(key, st, cx, e);
    }
    // SAFETY: `key` is held by the caller and the GIL is held (this function's precondition); each
    // branch reads `key` as the type it was checked to be.
    unsafe {
        let ty = ffi::type_of(key.as_ptr());
        if key.is_none() {
            e.nil()
        } else if ty == ffi::bool_type() {
            e.bool(key.as_ptr() == ffi::true_obj())
        } else if ffi::has_flag(ty, ffi::Py_TPFLAGS_UNICODE_SUBCLASS) {
            per_type::str::write(key, st, cx, e)
        } else if ffi::has_flag(ty, ffi::Py_TPFLAGS_LONG_SUBCLASS) {
            match int_value(key.as_ptr()) {
                IntValue::I64(v) => e.int(v),
                IntValue::U64(v) => e.uint(v),
                IntValue::Big => Err(error::int_too_big()),
            }
        } else if ffi::is_subtype(ty, ffi::float_type()) {
            e.float(ffi::float_value(key.as_ptr()))
        } else if ffi::has_flag(ty, ffi::Py_TPFLAGS_BYTES_SUBCLASS) {
            e.bin(ffi::bytes_data(key.as_ptr()))
        } else if ffi::has_flag(ty, ffi::Py_TPFLAGS_TUPLE_SUBCLASS) {
            let st = st.enter_container()?;
            let items = ffi::tuple_items(key.as_ptr());
            e.array_begin(items.len())?;
            for (i, &item) in items.iter().enumerate() {
                e.array_item(i)?;
                // SAFETY: the tuple key is held by the caller (this function's precondition)
                // and its items never change, so each item lives while it is written.
                crate::stack::grown(|| write_non_str(Ref::new(item), st, cx, e))?;
            }
            e.array_end()
        } else {
            write_rich(key, ty, st, cx, e)
        }
    }
}

/// Keys of the richer types, packed as they are as values.
///
/// # Safety
/// `key` is live and held by the caller, `ty` is its type; the GIL is held.
#[cold]
unsafe fn write_rich<E: Emitter>(key: Ref<'_>, ty: TypePtr, st: State, cx: &Ctx, e: &mut E) -> Res {
    let k = cx.known;
    // SAFETY: `key` is held by the caller, `ty` is its type, and the GIL is held (this function's
    // precondition); each writer gets `key` only once `ty` was checked to be (a subtype of) the
    // writer's type.
    unsafe {
        if ffi::is_subtype(ty, k.datetime) {
            per_type::datetime::write_datetime(key, st, cx, e)
        } else if ffi::is_subtype(ty, k.date) {
            per_type::datetime::write_date(key, e)
        } else if ffi::is_subtype(ty, k.time) {
            per_type::datetime::write_time(key, st, e)
        } else if ffi::is_subtype(ty, k.uuid) {
            per_type::uuid::write(key, cx, e)
        } else if ffi::is_subtype(ffi::type_of(ty.cast()), k.enum_meta) {
            let value = per_type::enums::member_value(key, cx)?;
            let st = st.enter_container()?;
            crate::stack::grown(|| write_non_str(Ref::of(&value), st, cx, e))
        } else {
            Err(error::bad_key(key, true))
        }
    }
}
