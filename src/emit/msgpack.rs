//! The MessagePack emitter: markers from [`super::marker`], written into a `bytes` object.

use crate::error::Res;

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
    fn header(&mut self, h: Header) -> Res {
        self.out.reserve(h.block().len())?;
        // SAFETY: room for the whole block was reserved just above.
        unsafe { self.out.put_block(h.block(), h.len()) };
        Ok(())
    }

    #[inline(always)]
    fn byte(&mut self, b: u8) -> Res {
        self.out.reserve(1)?;
        // SAFETY: room for one byte was reserved just above.
        unsafe { self.out.put_block(&[b], 1) };
        Ok(())
    }

    #[inline(always)]
    fn with_payload(&mut self, h: Header, payload: &[u8]) -> Res {
        // The header block is written whole, so reserve all of it even if the header is shorter.
        self.out.reserve(h.block().len() + payload.len())?;
        // SAFETY: room for both was reserved just above.
        unsafe {
            self.out.put_block(h.block(), h.len());
            self.out.put_unchecked(payload);
        }
        Ok(())
    }
}

impl Emitter for MsgpackEmitter {
    #[inline(always)]
    fn nil(&mut self) -> Res {
        self.byte(marker::NIL)
    }

    #[inline(always)]
    fn bool(&mut self, v: bool) -> Res {
        self.out
            .put(&[if v { marker::TRUE } else { marker::FALSE }])
    }

    #[inline(always)]
    fn int(&mut self, v: i64) -> Res {
        self.header(marker::int(v))
    }

    #[inline(always)]
    fn uint(&mut self, v: u64) -> Res {
        self.header(marker::uint(v))
    }

    #[inline(always)]
    fn float(&mut self, v: f64) -> Res {
        self.header(marker::float64(v))
    }

    #[inline(always)]
    fn float32(&mut self, v: f32) -> Res {
        self.header(marker::float32(v))
    }

    #[inline]
    fn reserve_hint(&mut self, bytes: usize) -> Res {
        self.out.reserve(bytes)
    }

    #[inline(always)]
    fn str(&mut self, utf8: &[u8]) -> Res {
        let h = marker::str_header(utf8.len()).ok_or_else(|| too_long("str"))?;
        self.with_payload(h, utf8)
    }

    #[inline(always)]
    fn bin(&mut self, data: &[u8]) -> Res {
        let h = marker::bin_header(data.len()).ok_or_else(|| too_long("bytes"))?;
        self.with_payload(h, data)
    }

    #[inline]
    fn ext(&mut self, tag: i8, data: &[u8]) -> Res {
        let h = marker::ext_header(tag, data.len()).ok_or_else(|| too_long("Ext data"))?;
        self.with_payload(h, data)
    }

    #[inline]
    fn timestamp(&mut self, secs: i64, nanos: u32) -> Res {
        let (bytes, len) = marker::timestamp(secs, nanos);
        self.out.reserve(bytes.len())?;
        // SAFETY: room for the whole block was reserved just above.
        unsafe { self.out.put_block(&bytes, len) };
        Ok(())
    }

    #[inline(always)]
    fn array_begin(&mut self, len: usize) -> Res {
        let h = marker::array_header(len).ok_or_else(|| too_long("array"))?;
        self.header(h)
    }

    #[inline(always)]
    fn map_begin(&mut self, len: usize) -> Res {
        let h = marker::map_header(len).ok_or_else(|| too_long("map"))?;
        self.header(h)
    }
}
