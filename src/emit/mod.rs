//! Output formats. The serializer walks Python objects once and tells an [`Emitter`] what it
//! found; each format decides how to write it.

pub mod marker;
mod msgpack;

pub use msgpack::MsgpackEmitter;

use crate::error::Res;

/// What the dispatch tree can write. Container headers carry their length up front (MessagePack
/// needs it); the `*_item`/`*_end` hooks mark the boundaries a text format needs for separators
/// and are free for MessagePack.
pub trait Emitter {
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

    /// Advice that about `bytes` more bytes of output follow (a large array or binary).
    #[inline(always)]
    fn reserve_hint(&mut self, _bytes: usize) -> Res {
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

    fn map_begin(&mut self, len: usize) -> Res;
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
