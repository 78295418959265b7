//! Free-threaded CPython (3.14t): locking a list, dict or bytearray while it is read.
//!
//! Without the GIL, another thread can change a container at any moment: replace a list item
//! (dropping the only reference to the old one), grow a dict's table (freeing the old one), or
//! resize a bytearray (moving its storage). CPython guards each such object with a per-object
//! lock, taken with a critical section; this module takes the same lock around our reads.
//!
//! A critical section is suspended whenever the thread blocks or runs Python code, so nothing
//! read under one may be used after Python code ran unless a strong reference was taken while
//! it was held: the callers copy what they need (strong references to items, or bytes) inside
//! [`locked`], and run no Python code there.
//!
//! With the GIL, no other thread runs while the serializer does (it releases the GIL only when
//! it calls Python code, and re-reads what that code could change), so [`locked`] is not built.

use pyo3::ffi;

use super::Obj;

/// Runs `read` while holding `obj`'s per-object lock (`Py_BEGIN_CRITICAL_SECTION(obj)`).
///
/// # Safety
/// `obj` is live, the thread is attached to the interpreter, and `read` runs no Python code
/// (which would suspend the section) and does not unwind.
#[inline]
pub unsafe fn locked<R>(obj: Obj, read: impl FnOnce() -> R) -> R {
    /// Ends the section when dropped. It refers to the section rather than owning it: CPython
    /// links the section into the thread's state by address, so it must not move while held.
    struct End<'a>(&'a mut ffi::PyCriticalSection);
    impl Drop for End<'_> {
        #[inline]
        fn drop(&mut self) {
            // SAFETY: the section was begun by `locked`, at this address, and is ended once.
            unsafe { ffi::PyCriticalSection_End(self.0) }
        }
    }
    let mut section = std::mem::MaybeUninit::<ffi::PyCriticalSection>::uninit();
    // SAFETY: `PyCriticalSection_Begin` initialises the section (a plain struct of two
    // pointers) and takes `obj`'s lock; the section stays at this address until `End` drops.
    unsafe {
        ffi::PyCriticalSection_Begin(section.as_mut_ptr(), obj);
        let _end = End(section.assume_init_mut());
        read()
    }
}
