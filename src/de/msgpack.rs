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
use crate::ffi::{self, Known, Numpy, Obj, Owned};
use crate::opt::{self, Opt};

/// Containers nested deeper than this are refused.
pub const MAX_DEPTH: u32 = 1024;

pub struct Decoder<'a> {
    py: Python<'a>,
    r: Reader<'a>,
    opts: Opt,
    ext_hook: Option<Obj>,
    /// Set with `OPT_DATETIME_AS_TIMESTAMP_EXT`: timestamps become datetimes.
    timestamps: Option<&'static Known>,
    /// Set with `OPT_NUMPY_RAW`: numpy's handles, and the input object when it is `bytes`.
    numpy: Option<(&'static Numpy, Option<Obj>)>,
    keys: Option<&'a mut KeyCache>,
}

/// Turns a null result of a C-API constructor into the pending Python error.
#[inline(always)]
fn made(obj: Option<Owned>) -> DeResult<Owned> {
    obj.ok_or_else(|| DeError::python(ffi::fetch_error()))
}

impl<'a> Decoder<'a> {
    pub fn new(
        py: Python<'a>,
        data: &'a [u8],
        opts: Opt,
        ext_hook: Option<Obj>,
        timestamps: Option<&'static Known>,
        numpy: Option<(&'static Numpy, Option<Obj>)>,
        keys: Option<&'a mut KeyCache>,
    ) -> Decoder<'a> {
        Decoder {
            py,
            r: Reader::new(data),
            opts,
            ext_hook,
            timestamps,
            numpy,
            keys,
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
        if offset >= self.r.data.len() {
            return Err(DeError::input(Kind::Empty, offset));
        }
        self.r.pos = offset;
        let value = self.value(0)?;
        Ok((value, self.r.pos))
    }

    /// One value, whatever its type.
    fn value(&mut self, depth: u32) -> DeResult<Owned> {
        let start = self.r.pos;
        let Some(&marker) = self.r.data.get(start) else {
            return Err(self.r.truncated("value", 1, start));
        };
        self.r.pos += 1;
        // SAFETY: every constructor below is called while attached (`self.py`).
        unsafe {
            match marker {
                0x00..=0x7f => made(ffi::new_i64(marker as i64)),
                0x80..=0x8f => self.map((marker & 0x0f) as usize, depth, start),
                0x90..=0x9f => self.array((marker & 0x0f) as usize, depth, start),
                0xa0..=0xbf => self.str((marker & 0x1f) as usize, start),
                0xc0 => Ok(ffi::new_singleton(ffi::none())),
                0xc1 => Err(DeError::input(Kind::Reserved, start)),
                0xc2 => Ok(ffi::new_bool(false)),
                0xc3 => Ok(ffi::new_bool(true)),
                0xc4 => {
                    let n = self.r.u8(start)? as usize;
                    self.bin(n, start)
                }
                0xc5 => {
                    let n = self.r.u16(start)? as usize;
                    self.bin(n, start)
                }
                0xc6 => {
                    let n = self.r.u32(start)? as usize;
                    self.bin(n, start)
                }
                0xc7 => {
                    let n = self.r.u8(start)? as usize;
                    self.ext(n, start)
                }
                0xc8 => {
                    let n = self.r.u16(start)? as usize;
                    self.ext(n, start)
                }
                0xc9 => {
                    let n = self.r.u32(start)? as usize;
                    self.ext(n, start)
                }
                0xca => {
                    let bits = self.r.u32(start)?;
                    made(ffi::new_f64(f32::from_bits(bits) as f64))
                }
                0xcb => {
                    let bits = self.r.u64(start)?;
                    made(ffi::new_f64(f64::from_bits(bits)))
                }
                0xcc => made(ffi::new_i64(self.r.u8(start)? as i64)),
                0xcd => made(ffi::new_i64(self.r.u16(start)? as i64)),
                0xce => made(ffi::new_i64(self.r.u32(start)? as i64)),
                0xcf => made(ffi::new_u64(self.r.u64(start)?)),
                0xd0 => made(ffi::new_i64(self.r.u8(start)? as i8 as i64)),
                0xd1 => made(ffi::new_i64(self.r.u16(start)? as i16 as i64)),
                0xd2 => made(ffi::new_i64(self.r.u32(start)? as i32 as i64)),
                0xd3 => made(ffi::new_i64(self.r.u64(start)? as i64)),
                0xd4 => self.ext(1, start),
                0xd5 => self.ext(2, start),
                0xd6 => self.ext(4, start),
                0xd7 => self.ext(8, start),
                0xd8 => self.ext(16, start),
                0xd9 => {
                    let n = self.r.u8(start)? as usize;
                    self.str(n, start)
                }
                0xda => {
                    let n = self.r.u16(start)? as usize;
                    self.str(n, start)
                }
                0xdb => {
                    let n = self.r.u32(start)? as usize;
                    self.str(n, start)
                }
                0xdc => {
                    let n = self.r.u16(start)? as usize;
                    self.array(n, depth, start)
                }
                0xdd => {
                    let n = self.r.u32(start)? as usize;
                    self.array(n, depth, start)
                }
                0xde => {
                    let n = self.r.u16(start)? as usize;
                    self.map(n, depth, start)
                }
                0xdf => {
                    let n = self.r.u32(start)? as usize;
                    self.map(n, depth, start)
                }
                0xe0..=0xff => made(ffi::new_i64(marker as i8 as i64)),
            }
        }
    }

    /// nil, false or true, read here in a container's loop: a new reference to a singleton,
    /// without the call to [`Decoder::value`] and its jump table (1000 booleans and nils
    /// decoded in 1.8 us instead of 10.2).
    #[inline(always)]
    fn singleton(&mut self) -> Option<Owned> {
        let obj = match self.r.data.get(self.r.pos)? {
            0xc0 => ffi::none(),
            0xc2 => ffi::false_obj(),
            0xc3 => ffi::true_obj(),
            _ => return None,
        };
        self.r.pos += 1;
        // SAFETY: attached (`self.py`); the singletons live as long as the interpreter.
        Some(unsafe { ffi::new_singleton(obj) })
    }

    /// A string's bytes, checked to be valid UTF-8; `true` when they are all ASCII.
    #[inline(always)]
    fn utf8(&mut self, n: usize, start: usize) -> DeResult<(&'a [u8], bool)> {
        let bytes = self.r.take(n, "str", start)?;
        if bytes.is_ascii() {
            return Ok((bytes, true));
        }
        if simdutf8::basic::from_utf8(bytes).is_err() {
            return Err(DeError::input(Kind::InvalidUtf8, start));
        }
        Ok((bytes, false))
    }

    #[inline(always)]
    fn str(&mut self, n: usize, start: usize) -> DeResult<Owned> {
        let (bytes, ascii) = self.utf8(n, start)?;
        // SAFETY: `bytes` is valid UTF-8 (ASCII when `ascii`) and we are attached.
        made(unsafe {
            if ascii {
                ffi::new_ascii_str(bytes)
            } else {
                ffi::new_non_ascii_str(bytes)
            }
        })
    }

    #[inline]
    fn bin(&mut self, n: usize, start: usize) -> DeResult<Owned> {
        let bytes = self.r.take(n, "bin", start)?;
        // SAFETY: attached.
        made(unsafe { ffi::new_bytes(bytes) })
    }

    #[inline(never)]
    fn ext(&mut self, n: usize, start: usize) -> DeResult<Owned> {
        let tag = self.r.u8(start)? as i8;
        let data = self.r.take(n, "ext", start)?;
        ext::build(self.py, tag, data, self.ext_hook, self.timestamps, start)
    }

    /// Checks a container's depth, and that `n` elements of `min_size` bytes each can fit in
    /// what is left of the input, before anything is allocated for it.
    #[inline(always)]
    fn container(
        &self,
        n: usize,
        min_size: usize,
        what: &'static str,
        depth: u32,
        start: usize,
    ) -> DeResult<()> {
        if depth >= MAX_DEPTH {
            return Err(DeError::input(Kind::TooDeep, start));
        }
        if n.saturating_mul(min_size) > self.r.remaining() {
            return Err(self
                .r
                .truncated(what, (n as u64).saturating_mul(min_size as u64), start));
        }
        Ok(())
    }

    fn array(&mut self, n: usize, depth: u32, start: usize) -> DeResult<Owned> {
        self.container(n, 1, "array", depth, start)?;
        // SAFETY: attached; each slot `i < n` is filled once.
        unsafe {
            let list = made(ffi::new_list(n))?;
            for i in 0..n {
                let item = match self.singleton() {
                    Some(item) => item,
                    None => self.value(depth + 1)?,
                };
                ffi::list_set(&list, i, item);
            }
            Ok(list)
        }
    }

    fn map(&mut self, n: usize, depth: u32, start: usize) -> DeResult<Owned> {
        self.container(n, 2, "map", depth, start)?;
        if self.numpy.is_some()
            && (n == 3 || n == 5)
            && self.r.data.get(self.r.pos..self.r.pos + 4) == Some(b"\xc4\x02nd")
        {
            return self.numpy_map(n, depth, start);
        }
        // SAFETY: attached.
        unsafe {
            let dict = made(ffi::new_dict(n))?;
            let mut atomic = true;
            for _ in 0..n {
                let key_start = self.r.pos;
                let key = self.key(depth + 1)?;
                let value_start = self.r.pos;
                let value = match self.singleton() {
                    Some(value) => value,
                    None => self.value(depth + 1)?,
                };
                atomic &= self.atomic_at(key_start) & self.atomic_at(value_start);
                if !ffi::dict_set(&dict, &key, &value) {
                    return Err(DeError::callback(
                        "map key could not be used as a dict key",
                        key_start,
                        ffi::fetch_error(),
                    ));
                }
            }
            if atomic {
                ffi::untrack_atomic_dict(&dict);
            }
            Ok(dict)
        }
    }

    /// A map in msgpack-numpy's layout (`OPT_NUMPY_RAW`), as an ndarray or numpy scalar.
    #[cold]
    #[inline(never)]
    fn numpy_map(&mut self, n: usize, depth: u32, start: usize) -> DeResult<Owned> {
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
                b"nd" => raw.nd = Some(self.value(depth + 1)?),
                b"type" => raw.dtype = Some(self.value(depth + 1)?),
                b"kind" => raw.kind = Some(self.value(depth + 1)?),
                b"shape" => raw.shape = Some(self.value(depth + 1)?),
                b"data" => {
                    let value_start = self.r.pos;
                    let data = self.bin_slice(value_start)?;
                    raw.data = Some((
                        data.as_ptr() as usize - self.r.data.as_ptr() as usize,
                        data.len(),
                    ));
                }
                _ => return Err(DeError::input(Kind::BadNumpy("unexpected key"), key_start)),
            }
        }
        let Some((np, source)) = self.numpy else {
            return Err(DeError::input(Kind::BadNumpy("numpy is not loaded"), start));
        };
        numpy::build(self.py, np, source, self.r.data, raw, start)
    }

    /// A bin value's bytes (the keys and data of a numpy map).
    fn bin_slice(&mut self, start: usize) -> DeResult<&'a [u8]> {
        let n = match self.r.data.get(start) {
            Some(0xc4) => {
                self.r.pos += 1;
                self.r.u8(start)? as usize
            }
            Some(0xc5) => {
                self.r.pos += 1;
                self.r.u16(start)? as usize
            }
            Some(0xc6) => {
                self.r.pos += 1;
                self.r.u32(start)? as usize
            }
            _ => {
                return Err(DeError::input(
                    Kind::BadNumpy("keys and data must be bin"),
                    start,
                ))
            }
        };
        self.r.take(n, "bin", start)
    }

    /// Whether the value that starts at `pos` decoded to an atomic object (one the garbage
    /// collector does not track): anything but an array, a map or an extension, which
    /// `ext_hook` may turn into any object.
    #[inline(always)]
    fn atomic_at(&self, pos: usize) -> bool {
        !matches!(
            self.r.data.get(pos),
            None | Some(0x80..=0x9f | 0xdc..=0xdf | 0xc7..=0xc9 | 0xd4..=0xd8)
        )
    }

    /// A map key: a `str` (short ones from the cache), or with `OPT_NON_STR_KEYS` any hashable
    /// value, arrays becoming tuples.
    #[inline(always)]
    fn key(&mut self, depth: u32) -> DeResult<Owned> {
        let start = self.r.pos;
        let Some(&marker) = self.r.data.get(start) else {
            return Err(self.r.truncated("map key", 1, start));
        };
        let n = match marker {
            0xa0..=0xbf => {
                self.r.pos += 1;
                (marker & 0x1f) as usize
            }
            0xd9 => {
                self.r.pos += 1;
                self.r.u8(start)? as usize
            }
            _ => return self.non_str_key(marker, depth, start),
        };
        let (bytes, _) = self.utf8(n, start)?;
        // SAFETY: `bytes` is valid UTF-8 and we are attached.
        unsafe {
            match self.keys.as_deref_mut() {
                Some(cache) if bytes.len() <= MAX_KEY_LEN => made(cache.get(bytes)),
                _ => made(ffi::new_str(bytes)),
            }
        }
    }

    #[inline(never)]
    fn non_str_key(&mut self, marker: u8, depth: u32, start: usize) -> DeResult<Owned> {
        let is_str = matches!(marker, 0xda | 0xdb);
        if !is_str && self.opts & opt::NON_STR_KEYS == 0 {
            return Err(DeError::input(
                Kind::KeyNotStr {
                    found: type_of_marker(marker),
                },
                start,
            ));
        }
        self.hashable(depth)
    }

    /// A value that can be a dict key: arrays become tuples, maps are refused.
    fn hashable(&mut self, depth: u32) -> DeResult<Owned> {
        let start = self.r.pos;
        let Some(&marker) = self.r.data.get(start) else {
            return Err(self.r.truncated("map key", 1, start));
        };
        let n = match marker {
            0x90..=0x9f => {
                self.r.pos += 1;
                (marker & 0x0f) as usize
            }
            0xdc => {
                self.r.pos += 1;
                self.r.u16(start)? as usize
            }
            0xdd => {
                self.r.pos += 1;
                self.r.u32(start)? as usize
            }
            0x80..=0x8f | 0xde | 0xdf => return Err(DeError::input(Kind::MapAsKey, start)),
            _ => return self.value(depth),
        };
        self.container(n, 1, "array", depth, start)?;
        // SAFETY: attached; each slot `i < n` is filled once.
        unsafe {
            let tuple = made(ffi::new_tuple(n))?;
            for i in 0..n {
                let item = self.hashable(depth + 1)?;
                ffi::tuple_set(&tuple, i, item);
            }
            Ok(tuple)
        }
    }
}

/// The MessagePack type a marker starts, for error messages.
#[cold]
pub(super) fn type_of_marker(marker: u8) -> &'static str {
    match marker {
        0x00..=0x7f | 0xcc..=0xd3 | 0xe0..=0xff => "int",
        0x80..=0x8f | 0xde | 0xdf => "map",
        0x90..=0x9f | 0xdc | 0xdd => "array",
        0xa0..=0xbf | 0xd9..=0xdb => "str",
        0xc0 => "nil",
        0xc2 | 0xc3 => "bool",
        0xc4..=0xc6 => "bin",
        0xca | 0xcb => "float",
        0xc7..=0xc9 | 0xd4..=0xd8 => "ext",
        _ => "reserved byte 0xc1",
    }
}
