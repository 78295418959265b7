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
    let st = st.enter_container()?;
    let mut entries: Vec<(Owned, Owned)> = Vec::new();
    // SAFETY: forwarded from the caller; every key and value collected is held.
    unsafe {
        let _hold = ffi::hold(obj);
        let dict = ffi::get_attr(obj, cx.known.names.dict)
            .map_err(|cause| error::attribute_failed("model __dict__ could not be read", cause))?;
        collect(dict.as_ptr(), &mut entries);
        if let Ok(extra) = ffi::get_attr(obj, cx.known.names.pydantic_extra) {
            collect(extra.as_ptr(), &mut entries);
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
