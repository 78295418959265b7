//! Constructors the decoder uses to build Python objects.

use std::os::raw::c_char;

use pyo3::ffi;

use super::{Obj, Owned};

// Every function here requires the GIL; they return `None` with a Python error set on failure.

/// # Safety
/// The GIL is held.
#[inline(always)]
pub unsafe fn new_i64(v: i64) -> Option<Owned> {
    // SAFETY: the GIL is held.
    unsafe { Owned::from_new(ffi::PyLong_FromLongLong(v)) }
}

/// # Safety
/// The GIL is held.
#[inline(always)]
pub unsafe fn new_u64(v: u64) -> Option<Owned> {
    // SAFETY: the GIL is held.
    unsafe { Owned::from_new(ffi::PyLong_FromUnsignedLongLong(v)) }
}

/// # Safety
/// The GIL is held.
#[inline(always)]
pub unsafe fn new_f64(v: f64) -> Option<Owned> {
    // SAFETY: the GIL is held.
    unsafe { Owned::from_new(ffi::PyFloat_FromDouble(v)) }
}

/// # Safety
/// The GIL is held.
#[inline(always)]
pub unsafe fn new_bytes(data: &[u8]) -> Option<Owned> {
    // SAFETY: copies `data.len()` bytes from a valid slice.
    unsafe {
        Owned::from_new(ffi::PyBytes_FromStringAndSize(
            data.as_ptr() as *const c_char,
            data.len() as ffi::Py_ssize_t,
        ))
    }
}

/// A strong reference to `None`, `True` or `False`.
///
/// # Safety
/// The GIL is held and `obj` is one of those singletons.
#[inline(always)]
pub unsafe fn new_singleton(obj: Obj) -> Owned {
    // SAFETY: singletons live for the whole interpreter.
    unsafe { Owned::from_borrowed(obj) }
}

/// A strong reference to `True` or `False`.
///
/// # Safety
/// The GIL is held.
#[inline(always)]
pub unsafe fn new_bool(v: bool) -> Owned {
    // SAFETY: the GIL is held; both are interpreter singletons.
    unsafe { new_singleton(if v { ffi::Py_True() } else { ffi::Py_False() }) }
}

/// A list of `len` empty slots, to be filled with [`list_set`]; a list dropped before it is
/// full is still valid (CPython frees lists with empty slots).
///
/// # Safety
/// The GIL is held.
#[inline(always)]
pub unsafe fn new_list(len: usize) -> Option<Owned> {
    // SAFETY: the GIL is held.
    unsafe { Owned::from_new(ffi::PyList_New(len as ffi::Py_ssize_t)) }
}

/// Stores `item` into the empty slot `i` of a list made by [`new_list`], taking its reference.
///
/// # Safety
/// `list` came from `new_list(n)` with `i < n`, slot `i` is still empty, the GIL is held.
#[inline(always)]
pub unsafe fn list_set(list: &Owned, i: usize, item: Owned) {
    // SAFETY: `list` came from `new_list(n)` with `i < n` and slot `i` still empty (the
    // precondition), so the store is in bounds and overwrites no reference; the list takes over
    // `item`'s.
    unsafe { ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.into_raw()) }
}

/// A list of `len` items to be stored with [`list_push`], in order. On a build with the GIL its
/// item array is allocated and not zeroed: `PyList_New(len)` zeroes it, and its `calloc` and
/// `memset` cost about 80 instructions a list, a quarter of what a small list costs to make
/// (callgrind, CPython 3.11). The list counts only the items stored so far, so that it is valid
/// at every point (to the garbage collector, and when it is dropped before it is full). A
/// free-threaded build makes it with `PyList_New`, whose item array has a layout of its own.
///
/// # Safety
/// The GIL is held (attached, on a free-threaded build).
#[inline(always)]
pub unsafe fn new_list_in_order(len: usize) -> Option<Owned> {
    #[cfg(Py_GIL_DISABLED)]
    {
        // SAFETY: attached.
        unsafe { new_list(len) }
    }
    #[cfg(not(Py_GIL_DISABLED))]
    {
        // SAFETY: the GIL is held.
        let list = unsafe { Owned::from_new(ffi::PyList_New(0)) }?;
        if len == 0 {
            return Some(list);
        }
        let Some(bytes) = len.checked_mul(std::mem::size_of::<Obj>()) else {
            return no_memory();
        };
        // SAFETY: the GIL is held; `PyMem_Malloc` is the allocator `list_dealloc` and a list's
        // resize free and grow a list's item array with on a build with the GIL.
        let items = unsafe { ffi::PyMem_Malloc(bytes) }.cast::<Obj>();
        if items.is_null() {
            return no_memory();
        }
        // SAFETY: `list` is a new, empty list (no item array, size 0) that nothing else refers
        // to yet; it takes over `items`, room for `len` references, of which it counts none.
        unsafe {
            let raw = list.as_ptr().cast::<ffi::PyListObject>();
            (*raw).ob_item = items;
            (*raw).allocated = len as ffi::Py_ssize_t;
        }
        Some(list)
    }
}

/// Stores `item` as item `i` of a list made by [`new_list_in_order`], taking its reference, and
/// counts it.
///
/// # Safety
/// `list` came from `new_list_in_order(n)` with `i < n`, items `0..i` are stored and no other,
/// and the GIL is held.
#[inline(always)]
pub unsafe fn list_push(list: &Owned, i: usize, item: Owned) {
    #[cfg(Py_GIL_DISABLED)]
    // SAFETY: as `list_set`: a list of `n` empty slots made by `PyList_New`, slot `i` empty.
    unsafe {
        list_set(list, i, item)
    }
    #[cfg(not(Py_GIL_DISABLED))]
    // SAFETY: the item array has room for `n > i` references (the precondition) and the list
    // counts `i` of them, so slot `i` is in bounds and unused; once it is stored, the list counts
    // it, and takes over `item`'s reference.
    unsafe {
        let raw = list.as_ptr().cast::<ffi::PyListObject>();
        *(*raw).ob_item.add(i) = item.into_raw();
        (*raw).ob_base.ob_size = (i + 1) as ffi::Py_ssize_t;
    }
}

/// `MemoryError`, set; `None`.
#[cfg(not(Py_GIL_DISABLED))]
#[cold]
fn no_memory() -> Option<Owned> {
    // SAFETY: the GIL is held by the caller (`new_list_in_order`'s precondition).
    unsafe { ffi::PyErr_NoMemory() };
    None
}

/// A tuple of `len` empty slots, filled with [`tuple_set`].
///
/// # Safety
/// The GIL is held.
#[inline(always)]
pub unsafe fn new_tuple(len: usize) -> Option<Owned> {
    // SAFETY: the GIL is held.
    unsafe { Owned::from_new(ffi::PyTuple_New(len as ffi::Py_ssize_t)) }
}

/// # Safety
/// `tuple` came from `new_tuple(n)` with `i < n`, slot `i` is still empty, the GIL is held.
#[inline(always)]
pub unsafe fn tuple_set(tuple: &Owned, i: usize, item: Owned) {
    // SAFETY: `tuple` came from `new_tuple(n)` with `i < n` and slot `i` still empty (the
    // precondition), so the store is in bounds and overwrites no reference; the tuple takes over
    // `item`'s.
    unsafe { ffi::PyTuple_SET_ITEM(tuple.as_ptr(), i as ffi::Py_ssize_t, item.into_raw()) }
}

extern "C" {
    // Exported by CPython 3.10-3.13 (Include/cpython/dictobject.h): a new dict with room for
    // `minused` entries, so filling it never resizes.
    fn _PyDict_NewPresized(minused: ffi::Py_ssize_t) -> Obj;
}

/// A new dict with room for `len` entries. The caller bounds `len` by the input (each entry
/// takes at least two bytes), so a hostile length cannot reserve more than the input warrants.
///
/// # Safety
/// The GIL is held.
#[inline(always)]
pub unsafe fn new_dict(len: usize) -> Option<Owned> {
    // SAFETY: the GIL is held.
    unsafe { Owned::from_new(_PyDict_NewPresized(len as ffi::Py_ssize_t)) }
}

/// `dict[key] = value`; `false` with a Python error set if the key is unhashable.
///
/// # Safety
/// `dict` is a dict, the GIL is held.
#[inline(always)]
pub unsafe fn dict_set(dict: &Owned, key: &Owned, value: &Owned) -> bool {
    // SAFETY: all three are live; `PyDict_SetItem` takes its own references.
    unsafe { ffi::PyDict_SetItem(dict.as_ptr(), key.as_ptr(), value.as_ptr()) == 0 }
}

/// A list of `len` items made by `item(0)`, ..., `item(len - 1)` in turn, without a vector in
/// between; the first error is returned (the list made so far is freed).
#[inline]
pub fn list_of<'py>(
    py: pyo3::Python<'py>,
    len: usize,
    mut item: impl FnMut(usize) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>>,
) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyList>> {
    // SAFETY: attached (`py`).
    let list = unsafe { new_list(len) }.ok_or_else(|| pyo3::PyErr::fetch(py))?;
    for i in 0..len {
        let value = Owned::from_bound(item(i)?);
        // SAFETY: `list` came from `new_list(len)`, `i < len`, and each slot is filled once.
        unsafe { list_set(&list, i, value) };
    }
    // SAFETY: `list` holds a new reference to a list, which the `Bound` takes over.
    let list = unsafe { pyo3::Bound::from_owned_ptr(py, list.into_raw()) };
    Ok(list.cast_into::<pyo3::types::PyList>()?)
}

/// The tuple `(first, second)`, taking over both references.
#[inline]
pub fn pair<'py>(
    first: pyo3::Bound<'py, pyo3::PyAny>,
    second: pyo3::Bound<'py, pyo3::PyAny>,
) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
    let py = first.py();
    let (first, second) = (Owned::from_bound(first), Owned::from_bound(second));
    // SAFETY: attached (`py`).
    let tuple = unsafe { new_tuple(2) }.ok_or_else(|| pyo3::PyErr::fetch(py))?;
    // SAFETY: `tuple` came from `new_tuple(2)`, and each of its two slots is filled once.
    unsafe {
        tuple_set(&tuple, 0, first);
        tuple_set(&tuple, 1, second);
    }
    // SAFETY: `tuple` holds a new reference, which the `Bound` takes over.
    Ok(unsafe { pyo3::Bound::from_owned_ptr(py, tuple.into_raw()) })
}
