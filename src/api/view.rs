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
    let args = UnpackArgs {
        option,
        ext_hook,
        tp: r#type,
        dec_hook,
        ..UnpackArgs::default()
    };
    crate::view::open(py, data, &view_request(args)?, validate, None)
}

/// The request of a view: `unpackb`'s, but bins are bytes (a memoryview into the view's input,
/// OPT_BIN_MEMORYVIEW, is not offered), and no buffers or registry.
fn view_request<'a, 'py>(args: UnpackArgs<'a, 'py>) -> PyResult<crate::de::Request<'a, 'py>> {
    request::unpack("View", opt::UNPACKB_MASK & !opt::BIN_MEMORYVIEW, args)
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
    let args = UnpackArgs {
        option,
        ext_hook,
        tp: r#type,
        dec_hook,
        ..UnpackArgs::default()
    };
    crate::view::open(py, data, &view_request(args)?, false, Some(&index.get().0))
}
