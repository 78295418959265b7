//! The extension module's definition, written on the C API instead of PyO3's `#[pymodule]`, so
//! that the module can say which interpreters it supports (`Py_mod_multiple_interpreters`,
//! which `#[pymodule]` does not declare) and whether it needs the GIL (`Py_mod_gil`).
//!
//! The module uses multi-phase initialisation: `PyInit__fastmsgpack` (in `api/`) returns the
//! definition made by [`ModuleDef::init`], and CPython then makes a module object and runs the
//! exec slot on it, once per module object (so once per interpreter that imports it, and again
//! if a module object is made anew there). The exec body is a plain Rust function over a
//! `Bound<PyModule>`.
//!
//! What the interpreters slot says: every interpreter, those with a GIL of their own included
//! (`concurrent.interpreters`): no Python object the extension keeps is shared between
//! interpreters. Its classes are made per interpreter (src/ffi/heap_class.rs), and so are its
//! exception classes, interned names and caches (src/ffi/interp.rs); names are added to the
//! module through the C API ([`module_add`]).

use std::cell::UnsafeCell;
use std::ffi::{c_int, c_void, CStr};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyModule;

/// The body run on each new module object (the exec slot).
pub type ModuleExec = for<'a, 'py> fn(&'a Bound<'py, PyModule>) -> PyResult<()>;

/// How many slots the definition has, with the zeroed one that ends the list: exec, then the
/// interpreters slot (3.12+), then the GIL slot (3.13+).
const SLOTS: usize = 2 + cfg!(Py_3_12) as usize + cfg!(Py_3_13) as usize;

/// A module definition's slots, kept for the life of the process beside its [`ModuleDef`].
pub struct ModuleSlots(UnsafeCell<[ffi::PyModuleDef_Slot; SLOTS]>);

// SAFETY: the slots are written only by `ModuleSlots::new`, at compile time; CPython only reads
// them.
unsafe impl Sync for ModuleSlots {}

impl ModuleSlots {
    /// The slots of a module whose exec slot is `exec`: an `extern "C"` function made by
    /// [`module_exec!`](crate::module_exec), which runs a [`ModuleExec`] body.
    pub const fn new(exec: unsafe extern "C" fn(*mut ffi::PyObject) -> c_int) -> ModuleSlots {
        let end = ffi::PyModuleDef_Slot {
            slot: 0,
            value: std::ptr::null_mut(),
        };
        let mut slots = [end; SLOTS];
        slots[0] = ffi::PyModuleDef_Slot {
            slot: ffi::Py_mod_exec,
            value: exec as *mut c_void,
        };
        #[cfg(Py_3_12)]
        {
            // Every interpreter, with its own GIL or not: see the module.
            slots[1] = ffi::PyModuleDef_Slot {
                slot: ffi::Py_mod_multiple_interpreters,
                value: ffi::Py_MOD_PER_INTERPRETER_GIL_SUPPORTED,
            };
        }
        #[cfg(Py_3_13)]
        {
            // Safe without the GIL: on free-threaded builds the walks own what they read from
            // containers other threads can change (src/ffi/sync.rs), and shared caches are
            // locked or per thread (doc/threads.md). A free-threaded interpreter keeps the GIL
            // off when it imports this module.
            slots[2] = ffi::PyModuleDef_Slot {
                slot: ffi::Py_mod_gil,
                value: ffi::Py_MOD_GIL_NOT_USED,
            };
        }
        ModuleSlots(UnsafeCell::new(slots))
    }
}

/// The module definition, kept for the life of the process (CPython refers to it from every
/// module object made from it).
pub struct ModuleDef(UnsafeCell<ffi::PyModuleDef>);

// SAFETY: after `new` (at compile time) the definition is written only by CPython, in
// `PyModuleDef_Init`, which sets its base's fields attached and under the import machinery's
// rules, as it does for any C extension's static definition.
unsafe impl Sync for ModuleDef {}

impl ModuleDef {
    /// The definition of the module `name`, with `slots` (a static of its own).
    pub const fn new(name: &'static CStr, slots: &'static ModuleSlots) -> ModuleDef {
        ModuleDef(UnsafeCell::new(ffi::PyModuleDef {
            m_base: ffi::PyModuleDef_HEAD_INIT,
            m_name: name.as_ptr(),
            m_doc: std::ptr::null(),
            // No per-module state yet: what the module keeps is per interpreter
            // (`ffi::PerInterp`), freed when the interpreter's last module object is.
            m_size: 0,
            m_methods: std::ptr::null_mut(),
            m_slots: slots.0.get().cast(),
            m_traverse: None,
            m_clear: None,
            m_free: None,
        }))
    }

    /// What `PyInit_<name>` returns: the definition, for CPython's multi-phase initialisation.
    pub fn init(&'static self) -> *mut ffi::PyObject {
        // SAFETY: the definition is a static, complete from compile time, so it stays valid for
        // the life of the process, as `PyModuleDef_Init` needs; CPython calls `PyInit_`
        // attached.
        unsafe { ffi::PyModuleDef_Init(self.0.get()) }
    }
}

/// The `extern "C"` exec slot for a [`ModuleExec`] body: PyO3's trampoline, which turns an
/// error or a panic into a raised exception and -1.
#[macro_export]
macro_rules! module_exec {
    ($body:path) => {{
        unsafe extern "C" fn exec_slot(module: *mut pyo3::ffi::PyObject) -> std::ffi::c_int {
            const BODY: $crate::ffi::ModuleExec = $body;
            // SAFETY: CPython calls an exec slot attached, with the new module object.
            unsafe { pyo3::impl_::trampoline::module_exec(module, BODY) }
        }
        exec_slot
    }};
}

/// Sets `module.name = value` and lists `name` in the module's `__all__` (made on first use),
/// through the C API: PyO3's `PyModule::add` looks `__all__` up with a name it interns once per
/// process, which an interpreter with its own GIL must not share.
pub fn module_add(
    module: &Bound<'_, PyModule>,
    name: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    use pyo3::types::{PyList, PyListMethods, PyString};
    let py = module.py();
    let key = PyString::new(py, name);
    // SAFETY: attached; the module, the name and the value are live objects; the call takes
    // its own reference to the value and returns -1 with an exception set on failure.
    let done = unsafe { ffi::PyObject_SetAttr(module.as_ptr(), key.as_ptr(), value.as_ptr()) };
    if done < 0 {
        return Err(PyErr::fetch(py));
    }
    let all_name = PyString::new(py, "__all__");
    let all = match module.getattr(&all_name) {
        Ok(all) => all.cast_into::<PyList>()?,
        Err(err) if !err.is_instance_of::<pyo3::exceptions::PyAttributeError>(py) => {
            return Err(err)
        }
        Err(_) => {
            let all = PyList::empty(py);
            module.setattr(&all_name, &all)?;
            all
        }
    };
    all.append(key)
}
