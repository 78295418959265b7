//! `fastmsgpack.compat`, msgpack-python's API over the engine: a leaf that the engine below
//! (`ser/`, `emit/`, `de/`) never names. It reaches the engine only through what each call
//! hands down: a hook for packing ([`crate::ser::hook`], filled in [`pack`]), the checks of the
//! stream scanner ([`scan`]), and a decoder of its own built from `de/`'s parts ([`decode`]).
//! Its entry points are in the Python face (`crate::api::compat`).
//!
//! The Python module supplies the classes msgpack-python's API names (`Timestamp`, `ExtType`,
//! the exceptions), so that the objects and errors are the ones its users import; those that
//! packing must know are kept in [`classes`].

pub mod classes;
pub mod decode;
mod legacy;
mod options;
pub mod pack;
pub mod scan;
