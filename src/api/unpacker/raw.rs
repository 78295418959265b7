//! Reading the stream below the level of objects, for `fastmsgpack.compat.Unpacker`'s
//! `read_array_header`, `read_map_header` and `read_bytes`: a container's header alone (its
//! items follow as objects of their own), or bytes taken as they are.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::{out_of_data, Unpacker};
use crate::de::scan::Scanner;

/// The length of the container header that starts with `marker`, when it is an array header
/// (`map` false) or a map header (`map` true): the fixed form takes 1 byte, the others 3 or 5.
fn header_size(marker: u8, map: bool) -> Option<usize> {
    match (marker, map) {
        (0x90..=0x9f, false) | (0x80..=0x8f, true) => Some(1),
        (0xdc, false) | (0xde, true) => Some(3),
        (0xdd, false) | (0xdf, true) => Some(5),
        _ => None,
    }
}

impl Unpacker {
    /// Marks `n` held bytes consumed, outside any object: the scanner starts afresh after them.
    pub(super) fn take(&mut self, n: usize) {
        // The objects decoded ahead start at `head`: dropped, to be decoded again if wanted.
        self.ahead.clear();
        self.head += n;
        self.consumed += n as u64;
        self.scanner = Scanner::default();
        if self.head == self.front().len() {
            self.front_consumed();
        }
    }

    /// The item count of the array (or map) header next in the stream, consumed;
    /// `OutOfData` when it has not all arrived, `ValueError` (nothing consumed) when the next
    /// item is something else.
    pub(super) fn take_header(&mut self, py: Python<'_>, map: bool) -> PyResult<usize> {
        loop {
            self.check_broken(py)?;
            let held = self.window();
            if let Some(&marker) = held.first() {
                let Some(size) = header_size(marker, map) else {
                    return Err(PyValueError::new_err("Unexpected type header on stream"));
                };
                if let Some(header) = held.get(..size) {
                    let n = match size {
                        1 => (marker & 0x0f) as usize,
                        3 => u16::from_be_bytes([header[1], header[2]]) as usize,
                        _ => u32::from_be_bytes([header[1], header[2], header[3], header[4]])
                            as usize,
                    };
                    self.take(size);
                    return Ok(n);
                }
            }
            if !self.more_held(py)? {
                return Err(out_of_data());
            }
        }
    }

    /// Up to `n` bytes as they are: those held, then what one `read` of the file-like object
    /// returns for the rest.
    pub(super) fn take_bytes<'py>(
        &mut self,
        py: Python<'py>,
        n: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        // All the bytes held in `buf`, in one slice.
        self.flatten();
        let from_buffer = n.min(self.held());
        let mut out = self.buf[self.head..self.head + from_buffer].to_vec();
        self.take(from_buffer);
        if out.len() < n {
            if let Some(file) = &self.file {
                let more = file.bind(py).call_method1("read", (n - out.len(),))?;
                let more = more.cast_into::<PyBytes>()?;
                let more = more.as_bytes();
                let more = &more[..more.len().min(n - out.len())];
                self.consumed += more.len() as u64;
                out.extend_from_slice(more);
            }
        }
        Ok(PyBytes::new(py, &out))
    }
}
