//! Errors raised while packing: all `MsgpackEncodeError`, built on cold paths.

use pyo3::prelude::*;

pub use crate::error::{too_deep, with_cause};
use crate::error::{Error, Kind};
use crate::exc::MsgpackEncodeError;
use crate::ffi::Ref;
use fastmsgpack_core::limits::MAX_DEFAULT_DEPTH;

/// An error of a [`Kind`].
trait IntoKind {
    fn into_kind(self, kind: Kind) -> Error;
}

impl IntoKind for PyErr {
    #[inline(always)]
    fn into_kind(self, kind: Kind) -> Error {
        Error::new(kind, self)
    }
}

#[cold]
pub fn default_too_deep() -> Error {
    MsgpackEncodeError::new_err(format!(
        "default called recursively more than {MAX_DEFAULT_DEPTH} times"
    ))
    .into_kind(Kind::DefaultTooDeep)
}

/// An object of a type nothing handles.
#[cold]
pub fn unsupported(obj: Ref<'_>) -> Error {
    let name = obj.type_name();
    MsgpackEncodeError::new_err(format!("Type is not MessagePack serializable: {name}"))
        .into_kind(Kind::UnsupportedType)
        .refusing(obj)
}

/// `default` raised: a MessagePack error whose `__cause__` is what it raised.
#[cold]
pub fn default_failed(obj: Ref<'_>, cause: PyErr) -> Error {
    let name = obj.type_name();
    let err = MsgpackEncodeError::new_err(format!("default raised an exception for type {name}"));
    with_cause(err, cause)
        .into_kind(Kind::DefaultFailed)
        .refusing(obj)
}

#[cold]
pub fn int_too_big() -> Error {
    MsgpackEncodeError::new_err("int out of range for MessagePack (-2**63 to 2**64-1)")
        .into_kind(Kind::IntOutOfRange)
}

#[cold]
pub fn int_not_53_bit() -> Error {
    MsgpackEncodeError::new_err("int exceeds the 53-bit range of OPT_STRICT_INTEGER")
        .into_kind(Kind::IntOutOfRange)
}

#[cold]
pub fn surrogates(cause: PyErr) -> Error {
    with_cause(
        MsgpackEncodeError::new_err(
            "str is not valid UTF-8: it holds a lone surrogate (see OPT_REPLACE_SURROGATES)",
        ),
        cause,
    )
    .into_kind(Kind::InvalidStr)
}

/// A dict key that the options do not allow.
#[cold]
pub fn bad_key(key: Ref<'_>, non_str_keys: bool) -> Error {
    let name = key.type_name();
    if non_str_keys {
        MsgpackEncodeError::new_err(format!(
            "dict key of type {name} is not supported (OPT_NON_STR_KEYS allows str, None, bool, \
             int, float, bytes, datetime, date, time, UUID, enum members and tuples of these)"
        ))
        .into_kind(Kind::InvalidKey)
        .refusing(key)
    } else {
        MsgpackEncodeError::new_err(format!(
            "dict key must be str, not {name} (see OPT_NON_STR_KEYS)"
        ))
        .into_kind(Kind::InvalidKey)
        .refusing(key)
    }
}

/// A key of a pydantic model's `__dict__` or `__pydantic_extra__` (`what`) that is not a `str`,
/// without `OPT_NON_STR_KEYS`.
#[cold]
pub fn model_key(what: &str, key: Ref<'_>) -> Error {
    let name = key.type_name();
    MsgpackEncodeError::new_err(format!(
        "pydantic model {what} key must be str, not {name} (see OPT_NON_STR_KEYS)"
    ))
    .into_kind(Kind::InvalidKey)
    .refusing(key)
}

/// A pydantic model's `__dict__` or `__pydantic_extra__` (`what`) that is not a dict (or None,
/// for the extra values).
#[cold]
pub fn model_not_a_dict(what: &str, obj: Ref<'_>) -> Error {
    let name = obj.type_name();
    MsgpackEncodeError::new_err(format!("pydantic model {what} must be a dict, not {name}"))
        .into_kind(Kind::InvalidValue)
        .refusing(obj)
}

#[cold]
pub fn sort_non_str_keys() -> Error {
    MsgpackEncodeError::new_err("OPT_SORT_KEYS can only sort str keys")
        .into_kind(Kind::UnsortableKeys)
}

#[cold]
pub fn changed_size(what: &str) -> Error {
    MsgpackEncodeError::new_err(format!("{what} changed size while it was being packed"))
        .into_kind(Kind::ChangedSize)
}

#[cold]
pub fn memoryview_not_contiguous(cause: PyErr) -> Error {
    with_cause(
        MsgpackEncodeError::new_err("memoryview is not C-contiguous"),
        cause,
    )
    .into_kind(Kind::InvalidValue)
}

/// Python code the serializer called (a `utcoffset`, a `value` or field lookup, `str`) raised.
#[cold]
pub fn attribute_failed(what: &str, cause: PyErr) -> Error {
    with_cause(MsgpackEncodeError::new_err(what.to_owned()), cause).into_kind(Kind::CallFailed)
}

/// What `datetime.utcoffset()` raises for an offset of a day or more, as its cause.
#[cold]
pub fn utcoffset_out_of_range() -> Error {
    let cause = pyo3::exceptions::PyValueError::new_err(
        "offset must be a timedelta strictly between -timedelta(hours=24) and \
         timedelta(hours=24)",
    );
    attribute_failed("datetime.utcoffset() raised", cause)
}

#[cold]
pub fn aware_time() -> Error {
    MsgpackEncodeError::new_err("datetime.time must not have tzinfo set")
        .into_kind(Kind::InvalidValue)
}

#[cold]
pub fn bad_utcoffset() -> Error {
    MsgpackEncodeError::new_err("tzinfo.utcoffset() must return None or a timedelta")
        .into_kind(Kind::InvalidValue)
}

#[cold]
pub fn datetime64(what: &str) -> Error {
    MsgpackEncodeError::new_err(what.to_owned()).into_kind(Kind::InvalidValue)
}

/// A numpy array or scalar of a dtype that is not packed, with no `default` to take it.
#[cold]
pub fn numpy_dtype(name: &str) -> Error {
    MsgpackEncodeError::new_err(format!(
        "numpy dtype {name} is not supported (bool, int8-int64, uint8-uint64, float16-float64 and \
         datetime64 are; give a default for others)"
    ))
    .into_kind(Kind::InvalidValue)
}

/// An array or scalar with no raw form under `OPT_NUMPY_RAW`, with no `default` to take it.
#[cold]
pub fn numpy_raw_dtype(name: &str) -> Error {
    MsgpackEncodeError::new_err(format!(
        "numpy dtype {name} has no raw form (object and structured dtypes have none; give a \
         default for them)"
    ))
    .into_kind(Kind::InvalidValue)
}
