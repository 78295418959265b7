//! Arguments of a function called with CPython's vectorcall convention (`METH_FASTCALL |
//! METH_KEYWORDS`), read without PyO3's generic extraction: `unpackb` is called millions of times
//! on small messages, where that extraction was a measurable part of each call.

use std::os::raw::c_char;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::types::{PyAnyMethods, PyString};
use pyo3::{Borrowed, Bound, PyAny, PyErr, Python};

use super::Obj;

/// The arguments of one call: `positional` items, then the values of `kwnames`.
pub struct FastArgs {
    args: *const Obj,
    positional: usize,
    kwnames: Obj,
}

impl FastArgs {
    /// # Safety
    /// The three are what CPython passed to a `METH_FASTCALL | METH_KEYWORDS` function, which
    /// is running (so they are live), and the GIL is held.
    pub unsafe fn new(args: *const Obj, nargsf: ffi::Py_ssize_t, kwnames: Obj) -> FastArgs {
        // SAFETY: `nargsf` is what CPython passed to this running fastcall function (the
        // precondition); `PyVectorcall_NARGS` only masks off the offset flag.
        let positional = unsafe { ffi::PyVectorcall_NARGS(nargsf as usize) } as usize;
        FastArgs {
            args,
            positional,
            kwnames,
        }
    }

    /// How many arguments were given by position.
    pub fn positional_count(&self) -> usize {
        self.positional
    }

    /// The one positional argument of `func`, else the `TypeError` Python gives.
    pub fn only_positional<'a, 'py>(
        &'a self,
        py: Python<'py>,
        func: &str,
    ) -> Result<Borrowed<'a, 'py, PyAny>, PyErr> {
        if self.positional != 1 {
            return Err(positional_count(func, self.positional));
        }
        // SAFETY: there is one positional argument, live for the call.
        Ok(unsafe { Borrowed::from_ptr(py, *self.args) })
    }

    /// The positional arguments of `func`, which takes `min` to `N` of them, in their slots;
    /// `None` for those not given and those given as None. Too few or too many is the
    /// `TypeError` Python gives.
    pub fn positionals<'a, 'py, const N: usize>(
        &'a self,
        py: Python<'py>,
        func: &str,
        min: usize,
    ) -> Result<[Option<Borrowed<'a, 'py, PyAny>>; N], PyErr> {
        if self.positional < min || self.positional > N {
            return Err(positional_range(func, min, N, self.positional));
        }
        let mut out = [None; N];
        for (i, slot) in out.iter_mut().enumerate().take(self.positional) {
            // SAFETY: argument `i` is one of the call's positional arguments, live for the call.
            let value = unsafe { *self.args.add(i) };
            // SAFETY: as above.
            *slot = (value != unsafe { ffi::Py_None() })
                .then(|| unsafe { Borrowed::from_ptr(py, value) });
        }
        Ok(out)
    }

    /// The keyword arguments, each in the slot of its name in `names` (interned strs), `None`
    /// when absent or None; a name that is not there is the `TypeError` Python gives. The first
    /// `filled` names are parameters that positional arguments already gave: naming one of them
    /// again is the `TypeError` Python gives too.
    pub fn keywords<'a, 'py, const N: usize>(
        &'a self,
        py: Python<'py>,
        func: &str,
        names: [&Bound<'py, PyString>; N],
        filled: usize,
    ) -> Result<[Option<Borrowed<'a, 'py, PyAny>>; N], PyErr> {
        let mut out = [None; N];
        if self.kwnames.is_null() {
            return Ok(out);
        }
        // SAFETY: `kwnames` is a live tuple of str, with one value after the positional
        // arguments for each of its items, all live for the call.
        unsafe {
            let count = ffi::PyTuple_GET_SIZE(self.kwnames) as usize;
            for i in 0..count {
                let name = ffi::PyTuple_GET_ITEM(self.kwnames, i as ffi::Py_ssize_t);
                let value = *self.args.add(self.positional + i);
                // Keywords written in a call are interned, as the names are: compared by
                // identity first, by value for the rest (a `**mapping` of other strs).
                let slot = names.iter().position(|n| n.as_ptr() == name).or_else(|| {
                    names
                        .iter()
                        .position(|n| ffi::PyUnicode_Compare(n.as_ptr(), name) == 0)
                });
                match slot {
                    Some(slot) if slot < filled => {
                        return Err(multiple_values(func, &names[slot].to_string()));
                    }
                    Some(slot) => {
                        out[slot] =
                            (value != ffi::Py_None()).then(|| Borrowed::from_ptr(py, value));
                    }
                    None => {
                        ffi::PyErr_Clear();
                        return Err(unexpected_keyword(py, func, name));
                    }
                }
            }
        }
        Ok(out)
    }
}

#[cold]
fn multiple_values(func: &str, name: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{func}() got multiple values for argument '{name}'"
    ))
}

#[cold]
fn positional_count(func: &str, given: usize) -> PyErr {
    PyTypeError::new_err(format!(
        "{func}() takes exactly one positional argument ({given} given)"
    ))
}

#[cold]
fn positional_range(func: &str, min: usize, max: usize, given: usize) -> PyErr {
    PyTypeError::new_err(format!(
        "{func}() takes from {min} to {max} positional arguments but {given} were given"
    ))
}

#[cold]
fn unexpected_keyword(py: Python<'_>, func: &str, name: Obj) -> PyErr {
    // SAFETY: attached; `name` is a live str of the call.
    let name = unsafe { Bound::from_borrowed_ptr(py, name) };
    let shown = name.repr().map(|r| r.to_string()).unwrap_or_default();
    PyTypeError::new_err(format!(
        "{func}() got an unexpected keyword argument {shown}"
    ))
}

/// A method table entry for a `METH_FASTCALL | METH_KEYWORDS` function, kept for the life of
/// the process (CPython refers to it from the function object).
pub struct MethodDef(ffi::PyMethodDef);

// SAFETY: the entry is written once, before any function object refers to it, and only read
// afterwards.
unsafe impl Sync for MethodDef {}

impl MethodDef {
    /// `doc` starts with the signature line CPython turns into `__text_signature__`
    /// (`"name(args)\n--\n\n"`); both strings are NUL-terminated.
    pub const fn new(
        name: &'static [u8],
        meth: ffi::PyCFunctionFastWithKeywords,
        doc: &'static [u8],
    ) -> MethodDef {
        MethodDef(ffi::PyMethodDef {
            ml_name: name.as_ptr() as *const c_char,
            ml_meth: ffi::PyMethodDefPointer {
                PyCFunctionFastWithKeywords: meth,
            },
            ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
            ml_doc: doc.as_ptr() as *const c_char,
        })
    }

    /// The function object, for the module named `module`.
    pub fn function<'py>(
        &'static self,
        py: Python<'py>,
        module: &Bound<'py, PyString>,
    ) -> Result<Bound<'py, PyAny>, PyErr> {
        // SAFETY: attached; the entry lives as long as the process and CPython only reads it.
        unsafe {
            let def = &self.0 as *const ffi::PyMethodDef as *mut ffi::PyMethodDef;
            let f = ffi::PyCMethod_New(
                def,
                std::ptr::null_mut(),
                module.as_ptr(),
                std::ptr::null_mut(),
            );
            Bound::from_owned_ptr_or_err(py, f)
        }
    }
}
