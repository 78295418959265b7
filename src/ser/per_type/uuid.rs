//! `uuid.UUID` as its canonical 36-character text.

use pyo3::prelude::*;

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Ref};
use crate::ser::{error, Ctx};

/// # Safety
/// `obj` is a live UUID (or subclass); the GIL is held.
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    let k = cx.known;
    // An exact UUID's `int` is its slot (a subclass may compute `int` otherwise).
    // SAFETY: `obj` is a live UUID and the GIL is held (this function's precondition), so its type
    // can be read.
    let exact = unsafe { ffi::type_of(obj.as_ptr()) } == k.uuid;
    if let (true, Some(offset)) = (exact, k.uuid_int_slot) {
        // SAFETY: `obj` is a live exact UUID (checked above), so `offset` is that of its `int`
        // slot; the thread is attached (this function's precondition). The slot's int is held by the
        // UUID, and nothing runs Python code before its value is read.
        let value =
            unsafe { ffi::slot_value(obj.as_ptr(), offset).and_then(|int| ffi::small_u128(int)) };
        if let Some(value) = value {
            return e.str(&canonical(value));
        }
    }
    // SAFETY: `obj` is a live UUID and the GIL is held (this function's precondition), as
    // `write_read` needs.
    unsafe { write_read(obj, cx, e) }
}

/// A UUID whose `int` is read with `getattr`, and converted by the general path.
///
/// # Safety
/// `obj` is a live UUID (or subclass); the GIL is held.
#[inline(never)]
unsafe fn write_read<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live UUID and `names.int` a str the context holds, with the GIL held (this
    // function's precondition); the result is a new reference.
    let int = unsafe { ffi::get_attr(obj.as_ptr(), cx.known.names.int) }
        .map_err(|cause| error::attribute_failed("UUID.int could not be read", cause))?;
    // SAFETY: attached; `int` is a live object we own.
    let value: u128 = unsafe { Borrowed::from_ptr(Python::assume_attached(), int.as_ptr()) }
        .extract()
        .map_err(|cause| error::attribute_failed("UUID.int is not a 128-bit int", cause))?;
    e.str(&canonical(value))
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lowercase hex.
fn canonical(value: u128) -> [u8; 36] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // Where each of the 16 bytes goes: two hex digits, dashes after bytes 4, 6, 8 and 10.
    const AT: [usize; 16] = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
    let mut out = [b'-'; 36];
    for (byte, at) in value.to_be_bytes().iter().zip(AT) {
        out[at] = HEX[(byte >> 4) as usize];
        out[at + 1] = HEX[(byte & 0xf) as usize];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::canonical;

    #[test]
    fn canonical_form() {
        let v = 0x1234_5678_9abc_def0_0fed_cba9_8765_4321u128;
        assert_eq!(&canonical(v), b"12345678-9abc-def0-0fed-cba987654321");
        assert_eq!(&canonical(0), b"00000000-0000-0000-0000-000000000000");
    }
}
