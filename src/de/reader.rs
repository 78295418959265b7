//! The reader of the core crate (a bounds-checked cursor over the input), and the result type of
//! the decoders that read through it.

pub use fastmsgpack_core::reader::Reader;

use super::DeError;

pub type DeResult<T> = Result<T, DeError>;
