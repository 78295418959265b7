//! The decoder behind `fastmsgpack.compat`: msgpack-python's decoding options (`use_list`,
//! `raw`, `strict_map_key`, the object, pairs and list hooks, the `max_*_len` limits and the
//! timestamp modes) applied while the objects are built.
//!
//! It is a decoder of its own, so that the native `unpackb` keeps its fast path untouched, built
//! from the same parts: the one grammar ([`token::next`]), the same constructors, the key cache
//! and the collection pause for large inputs. Every declared length is checked against its limit
//! ([`header::check_token`]) and against the input before anything is allocated for it.

mod ext;
pub mod header;
pub mod options;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::de::error::{DeError, Kind};
use crate::de::keycache::{KeyCache, MAX_KEY_LEN};
use crate::de::reader::{DeResult, Reader};
use crate::de::token::{self, Token};
use crate::de::walk::{self, made, Begin, Policy};
use crate::de::Session;
use crate::ffi::{self, Owned, Ref};
use options::CompatOptions;

/// The object that starts at `offset` in `input`, decoded as `o` says, and where it ends.
pub fn decode_at<'py>(
    py: Python<'py>,
    input: &[u8],
    offset: usize,
    o: &CompatOptions,
) -> DeResult<(Bound<'py, PyAny>, usize)> {
    decode_in_stream(py, input, offset, o).map_err(|(err, _)| err)
}

/// [`decode_at`], with an error the end of the item it was found in: msgpack-python's stream
/// reader goes on from that item's last byte (a malformed byte's end is one past it).
pub fn decode_in_stream<'py>(
    py: Python<'py>,
    input: &[u8],
    offset: usize,
    o: &CompatOptions,
) -> Result<(Bound<'py, PyAny>, usize), (DeError, usize)> {
    if offset >= input.len() {
        return Err((DeError::input(Kind::Empty, offset), offset));
    }
    let mut session = Session::begin(py, input.len());
    let mut d = Compat {
        py,
        r: Reader::new(input),
        o,
        keys: session.keys(),
    };
    d.r.pos = offset;
    let value = match d.value(0) {
        Ok(value) => value,
        Err(err) => {
            let end = match err.input_kind() {
                Some(Kind::Reserved) => err.offset().map_or(d.r.pos, |at| at + 1),
                _ => d.r.pos,
            };
            return Err((err, end));
        }
    };
    // SAFETY: the decoder hands over a strong reference.
    let value = unsafe { Bound::from_owned_ptr(py, value.into_raw()) };
    Ok((value, d.r.pos))
}

struct Compat<'py, 'a, 'o> {
    py: Python<'py>,
    r: Reader<'a>,
    o: &'o CompatOptions,
    keys: Option<&'o mut KeyCache>,
}

/// An object built through PyO3 (on the rare paths), as an owned reference.
fn owned(obj: Bound<'_, PyAny>) -> Owned {
    // SAFETY: `obj` is live; the new reference is ours, `obj`'s own is released on drop.
    unsafe { Owned::from_borrowed(obj.as_ptr()) }
}

/// `hook(arg)`, what it raises passed on as it is.
#[inline]
fn call(hook: &Py<PyAny>, arg: Owned) -> DeResult<Owned> {
    // SAFETY: attached (the decoder runs attached); both objects are live.
    unsafe { ffi::call1(hook.as_ptr(), arg.as_ptr()) }.map_err(DeError::python)
}

impl<'a> Compat<'_, 'a, '_> {
    /// One value, whatever its type, read by the one walk.
    #[inline(always)]
    fn value(&mut self, depth: u32) -> DeResult<Owned> {
        walk::value(self, depth)
    }

    /// A str: text (decoded with `unicode_errors`), or its bytes with `raw`.
    fn str(&mut self, bytes: &[u8]) -> DeResult<Owned> {
        // SAFETY: attached; the text constructors get valid UTF-8 (ASCII for the first).
        unsafe {
            if self.o.raw {
                return made(ffi::new_bytes(bytes));
            }
            if bytes.is_ascii() {
                return made(ffi::new_ascii_str(bytes));
            }
            if simdutf8::basic::from_utf8(bytes).is_ok() {
                return made(ffi::new_non_ascii_str(bytes));
            }
        }
        self.bad_utf8(bytes)
    }

    /// Invalid UTF-8: `bytes.decode` with the `unicode_errors` handler raises the error or
    /// returns the replaced text.
    #[cold]
    fn bad_utf8(&self, bytes: &[u8]) -> DeResult<Owned> {
        let errors = self.o.unicode_errors.bind(self.py);
        let data = pyo3::types::PyBytes::new(self.py, bytes);
        Ok(owned(data.call_method1("decode", ("utf-8", errors))?))
    }

    /// A key from [`Compat::key`], checked once its value is decoded too (msgpack-python reports
    /// an error in the value first): with `strict_map_key`, only a str or bytes.
    #[inline(always)]
    fn checked(&self, (key, from_other): (Owned, bool)) -> DeResult<Owned> {
        if from_other && self.o.strict_map_key {
            strict_key(self.py, Ref::of(&key))?;
        }
        Ok(key)
    }

    /// A map key, and whether it was built from an item other than a str or bin (for
    /// [`Compat::checked`]). Short str keys come from the key cache, so repeated keys share one
    /// interned string.
    fn key(&mut self, depth: u32) -> DeResult<(Owned, bool)> {
        let start = self.r.pos;
        let token = token::next(&mut self.r, "map key")?;
        if self.o.limits.any {
            header::check_token(&token, &self.o.limits)?;
        }
        match token {
            Token::Str(bytes) if !self.o.raw && bytes.len() <= MAX_KEY_LEN => {
                if let (Some(cache), Ok(_)) =
                    (self.keys.as_deref_mut(), simdutf8::basic::from_utf8(bytes))
                {
                    // SAFETY: `bytes` is valid UTF-8 of at most MAX_KEY_LEN bytes; attached.
                    return Ok((made(unsafe { cache.get(bytes) })?, false));
                }
                Ok((self.str(bytes)?, false))
            }
            Token::Str(_) | Token::Bin(_) => {
                Ok((walk::build(self, token, depth + 1, start)?, false))
            }
            _ => Ok((walk::build(self, token, depth + 1, start)?, true)),
        }
    }
}

/// A map as compat builds it: a dict, or for `object_pairs_hook` a list of `(key, value)` tuples
/// and how many are in it.
enum CompatMap {
    Dict(Owned),
    Pairs(Owned, usize),
}

/// Compat's side of the walk: msgpack-python's options applied as each object is made, every
/// declared length checked against its `max_*_len` limit as its token is read.
impl<'a> Policy<'a> for Compat<'_, 'a, '_> {
    type Value = Owned;
    type Error = DeError;
    /// A list, or a tuple without `use_list`.
    type Array = Owned;
    type Map = CompatMap;
    /// A key, and whether it was built from an item other than a str or bin.
    type Key = (Owned, bool);

    #[inline(always)]
    fn reader(&mut self) -> &mut Reader<'a> {
        &mut self.r
    }

    #[inline(always)]
    fn reader_ref(&self) -> &Reader<'a> {
        &self.r
    }

    #[inline(always)]
    fn token(&self, token: &Token<'a>) -> DeResult<()> {
        if self.o.limits.any {
            header::check_token(token, &self.o.limits)?;
        }
        Ok(())
    }

    #[inline(always)]
    fn scalar(&mut self, token: Token<'a>, depth: u32, start: usize) -> DeResult<Owned> {
        // SAFETY: every constructor below is called while attached (`self.py`).
        unsafe {
            match token {
                Token::Int(v) => made(ffi::new_i64(v)),
                Token::Str(bytes) => self.str(bytes),
                Token::F64(v) => made(ffi::new_f64(v)),
                Token::Nil => Ok(ffi::new_singleton(ffi::none())),
                Token::Bool(v) => Ok(ffi::new_bool(v)),
                Token::UInt(v) => made(ffi::new_u64(v)),
                Token::F32(v) => made(ffi::new_f64(v as f64)),
                Token::Bin(bytes) => made(ffi::new_bytes(bytes)),
                Token::Ext(tag, data) => Ok(owned(ext::build(self.py, self.o, tag, data)?)),
                // The walk hands containers to the container hooks, never here.
                Token::Array(_) | Token::Map(_) => walk::build(self, token, depth, start),
            }
        }
    }

    /// A float64 is read here, without the dispatch on its token: arrays of coordinates and
    /// measurements are mostly floats (the `canada` document, pairs of them as tuples with
    /// `use_list=False`, decoded in 3.2 ms instead of 4.0 when it was written).
    #[inline(always)]
    fn quick_item(&mut self) -> Option<DeResult<Owned>> {
        let pos = self.r.pos;
        if let Some(&[0xcb, b0, b1, b2, b3, b4, b5, b6, b7]) = self.r.data.get(pos..pos + 9) {
            self.r.pos = pos + 9;
            let v = f64::from_be_bytes([b0, b1, b2, b3, b4, b5, b6, b7]);
            // SAFETY: attached (`self.py`).
            return Some(made(unsafe { ffi::new_f64(v) }));
        }
        None
    }

    #[inline(always)]
    fn array_begin(&mut self, n: usize, _depth: u32, _start: usize) -> DeResult<Owned> {
        // SAFETY: attached.
        made(unsafe {
            if self.o.use_list {
                ffi::new_list(n)
            } else {
                ffi::new_tuple(n)
            }
        })
    }

    #[inline(always)]
    fn array_item(&mut self, seq: &mut Owned, i: usize, item: Owned) -> DeResult<()> {
        // SAFETY: attached; `seq` is the list (with `use_list`) or tuple of `n` slots that
        // `array_begin` made, and the walk fills each slot `i < n` once.
        unsafe {
            if self.o.use_list {
                ffi::list_set(seq, i, item);
            } else {
                ffi::tuple_set(seq, i, item);
            }
        }
        Ok(())
    }

    /// Through `list_hook` when there is one.
    #[inline(always)]
    fn array_end(&mut self, seq: Owned, _start: usize) -> DeResult<Owned> {
        match &self.o.list_hook {
            Some(hook) => call(hook, seq),
            None => Ok(seq),
        }
    }

    #[inline(always)]
    fn map_begin(
        &mut self,
        n: usize,
        _depth: u32,
        _start: usize,
    ) -> DeResult<Begin<CompatMap, Owned>> {
        // SAFETY: attached.
        Ok(Begin::Walk(unsafe {
            if self.o.object_pairs_hook.is_some() {
                CompatMap::Pairs(made(ffi::new_list(n))?, 0)
            } else {
                CompatMap::Dict(made(ffi::new_dict(n))?)
            }
        }))
    }

    #[inline(always)]
    fn key(&mut self, _map: &mut CompatMap, _i: usize, depth: u32) -> DeResult<(Owned, bool)> {
        Compat::key(self, depth)
    }

    /// The key is checked once its value is decoded too (msgpack-python reports an error in
    /// the value first).
    #[inline(always)]
    fn map_entry(
        &mut self,
        map: &mut CompatMap,
        key: (Owned, bool),
        value: Owned,
        _key_start: usize,
        _value_start: usize,
    ) -> DeResult<()> {
        let key = self.checked(key)?;
        // SAFETY: attached; a list of pairs is the one `map_begin` made with room for every
        // entry, and `filled` counts the slots filled so far.
        unsafe {
            match map {
                CompatMap::Dict(dict) => {
                    if !ffi::dict_set(dict, &key, &value) {
                        return Err(DeError::python(ffi::fetch_error()));
                    }
                }
                CompatMap::Pairs(list, filled) => {
                    let pair = made(ffi::new_tuple(2))?;
                    ffi::tuple_set(&pair, 0, key);
                    ffi::tuple_set(&pair, 1, value);
                    ffi::list_set(list, *filled, pair);
                    *filled += 1;
                }
            }
        }
        Ok(())
    }

    /// Through `object_hook`, or the pairs through `object_pairs_hook`.
    #[inline(always)]
    fn map_end(&mut self, map: CompatMap, _start: usize) -> DeResult<Owned> {
        match map {
            CompatMap::Dict(dict) => match &self.o.object_hook {
                Some(hook) => call(hook, dict),
                None => Ok(dict),
            },
            CompatMap::Pairs(list, _) => match &self.o.object_pairs_hook {
                Some(hook) => call(hook, list),
                None => Ok(list),
            },
        }
    }
}

/// With `strict_map_key`, a key built from something other than a str or bin item: refused
/// unless it is a str or bytes all the same (what an `ext_hook` returned), as msgpack-python
/// checks the key's type.
#[cold]
fn strict_key(py: Python<'_>, key: Ref<'_>) -> DeResult<()> {
    // SAFETY: `key` is live (`Ref`'s invariant) and the thread attached (`py`).
    let key = unsafe { Bound::from_borrowed_ptr(py, key.as_ptr()) };
    if key.is_exact_instance_of::<pyo3::types::PyString>()
        || key.is_exact_instance_of::<pyo3::types::PyBytes>()
    {
        return Ok(());
    }
    let name = key
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    Err(DeError::python(PyValueError::new_err(format!(
        "{name} is not allowed for map key when strict_map_key=True"
    ))))
}
