//! [`Ref`]: a borrowed reference to a live Python object whose type says what a raw [`Obj`]
//! could only promise in prose. It is made once, where the reason the object is alive is known
//! (a strong reference held, a container held, CPython's own arguments), and the functions that
//! take it need not ask again.

use std::marker::PhantomData;
use std::ptr::NonNull;

use pyo3::ffi;

use super::{Obj, Owned, TypePtr};

/// A borrowed reference to a live Python object, on a thread attached to the interpreter.
///
/// The object stays alive for `'a` as long as no Python code runs: it is held by the caller, by
/// the Python call being served, or by a container that is held. Code that runs Python code
/// (`default`, a `__str__`, an encoder) while it still needs the object takes a strong reference
/// first ([`Ref::hold`]), as that code could empty the container.
///
/// The same size as a pointer, and never null, so `Option<Ref>` is too.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub struct Ref<'a> {
    ptr: NonNull<ffi::PyObject>,
    _borrow: PhantomData<&'a ffi::PyObject>,
}

impl<'a> Ref<'a> {
    /// A borrowed reference to the object `ptr` points at.
    ///
    /// # Safety
    /// `ptr` points at a live object that stays alive for `'a` as the type's contract says (held
    /// by the caller or by a held container until Python code runs), and the thread is attached
    /// for `'a`. Checked in debug builds: not null, and a positive reference count.
    #[inline(always)]
    pub unsafe fn new(ptr: Obj) -> Ref<'a> {
        debug_assert!(!ptr.is_null(), "a Ref to null");
        // SAFETY: `ptr` points at a live object (this function's precondition), so its reference
        // count can be read; only debug builds read it.
        let count = || unsafe { ffi::Py_REFCNT(ptr) };
        debug_assert!(count() > 0, "a Ref to a freed object");
        Ref {
            // SAFETY: `ptr` points at a live object (this function's precondition), so it is not
            // null; checked above in debug builds.
            ptr: unsafe { NonNull::new_unchecked(ptr) },
            _borrow: PhantomData,
        }
    }

    /// The object a strong reference holds, borrowed while the reference lives.
    #[inline(always)]
    pub fn of(owned: &'a Owned) -> Ref<'a> {
        // SAFETY: `owned` is a strong reference, so its object lives at least as long as the
        // borrow of `owned`, and an `Owned` only exists on an attached thread.
        unsafe { Ref::new(owned.as_ptr()) }
    }

    /// The object a `Bound` holds, borrowed while the `Bound` lives.
    #[inline(always)]
    pub fn of_bound(obj: &'a pyo3::Bound<'_, pyo3::PyAny>) -> Ref<'a> {
        // SAFETY: a `Bound` is a strong reference held on an attached thread (its `Python`
        // token), for at least as long as it is borrowed.
        unsafe { Ref::new(obj.as_ptr()) }
    }

    /// The object a `Py` holds, borrowed while the `Py` is, on the thread `py` attaches.
    #[inline(always)]
    pub fn of_py<T>(obj: &'a pyo3::Py<T>, _py: pyo3::Python<'a>) -> Ref<'a> {
        // SAFETY: a `Py` is a strong reference, so its object lives at least as long as the
        // borrow of `obj`, and `py` shows the thread is attached for `'a`.
        unsafe { Ref::new(obj.as_ptr()) }
    }

    /// The raw pointer, for the calls of the CPython API in `ffi`.
    #[inline(always)]
    pub fn as_ptr(self) -> Obj {
        self.ptr.as_ptr()
    }

    /// The object's type.
    #[inline(always)]
    pub fn type_of(self) -> TypePtr {
        // SAFETY: the object is live (the type's invariant), and every live object has a type.
        unsafe { super::type_of(self.as_ptr()) }
    }

    /// The object's type as an object: every instance holds its type, so it lives as long as
    /// the object does.
    #[inline(always)]
    pub fn type_ref(self) -> Ref<'a> {
        // SAFETY: an object holds a strong reference to its type, so the type is live for `'a`
        // like the object (the type's invariant), on the same attached thread.
        unsafe { Ref::new(self.type_of().cast()) }
    }

    /// Whether this is `None`.
    #[inline(always)]
    pub fn is_none(self) -> bool {
        self.as_ptr() == super::none()
    }

    /// A strong reference to the object, for code about to run Python code while it still needs
    /// it.
    #[inline(always)]
    pub fn hold(self) -> Owned {
        // SAFETY: the object is live and the thread attached (the type's invariant).
        unsafe { Owned::from_borrowed(self.as_ptr()) }
    }

    /// The name of the object's type, for error messages.
    #[cold]
    pub fn type_name(self) -> String {
        // SAFETY: the object is live and the thread attached (the type's invariant).
        unsafe { super::type_name(self.as_ptr()) }
    }
}
