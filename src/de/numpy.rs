//! `OPT_NUMPY_RAW`: maps in msgpack-numpy's layout (`nd`, `type`, `kind`, `shape`, `data`, with
//! bin keys) become ndarrays, or numpy scalars when `nd` is false, built over the data bytes
//! without per-element work. A map that only looks like one is a decode error.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDictMethods, PyList, PyString, PyTuple};

use super::error::{DeError, Kind};
use crate::ffi::{Numpy, Obj, Owned};

/// What the map held, its data as a range of the input.
pub struct RawArray {
    pub nd: Option<Owned>,
    pub dtype: Option<Owned>,
    pub kind: Option<Owned>,
    pub shape: Option<Owned>,
    pub data: Option<(usize, usize)>,
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
    source: Option<Obj>,
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
    let Some((offset, len)) = raw.data else {
        return Err(bad("'data' (bin) is missing", start));
    };
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
    let Some((dtype, itemsize)) = dtype_for(py, np, &dtype_name)
        .map_err(|cause| DeError::callback("'type' is not a numpy dtype", start, cause))?
    else {
        return Err(bad("the dtype cannot be built from raw bytes", start));
    };
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
    let data = input
        .get(offset..offset + len)
        .ok_or_else(|| bad("'data' is out of range", start))?;
    // SAFETY: `source` is the live input object.
    let (buffer, buffer_offset) = match source {
        Some(bytes) => (unsafe { Bound::from_borrowed_ptr(py, bytes) }, offset),
        None => (PyByteArray::new(py, data).into_any(), 0),
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
        None => flat
            .get_item(0)
            .map_err(|cause| DeError::callback("scalar data is empty", start, cause))?,
    };
    // SAFETY: `into_ptr` hands over a strong reference.
    unsafe { Owned::from_new(result.into_ptr()) }
        .ok_or_else(|| DeError::python(crate::ffi::fetch_error()))
}

/// Cached dtypes by their string: the same few recur in a document.
const MAX_CACHED_DTYPES: usize = 256;

/// `numpy.dtype(name)` and its item size, from the cache when it was seen before; `None` for
/// dtypes that cannot be built from raw bytes (objects, zero-size items).
fn dtype_for<'py>(
    py: Python<'py>,
    np: &Numpy,
    name: &Bound<'py, PyAny>,
) -> PyResult<Option<(Bound<'py, PyAny>, usize)>> {
    let cache = np.dtype_cache.bind(py);
    if let Some(entry) = cache.get_item(name)? {
        return Ok(Some(entry.extract()?));
    }
    // SAFETY: `np.dtype` is a live callable kept by `Numpy`.
    let dtype_fn = unsafe { Bound::from_borrowed_ptr(py, np.dtype) };
    let dtype = dtype_fn.call1((name,))?;
    let has_object = dtype.getattr("hasobject")?.is_truthy()?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    if has_object || itemsize == 0 {
        return Ok(None);
    }
    if cache.len() >= MAX_CACHED_DTYPES {
        cache.clear();
    }
    cache.set_item(name, (&dtype, itemsize))?;
    Ok(Some((dtype, itemsize)))
}
