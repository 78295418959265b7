//! The input of `unpackb` when it is not `bytes` (which is read in place, with
//! [`super::bytes_of`]): a bytearray, a C-contiguous memoryview, or any other object that
//! exports a C-contiguous buffer (an `mmap`, an `array.array`).

use std::mem::MaybeUninit;

use pyo3::ffi;
use pyo3::{Bound, Py, PyAny, PyErr, Python};

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

    /// Whether the memory is read-only (a copy is ours, so it counts as read-only).
    pub fn is_readonly(&self) -> bool {
        match self {
            InputBuffer::Exported(view) => view.readonly != 0,
            InputBuffer::Copied(_) => true,
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

/// An input buffer kept by an object that the garbage collector goes over (a view's document).
///
/// An export's reference to its exporter is invisible to the collector while it sits in the
/// `Py_buffer`; kept here, it is held as `exporter` instead, so that the keeper's `__traverse__`
/// can visit it: an exporter that refers back to the keeper (a `bytes` subclass with an attribute
/// holding a view of itself) is then collected with it.
pub enum KeptBuffer {
    Exported {
        /// The export, its `obj` null while kept: the reference is `exporter`'s.
        view: Box<ffi::Py_buffer>,
        exporter: Option<Py<PyAny>>,
    },
    Copied(Vec<u8>),
}

impl InputBuffer {
    /// This buffer, to be kept by an object whose `__traverse__` visits
    /// [`KeptBuffer::exporter`].
    pub fn keep(self, py: Python<'_>) -> KeptBuffer {
        let this = std::mem::ManuallyDrop::new(self);
        match &*this {
            // SAFETY: `this` is never dropped, so each field is read out of it exactly once.
            InputBuffer::Copied(data) => KeptBuffer::Copied(unsafe { std::ptr::read(data) }),
            InputBuffer::Exported(view) => {
                // SAFETY: as above.
                let mut view = unsafe { std::ptr::read(view) };
                let obj = std::mem::replace(&mut view.obj, std::ptr::null_mut());
                // SAFETY: a successful export owns one strong reference to `obj` (or holds
                // null); that reference moves into `exporter` and goes back into the view
                // before it is released (`Drop`).
                let exporter = unsafe { Bound::from_owned_ptr_or_opt(py, obj) }.map(Bound::unbind);
                KeptBuffer::Exported { view, exporter }
            }
        }
    }
}

impl KeptBuffer {
    /// The object whose memory is read, when it is an export.
    pub fn exporter(&self) -> Option<&Py<PyAny>> {
        match self {
            KeptBuffer::Exported { exporter, .. } => exporter.as_ref(),
            KeptBuffer::Copied(_) => None,
        }
    }

    pub fn as_slice(&self) -> &[u8] {
        match self {
            // SAFETY: the export lives as long as `self` (its exporter is held by `exporter`).
            KeptBuffer::Exported { view, .. } => unsafe { exported_bytes(view) },
            KeptBuffer::Copied(data) => data,
        }
    }
}

impl Drop for KeptBuffer {
    fn drop(&mut self) {
        if let KeptBuffer::Exported { view, exporter } = self {
            // The view gets its own reference back, which the release gives up; `exporter`
            // gives up its own when it is dropped after this.
            view.obj = exporter
                .as_ref()
                .map_or(std::ptr::null_mut(), |e| e.as_ptr());
            // SAFETY: `view.obj` is the exporter the view came from (or null, as it was); the
            // reference added here is the one `PyBuffer_Release` drops. A keeper is dropped by
            // its deallocator, with the GIL held.
            unsafe {
                ffi::Py_XINCREF(view.obj);
                ffi::PyBuffer_Release(&mut **view);
            }
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

/// `obj[start:end]` (a memoryview's slice, sharing its memory), or `None` with the error set.
///
/// Built here, not with pyo3's `PySlice::new`: `PySlice_New` takes new references to its bounds
/// and does not steal the caller's, and pyo3 0.30.1 passes it fresh ints it never releases,
/// which leaked two ints a slice whose bounds are outside the small-int cache.
///
/// # Safety
/// The GIL is held and `obj` is a live object.
pub unsafe fn slice_of(obj: Obj, start: usize, end: usize) -> Option<super::Owned> {
    // SAFETY: the GIL is held (the caller's contract); each bound is an owned reference, dropped
    // (released) after `PySlice_New`, which took references of its own; a null bound is passed
    // on only after the check, and `PySlice_New` accepts a null step (meaning None).
    unsafe {
        let lo = super::Owned::from_new(ffi::PyLong_FromSize_t(start))?;
        let hi = super::Owned::from_new(ffi::PyLong_FromSize_t(end))?;
        let slice = super::Owned::from_new(ffi::PySlice_New(
            lo.as_ptr(),
            hi.as_ptr(),
            std::ptr::null_mut(),
        ))?;
        super::Owned::from_new(ffi::PyObject_GetItem(obj, slice.as_ptr()))
    }
}
