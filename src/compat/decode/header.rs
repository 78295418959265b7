//! The `max_*_len` limits, checked on each item as msgpack-python's reader checks it: by the
//! compat decoder, and by the stream scanner as the bytes arrive (`fastmsgpack.compat.Unpacker`).

use pyo3::exceptions::PyValueError;

use super::options::Limits;
use crate::de::error::DeError;
use crate::de::token::Token;

/// Checks the length of an item just read against its limit, when msgpack-python's reader checks
/// it: a container's as soon as its header has arrived, a `str`'s, `bin`'s or
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
        // msgpack-python's message counts an ext's type byte, which its limit does not.
        let shown = if what == "ext" { len + 1 } else { len };
        return Err(too_long(shown, what, max));
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
