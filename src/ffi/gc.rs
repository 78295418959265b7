//! The cyclic garbage collector, paused while a decoder builds a tree of new objects.
//!
//! Objects decoded from MessagePack form a tree: they cannot be part of a cycle until the
//! caller makes one. Collections triggered by the many allocations of a large decode would only
//! traverse them (and the rest of the heap) to find nothing, so the decoder defers them.

use pyo3::ffi;

use super::{Obj, Owned};

/// Disables automatic collection until dropped, then restores it if it was enabled.
pub struct GcPause {
    was_enabled: bool,
}

impl GcPause {
    /// # Safety
    /// The GIL is held, and the value is dropped while it is still held.
    pub unsafe fn new() -> GcPause {
        // Free-threaded: the collector's state is the interpreter's, read by every thread that
        // allocates; when it is off already (another thread's decode paused it) this one leaves
        // it alone rather than write the line again, as `PyGC_Disable` would, to the same
        // effect: a pause found in place is not this decode's to end.
        // SAFETY: `PyGC_IsEnabled` needs only an attached thread (the precondition).
        #[cfg(Py_GIL_DISABLED)]
        if unsafe { ffi::PyGC_IsEnabled() } == 0 {
            return GcPause { was_enabled: false };
        }
        GcPause {
            // SAFETY: `PyGC_Disable` needs only an attached thread, which the GIL held (this
            // function's precondition) is; it returns the previous state, restored on drop.
            was_enabled: unsafe { ffi::PyGC_Disable() } != 0,
        }
    }
}

impl Drop for GcPause {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: a `GcPause` is dropped while the GIL is still held: `new`, the only way to
            // make one, requires it.
            unsafe { ffi::PyGC_Enable() };
        }
    }
}

/// Stops the collector from tracking a dict whose keys and values are all atomic (str, int,
/// float, bytes, None, bool). This is what CPython itself does for such dicts up to 3.13 (with
/// the GIL), and it tracks the dict again as soon as a container is stored in it.
///
/// CPython 3.14, and every free-threaded build, track every dict for good and no longer track
/// one again when a container is stored in it: there an untracked dict could hold a cycle the
/// collector never finds, so dicts are left tracked.
///
/// # Safety
/// `dict` is a dict that holds only atomic keys and values, and the GIL is held.
#[inline(always)]
pub unsafe fn untrack_atomic_dict(dict: &Owned) {
    // SAFETY: `dict` is a dict holding only atomic keys and values, and the GIL is held (the
    // precondition). A dict from `PyDict_New` is tracked, so untracking it is allowed, and CPython
    // tracks it again once a container is stored in it.
    #[cfg(not(any(Py_3_14, Py_GIL_DISABLED)))]
    unsafe {
        ffi::PyObject_GC_UnTrack(dict.as_ptr().cast())
    }
    #[cfg(any(Py_3_14, Py_GIL_DISABLED))]
    let _ = dict;
}

/// Stops the collector from tracking `obj`, an object of one of our own types that, as made,
/// cannot be part of a cycle: the collector would only go over it at every collection to find
/// nothing. Objects of our types are never tracked again by CPython.
///
/// # Safety
/// `obj` is a live object of a type with `Py_TPFLAGS_HAVE_GC`, not yet shared with other
/// threads, and we are attached.
#[inline(always)]
pub unsafe fn untrack_acyclic(obj: Obj) {
    // SAFETY: `obj` is a live GC object (the precondition); untracking one that is tracked, or
    // not, is allowed, and its type's dealloc untracks it again harmlessly.
    unsafe { ffi::PyObject_GC_UnTrack(obj.cast()) }
}
