//! Writing a snapshot: to a file durably (`_snapshot_save`), or to bytes (`_snapshot_dumps`).
//!
//! A file is written as a temporary file in the same directory (created exclusively), the
//! header and payload written and `fsync`ed, renamed over the path, and the directory `fsync`ed:
//! a crash leaves the old file or the new one under the path, never a part of one. Any failure
//! before the rename removes the temporary file and leaves the old file as it was.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use fastmsgpack_core::snapshot::{self as format, index, Codec};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::codec::{compress_into, Settings};
use super::error::os_error;
use super::pieces::{Packed, Plan, Sink, Stored};
use super::send::Shared;
use super::temp;
use crate::ffi::InputBuffer;

/// The size of the buffer between the compressor and the file.
const WRITE_BUFFER: usize = 1 << 20;

/// Reads `codec`, `level` and `threads` as given by `fastmsgpack.snapshot` (no index: the
/// caller decides).
pub fn settings(codec: &str, level: i32, threads: u32) -> PyResult<Settings> {
    let codec = match codec {
        "none" => Codec::None,
        "zstd" => Codec::Zstd,
        "lz4" => Codec::Lz4,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "compress must be \"zstd\", \"lz4\" or None, not {other:?}"
            )))
        }
    };
    Ok(Settings {
        codec,
        level,
        threads,
        index: false,
    })
}

/// The bytes of `obj` (bytes, or a buffer), exported for the call.
fn input(obj: &Bound<'_, PyAny>) -> PyResult<InputBuffer> {
    // SAFETY: `obj` is alive (borrowed for the call) and the GIL is held.
    match unsafe { InputBuffer::acquire(obj.as_ptr()) }? {
        Some(buffer) => Ok(buffer),
        None => Err(pyo3::exceptions::PyTypeError::new_err(
            "a bytes-like object is required",
        )),
    }
}

/// Writes the snapshot of the packed `data` to `out`: the header (with `meta`, a packed map or
/// nil), then the payload. `out` is written in order, and the header rewritten at its start once
/// the compressed length and checksum are known (`rewrite`).
fn write_snapshot<W: Write>(
    out: W,
    data: &[u8],
    meta: &[u8],
    settings: Settings,
    rewrite: impl FnOnce(W, &[u8], &[u8]) -> io::Result<W>,
) -> io::Result<W> {
    let size = data.len() as u64;
    if settings.codec == Codec::None {
        // A payload that is not one whole object (`frame` of bytes given) gets no index.
        let index = settings.index.then(|| index::build(data)).flatten();
        let (mut header, slots) = format::header_bytes(settings.codec, meta, index.is_some());
        let checksum = format::checksum_of(data);
        format::seal(&mut header, slots, size, size, checksum);
        let mut out = out;
        out.write_all(&header)?;
        out.write_all(data)?;
        if let Some(index) = index {
            out.write_all(&index.encode(checksum))?;
        }
        return Ok(out);
    }
    let (mut header, slots) = format::header_bytes(settings.codec, meta, false);
    let mut out = out;
    out.write_all(&header)?;
    out.write_all(&[0xc6, 0, 0, 0, 0])?;
    let (out, stored_size, checksum) = compress_into(out, data, settings)?;
    let Some(prefix) = format::bin32_prefix(stored_size) else {
        return Err(too_large());
    };
    format::seal(&mut header, slots, size, stored_size, checksum);
    rewrite(out, &header, &prefix)
}

/// `_snapshot_save(path, data, codec, level, threads, meta, index)`: writes the packed `data`
/// as a snapshot at `path`, durably; uncompressed, with an offset index if `index` is true, or
/// if it is None and the payload is large enough for one to pay (`index::PAYLOAD_MIN`) and
/// within the 4 GiB a view's tables reach.
pub fn save_buffer(
    py: Python<'_>,
    path: PathBuf,
    data: &Bound<'_, PyAny>,
    mut settings: Settings,
    meta: &Bound<'_, PyBytes>,
    index: Option<bool>,
) -> PyResult<()> {
    let data = input(data)?;
    let len = data.as_slice().len();
    let pays = (index::PAYLOAD_MIN..=u32::MAX as usize).contains(&len);
    settings.index = settings.codec == Codec::None && index.unwrap_or(pays);
    // SAFETY: `data` and `meta` (an export, and a `bytes` object, borrowed for this call)
    // outlive the detached call below, and neither can change: the export is read-only.
    let (shared, meta) = unsafe { (Shared::new(data.as_slice()), Shared::new(meta.as_bytes())) };
    let result = py.detach(|| save(&path, shared.get(), meta.get(), settings));
    drop(data);
    result.map_err(|(err, at)| os_error(&err, &at))
}

/// The directory of `path` and its file name.
fn place(path: &Path) -> Result<(PathBuf, &std::ffi::OsStr), (io::Error, PathBuf)> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| (io::Error::from_raw_os_error(21), path.to_path_buf()))?;
    Ok((dir, name))
}

/// The durable write: the error, and the path it concerns, if any step fails.
fn save(
    path: &Path,
    data: &[u8],
    meta: &[u8],
    settings: Settings,
) -> Result<(), (io::Error, PathBuf)> {
    let (dir, name) = place(path)?;
    let temp = temp::create(&dir, name).map_err(|e| (e, dir.clone()))?;
    let written = write_file(&temp.file, data, meta, settings);
    commit(temp, path, written)
}

/// Ends a save whose temporary file `temp` was `written` (and `fsync`ed): renames it over
/// `path` and `fsync`s the directory, or removes it if writing failed. Once the new snapshot is
/// in place, the temporary files that dead saves of the same path left are removed.
fn commit(
    temp: temp::Temp,
    path: &Path,
    written: io::Result<()>,
) -> Result<(), (io::Error, PathBuf)> {
    let (dir, name) = place(path)?;
    let renamed = written.and_then(|()| std::fs::rename(&temp.path, path));
    if let Err(err) = renamed {
        // The temporary file is ours (and locked): removing it leaves the directory as it was.
        let _ = std::fs::remove_file(&temp.path);
        return Err((err, path.to_path_buf()));
    }
    // Renamed: our lock is no longer needed by anyone.
    drop(temp);
    File::open(&dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| (e, dir.clone()))?;
    // Best effort: a failure to list the directory or to remove a file fails no save.
    let _ = temp::remove_stale(&dir, Some(name));
    Ok(())
}

/// A compressed save whose object is packed as it goes ([`pieces`]): the temporary file is made
/// before the walk, which the caller runs into [`Sink`].
pub struct Saving {
    path: PathBuf,
    temp: temp::Temp,
    meta: Vec<u8>,
    settings: Settings,
}

/// Starts a compressed save of an object to `path` (`compress`, `level` and `threads` as
/// `_snapshot_save` takes them; `meta` packed): makes the temporary file, and the sink the
/// walk writes into.
pub fn begin(
    py: Python<'_>,
    path: PathBuf,
    compress: (&str, i32, u32),
    meta: &[u8],
    plan: Plan,
) -> PyResult<(Saving, Sink)> {
    let settings = settings(compress.0, compress.1, compress.2)?;
    if settings.codec == Codec::None {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "a save in pieces is compressed",
        ));
    }
    let made = py.detach(|| {
        let (dir, name) = place(&path)?;
        let temp = temp::create(&dir, name).map_err(|e| (e, dir.clone()))?;
        match temp.file.try_clone() {
            Ok(file) => Ok((temp, file)),
            Err(e) => {
                let _ = std::fs::remove_file(&temp.path);
                Err((e, temp.path.clone()))
            }
        }
    });
    let (temp, file) = made.map_err(|(err, at)| os_error(&err, &at))?;
    let header_len = format::header_bytes(settings.codec, meta, false).0.len();
    let sink = Sink::new(plan, settings, file, header_len as u64 + 5);
    let saving = Saving {
        path,
        temp,
        meta: meta.to_vec(),
        settings,
    };
    Ok((saving, sink))
}

impl Saving {
    /// The walk is over and `packed` holds its output: writes the rest of the snapshot, durably.
    pub fn finish(self, py: Python<'_>, packed: Packed) -> PyResult<()> {
        let result = py.detach(move || {
            let file = &self.temp.file;
            let written = match packed {
                Packed::Whole(data) => write_file(file, &data, &self.meta, self.settings),
                Packed::Sent(pending) => pending
                    .wait()
                    .and_then(|stored| seal(file, &self.meta, self.settings, &stored)),
            };
            commit(self.temp, &self.path, written)
        });
        result.map_err(|(err, at)| os_error(&err, &at))
    }

    /// The walk failed with `err`: removes the temporary file once the compressor thread has
    /// stopped, and gives the error: the thread's, if the walk stopped because the thread had
    /// ended with one (a full disk), or else `err`.
    pub fn abandon(self, py: Python<'_>, sink: Sink, err: PyErr) -> PyErr {
        let stopped = sink.stopped();
        let path = self.path.clone();
        let own = py.detach(move || {
            let own = sink.abandon();
            let _ = std::fs::remove_file(&self.temp.path);
            own
        });
        match own {
            Some(own) if stopped => os_error(&own, &path),
            _ => err,
        }
    }
}

/// Writes the header of a snapshot whose stored bytes the compressor thread wrote, and `fsync`s
/// the file.
fn seal(file: &File, meta: &[u8], settings: Settings, stored: &Stored) -> io::Result<()> {
    let (mut header, slots) = format::header_bytes(settings.codec, meta, false);
    let Some(prefix) = format::bin32_prefix(stored.size) else {
        return Err(too_large());
    };
    format::seal(
        &mut header,
        slots,
        stored.total,
        stored.size,
        stored.checksum,
    );
    file.write_all_at(&header, 0)?;
    file.write_all_at(&prefix, header.len() as u64)?;
    file.sync_all()
}

#[cold]
fn too_large() -> io::Error {
    io::Error::other("the compressed snapshot is 4 GiB or more, which one snapshot cannot hold")
}

/// Writes the snapshot into the temporary file and `fsync`s it.
fn write_file(file: &File, data: &[u8], meta: &[u8], settings: Settings) -> io::Result<()> {
    let out = BufWriter::with_capacity(WRITE_BUFFER, file);
    let out = write_snapshot(out, data, meta, settings, |mut out, header, prefix| {
        out.flush()?;
        let file = out.get_ref();
        file.write_all_at(header, 0)?;
        file.write_all_at(prefix, header.len() as u64)?;
        Ok(out)
    })?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}

/// `_snapshot_remove_stale(directory)`: removes the temporary files that saves no longer
/// running left in `directory`, and returns their paths.
pub fn remove_stale(py: Python<'_>, directory: PathBuf) -> PyResult<Vec<std::ffi::OsString>> {
    let removed = py
        .detach(|| temp::remove_stale(&directory, None))
        .map_err(|e| os_error(&e, &directory))?;
    Ok(removed.into_iter().map(PathBuf::into_os_string).collect())
}

/// `_snapshot_dumps(data, codec, level, threads, meta, index=False)`: the snapshot of the
/// packed `data`, as bytes (uncompressed, with an offset index if `index`, when `data` is one
/// whole object).
pub fn dumps<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    mut settings: Settings,
    meta: &Bound<'py, PyBytes>,
    index: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    settings.index = settings.codec == Codec::None && index;
    let data = input(data)?;
    // SAFETY: as in `_snapshot_save`: both outlive the detached call and cannot change.
    let (shared, meta) = unsafe { (Shared::new(data.as_slice()), Shared::new(meta.as_bytes())) };
    let out = py.detach(|| {
        let guess = match settings.codec {
            Codec::None => shared.get().len(),
            _ => shared.get().len() / 3,
        };
        let out = Vec::with_capacity(guess + meta.get().len() + 128);
        write_snapshot(
            out,
            shared.get(),
            meta.get(),
            settings,
            |mut out, header, prefix| {
                out[..header.len()].copy_from_slice(header);
                out[header.len()..header.len() + prefix.len()].copy_from_slice(prefix);
                Ok(out)
            },
        )
    });
    drop(data);
    let out = out.map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &out))
}
