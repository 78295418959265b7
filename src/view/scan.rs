//! Where the items of a viewed container start, found on demand with the skip grammar and kept:
//! each item is passed over once, however many times it is read.
//!
//! Everything here is plain Rust over the input bytes (no Python object, no call into Python),
//! so a table's lock is never held while Python code runs. Every read is bounds-checked by the
//! [`Reader`]; an error leaves the table as it was, and the next access meets it again.

use std::collections::HashMap;

use crate::de::reader::Reader;
use crate::de::skip;
use crate::de::token::{self, Token};
use crate::de::{DeError, Kind};
use crate::limits::MAX_DECODE_DEPTH;
use crate::opt::{self, Opt};

/// A map or array header in the input.
#[derive(Clone, Copy)]
pub struct Header {
    /// Offset of the header's first byte.
    pub start: usize,
    /// Offset of the first item.
    pub body: usize,
    /// Items (an array) or entries (a map) the header declares.
    pub len: usize,
    /// The container's nesting (0 for the outermost object).
    pub depth: u32,
}

impl Header {
    /// The container header at `start`, checked as the decoder checks it before building
    /// anything: within the nesting limit, and no more items than bytes left (each item takes
    /// at least one). `None` when the item there is not a container.
    pub fn read(data: &[u8], start: usize, depth: u32) -> Result<Option<(Header, bool)>, DeError> {
        let mut r = Reader::new(data);
        r.pos = start;
        let (len, per, is_map, what) = match token::next(&mut r, "value")? {
            Token::Array(n) => (n, 1, false, "array"),
            Token::Map(n) => (n, 2, true, "map"),
            _ => return Ok(None),
        };
        if depth >= MAX_DECODE_DEPTH {
            return Err(DeError::input(Kind::TooDeep, start));
        }
        if len.saturating_mul(per) > r.remaining() {
            let declared = (len as u64).saturating_mul(per as u64);
            return Err(r.truncated(what, declared, start));
        }
        let header = Header {
            start,
            body: r.pos,
            len,
            depth,
        };
        Ok(Some((header, is_map)))
    }
}

/// Passes over the item at `pos`, an item of a container at `depth`; returns where it ends.
fn skip_item(data: &[u8], pos: usize, depth: u32) -> Result<usize, DeError> {
    end_of(data, pos, depth + 1)
}

/// Where the object at `pos`, nested `depth` deep, ends (checked as `de::skip` checks it).
pub fn end_of(data: &[u8], pos: usize, depth: u32) -> Result<usize, DeError> {
    let mut r = Reader::new(data);
    r.pos = pos;
    skip::skip_value(&mut r, depth)?;
    Ok(r.pos)
}

/// An array's items, found as far as they have been asked for. Finding item `i` passes over
/// the items before it, not over item `i` itself.
pub struct ArrayScan {
    starts: Vec<usize>,
    /// Where the array ends, once found.
    end: Option<usize>,
}

impl ArrayScan {
    pub fn new(_header: &Header) -> ArrayScan {
        ArrayScan {
            starts: Vec::new(),
            end: None,
        }
    }

    /// Where item `i` (less than the header's length) starts.
    pub fn item(&mut self, data: &[u8], header: &Header, i: usize) -> Result<usize, DeError> {
        if i >= header.len {
            return Err(DeError::input(Kind::Empty, header.start));
        }
        if self.starts.is_empty() {
            self.starts.push(header.body);
        }
        while self.starts.len() <= i {
            let last = self.starts.last().copied().unwrap_or(header.body);
            let next = skip_item(data, last, header.depth)?;
            self.starts.push(next);
        }
        Ok(self.starts.get(i).copied().unwrap_or(header.body))
    }

    /// Where the array ends (every item found).
    pub fn end(&mut self, data: &[u8], header: &Header) -> Result<usize, DeError> {
        if let Some(end) = self.end {
            return Ok(end);
        }
        let end = match header.len {
            0 => header.body,
            n => {
                let last = self.item(data, header, n - 1)?;
                skip_item(data, last, header.depth)?
            }
        };
        self.end = Some(end);
        Ok(end)
    }
}

/// One entry of a map: where its key and value start, and a str key's UTF-8 bytes.
#[derive(Clone, Copy)]
pub struct Entry {
    pub key: usize,
    pub value: usize,
    /// The key's bytes (`start..end`) when it is a str; `None` for another type, which only
    /// `OPT_NON_STR_KEYS` allows and which is compared as a Python object.
    pub text: Option<(usize, usize)>,
}

/// Maps of more entries than this get a hash index once every entry is found.
const INDEX_MIN_ENTRIES: usize = 16;

/// A map's entries, found as far as they have been asked for.
pub struct MapScan {
    entries: Vec<Entry>,
    /// Where the first entry not yet found starts, once known (the last entry's value is only
    /// passed over when the entry after it is asked for).
    next: Option<usize>,
    /// A str key's first entry, made once the whole map is found and it is large.
    index: Option<HashMap<Box<[u8]>, usize>>,
}

impl MapScan {
    pub fn new(header: &Header) -> MapScan {
        MapScan {
            entries: Vec::new(),
            next: Some(header.body),
            index: None,
        }
    }

    fn complete(&self, header: &Header) -> bool {
        self.entries.len() >= header.len
    }

    /// Finds one more entry; its key is checked as the decoder checks a key (valid UTF-8, or
    /// another type only with `OPT_NON_STR_KEYS`, never a map).
    fn scan_one(&mut self, data: &[u8], header: &Header, opts: Opt) -> Result<Entry, DeError> {
        let key = self.next_key(data, header)?;
        let mut r = Reader::new(data);
        r.pos = key;
        let text = match token::next_key(&mut r)? {
            Ok(bytes) => {
                if !bytes.is_ascii() && simdutf8::basic::from_utf8(bytes).is_err() {
                    return Err(DeError::input(Kind::InvalidUtf8, key));
                }
                Some((r.pos - bytes.len(), r.pos))
            }
            Err(other) => {
                if opts & opt::NON_STR_KEYS == 0 {
                    let found = other.type_name();
                    return Err(DeError::input(Kind::KeyNotStr { found }, key));
                }
                if let Token::Map(_) = other {
                    return Err(DeError::input(Kind::MapAsKey, key));
                }
                r.pos = skip_item(data, key, header.depth)?;
                None
            }
        };
        let value = r.pos;
        let entry = Entry { key, value, text };
        self.entries.push(entry);
        self.next = None;
        Ok(entry)
    }

    /// Where the first entry not yet found starts.
    fn next_key(&mut self, data: &[u8], header: &Header) -> Result<usize, DeError> {
        if let Some(next) = self.next {
            return Ok(next);
        }
        let next = match self.entries.last() {
            Some(last) => skip_item(data, last.value, header.depth)?,
            None => header.body,
        };
        self.next = Some(next);
        Ok(next)
    }

    /// Finds every entry.
    pub fn all(&mut self, data: &[u8], header: &Header, opts: Opt) -> Result<&[Entry], DeError> {
        while !self.complete(header) {
            self.scan_one(data, header, opts)?;
        }
        Ok(&self.entries)
    }

    /// Where the map ends (every entry found).
    pub fn end(&mut self, data: &[u8], header: &Header, opts: Opt) -> Result<usize, DeError> {
        self.all(data, header, opts)?;
        self.next_key(data, header)
    }

    /// The first entry whose key is the str of UTF-8 bytes `key`, reading no further into the
    /// map than that entry.
    pub fn find_str(
        &mut self,
        data: &[u8],
        header: &Header,
        opts: Opt,
        key: &[u8],
    ) -> Result<Option<Entry>, DeError> {
        if let Some(index) = &self.index {
            return Ok(index.get(key).map(|&i| self.entries[i]));
        }
        let matches = |e: &Entry| e.text.is_some_and(|(s, t)| data.get(s..t) == Some(key));
        if let Some(found) = self.entries.iter().find(|e| matches(e)) {
            return Ok(Some(*found));
        }
        while !self.complete(header) {
            let entry = self.scan_one(data, header, opts)?;
            if matches(&entry) {
                return Ok(Some(entry));
            }
        }
        if self.entries.len() > INDEX_MIN_ENTRIES {
            let mut index = HashMap::with_capacity(self.entries.len());
            for (i, e) in self.entries.iter().enumerate() {
                if let Some(text) = e.text.and_then(|(s, t)| data.get(s..t)) {
                    index.entry(Box::from(text)).or_insert(i);
                }
            }
            self.index = Some(index);
        }
        Ok(None)
    }
}
