//! The output of `Packer.pack_into`: a finished message copied into a caller's `bytearray`.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyByteArray;

use super::fetch_error;

/// Makes `target` end with `data` placed at `offset`: its first `offset` bytes are kept, the
/// rest is replaced, and its length becomes `offset + data.len()`. On error (the bytearray has a
/// live export and would need a new size, or memory ran out) it is left unchanged.
///
/// `offset` must not exceed the bytearray's length, which is checked here: the caller's Python
/// code may have shortened it since the caller last looked.
///
/// # Safety
/// `data` does not point into `target`'s storage (which the resize may move or free).
pub unsafe fn place_at(
    target: &Bound<'_, PyByteArray>,
    offset: usize,
    data: &[u8],
) -> PyResult<()> {
    let len = target.len();
    if offset > len {
        return Err(offset_past_end(offset, len));
    }
    let Some(new_len) = offset
        .checked_add(data.len())
        .filter(|&n| isize::try_from(n).is_ok())
    else {
        return Err(pyo3::exceptions::PyMemoryError::new_err(
            "the bytearray would be too large",
        ));
    };
    let obj = target.as_ptr();
    // SAFETY: `target` is a live bytearray (or subclass) and the GIL is held (`Bound`).
    // Resizing either succeeds, leaving at least `new_len` bytes of storage whose first
    // `offset` are the old ones, or fails with an exception set and the bytearray unchanged.
    // No Python code runs between the resize and the copy, and `data` lies outside the storage
    // (the function's contract), so the copy stays within storage that nothing else writes.
    unsafe {
        if ffi::PyByteArray_Resize(obj, new_len as ffi::Py_ssize_t) != 0 {
            return Err(fetch_error());
        }
        if !data.is_empty() {
            let dst = ffi::PyByteArray_AsString(obj).cast::<u8>();
            std::ptr::copy_nonoverlapping(data.as_ptr(), dst.add(offset), data.len());
        }
    }
    Ok(())
}

#[cold]
pub fn offset_past_end(offset: usize, len: usize) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(format!(
        "offset {offset} is past the end of the bytearray (length {len})"
    ))
}
