//! `Registry`: the user's own classes, each with an extension code (0..127) and the pair of
//! functions that turn an instance into a packable value and back.
//!
//! Packing finds a class by its exact type, before `default`; unpacking finds it by its code
//! only. Nothing is ever looked up by a name the data carries.

use std::sync::{Arc, RwLock};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};
use pyo3::{PyTraverseError, PyVisit};

use crate::ffi::TypePtr;

/// One registered class.
pub struct Entry {
    pub cls: Py<PyType>,
    pub code: i8,
    /// The user's functions; for an Enum registered without them, the class itself (called
    /// with a value its members' map lacks, for `_missing_`) and `None`.
    pub encode: Py<PyAny>,
    pub decode: Py<PyAny>,
    /// An Enum registered without functions: its `_value2member_map_`. Members travel as their
    /// values and come back by a lookup in it.
    pub members: Option<Py<PyDict>>,
}

impl Entry {
    #[inline(always)]
    fn ty(&self) -> TypePtr {
        self.cls.as_ptr().cast()
    }
}

/// The registrations at one moment: a call takes the current table once and keeps it, so a
/// registration made meanwhile (from another thread) applies from the next call on.
#[derive(Default)]
pub struct Table {
    pub(crate) entries: Vec<Entry>,
    /// For each code 0..127, its entry's index plus one (0: none).
    pub(crate) by_code: Vec<u16>,
}

impl Table {
    /// The entry of the exact type `ty`. A linear scan: a registry holds a handful of classes,
    /// and comparing pointers is faster than hashing them.
    #[inline]
    pub fn by_type(&self, ty: TypePtr) -> Option<&Entry> {
        self.entries.iter().find(|e| e.ty() == ty)
    }

    #[inline]
    pub fn by_code(&self, code: i8) -> Option<&Entry> {
        let index = *self.by_code.get(usize::try_from(code).ok()?)?;
        self.entries.get(usize::from(index).checked_sub(1)?)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Visits every object the table holds (for the garbage collector).
    pub fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        for e in &self.entries {
            visit.call(&e.cls)?;
            visit.call(&e.encode)?;
            visit.call(&e.decode)?;
            visit.call(&e.members)?;
        }
        Ok(())
    }
}

/// Registry(): user classes and their extension codes (0 to 127), for `packb`, `unpackb`,
/// `Packer` and `Unpacker` (`registry=`). `register(cls, code, encode=None, decode=None)` adds
/// one: `encode(obj)` gives a packable value, `decode(value)` builds the object again (by
/// default the fields of a dataclass or NamedTuple).
///
/// Example:
///     >>> registry = Registry(); registry.register(Money, 1)
///     >>> unpackb(packb(Money(250), registry=registry), registry=registry)
///     Money(cents=250)
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack", frozen)]
pub struct Registry {
    pub(crate) table: RwLock<Arc<Table>>,
}

impl Registry {
    /// The current table, kept by the caller for the length of one call.
    pub fn snapshot(&self) -> Arc<Table> {
        match self.table.read() {
            Ok(t) => Arc::clone(&t),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }
}

/// Classes the packer writes before it looks at any registry: registering them would do nothing.
pub(crate) fn unregistrable(py: Python<'_>, cls: &Bound<'_, PyType>) -> bool {
    let builtins = [
        py.get_type::<pyo3::types::PyString>(),
        py.get_type::<pyo3::types::PyInt>(),
        py.get_type::<pyo3::types::PyFloat>(),
        py.get_type::<pyo3::types::PyBool>(),
        py.get_type::<pyo3::types::PyDict>(),
        py.get_type::<pyo3::types::PyList>(),
        py.None().bind(py).get_type(),
    ];
    builtins.iter().any(|builtin| builtin.is(cls))
}

/// The registry argument of an entry point: `None`, or a `Registry`, whose table is taken.
#[inline(always)]
pub fn table_of(registry: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Arc<Table>>> {
    match registry {
        None => Ok(None),
        Some(r) => table_of_given(r),
    }
}

#[inline(never)]
fn table_of_given(registry: &Bound<'_, PyAny>) -> PyResult<Option<Arc<Table>>> {
    if registry.is_none() {
        return Ok(None);
    }
    match registry.cast::<Registry>() {
        Ok(r) => {
            let table = r.get().snapshot();
            Ok((!table.is_empty()).then_some(table))
        }
        Err(_) => {
            let ty = registry.get_type().name()?;
            Err(PyTypeError::new_err(format!(
                "registry must be a fastmsgpack.Registry or None, not {ty}"
            )))
        }
    }
}
