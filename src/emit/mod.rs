//! Output formats. The serializer walks Python objects once and tells an [`Emitter`] what it
//! found; each format decides how to write it.

pub mod marker;
mod msgpack;

pub use msgpack::MsgpackEmitter;

use pyo3::PyResult;

/// What the dispatch tree can write. Container headers carry their length up front (MessagePack
/// needs it); the `*_item`/`*_end` hooks mark the boundaries a text format needs for separators
/// and are free for MessagePack.
pub trait Emitter {
    fn nil(&mut self) -> PyResult<()>;
    fn bool(&mut self, v: bool) -> PyResult<()>;
    fn int(&mut self, v: i64) -> PyResult<()>;
    fn uint(&mut self, v: u64) -> PyResult<()>;
    fn float(&mut self, v: f64) -> PyResult<()>;
    /// A string, already valid UTF-8.
    fn str(&mut self, utf8: &[u8]) -> PyResult<()>;
    fn bin(&mut self, data: &[u8]) -> PyResult<()>;
    fn ext(&mut self, tag: i8, data: &[u8]) -> PyResult<()>;

    fn array_begin(&mut self, len: usize) -> PyResult<()>;
    /// Before the array item at `index`.
    #[inline(always)]
    fn array_item(&mut self, _index: usize) -> PyResult<()> {
        Ok(())
    }
    #[inline(always)]
    fn array_end(&mut self) -> PyResult<()> {
        Ok(())
    }

    fn map_begin(&mut self, len: usize) -> PyResult<()>;
    /// Before the key of the map entry at `index`.
    #[inline(always)]
    fn map_key(&mut self, _index: usize) -> PyResult<()> {
        Ok(())
    }
    /// Between a key and its value.
    #[inline(always)]
    fn map_value(&mut self) -> PyResult<()> {
        Ok(())
    }
    #[inline(always)]
    fn map_end(&mut self) -> PyResult<()> {
        Ok(())
    }
}
