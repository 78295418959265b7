//! Reading lists, tuples and dicts, and the raw bytes of bytes-like objects.

use pyo3::ffi;

use super::{Obj, Owned};

/// Current length of a list, tuple, bytes or other variable-size object.
///
/// Free-threaded builds read it atomically, as CPython's `Py_SIZE` does there: another thread
/// may be resizing a list meanwhile.
///
/// # Safety
/// `obj` is a live variable-size object.
#[inline(always)]
pub unsafe fn var_size(obj: Obj) -> usize {
    // SAFETY: `obj` is a live variable-size object (this function's precondition), so its header
    // has `ob_size`.
    #[cfg(not(Py_GIL_DISABLED))]
    unsafe {
        ffi::Py_SIZE(obj) as usize
    }
    // SAFETY: as above; `ob_size` is an aligned `Py_ssize_t` that CPython writes atomically in
    // this build.
    #[cfg(Py_GIL_DISABLED)]
    unsafe {
        let size = std::ptr::addr_of_mut!((*obj.cast::<ffi::PyVarObject>()).ob_size);
        std::sync::atomic::AtomicIsize::from_ptr(size).load(std::sync::atomic::Ordering::Relaxed)
            as usize
    }
}

/// Item `i` of a list (or subclass), borrowed; `None` past the current end.
///
/// The length is read again on every call, so a list shrunk by Python code run from `default`
/// is never read out of bounds.
///
/// # Safety
/// `list` is a live list and the GIL is held.
#[cfg(not(Py_GIL_DISABLED))]
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
    // SAFETY: `list` is a live list with more than `i` items (the precondition), so slot `i` is in
    // bounds and holds a live item, borrowed from the list.
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

/// Number of entries of a dict (or subclass), read atomically in free-threaded builds.
///
/// # Safety
/// `dict` is a live dict.
#[inline(always)]
pub unsafe fn dict_len(dict: Obj) -> usize {
    // SAFETY: `dict` is a live dict or subclass (this function's precondition), whose struct starts
    // with the
    // `PyDictObject` fields; `ma_used` is its number of entries.
    #[cfg(not(Py_GIL_DISABLED))]
    unsafe {
        (*(dict as *mut ffi::PyDictObject)).ma_used as usize
    }
    // SAFETY: as above; CPython writes `ma_used` atomically in this build.
    #[cfg(Py_GIL_DISABLED)]
    unsafe {
        let used = std::ptr::addr_of_mut!((*(dict as *mut ffi::PyDictObject)).ma_used);
        std::sync::atomic::AtomicIsize::from_ptr(used).load(std::sync::atomic::Ordering::Relaxed)
            as usize
    }
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

/// Calls `f` with the content of a `bytearray` (or subclass), borrowed for the call.
///
/// In free-threaded builds the bytearray's lock is held meanwhile, so that no other thread can
/// resize it (moving or freeing the storage) while `f` reads it.
///
/// # Safety
/// `obj` is a live bytearray, the thread is attached, and `f` runs no Python code (Python code
/// could resize it, and would suspend the lock).
#[inline(always)]
pub unsafe fn with_bytearray<R>(obj: Obj, f: impl FnOnce(&[u8]) -> R) -> R {
    // SAFETY: the storage holds `size` bytes, and nothing can resize it while `f` runs: with
    // the GIL because `f` runs no Python code, without it because its lock is held.
    let read = || unsafe {
        let len = ffi::PyByteArray_GET_SIZE(obj) as usize;
        if len == 0 {
            return f(&[]);
        }
        f(std::slice::from_raw_parts(
            ffi::PyByteArray_AS_STRING(obj) as *const u8,
            len,
        ))
    };
    #[cfg(not(Py_GIL_DISABLED))]
    return read();
    // SAFETY: `obj` is a live bytearray and the thread is attached (the precondition); `locked`
    // holds its critical section while `read` borrows the storage, so no other thread resizes it
    // meanwhile.
    #[cfg(Py_GIL_DISABLED)]
    unsafe {
        super::sync::locked(obj, read)
    }
}

/// With the GIL: the items of a list being written, with their count, read once.
///
/// Each item is read from the list when it is written (borrowed: the list holds it, and only
/// Python code run from `default` could change it, which [`ListItems::get`]'s bounds check and
/// [`ListItems::changed`] account for). Free-threaded builds read the list under its lock
/// instead ([`with_list_items`]).
#[cfg(not(Py_GIL_DISABLED))]
pub struct ListItems {
    list: Obj,
    len: usize,
}

#[cfg(not(Py_GIL_DISABLED))]
impl ListItems {
    /// # Safety
    /// `list` is a live list, kept alive by the caller while the value is used, and the GIL is
    /// held.
    #[inline(always)]
    pub unsafe fn new(list: Obj) -> ListItems {
        ListItems {
            list,
            // SAFETY: `list` is a live list (this function's precondition), whose `ob_size` is its
            // length; with the GIL held no other thread changes it while it is read.
            len: unsafe { var_size(list) },
        }
    }

    /// How many items the walk writes (the array header's count).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Item `i`, borrowed while `self` lives and no Python code runs; `None` when the list
    /// was shortened (only by Python code run from `default`).
    ///
    /// # Safety
    /// The GIL is held.
    #[inline(always)]
    pub unsafe fn get(&self, i: usize) -> Option<Obj> {
        // SAFETY: the GIL is held (the precondition) and the caller holds the list alive;
        // `list_get` checks `i` against the list's length at the time of the read.
        unsafe { list_get(self.list, i) }
    }

    /// Whether the list's length is no longer what the walk wrote.
    ///
    /// # Safety
    /// The GIL is held, and the list still alive (the caller's hold).
    #[inline(always)]
    pub unsafe fn changed(&self) -> bool {
        // SAFETY: the list is alive and the GIL held (this method's precondition).
        unsafe { var_size(self.list) != self.len }
    }
}

/// Free-threaded: runs `read` on a list's items, borrowed, while the list's lock is held, so
/// that no other thread can replace, add or remove an item (dropping the list's reference to
/// it) or move the item array meanwhile: the items are live, and the slice is the list as it is
/// for the whole of `read`.
///
/// A critical section is suspended (its lock released for other threads) whenever the thread
/// blocks: waiting for another lock, including another object's critical section, running
/// Python code, or detaching from the interpreter. So `read` must do none of these, or the
/// slice could be changed and its items freed under it: what needs any of them takes strong
/// references to the items first (`ser::per_type::locked` does) and does it after `read` returns.
///
/// # Safety
/// `list` is a live list, the thread is attached, and `read` runs no Python code, takes no lock,
/// does not block or detach, and does not unwind.
#[cfg(Py_GIL_DISABLED)]
#[inline(always)]
pub unsafe fn with_list_items<R>(list: Obj, read: impl FnOnce(&[Obj]) -> R) -> R {
    // SAFETY: `list` is a live list and the thread attached (the precondition); under its lock
    // its size and item array are stable, and `read` does nothing that would suspend the lock
    // (the precondition), so the slice stays valid and its items live while `read` runs.
    unsafe {
        super::sync::locked(list, || {
            let len = ffi::PyList_GET_SIZE(list) as usize;
            if len == 0 {
                return read(&[]);
            }
            let first = (*list.cast::<ffi::PyListObject>()).ob_item as *const Obj;
            read(std::slice::from_raw_parts(first, len))
        })
    }
}

/// The values of a list of exactly two floats (a point, a range); `None` for any other list.
///
/// # Safety
/// `list` is a live list and the thread is attached.
#[inline(always)]
pub unsafe fn float_pair(list: Obj) -> Option<(f64, f64)> {
    // SAFETY: the length is checked before the items are read, and both are read (and their
    // values copied) before anything else can change the list: with the GIL because no Python
    // code runs, without it because the list's lock is held.
    let read = || unsafe {
        if ffi::PyList_GET_SIZE(list) != 2 {
            return None;
        }
        let (a, b) = (list_item(list, 0), list_item(list, 1));
        (super::is_exact_float(a) && super::is_exact_float(b))
            .then(|| (super::float_value(a), super::float_value(b)))
    };
    #[cfg(not(Py_GIL_DISABLED))]
    return read();
    // SAFETY: `list` is a live list and the thread is attached (the precondition); `locked` holds
    // its critical section while `read` reads its size and its two items.
    #[cfg(Py_GIL_DISABLED)]
    unsafe {
        super::sync::locked(list, read)
    }
}

/// Keeps a strong reference to a container while it is being written, so Python code run from
/// `default` cannot free it under us.
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline(always)]
pub unsafe fn hold(obj: Obj) -> Owned {
    // SAFETY: `obj` is live and the GIL is held (the precondition), so taking a strong reference to
    // it is sound.
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
    // SAFETY: `obj` is live and the GIL is held (the precondition), so its count can be raised; the
    // reference is released below, once the walk is done.
    unsafe { super::refcount::incref(obj) };
    let result = walk();
    // SAFETY: the reference taken above; releasing it may free `obj` and run Python code,
    // after the walk is done with it.
    unsafe { super::refcount::decref(obj) };
    result
}

/// Number of items of a set or frozenset (or subclass).
///
/// # Safety
/// `set` is a live set or frozenset.
#[inline]
pub unsafe fn set_len(set: Obj) -> usize {
    // SAFETY: `set` is a live set or frozenset (this function's precondition).
    unsafe { ffi::PySet_Size(set) as usize }
}

/// `dict[key]` as a strong reference; `None` when missing (or on a lookup error, which is
/// cleared).
///
/// A borrowed result would not do in free-threaded builds: another thread could replace the
/// value, freeing it, before the caller takes its own reference. There `PyDict_GetItemRef`
/// takes it under the dict's lock; with the GIL a borrowed lookup and an increment are the same
/// and skip a call.
///
/// # Safety
/// `dict` is a live dict, `key` a live hashable object, and the thread is attached.
#[inline]
pub unsafe fn dict_get(dict: Obj, key: Obj) -> Option<Owned> {
    // SAFETY: `dict` is a live dict and `key` a live hashable object (the precondition). The value
    // is live while the dict holds it, and with the GIL no other thread runs before the reference
    // is taken.
    #[cfg(not(Py_GIL_DISABLED))]
    unsafe {
        let value = ffi::PyDict_GetItemWithError(dict, key);
        if value.is_null() {
            ffi::PyErr_Clear();
            None
        } else {
            Some(Owned::from_borrowed(value))
        }
    }
    // SAFETY: `dict` is a live dict and `key` a live hashable object (the precondition);
    // `PyDict_GetItemRef` takes the value's reference under the dict's lock, so on success `value`
    // is a new reference.
    #[cfg(Py_GIL_DISABLED)]
    unsafe {
        let mut value: Obj = std::ptr::null_mut();
        if ffi::PyDict_GetItemRef(dict, key, &mut value) < 0 {
            ffi::PyErr_Clear();
        }
        Owned::from_new(value)
    }
}

/// `dict[key] = value`, with all three borrowed; `false` with a Python error set on failure.
///
/// # Safety
/// `dict` is a live dict, the others live objects, and the GIL is held.
#[inline]
pub unsafe fn dict_insert(dict: Obj, key: Obj, value: Obj) -> bool {
    // SAFETY: `dict` is a live dict, `key` and `value` live objects, and the GIL is held (the
    // precondition); the dict takes its own references.
    unsafe { ffi::PyDict_SetItem(dict, key, value) == 0 }
}

/// Empties a dict.
///
/// # Safety
/// `dict` is a live dict and the GIL is held.
#[inline]
pub unsafe fn dict_clear(dict: Obj) {
    // SAFETY: `dict` is a live dict and the GIL is held (the precondition), all that `PyDict_Clear`
    // needs.
    unsafe { ffi::PyDict_Clear(dict) }
}

/// Whether `obj` is a dict (or subclass).
///
/// # Safety
/// `obj` is live.
#[inline]
pub unsafe fn is_dict(obj: Obj) -> bool {
    // SAFETY: `obj` is live (the precondition), so its type's flags can be read.
    unsafe { ffi::PyDict_Check(obj) != 0 }
}

/// The instance `__dict__` of an object whose type has one (created if it was not yet), or
/// `None` (a type with `__slots__` only, or on error, which is cleared).
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline]
pub unsafe fn instance_dict(obj: Obj) -> Option<Owned> {
    // SAFETY: `obj` is live and the GIL is held (the precondition), so its type can be read; the
    // generic getter handles every dict layout.
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
