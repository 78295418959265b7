//! The `max_*_len` limits, checked on an item's header before the item is read.

use pyo3::exceptions::PyValueError;

use crate::compat::Limits;
use crate::de::error::DeError;
use crate::de::token;

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

/// A `ValueError` for a length over its limit, as msgpack-python words it.
#[cold]
fn too_long(len: usize, what: &str, max: usize) -> DeError {
    DeError::python(PyValueError::new_err(format!(
        "{len} exceeds max_{what}_len({max})"
    )))
}
