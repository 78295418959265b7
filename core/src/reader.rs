//! A cursor over MessagePack input: the bounds-checked reads that the decoder and the transcoder
//! share. Every read names the item it belongs to and where that item began, so that a
//! truncation error points at the item, not at the missing bytes.

use crate::error::{InputError, Kind};
use crate::limits::MAX_DECODE_DEPTH;

pub type ReadResult<T> = Result<T, InputError>;

pub struct Reader<'a> {
    pub data: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, pos: 0 }
    }

    #[inline(always)]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The next `n` bytes, or a truncation error for the item that began at `start`.
    #[inline(always)]
    pub fn take(&mut self, n: usize, what: &'static str, start: usize) -> ReadResult<&'a [u8]> {
        let data: &'a [u8] = self.data;
        match data.get(self.pos..self.pos.wrapping_add(n)) {
            Some(bytes) if self.pos.checked_add(n).is_some() => {
                self.pos += n;
                Ok(bytes)
            }
            _ => Err(self.truncated(what, n as u64, start)),
        }
    }

    /// Checks a container's header before anything is made for it: that `depth` (the nesting of
    /// the container) is within [`MAX_DECODE_DEPTH`], and that its `n` items of at least
    /// `min_size` bytes each fit in what is left of the input, so that no length header sizes an
    /// allocation beyond the input. Every reader checks containers here: the decoders, the
    /// transcoder and [`crate::skip`].
    #[inline(always)]
    pub fn container(
        &self,
        n: usize,
        min_size: usize,
        what: &'static str,
        depth: u32,
        start: usize,
    ) -> ReadResult<()> {
        if depth >= MAX_DECODE_DEPTH {
            return Err(InputError::new(Kind::TooDeep, start));
        }
        if n.saturating_mul(min_size) > self.remaining() {
            let declared = (n as u64).saturating_mul(min_size as u64);
            return Err(self.truncated(what, declared, start));
        }
        Ok(())
    }

    /// The item that began at `start` declares `declared` bytes (or items) the input lacks.
    #[cold]
    pub fn truncated(&self, what: &'static str, declared: u64, start: usize) -> InputError {
        InputError::new(
            Kind::Truncated {
                what,
                declared,
                available: self.remaining(),
            },
            start,
        )
    }

    #[inline(always)]
    pub fn array_n<const N: usize>(
        &mut self,
        what: &'static str,
        start: usize,
    ) -> ReadResult<[u8; N]> {
        let bytes = self.take(N, what, start)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// Big-endian header fields (lengths, ints) of the item that began at `start`.
    #[inline(always)]
    pub fn u8(&mut self, start: usize) -> ReadResult<u8> {
        Ok(self.array_n::<1>("header", start)?[0])
    }

    #[inline(always)]
    pub fn u16(&mut self, start: usize) -> ReadResult<u16> {
        Ok(u16::from_be_bytes(self.array_n("header", start)?))
    }

    #[inline(always)]
    pub fn u32(&mut self, start: usize) -> ReadResult<u32> {
        Ok(u32::from_be_bytes(self.array_n("header", start)?))
    }

    #[inline(always)]
    pub fn u64(&mut self, start: usize) -> ReadResult<u64> {
        Ok(u64::from_be_bytes(self.array_n("header", start)?))
    }
}
