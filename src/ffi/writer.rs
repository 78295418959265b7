//! Output written straight into a growing `bytes` object, handed to Python without a copy.

use std::os::raw::c_int;

use pyo3::ffi;
use pyo3::PyErr;
use pyo3::PyResult;

use super::Obj;

extern "C" {
    // Part of CPython's C API since the beginning (declared in Include/cpython/bytesobject.h);
    // reallocates a bytes object that has no other reference yet.
    fn _PyBytes_Resize(bytes: *mut Obj, newsize: ffi::Py_ssize_t) -> c_int;
}

/// A `bytes` object under construction, owned exclusively until [`BytesWriter::finish`].
pub struct BytesWriter {
    obj: Obj,
    cap: usize,
    len: usize,
}

impl BytesWriter {
    /// # Safety
    /// The GIL is held.
    pub unsafe fn with_capacity(cap: usize) -> PyResult<BytesWriter> {
        // SAFETY: a null source asks CPython for an uninitialised bytes object of `cap` bytes.
        let obj =
            unsafe { ffi::PyBytes_FromStringAndSize(std::ptr::null(), cap as ffi::Py_ssize_t) };
        if obj.is_null() {
            return Err(fetch_memory_error());
        }
        Ok(BytesWriter { obj, cap, len: 0 })
    }

    /// Ensures room for `extra` more bytes.
    #[inline(always)]
    pub fn reserve(&mut self, extra: usize) -> PyResult<()> {
        if self.cap - self.len < extra {
            self.grow(extra)?;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, extra: usize) -> PyResult<()> {
        let need = self.len.checked_add(extra).ok_or_else(fetch_memory_error)?;
        let new_cap = need.max(self.cap.saturating_mul(2)).max(64);
        // SAFETY: `self.obj` is our exclusively owned bytes object (refcount 1, never shared);
        // on failure CPython frees it and sets it to null, which we record.
        let rc = unsafe { _PyBytes_Resize(&mut self.obj, new_cap as ffi::Py_ssize_t) };
        if rc != 0 {
            self.obj = std::ptr::null_mut();
            self.cap = 0;
            self.len = 0;
            return Err(fetch_memory_error());
        }
        self.cap = new_cap;
        Ok(())
    }

    #[inline(always)]
    fn data(&mut self) -> *mut u8 {
        // SAFETY: `self.obj` is a live bytes object whenever a write happens (writes follow a
        // successful `reserve`).
        unsafe { ffi::PyBytes_AS_STRING(self.obj) as *mut u8 }
    }

    /// Appends bytes for which room was reserved.
    ///
    /// # Safety
    /// A prior `reserve` guaranteed room for `bytes.len()` more bytes.
    #[inline(always)]
    pub unsafe fn put_unchecked(&mut self, bytes: &[u8]) {
        debug_assert!(self.cap - self.len >= bytes.len());
        // SAFETY: the caller reserved room; source and destination cannot overlap (the
        // destination is our private buffer).
        unsafe {
            let dst = self.data().add(self.len);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        }
        self.len += bytes.len();
    }

    /// Appends bytes, growing as needed.
    #[inline(always)]
    pub fn put(&mut self, bytes: &[u8]) -> PyResult<()> {
        self.reserve(bytes.len())?;
        // SAFETY: room was just reserved.
        unsafe { self.put_unchecked(bytes) };
        Ok(())
    }

    /// Shrinks the object to the bytes written and hands over the reference.
    pub fn finish(mut self) -> PyResult<Obj> {
        if self.len != self.cap {
            // SAFETY: as in `grow`; shrinking keeps the first `len` bytes.
            let rc = unsafe { _PyBytes_Resize(&mut self.obj, self.len as ffi::Py_ssize_t) };
            if rc != 0 {
                self.obj = std::ptr::null_mut();
                return Err(fetch_memory_error());
            }
        }
        let obj = self.obj;
        self.obj = std::ptr::null_mut();
        Ok(obj)
    }
}

impl Drop for BytesWriter {
    fn drop(&mut self) {
        if !self.obj.is_null() {
            // SAFETY: we own the only reference to the unfinished object.
            unsafe { ffi::Py_DECREF(self.obj) }
        }
    }
}

#[cold]
fn fetch_memory_error() -> PyErr {
    // SAFETY: only reads and clears the current thread's error indicator; the GIL is held by
    // every caller of the writer.
    let py = unsafe { pyo3::Python::assume_attached() };
    PyErr::take(py).unwrap_or_else(|| pyo3::exceptions::PyMemoryError::new_err("out of memory"))
}
