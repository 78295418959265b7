//! What one call worked out about a few types, kept for the rest of the call.
//!
//! A document of application objects repeats a handful of types (a list of members, each with an
//! address): a memo of the last few types met answers for them without the lookups along the MRO
//! or in the process-wide caches that found the answer the first time.

use std::cell::RefCell;

use crate::ffi::{self, Owned, TypePtr};

/// How many types a memo keeps; the oldest is replaced first.
const SLOTS: usize = 4;

/// Up to [`SLOTS`] types and what was found for each, made when the first type is kept: a call
/// that meets none pays for one word. The types are held, so that the address of one cannot be
/// taken by another type during the call (`default` can make and drop classes).
pub struct TypeMemo<T> {
    kept: RefCell<Option<Box<Kept<T>>>>,
}

struct Kept<T> {
    slots: [Option<(Owned, T)>; SLOTS],
    /// The slot to fill next.
    next: usize,
    /// Replaced types of which the memo held the last reference. Releasing one can run Python code
    /// (weakref callbacks, a metaclass `__del__`) where the serializer relies on none running,
    /// so they are released with the memo, when the call ends.
    late: Vec<Owned>,
}

impl<T> Default for TypeMemo<T> {
    fn default() -> Self {
        TypeMemo {
            kept: RefCell::new(None),
        }
    }
}

impl<T> TypeMemo<T> {
    /// `read` applied to what was kept for `ty`; `None` when `ty` is not kept.
    #[inline(always)]
    pub fn get<R>(&self, ty: TypePtr, read: impl FnOnce(&T) -> R) -> Option<R> {
        let kept = self.kept.try_borrow().ok()?;
        kept.as_ref()?
            .slots
            .iter()
            .flatten()
            .find(|(held, _)| held.as_ptr() == ty.cast())
            .map(|(_, value)| read(value))
    }

    /// Keeps `value` for `ty`, in place of the oldest type kept; false when it could not (the
    /// memo is being read).
    ///
    /// # Safety
    /// `ty` is a live type object, not kept yet; the thread is attached.
    #[inline(never)]
    pub unsafe fn put(&self, ty: TypePtr, value: T) -> bool {
        let Ok(mut kept) = self.kept.try_borrow_mut() else {
            return false;
        };
        let kept = kept.get_or_insert_with(|| {
            Box::new(Kept {
                slots: std::array::from_fn(|_| None),
                next: 0,
                late: Vec::new(),
            })
        });
        let i = kept.next;
        kept.next = (i + 1) % SLOTS;
        // SAFETY: `ty` is a live type object and the thread attached (this method's precondition),
        // so a strong reference can be taken to it.
        let held = unsafe { Owned::from_borrowed(ty.cast()) };
        if let Some((replaced, _)) = kept.slots[i].replace((held, value)) {
            // SAFETY: `replaced` is held, so live.
            if unsafe { ffi::ref_count(replaced.as_ptr()) } == 1 {
                kept.late.push(replaced);
            }
            // Otherwise it is released here, which cannot free it.
        }
        true
    }
}
