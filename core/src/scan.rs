//! Finds where objects end in a stream whose bytes arrive in pieces, without building anything
//! and without reading any byte twice: a streaming reader asks it, after each piece, whether
//! the bytes so far hold a complete object.
//!
//! The scanner walks items through the one grammar ([`token::next`]) and keeps, between calls,
//! where it stopped and how many items each open container still holds. An item whose bytes
//! have not all arrived is read again from its first byte on the next call: that costs a
//! header, not its payload, since a `str`, `bin` or ext is taken by its length without being
//! looked at. A declared length is only ever compared with the bytes at hand, so a header
//! declaring 4 GiB makes the scanner wait, and reserves nothing. When the check does not look at
//! items, those whose marker alone gives their length or header (the scalars of
//! [`token::FIXED_LEN`], fixstrs, fixmaps and fixarrays: most items of most objects) are passed
//! over without the full dispatch.
//!
//! What is checked beyond the structure is the caller's [`Check`]: it sees each item as it is
//! read, and may refuse it, or refuse a map key once that key's value is complete.

use crate::error::{InputError, Kind};
use crate::limits::MAX_DECODE_DEPTH;
use crate::reader::Reader;
use crate::token::{self, Token};

/// A container not yet complete.
struct Open {
    /// Items still to read (a map counts keys and values).
    left: u64,
    map: bool,
    /// The key being read (or whose value is) was refused by the [`Check`]: what it said,
    /// reported once the key's value is complete.
    bad_key: Option<&'static str>,
}

/// The scanner's state between pieces of a stream.
#[derive(Default)]
pub struct Scanner {
    /// Where the next item starts, from the start of the object being scanned.
    pos: usize,
    open: Vec<Open>,
}

/// What the bytes so far hold.
#[derive(Debug, PartialEq, Eq)]
pub enum Scan {
    /// A complete object, ending here (from the start of the object).
    Complete(usize),
    /// Not yet a complete object: more bytes are needed.
    Incomplete,
}

/// An error found by the scanner, and where the item it was found in ends (from the start of
/// the object): a reader that goes on after an error goes on from there.
#[derive(Debug)]
pub struct Fault<E> {
    pub err: E,
    pub end: usize,
}

/// The checks a caller makes on the items as they arrive, beyond the structure.
pub trait Check {
    type Error: From<InputError>;

    /// Whether a container nested too deep is refused from its marker, before its header has
    /// arrived (true), or once its header is whole, as an item (false).
    fn deep_at_marker(&self) -> bool;

    /// Checks the item `token`, which starts at `start`; `key` says whether it is a map key.
    /// For a key, `Ok(Some(why))` refuses it once its value is complete, with
    /// [`Check::refuse_key`].
    fn item(
        &mut self,
        token: &Token<'_>,
        start: usize,
        key: bool,
    ) -> Result<Option<&'static str>, Self::Error>;

    /// The error for a key [`Check::item`] refused, now that its value is complete.
    fn refuse_key(&mut self, why: &'static str) -> Self::Error;

    /// Whether [`Check::item`] looks at the items at all: when it does not, the scanner passes
    /// over scalars and short strs by their marker alone.
    #[inline(always)]
    fn sees_items(&self) -> bool {
        true
    }
}

/// The structure only: containers nested too deep are refused from their marker.
pub struct Structure;

impl Check for Structure {
    type Error = InputError;

    #[inline(always)]
    fn deep_at_marker(&self) -> bool {
        true
    }

    #[inline(always)]
    fn item(
        &mut self,
        _: &Token<'_>,
        _: usize,
        _: bool,
    ) -> Result<Option<&'static str>, InputError> {
        Ok(None)
    }

    #[cold]
    fn refuse_key(&mut self, _: &'static str) -> InputError {
        unreachable_key()
    }

    #[inline(always)]
    fn sees_items(&self) -> bool {
        false
    }
}

/// [`token::FIXED_LEN`], with the lengths of fixstrs (marker included) too.
const MARKER_LEN: [u8; 256] = {
    let mut table = token::FIXED_LEN;
    let mut m = 0xa0;
    while m < 0xc0 {
        table[m] = 1 + (m & 0x1f) as u8;
        m += 1;
    }
    table
};

/// Passes over the items from `pos` on whose marker gives their length (the scalars of
/// [`token::FIXED_LEN`] and fixstrs), while they have all arrived and more than one of the
/// `left` items of their container remains: where it stopped, and the items then left. The last
/// item is left to the caller, which closes the container with it.
#[inline(always)]
fn pass_scalars(data: &[u8], mut pos: usize, mut left: u64) -> (usize, u64) {
    while left > 1 {
        let Some(&marker) = data.get(pos) else {
            break;
        };
        let len = MARKER_LEN[marker as usize] as usize;
        if len == 0 || len > data.len() - pos {
            break;
        }
        pos += len;
        left -= 1;
    }
    (pos, left)
}

/// [`Structure::item`] refuses no key, so this is never called; an error rather than a panic.
#[cold]
fn unreachable_key() -> InputError {
    InputError::new(Kind::MapAsKey, 0)
}

impl Scanner {
    /// Scans on from where the last call stopped. `data` starts where the object starts and
    /// holds at least the bytes the last call saw. Once an object is complete the scanner is
    /// ready for the next one, which starts at the returned end. After a [`Fault`] the scanner
    /// must be replaced (or [`Scanner::reset`]) before it scans again.
    pub fn scan<C: Check>(&mut self, data: &[u8], check: &mut C) -> Result<Scan, Fault<C::Error>> {
        let mut r = Reader::new(data);
        let sees_items = check.sees_items();
        loop {
            r.pos = self.pos;
            let Some(&marker) = data.get(r.pos) else {
                return Ok(Scan::Incomplete);
            };
            if !sees_items {
                if let Some(top) = self.open.last_mut() {
                    // A run of scalars inside a container (a list of floats or ints, a map of
                    // small ints) is passed over in a loop of its own, all but the container's
                    // last item, which closes it below.
                    let (pos, left) = pass_scalars(data, self.pos, top.left);
                    if pos != self.pos {
                        self.pos = pos;
                        top.left = left;
                        continue;
                    }
                }
                // Most items are scalars and short strs, whose length the marker gives: passed
                // over without the full dispatch of the grammar (which agrees: see the tests).
                let len = match token::FIXED_LEN[marker as usize] {
                    0 if marker & 0xe0 == 0xa0 => 1 + (marker & 0x1f) as usize,
                    0 if marker & 0xe0 == 0x80 && self.open.len() < MAX_DECODE_DEPTH as usize => {
                        // A fixmap or fixarray within the depth limit: its header is its marker.
                        let map = marker < 0x90;
                        let n = (marker & 0x0f) as u64;
                        if n > 0 {
                            self.pos += 1;
                            self.open.push(Open {
                                left: if map { 2 * n } else { n },
                                map,
                                bad_key: None,
                            });
                            continue;
                        }
                        // Empty: complete at once, as a scalar.
                        1
                    }
                    fixed => fixed as usize,
                };
                if len != 0 {
                    let end = self.pos + len;
                    if end > data.len() {
                        return Ok(Scan::Incomplete);
                    }
                    self.pos = end;
                    match self.close_items() {
                        Ok(true) => {
                            self.pos = 0;
                            return Ok(Scan::Complete(end));
                        }
                        Ok(false) => continue,
                        Err(why) => {
                            return Err(Fault {
                                err: check.refuse_key(why),
                                end,
                            })
                        }
                    }
                }
            }
            let too_deep = self.open.len() >= MAX_DECODE_DEPTH as usize;
            // A container too deep is refused from its marker, before its header is whole,
            // when the check says so.
            if too_deep && check.deep_at_marker() && token::is_container_marker(marker) {
                return Err(Fault {
                    err: InputError::new(Kind::TooDeep, self.pos).into(),
                    end: self.pos + 1,
                });
            }
            let start = r.pos;
            let token = match token::next(&mut r, "value") {
                Ok(token) => token,
                Err(err) if err.is_truncated() => return Ok(Scan::Incomplete),
                Err(err) => {
                    return Err(Fault {
                        err: err.into(),
                        end: start + 1,
                    })
                }
            };
            let end = r.pos;
            let container = matches!(token, Token::Array(_) | Token::Map(_));
            if too_deep && container {
                return Err(Fault {
                    err: InputError::new(Kind::TooDeep, start).into(),
                    end,
                });
            }
            let key = self
                .open
                .last()
                .is_some_and(|top| top.map && top.left % 2 == 0);
            match check.item(&token, start, key) {
                Ok(None) => {}
                Ok(Some(why)) => {
                    if let Some(top) = self.open.last_mut().filter(|_| key) {
                        top.bad_key = Some(why);
                    }
                }
                Err(err) => return Err(Fault { err, end }),
            }
            let children = match token {
                Token::Array(n) => n as u64,
                Token::Map(n) => 2 * n as u64,
                _ => 0,
            };
            if children > 0 {
                self.open.push(Open {
                    left: children,
                    map: matches!(token, Token::Map(_)),
                    bad_key: None,
                });
            }
            self.pos = end;
            if children == 0 {
                match self.close_items() {
                    Ok(true) => {
                        self.pos = 0;
                        return Ok(Scan::Complete(end));
                    }
                    Ok(false) => {}
                    Err(why) => {
                        return Err(Fault {
                            err: check.refuse_key(why),
                            end,
                        })
                    }
                }
            }
        }
    }

    /// Whether no object is being scanned (the next call starts one).
    #[inline(always)]
    pub fn is_idle(&self) -> bool {
        self.pos == 0 && self.open.is_empty()
    }

    /// Bytes of the object being scanned that have been read as complete items.
    #[inline(always)]
    pub fn scanned(&self) -> usize {
        self.pos
    }

    /// One item is complete: it completes those containers whose last item it was. Whether the
    /// whole object is now complete; the refusal of a key whose value it completes.
    #[inline(always)]
    fn close_items(&mut self) -> Result<bool, &'static str> {
        while let Some(top) = self.open.last_mut() {
            top.left -= 1;
            if top.map && top.left % 2 == 0 {
                if let Some(why) = top.bad_key.take() {
                    return Err(why);
                }
            }
            if top.left > 0 {
                return Ok(false);
            }
            self.open.pop();
        }
        Ok(true)
    }

    /// The fewest bytes the object being scanned can take, from what has arrived (`data` as given
    /// to the last [`Scanner::scan`]): where the pending item starts, plus that item's declared
    /// length once its header is whole, plus a byte for each item the open containers still
    /// need (an open container's own place in its parent is taken by its items). A lower bound,
    /// never more than the object's real length: a reader compares it with the bytes it may
    /// hold, to refuse at its header an object that could never fit. Only headers are read.
    #[cold]
    pub fn least_len(&self, data: &[u8]) -> u64 {
        let items: u64 = self
            .open
            .iter()
            .fold(0u64, |acc, o| acc.saturating_add(o.left));
        let items = items.saturating_sub(self.open.len().saturating_sub(1) as u64);
        let pos = self.pos as u64;
        let Some(rest) = data.get(self.pos..).filter(|rest| !rest.is_empty()) else {
            return pos.saturating_add(items);
        };
        let item = match token::declared_length(rest) {
            Some(("map", n)) => (n as u64).saturating_mul(2).saturating_add(1),
            Some((_, n)) => (n as u64).saturating_add(1),
            None => 1,
        };
        pos.saturating_add(item)
            .saturating_add(items.saturating_sub(1))
    }

    /// Forgets the object being scanned.
    pub fn reset(&mut self) {
        self.pos = 0;
        self.open.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(stream: &[u8], piece: usize) -> Vec<usize> {
        ends_with(stream, piece, &mut Structure)
    }

    fn ends_with(
        stream: &[u8],
        piece: usize,
        check: &mut impl Check<Error = InputError>,
    ) -> Vec<usize> {
        let mut scanner = Scanner::default();
        let (mut start, mut fed, mut found) = (0, 0, Vec::new());
        while fed < stream.len() {
            fed = (fed + piece).min(stream.len());
            while let Ok(Scan::Complete(end)) = scanner.scan(&stream[start..fed], check) {
                start += end;
                found.push(start);
            }
        }
        found
    }

    #[test]
    fn finds_every_end_whatever_the_pieces() {
        // [1, {"a": [true, nil]}], "xyz", 7, {}
        let stream = b"\x92\x01\x81\xa1a\x92\xc3\xc0\xa3xyz\x07\x80";
        for piece in 1..=stream.len() {
            assert_eq!(
                ends(stream, piece),
                vec![8, 12, 13, 14],
                "pieces of {piece}"
            );
        }
    }

    /// Accepts every item, but looks at each: the scanner reads them all through the grammar.
    struct SeeAll;

    impl Check for SeeAll {
        type Error = InputError;

        fn deep_at_marker(&self) -> bool {
            true
        }

        fn item(
            &mut self,
            _: &Token<'_>,
            _: usize,
            _: bool,
        ) -> Result<Option<&'static str>, InputError> {
            Ok(None)
        }

        fn refuse_key(&mut self, _: &'static str) -> InputError {
            unreachable_key()
        }
    }

    #[test]
    fn passing_over_items_by_their_marker_finds_the_same_ends() {
        // Every kind of scalar a marker alone measures (ints, floats, nil, bools, fixext,
        // fixstr), others beside them, at the top level and inside containers.
        let mut stream: Vec<u8> = Vec::new();
        let items: [&[u8]; 16] = [
            b"\x05",
            b"\xe0",
            b"\xc0",
            b"\xc2",
            b"\xc3",
            b"\xcc\x01",
            b"\xd1\x01\x02",
            b"\xca\0\0\0\0",
            b"\xcb\0\0\0\0\0\0\0\0",
            b"\xcf\0\0\0\0\0\0\0\x01",
            b"\xd4\x01\x02",
            b"\xd8\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
            b"\xa0",
            b"\xa3abc",
            b"\xd9\x02hi",
            b"\xc4\x01\xff",
        ];
        for item in items {
            stream.extend_from_slice(item);
        }
        stream.extend_from_slice(&[0xdc, 0, items.len() as u8]);
        for item in items {
            stream.extend_from_slice(item);
        }
        // Empty and nested fixarrays and fixmaps.
        stream.extend_from_slice(b"\x90\x80\x93\x90\x91\x80\x81\x01\x90");
        stream.extend_from_slice(b"\x82\xa1a\xcb\0\0\0\0\0\0\0\0\xa2bc\x91\xd5\x01\x02\x03");
        for piece in 1..=stream.len() {
            let fast = ends_with(&stream, piece, &mut Structure);
            let full = ends_with(&stream, piece, &mut SeeAll);
            assert_eq!(fast, full, "pieces of {piece}");
            assert_eq!(fast.len(), items.len() + 5);
            assert_eq!(fast.last(), Some(&stream.len()));
        }
    }

    #[test]
    fn runs_of_scalars_in_containers_end_where_the_grammar_ends_them() {
        // A list of 300 float 64s, a map of fixstrs to small ints, a run broken by a str 8 and by
        // a nested list, containers closed by a scalar run's last item, and an empty fixstr.
        let mut stream: Vec<u8> = vec![0xdc, 0x01, 0x2c];
        for i in 0..300u64 {
            stream.push(0xcb);
            stream.extend_from_slice(&(i as f64).to_be_bytes());
        }
        stream.extend_from_slice(b"\x84\xa1a\x01\xa2bb\xcc\xc8\xa0\xe0\xa1d\x92\x01\x02");
        stream.extend_from_slice(b"\x97\x01\x02\xd9\x03abc\x93\x03\x04\x05\x06\x07\x08");
        stream.extend_from_slice(b"\x91\x91\x93\xc0\xc2\xc3");
        for piece in [1, 2, 3, 5, 8, 9, 10, 17, 64, 1000, stream.len()] {
            let fast = ends_with(&stream, piece, &mut Structure);
            let full = ends_with(&stream, piece, &mut SeeAll);
            assert_eq!(fast, full, "pieces of {piece}");
            assert_eq!(fast.len(), 4, "pieces of {piece}");
            assert_eq!(fast.last(), Some(&stream.len()));
        }
    }

    #[test]
    fn a_huge_declared_length_waits() {
        let mut scanner = Scanner::default();
        for header in [
            &b"\xdb\xff\xff\xff\xff"[..],
            b"\xdd\xff\xff\xff\xff",
            b"\xc6\xff\xff\xff\xff",
        ] {
            scanner.reset();
            assert_eq!(
                scanner.scan(header, &mut Structure).unwrap(),
                Scan::Incomplete
            );
        }
    }

    #[test]
    fn malformed_bytes_are_errors_at_their_offset() {
        let mut scanner = Scanner::default();
        let fault = scanner.scan(b"\x92\xc1", &mut Structure).unwrap_err();
        assert!(matches!(fault.err.kind(), Kind::Reserved));
        assert_eq!((fault.err.offset(), fault.end), (1, 2));
        scanner.reset();
        let deep = vec![0x91u8; MAX_DECODE_DEPTH as usize + 1];
        let fault = scanner.scan(&deep, &mut Structure).unwrap_err();
        assert!(matches!(fault.err.kind(), Kind::TooDeep));
        assert_eq!(fault.err.offset(), MAX_DECODE_DEPTH as usize);
    }

    #[test]
    fn a_too_deep_marker_is_refused_before_its_header_arrives() {
        // An array 16 marker without its length, one level too deep.
        let mut deep = vec![0x91u8; MAX_DECODE_DEPTH as usize];
        deep.push(0xdc);
        let fault = Scanner::default().scan(&deep, &mut Structure).unwrap_err();
        assert!(matches!(fault.err.kind(), Kind::TooDeep));
        // A check that refuses depth as an item waits for the header instead.
        let mut at_header = Refuse {
            marker: false,
            keys: Vec::new(),
        };
        assert_eq!(
            Scanner::default().scan(&deep, &mut at_header).unwrap(),
            Scan::Incomplete
        );
    }

    #[test]
    fn least_len_is_a_lower_bound_from_the_headers() {
        let mut scanner = Scanner::default();
        // A str 32 header declaring 2^32 - 1 bytes: the object needs at least that many.
        let data = b"\xdb\xff\xff\xff\xff";
        assert_eq!(
            scanner.scan(data, &mut Structure).unwrap(),
            Scan::Incomplete
        );
        assert_eq!(scanner.least_len(data), (1u64 << 32));
        // [{"a": <array of 16 items, 1 arrived>}]: the map's open slot is the array itself.
        scanner.reset();
        let data = b"\x91\x81\xa1a\xdc\x00\x10\x01";
        assert_eq!(
            scanner.scan(data, &mut Structure).unwrap(),
            Scan::Incomplete
        );
        assert_eq!(scanner.least_len(data), 8 + 15);
        let mut whole = data.to_vec();
        whole.extend_from_slice(&[1u8; 15]);
        scanner.reset();
        assert_eq!(
            scanner.scan(&whole, &mut Structure).unwrap(),
            Scan::Complete(23)
        );
    }

    /// Refuses integer keys (once their value is complete) and strs longer than 3 bytes.
    #[derive(Default)]
    struct Refuse {
        marker: bool,
        keys: Vec<(usize, bool)>,
    }

    impl Check for Refuse {
        type Error = InputError;

        fn deep_at_marker(&self) -> bool {
            self.marker
        }

        fn item(
            &mut self,
            token: &Token<'_>,
            start: usize,
            key: bool,
        ) -> Result<Option<&'static str>, InputError> {
            self.keys.push((start, key));
            match token {
                Token::Str(s) if s.len() > 3 => Err(InputError::new(Kind::InvalidUtf8, start)),
                Token::UInt(_) | Token::Int(_) if key => Ok(Some("int")),
                _ => Ok(None),
            }
        }

        fn refuse_key(&mut self, why: &'static str) -> InputError {
            InputError::new(Kind::KeyNotStr { found: why }, 0)
        }
    }

    #[test]
    fn the_check_sees_every_item_and_knows_the_keys() {
        // {"a": [1], 2: 3}
        let data = b"\x82\xa1a\x91\x01\x02\x03";
        let mut check = Refuse::default();
        let fault = Scanner::default().scan(data, &mut check).unwrap_err();
        // The key 2 is refused once its value (at 6) is complete.
        assert!(matches!(fault.err.kind(), Kind::KeyNotStr { found: "int" }));
        assert_eq!(fault.end, 7);
        assert_eq!(
            check.keys,
            vec![
                (0, false),
                (1, true),
                (3, false),
                (4, false),
                (5, true),
                (6, false)
            ]
        );
        // An item the check refuses ends the scan where the item ends.
        let fault = Scanner::default()
            .scan(b"\x92\xa4abcd\x01", &mut Refuse::default())
            .unwrap_err();
        assert_eq!((fault.err.offset(), fault.end), (1, 6));
    }
}
