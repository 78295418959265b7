//! What one call worked out about a few types, kept for the rest of the call.
//!
//! A document of application objects repeats a handful of types (a list of members, each with an
//! address): a memo of the last few types met answers for them without the lookups along the MRO
//! or in the process-wide caches that found the answer the first time.

use std::cell::{Cell, RefCell};

use crate::ffi::{self, Owned, TypePtr};

/// How many types a memo keeps; the oldest is replaced first.
const SLOTS: usize = 4;

/// Up to [`SLOTS`] types and what was found for each. The types are held, so that the address of
/// one cannot be taken by another type during the call (`default` can make and drop classes).
pub struct TypeMemo<T> {
    slots: RefCell<[Option<(Owned, T)>; SLOTS]>,
    /// The slot to fill next.
    next: Cell<usize>,
    /// Replaced types of which the memo held the last reference. Releasing one can run Python code
    /// (weakref callbacks, a metaclass `__del__`) where the serializer relies on none running,
    /// so they are released with the memo, when the call ends.
    late: Cell<Vec<Owned>>,
}

impl<T> Default for TypeMemo<T> {
    fn default() -> Self {
        TypeMemo {
            slots: RefCell::new(Default::default()),
            next: Cell::new(0),
            late: Cell::new(Vec::new()),
        }
    }
}

impl<T> TypeMemo<T> {
    /// `read` applied to what was kept for `ty`; `None` when `ty` is not kept.
    #[inline(always)]
    pub fn get<R>(&self, ty: TypePtr, read: impl FnOnce(&T) -> R) -> Option<R> {
        let slots = self.slots.try_borrow().ok()?;
        slots
            .iter()
            .flatten()
            .find(|(held, _)| held.as_ptr() == ty.cast())
            .map(|(_, value)| read(value))
    }

    /// Keeps `value` for `ty`, in place of the oldest type kept.
    ///
    /// # Safety
    /// `ty` is a live type object, not kept yet; the thread is attached.
    #[inline(never)]
    pub unsafe fn put(&self, ty: TypePtr, value: T) {
        let Ok(mut slots) = self.slots.try_borrow_mut() else {
            return;
        };
        let i = self.next.get();
        self.next.set((i + 1) % SLOTS);
        // SAFETY: `ty` is a live type object and the thread attached (this method's precondition),
        // so a strong reference can be taken to it.
        let held = unsafe { Owned::from_borrowed(ty.cast()) };
        if let Some((replaced, _)) = slots[i].replace((held, value)) {
            // SAFETY: `replaced` is held, so live.
            if unsafe { ffi::ref_count(replaced.as_ptr()) } == 1 {
                let mut late = self.late.take();
                late.push(replaced);
                self.late.set(late);
            }
            // Otherwise it is released here, which cannot free it.
        }
    }
}
