//! MessagePack straight to JSON, without building Python objects: the input is walked once and
//! each value handed to the JSON emitter.
//!
//! The result equals `json.dumps(unpackb(data))`. Two inputs would differ when walked this way,
//! and are reported so the caller can take the object path instead: maps with a repeated key
//! (a dict keeps the first position and the last value) and, with `OPT_NON_STR_KEYS`, maps with
//! keys that are not strings (Python merges `1`, `1.0` and `True` into one key).

use std::collections::HashSet;

use super::error::{DeError, Kind};
use super::reader::Reader;
use super::token::{self, Token};
use super::walk::{self, Begin, Policy};
use crate::emit::Emitter;
use crate::error::Error;
use crate::opt::{self, Opt};
use fastmsgpack_core::limits::{MAX_DECODE_DEPTH, MAX_ENCODE_DEPTH};

pub enum Stop {
    /// Malformed input.
    Input(DeError),
    /// A value JSON cannot hold (bin, ext), at this offset, and the error's `kind`.
    NotJson(Error, usize, &'static str),
    /// Take the object path (see the module documentation).
    UseObjects,
}

impl From<super::error::InputError> for Stop {
    #[cold]
    fn from(err: super::error::InputError) -> Stop {
        Stop::Input(err.into())
    }
}

impl From<DeError> for Stop {
    fn from(err: DeError) -> Stop {
        Stop::Input(err)
    }
}

type TResult<T = ()> = Result<T, Stop>;

pub struct Transcoder<'a, E: Emitter> {
    r: Reader<'a>,
    opts: Opt,
    e: &'a mut E,
    /// The keys of the small maps being walked, innermost last (see `Keys`).
    key_stack: Vec<&'a [u8]>,
}

impl<'a, E: Emitter> Transcoder<'a, E> {
    pub fn new(data: &'a [u8], opts: Opt, e: &'a mut E) -> Transcoder<'a, E> {
        Transcoder {
            r: Reader::new(data),
            opts,
            e,
            key_stack: Vec::new(),
        }
    }

    /// Transcodes one object starting at `start`; returns where it ends.
    pub fn object_at(&mut self, start: usize) -> TResult<usize> {
        self.r.pos = start;
        // A walk that stopped early (`Stop`) may have left keys behind.
        self.key_stack.clear();
        if start >= self.r.data.len() {
            return Err(Stop::Input(DeError::input(Kind::Empty, start)));
        }
        walk::value(self, 0)?;
        Ok(self.r.pos)
    }

    /// A string's UTF-8, checked.
    #[inline(always)]
    fn utf8(bytes: &'a [u8], start: usize) -> TResult<&'a [u8]> {
        if !bytes.is_ascii() && simdutf8::basic::from_utf8(bytes).is_err() {
            return Err(Stop::Input(DeError::input(Kind::InvalidUtf8, start)));
        }
        Ok(bytes)
    }

    #[inline(always)]
    fn str(&mut self, bytes: &'a [u8], start: usize) -> TResult {
        let bytes = Self::utf8(bytes, start)?;
        emitted(self.e.str(bytes), start)
    }

    /// A map key: a string (returned, to spot repeats); anything else ends the walk with
    /// `OPT_NON_STR_KEYS` (see the module documentation) and is an error without it.
    fn key(&mut self, start: usize) -> TResult<&'a [u8]> {
        let bytes = match token::next_key(&mut self.r)? {
            Ok(bytes) => Self::utf8(bytes, start)?,
            Err(_) if self.opts & opt::NON_STR_KEYS != 0 => return Err(Stop::UseObjects),
            Err(token) => {
                let found = token.type_name();
                return Err(Stop::Input(DeError::input(
                    Kind::KeyNotStr { found },
                    start,
                )));
            }
        };
        emitted(self.e.str(bytes), start)?;
        Ok(bytes)
    }
}

/// The transcoder's side of the walk: each item handed to the emitter as it is read, each map's
/// keys kept to spot a repeat.
impl<'a, E: Emitter> Policy<'a> for Transcoder<'a, E> {
    type Value = ();
    type Error = Stop;
    type Array = ();
    type Map = Keys<'a>;
    type Key = ();

    #[inline(always)]
    fn reader(&mut self) -> &mut Reader<'a> {
        &mut self.r
    }

    #[inline(always)]
    fn reader_ref(&self) -> &Reader<'a> {
        &self.r
    }

    #[inline(always)]
    fn enter(&self, depth: u32, start: usize) -> TResult {
        // `json.dumps` writes at most this many levels; deeper input is refused the same way
        // (below the decoder's own limit, which the walk checks with the rest of the header).
        if depth as u64 >= MAX_ENCODE_DEPTH && depth < MAX_DECODE_DEPTH {
            return Err(Stop::NotJson(crate::error::too_deep(), start, "too_deep"));
        }
        Ok(())
    }

    #[inline(always)]
    fn scalar(&mut self, token: Token<'a>, depth: u32, start: usize) -> TResult {
        let r = match token {
            Token::Int(v) => self.e.int(v),
            Token::Str(bytes) => return self.str(bytes, start),
            Token::F64(v) => self.e.float(v),
            Token::Nil => self.e.nil(),
            Token::Bool(v) => self.e.bool(v),
            Token::UInt(v) => self.e.uint(v),
            Token::F32(v) => self.e.float(v as f64),
            Token::Bin(data) => return refused(self.e.bin(data), start, "bytes_not_json"),
            Token::Ext(tag, data) => return refused(self.e.ext(tag, data), start, "ext_not_json"),
            // The walk hands containers to the container hooks, never here.
            Token::Array(_) | Token::Map(_) => return walk::build(self, token, depth, start),
        };
        emitted(r, start)
    }

    #[inline(always)]
    fn array_begin(&mut self, n: usize, _depth: u32, start: usize) -> TResult {
        emitted(self.e.array_begin(n), start)
    }

    #[inline(always)]
    fn before_item(&mut self, _array: &mut (), i: usize, at: usize) -> TResult {
        emitted(self.e.array_item(i), at)
    }

    #[inline(always)]
    fn array_item(&mut self, _array: &mut (), _i: usize, _item: ()) -> TResult {
        Ok(())
    }

    #[inline(always)]
    fn array_end(&mut self, _array: (), start: usize) -> TResult {
        emitted(self.e.array_end(), start)
    }

    #[inline(always)]
    fn map_begin(&mut self, n: usize, _depth: u32, start: usize) -> TResult<Begin<Keys<'a>, ()>> {
        emitted(self.e.map_begin(n), start)?;
        Ok(Begin::Walk(Keys::new(n, self.key_stack.len())))
    }

    #[inline(always)]
    fn key(&mut self, seen: &mut Keys<'a>, i: usize, _depth: u32) -> TResult {
        let key_start = self.r.pos;
        emitted(self.e.map_key(i), key_start)?;
        let key = Transcoder::key(self, key_start)?;
        if !seen.insert(key, &mut self.key_stack) {
            return Err(Stop::UseObjects);
        }
        emitted(self.e.map_value(), key_start)
    }

    #[inline(always)]
    fn map_entry(&mut self, _: &mut Keys<'a>, _: (), _: (), _: usize, _: usize) -> TResult {
        Ok(())
    }

    #[inline(always)]
    fn map_end(&mut self, seen: Keys<'a>, start: usize) -> TResult {
        seen.release(&mut self.key_stack);
        emitted(self.e.map_end(), start)
    }
}

/// An emitter's refusal (bin, ext), located at `start`.
fn emitted(result: Result<(), Error>, start: usize) -> TResult {
    refused(result, start, "not_json")
}

/// As [`emitted`], for a value whose refusal is of the kind named `kind`.
#[inline(always)]
fn refused(result: Result<(), Error>, start: usize, kind: &'static str) -> TResult {
    result.map_err(|err| Stop::NotJson(err, start, kind))
}

/// The keys of one map, to spot a repeated one: a scan for small maps, a set for large ones.
///
/// A small map's keys go on the transcoder's key stack, above those of the maps it is nested in,
/// and come off when the map ends, so that walking a document allocates for its deepest run of
/// small maps only, not for each map.
///
/// The set hashes with the standard library's keyed hash (a random key per process): the keys
/// come from the input, and with a fixed hash an input of many keys made to collide would make
/// each insert walk all the others.
pub enum Keys<'a> {
    /// This map's keys are `key_stack[base..]`.
    Few {
        base: usize,
    },
    Many(HashSet<&'a [u8]>),
}

/// Maps with at most this many keys are checked by a scan.
const SCAN_KEYS: usize = 32;

impl<'a> Keys<'a> {
    fn new(n: usize, base: usize) -> Keys<'a> {
        if n <= SCAN_KEYS {
            Keys::Few { base }
        } else {
            Keys::Many(HashSet::with_capacity(n.min(1 << 16)))
        }
    }

    /// `false` when `key` was already there.
    fn insert(&mut self, key: &'a [u8], stack: &mut Vec<&'a [u8]>) -> bool {
        match self {
            Keys::Few { base } => {
                if stack[*base..].contains(&key) {
                    return false;
                }
                stack.push(key);
                true
            }
            Keys::Many(keys) => keys.insert(key),
        }
    }

    /// Takes this map's keys off the stack once the map is done.
    fn release(self, stack: &mut Vec<&'a [u8]>) {
        if let Keys::Few { base } = self {
            stack.truncate(base);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_repeats_only_within_their_own_map() {
        let mut stack = Vec::new();
        // {"a": {"a": .., "b": ..}, "b": .., "a": ..}
        let mut outer = Keys::new(3, stack.len());
        assert!(outer.insert(b"a", &mut stack));
        let mut inner = Keys::new(2, stack.len());
        assert!(
            inner.insert(b"a", &mut stack),
            "the enclosing map's key is not a repeat"
        );
        assert!(inner.insert(b"b", &mut stack));
        assert!(
            !inner.insert(b"b", &mut stack),
            "a repeat within the nested map"
        );
        inner.release(&mut stack);
        assert_eq!(stack, [b"a".as_slice()], "the nested map's keys come off");
        assert!(
            outer.insert(b"b", &mut stack),
            "a nested map's key is not a repeat"
        );
        assert!(
            !outer.insert(b"a", &mut stack),
            "a repeat after a nested map"
        );
        outer.release(&mut stack);
        assert!(stack.is_empty());
    }

    #[test]
    fn large_maps_use_a_set_and_leave_the_stack_alone() {
        let mut stack = vec![b"x".as_slice()];
        let mut keys = Keys::new(SCAN_KEYS + 1, stack.len());
        assert!(keys.insert(b"x", &mut stack));
        assert!(!keys.insert(b"x", &mut stack));
        keys.release(&mut stack);
        assert_eq!(stack, [b"x".as_slice()]);
    }
}
