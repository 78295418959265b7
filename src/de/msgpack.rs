//! MessagePack bytes to Python objects, in one pass over the input.
//!
//! No length header is trusted for allocation: a container is only allocated once its declared
//! element count is known to fit in the remaining input (each element takes at least one byte),
//! and strings, binaries and extensions are checked against the input before they are read.

use pyo3::Python;

use super::error::{DeError, Kind};
use super::ext;
use super::keycache::{KeyCache, MAX_KEY_LEN};
use super::numpy;
use super::reader::{DeResult, Reader};
use super::token::{self, Singleton, Token};
use crate::ffi::{self, Known, Numpy, Owned, Ref};
use crate::opt::{self, Opt};
use std::rc::Rc;

use super::views::Views;
use super::walk::{self, made, Begin, Policy};
use fastmsgpack_core::buffer_ref as oob;

/// `VIEWS` (`OPT_BIN_MEMORYVIEW`): bins are read by `views`, as memoryviews. A parameter, not a
/// field: a run-time test in the value dispatch cost every value of every other decode 0.6 ns.
pub struct Decoder<'a, const VIEWS: bool = false> {
    pub(super) py: Python<'a>,
    pub(super) r: Reader<'a>,
    opts: Opt,
    ext_hook: Option<Ref<'a>>,
    /// Set with `OPT_DATETIME_AS_TIMESTAMP_EXT`: timestamps become datetimes.
    timestamps: Option<&'static Known>,
    /// Set with `OPT_NUMPY_RAW`: numpy's handles, and the input object when it is `bytes`.
    pub(super) numpy: Option<(&'static Numpy, Option<Ref<'a>>)>,
    keys: Option<&'a mut KeyCache>,
    /// With `OPT_BIN_MEMORYVIEW` or `buffers=`: views and out-of-band buffers.
    views: Option<Rc<Views>>,
    /// Set with `OPT_EXACT` or a registry: the extensions read as the types they stand for.
    pub(super) exact: Option<Rc<super::exact::Exact>>,
}

impl<'a, const VIEWS: bool> Decoder<'a, VIEWS> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        py: Python<'a>,
        data: &'a [u8],
        opts: Opt,
        ext_hook: Option<Ref<'a>>,
        timestamps: Option<&'static Known>,
        numpy: Option<(&'static Numpy, Option<Ref<'a>>)>,
        keys: Option<&'a mut KeyCache>,
        views: Option<Rc<Views>>,
    ) -> Decoder<'a, VIEWS> {
        Decoder {
            py,
            r: Reader::new(data),
            opts,
            ext_hook,
            timestamps,
            numpy,
            keys,
            views,
            exact: None,
        }
    }

    /// Decodes the single object that must make up the whole input.
    pub fn decode_document(&mut self) -> DeResult<Owned> {
        let (value, end) = self.decode_at(0)?;
        if end != self.r.data.len() {
            let extra = self.r.data.len() - end;
            return Err(DeError::input(Kind::Trailing { extra }, end));
        }
        Ok(value)
    }

    /// Decodes the object that starts at `offset` (errors give offsets in the whole input), and
    /// returns it with where it ends.
    pub fn decode_at(&mut self, offset: usize) -> DeResult<(Owned, usize)> {
        self.decode_nested(offset, 0)
    }

    /// Decodes the objects that follow one another from the start of the input (an
    /// `Unpacker`'s run of messages), handing each to `take` with where it ends, until `take`
    /// says stop, the input ends, or an object is not whole or cannot be decoded (it is left
    /// for the caller to decode again, for its error). One loop around the walk of a value, as
    /// an array's items are read: a call of [`Decoder::decode_at`] per object cost 56
    /// instructions an object of a stream of three-field maps (callgrind, CPython 3.11).
    #[inline(always)]
    pub fn decode_run(&mut self, mut take: impl FnMut(Owned, usize) -> bool) {
        self.r.pos = 0;
        while self.r.pos < self.r.data.len() {
            let Ok(value) = self.value(0) else {
                return;
            };
            if !take(value, self.r.pos) {
                return;
            }
        }
    }

    /// [`Decoder::decode_at`] for an object nested `depth` containers deep (a typed decode's
    /// `Any` field), so that the nesting limit counts the containers around it.
    pub fn decode_nested(&mut self, offset: usize, depth: u32) -> DeResult<(Owned, usize)> {
        if offset >= self.r.data.len() {
            return Err(DeError::input(Kind::Empty, offset));
        }
        self.r.pos = offset;
        let value = self.value(depth)?;
        Ok((value, self.r.pos))
    }

    /// The map key that starts at `offset`, as a map nested `depth` deep would make it.
    pub fn key_at(&mut self, offset: usize, depth: u32) -> DeResult<Owned> {
        self.r.pos = offset;
        self.key(depth)
    }

    /// One value, whatever its type, read by the one walk.
    #[inline(always)]
    pub(super) fn value(&mut self, depth: u32) -> DeResult<Owned> {
        walk::value(self, depth)
    }

    /// The object for `token`, the item that began at `start` (a container's items follow it
    /// in the input).
    #[inline(always)]
    fn build(&mut self, token: Token<'a>, depth: u32, start: usize) -> DeResult<Owned> {
        walk::build(self, token, depth, start)
    }

    /// nil, false or true, read here in a container's loop: a new reference to a singleton,
    /// without the call to [`Decoder::value`] and its jump table (1000 booleans and nils
    /// decoded in 1.8 us instead of 10.2).
    #[inline(always)]
    fn singleton(&mut self) -> Option<Owned> {
        let obj = match token::singleton(&mut self.r)? {
            Singleton::Nil => ffi::none(),
            Singleton::False => ffi::false_obj(),
            Singleton::True => ffi::true_obj(),
        };
        // SAFETY: attached (`self.py`); the singletons live as long as the interpreter.
        Some(unsafe { ffi::new_singleton(obj) })
    }

    /// A string's bytes, checked to be valid UTF-8; `true` when they are all ASCII.
    #[inline(always)]
    fn utf8(bytes: &[u8], start: usize) -> DeResult<bool> {
        if bytes.is_ascii() {
            return Ok(true);
        }
        if simdutf8::basic::from_utf8(bytes).is_err() {
            return Err(DeError::input(Kind::InvalidUtf8, start));
        }
        Ok(false)
    }

    #[inline(always)]
    fn str(&mut self, bytes: &[u8], start: usize) -> DeResult<Owned> {
        let ascii = Self::utf8(bytes, start)?;
        // SAFETY: `bytes` is valid UTF-8 (ASCII when `ascii`) and we are attached.
        made(unsafe {
            if ascii {
                ffi::new_ascii_str(bytes)
            } else {
                ffi::new_non_ascii_str(bytes)
            }
        })
    }

    #[inline(never)]
    fn ext(&mut self, tag: i8, data: &'a [u8], depth: u32, start: usize) -> DeResult<Owned> {
        if let Some(exact) = self.exact.clone() {
            // Their payloads hold values (a tuple's items, a registered type's value), read
            // without a container between two of them: on a stack with room for it.
            // A tuple's or set's items are two levels below it (the array between is read
            // in the payload): two depths in eight check, so that such a chain checks too.
            let check = crate::stack::checks(depth | 1);
            let value =
                crate::stack::deeper(check, || self.exact_ext(&exact, tag, data, depth, start))?;
            if let Some(value) = value {
                return Ok(value);
            }
        }
        if tag == oob::TAG {
            let (flat, _) = self.take_buffer(data, start)?;
            return match &self.views {
                Some(views) => views.bin_from_buffer(self.py, flat),
                None => Ok(flat),
            };
        }
        ext::build(self.py, tag, data, self.ext_hook, self.timestamps, start)
    }

    /// The out-of-band buffer that the reference at `start` names, as a flat memoryview, and
    /// its length.
    #[cold]
    fn take_buffer(&mut self, payload: &[u8], start: usize) -> DeResult<(Owned, usize)> {
        match &self.views {
            Some(views) => views.take(self.py, payload, start),
            None => Err(DeError::input(
                Kind::BadBuffer(
                    "the data refers to an out-of-band buffer, but no buffers were given \
                     (unpackb(..., buffers=...))"
                        .to_owned(),
                ),
                start,
            )),
        }
    }

    /// The out-of-band buffer that the reference at `start` names, the object given itself (for
    /// `np.frombuffer`), and its length.
    #[cold]
    fn take_export(&mut self, payload: &[u8], start: usize) -> DeResult<(Owned, usize)> {
        match &self.views {
            Some(views) => views.take_export(self.py, payload, start),
            None => self.take_buffer(payload, start),
        }
    }

    /// A bin as a `memoryview` (`OPT_BIN_MEMORYVIEW`).
    #[cold]
    #[inline(never)]
    fn bin_view(&mut self, bytes: &[u8]) -> DeResult<Owned> {
        let offset = bytes.as_ptr() as usize - self.r.data.as_ptr() as usize;
        match &self.views {
            Some(views) => views.bin(self.py, bytes, offset),
            // SAFETY: attached.
            None => made(unsafe { ffi::new_bytes(bytes) }),
        }
    }

    /// Checks a container's depth, and that `n` elements of `min_size` bytes each can fit in
    /// what is left of the input, before anything is allocated for it.
    #[inline(always)]
    pub(super) fn container(
        &self,
        n: usize,
        min_size: usize,
        what: &'static str,
        depth: u32,
        start: usize,
    ) -> DeResult<()> {
        Ok(self.r.container(n, min_size, what, depth, start)?)
    }

    /// A map in msgpack-numpy's layout (`OPT_NUMPY_RAW`), as an ndarray or numpy scalar.
    #[cold]
    #[inline(never)]
    pub(super) fn numpy_map(&mut self, n: usize, depth: u32, start: usize) -> DeResult<Owned> {
        let mut raw = numpy::RawArray {
            nd: None,
            dtype: None,
            kind: None,
            shape: None,
            data: None,
        };
        for _ in 0..n {
            let key_start = self.r.pos;
            let key = self.bin_slice(key_start)?;
            match key {
                b"nd" => raw.nd = Some(self.plain_value(depth + 1)?),
                b"type" => raw.dtype = Some(self.plain_value(depth + 1)?),
                b"kind" => raw.kind = Some(self.plain_value(depth + 1)?),
                b"shape" => raw.shape = Some(self.plain_value(depth + 1)?),
                b"data" => {
                    let value_start = self.r.pos;
                    raw.data = Some(match token::next(&mut self.r, "value")? {
                        Token::Bin(data) => numpy::Data::Input(
                            data.as_ptr() as usize - self.r.data.as_ptr() as usize,
                            data.len(),
                        ),
                        Token::Ext(oob::TAG, payload) => {
                            let (buffer, len) = self.take_export(payload, value_start)?;
                            numpy::Data::Buffer(buffer, len)
                        }
                        _ => {
                            return Err(DeError::input(
                                Kind::BadNumpy("keys and data must be bin"),
                                value_start,
                            ))
                        }
                    });
                }
                _ => return Err(DeError::input(Kind::BadNumpy("unexpected key"), key_start)),
            }
        }
        let Some((np, source)) = self.numpy else {
            return Err(DeError::input(Kind::BadNumpy("numpy is not loaded"), start));
        };
        numpy::build(self.py, np, source, self.r.data, raw, start)
    }

    /// A value of a numpy map, its bins as `bytes` also with `OPT_BIN_MEMORYVIEW`.
    fn plain_value(&mut self, depth: u32) -> DeResult<Owned> {
        let start = self.r.pos;
        match token::next(&mut self.r, "value")? {
            // SAFETY: attached.
            Token::Bin(bytes) => made(unsafe { ffi::new_bytes(bytes) }),
            token => self.build(token, depth, start),
        }
    }

    /// A bin value's bytes (the keys and data of a numpy map).
    fn bin_slice(&mut self, start: usize) -> DeResult<&'a [u8]> {
        match token::next(&mut self.r, "value")? {
            Token::Bin(bytes) => Ok(bytes),
            _ => Err(DeError::input(
                Kind::BadNumpy("keys and data must be bin"),
                start,
            )),
        }
    }

    /// A map key: a `str` (short ones from the cache), or with `OPT_NON_STR_KEYS` any hashable
    /// value, arrays becoming tuples.
    #[inline(always)]
    fn key(&mut self, depth: u32) -> DeResult<Owned> {
        let start = self.r.pos;
        let bytes = match token::next_key(&mut self.r)? {
            Ok(bytes) => bytes,
            Err(token) => return self.non_str_key(token, depth, start),
        };
        if bytes.len() > MAX_KEY_LEN {
            return self.str(bytes, start);
        }
        // SAFETY: attached; `bytes` is at most `MAX_KEY_LEN` long, and is checked to be valid
        // UTF-8 before a string is made of it (by the cache when it is not a cached key's).
        unsafe {
            match self.keys.as_deref_mut() {
                Some(cache) => {
                    made(cache.get_checking(bytes, || Self::utf8(bytes, start).map(|_| ()))?)
                }
                None => {
                    Self::utf8(bytes, start)?;
                    made(ffi::new_str(bytes))
                }
            }
        }
    }

    #[inline(never)]
    fn non_str_key(&mut self, token: Token<'a>, depth: u32, start: usize) -> DeResult<Owned> {
        if self.opts & (opt::NON_STR_KEYS | opt::EXACT) == 0 {
            let found = token.type_name();
            return Err(DeError::input(Kind::KeyNotStr { found }, start));
        }
        self.hashable(token, depth, start)
    }

    /// A value that can be a dict key, from its token: arrays become tuples, maps are refused.
    fn hashable(&mut self, token: Token<'a>, depth: u32, start: usize) -> DeResult<Owned> {
        let n = match token {
            Token::Array(n) => n,
            Token::Map(_) => return Err(DeError::input(Kind::MapAsKey, start)),
            _ => return self.build(token, depth, start),
        };
        self.container(n, 1, "array", depth, start)?;
        // SAFETY: attached; each slot `i < n` is filled once.
        unsafe {
            let tuple = made(ffi::new_tuple(n))?;
            for i in 0..n {
                let item_start = self.r.pos;
                let item = token::next(&mut self.r, "value")?;
                let item = crate::stack::grown(|| self.hashable(item, depth + 1, item_start))?;
                ffi::tuple_set(&tuple, i, item);
            }
            Ok(tuple)
        }
    }
}

/// The decoder's side of the walk: objects made with the C API, maps as dicts (untracked by the
/// collector when they hold only atomic values), short str keys from the key cache.
impl<'a, const VIEWS: bool> Policy<'a> for Decoder<'a, VIEWS> {
    type Value = Owned;
    type Error = DeError;
    type Array = Owned;
    /// The dict, and whether every key and value so far is atomic.
    type Map = (Owned, bool);
    type Key = Owned;

    #[inline(always)]
    fn reader(&mut self) -> &mut Reader<'a> {
        &mut self.r
    }

    #[inline(always)]
    fn reader_ref(&self) -> &Reader<'a> {
        &self.r
    }

    #[inline(always)]
    fn scalar(&mut self, token: Token<'a>, depth: u32, start: usize) -> DeResult<Owned> {
        // SAFETY: every constructor below is called while attached (`self.py`).
        unsafe {
            match token {
                Token::Int(v) => made(ffi::new_i64(v)),
                Token::Str(bytes) => self.str(bytes, start),
                Token::F64(v) => made(ffi::new_f64(v)),
                Token::Nil => Ok(ffi::new_singleton(ffi::none())),
                Token::Bool(v) => Ok(ffi::new_bool(v)),
                Token::UInt(v) => made(ffi::new_u64(v)),
                Token::F32(v) => made(ffi::new_f64(v as f64)),
                Token::Bin(bytes) if VIEWS => self.bin_view(bytes),
                Token::Bin(bytes) => made(ffi::new_bytes(bytes)),
                Token::Ext(tag, data) => self.ext(tag, data, depth, start),
                // The walk hands containers to the container hooks, never here.
                Token::Array(_) | Token::Map(_) => walk::build(self, token, depth, start),
            }
        }
    }

    #[inline(always)]
    fn quick_item(&mut self) -> Option<DeResult<Owned>> {
        self.singleton().map(Ok)
    }

    #[inline(always)]
    fn quick_value(&mut self) -> Option<DeResult<Owned>> {
        self.singleton().map(Ok)
    }

    #[inline(always)]
    fn array_begin(&mut self, n: usize, _depth: u32, _start: usize) -> DeResult<Owned> {
        // SAFETY: attached.
        made(unsafe { ffi::new_list_in_order(n) })
    }

    #[inline(always)]
    fn array_item(&mut self, list: &mut Owned, i: usize, item: Owned) -> DeResult<()> {
        // SAFETY: attached; the walk stores the items of the new list in order, `i` from 0 to
        // `n - 1`, each once.
        unsafe { ffi::list_push(list, i, item) };
        Ok(())
    }

    #[inline(always)]
    fn array_end(&mut self, list: Owned, _start: usize) -> DeResult<Owned> {
        Ok(list)
    }

    #[inline(always)]
    fn map_begin(
        &mut self,
        n: usize,
        depth: u32,
        start: usize,
    ) -> DeResult<Begin<(Owned, bool), Owned>> {
        if self.numpy.is_some()
            && (n == 3 || n == 5)
            && token::starts_with_bin8(self.r.data, self.r.pos, b"nd")
        {
            return self.numpy_map(n, depth, start).map(Begin::Done);
        }
        // SAFETY: attached.
        Ok(Begin::Walk((made(unsafe { ffi::new_dict(n) })?, true)))
    }

    #[inline(always)]
    fn key(&mut self, _map: &mut (Owned, bool), _i: usize, depth: u32) -> DeResult<Owned> {
        Decoder::key(self, depth + 1)
    }

    #[inline(always)]
    fn map_entry(
        &mut self,
        (dict, atomic): &mut (Owned, bool),
        key: Owned,
        value: Owned,
        key_start: usize,
        value_start: usize,
    ) -> DeResult<()> {
        *atomic &= token::is_atomic_at(self.r.data, key_start)
            & token::is_atomic_at(self.r.data, value_start);
        // SAFETY: attached; `dict` is the new dict this map is read into.
        if unsafe { !ffi::dict_set(dict, &key, &value) } {
            return Err(DeError::callback(
                "map key could not be used as a dict key",
                key_start,
                ffi::fetch_error(),
            ));
        }
        Ok(())
    }

    #[inline(always)]
    fn map_end(&mut self, (dict, atomic): (Owned, bool), _start: usize) -> DeResult<Owned> {
        if atomic {
            // SAFETY: attached; every key and value of `dict` is atomic.
            unsafe { ffi::untrack_atomic_dict(&dict) };
        }
        Ok(dict)
    }
}
