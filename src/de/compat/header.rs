//! The `max_*_len` limits: checked on an item's header before the item is read (by the compat
//! decoder), or on a token as the stream scanner reads it (by `fastmsgpack.compat.Unpacker`).

use pyo3::exceptions::PyValueError;

use crate::compat::Limits;
use crate::de::error::DeError;
use crate::de::token::{self, Token};

/// Checks the length that the item starting `data` declares in its header against its limit.
#[inline(always)]
pub fn check(data: &[u8], limits: &Limits) -> Result<(), DeError> {
    if !limits.any {
        return Ok(());
    }
    let Some((what, len)) = token::declared_length(data) else {
        return Ok(());
    };
    let max = match what {
        "str" => limits.str,
        "bin" => limits.bin,
        "array" => limits.array,
        "map" => limits.map,
        _ => limits.ext,
    };
    if len > max {
        return Err(too_long(len, what, max));
    }
    Ok(())
}

/// Checks the length of an item the stream scanner has read against its limit, when msgpack-python's
/// stream reader checks it: a container's as soon as its header has arrived, a `str`'s, `bin`'s or
/// ext's once its bytes have all arrived (an ext's data, its type byte not counted).
#[inline(always)]
pub fn check_token(token: &Token<'_>, limits: &Limits) -> Result<(), DeError> {
    let (what, len, max) = match *token {
        Token::Str(bytes) => ("str", bytes.len(), limits.str),
        Token::Bin(bytes) => ("bin", bytes.len(), limits.bin),
        Token::Ext(_, data) => ("ext", data.len(), limits.ext),
        Token::Array(n) => ("array", n, limits.array),
        Token::Map(n) => ("map", n, limits.map),
        _ => return Ok(()),
    };
    if len > max {
        return Err(too_long(len, what, max));
    }
    Ok(())
}

/// A `ValueError` for a length over its limit, as msgpack-python words it.
#[cold]
fn too_long(len: usize, what: &str, max: usize) -> DeError {
    DeError::python(PyValueError::new_err(format!(
        "{len} exceeds max_{what}_len({max})"
    )))
}
