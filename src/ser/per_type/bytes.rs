use crate::error::Res;

use crate::emit::Emitter;
use crate::ffi::{self, Obj};
use crate::ser::error;

/// # Safety
/// `obj` is a live bytes object.
#[inline(always)]
pub unsafe fn write_bytes<E: Emitter>(obj: Obj, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    e.bin(unsafe { ffi::bytes_data(obj) })
}

/// A bytearray's bytes, copied while no other thread can resize it.
///
/// # Safety
/// `obj` is a live bytearray; the thread is attached; the emitter runs no Python code while
/// copying.
#[inline]
pub unsafe fn write_bytearray<E: Emitter>(obj: Obj, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    unsafe { ffi::with_bytearray(obj, |bytes| e.bin(bytes)) }
}

/// A memoryview's bytes; it must be C-contiguous.
///
/// # Safety
/// `obj` is a live memoryview; the GIL is held.
#[inline]
pub unsafe fn write_memoryview<E: Emitter>(obj: Obj, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller; copying the bytes runs no Python code.
    unsafe { ffi::with_exported(obj, |bytes| e.bin(bytes)) }
        .map_err(error::memoryview_not_contiguous)?
}
