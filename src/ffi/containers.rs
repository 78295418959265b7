//! Reading lists, tuples and dicts, and the raw bytes of bytes-like objects.

use pyo3::ffi;

use super::{Obj, Owned};

/// Current length of a list, tuple, bytes or other variable-size object.
///
/// # Safety
/// `obj` is a live variable-size object.
#[inline(always)]
pub unsafe fn var_size(obj: Obj) -> usize {
    // SAFETY: the caller guarantees a live variable-size object.
    unsafe { ffi::Py_SIZE(obj) as usize }
}

/// Item `i` of a list (or subclass), borrowed; `None` past the current end.
///
/// The length is read again on every call, so a list shrunk by Python code run from `default`
/// is never read out of bounds.
///
/// # Safety
/// `list` is a live list and the GIL is held.
#[inline(always)]
pub unsafe fn list_get(list: Obj, i: usize) -> Option<Obj> {
    // SAFETY: `i` is checked against the list's current length before the read.
    unsafe { (i < var_size(list)).then(|| list_item(list, i)) }
}

/// Item `i` of a list (or subclass), borrowed, without a bounds check.
///
/// # Safety
/// `list` is a live list with more than `i` items.
#[inline(always)]
pub unsafe fn list_item(list: Obj, i: usize) -> Obj {
    // SAFETY: forwarded from the caller.
    unsafe { ffi::PyList_GET_ITEM(list, i as ffi::Py_ssize_t) }
}

/// The items of a tuple (or subclass), borrowed for as long as the tuple lives.
///
/// # Safety
/// `tuple` is a live tuple, kept alive by the caller while the slice is used.
#[inline(always)]
pub unsafe fn tuple_items<'a>(tuple: Obj) -> &'a [Obj] {
    // SAFETY: a tuple's items are stored inline after its header and never change size.
    unsafe {
        let len = var_size(tuple);
        let first = (*(tuple as *mut ffi::PyTupleObject)).ob_item.as_ptr() as *const Obj;
        std::slice::from_raw_parts(first, len)
    }
}

/// Number of entries of a dict (or subclass).
///
/// # Safety
/// `dict` is a live dict.
#[inline(always)]
pub unsafe fn dict_len(dict: Obj) -> usize {
    // SAFETY: the caller guarantees a live dict (or subclass), whose struct starts with the
    // `PyDictObject` fields; `ma_used` is its number of entries.
    unsafe { (*(dict as *mut ffi::PyDictObject)).ma_used as usize }
}

/// The content of a `bytes` (or subclass), borrowed.
///
/// # Safety
/// `obj` is a live bytes object, alive while the slice is used.
#[inline(always)]
pub unsafe fn bytes_data<'a>(obj: Obj) -> &'a [u8] {
    // SAFETY: a bytes object's storage holds `size` bytes and never changes.
    unsafe { std::slice::from_raw_parts(ffi::PyBytes_AS_STRING(obj) as *const u8, var_size(obj)) }
}

/// The content of `obj` if it is a `bytes` (or subclass), borrowed.
///
/// # Safety
/// `obj` is live, and alive while the slice is used.
#[inline(always)]
pub unsafe fn bytes_of<'a>(obj: Obj) -> Option<&'a [u8]> {
    // SAFETY: a type check on a live object, then as `bytes_data`.
    unsafe { (ffi::PyBytes_Check(obj) != 0).then(|| bytes_data(obj)) }
}

/// The content of a `bytearray` (or subclass), borrowed.
///
/// # Safety
/// `obj` is a live bytearray and no Python code runs while the slice is used (Python code
/// could resize it).
#[inline(always)]
pub unsafe fn bytearray_data<'a>(obj: Obj) -> &'a [u8] {
    // SAFETY: the storage holds `size` bytes; the caller runs no Python code meanwhile.
    unsafe {
        let len = ffi::PyByteArray_GET_SIZE(obj) as usize;
        if len == 0 {
            return &[];
        }
        std::slice::from_raw_parts(ffi::PyByteArray_AS_STRING(obj) as *const u8, len)
    }
}

/// Keeps a strong reference to a container while it is being written, so Python code run from
/// `default` cannot free it under us.
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline(always)]
pub unsafe fn hold(obj: Obj) -> Owned {
    // SAFETY: forwarded from the caller.
    unsafe { Owned::from_borrowed(obj) }
}

/// Runs `walk` with a reference to `obj` taken for its duration (the container walks' hold).
///
/// Unlike [`hold`], nothing is dropped at the end, so the walk needs no cleanup path for
/// unwinding: with `hold`, `json.dumps` of the canada document (111,000 small lists) took 2935
/// µs against 2750 µs this way. The cost is that a panic unwinding through `walk` (a bug: the
/// serializer does not panic) leaves the reference behind; errors are returned, not unwound,
/// and release it.
///
/// # Safety
/// `obj` is a live object and the GIL is held.
#[inline(always)]
pub unsafe fn while_held<R>(obj: Obj, walk: impl FnOnce() -> R) -> R {
    // SAFETY: forwarded from the caller.
    unsafe { ffi::Py_INCREF(obj) };
    let result = walk();
    // SAFETY: the reference taken above; releasing it may free `obj` and run Python code,
    // after the walk is done with it.
    unsafe { ffi::Py_DECREF(obj) };
    result
}

/// Number of items of a set or frozenset (or subclass).
///
/// # Safety
/// `set` is a live set or frozenset.
#[inline]
pub unsafe fn set_len(set: Obj) -> usize {
    // SAFETY: the caller guarantees a live set.
    unsafe { ffi::PySet_Size(set) as usize }
}

/// `dict[key]`, borrowed; `None` when missing (or on a lookup error, which is cleared).
///
/// # Safety
/// `dict` is a live dict, `key` a live hashable object, and the GIL is held.
#[inline]
pub unsafe fn dict_get(dict: Obj, key: Obj) -> Option<Obj> {
    // SAFETY: forwarded from the caller.
    unsafe {
        let value = ffi::PyDict_GetItemWithError(dict, key);
        if value.is_null() {
            ffi::PyErr_Clear();
            None
        } else {
            Some(value)
        }
    }
}

/// `dict[key] = value`, with all three borrowed; `false` with a Python error set on failure.
///
/// # Safety
/// `dict` is a live dict, the others live objects, and the GIL is held.
#[inline]
pub unsafe fn dict_insert(dict: Obj, key: Obj, value: Obj) -> bool {
    // SAFETY: forwarded from the caller; the dict takes its own references.
    unsafe { ffi::PyDict_SetItem(dict, key, value) == 0 }
}

/// Empties a dict.
///
/// # Safety
/// `dict` is a live dict and the GIL is held.
#[inline]
pub unsafe fn dict_clear(dict: Obj) {
    // SAFETY: forwarded from the caller.
    unsafe { ffi::PyDict_Clear(dict) }
}

/// Whether `obj` is a dict (or subclass).
///
/// # Safety
/// `obj` is live.
#[inline]
pub unsafe fn is_dict(obj: Obj) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe { ffi::PyDict_Check(obj) != 0 }
}

/// The instance `__dict__` of an object whose type has one (created if it was not yet), or
/// `None` (a type with `__slots__` only, or on error, which is cleared).
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline]
pub unsafe fn instance_dict(obj: Obj) -> Option<Owned> {
    // SAFETY: forwarded from the caller; the generic getter handles every dict layout.
    unsafe {
        if (*ffi::Py_TYPE(obj)).tp_dictoffset == 0 {
            return None;
        }
        let dict = Owned::from_new(ffi::PyObject_GenericGetDict(obj, std::ptr::null_mut()));
        if dict.is_none() {
            ffi::PyErr_Clear();
        }
        dict.filter(|d| ffi::PyDict_Check(d.as_ptr()) != 0)
    }
}
