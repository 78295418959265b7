//! The MessagePack emitter: markers from [`super::marker`], written into a `bytes` object.

use pyo3::PyResult;

use super::marker::{self, Header};
use super::Emitter;
use crate::ffi::BytesWriter;
use crate::ser::error::too_long;

pub struct MsgpackEmitter {
    out: BytesWriter,
}

impl MsgpackEmitter {
    pub fn new(out: BytesWriter) -> MsgpackEmitter {
        MsgpackEmitter { out }
    }

    pub fn into_writer(self) -> BytesWriter {
        self.out
    }

    #[inline(always)]
    fn header(&mut self, h: Header) -> PyResult<()> {
        self.out.put(h.as_bytes())
    }

    #[inline(always)]
    fn with_payload(&mut self, h: Header, payload: &[u8]) -> PyResult<()> {
        let h = h.as_bytes();
        self.out.reserve(h.len() + payload.len())?;
        // SAFETY: room for both was reserved just above.
        unsafe {
            self.out.put_unchecked(h);
            self.out.put_unchecked(payload);
        }
        Ok(())
    }
}

impl Emitter for MsgpackEmitter {
    #[inline(always)]
    fn nil(&mut self) -> PyResult<()> {
        self.out.put(&[marker::NIL])
    }

    #[inline(always)]
    fn bool(&mut self, v: bool) -> PyResult<()> {
        self.out
            .put(&[if v { marker::TRUE } else { marker::FALSE }])
    }

    #[inline(always)]
    fn int(&mut self, v: i64) -> PyResult<()> {
        self.header(marker::int(v))
    }

    #[inline(always)]
    fn uint(&mut self, v: u64) -> PyResult<()> {
        self.header(marker::uint(v))
    }

    #[inline(always)]
    fn float(&mut self, v: f64) -> PyResult<()> {
        self.header(marker::float64(v))
    }

    #[inline(always)]
    fn str(&mut self, utf8: &[u8]) -> PyResult<()> {
        let h = marker::str_header(utf8.len()).ok_or_else(|| too_long("str"))?;
        self.with_payload(h, utf8)
    }

    #[inline(always)]
    fn bin(&mut self, data: &[u8]) -> PyResult<()> {
        let h = marker::bin_header(data.len()).ok_or_else(|| too_long("bytes"))?;
        self.with_payload(h, data)
    }

    #[inline]
    fn ext(&mut self, tag: i8, data: &[u8]) -> PyResult<()> {
        let h = marker::ext_header(tag, data.len()).ok_or_else(|| too_long("Ext data"))?;
        self.with_payload(h, data)
    }

    #[inline(always)]
    fn array_begin(&mut self, len: usize) -> PyResult<()> {
        let h = marker::array_header(len).ok_or_else(|| too_long("array"))?;
        self.header(h)
    }

    #[inline(always)]
    fn map_begin(&mut self, len: usize) -> PyResult<()> {
        let h = marker::map_header(len).ok_or_else(|| too_long("map"))?;
        self.header(h)
    }
}
