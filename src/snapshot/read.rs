//! Reading a snapshot: its header alone (`_snapshot_info`), a file or bytes checked and
//! decompressed into the `bytes` that `unpackb` reads (`_snapshot_load`, `_snapshot_loads`), and
//! the header of a mapped file for `view` (`_snapshot_header`).
//!
//! Nothing is allocated by a length in the header before the header has been checked (its own
//! checksum, and its lengths against the file's), and nothing is decompressed before the stored
//! bytes have matched their checksum.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use fastmsgpack_core::snapshot::index::{self, Index};
use fastmsgpack_core::snapshot::{self as format, Codec, Fault, Header, Refusal};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::codec::decompress_into;
use super::error::{os_error, refused};
use super::send::{Fresh, Shared};
use crate::ffi::InputBuffer;
use crate::view::SnapshotIndex;

/// How much of a file is read first for its header.
const FIRST_READ: usize = 64 << 10;

/// Why a read failed: the file could not be read, or it was refused.
enum Failure {
    Io(io::Error),
    Refused(Refusal),
}

impl From<io::Error> for Failure {
    fn from(err: io::Error) -> Failure {
        Failure::Io(err)
    }
}

impl From<Refusal> for Failure {
    fn from(refusal: Refusal) -> Failure {
        Failure::Refused(refusal)
    }
}

fn raise(py: Python<'_>, failure: Failure, path: Option<&Path>) -> PyErr {
    match (failure, path) {
        (Failure::Io(err), Some(path)) => os_error(&err, path),
        (Failure::Io(err), None) => pyo3::exceptions::PyOSError::new_err(err.to_string()),
        (Failure::Refused(refusal), path) => refused(py, &refusal, path),
    }
}

/// The header of an open file: its bytes (the start of the file) and the parsed header.
fn read_header(file: &File) -> Result<(Vec<u8>, Header), Failure> {
    let total = file.metadata()?.len();
    let mut want = FIRST_READ.min(usize::try_from(total).unwrap_or(usize::MAX));
    loop {
        let mut head = vec![0; want];
        file.read_exact_at(&mut head, 0)?;
        match format::parse(&head, total) {
            Ok(header) => return Ok((head, header)),
            // The header (a large `meta`) goes on past what was read: read more. (A file cut
            // inside its payload is refused at once, without reading the rest of it.)
            Err(r) if r.fault == Fault::Truncated && r.offset == want && (want as u64) < total => {
                want = usize::try_from(total.min(want as u64 * 4)).unwrap_or(usize::MAX);
            }
            Err(r) => return Err(r.into()),
        }
    }
}

/// The header's fields as the mapping `info` gives (with `meta` still packed).
fn info_dict<'py>(py: Python<'py>, head: &[u8], header: &Header) -> PyResult<Bound<'py, PyDict>> {
    let info = PyDict::new(py);
    info.set_item("version", header.version)?;
    info.set_item("codec", header.codec.name())?;
    info.set_item("size", header.size)?;
    info.set_item("stored_size", header.stored_size)?;
    info.set_item("checksum", header.checksum)?;
    info.set_item("header_size", header.stored_start())?;
    info.set_item("index_size", header.index_len)?;
    info.set_item("meta", PyBytes::new(py, &head[header.meta.clone()]))?;
    Ok(info)
}

/// The index after the stored bytes of the snapshot `bytes` holds (the whole of it), parsed:
/// `None` for a version 1 snapshot.
fn index_in(bytes: &[u8], header: &Header) -> Result<Option<Index>, Refusal> {
    if header.index_len == 0 {
        return Ok(None);
    }
    // Within `bytes`: `parse` checked the lengths against its length.
    let end = header.stored_end() as usize;
    index::parse(&bytes[end..], end, header.size, header.checksum).map(Some)
}

/// The index of the snapshot in an open file with `header`, read and parsed.
fn read_index(file: &File, header: &Header) -> Result<Option<Index>, Failure> {
    if header.index_len == 0 {
        return Ok(None);
    }
    // Within the file's length: `parse` checked it (the index runs to the end of the file).
    let mut bytes = vec![0; header.index_len as usize];
    let end = header.stored_end();
    file.read_exact_at(&mut bytes, end)?;
    Ok(Some(index::parse(
        &bytes,
        end as usize,
        header.size,
        header.checksum,
    )?))
}

/// Checks `index` (if any) against the `payload` of the snapshot with `header`.
fn check_index(index: Option<&Index>, payload: &[u8], header: &Header) -> Result<(), Refusal> {
    match index {
        Some(index) => index.check_against(payload, header.stored_start()),
        None => Ok(()),
    }
}

/// `_snapshot_info(path)`: the header of the snapshot at `path`, read alone.
pub fn info(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let read = py.detach(|| {
        File::open(&path)
            .map_err(Failure::from)
            .and_then(|f| read_header(&f))
    });
    let (head, header) = read.map_err(|f| raise(py, f, Some(&path)))?;
    info_dict(py, &head, &header)
}

/// A new `bytes` object of `len` bytes, not yet written, and its memory.
fn fresh_bytes(py: Python<'_>, len: u64) -> PyResult<(Bound<'_, PyBytes>, Fresh)> {
    let len = isize::try_from(len).map_err(|_| pyo3::exceptions::PyMemoryError::new_err(()))?;
    // SAFETY: a null source asks CPython for an uninitialised `bytes` object of `len` bytes,
    // which is new (only we hold it) and whose buffer `PyBytes_AsString` returns; the `Fresh`
    // is used only while the returned object is held.
    unsafe {
        let ptr = pyo3::ffi::PyBytes_FromStringAndSize(std::ptr::null(), len);
        if ptr.is_null() {
            return Err(PyErr::fetch(py));
        }
        let memory = pyo3::ffi::PyBytes_AsString(ptr).cast::<u8>();
        let bytes = Bound::from_owned_ptr(py, ptr).cast_into_unchecked::<PyBytes>();
        Ok((bytes, Fresh::new(memory, len as usize)))
    }
}

/// The refusal of stored bytes that matched their checksum but would not decompress.
#[cold]
fn undecodable(header: &Header, reason: String) -> Refusal {
    Refusal {
        fault: Fault::Codec,
        offset: header.stored_start(),
        reason: format!("the payload does not decompress ({reason})"),
    }
}

/// `_snapshot_load(path)`: the header and the payload of the snapshot at `path`, checked and
/// decompressed, as a `bytes` object for `unpackb`.
pub fn load(py: Python<'_>, path: PathBuf) -> PyResult<(Bound<'_, PyDict>, Bound<'_, PyBytes>)> {
    let fail = |f| raise(py, f, Some(&path));
    // First, with the GIL released: the header, and the stored bytes if compressed.
    let first = py.detach(|| -> Result<_, Failure> {
        let file = File::open(&path)?;
        let (head, header) = read_header(&file)?;
        let stored = match header.codec {
            Codec::None => Vec::new(),
            _ => {
                // Within the file's length: `parse` checked it.
                let mut stored = vec![0; header.stored_size as usize];
                file.read_exact_at(&mut stored, header.stored_start() as u64)?;
                format::verify(&header, &stored)?;
                stored
            }
        };
        let index = read_index(&file, &header)?;
        Ok((file, head, header, stored, index))
    });
    let (file, head, header, stored, index) = first.map_err(fail)?;
    let (payload, mut memory) = fresh_bytes(py, header.size)?;
    let second = py.detach(|| -> Result<(), Failure> {
        let out = memory.get();
        match header.codec {
            Codec::None => {
                file.read_exact_at(out, header.stored_start() as u64)?;
                format::verify(&header, out)?;
            }
            codec => {
                decompress_into(codec, &stored, out).map_err(|r| undecodable(&header, r))?;
            }
        }
        check_index(index.as_ref(), out, &header)?;
        Ok(())
    });
    second.map_err(fail)?;
    Ok((info_dict(py, &head, &header)?, payload))
}

/// The bytes of a buffer given by Python.
fn input(obj: &Bound<'_, PyAny>) -> PyResult<InputBuffer> {
    // SAFETY: `obj` is alive (borrowed for the call) and the GIL is held.
    match unsafe { InputBuffer::acquire(obj.as_ptr()) }? {
        Some(buffer) => Ok(buffer),
        None => Err(pyo3::exceptions::PyTypeError::new_err(
            "a bytes-like object is required",
        )),
    }
}

/// `_snapshot_loads(data)`: the header of the snapshot in `data`, and its payload: decompressed
/// as new `bytes`, or None when stored as it is (it starts at the header's `header_size`).
pub fn loads<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyDict>, Option<Bound<'py, PyBytes>>)> {
    let buffer = input(data)?;
    let bytes = buffer.as_slice();
    let header = format::parse(bytes, bytes.len() as u64).map_err(|r| refused(py, &r, None))?;
    // Within `bytes`: `parse` checked the lengths against its length.
    let stored = &bytes[header.stored_start()..header.stored_end() as usize];
    let index = index_in(bytes, &header).map_err(|r| refused(py, &r, None))?;
    // SAFETY: `buffer` (a read-only export or a private copy) outlives the detached calls.
    let shared = unsafe { Shared::new(stored) };
    py.detach(|| format::verify(&header, shared.get()))
        .map_err(|r| refused(py, &r, None))?;
    let info = info_dict(py, bytes, &header)?;
    if header.codec == Codec::None {
        check_index(index.as_ref(), stored, &header).map_err(|r| refused(py, &r, None))?;
        return Ok((info, None));
    }
    let (payload, mut memory) = fresh_bytes(py, header.size)?;
    py.detach(|| {
        let out = memory.get();
        decompress_into(header.codec, shared.get(), out).map_err(|r| undecodable(&header, r))?;
        check_index(index.as_ref(), out, &header)
    })
    .map_err(|r| refused(py, &r, None))?;
    drop(buffer);
    Ok((info, Some(payload)))
}

/// `_snapshot_header(data, path, verify)`: the header of the snapshot held whole in `data` (a
/// read-only `mmap` of the file at `path`), reading only the pages it lies on, and its index
/// (None for a version 1 snapshot or a compressed one), checked against the few payload bytes
/// it points at; with `verify`, the payload's checksum is checked too (reading it all), and the
/// index against the index of the payload made again.
pub fn header<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    path: Option<PathBuf>,
    verify: bool,
) -> PyResult<(Bound<'py, PyDict>, Option<Bound<'py, SnapshotIndex>>)> {
    let buffer = input(data)?;
    let bytes = buffer.as_slice();
    let fail = |r: Refusal| refused(py, &r, path.as_deref());
    let header = format::parse(bytes, bytes.len() as u64).map_err(fail)?;
    // Within `bytes`: `parse` checked the lengths against its length.
    let stored = &bytes[header.stored_start()..header.stored_end() as usize];
    let index = match header.codec {
        Codec::None => index_in(bytes, &header).map_err(fail)?,
        _ => None,
    };
    check_index(index.as_ref(), stored, &header).map_err(fail)?;
    if verify {
        // SAFETY: `buffer` (a read-only export or a private copy) outlives the detached call.
        let shared = unsafe { Shared::new(stored) };
        py.detach(|| {
            format::verify(&header, shared.get())?;
            match &index {
                Some(index) if index::build(shared.get()).as_ref() != Some(index) => {
                    Err(index_mismatch(&header))
                }
                _ => Ok(()),
            }
        })
        .map_err(fail)?;
    }
    let info = info_dict(py, bytes, &header)?;
    drop(buffer);
    let index = index
        .map(|i| Bound::new(py, SnapshotIndex(i)))
        .transpose()?;
    Ok((info, index))
}

/// The refusal of an index that is not the index of its payload (a payload that matched its
/// checksum).
#[cold]
fn index_mismatch(header: &Header) -> Refusal {
    Refusal {
        fault: Fault::Checksum,
        offset: header.stored_end() as usize,
        reason: "the snapshot's index does not match its payload: the file is corrupted \
                 (restore it from a copy, or save it again)"
            .into(),
    }
}
