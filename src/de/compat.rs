//! The decoder behind `fastmsgpack.compat`: msgpack-python's decoding options (`use_list`,
//! `raw`, `strict_map_key`, the object, pairs and list hooks, the `max_*_len` limits and the
//! timestamp modes) applied while the objects are built.
//!
//! It is a decoder of its own, so that the native `unpackb` keeps its fast path untouched. It
//! reads the same grammar ([`token::next`]), and checks every declared length against its limit
//! and against the input before anything is allocated for it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use super::error::{DeError, Kind};
use super::reader::{DeResult, Reader};
use super::token::{self, Token};
use crate::compat::CompatOptions;
use crate::limits::MAX_DECODE_DEPTH;

/// The extension type MessagePack reserves for timestamps.
const TIMESTAMP_TAG: i8 = -1;

/// The object that starts at `offset` in `input`, decoded as `o` says, and where it ends.
pub fn decode_at<'py>(
    py: Python<'py>,
    input: &[u8],
    offset: usize,
    o: &CompatOptions,
) -> DeResult<(Bound<'py, PyAny>, usize)> {
    if offset >= input.len() {
        return Err(DeError::input(Kind::Empty, offset));
    }
    let mut d = Compat {
        py,
        r: Reader::new(input),
        o,
    };
    d.r.pos = offset;
    let value = d.value(0)?;
    Ok((value, d.r.pos))
}

struct Compat<'py, 'a, 'o> {
    py: Python<'py>,
    r: Reader<'a>,
    o: &'o CompatOptions,
}

/// A `ValueError` for a length over its limit, as msgpack-python words it.
#[cold]
fn too_long(len: usize, what: &str, max: usize) -> DeError {
    DeError::python(PyValueError::new_err(format!(
        "{len} exceeds max_{what}_len({max})"
    )))
}

impl<'py, 'a> Compat<'py, 'a, '_> {
    fn value(&mut self, depth: u32) -> DeResult<Bound<'py, PyAny>> {
        let start = self.r.pos;
        self.check_header()?;
        let token = token::next(&mut self.r, "value")?;
        self.build(token, depth, start)
    }

    /// The object for `token`, the item that began at `start`.
    fn build(&mut self, token: Token<'_>, depth: u32, start: usize) -> DeResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match token {
            Token::Nil => py.None().into_bound(py),
            Token::Bool(v) => pyo3::types::PyBool::new(py, v).to_owned().into_any(),
            Token::Int(v) => v.into_bound_py_any(py)?,
            Token::UInt(v) => v.into_bound_py_any(py)?,
            Token::F32(v) => (v as f64).into_bound_py_any(py)?,
            Token::F64(v) => v.into_bound_py_any(py)?,
            Token::Str(bytes) => self.str(bytes)?,
            Token::Bin(bytes) => PyBytes::new(py, bytes).into_any(),
            Token::Ext(tag, data) => self.ext(tag, data)?,
            Token::Array(n) => self.array(n, depth, start)?,
            Token::Map(n) => self.map(n, depth, start)?,
        })
    }

    /// Checks the length that the item at the reader's position declares in its header against
    /// its limit, before the item is read.
    fn check_header(&self) -> DeResult<()> {
        let Some((what, len)) = declared(&self.r.data[self.r.pos..]) else {
            return Ok(());
        };
        let l = &self.o.limits;
        let max = match what {
            "str" => l.str,
            "bin" => l.bin,
            "array" => l.array,
            "map" => l.map,
            _ => l.ext,
        };
        if len > max {
            return Err(too_long(len, what, max));
        }
        Ok(())
    }

    /// A str: text (decoded with `unicode_errors`), or its bytes with `raw`.
    fn str(&self, bytes: &[u8]) -> DeResult<Bound<'py, PyAny>> {
        if self.o.raw {
            return Ok(PyBytes::new(self.py, bytes).into_any());
        }
        match simdutf8::basic::from_utf8(bytes) {
            Ok(text) => Ok(PyString::new(self.py, text).into_any()),
            Err(_) => self.bad_utf8(bytes),
        }
    }

    /// Invalid UTF-8: `bytes.decode` with the `unicode_errors` handler raises the error or
    /// returns the replaced text.
    #[cold]
    fn bad_utf8(&self, bytes: &[u8]) -> DeResult<Bound<'py, PyAny>> {
        let errors = self.o.unicode_errors.bind(self.py);
        Ok(PyBytes::new(self.py, bytes).call_method1("decode", ("utf-8", errors))?)
    }

    fn ext(&self, tag: i8, data: &[u8]) -> DeResult<Bound<'py, PyAny>> {
        if tag == TIMESTAMP_TAG {
            return self.timestamp(data);
        }
        let data = PyBytes::new(self.py, data);
        Ok(self.o.ext_hook.bind(self.py).call1((tag, data))?)
    }

    /// A timestamp extension, as the `timestamp` mode asks: 0 a `Timestamp`, 1 float seconds,
    /// 2 int nanoseconds, 3 an aware UTC datetime.
    fn timestamp(&self, data: &[u8]) -> DeResult<Bound<'py, PyAny>> {
        let (secs, nanos) = match *data {
            [a, b, c, d] => (u32::from_be_bytes([a, b, c, d]) as i64, 0),
            [a, b, c, d, e, f, g, h] => {
                let v = u64::from_be_bytes([a, b, c, d, e, f, g, h]);
                ((v & ((1 << 34) - 1)) as i64, (v >> 34) as u32)
            }
            [a, b, c, d, e, f, g, h, i, j, k, l] => (
                i64::from_be_bytes([e, f, g, h, i, j, k, l]),
                u32::from_be_bytes([a, b, c, d]),
            ),
            _ => return Err(bad_timestamp(data.len())),
        };
        let py = self.py;
        Ok(match self.o.timestamp {
            1 => (secs as f64 + nanos as f64 / 1e9).into_bound_py_any(py)?,
            2 => (secs as i128 * 1_000_000_000 + nanos as i128)
                .into_bound_py_any(py)?
                .into_any(),
            mode => {
                let ts = self.o.timestamp_type.bind(py).call1((secs, nanos))?;
                if mode == 3 {
                    ts.call_method0("to_datetime")?
                } else {
                    ts
                }
            }
        })
    }

    /// Checks the depth, and that `n` items of `min_size` bytes each fit in what is left of the
    /// input, before anything is allocated for them.
    fn container(
        &self,
        n: usize,
        min_size: usize,
        what: &'static str,
        depth: u32,
        start: usize,
    ) -> DeResult<()> {
        if depth >= MAX_DECODE_DEPTH {
            return Err(DeError::input(Kind::TooDeep, start));
        }
        if n.saturating_mul(min_size) > self.r.remaining() {
            return Err(self
                .r
                .truncated(what, (n as u64).saturating_mul(min_size as u64), start));
        }
        Ok(())
    }

    fn array(&mut self, n: usize, depth: u32, start: usize) -> DeResult<Bound<'py, PyAny>> {
        self.container(n, 1, "array", depth, start)?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.value(depth + 1)?);
        }
        let seq = if self.o.use_list {
            PyList::new(self.py, items)?.into_any()
        } else {
            PyTuple::new(self.py, items)?.into_any()
        };
        match &self.o.list_hook {
            Some(hook) => Ok(hook.bind(self.py).call1((seq,))?),
            None => Ok(seq),
        }
    }

    fn map(&mut self, n: usize, depth: u32, start: usize) -> DeResult<Bound<'py, PyAny>> {
        self.container(n, 2, "map", depth, start)?;
        if let Some(hook) = &self.o.object_pairs_hook {
            let mut pairs = Vec::with_capacity(n);
            for _ in 0..n {
                let key = self.key(depth)?;
                let value = self.value(depth + 1)?;
                pairs.push(PyTuple::new(self.py, [key, value])?);
            }
            let pairs = PyList::new(self.py, pairs)?;
            return Ok(hook.bind(self.py).call1((pairs,))?);
        }
        let dict = PyDict::new(self.py);
        for _ in 0..n {
            let key = self.key(depth)?;
            let value = self.value(depth + 1)?;
            dict.set_item(key, value)?;
        }
        match &self.o.object_hook {
            Some(hook) => Ok(hook.bind(self.py).call1((dict,))?),
            None => Ok(dict.into_any()),
        }
    }

    /// A map key: with `strict_map_key` only a str or bytes; str keys are interned.
    fn key(&mut self, depth: u32) -> DeResult<Bound<'py, PyAny>> {
        let start = self.r.pos;
        self.check_header()?;
        let token = token::next(&mut self.r, "map key")?;
        if let Token::Str(bytes) = token {
            if !self.o.raw {
                if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
                    return Ok(PyString::intern(self.py, text).into_any());
                }
            }
        }
        let key = self.build(token, depth + 1, start)?;
        if self.o.strict_map_key
            && !key.is_exact_instance_of::<PyString>()
            && !key.is_exact_instance_of::<PyBytes>()
        {
            return Err(key_not_allowed(&key));
        }
        Ok(key)
    }
}

/// The kind of item that `data` starts with and the length its header declares, for the items
/// that have a limit (`None` for the others, and for a header cut short).
fn declared(data: &[u8]) -> Option<(&'static str, usize)> {
    let be = |n: usize| -> Option<usize> {
        let bytes = data.get(1..1 + n)?;
        Some(bytes.iter().fold(0usize, |acc, &b| acc << 8 | b as usize))
    };
    Some(match *data.first()? {
        m @ 0x80..=0x8f => ("map", (m & 0x0f) as usize),
        m @ 0x90..=0x9f => ("array", (m & 0x0f) as usize),
        m @ 0xa0..=0xbf => ("str", (m & 0x1f) as usize),
        0xc4 => ("bin", be(1)?),
        0xc5 => ("bin", be(2)?),
        0xc6 => ("bin", be(4)?),
        0xc7 => ("ext", be(1)?),
        0xc8 => ("ext", be(2)?),
        0xc9 => ("ext", be(4)?),
        0xd4 => ("ext", 1),
        0xd5 => ("ext", 2),
        0xd6 => ("ext", 4),
        0xd7 => ("ext", 8),
        0xd8 => ("ext", 16),
        0xd9 => ("str", be(1)?),
        0xda => ("str", be(2)?),
        0xdb => ("str", be(4)?),
        0xdc => ("array", be(2)?),
        0xdd => ("array", be(4)?),
        0xde => ("map", be(2)?),
        0xdf => ("map", be(4)?),
        _ => return None,
    })
}

#[cold]
fn bad_timestamp(len: usize) -> DeError {
    DeError::python(PyValueError::new_err(format!(
        "invalid timestamp data (length {len})"
    )))
}

#[cold]
fn key_not_allowed(key: &Bound<'_, PyAny>) -> DeError {
    let name = key
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    DeError::python(PyValueError::new_err(format!(
        "{name} is not allowed for map key when strict_map_key=True"
    )))
}
