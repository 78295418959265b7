use pyo3::prelude::*;

use crate::error::Res;

use crate::emit::Emitter;
use crate::ext::Ext;
use crate::ffi::Ref;

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
