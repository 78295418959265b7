//! `fastmsgpack.compat`, msgpack-python's API over the engine: a leaf that the engine below
//! (`ser/`, `emit/`, `de/`) never names. It reaches the engine only through what each call
//! hands down: a hook for packing ([`crate::ser::hook`], filled in [`pack`]), the checks of the
//! stream scanner ([`scan`]), and a decoder of its own built from `de/`'s parts ([`decode`]).
//! Its entry points are in the Python face (`crate::api::compat`).
//!
//! The Python module supplies the classes msgpack-python's API names (`Timestamp`, `ExtType`,
//! the exceptions), so that the objects and errors are the ones its users import; those that
//! packing must know are given once, when that module is imported (`_set_compat_ext_type`),
//! kept here per interpreter, and handed down with each call's hooks
//! ([`crate::ser::Hooks::ext_tuple`], [`crate::ser::hook::Hook::converted`]).

pub mod decode;
mod legacy;
pub(crate) mod options;
pub mod pack;
pub mod scan;

use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::ffi::{PerInterp, TypePtr};

/// `ExtType` and `Timestamp` of this interpreter's `fastmsgpack.compat`, once it is imported.
static TYPES: PerInterp<(Py<PyType>, Py<PyType>)> = PerInterp::new();

/// Records `ext_type` (a named tuple that msgpack-python packs as an extension value: `packb`
/// hands its instances, and its subclasses', to `default` instead of packing them as arrays) and
/// `timestamp` (which compat's `Packer` converts itself before any user `default` sees it), for
/// this interpreter; a later call changes nothing.
pub fn set(py: Python<'_>, ext_type: Py<PyType>, timestamp: Py<PyType>) {
    TYPES.get_or_init(py, || (ext_type, timestamp));
}

/// `ExtType` (live: held while the module is), or null before `fastmsgpack.compat` is imported.
#[inline(always)]
pub fn ext_type(py: Python<'_>) -> TypePtr {
    TYPES
        .get(py)
        .map_or(std::ptr::null_mut(), |t| t.0.as_ptr().cast())
}

/// `Timestamp` (live: held while the module is), or null before `fastmsgpack.compat` is
/// imported.
#[inline(always)]
pub fn timestamp_type(py: Python<'_>) -> TypePtr {
    TYPES
        .get(py)
        .map_or(std::ptr::null_mut(), |t| t.1.as_ptr().cast())
}

/// The hooks of a call of `packb` (or of what packs as it does): `default`, a registry's table
/// and `ExtType`, which such a call hands to `default` rather than packing it as a named tuple.
#[inline(always)]
pub fn hooks<'a, 'py>(
    py: Python<'py>,
    default: Option<&'a Bound<'py, PyAny>>,
    registry: Option<std::sync::Arc<crate::registry::Table>>,
) -> crate::ser::Hooks<'a, 'py> {
    crate::ser::Hooks {
        default,
        registry,
        ext_tuple: ext_type(py),
    }
}
