//! `View(data, ...)`'s entry point: the arguments read into the decoder's request, then the
//! lazy view over the input ([`crate::view::open`]).

use pyo3::prelude::*;

use super::request::{self, UnpackArgs};
use crate::opt;
use crate::view::SnapshotIndex;

/// `View(data, option=None, ext_hook=None, type=None, dec_hook=None, validate=True)`: a view of
/// the one object `data` holds, or that object itself when it is neither a map nor an array.
#[pyfunction]
#[pyo3(signature = (data, /, *, option=None, ext_hook=None, r#type=None, dec_hook=None, validate=true))]
pub fn _view<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    option: Option<&Bound<'py, PyAny>>,
    ext_hook: Option<&Bound<'py, PyAny>>,
    r#type: Option<&Bound<'py, PyAny>>,
    dec_hook: Option<&Bound<'py, PyAny>>,
    validate: bool,
) -> PyResult<Bound<'py, PyAny>> {
    // Bins are bytes: a memoryview into the view's input (OPT_BIN_MEMORYVIEW) is not offered.
    let mask = opt::UNPACKB_MASK & !opt::BIN_MEMORYVIEW;
    let args = UnpackArgs {
        option,
        ext_hook,
        tp: r#type,
        dec_hook,
        ..UnpackArgs::default()
    };
    let request = request::unpack("View", mask, args)?;
    crate::view::open(py, data, &request, validate, None)
}

/// `_view_indexed(data, index, option=None, ext_hook=None, type=None, dec_hook=None)`: the view
/// `View(data, validate=False)` gives, reading the large containers and long arrays through the
/// snapshot's `index` of `data` (`snapshot.view`).
#[pyfunction]
#[pyo3(signature = (data, index, /, *, option=None, ext_hook=None, r#type=None, dec_hook=None))]
pub fn _view_indexed<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    index: &Bound<'py, SnapshotIndex>,
    option: Option<&Bound<'py, PyAny>>,
    ext_hook: Option<&Bound<'py, PyAny>>,
    r#type: Option<&Bound<'py, PyAny>>,
    dec_hook: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let mask = opt::UNPACKB_MASK & !opt::BIN_MEMORYVIEW;
    let args = UnpackArgs {
        option,
        ext_hook,
        tp: r#type,
        dec_hook,
        ..UnpackArgs::default()
    };
    let request = request::unpack("View", mask, args)?;
    crate::view::open(py, data, &request, false, Some(&index.get().0))
}
