//! The input of `unpackb` when it is not `bytes` (which is read in place, with
//! [`super::bytes_of`]): a bytearray, a C-contiguous memoryview, or any other object that
//! exports a C-contiguous buffer (an `mmap`, an `array.array`).

use std::mem::MaybeUninit;

use pyo3::ffi;
use pyo3::PyErr;

use super::Obj;

/// Read access to the bytes of a buffer given to `unpackb`, held for the whole call.
///
/// Read-only memory (a memoryview of `bytes`, a read-only `mmap`) is read in place; a read-only
/// export is held so it cannot be freed. Writable memory (`bytearray`, a memoryview of one, a
/// writable `mmap`) is copied first: Python code run during the decode (`ext_hook`, a finalizer)
/// could otherwise change it while it is being read.
pub enum InputBuffer {
    Exported(Box<ffi::Py_buffer>),
    Copied(Vec<u8>),
}

impl InputBuffer {
    /// `Ok(None)` when `obj` exports no buffer.
    ///
    /// # Safety
    /// `obj` is live (and stays alive while the buffer is used) and the GIL is held.
    pub unsafe fn acquire(obj: Obj) -> Result<Option<InputBuffer>, PyErr> {
        // SAFETY: type checks on a live object.
        unsafe {
            if ffi::PyByteArray_Check(obj) != 0 {
                // Copied while no other thread can resize or write it (its lock, in free-threaded
                // builds): one state of it, whatever other threads do meanwhile.
                return Ok(Some(InputBuffer::Copied(super::with_bytearray(
                    obj,
                    <[u8]>::to_vec,
                ))));
            }
            if ffi::PyMemoryView_Check(obj) == 0 && ffi::PyObject_CheckBuffer(obj) == 0 {
                return Ok(None);
            }
            let exported = InputBuffer::export(obj)?;
            match &exported {
                InputBuffer::Exported(view) if view.readonly == 0 => {
                    Ok(Some(InputBuffer::Copied(exported.as_slice().to_vec())))
                }
                _ => Ok(Some(exported)),
            }
        }
    }

    /// A read-only export of an object's C-contiguous memory (the error `BufferError` otherwise).
    ///
    /// # Safety
    /// `obj` is live (and stays alive while the buffer is used) and the GIL is held.
    pub unsafe fn export(obj: Obj) -> Result<InputBuffer, PyErr> {
        let mut view: Box<MaybeUninit<ffi::Py_buffer>> = Box::new(MaybeUninit::uninit());
        // SAFETY: a simple (flags 0) request succeeds only for C-contiguous memory; on success
        // the view is initialised and owned by us until released.
        unsafe {
            if ffi::PyObject_GetBuffer(obj, view.as_mut_ptr(), ffi::PyBUF_SIMPLE) != 0 {
                return Err(super::fetch_error());
            }
            let view: Box<ffi::Py_buffer> = Box::from_raw(Box::into_raw(view).cast());
            Ok(InputBuffer::Exported(view))
        }
    }

    pub fn as_slice(&self) -> &[u8] {
        match self {
            // SAFETY: the export lives as long as `self`.
            InputBuffer::Exported(view) => unsafe { exported_bytes(view) },
            InputBuffer::Copied(data) => data,
        }
    }
}

/// The bytes of an export.
///
/// # Safety
/// `view` was filled by a successful `PyObject_GetBuffer` and is not released while the bytes
/// are used.
unsafe fn exported_bytes(view: &ffi::Py_buffer) -> &[u8] {
    let len = view.len as usize;
    if len == 0 {
        return &[];
    }
    // SAFETY: the export keeps `len` bytes at `buf` alive and unchanged until it is released.
    unsafe { std::slice::from_raw_parts(view.buf as *const u8, len) }
}

/// Calls `f` with the bytes of `obj`'s C-contiguous memory, exported for the duration of the
/// call (the error `BufferError` when it has none). The export lives on the stack: the
/// serializer's memoryviews need no allocation of their own.
///
/// # Safety
/// `obj` is live and the GIL is held; `f` runs no Python code that could free `obj`.
pub unsafe fn with_exported<R>(obj: Obj, f: impl FnOnce(&[u8]) -> R) -> Result<R, PyErr> {
    /// Releases the export when dropped, also if `f` panics.
    struct Export<'a>(&'a mut ffi::Py_buffer);
    impl Drop for Export<'_> {
        fn drop(&mut self) {
            // SAFETY: the view came from a successful `PyObject_GetBuffer`, released once here,
            // with the GIL held (the function's contract).
            unsafe { ffi::PyBuffer_Release(self.0) }
        }
    }
    let mut view = MaybeUninit::<ffi::Py_buffer>::uninit();
    // SAFETY: as in `InputBuffer::export`; the view is not moved while exported.
    unsafe {
        if ffi::PyObject_GetBuffer(obj, view.as_mut_ptr(), ffi::PyBUF_SIMPLE) != 0 {
            return Err(super::fetch_error());
        }
        let export = Export(view.assume_init_mut());
        Ok(f(exported_bytes(export.0)))
    }
}

impl Drop for InputBuffer {
    fn drop(&mut self) {
        if let InputBuffer::Exported(view) = self {
            // SAFETY: the view came from a successful `PyObject_GetBuffer`, released once here;
            // the decoder holds the GIL for its whole run.
            unsafe { ffi::PyBuffer_Release(&mut **view) }
        }
    }
}

/// Fills `view`, a buffer request with `flags` made of `owner`, with read-only access to
/// `bytes` (a `BufferError` when the request wants to write).
///
/// # Safety
/// `view` is the request CPython passed to `owner`'s `bf_getbuffer`, the GIL is held, and
/// `owner` keeps `bytes` alive and unchanged until the export is released.
pub unsafe fn fill_readonly(
    view: *mut ffi::Py_buffer,
    owner: Obj,
    bytes: &[u8],
    flags: std::os::raw::c_int,
) -> Result<(), PyErr> {
    // SAFETY: as the function's contract; CPython takes a new reference to `owner`.
    let status = unsafe {
        ffi::PyBuffer_FillInfo(
            view,
            owner,
            bytes.as_ptr() as *mut std::os::raw::c_void,
            bytes.len() as ffi::Py_ssize_t,
            1,
            flags,
        )
    };
    if status != 0 {
        // SAFETY: the failed call set an exception.
        return Err(super::fetch_error());
    }
    Ok(())
}
