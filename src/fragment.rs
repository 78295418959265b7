//! `Fragment` and `json.Fragment`: already-serialized values that the writers insert verbatim.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Fragment(contents): MessagePack bytes that `packb` writes as they are, wherever a value
/// may stand. `contents` (bytes-like) is checked once, here, to hold exactly one well-formed
/// MessagePack object (MsgpackDecodeError otherwise).
///
/// Example:
///     >>> fastmsgpack.packb({"cached": Fragment(b'\x92\x01\x02')})
///     b'\x81\xa6cached\x92\x01\x02'
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack", frozen)]
pub struct Fragment {
    pub(crate) contents: Py<PyBytes>,
}

impl Fragment {
    pub fn bytes<'a>(&'a self, py: Python<'a>) -> &'a [u8] {
        self.contents.bind(py).as_bytes()
    }
}

/// Fragment(contents): JSON text that `json.dumps` writes as it is, wherever a value may
/// stand. Like orjson's `Fragment`, `contents` is not checked: a str is written as UTF-8,
/// bytes as they are, and anything else is refused when it is written.
///
/// Example:
///     >>> fastmsgpack.json.dumps({"cached": fastmsgpack.json.Fragment('[1,2]')})
///     b'{"cached":[1,2]}'
#[pyclass(
    crate = "crate::ffi::pyo3_per_interp",
    module = "fastmsgpack.json",
    name = "Fragment",
    frozen
)]
pub struct JsonFragment {
    pub contents: Py<PyAny>,
}
