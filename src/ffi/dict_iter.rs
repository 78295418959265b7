//! Iterating a dict's entries in insertion order.
//!
//! With the GIL, on CPython 3.11 and later, a dict whose keys and values live in one table (every
//! dict built by literals, `json.loads`, `unpackb` ...) is walked by reading that table directly
//! ([`super::dict_table`]; from 3.14 once its layout is checked at import): `PyDict_Next` is a
//! call into CPython per entry, which profiles of dict-heavy documents showed at 15-18% of the
//! time. Other dicts (split tables: instance dicts sharing their keys) and other versions go
//! through `PyDict_Next`.
//!
//! Free-threaded builds copy the entries first, as strong references, with `PyDict_Next` under
//! the dict's lock ([`DictIter`] there): another thread may add, remove or replace entries at
//! any time, and a borrowed key or value could be freed while it is written. `packb`'s walk
//! reads them under the lock instead ([`with_dict_entries`]), from the table as above.

use pyo3::ffi;

#[cfg(all(Py_3_11, not(any(PyPy, GraalPy))))]
use super::dict_table::Table;
use super::Obj;

/// Iterates a dict's entries in insertion order, as borrowed (key, value) pairs.
#[cfg(not(Py_GIL_DISABLED))]
pub struct DictIter {
    dict: Obj,
    /// The number of entries when the walk began.
    len: usize,
    pos: ffi::Py_ssize_t,
    /// Where the entries of the combined table last read start, or that they are left to
    /// `PyDict_Next`.
    #[cfg(all(Py_3_11, not(any(PyPy, GraalPy))))]
    table: Table,
}

#[cfg(not(Py_GIL_DISABLED))]
impl DictIter {
    /// # Safety
    /// `dict` is a live dict, kept alive by the caller while iterating, and the GIL is held.
    #[inline(always)]
    pub unsafe fn new(dict: Obj) -> DictIter {
        DictIter {
            dict,
            // SAFETY: `dict` is a live dict and the GIL is held (this constructor's precondition),
            // so its size is read from a valid object.
            len: unsafe { super::dict_len(dict) },
            pos: 0,
            // SAFETY: as above.
            #[cfg(all(Py_3_11, not(any(PyPy, GraalPy))))]
            table: unsafe { Table::for_dict(dict) },
        }
    }

    /// The number of entries when the walk began (the map header's count).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the dict's size is no longer what it was when the walk began (Python code run
    /// from `default` changed it).
    ///
    /// # Safety
    /// The dict is still alive (the caller's hold) and the GIL is held.
    #[inline(always)]
    pub unsafe fn changed(&self) -> bool {
        // SAFETY: the dict is alive and the GIL is held (this method's precondition, as `new`'s),
        // so `dict_len` reads a live dict.
        unsafe { super::dict_len(self.dict) != self.len }
    }

    #[inline(always)]
    fn next_with_api(&mut self) -> Option<(Obj, Obj)> {
        let mut key: Obj = std::ptr::null_mut();
        let mut value: Obj = std::ptr::null_mut();
        // SAFETY: `PyDict_Next` checks `pos` against the dict's current table, so it stays in
        // bounds even if the dict changed since the last step.
        let more = unsafe { ffi::PyDict_Next(self.dict, &mut self.pos, &mut key, &mut value) };
        if more != 0 {
            Some((key, value))
        } else {
            None
        }
    }
}

#[cfg(not(Py_GIL_DISABLED))]
impl Iterator for DictIter {
    type Item = (Obj, Obj);

    #[inline(always)]
    fn next(&mut self) -> Option<(Obj, Obj)> {
        #[cfg(all(Py_3_11, not(any(PyPy, GraalPy))))]
        {
            // SAFETY: `dict` is live, as `new`'s precondition keeps it for the iterator's life,
            // and `table` was made for it; the GIL is held and no Python code runs during the
            // step. The table is read again at each step: Python code run between steps may
            // have changed it.
            if let Some(entry) = unsafe { self.table.next(self.dict, &mut self.pos) } {
                return Some(entry);
            }
            if !self.table.api() {
                return None;
            }
        }
        self.next_with_api()
    }
}

/// Free-threaded: the entries as they were at one moment, copied under the dict's lock; the
/// pairs handed out are borrowed from the copy, so they live as long as the iterator.
#[cfg(Py_GIL_DISABLED)]
pub struct DictIter {
    entries: Vec<(super::Owned, super::Owned)>,
    pos: usize,
    /// The dict and this thread's count of calls into Python code when it was copied.
    since: (Obj, u64),
}

#[cfg(Py_GIL_DISABLED)]
impl DictIter {
    /// # Safety
    /// `dict` is a live dict and the thread is attached.
    #[inline]
    pub unsafe fn new(dict: Obj) -> DictIter {
        // SAFETY: `PyDict_Next` under the dict's lock, as CPython requires in this build; each
        // key and value gets a strong reference before the lock is released, and no Python
        // code runs meanwhile (taking a reference runs none).
        let entries = unsafe {
            super::sync::locked(dict, || {
                let mut entries = Vec::with_capacity(super::dict_len(dict));
                let mut pos: ffi::Py_ssize_t = 0;
                let mut key: Obj = std::ptr::null_mut();
                let mut value: Obj = std::ptr::null_mut();
                while ffi::PyDict_Next(dict, &mut pos, &mut key, &mut value) != 0 {
                    entries.push((
                        super::Owned::from_borrowed(key),
                        super::Owned::from_borrowed(value),
                    ));
                }
                entries
            })
        };
        DictIter {
            entries,
            pos: 0,
            since: (dict, super::python_calls()),
        }
    }

    /// The number of entries copied (the map header's count).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether Python code run by this thread since the copy (a `default`, an enum key's
    /// `value`) changed the dict's size, as the build with the GIL reports it; changes made by
    /// other threads come after the state written, and do not count.
    ///
    /// # Safety
    /// The dict is still alive (the caller's hold) and the thread is attached.
    #[inline(always)]
    pub unsafe fn changed(&self) -> bool {
        let (dict, calls) = self.since;
        // SAFETY: `dict` is alive and the thread attached (this method's precondition), so
        // `dict_len` reads a live dict.
        super::python_calls() != calls && unsafe { super::dict_len(dict) } != self.entries.len()
    }
}

#[cfg(Py_GIL_DISABLED)]
impl Iterator for DictIter {
    type Item = (Obj, Obj);

    #[inline(always)]
    fn next(&mut self) -> Option<(Obj, Obj)> {
        let (key, value) = self.entries.get(self.pos)?;
        self.pos += 1;
        Some((key.as_ptr(), value.as_ptr()))
    }
}

/// Free-threaded: a dict's entries read in insertion order while its lock is held
/// ([`with_dict_entries`]): each (key, value) is borrowed from the dict, live while the lock is.
#[cfg(Py_GIL_DISABLED)]
pub struct LockedEntries {
    dict: Obj,
    pos: ffi::Py_ssize_t,
    /// Where the entries of the table start (the same for the whole time the lock is held), or
    /// that they are left to `PyDict_Next`.
    table: Table,
}

#[cfg(Py_GIL_DISABLED)]
impl LockedEntries {
    /// The number of entries (the same for the whole time the lock is held).
    #[inline(always)]
    pub fn len(&self) -> usize {
        // SAFETY: the dict is live and locked (`with_dict_entries`).
        unsafe { super::dict_len(self.dict) }
    }

    /// Hands `first` and every entry after it to `hold`, which takes strong references to them
    /// for a walk that goes on once the lock is released.
    ///
    /// # Safety
    /// `first` is the entry `next` returned last, and `hold` runs no Python code and takes no
    /// lock (each entry it gets is live only while the lock is held).
    #[inline(never)]
    pub unsafe fn hold_rest(&mut self, first: (Obj, Obj), mut hold: impl FnMut(Obj, Obj)) {
        let mut entry = Some(first);
        while let Some((key, value)) = entry {
            hold(key, value);
            entry = self.next();
        }
    }
}

#[cfg(Py_GIL_DISABLED)]
impl Iterator for LockedEntries {
    type Item = (Obj, Obj);

    #[inline(always)]
    fn next(&mut self) -> Option<(Obj, Obj)> {
        // SAFETY: the dict is live and locked, and `table` was made for it
        // (`with_dict_entries`), so no other thread changes its table while it is read; the
        // entries are borrowed from the dict, as `PyDict_Next`'s are.
        if let Some(entry) = unsafe { self.table.next(self.dict, &mut self.pos) } {
            return Some(entry);
        }
        if !self.table.api() {
            return None;
        }
        // Not read directly: `PyDict_Next` from the same entry index.
        let mut key: Obj = std::ptr::null_mut();
        let mut value: Obj = std::ptr::null_mut();
        // SAFETY: the dict is live and its lock held (`with_dict_entries`), as `PyDict_Next`
        // requires in this build; the key and value are borrowed from the dict, which no other
        // thread can change while the lock is held.
        let more = unsafe { ffi::PyDict_Next(self.dict, &mut self.pos, &mut key, &mut value) };
        (more != 0).then_some((key, value))
    }
}

/// Free-threaded: runs `read` over a dict's entries, borrowed, while the dict's lock is held, so
/// that no other thread can add, remove or replace an entry meanwhile. As for lists
/// ([`super::with_list_items`]), the lock is suspended if the thread blocks, so `read` must not:
/// what needs to takes strong references first ([`LockedEntries::hold_rest`]).
///
/// # Safety
/// `dict` is a live dict, the thread is attached, and `read` runs no Python code, takes no lock,
/// does not block or detach, and does not unwind.
#[cfg(Py_GIL_DISABLED)]
#[inline(always)]
pub unsafe fn with_dict_entries<R>(dict: Obj, read: impl FnOnce(&mut LockedEntries) -> R) -> R {
    // SAFETY: `dict` is a live dict and the thread attached (the precondition); `read` does
    // nothing that would suspend the lock, so the entries it borrows stay live.
    unsafe {
        super::sync::locked(dict, || {
            read(&mut LockedEntries {
                dict,
                pos: 0,
                table: Table::for_dict(dict),
            })
        })
    }
}
