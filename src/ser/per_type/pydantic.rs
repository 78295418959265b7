//! pydantic (v2) models with `OPT_SERIALIZE_PYDANTIC`: the values in the instance `__dict__`,
//! then the `extra` values, as one map; names starting with `_` are left out. pydantic itself is
//! never imported: models are recognised by their `__pydantic_fields__` attribute.

use crate::emit::{Emitter, KeyText};
use crate::error::Res;
use crate::ffi::{self, Owned, Ref};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{dispatch, error, per_type, Ctx};

/// # Safety
/// `obj` is a live object whose type has `__pydantic_fields__`; the GIL is held.
#[inline(never)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live model and the GIL is held (this function's precondition); the model
    // holds its `__dict__` and extra values, and both are held here too.
    unsafe {
        let _hold = ffi::hold(obj.as_ptr());
        let dict = ffi::get_attr(obj.as_ptr(), cx.known.names.dict)
            .map_err(|cause| error::attribute_failed("model __dict__ could not be read", cause))?;
        let extra = ffi::get_attr(obj.as_ptr(), cx.known.names.pydantic_extra).ok();
        // An extra that is neither None nor a dict is an error, raised in `write_collected`.
        let no_extra = extra
            .as_ref()
            .is_none_or(|x| x.as_ptr() == ffi::none() || is_empty_dict(Ref::of(x)));
        if no_extra && ffi::is_dict(dict.as_ptr()) && all_public(Ref::of(&dict)) {
            // The usual model: its map is its `__dict__`, written as any dict is.
            return per_type::dict::write(Ref::of(&dict), st, cx, e);
        }
        write_collected(Ref::of(&dict), extra.as_ref().map(Ref::of), st, cx, e)
    }
}

/// Whether `obj` is a dict without entries.
fn is_empty_dict(obj: Ref<'_>) -> bool {
    // SAFETY: `obj` is live (`Ref`'s invariant), so its type can be read; `dict_len` is read only
    // from a dict.
    unsafe { ffi::is_dict(obj.as_ptr()) && ffi::dict_len(obj.as_ptr()) == 0 }
}

/// Whether every key of `dict` is a `str` not starting with `_`, so that the whole dict is the
/// model's map. Runs no Python code.
///
/// # Safety
/// `dict` is a live dict, held by the caller; the GIL is held.
unsafe fn all_public(dict: Ref<'_>) -> bool {
    // SAFETY: `dict` is a live dict held by the caller, with the GIL held (this function's
    // precondition), as `DictIter::new` needs; the check runs no Python code, so its keys stay
    // alive.
    unsafe {
        ffi::DictIter::new(dict.as_ptr())
            .all(|(key, _)| ffi::type_of(key) == ffi::str_type() && !ffi::is_private_name(key))
    }
}

/// A model whose map is not just its `__dict__`: one with extra values, with names left out, or
/// with keys that are not `str` (written as a dict writes them with `OPT_NON_STR_KEYS`, an error
/// without it). Its public entries are collected, each held, then written.
///
/// # Safety
/// `dict` and `extra` are live and held by the caller; the GIL is held.
#[inline(never)]
unsafe fn write_collected<E: Emitter>(
    dict: Ref<'_>,
    extra: Option<Ref<'_>>,
    st: State,
    cx: &Ctx,
    e: &mut E,
) -> Res {
    let st = st.enter_container()?;
    let mut entries: Vec<(Owned, Owned)> = Vec::new();
    // SAFETY: `dict` is held by the caller and `extra` too when it is not None, and the GIL is held
    // (this function's precondition), as `collect` needs; every key and value collected is held.
    unsafe {
        collect(dict, "__dict__", st, &mut entries)?;
        if let Some(extra) = extra.filter(|x| !x.is_none()) {
            collect(extra, "__pydantic_extra__", st, &mut entries)?;
        }
        if st.has(opt::SORT_KEYS) {
            let mut sorted = Vec::with_capacity(entries.len());
            for (key, value) in entries {
                sorted.push((sort_text::<E>(Ref::of(&key), st, cx)?, key, value));
            }
            // Stable: a name in both `__dict__` and the extra values keeps both, in that order.
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            entries = sorted.into_iter().map(|(_, k, v)| (k, v)).collect();
        }
        e.map_begin(entries.len())?;
        for (i, (key, value)) in entries.iter().enumerate() {
            e.map_key(i)?;
            per_type::key::write(Ref::of(key), st, cx, e)?;
            e.map_value()?;
            dispatch::write(Ref::of(value), st, cx, e)
                .map_err(|err| err.at_key(Ref::of(key), dict))?;
        }
    }
    e.map_end()
}

/// Appends the entries of `dict` (the model's `what`) except the names starting with `_`. A
/// `dict` that is not a dict, or (without `OPT_NON_STR_KEYS`) a key that is not exactly a `str`,
/// is an error: nothing is left out silently.
///
/// # Safety
/// The caller holds `dict`; entries take their own references. The GIL is held.
unsafe fn collect(
    dict: Ref<'_>,
    what: &'static str,
    st: State,
    entries: &mut Vec<(Owned, Owned)>,
) -> Res {
    // SAFETY: the caller holds `dict` and the GIL is held (this function's precondition); it is
    // walked as a dict only once checked to be one, and no Python code runs during the walk.
    unsafe {
        if !ffi::is_dict(dict.as_ptr()) {
            return Err(error::model_not_a_dict(what, dict));
        }
        for (key, value) in ffi::DictIter::new(dict.as_ptr()) {
            if ffi::type_of(key) != ffi::str_type() && !st.has(opt::NON_STR_KEYS) {
                // SAFETY: the held dict holds `key`, and no Python code runs before the error
                // has named its type.
                return Err(error::model_key(what, Ref::new(key)));
            }
            if !ffi::is_private_name(key) {
                entries.push((Owned::from_borrowed(key), Owned::from_borrowed(value)));
            }
        }
    }
    Ok(())
}

/// The bytes a key sorts by with `OPT_SORT_KEYS`, as in a dict: a `str`'s UTF-8 (lone surrogates
/// replaced with `OPT_REPLACE_SURROGATES`, else an error), or for JSON another key's text.
///
/// # Safety
/// `key` is live and held by the caller; the GIL is held.
#[cold]
unsafe fn sort_text<E: Emitter>(key: Ref<'_>, st: State, cx: &Ctx) -> Res<Vec<u8>> {
    // SAFETY: `key` is live and held by the caller, with the GIL (this function's precondition); it
    // is read as a str only when it is one.
    unsafe {
        if ffi::has_flag(key.type_of(), ffi::Py_TPFLAGS_UNICODE_SUBCLASS) {
            if let Some(utf8) = ffi::str_utf8(key.as_ptr()) {
                return Ok(utf8.to_vec());
            }
            let encoded = per_type::str::encode_surrogates(key, st, cx)?;
            return Ok(ffi::bytes_data(encoded.as_ptr()).to_vec());
        }
        if !E::STRINGIFIES_KEYS {
            return Err(error::sort_non_str_keys());
        }
        let mut text = KeyText::default();
        per_type::key::write(key, st, cx, &mut text)?;
        Ok(text.0)
    }
}
