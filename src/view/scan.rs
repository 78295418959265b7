//! Where the items of a viewed container start, found on demand with the skip grammar and kept:
//! each item is passed over once, however many times it is read.
//!
//! When the document was checked at creation, the check also noted where each container starts
//! and ends ([`Spans`]), so that passing over a nested container is one look-up instead of a
//! walk. Without it (`validate=False`) each item is walked with `de::skip`, except where a
//! snapshot's index ([`fastmsgpack_core::snapshot::index`]) gave the spans of the large
//! containers and the starts of every so many items of the long arrays ([`ArrayMarks`]): a
//! view of such a snapshot passes over a large container in one look-up, and reaches an item
//! of a long array from the mark before it.
//!
//! Everything here is plain Rust over the input bytes (no Python object, no call into Python),
//! so a table's lock is never held while Python code runs. Every read is bounds-checked by the
//! [`Reader`]; an error leaves the table as it was, and the next access meets it again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, OnceLock};

use super::doc::lock;
use crate::de::reader::Reader;
use crate::de::skip::{self, Record};
use crate::de::token::{self, Token};
use crate::de::{DeError, Kind};
use crate::opt::{self, Opt};

/// A container, as the check at creation found it: offsets and indexes of 32 bits, so that a
/// span takes 12 bytes (the table was a third of the check's memory traffic at 24).
#[derive(Clone, Copy)]
pub struct Span {
    start: u32,
    end: u32,
    /// The index of the first span after this container's own nested ones.
    after: u32,
}

/// The most spans [`Spans::check`] makes room for before it has seen the document.
const SPANS_RESERVED: usize = 1 << 20;

/// The fewest spans [`Spans::check`] makes room for (a small document's table is never
/// grown).
const SPANS_MIN: usize = 64;

/// Every container of a checked document, in the order of their headers.
#[derive(Default)]
pub struct Spans {
    spans: Vec<Span>,
}

impl Record for Spans {
    /// The index of the container's span.
    type Mark = u32;

    #[inline(always)]
    fn open(&mut self, start: usize) -> u32 {
        // Within 32 bits: `check` records spans only for such inputs.
        let index = self.spans.len() as u32;
        self.spans.push(Span {
            start: start as u32,
            end: start as u32,
            after: 0,
        });
        index
    }

    #[inline(always)]
    fn close(&mut self, index: u32, end: usize) {
        let after = self.spans.len() as u32;
        if let Some(span) = self.spans.get_mut(index as usize) {
            span.end = end as u32;
            span.after = after;
        }
    }
}

impl Spans {
    /// The spans of `data`, checked as `Fragment` checks its contents. An input of 4 GiB or
    /// more is checked without them (its containers are passed over item by item).
    pub fn check(data: &[u8]) -> Result<Spans, DeError> {
        if u32::try_from(data.len()).is_err() {
            skip::check_one(data)?;
            return Ok(Spans::default());
        }
        // Room for a container every 16 bytes (up to a million) from the start: growing the
        // table by doubling copied it over and over, a tenth of the check's time.
        let room = (data.len() / 16).clamp(SPANS_MIN, SPANS_RESERVED);
        let mut spans = Spans {
            spans: Vec::with_capacity(room),
        };
        skip::check_one_with(data, &mut spans)?;
        // Room left unused is given back only when it is much: on a small document, shrinking
        // the table moved it once more than making it did.
        if spans.spans.capacity() - spans.spans.len() > SPANS_MIN {
            spans.spans.shrink_to_fit();
        }
        Ok(spans)
    }

    pub fn as_slice(&self) -> &[Span] {
        &self.spans
    }

    /// The spans a snapshot's index gives (`(start, end)`, ordered by start and nested, each
    /// end within 32 bits: checked by the index's parser and the document's maker).
    pub fn from_index(spans: &[(u64, u64)]) -> Spans {
        let spans = spans
            .iter()
            .map(|&(start, end)| Span {
                start: start as u32,
                end: end as u32,
                // The first span after this one's nested ones: the first that starts at or
                // after its end.
                after: spans.partition_point(|s| s.0 < end) as u32,
            })
            .collect();
        Spans { spans }
    }
}

/// The starts of every `stride`th item of a long array, from a snapshot's index.
pub struct ArrayMarks {
    /// Where the array's header starts.
    pub start: u32,
    pub stride: u32,
    /// Where items `stride`, `2 * stride`, ... start.
    pub items: Box<[u32]>,
}

/// The bytes being read, with the spans of their containers when they were checked (every
/// container's), or as a snapshot's index gave them (the large ones'), and the marks of long
/// arrays the index gave.
#[derive(Clone, Copy)]
pub struct Input<'a> {
    pub data: &'a [u8],
    pub spans: &'a [Span],
    /// Whether the document was checked at creation (then `spans` holds every container).
    pub checked: bool,
    /// Ordered by the arrays' starts.
    pub marks: &'a [ArrayMarks],
}

/// No span is known for the item (not checked, or the spans did not match).
const NO_SPAN: usize = usize::MAX;

impl Input<'_> {
    /// Where the item at `pos`, an item of a container at `depth`, ends, and the index of the
    /// first span at or after that end. `span` is the index of the first span at or after `pos`.
    #[inline(always)]
    fn skip(&self, pos: usize, span: usize, depth: u32) -> Result<(usize, usize), DeError> {
        // An int, float, nil, bool or fixext: its length from the marker alone.
        if let Some(&marker) = self.data.get(pos) {
            let fixed = token::FIXED_LEN[marker as usize] as usize;
            if fixed != 0 && fixed <= self.data.len() - pos {
                return Ok((pos + fixed, span));
            }
        }
        if let Some(found) = self.spans.get(span) {
            if found.start as usize == pos {
                return Ok((found.end as usize, found.after as usize));
            }
            if !self
                .data
                .get(pos)
                .is_some_and(|&m| token::is_container_marker(m))
            {
                return Ok((end_of(self.data, pos, depth + 1)?, span));
            }
        }
        let end = end_of(self.data, pos, depth + 1)?;
        if self.checked {
            return Ok((end, NO_SPAN));
        }
        // An index's spans hold only the large containers: this one was not, and the next
        // span is found again past it.
        Ok((end, self.cursor(end)))
    }

    /// The index of the first span at or after `pos`.
    fn cursor(&self, pos: usize) -> usize {
        self.spans.partition_point(|s| (s.start as usize) < pos)
    }

    /// The marks the index gave for the array whose header is at `start`.
    fn marks_of(&self, start: usize) -> Option<&ArrayMarks> {
        let i = self.marks.partition_point(|m| (m.start as usize) < start);
        self.marks.get(i).filter(|m| m.start as usize == start)
    }

    /// Where the item after the one at `at` starts, in a container at `depth`.
    #[inline(always)]
    pub fn next(&self, at: At, depth: u32) -> Result<At, DeError> {
        let (pos, span) = self.skip(at.pos, at.span, depth)?;
        Ok(At { pos, span })
    }

    /// The span of a container whose header is at `pos`, if `span` is it.
    pub fn span_at(&self, pos: usize, span: usize) -> Option<usize> {
        self.spans
            .get(span)
            .is_some_and(|s| s.start as usize == pos)
            .then_some(span)
    }
}

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
    /// The index of the container's span, if known.
    pub span: Option<usize>,
}

impl Header {
    /// The container header at `start`, checked as the decoder checks it before building
    /// anything: within the nesting limit, and no more items than bytes left (each item takes
    /// at least one). `None` when the item there is not a container.
    pub fn read(
        data: &[u8],
        start: usize,
        depth: u32,
        span: Option<usize>,
    ) -> Result<Option<(Header, bool)>, DeError> {
        let mut r = Reader::new(data);
        r.pos = start;
        let (len, per, is_map, what) = match token::next(&mut r, "value")? {
            Token::Array(n) => (n, 1, false, "array"),
            Token::Map(n) => (n, 2, true, "map"),
            _ => return Ok(None),
        };
        r.container(len, per, what, depth, start)?;
        let header = Header {
            start,
            body: r.pos,
            len,
            depth,
            span,
        };
        Ok(Some((header, is_map)))
    }

    /// The index of the first span at or after the first item.
    fn first_span(&self) -> usize {
        self.span.map_or(NO_SPAN, |s| s + 1)
    }

    /// Where the first item starts.
    pub fn first(&self) -> At {
        At {
            pos: self.body,
            span: self.first_span(),
        }
    }
}

/// Where the object at `pos`, nested `depth` deep, ends (checked as `de::skip` checks it).
pub fn end_of(data: &[u8], pos: usize, depth: u32) -> Result<usize, DeError> {
    let mut r = Reader::new(data);
    r.pos = pos;
    skip::skip_value(&mut r, depth)?;
    Ok(r.pos)
}

/// Where an item starts, and the index of the first span at or after it.
#[derive(Clone, Copy)]
pub struct At {
    pub pos: usize,
    pub span: usize,
}

/// An array's items, found as far as they have been asked for. Finding item `i` passes over
/// the items before it, not over item `i` itself.
///
/// When the document was checked, passing over an item is one look-up whatever the item, so
/// only every [`STRIDE`]th item's start is kept and the others are found again from it: an
/// array of a million items keeps 62,500 starts, not a million (their memory was most of the
/// time of reading the last item of a long array). Unchecked, every start is kept, so that no
/// item is ever walked twice. The first item's start is the header's end, and is not kept: an
/// array of a checked document of up to [`STRIDE`] items keeps nothing.
pub struct ArrayScan {
    /// Where items `stride, 2 * stride, ...` start, as far as found (or as the index gave).
    marks: Vec<At>,
    /// Every how many items a start is kept (1, [`STRIDE`], or the index's stride).
    stride: usize,
    /// The furthest item found, and where it starts.
    last: Option<(usize, At)>,
    /// Where the array ends, once found.
    end: Option<usize>,
}

/// Every how many items an array of a checked document keeps a start.
const STRIDE: usize = 16;

impl ArrayScan {
    pub fn new(input: Input<'_>, header: &Header) -> ArrayScan {
        if let Some(given) = input.marks_of(header.start) {
            let marks = given.items.iter().map(|&pos| {
                let pos = pos as usize;
                At {
                    pos,
                    span: input.cursor(pos),
                }
            });
            return ArrayScan {
                marks: marks.collect(),
                stride: given.stride as usize,
                last: None,
                end: None,
            };
        }
        ArrayScan {
            marks: Vec::new(),
            stride: if input.checked { STRIDE } else { 1 },
            last: None,
            end: None,
        }
    }

    /// Where item `j * stride` starts, if found.
    fn mark(&self, header: &Header, j: usize) -> Option<At> {
        match j.checked_sub(1) {
            None => Some(header.first()),
            Some(k) => self.marks.get(k).copied(),
        }
    }

    /// Where item `i` (less than the header's length) starts.
    pub fn item(&mut self, input: Input<'_>, header: &Header, i: usize) -> Result<At, DeError> {
        if i >= header.len {
            return Err(DeError::input(Kind::Empty, header.start));
        }
        // From the furthest item found, or the mark before `i`, whichever is nearer.
        // (Marks are found in order: the nearest one found is at most the last.)
        let j = (i / self.stride).min(self.marks.len());
        let from_mark = self.mark(header, j).map(|at| (j * self.stride, at));
        let from_last = self.last.filter(|&(k, _)| k <= i);
        let (mut k, mut at) = match (from_last, from_mark) {
            (Some(last), Some(mark)) if last.0 >= mark.0 => last,
            (_, Some(mark)) => mark,
            (Some(last), None) => last,
            (None, None) => return Err(DeError::input(Kind::Empty, header.start)),
        };
        while k < i {
            at = input.next(at, header.depth)?;
            k += 1;
            if k % self.stride == 0 && k / self.stride == self.marks.len() + 1 {
                self.marks.push(at);
            }
            if self.last.is_none_or(|(last, _)| k > last) {
                self.last = Some((k, at));
            }
        }
        Ok(at)
    }

    /// Where every item starts.
    pub fn all(&mut self, input: Input<'_>, header: &Header) -> Result<Vec<At>, DeError> {
        if header.len == 0 {
            return Ok(Vec::new());
        }
        self.item(input, header, header.len - 1)?;
        let mut starts = Vec::with_capacity(header.len);
        let mut j = 0;
        while let Some(mark) = self.mark(header, j) {
            let mut at = mark;
            starts.push(at);
            for _ in 1..self.stride {
                if starts.len() == header.len {
                    break;
                }
                at = input.next(at, header.depth)?;
                starts.push(at);
            }
            j += 1;
        }
        Ok(starts)
    }

    /// Where the array ends (every item found).
    pub fn end(&mut self, input: Input<'_>, header: &Header) -> Result<usize, DeError> {
        if let Some(end) = self.end {
            return Ok(end);
        }
        let end = match header.len {
            0 => header.body,
            n => {
                let last = self.item(input, header, n - 1)?;
                input.next(last, header.depth)?.pos
            }
        };
        self.end = Some(end);
        Ok(end)
    }
}

/// One entry of a map: where its key and value start, and a str key's UTF-8 bytes.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The entry's index in the map.
    pub index: usize,
    pub key: usize,
    pub value: At,
    /// The key's bytes (`start..end`) when it is a str; `None` for another type, which only
    /// `OPT_NON_STR_KEYS` allows and which is compared as a Python object.
    pub text: Option<(usize, usize)>,
}

/// Maps of more entries than this get a hash index of their keys once every entry is found.
const INDEX_MIN_ENTRIES: usize = 16;

/// A map's entries, found as far as they have been asked for. Once every entry is found they
/// are handed over ([`MapScan::take_all`]) to a [`MapTable`], read without a lock.
pub struct MapScan {
    entries: Vec<Entry>,
    /// Where the first entry not yet found starts, once known (the last entry's value is only
    /// passed over when the entry after it is asked for, or the map's end).
    next: Option<At>,
    /// Where the last entry's value starts, once the entries are handed over.
    taken: Option<Option<At>>,
}

impl MapScan {
    pub fn new(header: &Header) -> MapScan {
        MapScan {
            entries: Vec::new(),
            next: Some(At {
                pos: header.body,
                span: header.first_span(),
            }),
            taken: None,
        }
    }

    fn complete(&self, header: &Header) -> bool {
        self.taken.is_some() || self.entries.len() >= header.len
    }

    /// Finds one more entry; its key is checked as the decoder checks a key (valid UTF-8, or
    /// another type only with `OPT_NON_STR_KEYS`, never a map).
    fn scan_one(&mut self, input: Input<'_>, header: &Header, opts: Opt) -> Result<Entry, DeError> {
        let at = self.next_key(input, header)?;
        let key = at.pos;
        let mut r = Reader::new(input.data);
        r.pos = key;
        let (text, value) = match token::next_key(&mut r)? {
            Ok(bytes) => {
                if !bytes.is_ascii() && simdutf8::basic::from_utf8(bytes).is_err() {
                    return Err(DeError::input(Kind::InvalidUtf8, key));
                }
                let value = At {
                    pos: r.pos,
                    span: at.span,
                };
                (Some((r.pos - bytes.len(), r.pos)), value)
            }
            Err(other) => {
                if opts & opt::NON_STR_KEYS == 0 {
                    let found = other.type_name();
                    return Err(DeError::input(Kind::KeyNotStr { found }, key));
                }
                if let Token::Map(_) = other {
                    return Err(DeError::input(Kind::MapAsKey, key));
                }
                let (pos, span) = input.skip(key, at.span, header.depth)?;
                (None, At { pos, span })
            }
        };
        let entry = Entry {
            index: self.entries.len(),
            key,
            value,
            text,
        };
        self.entries.push(entry);
        self.next = None;
        Ok(entry)
    }

    /// Where the first entry not yet found starts (past the last entry once all are found).
    fn next_key(&mut self, input: Input<'_>, header: &Header) -> Result<At, DeError> {
        if let Some(next) = self.next {
            return Ok(next);
        }
        let last = match self.taken {
            Some(last) => last,
            None => self.entries.last().map(|e| e.value),
        };
        let next = match last {
            Some(value) => {
                let (pos, span) = input.skip(value.pos, value.span, header.depth)?;
                At { pos, span }
            }
            None => At {
                pos: header.body,
                span: header.first_span(),
            },
        };
        self.next = Some(next);
        Ok(next)
    }

    /// Finds every entry not yet found and hands all of them over (once: the scan keeps only
    /// where the map ends, for [`MapScan::end`]).
    pub fn take_all(
        &mut self,
        input: Input<'_>,
        header: &Header,
        opts: Opt,
    ) -> Result<Box<[Entry]>, DeError> {
        if self.taken.is_some() {
            return Err(DeError::input(Kind::Empty, header.start));
        }
        if input.checked {
            // Checked at creation: the header's count is the map's, so the table is made at
            // its size at once (within the input's size, which bounds the count).
            self.entries
                .reserve_exact(header.len.saturating_sub(self.entries.len()));
        }
        while !self.complete(header) {
            self.scan_one(input, header, opts)?;
        }
        self.taken = Some(self.entries.last().map(|e| e.value));
        Ok(std::mem::take(&mut self.entries).into_boxed_slice())
    }

    /// Where the map ends, once its entries are handed over.
    pub fn end(&mut self, input: Input<'_>, header: &Header) -> Result<usize, DeError> {
        if header.len == 0 {
            return Ok(header.body);
        }
        Ok(self.next_key(input, header)?.pos)
    }

    /// The first entry whose key is the str of UTF-8 bytes `key`, reading no further into the
    /// map than that entry; `None` when the map holds none (every entry then found).
    pub fn find_str(
        &mut self,
        input: Input<'_>,
        header: &Header,
        opts: Opt,
        key: &[u8],
    ) -> Result<Option<Entry>, DeError> {
        let data = input.data;
        let matches = |e: &Entry| e.text.is_some_and(|(s, t)| data.get(s..t) == Some(key));
        if let Some(found) = self.entries.iter().find(|e| matches(e)) {
            return Ok(Some(*found));
        }
        while !self.complete(header) {
            let entry = self.scan_one(input, header, opts)?;
            if matches(&entry) {
                return Ok(Some(entry));
            }
        }
        Ok(None)
    }
}

/// A map's table: its entries as found so far, under a lock, then, once all are found, the
/// whole table, read without the lock (a walk reads each map's entries once, in one pass; a
/// map read again is read from `done`).
pub struct MapTable {
    scan: Mutex<MapScan>,
    /// Null until every entry is found, then the first of the `len` entries of a boxed slice
    /// given up to it: stored once, under the lock, and freed on drop. (A pointer rather than a
    /// `OnceLock`, whose setting took a tenth of the time of reading a small map.)
    done: AtomicPtr<Entry>,
    /// The entries the header declares.
    len: usize,
    /// The first entry of each str key, made at the first look-up in a large map read whole.
    // Boxed so that the table of every map, most of which never make it, stays small.
    #[allow(clippy::box_collection)]
    index: OnceLock<Box<HashMap<Box<[u8]>, usize>>>,
}

impl MapTable {
    pub fn new(header: &Header) -> MapTable {
        MapTable {
            scan: Mutex::new(MapScan::new(header)),
            done: AtomicPtr::new(std::ptr::null_mut()),
            len: header.len,
            index: OnceLock::new(),
        }
    }

    /// Every entry, if all are found.
    #[inline]
    pub fn done(&self) -> Option<&[Entry]> {
        let first = self.done.load(Ordering::Acquire);
        if first.is_null() {
            return None;
        }
        // SAFETY: a non-null `done` was stored (with `Release`, read with `Acquire`) from a boxed
        // slice of exactly `len` entries given up by `finish`, which is freed only when `self`
        // is dropped and never written to.
        Some(unsafe { std::slice::from_raw_parts(first, self.len) })
    }

    /// Every entry.
    #[inline]
    pub fn all(&self, input: Input<'_>, header: &Header, opts: Opt) -> Result<&[Entry], DeError> {
        match self.done() {
            Some(done) => Ok(done),
            None => self.finish(input, header, opts),
        }
    }

    /// Finds the entries not yet found, and keeps the whole table in `done`.
    fn finish(&self, input: Input<'_>, header: &Header, opts: Opt) -> Result<&[Entry], DeError> {
        let mut scan = lock(&self.scan);
        if let Some(done) = self.done() {
            return Ok(done);
        }
        let entries = scan.take_all(input, header, opts)?;
        if entries.len() != self.len {
            return Err(DeError::input(Kind::Empty, header.start));
        }
        // Stored while the lock is held: no other thread stores it, before or after.
        self.done
            .store(Box::into_raw(entries).cast::<Entry>(), Ordering::Release);
        self.done()
            .ok_or_else(|| DeError::input(Kind::Empty, header.start))
    }

    /// The first entry whose key is the str of UTF-8 bytes `key`, reading no further into the
    /// map than that entry.
    pub fn find_str(
        &self,
        input: Input<'_>,
        header: &Header,
        opts: Opt,
        key: &[u8],
    ) -> Result<Option<Entry>, DeError> {
        let done = match self.done() {
            Some(done) => done,
            None => {
                let mut scan = lock(&self.scan);
                match self.done() {
                    Some(done) => done,
                    None => {
                        if let Some(found) = scan.find_str(input, header, opts, key)? {
                            return Ok(Some(found));
                        }
                        // Not there: every entry was found on the way, so the table is handed
                        // over.
                        drop(scan);
                        return self.finish(input, header, opts).map(|_| None);
                    }
                }
            }
        };
        let text = |e: &Entry| e.text.and_then(|(s, t)| input.data.get(s..t));
        if done.len() <= INDEX_MIN_ENTRIES {
            return Ok(done.iter().find(|e| text(e) == Some(key)).copied());
        }
        let index = self.index.get_or_init(|| {
            let mut index = HashMap::with_capacity(done.len());
            for (i, e) in done.iter().enumerate() {
                if let Some(text) = text(e) {
                    index.entry(Box::from(text)).or_insert(i);
                }
            }
            Box::new(index)
        });
        Ok(index.get(key).and_then(|&i| done.get(i)).copied())
    }

    /// Where the map ends (every entry found).
    pub fn end(&self, input: Input<'_>, header: &Header, opts: Opt) -> Result<usize, DeError> {
        self.all(input, header, opts)?;
        lock(&self.scan).end(input, header)
    }
}

impl Drop for MapTable {
    fn drop(&mut self) {
        let first = *self.done.get_mut();
        if !first.is_null() {
            let entries = std::ptr::slice_from_raw_parts_mut(first, self.len);
            // SAFETY: `first` and `len` are the boxed slice `finish` gave up, freed only here.
            drop(unsafe { Box::from_raw(entries) });
        }
    }
}
