//! `fastmsgpack.compat`, msgpack-python's API over the engine: a leaf that the engine below
//! (`ser/`, `emit/`, `de/`) never names. It reaches the engine only through what each call
//! hands down: a hook for packing ([`crate::ser::hook`], filled in [`pack`]), the checks of the
//! stream scanner ([`scan`]), and a decoder of its own built from `de/`'s parts ([`decode`]).
//! Its entry points are in the Python face (`crate::api::compat`).
//!
//! The Python module supplies the classes msgpack-python's API names (`Timestamp`, `ExtType`,
//! the exceptions), so that the objects and errors are the ones its users import; those that
//! packing must know are given once, when that module is imported (`_set_compat_ext_type`),
//! kept here for the life of the process, and handed down with each call's hooks
//! ([`crate::ser::Hooks::ext_tuple`], [`crate::ser::hook::Hook::converted`]).

pub mod decode;
mod legacy;
mod options;
pub mod pack;
pub mod scan;

use std::sync::atomic::{AtomicPtr, Ordering};

use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::ffi::TypePtr;

/// `ExtType`, once `fastmsgpack.compat` is imported, else null.
static EXT_TYPE: AtomicPtr<pyo3::ffi::PyTypeObject> = AtomicPtr::new(std::ptr::null_mut());

/// `Timestamp`, once `fastmsgpack.compat` is imported, else null.
static TIMESTAMP_TYPE: AtomicPtr<pyo3::ffi::PyTypeObject> = AtomicPtr::new(std::ptr::null_mut());

/// Records `ext_type` (a named tuple that msgpack-python packs as an extension value: `packb`
/// hands its instances, and its subclasses', to `default` instead of packing them as arrays) and
/// `timestamp` (which compat's `Packer` converts itself before any user `default` sees it).
pub fn set(ext_type: Py<PyType>, timestamp: Py<PyType>) {
    crate::ffi::hold_once(&EXT_TYPE, ext_type);
    crate::ffi::hold_once(&TIMESTAMP_TYPE, timestamp);
}

/// `ExtType` (live: it is held for good), or null before `fastmsgpack.compat` is imported.
#[inline(always)]
pub fn ext_type() -> TypePtr {
    EXT_TYPE.load(Ordering::Acquire)
}

/// `Timestamp` (live: it is held for good), or null before `fastmsgpack.compat` is imported.
#[inline(always)]
pub fn timestamp_type() -> TypePtr {
    TIMESTAMP_TYPE.load(Ordering::Acquire)
}

/// The hooks of a call of `packb` (or of what packs as it does): `default`, a registry's table
/// and `ExtType`, which such a call hands to `default` rather than packing it as a named tuple.
#[inline(always)]
pub fn hooks<'a, 'py>(
    default: Option<&'a Bound<'py, PyAny>>,
    registry: Option<std::sync::Arc<crate::registry::Table>>,
) -> crate::ser::Hooks<'a, 'py> {
    crate::ser::Hooks {
        default,
        registry,
        ext_tuple: ext_type(),
    }
}
