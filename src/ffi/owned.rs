use std::ptr::NonNull;

use pyo3::ffi;

use super::Obj;

/// A strong reference to a Python object, released when dropped.
///
/// Never null, so `Option<Owned>` is the size of a pointer.
pub struct Owned(NonNull<ffi::PyObject>);

impl Owned {
    /// Takes over a new reference; `None` if `ptr` is null (a Python error is then set).
    ///
    /// # Safety
    /// `ptr` is null or a strong reference the caller gives up, and the GIL is held.
    #[inline(always)]
    pub unsafe fn from_new(ptr: Obj) -> Option<Owned> {
        NonNull::new(ptr).map(Owned)
    }

    /// Takes over the reference a `Bound` holds (never null).
    #[inline(always)]
    pub fn from_bound(obj: pyo3::Bound<'_, pyo3::PyAny>) -> Owned {
        // SAFETY: a `Bound` holds a live object, never null.
        Owned(unsafe { NonNull::new_unchecked(obj.into_ptr()) })
    }

    /// Takes a new strong reference to a borrowed object.
    ///
    /// # Safety
    /// `ptr` points to a live object and the GIL is held.
    #[inline(always)]
    pub unsafe fn from_borrowed(ptr: Obj) -> Owned {
        debug_assert!(!ptr.is_null(), "a strong reference to null");
        // SAFETY: `ptr` points at a live object and the GIL is held (this function's
        // precondition), so its count can be raised; a live object is not at null.
        unsafe {
            super::refcount::incref(ptr);
            Owned(NonNull::new_unchecked(ptr))
        }
    }

    #[inline(always)]
    pub fn as_ptr(&self) -> Obj {
        self.0.as_ptr()
    }

    /// Gives the reference to the caller, who becomes responsible for releasing it.
    #[inline(always)]
    pub fn into_raw(self) -> Obj {
        let ptr = self.0.as_ptr();
        std::mem::forget(self);
        ptr
    }
}

/// How many strong references `obj` has (immortal objects report a large count).
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline(always)]
pub unsafe fn ref_count(obj: Obj) -> isize {
    // SAFETY: `obj` is live (the precondition), so its reference count field can be read.
    unsafe { ffi::Py_REFCNT(obj) }
}

impl Drop for Owned {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: `Owned` always holds a strong reference, and every `Owned` is created and dropped
        // by code that holds the GIL (the serializer and decoder never release it).
        unsafe { super::refcount::decref(self.0.as_ptr()) }
    }
}
