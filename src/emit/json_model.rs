//! MessagePack restricted to what JSON can hold, so that a consumer sees what
//! it would have seen through JSON: NaN and infinities as nil, float32 values as the float that
//! their JSON text reads back as, non-str map keys as the strings JSON writes, and no bytes or
//! extension values (the option [`crate::opt::JSON_MODEL`]).

use super::float_text::f32_text;
use super::{Emitter, KeyText};
use crate::error::{Error, Res};
use crate::exc::MsgpackEncodeError;

pub struct JsonModel<E: Emitter> {
    inner: E,
    in_key: bool,
}

#[cold]
fn not_json(what: &str) -> Error {
    crate::error::Error::new(
        crate::error::Kind::UnsupportedType,
        MsgpackEncodeError::new_err(format!(
            "{what} has no JSON form ({})",
            crate::opt::name(crate::opt::JSON_MODEL)
        )),
    )
}

impl<E: Emitter> JsonModel<E> {
    pub fn new(inner: E) -> JsonModel<E> {
        JsonModel {
            inner,
            in_key: false,
        }
    }

    pub fn into_inner(self) -> E {
        self.inner
    }

    /// In key position a number or literal becomes the string JSON writes for it (the text
    /// `KeyText` gives, as for JSON output and for sorting such keys).
    #[inline]
    fn key_text(&mut self, write: impl FnOnce(&mut KeyText) -> Res) -> Res {
        let mut text = KeyText::default();
        write(&mut text)?;
        self.inner.str(&text.0)
    }
}

impl<E: Emitter> Emitter for JsonModel<E> {
    const STRINGIFIES_KEYS: bool = true;

    fn nil(&mut self) -> Res {
        if self.in_key {
            return self.key_text(|k| k.nil());
        }
        self.inner.nil()
    }

    fn bool(&mut self, v: bool) -> Res {
        if self.in_key {
            return self.key_text(|k| k.bool(v));
        }
        self.inner.bool(v)
    }

    fn int(&mut self, v: i64) -> Res {
        if self.in_key {
            return self.key_text(|k| k.int(v));
        }
        self.inner.int(v)
    }

    fn uint(&mut self, v: u64) -> Res {
        if self.in_key {
            return self.key_text(|k| k.uint(v));
        }
        self.inner.uint(v)
    }

    fn float(&mut self, v: f64) -> Res {
        if !v.is_finite() {
            return self.nil();
        }
        if self.in_key {
            return self.key_text(|k| k.float(v));
        }
        self.inner.float(v)
    }

    /// JSON has one number type: a float32 becomes the float64 its shortest text reads as.
    fn float32(&mut self, v: f32) -> Res {
        if !v.is_finite() {
            return self.nil();
        }
        if self.in_key {
            return self.key_text(|k| k.float32(v));
        }
        let text = f32_text(v);
        let wide = std::str::from_utf8(text.as_bytes())
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .unwrap_or(v as f64);
        self.inner.float(wide)
    }

    #[cold]
    fn raw_msgpack(&mut self, _data: &[u8]) -> Res {
        Err(not_json(
            "a Fragment (MessagePack bytes written as they are)",
        ))
    }

    fn str(&mut self, utf8: &[u8]) -> Res {
        self.inner.str(utf8)
    }

    fn bin(&mut self, _data: &[u8]) -> Res {
        Err(not_json("bytes"))
    }

    fn ext(&mut self, _tag: i8, _data: &[u8]) -> Res {
        Err(not_json("Ext"))
    }

    fn timestamp(&mut self, _secs: i64, _nanos: u32) -> Res {
        Err(not_json("a timestamp extension"))
    }

    fn reserve_hint(&mut self, bytes: usize) -> Res {
        self.inner.reserve_hint(bytes)
    }

    fn array_begin(&mut self, len: usize) -> Res {
        if self.in_key {
            return Err(not_json("a tuple dict key"));
        }
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
        self.in_key = true;
        self.inner.map_key(index)
    }

    fn map_value(&mut self) -> Res {
        self.in_key = false;
        self.inner.map_value()
    }

    fn map_end(&mut self) -> Res {
        self.inner.map_end()
    }
}
