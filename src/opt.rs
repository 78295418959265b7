//! Option flags: one `u32` of bits shared by every entry point, and the subset each accepts.

use pyo3::prelude::*;
use pyo3::types::PyInt;

pub type Opt = u32;

pub const NON_STR_KEYS: Opt = 1 << 0;
pub const SORT_KEYS: Opt = 1 << 1;
pub const PASSTHROUGH_BIG_INT: Opt = 1 << 2;
pub const PASSTHROUGH_TUPLE: Opt = 1 << 3;
pub const PASSTHROUGH_SUBCLASS: Opt = 1 << 4;
pub const REPLACE_SURROGATES: Opt = 1 << 5;
pub const NAIVE_UTC: Opt = 1 << 6;
pub const OMIT_MICROSECONDS: Opt = 1 << 7;
pub const UTC_Z: Opt = 1 << 8;
pub const PASSTHROUGH_DATETIME: Opt = 1 << 9;
pub const DATETIME_AS_TIMESTAMP_EXT: Opt = 1 << 10;
pub const PASSTHROUGH_UUID: Opt = 1 << 11;
pub const PASSTHROUGH_ENUM: Opt = 1 << 12;
pub const PASSTHROUGH_DATACLASS: Opt = 1 << 13;
pub const SERIALIZE_PYDANTIC: Opt = 1 << 14;
pub const SERIALIZE_NUMPY: Opt = 1 << 15;
pub const NUMPY_RAW: Opt = 1 << 16;
pub const JSON_MODEL: Opt = 1 << 17;
pub const INDENT_2: Opt = 1 << 18;
pub const APPEND_NEWLINE: Opt = 1 << 19;
pub const STRICT_INTEGER: Opt = 1 << 20;
/// `unpackb(type=...)`: a map key that no field of a dataclass or TypedDict has is an error.
pub const FORBID_UNKNOWN_FIELDS: Opt = 1 << 21;
/// Exact round trips: tuples, sets, big ints, datetimes with their zones, UUIDs, Decimals, ...
/// as the extension types of `doc/exact.md`, read back as themselves.
pub const EXACT: Opt = 1 << 22;
/// `unpackb`: bins become `memoryview`s, read-only slices of the input when it cannot change.
pub const BIN_MEMORYVIEW: Opt = 1 << 23;

/// Every option with its Python name, for error messages and module constants.
///
/// This list and [`ENTRY_POINTS`] are the only lists of options: `fastmsgpack.__all__` and
/// `fastmsgpack.json.__all__` are built from them at import time, and `scripts/options.py`
/// writes the stubs' declarations and the docs' option tables from them (tests check both). A
/// new option is a bit here, its entry in this list and in the masks of the entry points that
/// take it, its implementation, and a section in doc/options.md; then run `scripts/options.py`.
pub const ALL: &[(&str, Opt)] = &[
    ("OPT_NON_STR_KEYS", NON_STR_KEYS),
    ("OPT_SORT_KEYS", SORT_KEYS),
    ("OPT_PASSTHROUGH_BIG_INT", PASSTHROUGH_BIG_INT),
    ("OPT_PASSTHROUGH_TUPLE", PASSTHROUGH_TUPLE),
    ("OPT_PASSTHROUGH_SUBCLASS", PASSTHROUGH_SUBCLASS),
    ("OPT_REPLACE_SURROGATES", REPLACE_SURROGATES),
    ("OPT_NAIVE_UTC", NAIVE_UTC),
    ("OPT_OMIT_MICROSECONDS", OMIT_MICROSECONDS),
    ("OPT_UTC_Z", UTC_Z),
    ("OPT_PASSTHROUGH_DATETIME", PASSTHROUGH_DATETIME),
    ("OPT_DATETIME_AS_TIMESTAMP_EXT", DATETIME_AS_TIMESTAMP_EXT),
    ("OPT_PASSTHROUGH_UUID", PASSTHROUGH_UUID),
    ("OPT_PASSTHROUGH_ENUM", PASSTHROUGH_ENUM),
    ("OPT_PASSTHROUGH_DATACLASS", PASSTHROUGH_DATACLASS),
    ("OPT_SERIALIZE_PYDANTIC", SERIALIZE_PYDANTIC),
    ("OPT_SERIALIZE_NUMPY", SERIALIZE_NUMPY),
    ("OPT_NUMPY_RAW", NUMPY_RAW),
    ("OPT_JSON_COMPAT", JSON_MODEL),
    ("OPT_INDENT_2", INDENT_2),
    ("OPT_APPEND_NEWLINE", APPEND_NEWLINE),
    ("OPT_STRICT_INTEGER", STRICT_INTEGER),
    ("OPT_FORBID_UNKNOWN_FIELDS", FORBID_UNKNOWN_FIELDS),
    ("OPT_EXACT", EXACT),
    ("OPT_BIN_MEMORYVIEW", BIN_MEMORYVIEW),
];

/// The options `packb` accepts.
pub const PACKB_MASK: Opt = NON_STR_KEYS
    | SORT_KEYS
    | PASSTHROUGH_BIG_INT
    | PASSTHROUGH_TUPLE
    | PASSTHROUGH_SUBCLASS
    | REPLACE_SURROGATES
    | NAIVE_UTC
    | OMIT_MICROSECONDS
    | UTC_Z
    | PASSTHROUGH_DATETIME
    | DATETIME_AS_TIMESTAMP_EXT
    | PASSTHROUGH_UUID
    | PASSTHROUGH_ENUM
    | PASSTHROUGH_DATACLASS
    | SERIALIZE_PYDANTIC
    | SERIALIZE_NUMPY
    | NUMPY_RAW
    | JSON_MODEL
    | EXACT;

/// The options `json.dumps` accepts: the type rules of `packb`, and JSON's own options.
pub const JSON_DUMPS_MASK: Opt = (PACKB_MASK
    & !(DATETIME_AS_TIMESTAMP_EXT | NUMPY_RAW | JSON_MODEL | EXACT))
    | INDENT_2
    | APPEND_NEWLINE
    | STRICT_INTEGER;

/// The options `json.from_msgpack` accepts.
pub const JSON_FROM_MSGPACK_MASK: Opt = NON_STR_KEYS | INDENT_2 | APPEND_NEWLINE;

/// The options `unpackb` accepts.
pub const UNPACKB_MASK: Opt = NON_STR_KEYS
    | DATETIME_AS_TIMESTAMP_EXT
    | NUMPY_RAW
    | FORBID_UNKNOWN_FIELDS
    | BIN_MEMORYVIEW
    | EXACT;

/// Each family of entry points with the options it accepts, named as the docs' option tables
/// name it (`pack` and `Packer` take the options of `packb`; `unpack` and `Unpacker` those of
/// `unpackb`). The module exports it as `_OPTION_MASKS`: the type stubs, `__all__` and the docs'
/// tables are generated from, and tested against, [`ALL`] and this list.
pub const ENTRY_POINTS: &[(&str, Opt)] = &[
    ("packb", PACKB_MASK),
    ("unpackb", UNPACKB_MASK),
    ("json.dumps", JSON_DUMPS_MASK),
    ("json.from_msgpack", JSON_FROM_MSGPACK_MASK),
];

/// Why an `option` argument was refused.
pub enum OptError {
    NotAnInt(String),
    Invalid(String),
}

/// Reads the `option` argument of the entry point `func`, whose accepted bits are `mask`.
pub fn parse(option: Option<&Bound<'_, PyAny>>, mask: Opt, func: &str) -> Result<Opt, OptError> {
    let Some(option) = option else { return Ok(0) };
    if option.is_none() {
        return Ok(0);
    }
    if !option.is_instance_of::<PyInt>() || option.is_instance_of::<pyo3::types::PyBool>() {
        return Err(not_an_int(option));
    }
    let bits: u64 = match option.extract() {
        Ok(bits) => bits,
        Err(_) => {
            return Err(OptError::Invalid(format!(
                "option {option} is not a valid option"
            )))
        }
    };
    let Ok(bits) = Opt::try_from(bits) else {
        return Err(OptError::Invalid(format!(
            "option has unknown bits {bits:#x}"
        )));
    };
    if bits & !mask != 0 {
        return Err(OptError::Invalid(describe_invalid(bits & !mask, func)));
    }
    Ok(bits)
}

/// [`parse`] for a reading entry point (`unpackb`, `Unpacker`, `json.from_msgpack`): an
/// `option` that is not an int is a `TypeError`, an invalid one a `MsgpackDecodeError`.
pub fn parse_for_reading(
    option: Option<&Bound<'_, PyAny>>,
    mask: Opt,
    func: &str,
) -> PyResult<Opt> {
    parse(option, mask, func).map_err(|e| match e {
        OptError::NotAnInt(msg) => pyo3::exceptions::PyTypeError::new_err(msg),
        OptError::Invalid(msg) => {
            let data = crate::exc::ErrorData {
                kind: "invalid_option",
                reason: &msg,
                offset: None,
                path: None,
            };
            crate::exc::with_data(crate::exc::MsgpackDecodeError::new_err(msg.clone()), &data)
        }
    })
}

/// [`parse`] for a packing entry point (`packb`, `pack`, `Packer`, named `func` in errors):
/// every refusal is a `MsgpackEncodeError`.
#[inline(always)]
pub fn parse_for_packing(option: Option<&Bound<'_, PyAny>>, func: &str) -> PyResult<Opt> {
    let opts = parse(option, PACKB_MASK, func).map_err(|e| match e {
        OptError::NotAnInt(msg) | OptError::Invalid(msg) => {
            crate::exc::MsgpackEncodeError::new_err(msg)
        }
    })?;
    if opts & EXACT != 0 && opts & JSON_MODEL != 0 {
        return Err(exact_with_json_compat(func));
    }
    Ok(opts)
}

/// Options that only apply to a typed read: refused without `type=`, as an option another
/// entry point takes is refused, so that a misplaced one never does nothing.
pub const TYPED_ONLY: Opt = FORBID_UNKNOWN_FIELDS;

/// Refuses [`TYPED_ONLY`] options in a read without `type=` (`func` names the entry point), with
/// the same error as an option the entry point does not take.
#[inline(always)]
pub fn check_untyped(opts: Opt, func: &str) -> PyResult<()> {
    if opts & TYPED_ONLY == 0 {
        return Ok(());
    }
    Err(typed_only(opts & TYPED_ONLY, func))
}

#[cold]
fn typed_only(bad: Opt, func: &str) -> PyErr {
    let msg = format!("{} without type=", describe_invalid(bad, func));
    let data = crate::exc::ErrorData {
        kind: "invalid_option",
        reason: &msg,
        offset: None,
        path: None,
    };
    crate::exc::with_data(crate::exc::MsgpackDecodeError::new_err(msg.clone()), &data)
}

/// A hook argument (`default`, `dec_hook`, `ext_hook`, `buffer_callback`): `None` (or absent) is
/// no hook, anything else must be callable. Every entry point checks its hooks with this, at the
/// call, so that a wrong one fails at once with the same message everywhere.
#[inline(always)]
pub fn check_hook(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<()> {
    match value {
        Some(v) if !v.is_none() && !v.is_callable() => Err(not_callable(v, name)),
        _ => Ok(()),
    }
}

#[cold]
fn not_callable(value: &Bound<'_, PyAny>, name: &str) -> PyErr {
    let ty = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    pyo3::exceptions::PyTypeError::new_err(format!("{name} must be callable or None, not {ty}"))
}

#[cold]
fn exact_with_json_compat(func: &str) -> PyErr {
    crate::exc::MsgpackEncodeError::new_err(format!(
        "invalid option: OPT_EXACT and OPT_JSON_COMPAT cannot be combined in {func} (JSON has no \
         extension types)"
    ))
}

#[cold]
fn not_an_int(option: &Bound<'_, PyAny>) -> OptError {
    let ty = option
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    OptError::NotAnInt(format!("option must be an int or None, not {ty}"))
}

/// The Python name of the option `opt` (one bit of [`ALL`]), for messages.
#[cold]
pub fn name(opt: Opt) -> &'static str {
    ALL.iter()
        .find(|(_, bit)| *bit == opt)
        .map_or("?", |(name, _)| *name)
}

#[cold]
fn describe_invalid(bad: Opt, func: &str) -> String {
    let named: Vec<&str> = ALL
        .iter()
        .filter(|(_, bit)| bad & bit != 0)
        .map(|(name, _)| *name)
        .collect();
    let unknown = bad & !ALL.iter().fold(0, |acc, (_, bit)| acc | bit);
    let mut parts = Vec::new();
    if !named.is_empty() {
        parts.push(format!("{} not valid for {func}", named.join(", ")));
    }
    if unknown != 0 {
        parts.push(format!("unknown option bits {unknown:#x}"));
    }
    format!("invalid option: {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_distinct_and_masks_cover_only_known_bits() {
        let mut seen = 0;
        for (_, bit) in ALL {
            assert_eq!(bit.count_ones(), 1);
            assert_eq!(seen & bit, 0);
            seen |= bit;
        }
        let mut accepted = 0;
        for (_, mask) in ENTRY_POINTS {
            assert_eq!(mask & !seen, 0);
            accepted |= mask;
        }
        // An option no entry point takes could not be used.
        assert_eq!(accepted, seen);
    }

    #[test]
    fn invalid_bits_are_named() {
        let msg = describe_invalid(SORT_KEYS | (1 << 30), "unpackb");
        assert!(msg.contains("OPT_SORT_KEYS not valid for unpackb"), "{msg}");
        assert!(msg.contains("unknown option bits 0x40000000"), "{msg}");
    }
}
