//! `Ext`: a MessagePack extension value, an application-defined type tag and its payload.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Ext(tag, data): a MessagePack extension value: `tag`, an int from -128 to 127, and
/// `data`, its payload (bytes; a bytearray or memoryview is copied). Packed with the
/// shortest ext format; unpacked extension values are Ext unless an `ext_hook` takes them.
///
/// Example:
///     >>> fastmsgpack.packb(Ext(5, b"\x01\x02\x03\x04"))
///     b'\xd6\x05\x01\x02\x03\x04'
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack", frozen)]
pub struct Ext {
    pub(crate) tag: i8,
    pub(crate) data: Py<PyBytes>,
}

impl Ext {
    pub fn tag_i8(&self) -> i8 {
        self.tag
    }

    pub fn payload<'a>(&'a self, py: Python<'a>) -> &'a [u8] {
        self.data.bind(py).as_bytes()
    }

    /// Builds an `Ext` from a decoded tag and payload.
    pub fn from_parts<'py>(py: Python<'py>, tag: i8, data: &[u8]) -> PyResult<Bound<'py, Ext>> {
        Bound::new(
            py,
            Ext {
                tag,
                data: PyBytes::new(py, data).unbind(),
            },
        )
    }
}
