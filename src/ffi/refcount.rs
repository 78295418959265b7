//! Taking and dropping strong references: [`incref`] and [`decref`].
//!
//! With the GIL these are pyo3-ffi's `Py_INCREF` and `Py_DECREF`, which do what CPython's
//! headers do, inline. On free-threaded builds pyo3-ffi calls the interpreter's `_Py_IncRef` and
//! `_Py_DecRef` instead, a call per reference taken or dropped (19% of a profile of `packb` on
//! 3.14t). There this module does inline what CPython's `Py_INCREF` and `Py_DECREF` do
//! (Include/refcount.h, 3.14), with biased reference counting:
//!
//! - an immortal object (local count `u32::MAX`) is left as it is;
//! - an object owned by this thread (its `ob_tid` is this thread's id) has its local count
//!   changed with a plain load and store, as only the owning thread ever writes it;
//! - any other object has its shared count changed atomically; dropping a reference there, and
//!   dropping the owner's last local one, is left to CPython's own functions
//!   (`_Py_DecRefShared`, `_Py_MergeZeroLocalRefcount`), which merge the counts or free it.
//!
//! This thread's id is read as CPython's `_Py_ThreadId` reads it (Include/object.h): the thread
//! pointer register, on the targets where its reading is known here (x86-64 Linux and BSD, x86-64
//! macOS, AArch64 Linux and macOS). Elsewhere, or when [`verify`] at import finds that the
//! reading does not match the id CPython stores in a new object, every reference goes through
//! pyo3-ffi's `Py_INCREF` and `Py_DECREF` (the calls), which are always right.

#[cfg(not(Py_GIL_DISABLED))]
use pyo3::ffi;

use super::Obj;

/// Takes a strong reference to `obj`.
///
/// # Safety
/// `obj` is a live object and the thread is attached.
#[inline(always)]
pub unsafe fn incref(obj: Obj) {
    // SAFETY: `obj` is live and the thread attached (the precondition), all `Py_INCREF` needs.
    #[cfg(not(Py_GIL_DISABLED))]
    unsafe {
        ffi::Py_INCREF(obj)
    }
    // SAFETY: as above.
    #[cfg(Py_GIL_DISABLED)]
    unsafe {
        biased::incref(obj)
    }
}

/// Drops a strong reference to `obj`, which may free it (and run Python code: a `__del__`, a
/// weak reference's callback).
///
/// # Safety
/// The caller owns a strong reference to `obj`, gives it up here, and the thread is attached.
#[inline(always)]
pub unsafe fn decref(obj: Obj) {
    // SAFETY: the caller gives up a strong reference on an attached thread (the precondition),
    // all `Py_DECREF` needs.
    #[cfg(not(Py_GIL_DISABLED))]
    unsafe {
        ffi::Py_DECREF(obj)
    }
    // SAFETY: as above.
    #[cfg(Py_GIL_DISABLED)]
    unsafe {
        biased::decref(obj)
    }
}

/// Whether [`verify`] turned the inline path on; `None` with the GIL (nothing checked).
pub fn verified() -> Option<bool> {
    #[cfg(Py_GIL_DISABLED)]
    return Some(biased::verified());
    #[cfg(not(Py_GIL_DISABLED))]
    None
}

/// Checks this thread's id as read here against the one CPython stores in a new object, and
/// turns the inline path on when they agree (nothing to check with the GIL).
pub fn verify(py: pyo3::Python<'_>) {
    #[cfg(Py_GIL_DISABLED)]
    biased::verify(py);
    #[cfg(not(Py_GIL_DISABLED))]
    let _ = py;
}

#[cfg(Py_GIL_DISABLED)]
mod biased {
    use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicU32, AtomicUsize, Ordering};

    use pyo3::ffi;

    use super::Obj;

    /// `_Py_IMMORTAL_REFCNT_LOCAL`: the local count of an immortal object.
    const IMMORTAL_LOCAL: u32 = u32::MAX;
    /// `_Py_REF_SHARED_SHIFT`: the shared count is kept above two flag bits.
    const SHARED_SHIFT: u32 = 2;

    extern "C" {
        /// Drops a reference to an object this thread does not own (Include/refcount.h).
        fn _Py_DecRefShared(obj: Obj);
        /// Called by the owning thread when the local count reaches zero: frees the object if
        /// the shared count is zero too, else gives up ownership and merges the counts.
        fn _Py_MergeZeroLocalRefcount(obj: Obj);
    }

    /// Set by [`verify`] when this thread's id as read here is the one CPython stores; read
    /// without ordering, as a `false` seen late only sends references to CPython's functions.
    static VERIFIED: AtomicBool = AtomicBool::new(false);

    pub fn verified() -> bool {
        VERIFIED.load(Ordering::Relaxed)
    }

    /// This thread's id as CPython's `_Py_ThreadId` reads it: the thread pointer. `None` on
    /// targets where that reading is not known here.
    #[inline(always)]
    fn thread_id() -> Option<usize> {
        #[cfg(all(target_arch = "x86_64", not(target_os = "windows")))]
        {
            let tid: usize;
            // SAFETY: reads the first word of the thread control block, which the C library
            // points at itself on x86-64 (`fs` on Linux and the BSDs, `gs` on macOS), as
            // CPython's `_Py_ThreadId` does; it touches no memory of ours and no flags.
            #[cfg(not(target_os = "macos"))]
            unsafe {
                std::arch::asm!("mov {}, fs:0", out(reg) tid,
                    options(nostack, readonly, preserves_flags, pure));
            }
            // SAFETY: as above, `gs` on macOS.
            #[cfg(target_os = "macos")]
            unsafe {
                std::arch::asm!("mov {}, gs:0", out(reg) tid,
                    options(nostack, readonly, preserves_flags, pure));
            }
            Some(tid)
        }
        #[cfg(all(target_arch = "aarch64", not(target_os = "windows")))]
        {
            let tid: usize;
            // SAFETY: reads the thread pointer register (`tpidrro_el0` on Apple platforms,
            // `tpidr_el0` elsewhere), as CPython's `_Py_ThreadId` does; no memory is touched.
            #[cfg(target_vendor = "apple")]
            unsafe {
                std::arch::asm!("mrs {}, tpidrro_el0", out(reg) tid,
                    options(nomem, nostack, preserves_flags, pure));
            }
            // SAFETY: as above.
            #[cfg(not(target_vendor = "apple"))]
            unsafe {
                std::arch::asm!("mrs {}, tpidr_el0", out(reg) tid,
                    options(nomem, nostack, preserves_flags, pure));
            }
            Some(tid)
        }
        #[cfg(not(any(
            all(target_arch = "x86_64", not(target_os = "windows")),
            all(target_arch = "aarch64", not(target_os = "windows"))
        )))]
        None
    }

    /// This thread's id when the inline path is on.
    #[inline(always)]
    fn checked_thread_id() -> Option<usize> {
        let tid = thread_id()?;
        VERIFIED.load(Ordering::Relaxed).then_some(tid)
    }

    /// Whether `obj` is owned by the thread whose id is `tid` (`_Py_IsOwnedByCurrentThread`).
    ///
    /// # Safety
    /// `obj` is live.
    #[inline(always)]
    unsafe fn owned_by(obj: Obj, tid: usize) -> bool {
        // SAFETY: `obj` is live (the precondition), so its header can be read. `ob_tid` is only
        // ever made equal to a thread's id by that thread (when it creates the object); another
        // thread may set it to zero or, with the world stopped, use it otherwise, so it is read
        // atomically, and a stale value is never this thread's id unless this thread owns it.
        unsafe {
            let field = std::ptr::addr_of_mut!((*obj).ob_tid);
            AtomicUsize::from_ptr(field).load(Ordering::Relaxed) == tid
        }
    }

    /// The local count, as an atomic: only the owning thread writes it, others read it.
    ///
    /// # Safety
    /// `obj` is live for `'a`.
    #[inline(always)]
    unsafe fn local<'a>(obj: Obj) -> &'a AtomicU32 {
        // SAFETY: `obj` is live (the precondition); pyo3-ffi declares the field atomic.
        unsafe { &(*obj).ob_ref_local }
    }

    /// # Safety
    /// `obj` is a live object and the thread is attached.
    #[inline(always)]
    pub unsafe fn incref(obj: Obj) {
        let Some(tid) = checked_thread_id() else {
            // SAFETY: `obj` is live and the thread attached (the precondition).
            return unsafe { ffi::Py_INCREF(obj) };
        };
        // SAFETY: `obj` is live (the precondition). An immortal object's local count is
        // `u32::MAX` and stays so: it is left alone. Otherwise the local count is written only
        // by the owning thread, which this thread is when `owned_by` says so, so a load and a
        // store add one without a lost update; any other thread adds to the shared count
        // atomically, as CPython's `Py_INCREF` does.
        unsafe {
            let local = local(obj);
            let count = local.load(Ordering::Relaxed);
            let raised = count.wrapping_add(1);
            if raised == 0 {
                return;
            }
            if owned_by(obj, tid) {
                local.store(raised, Ordering::Relaxed);
            } else {
                let shared: &AtomicIsize = &(*obj).ob_ref_shared;
                shared.fetch_add(1 << SHARED_SHIFT, Ordering::SeqCst);
            }
        }
    }

    /// # Safety
    /// The caller gives up a strong reference to `obj`, and the thread is attached.
    #[inline(always)]
    pub unsafe fn decref(obj: Obj) {
        let Some(tid) = checked_thread_id() else {
            // SAFETY: the caller gives up a reference on an attached thread (the precondition).
            return unsafe { ffi::Py_DECREF(obj) };
        };
        // SAFETY: the caller holds a reference (the precondition), so `obj` is live. Immortal:
        // nothing to do. Owned by this thread: only this thread writes the local count, so a
        // load and a store take one off; at zero, CPython's function frees the object or merges
        // the counts, as its `Py_DECREF` does. Not owned: CPython's function for that case.
        unsafe {
            let local = local(obj);
            let count = local.load(Ordering::Relaxed);
            if count == IMMORTAL_LOCAL {
                return;
            }
            if owned_by(obj, tid) {
                let lowered = count.wrapping_sub(1);
                local.store(lowered, Ordering::Relaxed);
                if lowered == 0 {
                    merge_zero(obj);
                }
            } else {
                dec_shared(obj);
            }
        }
    }

    /// # Safety
    /// As `_Py_MergeZeroLocalRefcount`: `obj`'s local count just reached zero on its owner.
    #[cold]
    #[inline(never)]
    unsafe fn merge_zero(obj: Obj) {
        // SAFETY: the precondition, which is CPython's.
        unsafe { _Py_MergeZeroLocalRefcount(obj) }
    }

    /// # Safety
    /// The caller gives up a reference to `obj`, which this thread does not own.
    #[inline(never)]
    unsafe fn dec_shared(obj: Obj) {
        // SAFETY: the precondition, which is CPython's.
        unsafe { _Py_DecRefShared(obj) }
    }

    /// Turns the inline path on if this thread's id, as read here, is the `ob_tid` CPython gave
    /// an object it just made on this thread, and the object is owned by no other id.
    pub fn verify(py: pyo3::Python<'_>) {
        let Some(tid) = thread_id() else {
            return;
        };
        // A new list is owned by the thread that made it (CPython sets `ob_tid` to its id).
        let list = pyo3::types::PyList::empty(py);
        // SAFETY: `list` is a live object made on this attached thread.
        let agrees = tid != 0 && unsafe { owned_by(pyo3::Bound::as_ptr(&list), tid) };
        VERIFIED.store(agrees, Ordering::Relaxed);
    }
}
