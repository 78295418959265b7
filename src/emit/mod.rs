//! Output formats. The serializer walks Python objects once and tells an [`Emitter`] what it
//! found; each format decides how to write it.

mod json;
mod json_model;
mod json_str;
/// The write grammar lives in the core crate, beside the read grammar it must match.
pub use fastmsgpack_core::marker;
mod msgpack;
#[cfg(feature = "walk-probe")]
mod walk;

use fastmsgpack_core::{float_text, int_text};

pub use json::{JsonEmitter, KeyText};
pub use json_model::JsonModel;
pub use msgpack::MsgpackEmitter;
#[cfg(feature = "walk-probe")]
pub use walk::WalkEmitter;

use crate::error::{Error, Res};
use crate::exc::MsgpackEncodeError;

#[cold]
fn fragment_refused(why: &str) -> Error {
    Error::new(
        crate::error::Kind::InvalidValue,
        MsgpackEncodeError::new_err(why.to_owned()),
    )
}

/// [`Emitter::float_pair`] as its array and items.
#[inline(always)]
fn float_pair_items<E: Emitter + ?Sized>(e: &mut E, a: f64, b: f64) -> Res {
    e.array_begin(2)?;
    e.array_item(0)?;
    e.float(a)?;
    e.array_item(1)?;
    e.float(b)?;
    e.array_end()
}

/// What the dispatch tree can write. Container headers carry their length up front (MessagePack
/// needs it); the `*_item`/`*_end` hooks mark the boundaries a text format needs for separators
/// and are free for MessagePack.
pub trait Emitter {
    /// Whether map keys come out as strings (JSON): then sorting keys sorts by that text.
    const STRINGIFIES_KEYS: bool = false;
    /// Whether this writes JSON text, to which the JSON-only options (`OPT_STRICT_INTEGER`)
    /// apply; false compiles their checks out of the other formats.
    const JSON_TEXT: bool = false;

    fn nil(&mut self) -> Res;
    fn bool(&mut self, v: bool) -> Res;
    fn int(&mut self, v: i64) -> Res;
    fn uint(&mut self, v: u64) -> Res;
    fn float(&mut self, v: f64) -> Res;
    /// A single-precision float (numpy float16 and float32 values).
    fn float32(&mut self, v: f32) -> Res;
    /// A string, already valid UTF-8.
    fn str(&mut self, utf8: &[u8]) -> Res;
    fn bin(&mut self, data: &[u8]) -> Res;
    fn ext(&mut self, tag: i8, data: &[u8]) -> Res;
    /// A point in time: seconds since the Unix epoch and nanoseconds (0..10**9).
    fn timestamp(&mut self, secs: i64, nanos: u32) -> Res;

    /// One complete MessagePack object (a `Fragment`'s checked contents), written as it is.
    #[cold]
    fn raw_msgpack(&mut self, _data: &[u8]) -> Res {
        Err(fragment_refused(
            "a Fragment (MessagePack bytes) cannot be written here",
        ))
    }

    /// JSON text (a `json.Fragment`'s contents), written as it is.
    #[cold]
    fn raw_json(&mut self, _text: &[u8]) -> Res {
        Err(fragment_refused(
            "a json.Fragment (JSON text) cannot be written as MessagePack",
        ))
    }

    /// Starts an extension value whose payload the next calls write (one MessagePack value of
    /// `OPT_EXACT` or of a registered type); returns the mark [`Emitter::ext_end`] takes.
    #[cold]
    fn ext_begin(&mut self) -> Res<usize> {
        Err(fragment_refused(
            "exact and registered types are written as MessagePack extensions, not here",
        ))
    }

    /// Ends the extension begun at `mark`, of type `tag`.
    #[cold]
    fn ext_end(&mut self, _mark: usize, _tag: i8) -> Res {
        Err(fragment_refused(
            "exact and registered types are written as MessagePack extensions, not here",
        ))
    }

    /// Advice that about `bytes` more bytes of output follow (a large array or binary).
    #[inline(always)]
    fn reserve_hint(&mut self, _bytes: usize) -> Res {
        Ok(())
    }

    /// Array items `0..len` that are all numbers or booleans, each produced by `value(i)`: an
    /// emitter may write such a run without per-value bookkeeping. The caller has written the
    /// array header.
    #[inline(always)]
    fn f64_run(&mut self, len: usize, mut value: impl FnMut(usize) -> f64) -> Res {
        for i in 0..len {
            self.array_item(i)?;
            self.float(value(i))?;
        }
        Ok(())
    }

    /// A whole array of two floats (a point, a range); the caller has counted it toward the
    /// nesting limit. An emitter may write it in one step.
    #[inline(always)]
    fn float_pair(&mut self, a: f64, b: f64) -> Res {
        float_pair_items(self, a, b)
    }

    #[inline(always)]
    fn f32_run(&mut self, len: usize, mut value: impl FnMut(usize) -> f32) -> Res {
        for i in 0..len {
            self.array_item(i)?;
            self.float32(value(i))?;
        }
        Ok(())
    }

    #[inline(always)]
    fn int_run(&mut self, len: usize, mut value: impl FnMut(usize) -> i64) -> Res {
        for i in 0..len {
            self.array_item(i)?;
            self.int(value(i))?;
        }
        Ok(())
    }

    /// [`Emitter::int_run`] for values whose signs and sizes are expected to vary (numpy's
    /// int16 and int32 samples), where the emitter may trade a few instructions a value for not
    /// branching on it.
    #[inline(always)]
    fn signed_int_run(&mut self, len: usize, value: impl FnMut(usize) -> i64) -> Res {
        self.int_run(len, value)
    }

    #[inline(always)]
    fn uint_run(&mut self, len: usize, mut value: impl FnMut(usize) -> u64) -> Res {
        for i in 0..len {
            self.array_item(i)?;
            self.uint(value(i))?;
        }
        Ok(())
    }

    #[inline(always)]
    fn bool_run(&mut self, len: usize, mut value: impl FnMut(usize) -> bool) -> Res {
        for i in 0..len {
            self.array_item(i)?;
            self.bool(value(i))?;
        }
        Ok(())
    }

    fn array_begin(&mut self, len: usize) -> Res;
    /// Before the array item at `index`.
    #[inline(always)]
    fn array_item(&mut self, _index: usize) -> Res {
        Ok(())
    }
    #[inline(always)]
    fn array_end(&mut self) -> Res {
        Ok(())
    }

    /// An array with no items.
    #[inline(always)]
    fn array_empty(&mut self) -> Res {
        self.array_begin(0)?;
        self.array_end()
    }

    fn map_begin(&mut self, len: usize) -> Res;
    /// A map with no entries.
    #[inline(always)]
    fn map_empty(&mut self) -> Res {
        self.map_begin(0)?;
        self.map_end()
    }
    /// Before the key of the map entry at `index`.
    #[inline(always)]
    fn map_key(&mut self, _index: usize) -> Res {
        Ok(())
    }
    /// Between a key and its value.
    #[inline(always)]
    fn map_value(&mut self) -> Res {
        Ok(())
    }
    #[inline(always)]
    fn map_end(&mut self) -> Res {
        Ok(())
    }
}
