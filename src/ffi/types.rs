//! Type pointers and type checks, used to classify each object once.

use std::ptr::addr_of_mut;

use pyo3::ffi;

use super::{Obj, Owned};

pub type TypePtr = *mut ffi::PyTypeObject;

/// The type of `obj`.
///
/// # Safety
/// `obj` points to a live object.
#[inline(always)]
pub unsafe fn type_of(obj: Obj) -> TypePtr {
    // SAFETY: `obj` is live (this function's precondition), and a live object's header holds its
    // type.
    unsafe { ffi::Py_TYPE(obj) }
}

macro_rules! builtin_type {
    ($name:ident, $sym:ident) => {
        #[inline(always)]
        pub fn $name() -> TypePtr {
            // Only the address of the interpreter's static type object is taken.
            addr_of_mut!(ffi::$sym)
        }
    };
}

builtin_type!(str_type, PyUnicode_Type);
builtin_type!(int_type, PyLong_Type);
builtin_type!(bool_type, PyBool_Type);
builtin_type!(float_type, PyFloat_Type);
builtin_type!(list_type, PyList_Type);
builtin_type!(dict_type, PyDict_Type);
builtin_type!(tuple_type, PyTuple_Type);
builtin_type!(bytes_type, PyBytes_Type);
builtin_type!(bytearray_type, PyByteArray_Type);
builtin_type!(memoryview_type, PyMemoryView_Type);
builtin_type!(set_type, PySet_Type);
builtin_type!(type_type, PyType_Type);
builtin_type!(frozenset_type, PyFrozenSet_Type);

/// Whether instances of `ty` are subclasses of the builtin marked by `flag` (one of the
/// `Py_TPFLAGS_*_SUBCLASS` bits).
///
/// # Safety
/// `ty` points to a live type object.
#[inline(always)]
pub unsafe fn has_flag(ty: TypePtr, flag: std::os::raw::c_ulong) -> bool {
    // SAFETY: `ty` is a live type object (this function's precondition), so its flags can be
    // read.
    unsafe { ffi::PyType_HasFeature(ty, flag) != 0 }
}

/// Whether `ty` is `base` or a subclass of it.
///
/// # Safety
/// Both point to live type objects and the GIL is held.
#[inline]
pub unsafe fn is_subtype(ty: TypePtr, base: TypePtr) -> bool {
    // SAFETY: both are live type objects and the GIL is held (this function's precondition).
    unsafe { ffi::PyType_IsSubtype(ty, base) != 0 }
}

pub use ffi::{
    Py_TPFLAGS_BYTES_SUBCLASS, Py_TPFLAGS_DICT_SUBCLASS, Py_TPFLAGS_LIST_SUBCLASS,
    Py_TPFLAGS_LONG_SUBCLASS, Py_TPFLAGS_TUPLE_SUBCLASS, Py_TPFLAGS_UNICODE_SUBCLASS,
};

/// The qualified name of an object's type, for error messages.
///
/// # Safety
/// `obj` points to a live object and the GIL is held.
#[cold]
pub unsafe fn type_name(obj: Obj) -> String {
    // SAFETY: `obj` is live and the GIL is held (this function's precondition).
    unsafe {
        let ty = type_of(obj);
        std::ffi::CStr::from_ptr((*ty).tp_name)
            .to_string_lossy()
            .into_owned()
    }
}

/// `None`, `True` and `False`.
#[inline(always)]
pub fn none() -> Obj {
    // SAFETY: `Py_None` only returns the address of the interpreter's None singleton.
    unsafe { ffi::Py_None() }
}

#[inline(always)]
pub fn true_obj() -> Obj {
    // SAFETY: `Py_True` only returns the address of the interpreter's True singleton.
    unsafe { ffi::Py_True() }
}

#[inline(always)]
pub fn false_obj() -> Obj {
    // SAFETY: `Py_False` only returns the address of the interpreter's False singleton.
    unsafe { ffi::Py_False() }
}

extern "C" {
    // Exported by CPython (Include/cpython/object.h): looks `name` up along a type's MRO, through
    // the type attribute cache, without invoking descriptors. Returns a borrowed reference.
    #[cfg(not(Py_GIL_DISABLED))]
    fn _PyType_Lookup(ty: TypePtr, name: Obj) -> Obj;
    // The same as a new reference (CPython 3.14, which the free-threaded build needs: another
    // thread may replace the class attribute and free what a borrowed result points to).
    #[cfg(Py_GIL_DISABLED)]
    fn _PyType_LookupRef(ty: TypePtr, name: Obj) -> Obj;
}

/// What `name` resolves to on the type `ty`, as a strong reference, without calling anything.
///
/// # Safety
/// `ty` is a live type, `name` a live str, and the thread is attached.
#[inline]
pub unsafe fn type_lookup(ty: TypePtr, name: Obj) -> Option<Owned> {
    // SAFETY: `ty` is a live type and `name` a live str (the precondition), and the lookup raises
    // no error. With the GIL the borrowed result is live (the type's MRO holds it) until the
    // reference is taken, as no other thread runs in between.
    #[cfg(not(Py_GIL_DISABLED))]
    unsafe {
        let found = _PyType_Lookup(ty, name);
        (!found.is_null()).then(|| Owned::from_borrowed(found))
    }
    // SAFETY: `ty` is a live type and `name` a live str (the precondition); the lookup takes its
    // reference to the result under the type's lock, so a non-null result is a new reference.
    #[cfg(Py_GIL_DISABLED)]
    unsafe {
        Owned::from_new(_PyType_LookupRef(ty, name))
    }
}

/// Where instances of `ty` keep the attribute `name`, when it is a `__slots__` member holding an
/// object (raising AttributeError while unset): the byte offset of the slot.
///
/// # Safety
/// `ty` is a live type, `name` a live str, and the GIL is held.
#[cfg(not(any(PyPy, GraalPy, Py_GIL_DISABLED)))]
pub unsafe fn object_slot(ty: TypePtr, name: Obj) -> Option<usize> {
    // SAFETY: `ty` is a live type and `name` a live str (the precondition), as `type_lookup` needs.
    // A member descriptor's layout is CPython's `PyMemberDescrObject`, whose `d_member` points at
    // the type's `PyMemberDef` (pyo3-ffi declares it as another struct's pointer before 3.11; the C
    // field is a `PyMemberDef *`).
    unsafe {
        let descr = type_lookup(ty, name)?;
        let descr = descr.as_ptr();
        if ffi::Py_TYPE(descr) != std::ptr::addr_of_mut!(ffi::PyMemberDescr_Type) {
            return None;
        }
        let member = (*descr.cast::<ffi::PyMemberDescrObject>())
            .d_member
            .cast::<ffi::PyMemberDef>();
        let offset = usize::try_from((*member).offset).ok()?;
        ((*member).type_code == ffi::Py_T_OBJECT_EX
            && offset >= std::mem::size_of::<ffi::PyObject>())
        .then_some(offset)
    }
}

/// Other builds: slots are read through `getattr`.
///
/// # Safety
/// None needed.
#[cfg(any(PyPy, GraalPy, Py_GIL_DISABLED))]
pub unsafe fn object_slot(_ty: TypePtr, _name: Obj) -> Option<usize> {
    None
}

/// The object in the slot at `offset` (see [`object_slot`]), or `None` while it is unset.
///
/// # Safety
/// `obj` is a live instance of the type `offset` was found on, or of a subclass (which keeps
/// its bases' slots where they are); the GIL is held.
#[inline(always)]
pub unsafe fn slot_value(obj: Obj, offset: usize) -> Option<Obj> {
    // SAFETY: `obj` is a live instance of the type `offset` was found on, or of a subclass (the
    // precondition), so `offset` lies inside the object, at a slot holding an object pointer or
    // null.
    let value = unsafe { *(obj as *const u8).add(offset).cast::<Obj>() };
    (!value.is_null()).then_some(value)
}
