//! Compressing while packing: the packer's output, cut into pieces, compressed into the
//! temporary file by a thread of its own while the walk goes on (doc/snapshots.md#saving).
//!
//! The walk is `packb`'s, unchanged, with the GIL held throughout: its writer
//! ([`BytesWriter::in_pieces`]) calls [`Sink`] whenever its buffer is full, and the sink sends
//! the full buffer over a channel to the compressor thread and gives the writer a new one. The
//! sink never waits for the thread, so the GIL is held for the walk alone, as in `packb`. The
//! thread never touches Python: it compresses each piece, frees it and writes the compressed
//! bytes to the file. It starts once the output passes [`Plan::from`]; a smaller output, or one
//! whose thread cannot be started, stays in one buffer and is compressed as before.
//!
//! The stored bytes are those the one-buffer path writes at the same settings. That path tells
//! the compressor the size before it starts, and zstd and lz4 then write it in their frame
//! header; here it is known only at the end, so the thread compresses without it, keeps back the
//! frame header the compressor writes first, writes what follows after room for the header with
//! the size, and at the end writes that header (the one the compressor writes given the size:
//! [`sized_header`]) into the room. The checksum of the stored bytes, which start with that
//! header, is then taken by reading them back. zstd's output does not depend on being told the
//! size once the size is past its window ([`window_of`]), so the thread starts only past it.
//!
//! [`BytesWriter::in_pieces`]: crate::ffi::BytesWriter::in_pieces

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use fastmsgpack_core::snapshot::{Codec, Hasher};

use super::codec::Settings;
use crate::error::Res;

/// The size of the buffer between the compressor and the file, and of the reads that take the
/// checksum back.
const IO_BUFFER: usize = 1 << 20;

/// The frame header zstd writes without the size (magic, descriptor, window), and lz4 (magic,
/// flags, block size, header checksum).
const ZSTD_HEAD: usize = 6;
const LZ4_HEAD: usize = 7;

/// When to compress in pieces: pieces of `piece` bytes, once the output passes `from` bytes.
#[derive(Clone, Copy)]
pub struct Plan {
    pub piece: usize,
    pub from: usize,
}

/// What the compressor thread is sent.
enum Msg {
    Piece(Vec<u8>),
    /// The walk is over; the output was this many bytes.
    End(u64),
}

/// What the compressor thread wrote: the stored bytes (`size` of them, with this `checksum`),
/// from the `total` bytes of the packed output.
pub struct Stored {
    pub size: u64,
    pub checksum: u64,
    pub total: u64,
}

struct Worker {
    tx: Sender<Msg>,
    handle: JoinHandle<io::Result<Stored>>,
    cancel: Arc<AtomicBool>,
}

/// The owner of the packer's buffers during a save in pieces.
pub struct Sink {
    buf: Vec<u8>,
    plan: Plan,
    settings: Settings,
    /// The temporary file (a second handle) and where the stored bytes start in it: the
    /// thread's, once it starts.
    file: Option<File>,
    at: u64,
    worker: Option<Worker>,
    /// No thread could be started: the output stays in `buf`.
    alone: bool,
    /// The thread has ended early (a write failed): the walk stops, and its error is the save's.
    stopped: bool,
    sent: u64,
}

/// The packed output after the walk: whole in one buffer, or sent to the compressor thread.
pub enum Packed {
    Whole(Vec<u8>),
    Sent(Pending),
}

/// A compressor thread that has been sent the whole output.
pub struct Pending(Worker);

impl Sink {
    /// A sink for a save with `settings` (compressed) into `file` (a handle of its own on the
    /// temporary file), whose stored bytes start at `at`.
    pub fn new(plan: Plan, settings: Settings, file: File, at: u64) -> Sink {
        let from = match settings.codec {
            Codec::Zstd => plan.from.max(window_of(settings.level) + 1),
            _ => plan.from,
        };
        Sink {
            buf: Vec::new(),
            plan: Plan { from, ..plan },
            settings,
            file: Some(file),
            at,
            worker: None,
            alone: false,
            stopped: false,
            sent: 0,
        }
    }

    /// Whether the walk was stopped because the compressor thread had ended.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    #[cold]
    fn start(&mut self) {
        let Some(file) = self.file.take() else {
            self.alone = true;
            return;
        };
        let (tx, rx) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let (settings, at, flag) = (self.settings, self.at, cancel.clone());
        let spawned = std::thread::Builder::new()
            .name("fastmsgpack-compress".into())
            .spawn(move || compress(file, at, settings, &rx, &flag));
        match spawned {
            Ok(handle) => {
                self.worker = Some(Worker { tx, handle, cancel });
            }
            // No thread (a limit on threads, no memory for its stack): the one-buffer path.
            Err(_) => self.alone = true,
        }
    }

    /// The walk is over, `len` bytes written into the last buffer.
    pub fn end(mut self, len: usize) -> Packed {
        // SAFETY: the writer wrote the first `len` bytes of the buffer's capacity.
        unsafe { self.buf.set_len(len) };
        let buf = std::mem::take(&mut self.buf);
        match self.worker.take() {
            None => Packed::Whole(buf),
            Some(worker) => {
                let total = self.sent + buf.len() as u64;
                // A send fails only when the thread has ended: `wait` gives its error.
                let _ = worker.tx.send(Msg::Piece(buf));
                let _ = worker.tx.send(Msg::End(total));
                Packed::Sent(Pending(worker))
            }
        }
    }

    /// The walk failed: the thread (if any) stops at its next piece; waits for it (call with
    /// the GIL released) and gives its error, if it ended with one of its own.
    pub fn abandon(mut self) -> Option<io::Error> {
        let worker = self.worker.take()?;
        worker.cancel.store(true, Ordering::Relaxed);
        drop(worker.tx);
        match worker.handle.join() {
            Ok(Err(err)) if err.kind() != io::ErrorKind::Interrupted => Some(err),
            _ => None,
        }
    }
}

impl Pending {
    /// Waits for the compressor thread (call with the GIL released).
    pub fn wait(self) -> io::Result<Stored> {
        drop(self.0.tx);
        match self.0.handle.join() {
            Ok(result) => result,
            Err(_) => Err(io::Error::other("the compressor thread failed")),
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Some(worker) = &self.worker {
            worker.cancel.store(true, Ordering::Relaxed);
        }
    }
}

#[cold]
fn out_of_memory() -> crate::error::Error {
    pyo3::exceptions::PyMemoryError::new_err("out of memory for the packed snapshot").into()
}

impl crate::ffi::Pieces for Sink {
    fn next(&mut self, len: usize, extra: usize, keep: bool) -> Res<(*mut u8, usize, usize)> {
        // SAFETY: the writer wrote the first `len` bytes of the buffer's capacity (the
        // trait's contract: `len` is what it wrote into the buffer given last).
        unsafe { self.buf.set_len(len) };
        let cut = !keep && !self.alone && (self.worker.is_some() || len >= self.plan.from);
        if cut && self.worker.is_none() {
            self.start();
        }
        if let (true, Some(worker)) = (cut, &self.worker) {
            let mut next = Vec::new();
            next.try_reserve_exact(self.plan.piece.max(extra))
                .map_err(|_| out_of_memory())?;
            let piece = std::mem::replace(&mut self.buf, next);
            self.sent += piece.len() as u64;
            if worker.tx.send(Msg::Piece(piece)).is_err() {
                self.stopped = true;
                return Err(pyo3::exceptions::PyOSError::new_err("the save failed").into());
            }
        } else {
            // Doubling, but first to `from` exactly while the thread may still start there.
            let cap = self.buf.capacity();
            let mut target = cap.saturating_mul(2).max(self.plan.piece);
            if self.worker.is_none() && !self.alone && len < self.plan.from {
                target = target.min(self.plan.from);
            }
            let need = len.checked_add(extra).ok_or_else(out_of_memory)?;
            self.buf
                .try_reserve_exact(target.max(need) - len)
                .map_err(|_| out_of_memory())?;
        }
        Ok((self.buf.as_mut_ptr(), self.buf.capacity(), self.buf.len()))
    }
}

/// zstd's window at `level` for an input of unknown size (its table of parameters for large
/// inputs, zstd 1.5): an output told its size is compressed the same way only past it.
fn window_of(level: i32) -> usize {
    let log = match level {
        // Level 0 is zstd's default, 3.
        0 | 3..=8 => 21,
        ..=1 => 19,
        2 => 20,
        9..=16 => 22,
        17..=19 => 23,
        20 => 25,
        21 => 26,
        _ => 27,
    };
    1 << log
}

/// Stops a write once the walk has failed.
#[cold]
fn cancelled() -> io::Error {
    io::Error::from(io::ErrorKind::Interrupted)
}

/// The compressor thread: compresses the pieces it is sent into `file`, the stored bytes from
/// `at` on, then writes the frame header with the size and takes the checksum.
fn compress(
    mut file: File,
    at: u64,
    settings: Settings,
    rx: &Receiver<Msg>,
    cancel: &AtomicBool,
) -> io::Result<Stored> {
    let (head, room) = match settings.codec {
        Codec::Zstd => (ZSTD_HEAD, ZSTD_HEAD + 4),
        _ => (LZ4_HEAD, LZ4_HEAD + 8),
    };
    file.seek(SeekFrom::Start(at + room as u64))?;
    let out = KeepHead::new(BufWriter::with_capacity(IO_BUFFER, file), head);
    let out = match settings.codec {
        Codec::Zstd => {
            let mut enc = zstd::stream::write::Encoder::new(out, settings.level)?;
            enc.include_checksum(false)?;
            enc.include_contentsize(false)?;
            if settings.threads > 0 {
                enc.multithread(settings.threads)?;
            }
            let total = feed(&mut enc, rx, cancel)?;
            (enc.finish()?, total)
        }
        _ => {
            let info =
                lz4_flex::frame::FrameInfo::new().block_size(lz4_flex::frame::BlockSize::Max256KB);
            let mut enc = lz4_flex::frame::FrameEncoder::with_frame_info(info, out);
            let total = feed(&mut enc, rx, cancel)?;
            (enc.finish().map_err(io::Error::other)?, total)
        }
    };
    let (out, total) = out;
    let (out, kept, rest) = out.finish()?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    let header = sized_header(settings.codec, &kept, total)?;
    if header.len() > room {
        let span = (at + room as u64, at + header.len() as u64, rest);
        move_up(
            |buf, at| file.read_exact_at(buf, at),
            |buf, at| file.write_all_at(buf, at),
            span,
        )?;
    }
    file.write_all_at(&header, at)?;
    let size = header.len() as u64 + rest;
    Ok(Stored {
        size,
        checksum: checksum_at(&file, at, size)?,
        total,
    })
}

/// Writes the pieces received into `enc` until the end; returns the output's length.
fn feed<W: Write>(enc: &mut W, rx: &Receiver<Msg>, cancel: &AtomicBool) -> io::Result<u64> {
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(cancelled());
        }
        match rx.recv() {
            Ok(Msg::Piece(piece)) => enc.write_all(&piece)?,
            Ok(Msg::End(total)) => return Ok(total),
            Err(_) => return Err(cancelled()),
        }
    }
}

/// A writer that keeps the first `head` bytes written to it (the frame header written without
/// the size) and passes the rest on, counting them.
struct KeepHead<W> {
    inner: W,
    kept: [u8; 16],
    head: usize,
    filled: usize,
    rest: u64,
}

impl<W: Write> KeepHead<W> {
    fn new(inner: W, head: usize) -> KeepHead<W> {
        KeepHead {
            inner,
            kept: [0; 16],
            head: head.min(16),
            filled: 0,
            rest: 0,
        }
    }

    /// The writer, the bytes kept and how many bytes were passed on.
    fn finish(self) -> io::Result<(W, Vec<u8>, u64)> {
        if self.filled < self.head {
            return Err(io::Error::other("the compressor wrote no frame header"));
        }
        Ok((self.inner, self.kept[..self.head].to_vec(), self.rest))
    }
}

impl<W: Write> Write for KeepHead<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.filled < self.head {
            let n = (self.head - self.filled).min(buf.len());
            self.kept[self.filled..self.filled + n].copy_from_slice(&buf[..n]);
            self.filled += n;
            return Ok(n);
        }
        let n = self.inner.write(buf)?;
        self.rest += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cold]
fn unexpected_header(codec: &str) -> io::Error {
    io::Error::other(format!(
        "{codec} wrote a frame header of a form this version does not know"
    ))
}

/// The frame header that the compressor writes when told the size `total` before it starts,
/// made from the one it wrote without it (`kept`): zstd's with its content size field (4 bytes,
/// or 8 from 0xFFFFFFFF on) after the window, lz4's with its content size and the header's
/// checksum made again.
fn sized_header(codec: Codec, kept: &[u8], total: u64) -> io::Result<Vec<u8>> {
    match codec {
        Codec::Zstd => {
            // Magic, descriptor 0 (no size, not a single segment, no checksum, no dictionary),
            // window.
            if kept.len() != ZSTD_HEAD || kept[..4] != [0x28, 0xb5, 0x2f, 0xfd] || kept[4] != 0 {
                return Err(unexpected_header("zstd"));
            }
            let mut header = kept.to_vec();
            if total >= 0xFFFF_FFFF {
                header[4] = 3 << 6;
                header.extend_from_slice(&total.to_le_bytes());
            } else {
                header[4] = 2 << 6;
                header.extend_from_slice(&(total as u32).to_le_bytes());
            }
            Ok(header)
        }
        _ => {
            // Magic, flags without a size or dictionary, block size, header checksum.
            const CONTENT_SIZE: u8 = 0x08;
            if kept.len() != LZ4_HEAD
                || kept[..4] != [0x04, 0x22, 0x4d, 0x18]
                || kept[4] & (CONTENT_SIZE | 0x01) != 0
            {
                return Err(unexpected_header("lz4"));
            }
            let mut header = kept[..6].to_vec();
            header[4] |= CONTENT_SIZE;
            header.extend_from_slice(&total.to_le_bytes());
            let sum = xxhash_rust::xxh32::xxh32(&header[4..], 0);
            header.push((sum >> 8) as u8);
            Ok(header)
        }
    }
}

/// Moves the `len` bytes at `from` to `to`, later in the file (a header longer than the room
/// left for it), from the end backwards, with `read` and `write` at offsets.
#[cold]
fn move_up(
    mut read: impl FnMut(&mut [u8], u64) -> io::Result<()>,
    mut write: impl FnMut(&[u8], u64) -> io::Result<()>,
    (from, to, len): (u64, u64, u64),
) -> io::Result<()> {
    let mut buf = vec![0u8; IO_BUFFER.min(len as usize)];
    let mut left = len;
    while left > 0 {
        let n = left.min(buf.len() as u64);
        left -= n;
        let chunk = &mut buf[..n as usize];
        read(chunk, from + left)?;
        write(chunk, to + left)?;
    }
    Ok(())
}

/// The checksum of the `len` bytes of `file` at `at`, read back.
fn checksum_at(file: &File, at: u64, len: u64) -> io::Result<u64> {
    let mut buf = vec![0u8; IO_BUFFER.min(len as usize)];
    let mut hasher = Hasher::new();
    let mut done = 0;
    while done < len {
        let n = (len - done).min(buf.len() as u64) as usize;
        file.read_exact_at(&mut buf[..n], at + done)?;
        hasher.update(&buf[..n]);
        done += n as u64;
    }
    Ok(hasher.digest())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first `n` bytes of `data` compressed as the one-buffer path does, told the size or
    /// not.
    fn frame_start(codec: Codec, data: &[u8], sized: bool, n: usize) -> Vec<u8> {
        let size = sized.then_some(data.len() as u64);
        let out = match codec {
            Codec::Zstd => {
                let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
                enc.include_contentsize(sized).unwrap();
                enc.set_pledged_src_size(size).unwrap();
                enc.write_all(data).unwrap();
                enc.finish().unwrap()
            }
            _ => {
                let info = lz4_flex::frame::FrameInfo::new()
                    .content_size(size)
                    .block_size(lz4_flex::frame::BlockSize::Max256KB);
                let mut enc = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
                enc.write_all(data).unwrap();
                enc.finish().unwrap()
            }
        };
        out[..n].to_vec()
    }

    #[test]
    fn the_sized_header_is_the_one_the_compressor_writes_told_the_size() {
        // Past zstd's window at level 1 (512 KiB).
        let data: Vec<u8> = (0..700_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let total = data.len() as u64;
        for (codec, head, sized) in [(Codec::Zstd, ZSTD_HEAD, 10), (Codec::Lz4, LZ4_HEAD, 15)] {
            let kept = frame_start(codec, &data, false, head);
            let want = frame_start(codec, &data, true, sized);
            assert_eq!(sized_header(codec, &kept, total).unwrap(), want);
        }
        // From 0xFFFFFFFF bytes on, zstd's size takes 8 bytes.
        let kept = frame_start(Codec::Zstd, &data, false, ZSTD_HEAD);
        let big = sized_header(Codec::Zstd, &kept, 1 << 32).unwrap();
        assert_eq!(big.len(), 14);
        assert_eq!(big[4], 3 << 6);
        assert_eq!(big[6..], (1u64 << 32).to_le_bytes());
        // A header of another form is refused, not patched.
        assert!(sized_header(Codec::Zstd, &[0x28, 0xb5, 0x2f, 0xfd, 0x20, 0], 9).is_err());
        assert!(sized_header(Codec::Lz4, &[0, 0, 0, 0, 0, 0, 0], 9).is_err());
    }

    #[test]
    fn moving_up_keeps_every_byte() {
        let len = IO_BUFFER * 2 + 12_345;
        let mut file: Vec<u8> = (0..len + 100).map(|i| (i % 253) as u8).collect();
        let want = file[10..10 + len].to_vec();
        let cell = std::cell::RefCell::new(&mut file);
        move_up(
            |buf, at| {
                let at = at as usize;
                buf.copy_from_slice(&cell.borrow()[at..at + buf.len()]);
                Ok(())
            },
            |buf, at| {
                let at = at as usize;
                cell.borrow_mut()[at..at + buf.len()].copy_from_slice(buf);
                Ok(())
            },
            (10, 14, len as u64),
        )
        .unwrap();
        assert_eq!(file[14..14 + len], want[..]);
    }

    #[test]
    fn zstd_windows_follow_its_levels() {
        assert_eq!(window_of(-5), 1 << 19);
        assert_eq!(window_of(3), 1 << 21);
        assert_eq!(window_of(0), 1 << 21);
        assert_eq!(window_of(1), 1 << 19);
        assert_eq!(window_of(19), 1 << 23);
        assert_eq!(window_of(22), 1 << 27);
    }
}
