//! pydantic (v2) models with `OPT_SERIALIZE_PYDANTIC`: the values in the instance `__dict__`,
//! then the `extra` values, as one map; names starting with `_` are left out. pydantic itself is
//! never imported: models are recognised by their `__pydantic_fields__` attribute.

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Obj, Owned};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{dispatch, error, per_type, Ctx};

/// # Safety
/// `obj` is a live object whose type has `__pydantic_fields__`; the GIL is held.
#[inline(never)]
pub unsafe fn write<E: Emitter>(obj: Obj, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller; the model holds its `__dict__` and extra values, and
    // both are held here too.
    unsafe {
        let _hold = ffi::hold(obj);
        let dict = ffi::get_attr(obj, cx.known.names.dict)
            .map_err(|cause| error::attribute_failed("model __dict__ could not be read", cause))?;
        let extra = ffi::get_attr(obj, cx.known.names.pydantic_extra).ok();
        let no_extra = extra
            .as_ref()
            .is_none_or(|x| x.as_ptr() == ffi::none() || !has_entries(x.as_ptr()));
        if no_extra && ffi::is_dict(dict.as_ptr()) && all_public(dict.as_ptr()) {
            // The usual model: its map is its `__dict__`, written as any dict is.
            return per_type::dict::write(dict.as_ptr(), st, cx, e);
        }
        write_collected(dict.as_ptr(), extra.as_ref().map(Owned::as_ptr), st, cx, e)
    }
}

/// Whether `obj` is a dict with entries.
///
/// # Safety
/// `obj` is live.
unsafe fn has_entries(obj: Obj) -> bool {
    // SAFETY: forwarded from the caller; `dict_len` is read only from a dict.
    unsafe { ffi::is_dict(obj) && ffi::dict_len(obj) != 0 }
}

/// Whether every key of `dict` is a `str` not starting with `_`, so that the whole dict is the
/// model's map. Runs no Python code.
///
/// # Safety
/// `dict` is a live dict, held by the caller; the GIL is held.
unsafe fn all_public(dict: Obj) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        ffi::DictIter::new(dict)
            .all(|(key, _)| ffi::type_of(key) == ffi::str_type() && !ffi::is_private_name(key))
    }
}

/// A model whose map is not just its `__dict__`: one with extra values, or with names left out.
/// Its public entries are collected, each held, then written.
///
/// # Safety
/// `dict` and `extra` are live and held by the caller; the GIL is held.
#[inline(never)]
unsafe fn write_collected<E: Emitter>(
    dict: Obj,
    extra: Option<Obj>,
    st: State,
    cx: &Ctx,
    e: &mut E,
) -> Res {
    let st = st.enter_container()?;
    let mut entries: Vec<(Owned, Owned)> = Vec::new();
    // SAFETY: forwarded from the caller; every key and value collected is held.
    unsafe {
        collect(dict, &mut entries);
        if let Some(extra) = extra {
            collect(extra, &mut entries);
        }
        if st.has(opt::SORT_KEYS) {
            // Keys are str; one that cannot be UTF-8 sorts first, and fails when it is written.
            entries.sort_by_cached_key(|(key, _)| ffi::str_utf8(key.as_ptr()).map(<[u8]>::to_vec));
            ffi::clear_error();
        }
        e.map_begin(entries.len())?;
        for (i, (key, value)) in entries.iter().enumerate() {
            e.map_key(i)?;
            per_type::str::write(key.as_ptr(), st, e)?;
            e.map_value()?;
            dispatch::write(value.as_ptr(), st, cx, e)?;
        }
    }
    e.map_end()
}

/// Appends the str-keyed entries of `dict` (if it is a dict) whose key does not start with `_`.
unsafe fn collect(dict: Obj, entries: &mut Vec<(Owned, Owned)>) {
    // SAFETY: the caller holds `dict`; entries take their own references.
    unsafe {
        if !ffi::is_dict(dict) {
            return;
        }
        for (key, value) in ffi::DictIter::new(dict) {
            let public = ffi::type_of(key) == ffi::str_type() && !ffi::is_private_name(key);
            if public {
                entries.push((Owned::from_borrowed(key), Owned::from_borrowed(value)));
            }
        }
    }
}
