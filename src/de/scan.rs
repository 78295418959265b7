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

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::compat::header;
use super::compat::options::CompatOptions;
use super::error::{DeError, Kind};
use super::reader::Reader;
use super::token::{self, Token};
use crate::limits::MAX_DECODE_DEPTH;

/// A container not yet complete.
struct Open {
    /// Items still to read (a map counts keys and values).
    left: u64,
    map: bool,
    /// Under `strict_map_key`, the key being read (or whose value is) is not a str, bin or
    /// ext: the name of its type, reported once its value is complete.
    bad_key: Option<&'static str>,
}

#[derive(Default)]
pub struct Scanner {
    /// Where the next item starts, from the start of the object being scanned.
    pos: usize,
    open: Vec<Open>,
}

/// What the bytes so far hold.
pub enum Scan {
    /// A complete object, ending here (from the start of the object).
    Complete(usize),
    /// Not yet a complete object: more bytes are needed.
    Incomplete,
}

/// How the stream of `fastmsgpack.compat.Unpacker` is checked as it arrives: as
/// msgpack-python's stream reader, which builds each item as soon as it has arrived, reports
/// errors (an item over its `max_*_len`, invalid UTF-8, a key `strict_map_key` refuses) inside
/// an object that is not complete yet. `build` is false for `skip`, which builds nothing and so
/// checks only the structure.
#[derive(Clone, Copy)]
pub struct Compat<'o> {
    pub o: &'o CompatOptions,
    pub build: bool,
}

/// An error found by the scanner, and where the item it was found in ends (from the start of
/// the object): msgpack-python's reader goes on from that item's last byte.
pub struct Fault {
    pub err: DeError,
    pub end: usize,
}

impl Scanner {
    /// Scans on from where the last call stopped. `data` starts where the object starts and
    /// holds at least the bytes the last call saw. Once an object is complete the scanner is
    /// ready for the next one, which starts at the returned end. With `compat`, items are
    /// checked as msgpack-python's reader checks them ([`Compat`]).
    pub fn scan(
        &mut self,
        py: Python<'_>,
        data: &[u8],
        compat: Option<Compat<'_>>,
    ) -> Result<Scan, Fault> {
        let mut r = Reader::new(data);
        loop {
            r.pos = self.pos;
            if r.pos >= data.len() {
                return Ok(Scan::Incomplete);
            }
            // A container too deep is refused from its marker, before its header is whole
            // (in compat mode, once it is, as msgpack-python does).
            if compat.is_none()
                && token::is_container_marker(data[r.pos])
                && self.open.len() >= MAX_DECODE_DEPTH as usize
            {
                return Err(Fault {
                    err: DeError::input(Kind::TooDeep, self.pos),
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
            if let Some(c) = compat {
                self.check(py, c, &token, start, r.pos)?;
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
            self.pos = r.pos;
            if children == 0 {
                match self.close_items() {
                    Ok(true) => {
                        let end = self.pos;
                        self.pos = 0;
                        return Ok(Scan::Complete(end));
                    }
                    Ok(false) => {}
                    Err(err) => return Err(Fault { err, end: self.pos }),
                }
            }
        }
    }

    /// The checks of msgpack-python's reader on the item `token`, from `start` to `end`.
    #[inline(never)]
    fn check(
        &mut self,
        py: Python<'_>,
        c: Compat<'_>,
        token: &Token<'_>,
        start: usize,
        end: usize,
    ) -> Result<(), Fault> {
        let fault = |err| Fault { err, end };
        if matches!(token, Token::Array(_) | Token::Map(_))
            && self.open.len() >= MAX_DECODE_DEPTH as usize
        {
            return Err(fault(DeError::input(Kind::TooDeep, start)));
        }
        if !c.build {
            return Ok(());
        }
        header::check_token(token, &c.o.limits).map_err(fault)?;
        if let Token::Str(bytes) = token {
            if c.o.strict_utf8 && simdutf8::basic::from_utf8(bytes).is_err() {
                let text = pyo3::types::PyBytes::new(py, bytes);
                if let Err(err) = text.call_method1("decode", ("utf-8", "strict")) {
                    return Err(fault(DeError::python(err)));
                }
            }
        }
        if c.o.strict_map_key {
            if let Some(top) = self.open.last_mut() {
                if top.map && top.left % 2 == 0 {
                    top.bad_key = key_type(token, c.o.use_list);
                }
            }
        }
        Ok(())
    }

    /// Whether no object is being scanned (the next call starts one).
    #[inline(always)]
    pub fn is_idle(&self) -> bool {
        self.pos == 0 && self.open.is_empty()
    }

    /// Bytes of the object being scanned that have been read as complete items: msgpack-python's
    /// reader no longer holds them.
    #[inline(always)]
    pub fn scanned(&self) -> usize {
        self.pos
    }

    /// One item is complete: it completes those containers whose last item it was. Whether the
    /// whole object is now complete; an error when it completes the value of a key that
    /// `strict_map_key` refuses.
    #[inline(always)]
    fn close_items(&mut self) -> Result<bool, DeError> {
        while let Some(top) = self.open.last_mut() {
            top.left -= 1;
            if top.map && top.left % 2 == 0 {
                if let Some(name) = top.bad_key.take() {
                    return Err(bad_key(name));
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
    #[cfg(test)]
    pub fn reset(&mut self) {
        self.pos = 0;
        self.open.clear();
    }
}

/// The type of the key a token makes, when `strict_map_key` refuses it: not a str or bin, nor
/// an ext (whose `ext_hook` may return a str).
fn key_type(token: &Token<'_>, use_list: bool) -> Option<&'static str> {
    Some(match token {
        Token::Str(_) | Token::Bin(_) | Token::Ext(..) => return None,
        Token::Int(_) | Token::UInt(_) => "int",
        Token::F32(_) | Token::F64(_) => "float",
        Token::Bool(_) => "bool",
        Token::Nil => "NoneType",
        Token::Array(_) if use_list => "list",
        Token::Array(_) => "tuple",
        Token::Map(_) => "dict",
    })
}

#[cold]
fn bad_key(name: &str) -> DeError {
    DeError::python(PyValueError::new_err(format!(
        "{name} is not allowed for map key when strict_map_key=True"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(stream: &[u8], piece: usize) -> Vec<usize> {
        let mut scanner = Scanner::default();
        let (mut start, mut fed, mut found) = (0, 0, Vec::new());
        while fed < stream.len() {
            fed = (fed + piece).min(stream.len());
            while let Ok(Scan::Complete(end)) =
                pyo3::Python::attach(|py| scanner.scan(py, &stream[start..fed], None))
            {
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
        pyo3::Python::attach(|py| {
            let mut scanner = Scanner::default();
            for header in [
                &b"\xdb\xff\xff\xff\xff"[..],
                b"\xdd\xff\xff\xff\xff",
                b"\xc6\xff\xff\xff\xff",
            ] {
                scanner.reset();
                assert!(matches!(
                    scanner.scan(py, header, None),
                    Ok(Scan::Incomplete)
                ));
            }
        })
    }

    #[test]
    fn malformed_bytes_are_errors() {
        pyo3::Python::attach(|py| {
            let mut scanner = Scanner::default();
            assert!(scanner.scan(py, b"\x92\xc1", None).is_err());
            scanner.reset();
            let deep = vec![0x91u8; MAX_DECODE_DEPTH as usize + 1];
            assert!(scanner.scan(py, &deep, None).is_err());
        })
    }

    #[test]
    fn least_len_is_a_lower_bound_from_the_headers() {
        pyo3::Python::attach(|py| {
            let mut scanner = Scanner::default();
            // A str 32 header declaring 2^32 - 1 bytes: the object needs at least that many.
            let data = b"\xdb\xff\xff\xff\xff";
            assert!(matches!(scanner.scan(py, data, None), Ok(Scan::Incomplete)));
            assert_eq!(scanner.least_len(data), (1u64 << 32));
            // [{"a": <array of 16 items, 1 arrived>}]: the map's open slot is the array itself.
            scanner.reset();
            let data = b"\x91\x81\xa1a\xdc\x00\x10\x01";
            assert!(matches!(scanner.scan(py, data, None), Ok(Scan::Incomplete)));
            assert_eq!(scanner.least_len(data), 8 + 15);
            let mut whole = data.to_vec();
            whole.extend_from_slice(&[1u8; 15]);
            scanner.reset();
            assert!(matches!(
                scanner.scan(py, &whole, None),
                Ok(Scan::Complete(23))
            ));
        })
    }
}
