//! Finds where objects end in a stream whose bytes arrive in pieces, without building anything
//! and without reading any byte twice: the streaming reader asks it, after each piece, whether
//! the bytes so far hold a complete object.
//!
//! The scanner walks items through the one grammar ([`token::next`]) and keeps, between calls,
//! where it stopped and how many items each open container still holds. An item whose bytes
//! have not all arrived is read again from its first byte on the next call: that costs a
//! header, not its payload, since a `str`, `bin` or ext is taken by its length without being
//! looked at. A declared length is only ever compared with the bytes at hand, so a header
//! declaring 4 GiB makes the scanner wait, and reserves nothing.
//!
//! Given `fastmsgpack.compat`'s `max_*_len` limits, the scanner checks each item against them as
//! it reads it ([`header::check_token`]): a container as soon as its header has arrived, a
//! `str`, `bin` or ext once its bytes have, whether or not the object around it is complete.

use super::compat::header;
use super::error::{DeError, Kind};
use super::reader::Reader;
use super::token::{self, Token};
use crate::compat::Limits;
use crate::limits::MAX_DECODE_DEPTH;

#[derive(Default)]
pub struct Scanner {
    /// Where the next item starts, from the start of the object being scanned.
    pos: usize,
    /// Items still to read in each open container (a map counts keys and values).
    open: Vec<u64>,
}

/// What the bytes so far hold.
pub enum Scan {
    /// A complete object, ending here (from the start of the object).
    Complete(usize),
    /// Not yet a complete object: more bytes are needed.
    Incomplete,
}

impl Scanner {
    /// Scans on from where the last call stopped. `data` starts where the object starts and
    /// holds at least the bytes the last call saw. Once an object is complete the scanner is
    /// ready for the next one, which starts at the returned end. With `limits`, an item longer
    /// than its limit is an error (a `ValueError`), raised once the item has been read.
    pub fn scan(&mut self, data: &[u8], limits: Option<&Limits>) -> Result<Scan, DeError> {
        let mut r = Reader::new(data);
        loop {
            r.pos = self.pos;
            if r.pos >= data.len() {
                return Ok(Scan::Incomplete);
            }
            // A container too deep is refused from its marker, before its header is whole.
            if token::is_container_marker(data[r.pos])
                && self.open.len() >= MAX_DECODE_DEPTH as usize
            {
                return Err(DeError::input(Kind::TooDeep, self.pos));
            }
            let token = match token::next(&mut r, "value") {
                Ok(token) => token,
                Err(err) if err.is_truncated() => return Ok(Scan::Incomplete),
                Err(err) => return Err(err),
            };
            if let Some(limits) = limits {
                header::check_token(&token, limits)?;
            }
            let children = match token {
                Token::Array(n) => n as u64,
                Token::Map(n) => 2 * n as u64,
                _ => 0,
            };
            if children > 0 {
                self.open.push(children);
            }
            self.pos = r.pos;
            if children == 0 && self.close_items() {
                let end = self.pos;
                self.pos = 0;
                return Ok(Scan::Complete(end));
            }
        }
    }

    /// Whether no object is being scanned (the next call starts one).
    #[inline(always)]
    pub fn is_idle(&self) -> bool {
        self.pos == 0 && self.open.is_empty()
    }

    /// One item is complete: it completes those containers whose last item it was. Whether the
    /// whole object is now complete.
    #[inline(always)]
    fn close_items(&mut self) -> bool {
        while let Some(left) = self.open.last_mut() {
            *left -= 1;
            if *left > 0 {
                return false;
            }
            self.open.pop();
        }
        true
    }

    /// The fewest bytes the object being scanned can take, from what has arrived (`data` as given
    /// to the last [`Scanner::scan`]): where the pending item starts, plus that item's declared
    /// length once its header is whole, plus a byte for each item the open containers still
    /// need (an open container's own place in its parent is taken by its items). A lower bound,
    /// never more than the object's real length: a reader compares it with the bytes it may
    /// hold, to refuse at its header an object that could never fit. Only headers are read.
    #[cold]
    pub fn least_len(&self, data: &[u8]) -> u64 {
        let items: u64 = self.open.iter().fold(0u64, |acc, &n| acc.saturating_add(n));
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
    #[cfg(test)]
    pub fn reset(&mut self) {
        self.pos = 0;
        self.open.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(stream: &[u8], piece: usize) -> Vec<usize> {
        let mut scanner = Scanner::default();
        let (mut start, mut fed, mut found) = (0, 0, Vec::new());
        while fed < stream.len() {
            fed = (fed + piece).min(stream.len());
            while let Ok(Scan::Complete(end)) = scanner.scan(&stream[start..fed], None) {
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

    #[test]
    fn a_huge_declared_length_waits() {
        let mut scanner = Scanner::default();
        for header in [
            &b"\xdb\xff\xff\xff\xff"[..],
            b"\xdd\xff\xff\xff\xff",
            b"\xc6\xff\xff\xff\xff",
        ] {
            scanner.reset();
            assert!(matches!(scanner.scan(header, None), Ok(Scan::Incomplete)));
        }
    }

    #[test]
    fn malformed_bytes_are_errors() {
        let mut scanner = Scanner::default();
        assert!(scanner.scan(b"\x92\xc1", None).is_err());
        scanner.reset();
        let deep = vec![0x91u8; MAX_DECODE_DEPTH as usize + 1];
        assert!(scanner.scan(&deep, None).is_err());
    }

    #[test]
    fn limits_act_when_the_item_is_read() {
        pyo3::Python::initialize();
        let limits = Limits::new(2, 2, 2, 2, 2);
        let mut scanner = Scanner::default();
        // A container as soon as its header is whole, before any item has arrived.
        assert!(scanner.scan(b"\xdd\x00\x01", Some(&limits)).is_ok());
        assert!(scanner
            .scan(b"\xdd\x00\x01\x00\x00", Some(&limits))
            .is_err());
        // A bin once its bytes are all there, inside an array not yet complete.
        scanner.reset();
        assert!(matches!(
            scanner.scan(b"\x92\xc4\x03ab", Some(&limits)),
            Ok(Scan::Incomplete)
        ));
        assert!(scanner.scan(b"\x92\xc4\x03abc", Some(&limits)).is_err());
        // At the limit is allowed; an ext's type byte does not count.
        scanner.reset();
        assert!(matches!(
            scanner.scan(b"\x92\xa2ab\xd5\x01xy", Some(&limits)),
            Ok(Scan::Complete(8))
        ));
    }

    #[test]
    fn least_len_is_a_lower_bound_from_the_headers() {
        let mut scanner = Scanner::default();
        // A str 32 header declaring 2^32 - 1 bytes: the object needs at least that many.
        let data = b"\xdb\xff\xff\xff\xff";
        assert!(matches!(scanner.scan(data, None), Ok(Scan::Incomplete)));
        assert_eq!(scanner.least_len(data), (1u64 << 32));
        // [{"a": <array of 16 items, 1 arrived>}]: the map's open slot is the array itself.
        scanner.reset();
        let data = b"\x91\x81\xa1a\xdc\x00\x10\x01";
        assert!(matches!(scanner.scan(data, None), Ok(Scan::Incomplete)));
        assert_eq!(scanner.least_len(data), 8 + 15);
        let mut whole = data.to_vec();
        whole.extend_from_slice(&[1u8; 15]);
        scanner.reset();
        assert!(matches!(scanner.scan(&whole, None), Ok(Scan::Complete(23))));
    }
}
