//! The Python methods of `crate::registry`'s `Registry`.

use crate::registry::*;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};
use pyo3::{PyTraverseError, PyVisit};
use std::sync::{Arc, RwLock};

#[pymethods]
impl Registry {
    #[new]
    fn py_new() -> Registry {
        Registry {
            table: RwLock::new(Arc::new(Table {
                entries: Vec::new(),
                by_code: vec![0; 128],
            })),
        }
    }

    /// Registers `cls` under `code` (0..127): `packb` writes an instance `obj` of exactly `cls`
    /// as the extension `code` whose payload is `encode(obj)` packed, and `unpackb` gives back
    /// `decode(value)` for that extension, `value` being the payload unpacked. An Enum class
    /// may be registered without the functions: its members travel as their values.
    #[pyo3(signature = (cls, code, encode=None, decode=None))]
    fn register(
        &self,
        cls: &Bound<'_, PyAny>,
        code: &Bound<'_, PyAny>,
        encode: Option<&Bound<'_, PyAny>>,
        decode: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let py = cls.py();
        let Ok(cls) = cls.cast::<PyType>() else {
            let ty = cls.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "Registry.register: cls must be a class, not {ty}"
            )));
        };
        if unregistrable(py, cls) {
            return Err(PyValueError::new_err(format!(
                "Registry.register: {} is packed as plain MessagePack before any registry is \
                 consulted, and cannot be registered",
                cls.name()?
            )));
        }
        if code.is_instance_of::<pyo3::types::PyBool>() {
            return Err(PyTypeError::new_err(
                "Registry.register: code must be an int, not bool",
            ));
        }
        let code: i64 = code
            .extract()
            .map_err(|_| PyTypeError::new_err("Registry.register: code must be an int"))?;
        let Some(code) = i8::try_from(code).ok().filter(|c| *c >= 0) else {
            return Err(PyValueError::new_err(format!(
                "Registry.register: code must be in 0..127 (the application range of MessagePack \
                 extension types), not {code}"
            )));
        };
        let (encode, decode, members) = match (encode, decode) {
            (Some(encode), Some(decode)) => {
                for (what, f) in [("encode", encode), ("decode", decode)] {
                    if !f.is_callable() {
                        let ty = f.get_type().name()?;
                        return Err(PyTypeError::new_err(format!(
                            "Registry.register: {what} must be callable, not {ty}"
                        )));
                    }
                }
                (encode.clone().unbind(), decode.clone().unbind(), None)
            }
            (None, None) => {
                let enum_base = py.import("enum")?.getattr("Enum")?;
                if !cls.is_subclass(&enum_base)? {
                    return Err(PyTypeError::new_err(format!(
                        "Registry.register: {} needs encode and decode (only an Enum class can \
                         go without them)",
                        cls.name()?
                    )));
                }
                let members = cls.getattr("_value2member_map_")?.cast_into::<PyDict>()?;
                let cls_any = cls.clone().into_any().unbind();
                (cls_any.clone_ref(py), cls_any, Some(members.unbind()))
            }
            _ => {
                return Err(PyTypeError::new_err(
                    "Registry.register: give both encode and decode, or neither (for an Enum)",
                ))
            }
        };
        let mut guard = self
            .table
            .write()
            .map_err(|_| PyRuntimeError::new_err("Registry is unusable (a writer panicked)"))?;
        let old: &Table = &guard;
        if let Some(e) = old.by_code(code) {
            return Err(PyValueError::new_err(format!(
                "Registry.register: code {code} is already taken by {}",
                e.cls.bind(py).name()?
            )));
        }
        if old.by_type(cls.as_ptr().cast()).is_some() {
            return Err(PyValueError::new_err(format!(
                "Registry.register: {} is already registered",
                cls.name()?
            )));
        }
        let mut entries: Vec<Entry> = old
            .entries
            .iter()
            .map(|e| Entry {
                cls: e.cls.clone_ref(py),
                code: e.code,
                encode: e.encode.clone_ref(py),
                decode: e.decode.clone_ref(py),
                members: e.members.as_ref().map(|m| m.clone_ref(py)),
            })
            .collect();
        let mut by_code = old.by_code.clone();
        entries.push(Entry {
            cls: cls.clone().unbind(),
            code,
            encode,
            decode,
            members,
        });
        by_code[code as usize] = entries.len() as u16;
        *guard = Arc::new(Table { entries, by_code });
        Ok(())
    }

    /// The registrations, as `(cls, code)` pairs in the order they were made.
    fn entries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let table = self.snapshot();
        let items = table
            .entries
            .iter()
            .map(|e| {
                PyTuple::new(
                    py,
                    [
                        e.cls.bind(py).clone().into_any(),
                        e.code.into_pyobject(py)?.into_any(),
                    ],
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    fn __len__(&self) -> usize {
        self.snapshot().entries.len()
    }

    fn __contains__(&self, cls: &Bound<'_, PyAny>) -> bool {
        self.snapshot().by_type(cls.as_ptr().cast()).is_some()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let table = self.snapshot();
        let mut parts = Vec::new();
        for e in &table.entries {
            parts.push(format!("{}: {}", e.cls.bind(py).name()?, e.code));
        }
        Ok(format!("Registry({{{}}})", parts.join(", ")))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        // A collection running while a registration holds the lock skips this registry once.
        let Ok(table) = self.table.try_read() else {
            return Ok(());
        };
        table.traverse(&visit)
    }

    fn __clear__(&self) {
        if let Ok(mut table) = self.table.write() {
            *table = Arc::new(Table {
                entries: Vec::new(),
                by_code: vec![0; 128],
            });
        }
    }
}

crate::heap_class!(Registry);
