use crate::error::{Error, Res};

use crate::emit::{Emitter, KeyText};
use crate::ffi::{self, DictIter, Owned, Ref};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{dispatch, error, per_type, Ctx};

/// A `dict` (or subclass) as a map, in insertion order or, with `OPT_SORT_KEYS`, by key. An
/// empty dict is written here, inline in the caller's loop; the walk is out of line.
///
/// # Safety
/// `obj` is a live dict; the GIL is held.
#[inline(always)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live dict (this function's precondition), so its size can be read.
    if unsafe { ffi::dict_len(obj.as_ptr()) } == 0 {
        // Nothing to hold or walk, but it still counts toward the nesting limit.
        st.enter_container()?;
        return e.map_empty();
    }
    if st.checks_stack() {
        // Every few levels, on a stack with room for the levels below (crate::stack).
        // SAFETY: as below; the closure runs before `grown` returns, while `obj` is live.
        return crate::stack::grown(|| unsafe { write_entries(obj, st, cx, e) });
    }
    // SAFETY: `obj` is a live dict and the GIL is held (this function's precondition), as
    // `write_entries` needs.
    unsafe { write_entries(obj, st, cx, e) }
}

/// A non-empty dict's walk.
///
/// The dict is held for the duration; if Python code run from `default` changes its size, that
/// is an error (the map header has already been written).
///
/// # Safety
/// `obj` is a live dict; the GIL is held.
#[inline(never)]
unsafe fn write_entries<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let st = st.enter_container()?;
    // SAFETY: `obj` is a live dict and the GIL is held (this function's precondition); `while_held`
    // keeps it alive for the walk whatever Python code `default` runs.
    unsafe {
        ffi::while_held(obj.as_ptr(), || {
            if st.has(opt::SORT_KEYS) {
                return write_sorted(obj, st, cx, e);
            }
            walk_entries(obj, st, cx, e)
        })
    }
}

/// Free-threaded: the entries are written under the dict's lock, or from references taken
/// under it.
#[cfg(Py_GIL_DISABLED)]
use per_type::locked::write_dict as walk_entries;

/// With the GIL: a held dict's entries in insertion order, each read from the dict as it is
/// written.
///
/// # Safety
/// `obj` is a live dict, held by the caller; the GIL is held.
#[cfg(not(Py_GIL_DISABLED))]
#[inline(always)]
unsafe fn walk_entries<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: the dict is held by the caller while iterating, and the GIL is held.
    let mut entries = unsafe { DictIter::new(obj.as_ptr()) };
    let len = entries.len();
    e.map_begin(len)?;
    let mut n = 0;
    for (key, value) in &mut entries {
        if n == len {
            return Err(error::changed_size("dict"));
        }
        e.map_key(n)?;
        // SAFETY: the dict holds the entry, and no Python code has run since it was read: both
        // are live until Python code runs, `Ref`'s contract, and `write_entry` holds them
        // before it does.
        unsafe {
            let (key, value) = (Ref::new(key), Ref::new(value));
            per_type::key::write_entry(key, value, st, cx, e)
                .map_err(|err| entry_step(err, obj, n, value.as_ptr()))?;
        }
        n += 1;
    }
    // SAFETY: the dict is held by the caller, with the GIL.
    if n != len || unsafe { entries.changed() } {
        return Err(error::changed_size("dict"));
    }
    e.map_end()
}

/// The error unwinding out of entry `n` of `dict`, whose value was `value`: the key is read
/// again from the dict (the one walked may have been freed by Python code run meanwhile), and
/// only when the entry still holds the same value; else the step says the entry was lost.
#[cold]
#[inline(never)]
pub(crate) fn entry_step(mut err: Error, dict: Ref<'_>, n: usize, value: ffi::Obj) -> Error {
    use pyo3::prelude::*;
    if err.take_in_key() {
        // About this entry's key: the path is the dict's.
        return err;
    }
    // SAFETY: errors unwind on an attached thread.
    let py = unsafe { Python::assume_attached() };
    // SAFETY: the dict is held by its walk, which is unwinding: it is live.
    let bound = unsafe { Bound::from_borrowed_ptr(py, dict.as_ptr()) };
    if let Ok(d) = bound.cast::<pyo3::types::PyDict>() {
        if let Some((k, v)) = d.iter().nth(n) {
            // Addresses compared only: `value` is not read.
            if v.as_ptr() == value {
                return err.at_key(Ref::of_bound(&k), dict);
            }
        }
    }
    err.at_lost_entry(n, dict)
}

/// One entry to sort: the key's UTF-8 (borrowed from `key`, or from `replaced` when a key with
/// lone surrogates was encoded with replacements), with key and value held.
struct Entry<'a> {
    utf8: std::borrow::Cow<'a, [u8]>,
    _key: Owned,
    _replaced: Option<Owned>,
    value: Owned,
}

/// # Safety
/// `obj` is a live dict, held by the caller; the GIL is held.
#[cold]
#[inline(never)]
unsafe fn write_sorted<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: the dict is held by the caller and the GIL is held (this function's precondition);
    // every entry holds its key and value, so Python code
    // run while values are written cannot free the strings the sorted slices point into.
    unsafe {
        let mut walk = DictIter::new(obj.as_ptr());
        let len = walk.len();
        let mut entries = Vec::with_capacity(len);
        for (key, value) in &mut walk {
            // Writing a key below can run Python code (a tzinfo's `utcoffset`, an enum's
            // value), which could remove the entry: both are held from here.
            let (key, value) = (Owned::from_borrowed(key), Owned::from_borrowed(value));
            let ty = Ref::of(&key).type_of();
            let is_str = ty == ffi::str_type()
                || (st.has(opt::NON_STR_KEYS)
                    && ffi::has_flag(ty, ffi::Py_TPFLAGS_UNICODE_SUBCLASS));
            if !is_str {
                if !st.has(opt::NON_STR_KEYS) {
                    return Err(error::bad_key(Ref::of(&key), false));
                }
                if !E::STRINGIFIES_KEYS {
                    return Err(error::sort_non_str_keys());
                }
                // JSON sorts such keys by the text they are written as.
                let mut text = KeyText::default();
                per_type::key::write(Ref::of(&key), st, cx, &mut text)?;
                entries.push(Entry {
                    utf8: std::borrow::Cow::Owned(text.0),
                    _key: key,
                    _replaced: None,
                    value,
                });
                continue;
            }
            let (utf8, replaced) = match ffi::str_utf8(key.as_ptr()) {
                Some(utf8) => (utf8, None),
                None => {
                    let encoded = per_type::str::encode_surrogates(Ref::of(&key), st, cx)?;
                    (ffi::bytes_data(encoded.as_ptr()), Some(encoded))
                }
            };
            entries.push(Entry {
                utf8: std::borrow::Cow::Borrowed(utf8),
                _key: key,
                _replaced: replaced,
                value,
            });
        }
        if entries.len() != len {
            return Err(error::changed_size("dict"));
        }
        // UTF-8 byte order is code point order.
        entries.sort_unstable_by(|a, b| a.utf8.cmp(&b.utf8));
        e.map_begin(len)?;
        for (i, entry) in entries.iter().enumerate() {
            e.map_key(i)?;
            e.str(&entry.utf8)?;
            e.map_value()?;
            dispatch::write(Ref::of(&entry.value), st, cx, e)
                .map_err(|err| err.at_key(Ref::of(&entry._key), obj))?;
        }
        if walk.changed() {
            return Err(error::changed_size("dict"));
        }
    }
    e.map_end()
}
