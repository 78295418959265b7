//! Errors in the input: what is wrong ([`Kind`]) and the byte offset where it was found.

use std::fmt;

/// What went wrong in the input.
#[derive(Debug)]
pub enum Kind {
    /// The input ends before the value that starts at the offset is complete.
    Truncated {
        what: &'static str,
        declared: u64,
        available: usize,
    },
    Empty,
    Reserved,
    InvalidUtf8,
    TooDeep,
    Trailing {
        extra: usize,
    },
    KeyNotStr {
        found: &'static str,
    },
    MapAsKey,
    BadTimestamp(&'static str),
    BadNumpy(&'static str),
    /// A malformed payload of an `OPT_EXACT` or registered extension.
    Exact {
        ty: &'static str,
        code: i8,
        why: String,
    },
    /// An out-of-band reference that the given buffers do not satisfy.
    BadBuffer(String),
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Truncated {
                what,
                declared,
                available,
            } => write!(
                f,
                "truncated input: {what} needs {declared} more bytes, only {available} left"
            ),
            Kind::Empty => write!(f, "empty input"),
            Kind::Reserved => write!(f, "reserved marker byte 0xc1"),
            Kind::InvalidUtf8 => write!(f, "str is not valid UTF-8"),
            Kind::TooDeep => write!(
                f,
                "containers nested deeper than {} levels",
                crate::limits::MAX_DECODE_DEPTH
            ),
            Kind::Trailing { extra } => write!(f, "{extra} trailing bytes after the object"),
            Kind::KeyNotStr { found } => {
                write!(f, "map key must be str, not {found} (see OPT_NON_STR_KEYS)")
            }
            Kind::MapAsKey => write!(f, "a map cannot be a map key (unhashable)"),
            Kind::BadTimestamp(why) => write!(f, "invalid timestamp extension: {why}"),
            Kind::BadNumpy(why) => write!(f, "invalid numpy array map: {why}"),
            Kind::Exact { ty, code, why } => {
                write!(f, "invalid {ty} extension (type {code}): {why}")
            }
            Kind::BadBuffer(why) => write!(f, "out-of-band buffer: {why}"),
        }
    }
}

impl Kind {
    /// The machine-readable name of the kind, the `kind` attribute of the Python error.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Truncated { .. } => "truncated",
            Kind::Empty => "empty",
            Kind::Reserved => "reserved",
            Kind::InvalidUtf8 => "invalid_utf8",
            Kind::TooDeep => "too_deep",
            Kind::Trailing { .. } => "trailing",
            Kind::KeyNotStr { .. } => "key_not_str",
            Kind::MapAsKey => "map_as_key",
            Kind::BadTimestamp(_) => "bad_timestamp",
            Kind::BadNumpy(_) => "bad_numpy",
            Kind::Exact { .. } => "bad_extension",
            Kind::BadBuffer(_) => "bad_buffer",
        }
    }
}

/// Malformed input: its [`Kind`] and the byte offset of the item at fault. One pointer wide, so
/// a result comes back in registers; the details are boxed, on the (cold) error path.
#[derive(Debug)]
pub struct InputError(Box<(Kind, usize)>);

impl InputError {
    #[cold]
    pub fn new(kind: Kind, offset: usize) -> InputError {
        InputError(Box::new((kind, offset)))
    }

    pub fn kind(&self) -> &Kind {
        &self.0 .0
    }

    pub fn offset(&self) -> usize {
        self.0 .1
    }

    /// Whether the input ended before the item was complete (a stream may still bring the
    /// rest).
    pub fn is_truncated(&self) -> bool {
        matches!(self.kind(), Kind::Truncated { .. })
    }

    /// The kind and the offset, taken out.
    #[cold]
    pub fn into_parts(self) -> (Kind, usize) {
        *self.0
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte offset {}", self.kind(), self.offset())
    }
}

impl std::error::Error for InputError {}
