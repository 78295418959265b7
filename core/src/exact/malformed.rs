//! Why an exact payload is malformed: one variant per refusal, each worded as `unpackb` words
//! it, and turned into the core's [`InputError`] (`bad_extension`) at the extension's offset.

use std::fmt;

use super::{MAX_BIG_INT_BYTES, MAX_DECIMAL_DIGITS, MAX_DECIMAL_EXPONENT};
use crate::error::{InputError, Kind};

/// A date or time field out of its calendar range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Microsecond,
}

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Field::Year => "year",
            Field::Month => "month",
            Field::Day => "day",
            Field::Hour => "hour",
            Field::Minute => "minute",
            Field::Second => "second",
            Field::Microsecond => "microsecond",
        }
    }
}

/// What is wrong with a payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Malformed {
    /// No bytes where the layout needs some.
    Empty,
    /// A fixed-size payload of another size.
    Length { want: usize, got: usize },
    /// Shorter than the fixed fields that start it.
    Short { least: usize, got: usize },
    /// A big integer longer than [`MAX_BIG_INT_BYTES`].
    BigIntTooLong(usize),
    /// A fold other than 0 or 1.
    Fold(u8),
    /// A date or time field out of range, with its value.
    Field(Field, u32),
    /// A time zone suffix of no known form (or of a known form with the wrong length).
    ZoneForm(u8),
    /// An unnamed fixed offset followed by more bytes.
    UnnamedTrailing,
    /// A UTC offset of a day or more, in microseconds.
    Offset(i64),
    /// A fixed offset's name that is not UTF-8.
    NameNotUtf8,
    /// A zone key that cannot name a zone (lossy text of it).
    ZoneKey(Box<str>),
    /// A timedelta's seconds or microseconds past their normalised range.
    DeltaParts,
    /// A timedelta's days outside -999999999..999999999.
    DeltaDays(i32),
    /// Decimal flags with unknown bits set.
    Flags(u8),
    /// More Decimal digits than [`MAX_DECIMAL_DIGITS`].
    Digits(usize),
    /// Decimal digits that are not ASCII 0-9.
    NotDigits,
    /// An infinite Decimal followed by digits.
    InfinityDigits,
    /// A finite Decimal without its exponent or without a digit.
    NoCoefficient,
    /// A Decimal exponent beyond ±[`MAX_DECIMAL_EXPONENT`].
    Exponent(i64),
    /// A sequence or set payload that is not one array: the type found.
    NotArray(&'static str),
    /// A sequence or set payload whose array is cut short (the read grammar's words).
    SeqTruncated(Box<str>),
    /// Bytes after a sequence or set payload's array.
    Trailing(usize),
    /// An item of a sequence or set payload that the read grammar refuses (its words).
    Item(Box<str>),
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformed::Empty => write!(f, "empty payload"),
            Malformed::Length { want, got } => write!(f, "payload must be {want} bytes, not {got}"),
            Malformed::Short { least, got } => {
                write!(f, "payload truncated: {got} bytes, at least {least} needed")
            }
            Malformed::BigIntTooLong(len) => write!(
                f,
                "{len} bytes is more than the limit of {MAX_BIG_INT_BYTES}"
            ),
            Malformed::Fold(b) => write!(f, "fold must be 0 or 1, not {b}"),
            Malformed::Field(field, value) => {
                write!(f, "{} {value} is out of range", field.name())
            }
            Malformed::ZoneForm(kind) => write!(f, "unknown time zone form {kind}"),
            Malformed::UnnamedTrailing => write!(f, "unnamed fixed offset with trailing bytes"),
            Malformed::Offset(micros) => {
                write!(f, "UTC offset of {micros} microseconds is not below a day")
            }
            Malformed::NameNotUtf8 => write!(f, "time zone name is not UTF-8"),
            Malformed::ZoneKey(key) => write!(f, "bad zone key {key:?}"),
            Malformed::DeltaParts => write!(
                f,
                "seconds must be below 86400 and microseconds below 10**6"
            ),
            Malformed::DeltaDays(days) => write!(f, "{days} days is outside timedelta's range"),
            Malformed::Flags(flags) => write!(f, "unknown flags {flags:#04x}"),
            Malformed::Digits(n) => write!(
                f,
                "{n} digits is more than the limit of {MAX_DECIMAL_DIGITS}"
            ),
            Malformed::NotDigits => write!(f, "digits must be ASCII 0-9"),
            Malformed::InfinityDigits => write!(f, "an infinity has no digits"),
            Malformed::NoCoefficient => write!(
                f,
                "a finite Decimal needs an exponent and at least one digit"
            ),
            Malformed::Exponent(e) => write!(
                f,
                "exponent {e} is beyond the limit of ±{MAX_DECIMAL_EXPONENT}"
            ),
            Malformed::NotArray(found) => write!(f, "payload must be an array, not {found}"),
            Malformed::SeqTruncated(why) => write!(f, "payload truncated ({why})"),
            Malformed::Trailing(n) => write!(f, "{n} bytes after the payload's value"),
            Malformed::Item(why) => write!(f, "{why}"),
        }
    }
}

impl Malformed {
    /// The core's input error for this payload of the extension `code` that starts at `offset`:
    /// `invalid {type} extension (type {code}): {why}`.
    #[cold]
    pub fn at(self, code: i8, offset: usize) -> InputError {
        let ty = super::type_name(code);
        let ty = if ty == "unknown" { "registered" } else { ty };
        InputError::new(
            Kind::Exact {
                ty,
                code,
                why: self.to_string(),
            },
            offset,
        )
    }
}
