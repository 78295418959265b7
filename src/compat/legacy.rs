//! MessagePack as msgpack-python's Packer writes it with `use_bin_type=False` (the old spec, before
//! str8 and bin: strings and bytes both as raw strings, with no 8-bit length form) and with
//! `use_single_float=True` (every float as float32). Only `fastmsgpack.compat` asks for it.

use crate::emit::Emitter;
use pyo3::exceptions::PyOverflowError;

use crate::error::{too_long, Error, Res};

/// A finite float beyond float32's range: `OverflowError`, as msgpack-python raises.
#[cold]
fn float32_overflow(v: f64) -> Error {
    PyOverflowError::new_err(format!("{v} is too large for a float32 (use_single_float)")).into()
}

pub struct Legacy<E: Emitter> {
    inner: E,
    /// Strings and bytes as raw strings, without the str8 form.
    old_spec: bool,
    /// Floats as float32.
    single_float: bool,
}

impl<E: Emitter> Legacy<E> {
    pub fn new(inner: E, old_spec: bool, single_float: bool) -> Legacy<E> {
        Legacy {
            inner,
            old_spec,
            single_float,
        }
    }

    pub fn into_inner(self) -> E {
        self.inner
    }

    /// A raw string: fixstr, str16 or str32 (never str8, which the old spec lacks).
    fn raw(&mut self, data: &[u8], what: &str) -> Res {
        let len = data.len();
        if len < 32 {
            return self.inner.str(data);
        }
        if let Ok(len) = u16::try_from(len) {
            let [a, b] = len.to_be_bytes();
            self.inner.raw_msgpack(&[0xda, a, b])?;
        } else {
            let len = u32::try_from(len).map_err(|_| too_long(what))?;
            let [a, b, c, d] = len.to_be_bytes();
            self.inner.raw_msgpack(&[0xdb, a, b, c, d])?;
        }
        self.inner.raw_msgpack(data)
    }
}

impl<E: Emitter> Emitter for Legacy<E> {
    fn nil(&mut self) -> Res {
        self.inner.nil()
    }

    fn bool(&mut self, v: bool) -> Res {
        self.inner.bool(v)
    }

    fn int(&mut self, v: i64) -> Res {
        self.inner.int(v)
    }

    fn uint(&mut self, v: u64) -> Res {
        self.inner.uint(v)
    }

    fn float(&mut self, v: f64) -> Res {
        if self.single_float {
            let narrow = v as f32;
            if narrow.is_infinite() && v.is_finite() {
                return Err(float32_overflow(v));
            }
            return self.inner.float32(narrow);
        }
        self.inner.float(v)
    }

    fn float32(&mut self, v: f32) -> Res {
        self.inner.float32(v)
    }

    fn f64_run(&mut self, len: usize, mut value: impl FnMut(usize) -> f64) -> Res {
        if self.single_float {
            for i in 0..len {
                self.array_item(i)?;
                self.float(value(i))?;
            }
            return Ok(());
        }
        self.inner.f64_run(len, value)
    }

    fn f32_run(&mut self, len: usize, value: impl FnMut(usize) -> f32) -> Res {
        self.inner.f32_run(len, value)
    }

    fn int_run(&mut self, len: usize, value: impl FnMut(usize) -> i64) -> Res {
        self.inner.int_run(len, value)
    }

    fn signed_int_run(&mut self, len: usize, value: impl FnMut(usize) -> i64) -> Res {
        self.inner.signed_int_run(len, value)
    }

    fn uint_run(&mut self, len: usize, value: impl FnMut(usize) -> u64) -> Res {
        self.inner.uint_run(len, value)
    }

    fn bool_run(&mut self, len: usize, value: impl FnMut(usize) -> bool) -> Res {
        self.inner.bool_run(len, value)
    }

    fn str(&mut self, utf8: &[u8]) -> Res {
        if self.old_spec {
            return self.raw(utf8, "str");
        }
        self.inner.str(utf8)
    }

    fn bin(&mut self, data: &[u8]) -> Res {
        if self.old_spec {
            return self.raw(data, "bytes");
        }
        self.inner.bin(data)
    }

    fn ext(&mut self, tag: i8, data: &[u8]) -> Res {
        self.inner.ext(tag, data)
    }

    fn timestamp(&mut self, secs: i64, nanos: u32) -> Res {
        self.inner.timestamp(secs, nanos)
    }

    fn ext_begin(&mut self) -> Res<usize> {
        self.inner.ext_begin()
    }

    fn ext_end(&mut self, mark: usize, tag: i8) -> Res {
        self.inner.ext_end(mark, tag)
    }

    fn raw_msgpack(&mut self, data: &[u8]) -> Res {
        self.inner.raw_msgpack(data)
    }

    fn reserve_hint(&mut self, bytes: usize) -> Res {
        self.inner.reserve_hint(bytes)
    }

    fn array_begin(&mut self, len: usize) -> Res {
        self.inner.array_begin(len)
    }

    fn array_item(&mut self, index: usize) -> Res {
        self.inner.array_item(index)
    }

    fn array_end(&mut self) -> Res {
        self.inner.array_end()
    }

    fn map_begin(&mut self, len: usize) -> Res {
        self.inner.map_begin(len)
    }

    fn map_key(&mut self, index: usize) -> Res {
        self.inner.map_key(index)
    }

    fn map_value(&mut self) -> Res {
        self.inner.map_value()
    }

    fn map_end(&mut self) -> Res {
        self.inner.map_end()
    }
}
