//! Slices handed to code that runs with the GIL released.

/// Bytes that stay alive and unchanged while the GIL is released: the caller holds what owns
/// them (a `bytes` object, a read-only export) for the whole detached call.
#[derive(Clone, Copy)]
pub struct Shared {
    ptr: *const u8,
    len: usize,
}

// SAFETY: a `Shared` is only made from memory that its maker keeps alive and unchanged until
// the detached call that reads it returns (the constructor's contract); reading it from another
// thread meanwhile is then sound.
unsafe impl Send for Shared {}
// SAFETY: the memory is only read, never written, while any `Shared` of it is used (`new`).
unsafe impl Sync for Shared {}

impl Shared {
    /// # Safety
    /// `data` stays alive and unchanged until every use of the `Shared` is over.
    pub unsafe fn new(data: &[u8]) -> Shared {
        Shared {
            ptr: data.as_ptr(),
            len: data.len(),
        }
    }

    pub fn get(&self) -> &[u8] {
        // SAFETY: the memory is alive and unchanged while the `Shared` is used (`new`).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The memory of a new `bytes` object that nothing else refers to yet, written with the GIL
/// released.
pub struct Fresh {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the `bytes` object is new and unshared (`new`'s contract): no other code reads or
// writes its memory while the detached call fills it.
unsafe impl Send for Fresh {}

impl Fresh {
    /// # Safety
    /// `ptr` points to `len` writable bytes of an object only its maker holds, and kept alive
    /// until every use of the `Fresh` is over.
    pub unsafe fn new(ptr: *mut u8, len: usize) -> Fresh {
        Fresh { ptr, len }
    }

    pub fn get(&mut self) -> &mut [u8] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: `new`'s contract: the memory is writable, alive and unshared.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}
