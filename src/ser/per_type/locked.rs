//! Free-threaded builds: the walks of a list's items and a dict's entries, written while the
//! container's lock is held (doc/threads.md, "Containers changed while they are packed").
//!
//! Another thread may change a list or dict at any moment, dropping the container's reference to
//! an item (which may free it) or moving its storage; CPython's per-object lock (a critical
//! section) keeps it still. But a critical section is suspended, its lock released for other
//! threads, whenever the thread holding it blocks: when it waits for another lock (the critical
//! section of a nested container included), runs Python code, or detaches. So an item borrowed
//! from a locked container may only be used until then.
//!
//! The walk therefore goes in two parts:
//!
//! 1. Under the lock, from the container itself: the header (its count) and the leading run of
//!    items that are leaves ([`leaf`]: None, bools, exact floats, ints that fit 64 bits, strs
//!    whose UTF-8 is at hand, empty exact lists and dicts), each read and written with no call
//!    that could suspend the lock.
//! 2. At the first item that is not a leaf (a nested container, a str still to encode, anything
//!    that may run Python code or take a lock), still under the lock, strong references are
//!    taken to it and every item after it; the lock is released, and those items are written by
//!    the dispatch, as before.
//!
//! As the lock was never suspended between reading the count and taking the references, the
//! output is the container as it was at one moment, exactly as when every item was copied
//! first; but a container of leaves (most of them: the innermost lists and dicts of a document)
//! costs no copy, no allocation and no reference counting at all.
//!
//! The references of part 2 go on one stack for the whole call ([`Held`], `Ctx::held`): a walk
//! pushes its items, nested walks push theirs above them and pop them when done, and the walk pops
//! its own at its end. A buffer of references per container (allocated, filled, freed) took 10%
//! of `packb`'s instructions on citm_catalog, whose dicts mostly hold containers.
//!
//! Python code run by this thread during part 2 (a `default`) that changes the container's size
//! is an error, as with the GIL; changes by other threads are not (they come after the state
//! written).

use crate::emit::Emitter;
use crate::error::{Error, Res};
use crate::ffi::{self, Obj, Owned, Ref};
use crate::ser::per_type::leaf;
use crate::ser::state::State;
use crate::ser::{dispatch, error, per_type, Ctx};

/// The call's stack of strong references taken under a container's lock (see the module).
///
/// Only this module reaches it, on the call's own thread, and no method keeps a reference into
/// the vector past its return or runs Python code while it has one: a reference dropped (which
/// may run a `__del__`) is taken off the vector first.
#[derive(Default)]
pub struct Held(std::cell::UnsafeCell<Vec<Owned>>);

impl Held {
    #[inline(always)]
    fn len(&self) -> usize {
        // SAFETY: no reference into the vector is live (the type's rule).
        unsafe { (&*self.0.get()).len() }
    }

    /// The object at `i`, held by the stack until [`Popped`] takes it off.
    #[inline(always)]
    fn get(&self, i: usize) -> Option<Obj> {
        // SAFETY: as in `len`.
        unsafe { (&*self.0.get()).get(i).map(Owned::as_ptr) }
    }

    /// Pushes a strong reference to `obj`.
    ///
    /// # Safety
    /// `obj` is live (held by a locked container) and the thread is attached.
    #[inline(always)]
    unsafe fn push(&self, obj: Obj) {
        // SAFETY: `obj` is live on an attached thread (the precondition); taking the reference
        // runs no Python code, so nothing reaches the vector while it is borrowed here.
        unsafe { (&mut *self.0.get()).push(Owned::from_borrowed(obj)) }
    }

    /// Drops the references above `base`, each taken off the stack before it is dropped.
    #[inline(always)]
    fn pop_to(&self, base: usize) {
        loop {
            // SAFETY: as in `len`; the borrow ends before the reference is dropped.
            let last = unsafe {
                let stack = &mut *self.0.get();
                if stack.len() <= base {
                    return;
                }
                stack.pop()
            };
            drop(last);
        }
    }
}

/// Pops a walk's references, however it ends.
struct Popped<'c> {
    held: &'c Held,
    base: usize,
}

impl Drop for Popped<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.held.pop_to(self.base);
    }
}

/// A non-empty list's walk (the caller holds the list and has entered it in `st`).
///
/// # Safety
/// `obj` is a live list, held by the caller; the thread is attached.
#[inline(always)]
pub unsafe fn write_list<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let since = ffi::python_calls();
    let held = &cx.held;
    let popped = Popped {
        held,
        base: held.len(),
    };
    // Runs under the list's lock: it only reads items (`leaf::of` reads each item's own fields),
    // writes leaves with the emitter (Rust code only) and takes references, so it runs no Python
    // code, takes no lock and does not block, as `with_list_items` requires. Each borrowed item
    // is used before it returns, while the lock keeps it in the list.
    let read = |items: &[Obj]| {
        let len = items.len();
        e.array_begin(len).map_err(|err| (err, None))?;
        for (i, &item) in items.iter().enumerate() {
            // SAFETY: the item is held by the locked list, on an attached thread.
            let Some(value) = leaf::of(unsafe { Ref::new(item) }) else {
                for &rest in &items[i..] {
                    // SAFETY: the items are live (the locked list holds them), the thread
                    // attached.
                    unsafe { held.push(rest) };
                }
                return Ok((len, i));
            };
            e.array_item(i).map_err(|err| (err, None))?;
            leaf::write(value, st, e).map_err(|err| (err, Some(i)))?;
        }
        Ok((len, len))
    };
    // SAFETY: `obj` is a live list and the thread attached (this function's precondition), and
    // `read` suspends nothing (above).
    let (len, from) = unsafe { ffi::with_list_items(obj.as_ptr(), read) }.map_err(
        |(err, at): (Error, Option<usize>)| match at {
            Some(i) => err.at_index(i, obj),
            None => err,
        },
    )?;
    for i in from..len {
        let Some(item) = held.get(popped.base + (i - from)) else {
            break;
        };
        e.array_item(i)?;
        // SAFETY: the stack holds a strong reference to the item until `popped` is dropped, after
        // this loop (nested walks pop only what they pushed); the thread is attached.
        let item = unsafe { Ref::new(item) };
        dispatch::write(item, st, cx, e).map_err(|err| err.at_index(i, obj))?;
    }
    drop(popped);
    // SAFETY: the list is held by the caller, on an attached thread.
    if ffi::python_calls() != since && unsafe { ffi::var_size(obj.as_ptr()) } != len {
        return Err(error::changed_size("list"));
    }
    e.array_end()
}

/// A non-empty dict's walk in insertion order (the caller holds the dict and has entered it in
/// `st`).
///
/// # Safety
/// `obj` is a live dict, held by the caller; the thread is attached.
#[inline(always)]
pub unsafe fn write_dict<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let since = ffi::python_calls();
    let held = &cx.held;
    let popped = Popped {
        held,
        base: held.len(),
    };
    // Runs under the dict's lock: as in `write_list`, it reads entries (a key's type and ready
    // UTF-8, the value's own fields), writes with the emitter and takes references, none of which
    // suspends the lock; each borrowed entry is used before it returns.
    let read = |entries: &mut ffi::LockedEntries| {
        let len = entries.len();
        e.map_begin(len).map_err(|err| (err, None))?;
        let mut n = 0;
        while let Some((key, value)) = entries.next() {
            // SAFETY: both are held by the locked dict, on an attached thread.
            let Some((key_utf8, value_leaf)) = (unsafe { leaf_entry(key, value) }) else {
                // SAFETY: this is the entry `next` returned last, and each entry handed to the
                // closure is live, held by the locked dict; the thread is attached.
                unsafe {
                    entries.hold_rest((key, value), |key, value| {
                        held.push(key);
                        held.push(value);
                    })
                };
                return Ok((len, n));
            };
            e.map_key(n).map_err(|err| (err, None))?;
            e.str(key_utf8).map_err(|err| (err, None))?;
            e.map_value().map_err(|err| (err, None))?;
            if let Err(err) = leaf::write(value_leaf, st, e) {
                // SAFETY: the key is live, held by the locked dict: the error's path gets a
                // reference of its own to it (taking one suspends nothing).
                return Err((err, Some(unsafe { Owned::from_borrowed(key) })));
            }
            n += 1;
        }
        Ok((len, n))
    };
    // SAFETY: `obj` is a live dict and the thread attached (this function's precondition), and
    // `read` suspends nothing (above).
    let (len, from) = unsafe { ffi::with_dict_entries(obj.as_ptr(), read) }.map_err(
        |(err, at): (Error, Option<Owned>)| match at {
            Some(key) => err.at_key(Ref::of(&key), obj),
            None => err,
        },
    )?;
    let mut n = from;
    let mut at = popped.base;
    while let (Some(key), Some(value)) = (held.get(at), held.get(at + 1)) {
        if n == len {
            return Err(error::changed_size("dict"));
        }
        e.map_key(n)?;
        // SAFETY: the stack holds both until `popped` is dropped, after this loop (nested walks
        // pop only what they pushed), on an attached thread.
        let (key, value) = unsafe { (Ref::new(key), Ref::new(value)) };
        // SAFETY: key and value are held (above), on an attached thread.
        unsafe { per_type::key::write_entry(key, value, st, cx, e) }
            .map_err(|err| per_type::dict::entry_step(err, obj, n, value.as_ptr()))?;
        n += 1;
        at += 2;
    }
    drop(popped);
    // SAFETY: the dict is held by the caller, on an attached thread.
    if n != len || (ffi::python_calls() != since && unsafe { ffi::dict_len(obj.as_ptr()) } != len) {
        return Err(error::changed_size("dict"));
    }
    e.map_end()
}

/// An entry written under the dict's lock: an exact `str` key whose UTF-8 is at hand (as
/// `key::write_entry` writes it without holding it) and a leaf value.
///
/// # Safety
/// Both are live (held by the locked dict) and the thread is attached.
#[inline(always)]
unsafe fn leaf_entry<'a>(key: Obj, value: Obj) -> Option<(&'a [u8], leaf::Leaf<'a>)> {
    // SAFETY: both are live (the precondition); the key is read as a str once its type is
    // checked, from its own fields only.
    unsafe {
        if ffi::type_of(key) != ffi::str_type() {
            return None;
        }
        let utf8 = ffi::str_utf8_ready(key)?;
        Some((utf8, leaf::of(Ref::new(value))?))
    }
}
