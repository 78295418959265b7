//! Reading a dict's values for a known sequence of keys by walking its entries in insertion order.
//!
//! An object's `__dict__` usually holds its attributes in the order its `__init__` set them, under
//! the same interned str objects that name them in the class (a dataclass's field names). A
//! cursor compares the key of the dict's next entry with the name wanted: when it is that name,
//! the entry's value is the answer without a hash lookup. When it is not (attributes set in another
//! order, a deleted attribute, keys that are equal strings but other objects), [`DictCursor::take`]
//! answers `None` and the caller looks the name up instead; the cursor stays where it is, so the
//! names after it can still match the entries after it.
//!
//! Each step reads the dict as it is at that moment (Python code run between steps may have
//! changed it), and hands out a strong reference taken while the entry was read: under the dict's
//! lock in free-threaded builds, where another thread may change the dict at any time.

use pyo3::ffi;

use super::{Obj, Owned};

/// A position in a dict's entries, in insertion order.
pub struct DictCursor {
    dict: Obj,
    pos: ffi::Py_ssize_t,
}

impl DictCursor {
    /// # Safety
    /// `dict` is a live dict, kept alive by the caller while the cursor is used.
    #[inline(always)]
    pub unsafe fn new(dict: Obj) -> DictCursor {
        DictCursor { dict, pos: 0 }
    }

    /// The value of the entry at the cursor if its key is `name` (the same object, or an equal
    /// exact `str`), and the cursor moves past it. Entries whose key is a str starting with `_`
    /// are passed over first: `name` never starts with `_`. Otherwise (another key, or no entry
    /// left) `None`, and the cursor stays.
    ///
    /// # Safety
    /// The dict is still alive (the caller's hold), `name` is a live exact `str` not starting
    /// with `_`, and the thread is attached.
    #[inline(always)]
    pub unsafe fn take(&mut self, name: Obj) -> Option<Owned> {
        // SAFETY: the dict is live and the thread attached (this method's precondition); with the
        // GIL no other thread runs while the entry is read and its value's reference taken.
        #[cfg(not(Py_GIL_DISABLED))]
        unsafe {
            self.step(name)
        }
        // SAFETY: as above; here under the dict's lock, as `PyDict_Next` requires in this build,
        // and `step` runs no Python code (comparing two exact strs runs none).
        #[cfg(Py_GIL_DISABLED)]
        unsafe {
            super::sync::locked(self.dict, || self.step(name))
        }
    }

    /// # Safety
    /// As [`DictCursor::take`]; in free-threaded builds the dict's lock is held.
    #[inline(always)]
    unsafe fn step(&mut self, name: Obj) -> Option<Owned> {
        loop {
            let mut pos = self.pos;
            let mut key: Obj = std::ptr::null_mut();
            let mut value: Obj = std::ptr::null_mut();
            // SAFETY: `PyDict_Next` checks `pos` against the dict's current table, so a dict
            // changed since the last step is read within bounds; the key and value it returns
            // are borrowed from the dict, which holds them until a reference is taken below
            // (no Python code runs before that).
            unsafe {
                if ffi::PyDict_Next(self.dict, &mut pos, &mut key, &mut value) == 0 {
                    return None;
                }
                if key == name || same_str(key, name) {
                    self.pos = pos;
                    return Some(Owned::from_borrowed(value));
                }
                if !super::is_private_name(key) {
                    return None;
                }
            }
            self.pos = pos;
        }
    }
}

/// Whether `key` is an exact `str` equal to the exact `str` `name` (another object with the same
/// text). Runs no Python code.
///
/// # Safety
/// Both are live, `name` is an exact `str`; the thread is attached.
#[cold]
#[inline(never)]
unsafe fn same_str(key: Obj, name: Obj) -> bool {
    // SAFETY: both are live (the precondition); `PyUnicode_Compare` of two strs cannot fail.
    unsafe { super::type_of(key) == super::str_type() && ffi::PyUnicode_Compare(key, name) == 0 }
}
