//! Output written into a caller's scratch buffer while it is small, then straight into a growing
//! `bytes` object, handed to Python without a copy.

use std::mem::MaybeUninit;
use std::os::raw::c_int;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Res};
use pyo3::ffi;
use pyo3::PyErr;

use super::Obj;

extern "C" {
    // Part of CPython's C API since the beginning (declared in Include/cpython/bytesobject.h);
    // reallocates a bytes object that has no other reference yet.
    fn _PyBytes_Resize(bytes: *mut Obj, newsize: ffi::Py_ssize_t) -> c_int;
}

/// Buffers from this size up are large for the C allocator (glibc maps them separately by
/// default); see [`release_block_of`].
const LARGE: usize = 128 * 1024;

/// The largest buffer capacity passed to [`release_block_of`] in this process.
static RELEASED: AtomicUsize = AtomicUsize::new(0);

/// The length of the last output in this process that outgrew the buffer it started in: the next
/// output that outgrows its buffer moves straight to about that size (see [`first_capacity`]).
static LAST_OUTGROWN: AtomicUsize = AtomicUsize::new(0);

/// Outputs longer than this leave no size to start from: glibc maps blocks of 32 MiB and up
/// separately whatever its threshold, and grows them by remapping, without copying.
const HINT_MAX: usize = 32 * 1024 * 1024;

/// The size of a [`Scratch`] buffer.
pub const SCRATCH_LEN: usize = 1024;

/// Room on the caller's stack for the start of an output: an output that fits is copied once
/// into a `bytes` object of its exact size, and never allocated, grown or trimmed.
pub type Scratch = [MaybeUninit<u8>; SCRATCH_LEN];

/// A new (uninitialised) scratch buffer.
#[inline(always)]
pub fn scratch() -> Scratch {
    [MaybeUninit::uninit(); SCRATCH_LEN]
}

/// Where a writer made by [`BytesWriter::in_pieces`] goes when its buffer is full: the owner
/// of its buffers, which may take the bytes written so far away (a piece of the output) and
/// give a new buffer to go on in.
pub trait Pieces {
    /// The buffer is full: `len` bytes are written in it and `extra` more do not fit. Returns
    /// the buffer to go on in (its start, its capacity and how many of its bytes are written),
    /// with room for `extra` more. With `keep` (an extension is open, whose header is written
    /// once its end is known) the bytes written must stay where they are, in a larger buffer.
    fn next(&mut self, len: usize, extra: usize, keep: bool) -> Res<(*mut u8, usize, usize)>;
}

/// An output under construction: in a scratch buffer until it outgrows it, then in a `bytes`
/// object owned exclusively until [`BytesWriter::finish`]; or, made by
/// [`BytesWriter::in_pieces`], in buffers that a [`Pieces`] owns and takes away when full.
pub struct BytesWriter {
    /// The bytes object, once the output is in one; null while it is in the scratch buffer
    /// (and always with `pieces`).
    obj: Obj,
    /// Where the output starts: the scratch buffer, or `obj`'s storage.
    buf: *mut u8,
    cap: usize,
    len: usize,
    /// The owner of the buffers of a writer in pieces; none for the others.
    pieces: Option<NonNull<dyn Pieces>>,
    /// How many extensions are open ([`BytesWriter::pin`]): their start must stay in the buffer.
    pins: u32,
}

impl BytesWriter {
    /// A writer that starts in `scratch`.
    ///
    /// # Safety
    /// The GIL is held while the writer lives, and `scratch` outlives the writer and is not used
    /// otherwise meanwhile.
    #[inline(always)]
    pub unsafe fn in_scratch(scratch: &mut Scratch) -> BytesWriter {
        BytesWriter {
            obj: std::ptr::null_mut(),
            buf: scratch.as_mut_ptr().cast(),
            cap: SCRATCH_LEN,
            len: 0,
            pieces: None,
            pins: 0,
        }
    }

    /// A writer that starts in `buf`, a caller's buffer of any size, as [`in_scratch`] does in a
    /// scratch buffer: an output that fits stays there ([`BytesWriter::written`] reads it), and
    /// one that outgrows it moves into a `bytes` object.
    ///
    /// [`in_scratch`]: BytesWriter::in_scratch
    ///
    /// # Safety
    /// The GIL is held while the writer lives, and `buf` outlives the writer and is not used
    /// otherwise meanwhile.
    #[inline(always)]
    pub unsafe fn in_buffer(buf: &mut [MaybeUninit<u8>]) -> BytesWriter {
        BytesWriter {
            obj: std::ptr::null_mut(),
            buf: buf.as_mut_ptr().cast(),
            cap: buf.len(),
            len: 0,
            pieces: None,
            pins: 0,
        }
    }

    /// A writer that starts in a bytes object of `cap` bytes.
    ///
    /// # Safety
    /// The GIL is held.
    pub unsafe fn with_capacity(cap: usize) -> Res<BytesWriter> {
        // SAFETY: the GIL is held (this function's precondition).
        let obj = unsafe { uninit_bytes(cap) };
        if obj.is_null() {
            return Err(fetch_memory_error());
        }
        // SAFETY: `obj` is a live bytes object.
        let buf = unsafe { ffi::PyBytes_AS_STRING(obj) as *mut u8 };
        Ok(BytesWriter {
            obj,
            buf,
            cap,
            len: 0,
            pieces: None,
            pins: 0,
        })
    }

    /// A writer whose buffers `pieces` owns: it starts with an empty buffer, asks `pieces` for
    /// one whenever the buffer is full, and never makes a `bytes` object ([`BytesWriter::finish`]
    /// is not for it: the owner takes the last `position()` bytes of the buffer it gave last).
    ///
    /// # Safety
    /// The GIL is held while the writer lives, and `pieces` outlives it and is not used
    /// otherwise meanwhile.
    pub unsafe fn in_pieces(pieces: &mut (dyn Pieces + 'static)) -> BytesWriter {
        BytesWriter {
            obj: std::ptr::null_mut(),
            buf: NonNull::dangling().as_ptr(),
            cap: 0,
            len: 0,
            pieces: Some(NonNull::from(pieces)),
            pins: 0,
        }
    }

    /// An extension opens: what is written from now on stays in one buffer until
    /// [`BytesWriter::unpin`] (its header is written at its start once its length is known).
    #[inline]
    pub fn pin(&mut self) {
        self.pins += 1;
    }

    /// The extension opened by the last [`BytesWriter::pin`] is closed.
    #[inline]
    pub fn unpin(&mut self) {
        self.pins = self.pins.saturating_sub(1);
    }

    /// Ensures room for `extra` more bytes.
    #[inline(always)]
    pub fn reserve(&mut self, extra: usize) -> Res {
        if self.cap - self.len < extra {
            self.grow(extra)?;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, extra: usize) -> Res {
        if let Some(mut pieces) = self.pieces {
            // SAFETY: `pieces` outlives the writer and is used by nothing else meanwhile
            // (`in_pieces`' contract).
            let owner = unsafe { pieces.as_mut() };
            let (buf, cap, len) = owner.next(self.len, extra, self.pins != 0)?;
            debug_assert!(cap - len >= extra);
            (self.buf, self.cap, self.len) = (buf, cap, len);
            return Ok(());
        }
        let need = self.len.checked_add(extra).ok_or_else(fetch_memory_error)?;
        let mut new_cap = need.max(self.cap.saturating_mul(2)).max(64);
        if self.obj.is_null() {
            let hinted = first_capacity();
            let mut obj = std::ptr::null_mut();
            if hinted > new_cap {
                // SAFETY: the GIL is held (the constructors' precondition).
                obj = unsafe { uninit_bytes(hinted) };
                if obj.is_null() {
                    // Only a guess from an earlier output: the size needed now is tried next.
                    // SAFETY: the GIL is held (the constructors' precondition).
                    unsafe { ffi::PyErr_Clear() };
                } else {
                    new_cap = hinted;
                }
            }
            if obj.is_null() {
                // SAFETY: the GIL is held (the constructors' precondition).
                obj = unsafe { uninit_bytes(new_cap) };
            }
            if obj.is_null() {
                return Err(self.failed());
            }
            // SAFETY: the new object has `new_cap >= len` bytes of storage, separate from the
            // scratch buffer, whose first `len` bytes were written.
            unsafe {
                let dst = ffi::PyBytes_AS_STRING(obj) as *mut u8;
                std::ptr::copy_nonoverlapping(self.buf, dst, self.len);
            }
            self.obj = obj;
        } else {
            // SAFETY: `self.obj` is our exclusively owned bytes object (refcount 1, never
            // shared); on failure CPython frees it and sets it to null.
            let rc = unsafe { _PyBytes_Resize(&mut self.obj, new_cap as ffi::Py_ssize_t) };
            if rc != 0 {
                return Err(self.failed());
            }
        }
        // SAFETY: `self.obj` is a live bytes object of `new_cap` bytes.
        self.buf = unsafe { ffi::PyBytes_AS_STRING(self.obj) as *mut u8 };
        self.cap = new_cap;
        Ok(())
    }

    /// After a failed allocation: nothing is owned or writable any more.
    #[cold]
    fn failed(&mut self) -> Error {
        self.obj = std::ptr::null_mut();
        self.buf = NonNull::dangling().as_ptr();
        self.cap = 0;
        self.len = 0;
        fetch_memory_error()
    }

    #[inline(always)]
    fn data(&mut self) -> *mut u8 {
        self.buf
    }

    /// Appends bytes for which room was reserved.
    ///
    /// Copies of up to 32 bytes (most keys and strings) are done with fixed-size moves instead of
    /// a call to `memcpy`.
    ///
    /// # Safety
    /// A prior `reserve` guaranteed room for `bytes.len()` more bytes.
    #[inline(always)]
    pub unsafe fn put_unchecked(&mut self, bytes: &[u8]) {
        debug_assert!(self.cap - self.len >= bytes.len());
        let at = self.len;
        // SAFETY: a prior `reserve` made room for `bytes.len()` bytes at `at` (this method's
        // precondition), and the destination is our private buffer, apart from `bytes`.
        unsafe { copy_bytes(bytes, self.data().add(at)) };
        self.len = at + bytes.len();
    }

    /// Appends the first `len` bytes of `block`, writing all of it (the rest is overwritten
    /// by what comes next): a fixed-size move instead of a variable-length copy.
    ///
    /// # Safety
    /// A prior `reserve` guaranteed room for `N` more bytes, and `len <= N`.
    #[inline(always)]
    pub unsafe fn put_block<const N: usize>(&mut self, block: &[u8; N], len: usize) {
        debug_assert!(self.cap - self.len >= N && len <= N);
        // The length is read once, before the stores: a store through the byte pointer could
        // otherwise be taken to change it, and it would be read again after.
        let at = self.len;
        // SAFETY: a prior `reserve` made room for `N` more bytes at `at` (this method's
        // precondition), and exactly `N` are written.
        unsafe {
            let dst = self.data().add(at);
            dst.cast::<[u8; N]>().write_unaligned(*block);
        }
        self.len = at + len;
    }

    /// Appends the first `len` bytes of `block` (written whole, as [`BytesWriter::put_block`]
    /// does) and then `payload`: a header and what it precedes, with one update of the length.
    ///
    /// # Safety
    /// A prior `reserve` guaranteed room for `N + payload.len()` more bytes, and `len <= N`.
    #[inline(always)]
    pub unsafe fn put_block_then<const N: usize>(
        &mut self,
        block: &[u8; N],
        len: usize,
        payload: &[u8],
    ) {
        debug_assert!(self.cap - self.len >= N + payload.len() && len <= N);
        let at = self.len;
        // SAFETY: a prior `reserve` made room for `N + payload.len()` bytes at `at` (this method's
        // precondition): the block's `N` bytes, then the payload's from `len <= N` on; the
        // destination is our private buffer, apart from `payload`.
        unsafe {
            let dst = self.data().add(at);
            dst.cast::<[u8; N]>().write_unaligned(*block);
            copy_bytes(payload, dst.add(len));
        }
        self.len = at + len + payload.len();
    }

    /// Where the next byte goes. Writes through it must stay within reserved room and be
    /// committed with [`BytesWriter::advance`].
    ///
    /// # Safety
    /// Room was reserved for everything written through the pointer.
    #[inline(always)]
    pub unsafe fn tail(&mut self) -> *mut u8 {
        // SAFETY: `len <= cap`, so this stays within (or one past) the object's storage.
        unsafe { self.data().add(self.len) }
    }

    /// Commits `n` bytes written through [`BytesWriter::tail`].
    ///
    /// # Safety
    /// Those `n` bytes were reserved and written.
    #[inline(always)]
    pub unsafe fn advance(&mut self, n: usize) {
        debug_assert!(self.cap - self.len >= n);
        self.len += n;
    }

    /// Appends what `write` writes at the tail, given where the next byte goes; it returns how
    /// many bytes it wrote. The length is read once, before those stores.
    ///
    /// # Safety
    /// Room was reserved for everything `write` writes, and it returns how many bytes that is.
    #[inline(always)]
    pub unsafe fn put_with(&mut self, write: impl FnOnce(*mut u8) -> usize) {
        let at = self.len;
        // SAFETY: `at == len <= cap`, within (or one past) the buffer; what `write` writes there
        // was reserved (this method's precondition).
        let n = write(unsafe { self.data().add(at) });
        debug_assert!(self.cap - at >= n);
        self.len = at + n;
    }

    /// The last byte written, if any.
    #[inline(always)]
    pub fn last(&mut self) -> Option<u8> {
        let len = self.len.checked_sub(1)?;
        // SAFETY: `len < self.len`, a byte that was written.
        Some(unsafe { *self.data().add(len) })
    }

    /// Takes back the last byte written (if any).
    #[inline(always)]
    pub fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    /// Appends bytes, growing as needed.
    #[inline(always)]
    pub fn put(&mut self, bytes: &[u8]) -> Res {
        self.reserve(bytes.len())?;
        // SAFETY: room was just reserved.
        unsafe { self.put_unchecked(bytes) };
        Ok(())
    }

    /// The bytes written so far.
    pub fn written(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: the first `len` bytes at `buf` were written, and stay where they are until the
        // writer is used mutably again.
        unsafe { std::slice::from_raw_parts(self.buf, self.len) }
    }

    /// How many bytes were written.
    #[inline(always)]
    pub fn position(&self) -> usize {
        self.len
    }

    /// Replaces the `gap` bytes written at `at` (a placeholder) with `header`, no longer than
    /// `gap`, moving what was written after them back to follow it.
    pub fn close_gap(&mut self, at: usize, gap: usize, header: &[u8]) {
        debug_assert!(header.len() <= gap && at + gap <= self.len);
        if header.len() > gap || at.checked_add(gap).is_none_or(|end| end > self.len) {
            return;
        }
        let moved = self.len - at - gap;
        // SAFETY: `at + gap <= len`: both ranges lie within the written bytes, and `copy`
        // allows them to overlap.
        unsafe {
            let base = self.data().add(at);
            std::ptr::copy_nonoverlapping(header.as_ptr(), base, header.len());
            std::ptr::copy(base.add(gap), base.add(header.len()), moved);
        }
        self.len -= gap - header.len();
    }

    /// Whether the output outgrew the buffer it started in and moved into a `bytes` object.
    pub fn outgrew_buffer(&self) -> bool {
        !self.obj.is_null()
    }

    /// The bytes written, as a `bytes` object whose reference is handed over: made from the
    /// scratch buffer, or the object written into, shrunk to them unless it is large and they
    /// fill most of it (see [`BytesWriter::keep_whole`]).
    pub fn finish(mut self) -> Res<Obj> {
        if self.obj.is_null() {
            // SAFETY: the first `len` bytes of the scratch buffer were written; CPython copies
            // them into a new object.
            let obj = unsafe {
                ffi::PyBytes_FromStringAndSize(
                    self.buf.cast_const().cast(),
                    self.len as ffi::Py_ssize_t,
                )
            };
            if obj.is_null() {
                return Err(fetch_memory_error());
            }
            return Ok(obj);
        }
        remember_outgrown(self.len);
        if self.len != self.cap {
            if self.cap >= LARGE {
                // Read first: threads writing outputs of sizes already reached leave the line
                // shared instead of taking it for a read-modify-write each.
                if RELEASED.load(Ordering::Relaxed) < self.cap
                    && RELEASED.fetch_max(self.cap, Ordering::Relaxed) < self.cap
                {
                    // SAFETY: a writer is used only while the GIL is held, from its making
                    // to its end (its constructors' precondition).
                    unsafe { release_block_of(self.cap) };
                }
                if self.cap - self.len < (self.cap / 4).min(LARGE) {
                    return Ok(self.keep_whole());
                }
            }
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

    /// The object with its length set to the bytes written, its storage left whole.
    ///
    /// Shrinking a large buffer by a short tail gives that tail back to the allocator, where
    /// small objects soon take it; once the output is freed, the hole it leaves is then too small
    /// for the next output of the same size, which glibc serves from fresh memory at the top of
    /// the heap, faulting in every page (and later trims that memory again). Repeating 1 MB
    /// outputs into a 1 MiB buffer, each kept until the next was made, took 155.7 page faults and
    /// 369 us per call, against 0 and 58 us with the buffer kept whole. Measured on buffers of
    /// 512 KiB to 8 MiB, this happened when the tail was under about 120 KiB, and not with longer
    /// tails nor on 256 KiB buffers: so a tail under 128 KiB, and under a quarter of the buffer,
    /// is kept. The object then holds at most 128 KiB, and a third of its length, more than it
    /// needs; the tail is never written, so where the buffer is a separate mapping its pages are
    /// not even resident.
    fn keep_whole(mut self) -> Obj {
        let obj = std::mem::replace(&mut self.obj, std::ptr::null_mut());
        // SAFETY: `obj` is our bytes object with `cap + 1` bytes of storage (CPython adds the
        // terminating NUL) and `len < cap`; a bytes object of length `len` holds its bytes and
        // a NUL at `len`, and nothing has read its length or hash yet.
        unsafe {
            (*obj.cast::<ffi::PyVarObject>()).ob_size = self.len as ffi::Py_ssize_t;
            *self.buf.add(self.len) = 0;
        }
        obj
    }
}

/// Copies `src` to `dst`: up to 32 bytes with two fixed-size moves of the size class (which
/// overlap rather than overrun), longer ones with `memcpy`.
///
/// # Safety
/// `dst` is valid for `src.len()` bytes of writes and does not overlap `src`.
#[inline(always)]
unsafe fn copy_bytes(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let src = src.as_ptr();
    // SAFETY: every read below stays within `src[..n]` and every write within `dst[..n]` (the
    // two moves of each size class start at 0 and end at `n`), which do not overlap (this
    // function's precondition).
    unsafe {
        if n > 32 {
            std::ptr::copy_nonoverlapping(src, dst, n);
        } else if n >= 16 {
            let head = src.cast::<[u8; 16]>().read_unaligned();
            let tail = src.add(n - 16).cast::<[u8; 16]>().read_unaligned();
            dst.cast::<[u8; 16]>().write_unaligned(head);
            dst.add(n - 16).cast::<[u8; 16]>().write_unaligned(tail);
        } else if n >= 8 {
            let head = src.cast::<u64>().read_unaligned();
            let tail = src.add(n - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(head);
            dst.add(n - 8).cast::<u64>().write_unaligned(tail);
        } else if n >= 4 {
            let head = src.cast::<u32>().read_unaligned();
            let tail = src.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(head);
            dst.add(n - 4).cast::<u32>().write_unaligned(tail);
        } else if n > 0 {
            *dst = *src;
            *dst.add(n / 2) = *src.add(n / 2);
            *dst.add(n - 1) = *src.add(n - 1);
        }
    }
}

/// A new bytes object of `cap` bytes, not yet written, or null with an exception set.
///
/// # Safety
/// The GIL is held.
#[inline(always)]
unsafe fn uninit_bytes(cap: usize) -> *mut ffi::PyObject {
    // SAFETY: a null source asks CPython for an uninitialised bytes object of `cap` bytes; the
    // GIL is held (this function's precondition).
    unsafe { ffi::PyBytes_FromStringAndSize(std::ptr::null(), cap as ffi::Py_ssize_t) }
}

/// Where an output that outgrows the buffer it started in goes first: an eighth more than the last
/// such output, so that outputs of about one size (a service answering alike, a snapshot saved
/// again) are allocated once, instead of growing by doubling from 2 KiB and being copied at most
/// of the steps (seven allocations for an 80 KB output). The first output of a process, and any
/// after one longer than [`HINT_MAX`], grow by doubling from twice the first buffer. A guess too
/// large costs one allocation of untouched memory, given back by [`BytesWriter::finish`]; the next
/// output starts from this one's size.
#[inline(always)]
fn first_capacity() -> usize {
    let last = LAST_OUTGROWN.load(Ordering::Relaxed);
    if last > HINT_MAX {
        return 0;
    }
    last + last / 8
}

/// Records the length of an output that outgrew its first buffer (written only when it changed,
/// so that threads packing outputs of one size do not contend for the line).
#[inline(always)]
fn remember_outgrown(len: usize) {
    if LAST_OUTGROWN.load(Ordering::Relaxed) != len {
        LAST_OUTGROWN.store(len, Ordering::Relaxed);
    }
}

/// Allocates a block of `size` bytes from the allocator that holds `bytes` objects and frees it
/// at once, without writing to it.
///
/// A buffer that grew past glibc's mmap threshold was mapped separately, and shrinking it in
/// place leaves the allocator seeing only frees smaller than the blocks requested while growing.
/// glibc raises its threshold to the size of a freed mapped block (mallopt(3), up to 32 MiB on
/// 64-bit), so without a free of the full size it keeps serving every output of that size from
/// fresh mappings, and each call pays a page fault per 4 KiB written (this doubled the time of
/// 1 MB outputs). Freeing an untouched block of the full size raises the threshold for the cost
/// of mapping and unmapping it: no page of it becomes resident, and the output is not copied.
/// Done the first time each larger size is reached in the process.
///
/// # Safety
/// The GIL is held (`PyObject_Malloc` needs it).
#[cold]
#[inline(never)]
unsafe fn release_block_of(size: usize) {
    // SAFETY: the GIL is held (this function's precondition); the block is freed unread and
    // unwritten, and a failed allocation (null) is simply not freed.
    unsafe {
        let block = ffi::PyObject_Malloc(size);
        if !block.is_null() {
            ffi::PyObject_Free(block);
        }
    }
}

impl Drop for BytesWriter {
    fn drop(&mut self) {
        if !self.obj.is_null() {
            // SAFETY: we own the only reference to the unfinished object.
            unsafe { super::refcount::decref(self.obj) }
        }
    }
}

#[cold]
fn fetch_memory_error() -> Error {
    debug_assert!(super::attached(), "a writer on a detached thread");
    // SAFETY: a writer is used only while the GIL is held, from its making to its end (its
    // constructors' precondition); checked in debug builds.
    let py = unsafe { pyo3::Python::assume_attached() };
    PyErr::take(py)
        .unwrap_or_else(|| pyo3::exceptions::PyMemoryError::new_err("out of memory"))
        .into()
}
