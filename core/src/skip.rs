//! Walks MessagePack without building anything: checks that bytes hold one well-formed object
//! (every header complete, every length within the input, every str valid UTF-8, no reserved
//! marker, nesting within the decoder's limit).
//!
//! Used to check a `Fragment`'s contents once, when it is made, so that `packb` can then write
//! them verbatim, and by typed decoding to pass over the values of keys no field has.

use crate::error::{InputError, Kind};
use crate::reader::{ReadResult, Reader};
use crate::token::{self, Token};

/// Checks that `data` is exactly one well-formed MessagePack object.
pub fn check_one(data: &[u8]) -> ReadResult<()> {
    check_one_with(data, &mut ())
}

/// [`check_one`], telling `record` where each container starts and ends.
pub fn check_one_with(data: &[u8], record: &mut impl Record) -> ReadResult<()> {
    if data.is_empty() {
        return Err(InputError::new(Kind::Empty, 0));
    }
    let mut r = Reader::new(data);
    walk(&mut r, 0, record)?;
    if r.pos != data.len() {
        let extra = data.len() - r.pos;
        return Err(InputError::new(Kind::Trailing { extra }, r.pos));
    }
    Ok(())
}

/// Reads past the one object that starts at the reader's position, checking it as
/// [`check_one`] does (what follows it is left alone). `depth` is the nesting of that object.
pub fn skip_value(r: &mut Reader<'_>, depth: u32) -> ReadResult<()> {
    walk(r, depth, &mut ())
}

/// What a walk tells of the containers it passes, in the order of their headers: `open` at a
/// header, `close` where the container's last item ends, with the mark `open` gave (kept by the
/// walk with the container's count, so that a recorder needs no stack of its own).
pub trait Record {
    type Mark: Copy + Default;
    fn open(&mut self, start: usize) -> Self::Mark;
    fn close(&mut self, mark: Self::Mark, end: usize);
    /// An item of the container `open` gave `mark` for starts at `start` (a map's keys and
    /// values are items too). Nothing by default, which costs the walk nothing.
    #[inline(always)]
    fn item(&mut self, _mark: Self::Mark, _start: usize) {}
}

/// Records nothing.
impl Record for () {
    type Mark = ();
    #[inline(always)]
    fn open(&mut self, _start: usize) {}
    #[inline(always)]
    fn close(&mut self, _mark: (), _end: usize) {}
}

/// Items still to read in each open container (a map counts keys and values), with the
/// recorder's mark: the innermost levels in place, deeper ones (rare) in a vector, so that
/// passing over a small container allocates nothing.
struct Open<M> {
    inline: [(u64, M); INLINE_LEVELS],
    len: usize,
    deeper: Vec<(u64, M)>,
}

const INLINE_LEVELS: usize = 16;

impl<M: Copy> Open<M> {
    #[inline(always)]
    fn push(&mut self, n: u64, mark: M) {
        match self.inline.get_mut(self.len) {
            Some(slot) => *slot = (n, mark),
            None => self.deeper.push((n, mark)),
        }
        self.len += 1;
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(u64, M)> {
        let top = self.len.checked_sub(1)?;
        let level = match self.inline.get(top) {
            Some(&level) => level,
            None => self.deeper.pop()?,
        };
        self.len = top;
        Some(level)
    }
}

#[inline(always)]
fn walk<R: Record>(r: &mut Reader<'_>, depth: u32, record: &mut R) -> ReadResult<()> {
    // The stack is at most MAX_DECODE_DEPTH long, whatever the headers declare. The innermost
    // container's count and mark are kept apart from it, in locals: counting an item down is
    // then a register's decrement, not a load and a store that the next item waits for.
    let mut open = Open {
        inline: [(0, R::Mark::default()); INLINE_LEVELS],
        len: 0,
        deeper: Vec::new(),
    };
    // Containers open (the innermost one's count in `left`, the others' on `open`).
    let mut level: usize = 0;
    let mut left: u64 = 0;
    let mut mark = R::Mark::default();
    loop {
        let start = r.pos;
        if level > 0 {
            record.item(mark, start);
        }
        let children = item(r, start)?;
        if let Some(children) = children {
            // Every container counts towards the depth limit, an empty one too, as in the
            // decoder. Each item takes at least one byte: a count beyond the input is truncated
            // now, not after reading what there is.
            let n = usize::try_from(children).unwrap_or(usize::MAX);
            r.container(n, 1, "container", level as u32 + depth, start)?;
            let opened = record.open(start);
            if children > 0 {
                if level > 0 {
                    open.push(left, mark);
                }
                level += 1;
                (left, mark) = (children, opened);
                continue;
            }
            record.close(opened, r.pos);
        }
        // The item is complete: it ends one item of each container it completes.
        loop {
            if level == 0 {
                return Ok(());
            }
            left -= 1;
            if left > 0 {
                break;
            }
            record.close(mark, r.pos);
            level -= 1;
            if level > 0 {
                // `open` holds `level` containers here, so `pop` finds one.
                match open.pop() {
                    Some(outer) => (left, mark) = outer,
                    None => level = 0,
                }
            }
        }
    }
}

/// For each fixstr length, the high bit of each of its bytes, then zeros: `HIGH_BITS[len]`.
static HIGH_BITS: [[u64; 4]; 32] = {
    let mut table = [[0u64; 4]; 32];
    let mut len = 0;
    while len < 32 {
        let mut byte = 0;
        while byte < len {
            table[len][byte / 8] |= 0x80 << (8 * (byte % 8));
            byte += 1;
        }
        len += 1;
    }
    table
};

/// Whether the first `len` (at most 31) bytes of the 32-byte `window` are ASCII: four word
/// loads, masked, without the loop and the alignment work of `<[u8]>::is_ascii`, which took
/// most of the check's time on short keys and names.
#[inline(always)]
fn fixstr_is_ascii(window: &[u8; 32], len: usize) -> bool {
    let mask = &HIGH_BITS[len & 31];
    let word = |i: usize| {
        let bytes = window.get(8 * i..).and_then(|rest| rest.first_chunk::<8>());
        bytes.map_or(0, |b| u64::from_le_bytes(*b)) & mask[i]
    };
    let high = word(0) | word(1) | word(2) | word(3);
    high == 0
}

/// Reads the item that starts at `start` (a scalar whole, a container's header only) and
/// returns, for a container, how many items it holds.
#[inline(always)]
fn item(r: &mut Reader<'_>, start: usize) -> ReadResult<Option<u64>> {
    // The most common items first, from the marker alone.
    if let Some(&marker) = r.data.get(start) {
        let fixed = token::FIXED_LEN[marker as usize] as usize;
        if fixed != 0 && fixed <= r.remaining() {
            r.pos += fixed;
            return Ok(None);
        }
        match marker {
            0x80..=0x8f => {
                r.pos += 1;
                return Ok(Some(2 * (marker & 0x0f) as u64));
            }
            0x90..=0x9f => {
                r.pos += 1;
                return Ok(Some((marker & 0x0f) as u64));
            }
            0xa0..=0xbf => {
                let len = (marker & 0x1f) as usize;
                let end = start + 1 + len;
                if let Some(bytes) = r.data.get(start + 1..end) {
                    let window = r.data.get(start + 1..start + 33);
                    let ascii = match window.and_then(|w| <&[u8; 32]>::try_from(w).ok()) {
                        Some(window) => fixstr_is_ascii(window, len),
                        None => bytes.is_ascii(),
                    };
                    if !ascii && simdutf8::basic::from_utf8(bytes).is_err() {
                        return Err(InputError::new(Kind::InvalidUtf8, start));
                    }
                    r.pos = end;
                    return Ok(None);
                }
            }
            _ => {}
        }
    }
    Ok(match token::next(r, "value")? {
        Token::Str(bytes) => {
            if !bytes.is_ascii() && simdutf8::basic::from_utf8(bytes).is_err() {
                return Err(InputError::new(Kind::InvalidUtf8, start));
            }
            None
        }
        Token::Array(n) => Some(n as u64),
        Token::Map(n) => Some(2 * n as u64),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixstr_ascii_check_agrees_with_is_ascii() {
        for len in 0..32usize {
            for high in [
                None,
                Some(0),
                Some(len / 2),
                Some(len.saturating_sub(1)),
                Some(len),
            ] {
                let mut window = [b'a'; 32];
                // A byte past the str is never looked at.
                if len < 32 {
                    window[len] = 0xff;
                }
                if let Some(at) = high.filter(|&at| at < len) {
                    window[at] = 0xc3;
                }
                assert_eq!(
                    fixstr_is_ascii(&window, len),
                    window[..len].is_ascii(),
                    "len {len}, high byte at {high:?}"
                );
            }
        }
    }

    /// Every container as `(start, end)`, in the order of their headers.
    #[derive(Default)]
    struct Containers(Vec<(usize, usize)>);

    impl Record for Containers {
        type Mark = usize;
        fn open(&mut self, start: usize) -> usize {
            self.0.push((start, usize::MAX));
            self.0.len() - 1
        }
        fn close(&mut self, mark: usize, end: usize) {
            self.0[mark].1 = end;
        }
    }

    #[test]
    fn containers_are_recorded_at_any_depth() {
        // [[[...[0]...]], {}, {"a": [1, 2]}] with the first item 20 arrays deep, past the
        // levels kept in place.
        let mut data = vec![0x93];
        data.extend(std::iter::repeat_n(0x91, 20));
        data.push(0x00);
        data.push(0x80);
        data.extend([0x81, 0xa1, b'a', 0x92, 0x01, 0x02]);
        let mut found = Containers::default();
        check_one_with(&data, &mut found).unwrap();
        let mut expected = vec![(0, data.len())];
        expected.extend((1..=20).map(|start| (start, 22)));
        expected.extend([(22, 23), (23, 29), (26, 29)]);
        assert_eq!(found.0, expected);
    }

    #[test]
    fn check_one_refuses_what_the_decoder_refuses() {
        assert!(check_one(&[0xa2, b'h', b'i']).is_ok());
        assert!(check_one(&[0xa2, 0xc3, 0x28]).is_err(), "invalid UTF-8");
        assert!(check_one(&[0xa3, b'h', b'i']).is_err(), "truncated");
        assert!(check_one(&[0x92, 0x01]).is_err(), "truncated array");
        assert!(check_one(&[0x91, 0xc1]).is_err(), "reserved");
        assert!(check_one(&[0x01, 0x02]).is_err(), "trailing");
        let deep: Vec<u8> = std::iter::repeat_n(0x91, 1100).chain([0]).collect();
        assert!(check_one(&deep).is_err(), "too deep");
        let deep_ok: Vec<u8> = std::iter::repeat_n(0x91, 1000).chain([0]).collect();
        assert!(check_one(&deep_ok).is_ok());
    }
}
