//! Dataclass instances as maps of their fields, in definition order. `ClassVar` and `InitVar`
//! pseudo-fields and fields whose name starts with `_` are left out.

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Owned, Ref};
use crate::ser::state::State;
use crate::ser::{dispatch, error, per_type, Ctx};

/// The cache of field names is emptied when it holds this many types (classes made on the fly
/// would otherwise be kept alive forever).
const MAX_CACHED_TYPES: usize = 4096;

/// # Safety
/// `obj` is a live dataclass instance; the GIL is held.
#[inline(never)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let st = st.enter_container()?;
    // SAFETY: `obj` is a live dataclass instance and the GIL is held (this function's
    // precondition); it is held for the walk, and `names` is a tuple of str held here.
    unsafe {
        let _hold = ffi::hold(obj.as_ptr());
        let held_names = field_names(obj.type_ref(), cx)?;
        let names = ffi::tuple_items(held_names.as_ptr());
        // Field values are read from the instance dict when there is one, else through
        // attribute access (slots, properties). `__init__` sets the fields in their order, under
        // the same str objects as the names, so the dict is walked alongside the names and a
        // field is looked up by name only where its entry is not the next one.
        let dict = ffi::instance_dict(obj.as_ptr());
        // SAFETY: `dict` is a live dict, held for the walk.
        let mut cursor = dict.as_ref().map(|d| ffi::DictCursor::new(d.as_ptr()));
        e.map_begin(names.len())?;
        for (i, &name) in names.iter().enumerate() {
            // SAFETY: `names` is a tuple of str held here, so each name stays alive (a tuple's
            // items never change) for the walk.
            let name = Ref::new(name);
            e.map_key(i)?;
            per_type::str::write(name, st, cx, e)?;
            e.map_value()?;
            // SAFETY: `name` is an exact str not starting with `_` (`field_names` keeps no
            // other), and the cursor's dict is held.
            let value = match cursor.as_mut().and_then(|c| c.take(name.as_ptr())) {
                Some(value) => value,
                None => read_field(obj, dict.as_ref(), name)?,
            };
            dispatch::write(Ref::of(&value), st, cx, e).map_err(|err| err.at_key(name, obj))?;
        }
    }
    e.map_end()
}

/// A field the dict walk did not find in its place: looked up in the instance dict by name, else
/// read as an attribute.
///
/// # Safety
/// `obj` is live and held, `dict` (its `__dict__`) too, `name` is a str; the thread is attached.
#[inline(never)]
unsafe fn read_field(obj: Ref<'_>, dict: Option<&Owned>, name: Ref<'_>) -> Res<Owned> {
    // SAFETY: all are live and held (this function's precondition).
    unsafe {
        match dict.and_then(|d| ffi::dict_get(d.as_ptr(), name.as_ptr())) {
            Some(value) => Ok(value),
            None => ffi::get_attr(obj.as_ptr(), name.as_ptr()).map_err(|cause| {
                error::attribute_failed("dataclass field could not be read", cause)
            }),
        }
    }
}

/// The names of the fields to pack for a dataclass type, as a tuple of str, from the cache or
/// worked out from `__dataclass_fields__`.
///
/// # Safety
/// `ty` is a live dataclass type; the thread is attached.
unsafe fn field_names(ty: Ref<'_>, cx: &Ctx) -> Res<Owned> {
    let key: ffi::TypePtr = ty.as_ptr().cast();
    // A new reference to the memo's tuple, taken before the memo could replace it.
    if let Some(names) = cx.dataclass_names.get(key, |names| Ref::of(names).hold()) {
        return Ok(names);
    }
    // SAFETY: `ty` is a live dataclass type and the thread is attached (this function's
    // precondition); `ty` is not in the memo.
    unsafe {
        let names = names_of(ty, cx)?;
        // Not kept (the memo being read) only costs the lookup again next time.
        cx.dataclass_names.put(key, Ref::of(&names).hold());
        Ok(names)
    }
}

/// [`field_names`] past this call's memo.
///
/// # Safety
/// `ty` is a live dataclass type; the thread is attached.
#[inline(never)]
unsafe fn names_of(ty: Ref<'_>, cx: &Ctx) -> Res<Owned> {
    let cache = cx.known.dataclass_fields.as_ptr();
    // SAFETY: the cache is a live dict of type -> tuple; attached.
    unsafe {
        // A strong reference: another thread may empty the cache meanwhile.
        if let Some(names) = ffi::dict_get(cache, ty.as_ptr()) {
            return Ok(names);
        }
        let fields =
            ffi::get_attr(ty.as_ptr(), cx.known.names.dataclass_fields).map_err(|cause| {
                error::attribute_failed("__dataclass_fields__ could not be read", cause)
            })?;
        if !ffi::is_dict(fields.as_ptr()) {
            return Err(error::attribute_failed(
                "__dataclass_fields__ is not a dict",
                pyo3::exceptions::PyTypeError::new_err("expected a dict"),
            ));
        }
        let _hold = ffi::hold(fields.as_ptr());
        let mut kept = Vec::new();
        for (name, field) in ffi::DictIter::new(fields.as_ptr()) {
            let kind = ffi::get_attr(field, cx.known.names.field_type).map_err(|cause| {
                error::attribute_failed("dataclass field has no _field_type", cause)
            })?;
            let is_field = kind.as_ptr() == cx.known.field_marker;
            let public = ffi::type_of(name) == ffi::str_type() && !ffi::is_private_name(name);
            if is_field && public {
                kept.push(Owned::from_borrowed(name));
            }
        }
        let names = ffi::new_tuple(kept.len()).ok_or_else(ffi::fetch_error)?;
        for (i, name) in kept.into_iter().enumerate() {
            ffi::tuple_set(&names, i, name);
        }
        if ffi::dict_len(cache) >= MAX_CACHED_TYPES {
            ffi::dict_clear(cache);
        }
        if !ffi::dict_insert(cache, ty.as_ptr(), names.as_ptr()) {
            return Err(error::attribute_failed(
                "dataclass field cache",
                ffi::fetch_error(),
            ));
        }
        Ok(names)
    }
}
