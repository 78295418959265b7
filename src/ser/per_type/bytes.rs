use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, Obj};
use crate::ser::error;
use crate::ser::Ctx;

use super::oob;

/// # Safety
/// `obj` is a live bytes object.
#[inline(always)]
pub unsafe fn write_bytes<E: Emitter>(obj: Obj, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    let data = unsafe { ffi::bytes_data(obj) };
    // SAFETY: as above; a bytes object's memory never changes.
    if data.len() >= cx.oob_threshold && unsafe { oob::offer(obj, data.len(), cx, e) }? {
        return Ok(());
    }
    e.bin(data)
}

/// # Safety
/// `obj` is a live bytearray; the emitter runs no Python code while copying.
#[inline]
pub unsafe fn write_bytearray<E: Emitter>(obj: Obj, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    let len = unsafe { ffi::bytearray_data(obj) }.len();
    // SAFETY: as above; the callback gets a `PickleBuffer`, which holds an export of the
    // bytearray, and the data is read again after it ran.
    if len >= cx.oob_threshold && unsafe { oob::offer(obj, len, cx, e) }? {
        return Ok(());
    }
    // SAFETY: forwarded from the caller.
    e.bin(unsafe { ffi::bytearray_data(obj) })
}

/// A memoryview's bytes (or those of any other object with a buffer: a `pickle.PickleBuffer`);
/// it must be C-contiguous.
///
/// # Safety
/// `obj` is a live memoryview; the GIL is held.
#[inline]
pub unsafe fn write_memoryview<E: Emitter>(obj: Obj, cx: &Ctx, e: &mut E) -> Res {
    if cx.oob.is_some() {
        // SAFETY: forwarded from the caller.
        let len = unsafe { ffi::with_exported(obj, |bytes| bytes.len()) };
        // SAFETY: as above; a non-contiguous buffer is refused below.
        if let Ok(len) = len {
            if len >= cx.oob_threshold && unsafe { oob::offer(obj, len, cx, e) }? {
                return Ok(());
            }
        }
    }
    // SAFETY: forwarded from the caller; copying the bytes runs no Python code.
    unsafe { ffi::with_exported(obj, |bytes| e.bin(bytes)) }
        .map_err(error::memoryview_not_contiguous)?
}
