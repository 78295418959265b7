//! Extension values for `fastmsgpack.compat`: timestamps in the `timestamp` mode, every other
//! type code handed to `ext_hook(code, data)` (`ExtType` unless the caller gives another).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::IntoPyObjectExt;

use super::options::CompatOptions;
use crate::de::error::DeError;

/// The extension type MessagePack reserves for timestamps.
const TIMESTAMP_TAG: i8 = -1;

#[inline(never)]
pub fn build<'py>(
    py: Python<'py>,
    o: &CompatOptions,
    tag: i8,
    data: &[u8],
) -> Result<Bound<'py, PyAny>, DeError> {
    if tag == TIMESTAMP_TAG {
        return timestamp(py, o, data);
    }
    let data = PyBytes::new(py, data);
    Ok(o.ext_hook.bind(py).call1((tag, data))?)
}

/// A timestamp extension, as the `timestamp` mode asks: 0 a `Timestamp`, 1 float seconds,
/// 2 int nanoseconds, 3 an aware UTC datetime.
fn timestamp<'py>(
    py: Python<'py>,
    o: &CompatOptions,
    data: &[u8],
) -> Result<Bound<'py, PyAny>, DeError> {
    let (secs, nanos) = fastmsgpack_core::token::timestamp(data).map_err(|why| {
        if data.len() == 4 || data.len() == 8 || data.len() == 12 {
            bad_nanoseconds()
        } else {
            debug_assert!(why.starts_with("length"));
            bad_timestamp(data.len())
        }
    })?;
    Ok(match o.timestamp {
        1 => (secs as f64 + nanos as f64 / 1e9).into_bound_py_any(py)?,
        2 => (secs as i128 * 1_000_000_000 + nanos as i128).into_bound_py_any(py)?,
        mode => {
            let ts = o.timestamp_type.bind(py).call1((secs, nanos))?;
            if mode == 3 {
                ts.call_method0("to_datetime")?
            } else {
                ts
            }
        }
    })
}

/// As msgpack-python's `Timestamp` refuses nanoseconds past a second, whatever the mode.
#[cold]
fn bad_nanoseconds() -> DeError {
    DeError::python(PyValueError::new_err(
        "nanoseconds must be a non-negative integer not greater than 999999999.",
    ))
}

#[cold]
fn bad_timestamp(len: usize) -> DeError {
    DeError::python(PyValueError::new_err(format!(
        "invalid timestamp data (length {len})"
    )))
}
