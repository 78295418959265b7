//! Python `str` to UTF-8, and UTF-8 to `str`.

use pyo3::ffi;

use super::{Obj, Owned};

/// The UTF-8 bytes of a `str` (or subclass), borrowed from the object; `None` when the string holds
/// a lone surrogate (a Python `UnicodeEncodeError` is then set).
///
/// For ASCII strings this reads the object's own storage; otherwise CPython builds and caches the
/// UTF-8 form on the object, so the slice lives as long as the string does. A form already
/// cached is read without a call into CPython ([`str_utf8_ready`]): a str written again (a
/// document serialized more than once) costs no call.
///
/// # Safety
/// `obj` is a live `str` instance, the GIL is held, and the slice is not used after `obj` dies.
#[inline(always)]
pub unsafe fn str_utf8<'a>(obj: Obj) -> Option<&'a [u8]> {
    // SAFETY: `obj` is a live str and the GIL is held (the precondition); both readers return a
    // slice of the object's own storage or of its cached UTF-8 form, which live as long as `obj`,
    // and the slice is not used after `obj` dies (the precondition too).
    unsafe {
        match str_utf8_ready(obj) {
            Some(utf8) => Some(utf8),
            None => str_utf8_slow(obj),
        }
    }
}

/// The UTF-8 of a str when it is at hand without encoding: a compact ASCII string's own
/// characters, or the UTF-8 form CPython keeps on a string once it has made one. `None` means
/// the string must be encoded by [`str_utf8`], which fails (raising) on lone surrogates.
///
/// # Safety
/// As for [`str_utf8`].
#[inline(always)]
pub unsafe fn str_utf8_ready<'a>(obj: Obj) -> Option<&'a [u8]> {
    // SAFETY: `obj` is a live str (this function's precondition), which
    // `text_layout::utf8_ready` reads with the layout of 3.14.
    #[cfg(Py_3_14)]
    unsafe {
        super::text_layout::utf8_ready(obj)
    }
    // SAFETY: `obj` is a live str. A compact ASCII string stores its characters right after the
    // header, `length` bytes long. Every other str starts with the `PyCompactUnicodeObject`
    // fields, whose `utf8` is null until CPython stores the string's UTF-8 form (`utf8_length`
    // bytes, kept until the string dies); before 3.14 only builds with the GIL read it.
    #[cfg(not(Py_3_14))]
    unsafe {
        if ffi::PyUnicode_IS_COMPACT_ASCII(obj) != 0 {
            let len = ffi::PyUnicode_GET_LENGTH(obj) as usize;
            let data = ffi::PyUnicode_DATA(obj) as *const u8;
            return Some(std::slice::from_raw_parts(data, len));
        }
        #[cfg(not(any(Py_GIL_DISABLED, PyPy, GraalPy)))]
        {
            let compact = obj.cast::<ffi::PyCompactUnicodeObject>();
            let utf8 = (*compact).utf8;
            if !utf8.is_null() {
                let len = (*compact).utf8_length as usize;
                return Some(std::slice::from_raw_parts(utf8 as *const u8, len));
            }
        }
        None
    }
}

/// # Safety
/// `obj` is a live `str` instance, the GIL is held, and the slice is not used after `obj` dies.
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

/// The string encoded as UTF-8 with the codec error handler named `errors` (any registered
/// handler: `"surrogatepass"`, `"ignore"`, ...), as a new `bytes` object; `None` with the
/// handler's error set (`LookupError` for an unknown name).
///
/// # Safety
/// `obj` is a live `str` instance and the GIL is held.
#[cold]
pub unsafe fn str_utf8_with(obj: Obj, errors: &std::ffi::CStr) -> Option<Owned> {
    // SAFETY: `obj` is a live str; the codec and handler names are NUL-terminated.
    unsafe {
        Owned::from_new(ffi::PyUnicode_AsEncodedString(
            obj,
            c"utf-8".as_ptr(),
            errors.as_ptr(),
        ))
    }
}

/// A `str` from ASCII bytes: a new one, or CPython's own for a single character.
///
/// CPython keeps one `str` per character below 256, so a one-character string (a flag, a
/// separator) is a new reference instead of an allocation: 1000 of them decoded in 17.5 us
/// before, against 8.2 for decoders that use that cache.
///
/// # Safety
/// `ascii` holds only ASCII bytes and the GIL is held.
#[inline(always)]
pub unsafe fn new_ascii_str(ascii: &[u8]) -> Option<Owned> {
    if let [ch] = ascii {
        // SAFETY: the GIL is held; an ASCII code point is a valid ordinal.
        return unsafe { Owned::from_new(ffi::PyUnicode_FromOrdinal(std::ffi::c_int::from(*ch))) };
    }
    // SAFETY: a 1-byte-kind string of `len` characters has exactly `len` bytes of storage.
    unsafe {
        let obj = Owned::from_new(ffi::PyUnicode_New(ascii.len() as ffi::Py_ssize_t, 127))?;
        let dst = compact_data(obj.as_ptr(), true);
        copy_short(ascii, dst);
        Some(obj)
    }
}

/// Copies `src` to `dst`: up to 16 bytes with two loads and two stores of a width that fits
/// (which may overlap), not a call of `memcpy`, whose call and dispatch cost about as much again
/// as making the str for a short one (a name, an id, a key that is not cached).
///
/// # Safety
/// `dst` has room for `src.len()` bytes and does not overlap `src`.
#[inline(always)]
unsafe fn copy_short(src: &[u8], dst: *mut u8) {
    let len = src.len();
    let from = src.as_ptr();
    // SAFETY: each load reads `N` bytes at `0` and at `len - N` with `N <= len`, inside `src`;
    // each store writes the same offsets of `dst`, which has room for `len` bytes (the
    // precondition); unaligned accesses, as the offsets have no alignment.
    unsafe {
        match len {
            8..=16 => copy_ends::<u64>(from, dst, len),
            4..=7 => copy_ends::<u32>(from, dst, len),
            2..=3 => copy_ends::<u16>(from, dst, len),
            1 => *dst = *from,
            0 => {}
            _ => std::ptr::copy_nonoverlapping(from, dst, len),
        }
    }
}

/// Copies `len` bytes, `size_of::<T>() <= len <= 2 * size_of::<T>()`, as the first and the last
/// `T` of them.
///
/// # Safety
/// `src` can be read and `dst` written for `len` bytes, `len` is in that range, and the two do not
/// overlap.
#[inline(always)]
unsafe fn copy_ends<T: Copy>(src: *const u8, dst: *mut u8, len: usize) {
    let tail = len - std::mem::size_of::<T>();
    // SAFETY: both `T`s lie within the `len` bytes of each (the precondition).
    unsafe {
        let first = src.cast::<T>().read_unaligned();
        let last = src.add(tail).cast::<T>().read_unaligned();
        dst.cast::<T>().write_unaligned(first);
        dst.add(tail).cast::<T>().write_unaligned(last);
    }
}

/// A new `str` from bytes already checked to be valid UTF-8.
///
/// # Safety
/// `utf8` is valid UTF-8 and the GIL is held.
#[inline(always)]
pub unsafe fn new_str(utf8: &[u8]) -> Option<Owned> {
    // SAFETY: `utf8` is valid UTF-8 (the precondition; all ASCII when the first branch is taken)
    // and the GIL is held, as both constructors require.
    unsafe {
        if utf8.is_ascii() {
            new_ascii_str(utf8)
        } else {
            new_non_ascii_str(utf8)
        }
    }
}

/// Decodes valid UTF-8 straight into the narrowest storage CPython uses for it (1, 2 or 4
/// bytes a character), in two passes: one to size it, one to fill it.
///
/// # Safety
/// `utf8` is valid UTF-8 and the GIL is held.
#[inline(never)]
pub unsafe fn new_non_ascii_str(utf8: &[u8]) -> Option<Owned> {
    let mut chars = 0usize;
    let mut widest_lead = 0u8;
    for &b in utf8 {
        // Every byte that is not a continuation byte (10xxxxxx) starts a character.
        chars += ((b as i8) >= -0x40) as usize;
        widest_lead = widest_lead.max(b);
    }
    // The widest lead byte bounds the largest code point: 0xf0.. needs 4-byte storage,
    // 0xc4.. (U+0100 and up) 2-byte storage, and 0xc2/0xc3 (U+0080..U+00FF) fits in 1 byte.
    let maxchar: u32 = match widest_lead {
        0xf0.. => 0x10ffff,
        0xc4.. => 0xffff,
        _ => 0xff,
    };
    // SAFETY: the string is allocated with `chars` slots of the kind `maxchar` selects, and
    // `decode_into` writes exactly one slot per character of valid UTF-8.
    unsafe {
        let obj = Owned::from_new(ffi::PyUnicode_New(chars as ffi::Py_ssize_t, maxchar))?;
        let data = compact_data(obj.as_ptr(), false);
        match maxchar {
            0xff => decode_into(utf8, data),
            0xffff => decode_into(utf8, data.cast::<u16>()),
            _ => decode_into(utf8, data.cast::<u32>()),
        }
        Some(obj)
    }
}

/// Where the characters of a str just made by `PyUnicode_New` start (ASCII exactly when `ascii`):
/// `PyUnicode_DATA`, which from 3.14 is a call, read from the header instead once checked.
///
/// # Safety
/// `obj` is a live compact str, made by `PyUnicode_New`, ASCII exactly when `ascii`.
#[inline(always)]
unsafe fn compact_data(obj: Obj, ascii: bool) -> *mut u8 {
    // SAFETY: `obj` is a live compact str, ASCII exactly when `ascii` (the precondition).
    #[cfg(Py_3_14)]
    unsafe {
        super::text_layout::new_data(obj, ascii)
    }
    // SAFETY: `obj` is a live str; before 3.14 `PyUnicode_DATA` is pyo3-ffi's inline reading.
    #[cfg(not(Py_3_14))]
    unsafe {
        let _ = ascii;
        ffi::PyUnicode_DATA(obj).cast()
    }
}

/// Writes each code point of valid UTF-8 into `dst`, one `T` per character.
///
/// # Safety
/// `utf8` is valid UTF-8, `dst` has room for one `T` per character, and every code point
/// fits in `T`.
#[inline(always)]
unsafe fn decode_into<T: TryFrom<u32>>(utf8: &[u8], dst: *mut T) {
    let mut i = 0;
    let mut out = dst;
    let n = utf8.len();
    // SAFETY: valid UTF-8 guarantees each lead byte is followed by its continuation bytes,
    // so every index read is below `n`; `dst` has room for one `T` per character (this
    // function's precondition), and one is written per character.
    unsafe {
        while i < n {
            let b0 = *utf8.get_unchecked(i) as u32;
            let (cp, width) = if b0 < 0x80 {
                (b0, 1)
            } else if b0 < 0xe0 {
                let b1 = *utf8.get_unchecked(i + 1) as u32;
                (((b0 & 0x1f) << 6) | (b1 & 0x3f), 2)
            } else if b0 < 0xf0 {
                let b1 = *utf8.get_unchecked(i + 1) as u32;
                let b2 = *utf8.get_unchecked(i + 2) as u32;
                (((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f), 3)
            } else {
                let b1 = *utf8.get_unchecked(i + 1) as u32;
                let b2 = *utf8.get_unchecked(i + 2) as u32;
                let b3 = *utf8.get_unchecked(i + 3) as u32;
                let cp =
                    ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
                (cp, 4)
            };
            if let Ok(unit) = T::try_from(cp) {
                out.write(unit);
            }
            out = out.add(1);
            i += width;
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

/// Whether `obj` is a `str` (or subclass) whose text starts with `_` (private names, left out of
/// dataclass and model maps).
///
/// # Safety
/// `obj` is live and the GIL is held.
pub unsafe fn is_private_name(obj: Obj) -> bool {
    // SAFETY: `obj` is live and the GIL is held (the precondition); it is read as a str only once
    // the flag check has found one, and the error of a failed UTF-8 conversion is cleared.
    unsafe {
        if !super::has_flag(super::type_of(obj), ffi::Py_TPFLAGS_UNICODE_SUBCLASS) {
            return false;
        }
        match str_utf8(obj) {
            Some(text) => text.starts_with(b"_"),
            None => {
                ffi::PyErr_Clear();
                false
            }
        }
    }
}
