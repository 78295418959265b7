//! The payloads `OPT_EXACT` writes and reads (`doc/exact.md` is their specification, readable
//! from any language): each as a plain Rust value, with one function that writes it and one that
//! reads it back, refusing a malformed payload with a typed error ([`Malformed`]). The extension
//! crate only converts between Python objects and these values.
//!
//! The codes come from the far end of the range MessagePack keeps for its own predefined types
//! (-128..-1, of which it has assigned only -1, the timestamp): user and library codes live in
//! 0..127, so a stream can carry both, and a future predefined type is most likely to be given
//! the codes next to -1, the furthest from these.

mod decimal;
mod malformed;
mod numbers;
mod seq;
mod time;

pub use decimal::{Decimal, DecimalKind};
pub use malformed::{Field, Malformed};
pub use numbers::{BigInt, Complex, Uuid};
pub use seq::Seq;
pub use time::{Clock, Date, DateTime, Time, TimeDelta, Zone};

/// `tuple`: one array, its items.
pub const TUPLE: i8 = -128;
/// `set`: one array, its items.
pub const SET: i8 = -127;
/// `frozenset`: one array, its items.
pub const FROZENSET: i8 = -126;
/// `int` outside -2**63..2**64-1: big-endian two's complement ([`BigInt`]).
pub const BIG_INT: i8 = -125;
/// `complex`: real and imaginary part, float64 big-endian each ([`Complex`]).
pub const COMPLEX: i8 = -124;
/// `datetime`: date and time fields, fold, then the time zone ([`DateTime`]).
pub const DATETIME: i8 = -123;
/// `date`: year (u16), month, day ([`Date`]).
pub const DATE: i8 = -122;
/// `time`: time fields, fold, then the time zone ([`Time`]).
pub const TIME: i8 = -121;
/// `timedelta`: days (i32), seconds (u32), microseconds (u32) ([`TimeDelta`]).
pub const TIMEDELTA: i8 = -120;
/// `uuid.UUID`: its 16 bytes, big-endian ([`Uuid`]).
pub const UUID: i8 = -119;
/// `decimal.Decimal`: flags, exponent, coefficient digits ([`Decimal`]).
pub const DECIMAL: i8 = -118;
/// `bytearray`: its bytes.
pub const BYTEARRAY: i8 = -117;
/// A numpy array or scalar: one map in `OPT_NUMPY_RAW`'s layout.
pub const NUMPY: i8 = -116;

/// The lowest and highest exact code (both included); -115..-113 are kept for later types.
pub const FIRST: i8 = TUPLE;
pub const LAST: i8 = NUMPY;

/// The largest big-int payload: 4096 bytes (a magnitude below 2**32767).
pub const MAX_BIG_INT_BYTES: usize = 4096;
/// The most coefficient (or NaN payload) digits of a Decimal.
pub const MAX_DECIMAL_DIGITS: usize = 10_000;
/// The largest magnitude of a Decimal's exponent.
pub const MAX_DECIMAL_EXPONENT: i64 = 999_999_999;
/// The longest ZoneInfo key.
pub const MAX_ZONE_KEY: usize = 255;

/// The Python type an exact code stands for, for error messages.
pub fn type_name(code: i8) -> &'static str {
    match code {
        TUPLE => "tuple",
        SET => "set",
        FROZENSET => "frozenset",
        BIG_INT => "int",
        COMPLEX => "complex",
        DATETIME => "datetime",
        DATE => "date",
        TIME => "time",
        TIMEDELTA => "timedelta",
        UUID => "UUID",
        DECIMAL => "Decimal",
        BYTEARRAY => "bytearray",
        NUMPY => "numpy array",
        _ => "unknown",
    }
}

/// Whether `key` may name a ZoneInfo: 1 to 255 characters of `A-Z a-z 0-9 _ + - . /`, made of
/// non-empty parts separated by `/`, none of them `.` or `..` (so never a path outside the time
/// zone database).
pub fn valid_zone_key(key: &[u8]) -> bool {
    if key.is_empty() || key.len() > MAX_ZONE_KEY {
        return false;
    }
    // One pass: each part between the slashes is checked as it is split off.
    key.split(|&c| c == b'/').all(|part| {
        !part.is_empty()
            && part != b"."
            && part != b".."
            && part
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'+' | b'-' | b'.'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_keys() {
        assert!(valid_zone_key(b"Europe/Paris"));
        assert!(valid_zone_key(b"Etc/GMT+5"));
        assert!(valid_zone_key(b"UTC"));
        assert!(!valid_zone_key(b""));
        assert!(!valid_zone_key(b"/etc/passwd"));
        assert!(!valid_zone_key(b"../x"));
        assert!(!valid_zone_key(b"Europe//Paris"));
        assert!(!valid_zone_key(b"Europe/Paris\0"));
        assert!(!valid_zone_key(&[b'a'; 256]));
    }

    #[test]
    fn codes_are_distinct_and_in_range() {
        let codes = [
            TUPLE, SET, FROZENSET, BIG_INT, COMPLEX, DATETIME, DATE, TIME, TIMEDELTA, UUID,
            DECIMAL, BYTEARRAY, NUMPY,
        ];
        for (i, c) in codes.iter().enumerate() {
            assert!((FIRST..=LAST).contains(c));
            assert_ne!(type_name(*c), "unknown");
            assert!(!codes[i + 1..].contains(c));
        }
    }
}
