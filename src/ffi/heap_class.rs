//! The extension's classes, made once per interpreter.
//!
//! PyO3's `#[pyclass]` makes one type object per process (a static `LazyTypeObject`), which an
//! interpreter with its own GIL must not share with another: its reference count, its
//! attribute cache and the instances' type pointers would be touched by two interpreters at
//! once. Each class here keeps PyO3's `#[pyclass]` and `#[pymethods]` (the layout, argument
//! parsing, borrow checking, the slots), but names the PyO3 it expands against as
//! [`crate::ffi::pyo3_per_interp`]: that path is PyO3 itself except for the one function its
//! expansion calls to find the class's type object (`PyTypeInfo::type_object_raw`), which
//! becomes [`pyclass_type_object_raw`] here. So every type check (`cast::<T>()`, the methods'
//! receiver), every new instance (`Py::new`, `Bound::new`) and every `get_type::<T>()` reaches
//! the type made for the interpreter the call runs in.
//!
//! A class opts in with [`heap_class!`](crate::heap_class), which gives it its storage (a
//! [`PerInterp`]) and, where it has any, its getters (PyO3 keeps its own `#[getter]` tables
//! private, so a class here declares its getters to the macro instead). The module's exec slot
//! makes each class for its interpreter ([`add_class`]); the main interpreter's live as long as
//! the process, another interpreter's are released with its last module object.
//!
//! The type is made from what `#[pyclass]`/`#[pymethods]` generated, as PyO3 would make it:
//! the same slots, methods, members, size, weak-reference list and flags, with PyO3's own
//! deallocation and traversal. What the spec points at (the method, member and getter tables,
//! the name) is built once per process and shared read-only by the interpreters, as CPython's
//! own static method tables are. A feature PyO3's type builder supports but no class here uses
//! (`#[getter]`/`#[setter]` inside `#[pymethods]`, class attributes, `dict`) is refused with an
//! error when the class is made, so that it cannot be lost silently.

use std::ffi::{c_int, c_void, CStr, CString};
use std::sync::OnceLock;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::impl_::pycell::PyClassObjectBaseLayout;
use pyo3::impl_::pyclass::{PyClassImpl, PyObjectOffset};
use pyo3::impl_::pymethods::PyMethodDefType;
use pyo3::prelude::*;
use pyo3::types::{PyModule, PyType};
use pyo3::{PyClass, PyTypeInfo};

use super::PerInterp;

/// A getter declared to [`heap_class!`](crate::heap_class): its name, doc and C function.
pub struct Getter {
    pub name: &'static CStr,
    pub doc: &'static CStr,
    pub get: ffi::getter,
}

/// What a class made per interpreter keeps: its spec (once per process) and its type object
/// (once per interpreter).
pub struct ClassStorage {
    spec: OnceLock<Result<Spec, String>>,
    types: PerInterp<Py<PyType>>,
}

impl ClassStorage {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> ClassStorage {
        ClassStorage {
            spec: OnceLock::new(),
            types: PerInterp::new(),
        }
    }
}

/// A class whose type object is made per interpreter (see the module).
pub trait HeapClass: PyClass {
    /// The class's storage, a static of its own.
    fn storage() -> &'static ClassStorage;
    /// Its getters.
    const GETTERS: &'static [Getter];
    /// Its `tp_dealloc` (made by [`heap_class!`] around [`dealloc_body`]).
    const DEALLOC: ffi::destructor;
    /// Work on the type once made, before any instance exists (slots PyO3 cannot declare).
    fn finish(_ty: &Bound<'_, PyType>) -> PyResult<()> {
        Ok(())
    }
}

/// Makes `T` a class made per interpreter: `heap_class!(T)`, or with getters
/// `heap_class!(T, getters: [(c"name", c"doc", path::to::getter), ...])` where each getter is
/// `fn(&Bound<'py, T>) -> PyResult<Bound<'py, PyAny>>`, and optionally `finish: path` (see
/// [`HeapClass::finish`]).
#[macro_export]
macro_rules! heap_class {
    ($ty:ty $(, getters: [$(($name:expr, $doc:expr, $get:path)),* $(,)?])? $(, finish: $finish:path)? $(,)?) => {
        impl $crate::ffi::HeapClass for $ty {
            fn storage() -> &'static $crate::ffi::ClassStorage {
                static STORAGE: $crate::ffi::ClassStorage = $crate::ffi::ClassStorage::new();
                &STORAGE
            }
            const DEALLOC: pyo3::ffi::destructor = {
                unsafe extern "C" fn dealloc(obj: *mut pyo3::ffi::PyObject) {
                    // SAFETY: CPython calls `tp_dealloc` attached, with an object no one
                    // refers to any more; untracking comes before any field is invalidated.
                    unsafe {
                        pyo3::ffi::PyObject_GC_UnTrack(obj.cast());
                        let f = pyo3::impl_::trampoline::get_trampoline_function!(
                            inquiry,
                            $crate::ffi::dealloc_body::<$ty>
                        );
                        if f(obj) < 0 {
                            pyo3::ffi::PyErr_WriteUnraisable(std::ptr::null_mut());
                        }
                    }
                }
                dealloc
            };
            const GETTERS: &'static [$crate::ffi::Getter] = &[$($(
                $crate::ffi::Getter {
                    name: $name,
                    doc: $doc,
                    get: {
                        unsafe fn body(
                            py: pyo3::Python<'_>,
                            slf: *mut pyo3::ffi::PyObject,
                        ) -> pyo3::PyResult<*mut pyo3::ffi::PyObject> {
                            // SAFETY: CPython calls a getter attached, with a live object of
                            // the class it was found on (or a subclass), borrowed for the call.
                            let slf = unsafe { pyo3::Borrowed::from_ptr(py, slf) };
                            let slf = slf.cast::<$ty>()?;
                            Ok($get(&slf)?.into_ptr())
                        }
                        unsafe extern "C" fn get(
                            slf: *mut pyo3::ffi::PyObject,
                            _closure: *mut std::ffi::c_void,
                        ) -> *mut pyo3::ffi::PyObject {
                            let f = pyo3::impl_::trampoline::get_trampoline_function!(
                                unaryfunc, body
                            );
                            // SAFETY: CPython calls a getter attached, with a live object.
                            unsafe { f(slf) }
                        }
                        get
                    },
                },
            )*)?];
            $(
                fn finish(ty: &pyo3::Bound<'_, pyo3::types::PyType>) -> pyo3::PyResult<()> {
                    $finish(ty)
                }
            )?
        }
    };
}

/// `T`'s type object in the interpreter the call runs in: what PyO3's expansion of `T`'s
/// `#[pyclass]` calls through [`crate::ffi::pyo3_per_interp`] for `PyTypeInfo::type_object_raw`.
/// The type is made by the module's exec slot ([`add_class`]); until then, the first call here
/// makes it.
#[inline]
pub fn pyclass_type_object_raw<T: HeapClass>(py: Python<'_>) -> *mut ffi::PyTypeObject {
    match T::storage().types.get(py) {
        Some(ty) => ty.as_ptr().cast(),
        None => made_now::<T>(py),
    }
}

#[cold]
fn made_now<T: HeapClass>(py: Python<'_>) -> *mut ffi::PyTypeObject {
    match class_type::<T>(py) {
        Ok(ty) => ty.as_ptr().cast(),
        // Out of memory, or a class using what the builder refuses (which every test of the
        // class would show at once). The type must still be a real type that no object of
        // this interpreter's class is an instance of, so that type checks stay sound: PyO3's
        // process-wide type of the class serves.
        Err(err) => {
            err.write_unraisable(py, None);
            pyo3::impl_::pyclass::pyclass_type_object_raw::<T>(py)
        }
    }
}

/// `T`'s type object in this interpreter, made the first time.
pub fn class_type<T: HeapClass>(py: Python<'_>) -> PyResult<&'static Py<PyType>> {
    T::storage().types.get_or_try_init(py, || make::<T>(py))
}

/// Adds `T`'s type object for this interpreter to `module`, under the class's name.
pub fn add_class<T: HeapClass>(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let ty = class_type::<T>(py)?.bind(py);
    super::module_add(module, <T as PyClass>::NAME, ty.as_any())
}

/// What CPython reads while making the class, built once per process and never changed: the
/// spec, its slots, and the tables and name they point at.
struct Spec {
    spec: ffi::PyType_Spec,
    _slots: Vec<ffi::PyType_Slot>,
    _methods: Vec<ffi::PyMethodDef>,
    _members: Vec<ffi::PyMemberDef>,
    _getset: Vec<ffi::PyGetSetDef>,
    _name: CString,
}

// SAFETY: a `Spec` is written only while it is built, before it is kept in its `OnceLock`;
// after that, its raw pointers (into its own vectors and name, which are never moved, and to
// static docs and functions) are only read, by CPython, while making types.
unsafe impl Send for Spec {}
// SAFETY: as above: shared only for reading.
unsafe impl Sync for Spec {}

fn make<T: HeapClass>(py: Python<'_>) -> PyResult<Py<PyType>> {
    let spec = T::storage()
        .spec
        .get_or_init(|| build::<T>(py))
        .as_ref()
        .map_err(|e| PyTypeError::new_err(e.clone()))?;
    let raw: *const ffi::PyType_Spec = &spec.spec;
    // SAFETY: attached; the spec and everything it points at live as long as the process and
    // are only read (see `Spec`); a new reference or NULL with an exception comes back.
    let ty = unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyType_FromSpec(raw.cast_mut()))?
            .cast_into_unchecked::<PyType>()
    };
    T::finish(&ty)?;
    Ok(ty.unbind())
}

/// The body of `T`'s deallocation, as PyO3's: its layout's own (drops the Rust value, clears
/// the weak references, frees the object and lets go of the type). [`heap_class!`]'s
/// `tp_dealloc` runs it through PyO3's trampoline, so that what it drops is released at once,
/// in this interpreter, after taking the object out of the collector's lists.
///
/// # Safety
/// `obj` is a dead, untracked instance of `T` or a subclass (its dealloc runs this), never
/// used afterwards.
pub unsafe fn dealloc_body<T: HeapClass>(
    py: Python<'_>,
    obj: *mut ffi::PyObject,
) -> PyResult<c_int> {
    // SAFETY: the caller's contract.
    unsafe { <<T as PyClassImpl>::Layout as PyClassObjectBaseLayout<T>>::tp_dealloc(py, obj) };
    Ok(0)
}

/// `obj[index]` for a sequence class that defines only `__getitem__`, so that the sequence
/// protocol (`PySequence_GetItem`) reaches it, as it does for a Python class.
unsafe extern "C" fn sequence_item(
    obj: *mut ffi::PyObject,
    index: ffi::Py_ssize_t,
) -> *mut ffi::PyObject {
    // SAFETY: CPython calls `sq_item` attached, with a live object; both calls take and return
    // owned references or NULL with an exception set, and run no Rust code of ours.
    unsafe {
        let index = ffi::PyLong_FromSsize_t(index);
        if index.is_null() {
            return std::ptr::null_mut();
        }
        let item = ffi::PyObject_GetItem(obj, index);
        ffi::Py_DECREF(index);
        item
    }
}

fn slot(slot: c_int, pfunc: *mut c_void) -> ffi::PyType_Slot {
    ffi::PyType_Slot { slot, pfunc }
}

/// `T`'s spec, from what PyO3's macros generated for it, or why it cannot be made here.
fn build<T: HeapClass>(py: Python<'_>) -> Result<Spec, String> {
    let name = <T as PyClass>::NAME;
    let mut slots = Vec::new();
    let mut methods = Vec::new();
    let mut members = Vec::new();
    let (mut has_new, mut has_getitem) = (false, false);
    for items in T::items_iter() {
        for s in items.slots {
            has_new |= s.slot == ffi::Py_tp_new;
            has_getitem |= s.slot == ffi::Py_mp_subscript;
            let kind = if T::IS_SEQUENCE && s.slot == ffi::Py_mp_length {
                // The length of a sequence is its `sq_length` (CPython then adds it to
                // negative indices for `sq_item`, as for any sequence).
                ffi::Py_sq_length
            } else {
                s.slot
            };
            slots.push(slot(kind, s.pfunc));
        }
        for def in items.methods {
            match def {
                PyMethodDefType::Method(m) => methods.push((*m).into_raw()),
                PyMethodDefType::StructMember(m) => members.push(*m),
                _ => {
                    return Err(format!(
                        "{name}: a #[getter], #[setter] or class attribute in #[pymethods] is \
                         not supported for a class made per interpreter; declare getters to \
                         heap_class!"
                    ))
                }
            }
        }
    }
    if T::dict_offset().is_some() {
        return Err(format!("{name}: #[pyclass(dict)] is not supported here"));
    }
    if let Some(PyObjectOffset::Absolute(offset)) = T::weaklist_offset() {
        members.push(ffi::PyMemberDef {
            name: c"__weaklistoffset__".as_ptr(),
            type_code: ffi::Py_T_PYSSIZET,
            offset,
            flags: ffi::Py_READONLY,
            doc: std::ptr::null(),
        });
    } else if T::weaklist_offset().is_some() {
        return Err(format!(
            "{name}: a relative weak-reference offset is not supported here"
        ));
    }
    let mut getset: Vec<ffi::PyGetSetDef> = T::GETTERS
        .iter()
        .map(|g| ffi::PyGetSetDef {
            name: g.name.as_ptr(),
            get: Some(g.get),
            set: None,
            doc: g.doc.as_ptr(),
            closure: std::ptr::null_mut(),
        })
        .collect();
    // Each table ends with a zeroed entry; the vectors are not changed afterwards, so the
    // pointers taken below stay valid while the spec is kept.
    if !methods.is_empty() {
        // SAFETY: an all-zero `PyMethodDef` is the table's end marker CPython expects.
        methods.push(unsafe { std::mem::zeroed() });
        slots.push(slot(ffi::Py_tp_methods, methods.as_mut_ptr().cast()));
    }
    if !members.is_empty() {
        // SAFETY: an all-zero `PyMemberDef` is the table's end marker.
        members.push(unsafe { std::mem::zeroed() });
        slots.push(slot(ffi::Py_tp_members, members.as_mut_ptr().cast()));
    }
    if !getset.is_empty() {
        // SAFETY: an all-zero `PyGetSetDef` is the table's end marker.
        getset.push(unsafe { std::mem::zeroed() });
        slots.push(slot(ffi::Py_tp_getset, getset.as_mut_ptr().cast()));
    }
    if !T::IS_MAPPING && has_getitem {
        slots.push(slot(ffi::Py_sq_item, sequence_item as *mut c_void));
    }
    if !T::DOC.is_empty() {
        slots.push(slot(ffi::Py_tp_doc, T::DOC.as_ptr() as *mut c_void));
    }
    // CPython's `object` type, a static that lives as long as the process.
    let base = std::ptr::addr_of_mut!(ffi::PyBaseObject_Type);
    if <<T as PyClassImpl>::BaseType as PyTypeInfo>::type_object_raw(py) != base {
        return Err(format!(
            "{name}: only classes based on object are supported here"
        ));
    }
    slots.push(slot(ffi::Py_tp_base, base.cast()));
    slots.push(slot(ffi::Py_tp_dealloc, T::DEALLOC as *mut c_void));
    slots.push(slot(
        ffi::Py_tp_traverse,
        pyo3::impl_::pymethods::tp_traverse::<T> as *mut c_void,
    ));
    slots.push(slot(0, std::ptr::null_mut()));

    let mut flags = ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_HAVE_GC;
    if T::IS_BASETYPE {
        flags |= ffi::Py_TPFLAGS_BASETYPE;
    }
    if T::IS_IMMUTABLE_TYPE {
        flags |= ffi::Py_TPFLAGS_IMMUTABLETYPE;
    }
    if !has_new {
        // No `#[new]`: Python code cannot make one (instances come from the extension).
        flags |= ffi::Py_TPFLAGS_DISALLOW_INSTANTIATION;
    }
    let full = format!(
        "{}.{}",
        <T as PyClassImpl>::MODULE.unwrap_or("builtins"),
        name
    );
    let full = CString::new(full).map_err(|e| e.to_string())?;
    let basicsize = std::mem::size_of::<<T as PyClassImpl>::Layout>();
    Ok(Spec {
        spec: ffi::PyType_Spec {
            name: full.as_ptr(),
            basicsize: c_int::try_from(basicsize).map_err(|e| e.to_string())?,
            itemsize: 0,
            flags: flags as _,
            slots: slots.as_mut_ptr(),
        },
        _slots: slots,
        _methods: methods,
        _members: members,
        _getset: getset,
        _name: full,
    })
}
