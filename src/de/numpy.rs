//! `OPT_NUMPY_RAW`: maps in msgpack-numpy's layout (`nd`, `type`, `kind`, `shape`, `data`, with
//! bin keys) become ndarrays, or numpy scalars when `nd` is false, built over the data bytes
//! without per-element work. A map that only looks like one is a decode error.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDictMethods, PyList, PyString, PyTuple};

use super::error::{DeError, Kind};
use crate::ffi::{Numpy, Owned, Ref};

/// What the map held, its data as a range of the input.
pub struct RawArray {
    pub nd: Option<Owned>,
    pub dtype: Option<Owned>,
    pub kind: Option<Owned>,
    pub shape: Option<Owned>,
    pub data: Option<Data>,
}

/// Where an array's data is.
pub enum Data {
    /// At this offset in the input, this many bytes.
    Input(usize, usize),
    /// An out-of-band buffer (the object given, exporting C-contiguous memory) of this many
    /// bytes.
    Buffer(Owned, usize),
}

impl Data {
    fn len(&self) -> usize {
        match self {
            Data::Input(_, len) | Data::Buffer(_, len) => *len,
        }
    }
}

#[cold]
fn bad(why: &'static str, offset: usize) -> DeError {
    DeError::input(Kind::BadNumpy(why), offset)
}

/// Builds the array (or scalar). `source` is the input object when it is an immutable `bytes`,
/// which the array then views without a copy (read-only, like `np.frombuffer`); otherwise the
/// data is copied into a new writable buffer.
pub fn build(
    py: Python<'_>,
    np: &Numpy,
    source: Option<Ref<'_>>,
    input: &[u8],
    raw: RawArray,
    start: usize,
) -> Result<Owned, DeError> {
    let bind = |obj: &Owned| -> Bound<'_, PyAny> {
        // SAFETY: attached; the reference stays owned by `raw`.
        unsafe { Bound::from_borrowed_ptr(py, obj.as_ptr()) }
    };
    let is_array = match raw.nd.as_ref().map(bind) {
        Some(nd) if nd.is_instance_of::<PyBool>() => nd.is_truthy().unwrap_or(false),
        _ => return Err(bad("'nd' must be true or false", start)),
    };
    let Some(data) = raw.data else {
        return Err(bad("'data' (bin) is missing", start));
    };
    let len = data.len();
    if let Some(kind) = raw.kind.as_ref().map(bind) {
        let plain = kind
            .cast::<PyBytes>()
            .map(|k| k.as_bytes().is_empty())
            .unwrap_or(false);
        if !plain {
            return Err(bad(
                "structured ('kind' not empty) arrays are not supported",
                start,
            ));
        }
    }
    let dtype_name = match raw.dtype.as_ref().map(bind) {
        Some(t) if t.is_instance_of::<PyString>() => t,
        Some(t) if t.is_instance_of::<PyBytes>() => t
            .call_method1("decode", ("ascii",))
            .map_err(|cause| DeError::callback("'type' is not ASCII", start, cause))?,
        _ => return Err(bad("'type' must be a dtype string", start)),
    };
    let Dtype {
        dtype,
        itemsize,
        check,
    } = dtype_for(py, np, &dtype_name)
        .map_err(|cause| DeError::callback("'type' is not a numpy dtype", start, cause))?
        .map_err(|why| bad(why, start))?;
    let (count, shape) = if is_array {
        let shape = match raw.shape.as_ref().map(bind) {
            Some(s) if s.is_instance_of::<PyList>() => {
                s.cast_into::<PyList>().map_err(PyErr::from)?
            }
            _ => return Err(bad("'shape' must be an array of sizes", start)),
        };
        let mut count: usize = 1;
        for dim in shape.iter() {
            let dim: usize = dim
                .extract()
                .map_err(|_| bad("'shape' holds a bad size", start))?;
            count = count
                .checked_mul(dim)
                .ok_or_else(|| bad("'shape' is too large", start))?;
        }
        (count, Some(PyTuple::new(py, shape.iter())?))
    } else {
        (1, None)
    };
    if count.checked_mul(itemsize) != Some(len) {
        return Err(bad("'data' length does not match dtype and shape", start));
    }
    let (buffer, buffer_offset) = match data {
        Data::Input(offset, len) => {
            let data = input
                .get(offset..offset.saturating_add(len))
                .ok_or_else(|| bad("'data' is out of range", start))?;
            check.validate(data).map_err(|why| bad(why, start))?;
            match source {
                // SAFETY: `source` is the input object of this call, live on this attached
                // thread (`Ref`'s invariant), and `from_borrowed_ptr` takes a new reference to it.
                Some(bytes) => (
                    unsafe { Bound::from_borrowed_ptr(py, bytes.as_ptr()) },
                    offset,
                ),
                None => (PyByteArray::new(py, data).into_any(), 0),
            }
        }
        // An out-of-band buffer is viewed in place, writable when it is.
        Data::Buffer(buffer, _) => {
            // SAFETY: `buffer` is a live object, held; the check runs no Python code.
            unsafe { crate::ffi::with_exported(buffer.as_ptr(), |data| check.validate(data)) }?
                .map_err(|why| bad(why, start))?;
            // SAFETY: `into_raw` hands over the strong reference `buffer` held.
            (unsafe { Bound::from_owned_ptr(py, buffer.into_raw()) }, 0)
        }
    };
    // SAFETY: `np.frombuffer` is a live callable kept by `Numpy`.
    let frombuffer = unsafe { Bound::from_borrowed_ptr(py, np.frombuffer) };
    let flat = frombuffer
        .call1((buffer, &dtype, count, buffer_offset))
        .map_err(|cause| {
            DeError::callback("'data' could not be read as the dtype", start, cause)
        })?;
    let result = match shape {
        // A 1-d array is already in shape.
        Some(shape) if shape.len() == 1 => flat,
        Some(shape) => flat
            .call_method1("reshape", (shape,))
            .map_err(|cause| DeError::callback("'shape' does not fit the data", start, cause))?,
        None => flat.get_item(0).map_err(|cause| {
            DeError::callback("'data' could not be read as a scalar", start, cause)
        })?,
    };
    // SAFETY: `into_ptr` hands over a strong reference.
    unsafe { Owned::from_new(result.into_ptr()) }
        .ok_or_else(|| DeError::python(crate::ffi::fetch_error()))
}

/// Element bytes that are not values of their dtype, for the dtypes that have such bytes. numpy
/// stores them but fails on them later (`SystemError` from `.tolist()` for a str, `ValueError` on
/// item access for a datetime), or, for a bool, holds a value that no numpy operation makes (it
/// equals `True` but has other bytes), so they are refused while decoding.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Check {
    /// Every byte pattern is a value.
    Nothing,
    /// `bool`: each byte 0 or 1.
    Bool,
    /// `str` (`U`): each 4-byte code unit, in this byte order, at most U+10FFFF. Surrogates are
    /// kept: a Python `str` holds them.
    CodePoints { big_endian: bool },
    /// `datetime64` without a unit: only NaT (the smallest int64) has a value.
    NatOnly { big_endian: bool },
}

impl Check {
    /// Its code in the dtype cache, and back.
    fn code(self) -> u8 {
        match self {
            Check::Nothing => 0,
            Check::Bool => 1,
            Check::CodePoints { big_endian } => 2 | big_endian as u8,
            Check::NatOnly { big_endian } => 4 | big_endian as u8,
        }
    }

    fn from_code(code: u8) -> Check {
        let big_endian = code & 1 != 0;
        match code {
            1 => Check::Bool,
            2 | 3 => Check::CodePoints { big_endian },
            4 | 5 => Check::NatOnly { big_endian },
            _ => Check::Nothing,
        }
    }

    /// `Err` with the reason when `data` (whole elements) holds bytes that are not values.
    fn validate(self, data: &[u8]) -> Result<(), &'static str> {
        let valid = match self {
            Check::Nothing => true,
            // No early exit: the fold vectorises, and data is valid in the usual case.
            Check::Bool => data.iter().fold(0u8, |acc, &b| acc | b) <= 1,
            Check::CodePoints { big_endian } => {
                let unit = |c: &[u8]| {
                    let c = [c[0], c[1], c[2], c[3]];
                    if big_endian {
                        u32::from_be_bytes(c)
                    } else {
                        u32::from_le_bytes(c)
                    }
                };
                data.chunks_exact(4).map(unit).fold(0, u32::max) <= 0x10_FFFF
            }
            Check::NatOnly { big_endian } => {
                let nat = if big_endian {
                    i64::MIN.to_be_bytes()
                } else {
                    i64::MIN.to_le_bytes()
                };
                data.chunks_exact(8).all(|c| c == nat)
            }
        };
        if valid {
            return Ok(());
        }
        Err(match self {
            Check::Bool => "'data' holds a bool byte other than 0 or 1",
            Check::CodePoints { .. } => "'data' holds a code point above U+10FFFF for a str dtype",
            _ => "'data' holds a datetime64 without a unit that is not NaT",
        })
    }
}

/// A dtype that raw bytes can be read as.
struct Dtype<'py> {
    dtype: Bound<'py, PyAny>,
    itemsize: usize,
    check: Check,
}

/// Cached dtypes by their string: the same few recur in a document.
const MAX_CACHED_DTYPES: usize = 256;

/// `numpy.dtype(name)`, its item size and the check its data needs, from the cache when it was
/// seen before; `Err` with the reason for dtypes that cannot be built from raw bytes: objects,
/// zero-size items, and structured, void and sub-array dtypes, which `packb` does not write
/// (a sub-array dtype would add dimensions to the shape, and make a scalar an array).
fn dtype_for<'py>(
    py: Python<'py>,
    np: &Numpy,
    name: &Bound<'py, PyAny>,
) -> PyResult<Result<Dtype<'py>, &'static str>> {
    let cache = np.dtype_cache.bind(py);
    if let Some(entry) = cache.get_item(name)? {
        let (dtype, itemsize, code): (Bound<'py, PyAny>, usize, u8) = entry.extract()?;
        let check = Check::from_code(code);
        return Ok(Ok(Dtype {
            dtype,
            itemsize,
            check,
        }));
    }
    // SAFETY: `np.dtype` is a live callable kept by `Numpy`.
    let dtype_fn = unsafe { Bound::from_borrowed_ptr(py, np.dtype) };
    let dtype = dtype_fn.call1((name,))?;
    let has_object = dtype.getattr("hasobject")?.is_truthy()?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    if has_object || itemsize == 0 {
        return Ok(Err("'type' is a dtype that cannot be built from raw bytes"));
    }
    // `str` is `<U3`, `>M8[ns]`, `|b1`, ...: its byte order, then its kind.
    let text: String = dtype.getattr("str")?.extract()?;
    let big_endian = text.starts_with('>');
    let check = match text.as_bytes().get(1) {
        Some(b'V') if dtype.getattr("subdtype")?.is_none() => {
            return Ok(Err(
                "'type' is a structured or void dtype, which is not supported",
            ));
        }
        Some(b'V') => {
            return Ok(Err("'type' is a sub-array dtype, which is not supported"));
        }
        Some(b'b') => Check::Bool,
        Some(b'U') => Check::CodePoints { big_endian },
        Some(b'M') if !text.contains('[') => Check::NatOnly { big_endian },
        _ => Check::Nothing,
    };
    if cache.len() >= MAX_CACHED_DTYPES {
        cache.clear();
    }
    cache.set_item(name, (&dtype, itemsize, check.code()))?;
    Ok(Ok(Dtype {
        dtype,
        itemsize,
        check,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_survive_the_cache_code() {
        for check in [
            Check::Nothing,
            Check::Bool,
            Check::CodePoints { big_endian: false },
            Check::CodePoints { big_endian: true },
            Check::NatOnly { big_endian: false },
            Check::NatOnly { big_endian: true },
        ] {
            assert_eq!(Check::from_code(check.code()), check);
        }
    }

    #[test]
    fn checks_refuse_what_numpy_cannot_read() {
        assert!(Check::Bool.validate(&[0, 1, 1, 0]).is_ok());
        assert!(Check::Bool.validate(&[0, 1, 2]).is_err());
        let le = Check::CodePoints { big_endian: false };
        let be = Check::CodePoints { big_endian: true };
        assert!(le
            .validate(&[0xff, 0xff, 0x10, 0, 0x00, 0xd8, 0, 0])
            .is_ok());
        assert!(le.validate(&[0, 0, 0x11, 0]).is_err());
        assert!(be.validate(&[0, 0x10, 0xff, 0xff]).is_ok());
        assert!(be.validate(&[0, 0x11, 0, 0]).is_err());
        let nat = Check::NatOnly { big_endian: false };
        assert!(nat.validate(&i64::MIN.to_le_bytes()).is_ok());
        assert!(nat.validate(&0i64.to_le_bytes()).is_err());
        let nat = Check::NatOnly { big_endian: true };
        assert!(nat.validate(&i64::MIN.to_be_bytes()).is_ok());
        assert!(nat.validate(&i64::MIN.to_le_bytes()).is_err());
        assert!(Check::Nothing.validate(&[0xff; 8]).is_ok());
    }
}
