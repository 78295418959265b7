//! The MessagePack emitter: markers from [`super::marker`], written into a `bytes` object.

use crate::error::Res;

use super::marker::{self, Header};
use super::Emitter;
use crate::error::too_long;
use crate::ffi::BytesWriter;

/// The longest extension header: ext 32's marker, 32-bit length and type.
const EXT_GAP: usize = 6;

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
        unsafe { self.out.put_block_then(h.block(), h.len(), payload) };
        Ok(())
    }
}

impl MsgpackEmitter {
    /// Writes `len` headers (each a 9-byte block of which the first `len()` count) straight into
    /// reserved room, keeping the write position in a register.
    #[inline(always)]
    fn header_run(&mut self, len: usize, mut header: impl FnMut(usize) -> Header) -> Res {
        self.out
            .reserve(len.checked_mul(9).ok_or_else(|| too_long("array"))?)?;
        // SAFETY: room for `len` whole 9-byte blocks was reserved; each write advances by the
        // header's real length (at most 9), so every block lies within the reserved room.
        unsafe {
            let start = self.out.tail();
            let mut dst = start;
            for i in 0..len {
                let h = header(i);
                dst.cast::<[u8; 9]>().write_unaligned(*h.block());
                dst = dst.add(h.len());
            }
            self.out.advance(dst.offset_from(start) as usize);
        }
        Ok(())
    }
}

impl Emitter for MsgpackEmitter {
    #[inline(always)]
    fn f64_run(&mut self, len: usize, mut value: impl FnMut(usize) -> f64) -> Res {
        self.header_run(len, |i| marker::float64(value(i)))
    }

    #[inline(always)]
    fn f32_run(&mut self, len: usize, mut value: impl FnMut(usize) -> f32) -> Res {
        self.header_run(len, |i| marker::float32(value(i)))
    }

    #[inline(always)]
    fn int_run(&mut self, len: usize, mut value: impl FnMut(usize) -> i64) -> Res {
        self.header_run(len, |i| marker::int(value(i)))
    }

    /// Without branches on the values: 1,000,000 random int32 took 28 instructions and 0.51
    /// mispredicted branches each with [`marker::int`], 42 instructions and none with this, in
    /// about half the time. Runs of small non-negative values (uint8) keep `int`, which the
    /// compiler makes branch-free for them.
    #[inline(always)]
    fn signed_int_run(&mut self, len: usize, mut value: impl FnMut(usize) -> i64) -> Res {
        self.header_run(len, |i| marker::int_branchless(value(i)))
    }

    #[inline(always)]
    fn uint_run(&mut self, len: usize, mut value: impl FnMut(usize) -> u64) -> Res {
        self.header_run(len, |i| marker::uint(value(i)))
    }

    #[inline(always)]
    fn bool_run(&mut self, len: usize, mut value: impl FnMut(usize) -> bool) -> Res {
        let b = |v: bool| if v { marker::TRUE } else { marker::FALSE };
        self.header_run(len, |i| marker::Header::byte(b(value(i))))
    }

    /// The array header and both floats (19 bytes) with one check of the room and one update of
    /// the length.
    #[inline(always)]
    fn float_pair(&mut self, a: f64, b: f64) -> Res {
        const FIXARRAY_2: u8 = 0x92;
        self.out.reserve(19)?;
        // SAFETY: room for the 19 bytes was reserved just above: the header byte at 0 and the
        // two 9-byte floats at 1 and 10.
        unsafe {
            self.out.put_with(|dst| {
                *dst = FIXARRAY_2;
                dst.add(1)
                    .cast::<[u8; 9]>()
                    .write_unaligned(*marker::float64(a).block());
                dst.add(10)
                    .cast::<[u8; 9]>()
                    .write_unaligned(*marker::float64(b).block());
                19
            })
        };
        Ok(())
    }

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

    /// A string of up to 31 bytes (most keys and short values) is its one-byte header and its
    /// bytes, written with one check of the room and one update of the length.
    #[inline(always)]
    fn str(&mut self, utf8: &[u8]) -> Res {
        if utf8.len() < 32 {
            self.out.reserve(1 + utf8.len())?;
            // SAFETY: room for the header byte and the bytes was reserved just above.
            unsafe {
                self.out
                    .put_block_then(&[marker::fixstr(utf8.len())], 1, utf8)
            };
            return Ok(());
        }
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

    /// Leaves room for the largest header (ext 32: six bytes), closed up by `ext_end` once the
    /// payload's length is known.
    #[inline(never)]
    fn ext_begin(&mut self) -> Res<usize> {
        self.out.put(&[0; EXT_GAP])?;
        // Pinned from here: a writer in pieces keeps the gap in the buffer until `ext_end`.
        self.out.pin();
        Ok(self.out.position() - EXT_GAP)
    }

    #[inline(never)]
    fn ext_end(&mut self, mark: usize, tag: i8) -> Res {
        let len = self.out.position() - mark - EXT_GAP;
        let h = marker::ext_header(tag, len).ok_or_else(|| too_long("Ext data"))?;
        self.out.close_gap(mark, EXT_GAP, &h.block()[..h.len()]);
        self.out.unpin();
        Ok(())
    }

    #[inline]
    fn raw_msgpack(&mut self, data: &[u8]) -> Res {
        self.out.put(data)
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
