use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, Ref};
use crate::ser::error;
use crate::ser::Ctx;

use super::oob;

/// # Safety
/// `obj` is a live bytes object.
#[inline(always)]
pub unsafe fn write_bytes<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live bytes object (this function's precondition), so its data is `ob_size`
    // bytes that never change while it lives.
    let data = unsafe { ffi::bytes_data(obj.as_ptr()) };
    // SAFETY: as above; a bytes object's memory never changes.
    if data.len() >= cx.oob_threshold && unsafe { oob::offer(obj, data.len(), cx, e) }? {
        return Ok(());
    }
    e.bin(data)
}

/// A bytearray's bytes, copied while no other thread can resize it.
///
/// # Safety
/// `obj` is a live bytearray; the thread is attached; the emitter runs no Python code while
/// copying.
#[inline]
pub unsafe fn write_bytearray<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live bytearray (this function's precondition), so its size field can be
    // read; the bytes themselves are read again below, under `with_bytearray`'s rules.
    let len = unsafe { ffi::var_size(obj.as_ptr()) };
    // SAFETY: as above; the callback gets a `PickleBuffer`, which holds an export of the
    // bytearray, and the data is read again after it ran.
    if len >= cx.oob_threshold && unsafe { oob::offer(obj, len, cx, e) }? {
        return Ok(());
    }
    // SAFETY: `obj` is a live bytearray, the thread is attached, and the emitter runs no Python
    // code while copying (this function's precondition): what `with_bytearray` needs.
    unsafe { ffi::with_bytearray(obj.as_ptr(), |bytes| e.bin(bytes)) }
}

/// A memoryview's bytes (or those of any other object with a buffer: a `pickle.PickleBuffer`);
/// it must be C-contiguous.
///
/// # Safety
/// `obj` is a live memoryview; the GIL is held.
#[inline]
pub unsafe fn write_memoryview<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    if cx.oob.is_some() {
        // SAFETY: `obj` is a live memoryview and the GIL is held (this function's precondition), so
        // its buffer can be exported; measuring the length runs no Python code.
        let len = unsafe { ffi::with_exported(obj.as_ptr(), |bytes| bytes.len()) };
        // A non-contiguous buffer is refused below.
        if let Ok(len) = len {
            if len >= cx.oob_threshold {
                // SAFETY: `obj` is a live memoryview, so it exports a buffer, and the GIL is held
                // (this function's precondition): what `offer` needs.
                let taken = unsafe { oob::offer(obj, len, cx, e) }?;
                if taken {
                    return Ok(());
                }
            }
        }
    }
    // SAFETY: `obj` is a live memoryview and the GIL is held (this function's precondition), so its
    // buffer can be exported; copying the bytes runs no Python code, so the export stays valid.
    unsafe { ffi::with_exported(obj.as_ptr(), |bytes| e.bin(bytes)) }
        .map_err(error::memoryview_not_contiguous)?
}
