//! Python 3.14 and later: telling a compact ASCII `str` (whose characters are its UTF-8) by its
//! header, as the C macro `PyUnicode_IS_COMPACT_ASCII` does, and reading the UTF-8 form CPython
//! keeps on any other str once made (on every 3.14 build, free-threaded included).
//!
//! From 3.14 pyo3-ffi no longer reads the `state` bit field of `PyASCIIObject` (the free-threaded
//! build changed its layout), and CPython exports no function for it. Going through
//! `PyUnicode_AsUTF8AndSize` for every string instead is a call per string and key.
//!
//! So the bits are read here as CPython's header declares them (Include/cpython/unicodeobject.h,
//! 3.14), for the layouts whose bit positions are known: little-endian targets, and for the
//! free-threaded build the C compilers that place the bit field right after `interned` (GCC and
//! Clang; MSVC starts a new unit). That reading is used only once [`verify`] has checked it, at
//! module import, against CPython's own functions on strings of every form; otherwise (another
//! layout, or a check that fails) every string takes `PyUnicode_AsUTF8AndSize`, which is always
//! right.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};

use super::Obj;

/// The `compact` and `ascii` bits of the first 32-bit word of `state`, where known.
#[cfg(all(target_endian = "little", not(Py_GIL_DISABLED)))]
const COMPACT_ASCII: Option<u32> = Some((1 << 5) | (1 << 6));
/// Free-threaded: `interned` is a whole byte, the bit field follows it in the same word.
#[cfg(all(target_endian = "little", Py_GIL_DISABLED, not(target_env = "msvc")))]
const COMPACT_ASCII: Option<u32> = Some((1 << 11) | (1 << 12));
#[cfg(not(any(
    all(target_endian = "little", not(Py_GIL_DISABLED)),
    all(target_endian = "little", Py_GIL_DISABLED, not(target_env = "msvc"))
)))]
const COMPACT_ASCII: Option<u32> = None;

/// Set by [`verify`] when the reading above agrees with CPython; read without ordering, as a
/// `false` seen late only sends strings to the slower, always-right path.
static VERIFIED: AtomicBool = AtomicBool::new(false);

/// Whether [`verify`] turned the reading on.
pub fn verified() -> bool {
    VERIFIED.load(Ordering::Relaxed)
}

/// The first word of a str's `state`.
///
/// # Safety
/// `obj` is a live str.
#[inline(always)]
unsafe fn state_word(obj: Obj) -> u32 {
    // SAFETY: every str starts with the `PyASCIIObject` fields, and `state` is at least 32 bits
    // wide in every layout (a bit field of `unsigned int`s), never written after creation
    // except for `interned`, which is in another byte in the free-threaded build and written
    // before the string is shared in the other.
    unsafe {
        obj.cast::<u8>()
            .add(std::mem::offset_of!(ffi::PyASCIIObject, state))
            .cast::<u32>()
            .read()
    }
}

/// The UTF-8 of a str when it is at hand without encoding: a compact ASCII string's characters,
/// or the UTF-8 form CPython stores on any other string once it has made one; `None` when
/// neither (or for every str when the layout was not verified).
///
/// # Safety
/// `obj` is a live str and the slice is not used after it dies.
#[inline(always)]
pub unsafe fn utf8_ready<'a>(obj: Obj) -> Option<&'a [u8]> {
    let mask = COMPACT_ASCII?;
    if !VERIFIED.load(Ordering::Relaxed) {
        return None;
    }
    // SAFETY: `obj` is a live str. A compact ASCII string keeps its `length` characters right
    // after its `PyASCIIObject` header (checked by `verify`). Every other str starts with the
    // `PyCompactUnicodeObject` fields, whose `utf8` is null until CPython stores the string's
    // UTF-8 form there: it writes `utf8_length` first, then `utf8` with a release store, and
    // reads `utf8` with an acquire load (Objects/unicodeobject.c, 3.14), as here, so a pointer
    // seen here comes with its length; the form is kept until the string dies.
    unsafe {
        if state_word(obj) & mask == mask {
            let len = ffi::PyUnicode_GET_LENGTH(obj) as usize;
            let data = obj
                .cast::<u8>()
                .add(std::mem::size_of::<ffi::PyASCIIObject>());
            return Some(std::slice::from_raw_parts(data, len));
        }
        let compact = obj.cast::<ffi::PyCompactUnicodeObject>();
        let utf8 = std::sync::atomic::AtomicPtr::from_ptr(std::ptr::addr_of_mut!((*compact).utf8))
            .load(Ordering::Acquire);
        if utf8.is_null() {
            return None;
        }
        let len = (*compact).utf8_length as usize;
        Some(std::slice::from_raw_parts(utf8 as *const u8, len))
    }
}

/// Where the characters of a str that `PyUnicode_New` just made start: right after the header of
/// a compact ASCII string (`ascii`), or of any other compact one, as `PyUnicode_DATA` finds them
/// (a call on 3.14, where it is no longer an inline macro in pyo3-ffi); through that call when the
/// layout was not verified.
///
/// # Safety
/// `obj` is a live compact str (made by `PyUnicode_New`), ASCII exactly when `ascii`.
#[inline(always)]
pub unsafe fn new_data(obj: Obj, ascii: bool) -> *mut u8 {
    if COMPACT_ASCII.is_none() || !VERIFIED.load(Ordering::Relaxed) {
        // SAFETY: `obj` is a live str (the precondition).
        return unsafe { ffi::PyUnicode_DATA(obj).cast() };
    }
    let header = if ascii {
        std::mem::size_of::<ffi::PyASCIIObject>()
    } else {
        std::mem::size_of::<ffi::PyCompactUnicodeObject>()
    };
    // SAFETY: a compact str's characters follow its header (checked by `verify` against
    // `PyUnicode_DATA` for both kinds of header).
    unsafe { obj.cast::<u8>().add(header) }
}

/// Checks the reading of `state` against CPython's `PyUnicode_DATA` and what is known of strings
/// of each form (compact ASCII; compact with 1, 2 and 4 bytes a character; a subclass instance,
/// which is not compact), where each compact form's characters start, and the reading of the UTF-8 form against `PyUnicode_AsUTF8AndSize`,
/// and turns both on when all agree.
pub fn verify(py: Python<'_>) -> PyResult<()> {
    let Some(mask) = COMPACT_ASCII else {
        return Ok(());
    };
    let ascii = PyString::new(py, "fastmsgpack");
    let others = [
        PyString::new(py, "caf\u{e9}"),
        PyString::new(py, "\u{100}"),
        PyString::new(py, "\u{1f600}"),
    ];
    // A str subclass's instances are not compact: their characters are in a separate block.
    let str_type = py.get_type::<PyString>();
    let subclass = py.get_type::<PyType>().call1((
        "_LayoutProbe",
        PyTuple::new(py, [str_type])?,
        PyDict::new(py),
    ))?;
    let legacy = subclass.call1(("fastmsgpack",))?;
    // SAFETY: attached; all are live strs.
    let agrees = unsafe {
        let a = ascii.as_ptr();
        let data_ok = ffi::PyUnicode_DATA(a).cast::<u8>()
            == a.cast::<u8>()
                .add(std::mem::size_of::<ffi::PyASCIIObject>());
        let text_ok = {
            let data = a
                .cast::<u8>()
                .add(std::mem::size_of::<ffi::PyASCIIObject>());
            let len = ffi::PyUnicode_GET_LENGTH(a) as usize;
            std::slice::from_raw_parts(data, len) == b"fastmsgpack"
        };
        // A compact non-ASCII string's characters follow the larger header.
        let compact_data_ok = others.iter().all(|s| {
            ffi::PyUnicode_DATA(s.as_ptr()).cast::<u8>()
                == s.as_ptr()
                    .cast::<u8>()
                    .add(std::mem::size_of::<ffi::PyCompactUnicodeObject>())
        });
        data_ok
            && compact_data_ok
            && text_ok
            && state_word(a) & mask == mask
            && others.iter().all(|s| state_word(s.as_ptr()) & mask != mask)
            && state_word(legacy.as_ptr()) & mask != mask
            && others.iter().all(|s| {
                // The UTF-8 form CPython makes and keeps is the one `utf8_ready` finds.
                let mut size: ffi::Py_ssize_t = 0;
                let made = ffi::PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size);
                let compact = s.as_ptr().cast::<ffi::PyCompactUnicodeObject>();
                !made.is_null()
                    && (*compact).utf8 == made.cast_mut()
                    && (*compact).utf8_length == size
            })
    };
    VERIFIED.store(agrees, Ordering::Relaxed);
    Ok(())
}
