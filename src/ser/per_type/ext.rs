use pyo3::prelude::*;

use crate::error::Res;

use crate::emit::Emitter;
use crate::ext::Ext;
use crate::ffi::{self, IntValue, Ref};
use crate::ser::state::State;
use crate::ser::Ctx;

/// An [`Ext`] as fixext or ext 8/16/32.
///
/// # Safety
/// `obj` is a live `Ext`; the GIL is held.
#[inline]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: the GIL is held and `obj` is an Ext (its type was checked by pointer).
    let (py, ext) = unsafe {
        let py = Python::assume_attached();
        (
            py,
            Borrowed::from_ptr(py, obj.as_ptr()).cast_unchecked::<Ext>(),
        )
    };
    let ext = ext.get();
    e.ext(ext.tag_i8(), ext.payload(py))
}

/// An instance of the class [`Ctx::ext_tuple`] names (a named tuple of `code` and `data`; this
/// class exactly), in a call with a hook, without calling Python: as an [`Ext`] of the same tag
/// and payload, when `code` is an `int` from -128 to 127 and `data` a `bytes`, as the class's
/// constructor makes them. One made around the constructor with other items goes to `default`
/// (the hook's caller's, which packs it as before, or raises the same error).
///
/// # Safety
/// `obj` is a live instance of the class [`Ctx::ext_tuple`] names, a tuple subclass; the thread
/// is attached.
#[inline(never)]
pub unsafe fn write_tuple<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live tuple (subclass) (the precondition); its items never change and live
    // as long as it does, which `obj` guarantees for this call.
    let items = unsafe { ffi::tuple_items(obj.as_ptr()) };
    if let [code, data] = *items {
        // SAFETY: both items are live objects held by the tuple; each is read as the type its
        // pointer was just compared with.
        unsafe {
            if ffi::type_of(code) == ffi::int_type() && ffi::type_of(data) == ffi::bytes_type() {
                if let IntValue::I64(code) = ffi::int_value(code) {
                    if let Ok(tag) = i8::try_from(code) {
                        return e.ext(tag, ffi::bytes_data(data));
                    }
                }
            }
        }
    }
    super::default::write(obj, st, cx, e)
}
