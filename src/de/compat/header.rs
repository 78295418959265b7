//! The `max_*_len` limits, checked on an item's header before the item is read.

use pyo3::exceptions::PyValueError;

use crate::compat::Limits;
use crate::de::error::DeError;

/// Checks the length that the item starting `data` declares in its header against its limit.
#[inline(always)]
pub fn check(data: &[u8], limits: &Limits) -> Result<(), DeError> {
    if !limits.any {
        return Ok(());
    }
    let Some((what, len)) = declared(data) else {
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

/// The kind of item that `data` starts with and the length its header declares, for the items
/// that have a limit (`None` for the others, and for a header cut short).
#[inline(always)]
fn declared(data: &[u8]) -> Option<(&'static str, usize)> {
    let be = |n: usize| -> Option<usize> {
        let bytes = data.get(1..1 + n)?;
        Some(bytes.iter().fold(0usize, |acc, &b| acc << 8 | b as usize))
    };
    Some(match *data.first()? {
        m @ 0x80..=0x8f => ("map", (m & 0x0f) as usize),
        m @ 0x90..=0x9f => ("array", (m & 0x0f) as usize),
        m @ 0xa0..=0xbf => ("str", (m & 0x1f) as usize),
        0xc4 => ("bin", be(1)?),
        0xc5 => ("bin", be(2)?),
        0xc6 => ("bin", be(4)?),
        0xc7 => ("ext", be(1)?),
        0xc8 => ("ext", be(2)?),
        0xc9 => ("ext", be(4)?),
        0xd4 => ("ext", 1),
        0xd5 => ("ext", 2),
        0xd6 => ("ext", 4),
        0xd7 => ("ext", 8),
        0xd8 => ("ext", 16),
        0xd9 => ("str", be(1)?),
        0xda => ("str", be(2)?),
        0xdb => ("str", be(4)?),
        0xdc => ("array", be(2)?),
        0xdd => ("array", be(4)?),
        0xde => ("map", be(2)?),
        0xdf => ("map", be(4)?),
        _ => return None,
    })
}
