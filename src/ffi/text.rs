//! Python `str` to UTF-8, and UTF-8 to `str`.

use std::os::raw::c_char;

use pyo3::ffi;

use super::{Obj, Owned};

/// The UTF-8 bytes of a `str` (or subclass), borrowed from the object; `None` when the string holds
/// a lone surrogate (a Python `UnicodeEncodeError` is then set).
///
/// For ASCII strings this reads the object's own storage; otherwise CPython builds and caches the
/// UTF-8 form on the object, so the slice lives as long as the string does.
///
/// # Safety
/// `obj` is a live `str` instance, the GIL is held, and the slice is not used after `obj` dies.
#[inline(always)]
pub unsafe fn str_utf8<'a>(obj: Obj) -> Option<&'a [u8]> {
    // SAFETY: `obj` is a live str; compact ASCII strings store their characters, which are
    // their UTF-8 bytes, right after the header, `length` bytes long.
    unsafe {
        if ffi::PyUnicode_IS_COMPACT_ASCII(obj) != 0 {
            let len = ffi::PyUnicode_GET_LENGTH(obj) as usize;
            let data = ffi::PyUnicode_DATA(obj) as *const u8;
            return Some(std::slice::from_raw_parts(data, len));
        }
        str_utf8_slow(obj)
    }
}

#[inline(never)]
unsafe fn str_utf8_slow<'a>(obj: Obj) -> Option<&'a [u8]> {
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `obj` is a live str; on success CPython returns a buffer of `size` bytes that it
    // owns and keeps with the string.
    unsafe {
        let data = ffi::PyUnicode_AsUTF8AndSize(obj, &mut size);
        if data.is_null() {
            return None;
        }
        Some(std::slice::from_raw_parts(data as *const u8, size as usize))
    }
}

/// The string encoded as UTF-8 with each lone surrogate replaced by `?`, as a new `bytes` object.
///
/// # Safety
/// `obj` is a live `str` instance and the GIL is held.
#[cold]
pub unsafe fn str_utf8_replacing(obj: Obj) -> Option<Owned> {
    // SAFETY: `obj` is a live str; the codec and error handler names are NUL-terminated.
    unsafe {
        Owned::from_new(ffi::PyUnicode_AsEncodedString(
            obj,
            c"utf-8".as_ptr(),
            c"replace".as_ptr(),
        ))
    }
}

/// A new `str` from bytes already checked to be valid UTF-8.
///
/// # Safety
/// `utf8` is valid UTF-8 and the GIL is held.
#[inline(always)]
pub unsafe fn new_str(utf8: &[u8]) -> Option<Owned> {
    // SAFETY: for ASCII input a 1-byte-kind string of the same length is allocated and filled;
    // its storage is exactly `len` bytes. Other input goes through CPython's own decoder.
    unsafe {
        if utf8.is_ascii() {
            let obj = Owned::from_new(ffi::PyUnicode_New(utf8.len() as ffi::Py_ssize_t, 127))?;
            let dst = ffi::PyUnicode_DATA(obj.as_ptr()) as *mut u8;
            std::ptr::copy_nonoverlapping(utf8.as_ptr(), dst, utf8.len());
            Some(obj)
        } else {
            Owned::from_new(ffi::PyUnicode_DecodeUTF8(
                utf8.as_ptr() as *const c_char,
                utf8.len() as ffi::Py_ssize_t,
                std::ptr::null(),
            ))
        }
    }
}

/// Computes and caches the hash of `obj` (strings keep it), so later dict inserts skip it.
///
/// # Safety
/// `obj` is a live `str` and the GIL is held.
#[inline]
pub unsafe fn prime_hash(obj: Obj) {
    // SAFETY: hashing a str runs no Python code and cannot fail.
    unsafe {
        ffi::PyObject_Hash(obj);
    }
}
