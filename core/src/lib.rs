//! The part of fastmsgpack that needs no Python: the MessagePack grammar, read (markers to
//! tokens, [`token`]) and written (values and lengths to markers, [`marker`]), the bounds-checked
//! [`reader`], the reference to an out-of-band buffer ([`buffer_ref`]), walking over values without building them
//! ([`skip`]), finding where objects end in a stream that arrives in pieces ([`scan`]), the
//! [`limits`] both directions share, the proleptic Gregorian [`calendar`] of timestamps and
//! datetimes, the text of numbers ([`int_text`], [`float_text`]), and the payloads of
//! `OPT_EXACT`'s extension types ([`exact`]).
//!
//! Everything here is tested with a plain `cargo test`, without an interpreter, and fuzzed at
//! native speed (the `fuzz/` folder).

pub mod buffer_ref;
pub mod calendar;
pub mod error;
pub mod exact;
pub mod float_text;
pub mod frame;
pub mod int_text;
pub mod limits;
pub mod marker;
pub mod number_text;
pub mod reader;
pub mod scan;
pub mod skip;
pub mod snapshot;
pub mod token;
