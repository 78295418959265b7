//! The Python face: everything Python calls, and only that. Each entry point reads its
//! arguments once into a request ([`request`]: one per direction) and hands it to the engine
//! below (`ser/`, `de/`, `view/`).
//!
//! This file is the module definition (`_fastmsgpack` below): every function, class and
//! constant Python sees is added there, and nowhere else (`snapshot.rs` adds the snapshot's).

mod classes;
pub mod compat;
mod decoder;
mod frames;
mod json;
mod pack;
mod packer;
pub mod request;
mod snapshot;
mod snapshot_save;
mod unpack;
mod unpacker;
mod view;

use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::exc::{MsgpackDecodeError, MsgpackEncodeError};
use crate::{de, error, exc, ext, ffi, fragment, opt, registry};

/// The module's slots: [`exec`] on each new module object, the interpreters it may load in and
/// whether it needs the GIL (src/ffi/module.rs says what they are set to, and why).
static SLOTS: ffi::ModuleSlots = ffi::ModuleSlots::new(crate::module_exec!(exec));
static MODULE: ffi::ModuleDef = ffi::ModuleDef::new(c"_fastmsgpack", &SLOTS);

/// The module's entry point: CPython calls it on import, then makes the module object from the
/// definition it returns (multi-phase initialisation) and runs [`exec`] on it.
#[no_mangle]
pub extern "C" fn PyInit__fastmsgpack() -> *mut pyo3::ffi::PyObject {
    MODULE.init()
}

/// Fills a new module object (once per module object: each interpreter that imports the
/// module makes its own).
fn exec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // First, before anything is kept for this interpreter: made here, it tells `ffi::PerInterp`
    // that the interpreter exists; freed with this module object, the last one of an
    // interpreter frees what the extension kept for it (src/ffi/interp.rs).
    let token = ffi::module_token(py)?;
    ffi::verify_text_layout(py)?;
    ffi::verify_dict_table(py)?;
    ffi::verify_refcount(py);
    add(m, "_interpreter", token)?;
    add(m, "__version__", env!("CARGO_PKG_VERSION"))?;
    add(m, "packb", pack::PACKB.function(py, &m.name()?)?)?;
    add_function(m, wrap_pyfunction!(pack::pack, m)?)?;
    add_function(m, wrap_pyfunction!(frames::packb_frames, m)?)?;
    add(m, "BUFFER_EXT_TYPE", fastmsgpack_core::buffer_ref::TAG)?;
    add(
        m,
        "DEFAULT_BUFFER_THRESHOLD",
        fastmsgpack_core::buffer_ref::DEFAULT_THRESHOLD,
    )?;
    add(m, "unpackb", unpack::UNPACKB.function(py, &m.name()?)?)?;
    add_function(m, wrap_pyfunction!(unpack::unpack, m)?)?;
    add_function(m, wrap_pyfunction!(json::json_dumps, m)?)?;
    add_function(m, wrap_pyfunction!(json::json_from_msgpack, m)?)?;
    add_function(m, wrap_pyfunction!(json::_json_from_msgpack_at, m)?)?;
    add(m, "JSONEncodeError", py.get_type::<exc::JSONEncodeError>())?;
    ffi::add_class::<ext::Ext>(m)?;
    ffi::add_class::<fragment::Fragment>(m)?;
    ffi::add_class::<packer::Packer>(m)?;
    ffi::add_class::<registry::Registry>(m)?;
    add(
        m,
        "JsonFragment",
        ffi::class_type::<fragment::JsonFragment>(py)?.bind(py),
    )?;
    add(m, "MsgpackEncodeError", py.get_type::<MsgpackEncodeError>())?;
    add(m, "MsgpackDecodeError", py.get_type::<MsgpackDecodeError>())?;
    add(m, "ValidationError", py.get_type::<exc::ValidationError>())?;
    exc::add_data_defaults(py)?;
    ffi::add_class::<de::typed::plan::TypePlan>(m)?;
    add_function(m, wrap_pyfunction!(_plan_cache_size, m)?)?;
    add_function(m, wrap_pyfunction!(_kept_elsewhere, m)?)?;
    add(m, "_PLAN_CACHE_CAPACITY", de::typed::cache::CAPACITY)?;
    add(m, "OutOfData", py.get_type::<exc::OutOfData>())?;
    add(m, "BufferFull", py.get_type::<exc::BufferFull>())?;
    ffi::add_class::<unpacker::Unpacker>(m)?;
    ffi::add_class::<unpacker::AsyncObjects>(m)?;
    ffi::add_class::<decoder::Decoder>(m)?;
    ffi::add_class::<crate::compat::decode::options::CompatOptions>(m)?;
    add_function(m, wrap_pyfunction!(compat::_unpackb_compat, m)?)?;
    add_function(m, wrap_pyfunction!(compat::_packb_compat, m)?)?;
    add_function(m, wrap_pyfunction!(compat::_set_compat_ext_type, m)?)?;
    ffi::add_class::<crate::view::MapView>(m)?;
    ffi::add_class::<crate::view::ArrayView>(m)?;
    ffi::add_class::<crate::view::SnapshotIndex>(m)?;
    add_function(m, wrap_pyfunction!(view::_view, m)?)?;
    add_function(m, wrap_pyfunction!(view::_view_indexed, m)?)?;
    snapshot::add(m)?;
    add_function(
        m,
        wrap_pyfunction!(snapshot_save::_snapshot_save_packing, m)?,
    )?;
    #[cfg(feature = "walk-probe")]
    add_function(m, wrap_pyfunction!(pack::_walk, m)?)?;
    #[cfg(feature = "walk-probe")]
    ffi::add_class::<crate::ser::native_probe::NativeRoute>(m)?;
    for (name, bit) in opt::ALL {
        add(m, name, *bit)?;
    }
    // The option list for the Python side: `fastmsgpack.__all__`, the stubs and the docs' tables
    // are made from it (scripts/options.py) and tested against it.
    add(m, "_OPTIONS", opt::ALL.to_vec())?;
    add(m, "_OPTION_MASKS", opt::ENTRY_POINTS.to_vec())?;
    add(m, "_LAYOUT_CHECKS", ffi::layout_checks())?;
    add(
        m,
        "_ENCODE_KINDS",
        error::KINDS.iter().map(|k| k.name()).collect::<Vec<_>>(),
    )?;
    Ok(())
}

/// `m.name = value`, listed in `m.__all__` (src/ffi/module.rs says why not `PyModule::add`).
pub(crate) fn add<'py, V: IntoPyObject<'py>>(
    m: &Bound<'py, PyModule>,
    name: &str,
    value: V,
) -> PyResult<()> {
    let value = value.into_bound_py_any(m.py())?;
    ffi::module_add(m, name, &value)
}

/// Adds a function under its own `__name__`.
pub(crate) fn add_function(
    m: &Bound<'_, PyModule>,
    f: Bound<'_, pyo3::types::PyCFunction>,
) -> PyResult<()> {
    let name: String = f.getattr("__name__")?.extract()?;
    ffi::module_add(m, &name, f.as_any())
}

/// How many values the extension keeps for interpreters other than the main one, for tests
/// (destroyed interpreters leave none).
#[pyfunction]
fn _kept_elsewhere() -> usize {
    ffi::kept_elsewhere()
}

/// How many plans the cache of `unpackb(data, type=T)` holds, for tests.
#[pyfunction]
fn _plan_cache_size(py: Python<'_>) -> usize {
    de::typed::cache::plan_cache_size(py)
}
