//! `tuple`, `set` and `frozenset`: the payload is one MessagePack array, the items (ordinary
//! values of any depth, exact ones included), and nothing after it.

use super::Malformed;
use crate::error::Kind;
use crate::marker;
use crate::reader::Reader;
use crate::skip;
use crate::token::{self, Token};

/// A sequence or set payload: how many items, and the bytes that hold them. A reader accepts a
/// longer array header than the count needs; [`Seq::write`] writes the shortest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seq<'a> {
    pub len: usize,
    pub items: &'a [u8],
}

impl<'a> Seq<'a> {
    /// The array a payload holds, each item checked by the read grammar (nested one level below
    /// the extension), and nothing after it.
    pub fn read(payload: &'a [u8]) -> Result<Seq<'a>, Malformed> {
        let (len, at) = Seq::header(payload)?;
        let mut r = Reader::new(payload);
        r.pos = at;
        for _ in 0..len {
            skip::skip_value(&mut r, 2).map_err(|e| match e.kind() {
                Kind::Truncated { .. } => Malformed::SeqTruncated(e.kind().to_string().into()),
                other => Malformed::Item(other.to_string().into()),
            })?;
        }
        if r.pos != payload.len() {
            return Err(Malformed::Trailing(payload.len() - r.pos));
        }
        Ok(Seq {
            len,
            items: &payload[at..],
        })
    }

    /// The item count of the array a payload starts with, and where its items start.
    pub fn header(payload: &[u8]) -> Result<(usize, usize), Malformed> {
        if payload.is_empty() {
            return Err(Malformed::Empty);
        }
        let mut r = Reader::new(payload);
        match token::next(&mut r, "value") {
            Ok(Token::Array(n)) => Ok((n, r.pos)),
            Ok(other) => Err(Malformed::NotArray(other.type_name())),
            Err(e) if e.is_truncated() => Err(Malformed::SeqTruncated(e.kind().to_string().into())),
            Err(e) => Err(Malformed::Item(e.kind().to_string().into())),
        }
    }

    /// The payload: the shortest array header, then the items as they are.
    pub fn write(&self, out: &mut Vec<u8>) {
        if let Some(h) = marker::array_header(self.len) {
            out.extend_from_slice(h.as_bytes());
        }
        out.extend_from_slice(self.items);
    }
}
