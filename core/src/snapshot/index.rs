//! The offset index of an uncompressed snapshot (format version 2, doc/snapshots.md): where
//! the payload's large containers start and end, and where every [`STRIDE`]th item of their
//! long arrays starts, so that a lazy view reaches `snapshot["children"][123456]` without
//! passing over what comes before it.
//!
//! ```text
//! 83                                   map of 3 entries
//! a5 "spans" c6 <u32 n> <n bytes>      (start, end) of each container of SPAN_MIN bytes or
//!                                      more, u64 big-endian pairs, ordered by start
//! a6 "arrays" c6 <u32 n> <n bytes>     for each spanned array of more than `stride` items,
//!                                      ordered by start: start, stride, count, then `count`
//!                                      offsets (items stride, 2 * stride, ...), all u64 BE
//! a8 "checksum" cf <u64>               xxh3-64, seeded with the payload's checksum, of every
//!                                      index byte before these 8
//! ```
//!
//! Offsets count from the payload's first byte. The index follows the payload and ends the
//! file. [`parse`] checks the layout, the checksum, and that the offsets are ordered, nested and
//! within the payload, before anything is allocated by a count in it; [`Index::check_against`]
//! then checks what a few bytes of the payload can tell (a container where each span starts, an
//! array of the right length where each array's marks belong), without reading the rest.

use super::{Fault, Refusal};
use crate::reader::Reader;
use crate::skip::{check_one_with, Record};
use crate::token::{self, Token};

/// Containers of this many bytes or more get a span.
pub const SPAN_MIN: u64 = 64 << 10;
/// Every how many items of a long array the index keeps a start.
pub const STRIDE: u64 = 64;
/// The smallest payload `save` writes an index for (smaller ones are read whole fast enough).
pub const PAYLOAD_MIN: usize = 1 << 20;

/// The marks of one long array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marks {
    /// Where the array's header starts.
    pub start: u64,
    /// Every how many items a start is kept.
    pub stride: u64,
    /// Where items `stride`, `2 * stride`, ... start.
    pub items: Vec<u64>,
}

/// A parsed (or built) index.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Index {
    /// `(start, end)` of the large containers, ordered by start.
    pub spans: Vec<(u64, u64)>,
    /// The marks of the long arrays, ordered by start.
    pub arrays: Vec<Marks>,
}

/// A container open during [`build`]'s walk (plain data: opening and closing one of the
/// many small containers only moves it).
#[derive(Clone, Copy, Default)]
struct Open {
    start: usize,
    array: bool,
    count: u64,
    /// Where its marks start in [`Builder::pending`].
    marks: usize,
}

/// What [`build`]'s walk records: the innermost open container apart (each item counts in
/// it), the ones around it on a stack, and the marks of the open arrays in one vector (an
/// inner array's after its outer's, taken off when it closes).
struct Builder<'a> {
    data: &'a [u8],
    inner: Open,
    outer: Vec<Open>,
    pending: Vec<u64>,
    index: Index,
}

impl Record for Builder<'_> {
    type Mark = ();

    fn open(&mut self, start: usize) {
        let array = matches!(self.data.get(start), Some(0x90..=0x9f | 0xdc | 0xdd));
        let opened = Open {
            start,
            array,
            count: 0,
            marks: self.pending.len(),
        };
        self.outer.push(std::mem::replace(&mut self.inner, opened));
    }

    #[inline(always)]
    fn item(&mut self, _mark: (), start: usize) {
        let inner = &mut self.inner;
        if inner.array {
            if inner.count != 0 && inner.count % STRIDE == 0 {
                self.pending.push(start as u64);
            }
            inner.count += 1;
        }
    }

    fn close(&mut self, _mark: (), end: usize) {
        let outer = self.outer.pop().unwrap_or_default();
        let closed = std::mem::replace(&mut self.inner, outer);
        if ((end - closed.start) as u64) >= SPAN_MIN {
            self.index.spans.push((closed.start as u64, end as u64));
            if let Some(items) = self.pending.get(closed.marks..).filter(|m| !m.is_empty()) {
                self.index.arrays.push(Marks {
                    start: closed.start as u64,
                    stride: STRIDE,
                    items: items.to_vec(),
                });
            }
        }
        self.pending.truncate(closed.marks);
    }
}

/// The index of `payload`, one well-formed MessagePack object (`None` if it is not).
pub fn build(payload: &[u8]) -> Option<Index> {
    let mut builder = Builder {
        data: payload,
        inner: Open::default(),
        outer: Vec::new(),
        pending: Vec::new(),
        index: Index::default(),
    };
    check_one_with(payload, &mut builder).ok()?;
    let mut index = builder.index;
    // Closed innermost first: ordered by start, outermost first.
    index.spans.sort_unstable();
    index.arrays.sort_unstable_by_key(|m| m.start);
    Some(index)
}

/// The checksum of an index's bytes before its last 8: xxh3-64 seeded with `seed`, the
/// payload's checksum.
pub fn checksum(bytes: &[u8], seed: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
}

/// A refusal of a damaged index found at `offset` of the file.
fn damaged(offset: usize, what: &str) -> Refusal {
    Refusal {
        fault: Fault::Checksum,
        offset,
        reason: format!(
            "the snapshot's index is corrupted ({what}): restore the file from a copy, or \
             save it again"
        ),
    }
}

impl Index {
    /// The index as written after the payload, its checksum seeded with `seed` (the payload's
    /// checksum, so that an index is never taken for another payload's).
    pub fn encode(&self, seed: u64) -> Vec<u8> {
        let spans_len = self.spans.len() * 16;
        let arrays_len: usize = self.arrays.iter().map(|m| 24 + 8 * m.items.len()).sum();
        let mut out = Vec::with_capacity(32 + spans_len + arrays_len);
        out.extend_from_slice(b"\x83\xa5spans\xc6");
        out.extend_from_slice(&(spans_len as u32).to_be_bytes());
        for &(start, end) in &self.spans {
            out.extend_from_slice(&start.to_be_bytes());
            out.extend_from_slice(&end.to_be_bytes());
        }
        out.extend_from_slice(b"\xa6arrays\xc6");
        out.extend_from_slice(&(arrays_len as u32).to_be_bytes());
        for marks in &self.arrays {
            out.extend_from_slice(&marks.start.to_be_bytes());
            out.extend_from_slice(&marks.stride.to_be_bytes());
            out.extend_from_slice(&(marks.items.len() as u64).to_be_bytes());
            for item in &marks.items {
                out.extend_from_slice(&item.to_be_bytes());
            }
        }
        out.extend_from_slice(b"\xa8checksum\xcf");
        let sum = checksum(&out, seed);
        out.extend_from_slice(&sum.to_be_bytes());
        out
    }

    /// The span that starts at `start`, if any.
    fn span_at(&self, start: u64) -> Option<(u64, u64)> {
        let i = self.spans.partition_point(|s| s.0 < start);
        self.spans.get(i).copied().filter(|s| s.0 == start)
    }

    /// Checks the index against the bytes of `payload` it points at (reading only those): a
    /// container where each span starts, an array where each array's marks are, with as many
    /// items as its marks say. `base` is where the payload starts in the file.
    pub fn check_against(&self, payload: &[u8], base: usize) -> Result<(), Refusal> {
        let wrong = |what: &str| damaged(base, &format!("{what} does not match the payload"));
        for &(start, _) in &self.spans {
            let marker = payload.get(start as usize).copied().unwrap_or(0xc1);
            if !token::is_container_marker(marker) {
                return Err(wrong("a span"));
            }
        }
        for marks in &self.arrays {
            let mut r = Reader::new(payload);
            r.pos = marks.start as usize;
            let count = match token::next(&mut r, "value") {
                Ok(Token::Array(n)) => n as u64,
                _ => return Err(wrong("an array's marks")),
            };
            if count == 0 || (count - 1) / marks.stride != marks.items.len() as u64 {
                return Err(wrong("an array's marks"));
            }
            if marks
                .items
                .first()
                .is_some_and(|&first| first < r.pos as u64)
            {
                return Err(wrong("an array's marks"));
            }
        }
        Ok(())
    }
}

/// Reads a big-endian u64 at `at` of `bytes` (which holds it: checked by the caller).
fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut out = [0; 8];
    if let Some(b) = bytes.get(at..at + 8) {
        out.copy_from_slice(b);
    }
    u64::from_be_bytes(out)
}

/// Parses the index in `bytes` (the whole rest of the file after the payload, which starts at
/// `base` of the file), for a payload of `size` bytes whose checksum is `seed`.
pub fn parse(bytes: &[u8], base: usize, size: u64, seed: u64) -> Result<Index, Refusal> {
    let cut = |at: usize| Refusal {
        fault: Fault::Truncated,
        offset: base + at,
        reason: format!(
            "the snapshot is truncated: the file ends at byte {}, inside its index",
            base + at
        ),
    };
    let bad = |at: usize| damaged(base + at, "an unexpected byte");
    let expect = |at: usize, fixed: &[u8]| -> Result<usize, Refusal> {
        let found = bytes.get(at..).unwrap_or(&[]);
        let n = found.len().min(fixed.len());
        if let Some(i) = (0..n).find(|&i| found[i] != fixed[i]) {
            return Err(bad(at + i));
        }
        if found.len() < fixed.len() {
            return Err(cut(bytes.len()));
        }
        Ok(at + fixed.len())
    };
    let bin = |at: usize| -> Result<(usize, usize), Refusal> {
        let Some(len) = bytes.get(at..at + 4) else {
            return Err(cut(bytes.len()));
        };
        let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let body = at + 4;
        if bytes.len() - body < len {
            return Err(cut(bytes.len()));
        }
        Ok((body, body + len))
    };
    let at = expect(0, b"\x83\xa5spans\xc6")?;
    let (spans_at, spans_end) = bin(at)?;
    let at = expect(spans_end, b"\xa6arrays\xc6")?;
    let (arrays_at, arrays_end) = bin(at)?;
    let sum_at = expect(arrays_end, b"\xa8checksum\xcf")?;
    let end = sum_at + 8;
    if bytes.len() < end {
        return Err(cut(bytes.len()));
    }
    if bytes.len() > end {
        return Err(damaged(base + end, "bytes follow it"));
    }
    if checksum(&bytes[..sum_at], seed) != u64_at(bytes, sum_at) {
        return Err(damaged(base, "its checksum does not match"));
    }
    // The checksum matched: what follows can only fail for an index made to fail.
    let spans = &bytes[spans_at..spans_end];
    if spans.len() % 16 != 0 {
        return Err(damaged(base + spans_at, "a span's length"));
    }
    let mut index = Index::default();
    index.spans.reserve_exact(spans.len() / 16);
    let mut open: Vec<u64> = Vec::new();
    for (i, pair) in spans.chunks_exact(16).enumerate() {
        let (start, end) = (u64_at(pair, 0), u64_at(pair, 8));
        let previous = index.spans.last().map(|s| s.0);
        while open.last().is_some_and(|&outer| outer <= start) {
            open.pop();
        }
        let nested = open.last().is_none_or(|&outer| end <= outer);
        if start >= end || end > size || previous.is_some_and(|p| p >= start) || !nested {
            return Err(damaged(base + spans_at + 16 * i, "spans out of order"));
        }
        open.push(end);
        index.spans.push((start, end));
    }
    let mut at = arrays_at;
    while at < arrays_end {
        let wrong = || damaged(base + at, "an array's marks");
        if arrays_end - at < 24 {
            return Err(wrong());
        }
        let (start, stride, count) = (
            u64_at(bytes, at),
            u64_at(bytes, at + 8),
            u64_at(bytes, at + 16),
        );
        let items_at = at + 24;
        // Counted against the bytes there before anything is allocated by it.
        if count > ((arrays_end - items_at) / 8) as u64 || count == 0 || stride == 0 {
            return Err(wrong());
        }
        let ordered = index.arrays.last().is_none_or(|m| m.start < start);
        let Some((_, span_end)) = index.span_at(start).filter(|_| ordered) else {
            return Err(wrong());
        };
        let mut items = Vec::with_capacity(count as usize);
        let mut last = start;
        for k in 0..count as usize {
            let item = u64_at(bytes, items_at + 8 * k);
            if item <= last || item >= span_end {
                return Err(wrong());
            }
            items.push(item);
            last = item;
        }
        index.arrays.push(Marks {
            start,
            stride,
            items,
        });
        at = items_at + 8 * count as usize;
    }
    Ok(index)
}

/// The smallest index: no span, no array.
pub const MIN_LEN: usize = 42;

#[cfg(test)]
mod tests;
