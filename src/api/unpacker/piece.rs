//! Pieces of the stream read where they are: a `bytes` object fed (or read from the file-like
//! object) is kept, not copied into the buffer, and its objects are decoded from its own bytes.
//!
//! A stream read from a socket comes in pieces of tens or hundreds of kilobytes, and a piece of a
//! stream of small messages nearly always ends inside one. Copying each piece into the buffer
//! moved every byte once more than decoding needs (about 40 instructions a 30-byte message under
//! callgrind). Now the bytes held are in one of three places:
//!
//! - nothing kept: all in `buf`, from `head` (as before; also where a `bytearray` or a
//!   `memoryview` goes, which another thread could change, and every feed that comes while a
//!   piece still has a bridge pending);
//! - a piece kept and `buf` empty: all in the piece, from `head`;
//! - a piece kept and `buf` not empty (a bridge): the bytes held before the piece came, the start
//!   of an object, followed in `buf` by as much of the piece as completes it. The rest of the
//!   piece, after `at`, follows `buf`'s bytes in the stream. When the scanner finds no whole
//!   object in `buf`, `head` moves into the piece if the object it was made for is consumed, else
//!   more of the piece is copied (as much again as `buf` holds, so each byte is copied a bounded
//!   number of times); once `buf`'s bytes are all consumed, `head` moves into the piece as well.
//!
//! Every object is read from one contiguous slice ([`Unpacker::front`] from `head`), so the
//! scanner and the decoders are those of a plain buffer. A `bytes` object never changes, so
//! reading it needs no lock on a free-threaded build. What counts towards `max_buffer_size` is
//! unchanged: the bytes held and not consumed, wherever they are. The piece is kept alive until
//! its last byte is consumed or copied, at most one piece at a time.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;

use super::Unpacker;

/// A bridge copies at least this many bytes of the new piece into the buffer at a time: enough
/// for the end of most small objects, and few against a piece of a socket read.
const BRIDGE_LEAST: usize = 4096;

/// A `bytes` piece of the stream kept as it is.
pub(super) struct Piece {
    bytes: PyBackedBytes,
    /// With a bridge pending (`buf` not empty), the piece's bytes before `at` are in `buf`.
    at: usize,
}

/// The slice the bytes held from `head` are in: the piece when `buf` is empty, else `buf`.
/// A free function, so that a caller can borrow it beside the Unpacker's other fields.
#[inline(always)]
pub(super) fn front<'a>(buf: &'a [u8], piece: &'a Option<Piece>) -> &'a [u8] {
    match piece {
        Some(piece) if buf.is_empty() => &piece.bytes,
        _ => buf,
    }
}

impl Unpacker {
    /// The slice `head` and the extents of objects point into (see [`front`]).
    #[inline(always)]
    pub(super) fn front(&self) -> &[u8] {
        front(&self.buf, &self.piece)
    }

    /// The bytes held from `head` that are in one slice: all of them, but with a bridge pending,
    /// only those in `buf`.
    #[inline(always)]
    pub(super) fn window(&self) -> &[u8] {
        &self.front()[self.head..]
    }

    /// Bytes of the piece that follow `buf`'s, with a bridge pending (else 0).
    pub(super) fn pending(&self) -> usize {
        match &self.piece {
            Some(piece) if !self.buf.is_empty() => piece.bytes.len() - piece.at,
            _ => 0,
        }
    }

    /// Adds the `bytes` object `data` after what is held, kept rather than copied when it can
    /// be (see the module's notes); refused whole, as [`Unpacker::append`] refuses, when the
    /// bytes held would then be more than `max_buffer_size`.
    pub(super) fn append_piece(&mut self, data: &Bound<'_, PyBytes>) -> PyResult<()> {
        let backed = PyBackedBytes::from(data.clone());
        let len = backed.len();
        self.check_room(len)?;
        if len == 0 {
            return Ok(());
        }
        if self.pending() > 0 {
            // Fed again before the objects held were read: copied, as any other piece.
            return self.append(&backed);
        }
        let held = self.held();
        if held == 0 {
            self.buf.clear();
            self.head = 0;
            self.piece = Some(Piece {
                bytes: backed,
                at: 0,
            });
            return Ok(());
        }
        // The start of an object is held: it goes to `buf`, and enough of the piece after it.
        self.flatten();
        let at = len.min(held.max(BRIDGE_LEAST));
        self.extend(&backed[..at]);
        if at < len {
            self.piece = Some(Piece { bytes: backed, at });
        }
        Ok(())
    }

    /// With a bridge pending, makes the slice from `head` longer and returns `true` (`false`
    /// when there is none): once the object the bridge was made for is consumed, the rest is
    /// read from the piece itself (the bytes from `head` are the same there, so a scan in
    /// progress goes on); until then, more of the piece is copied into `buf`, as much again as
    /// `buf` holds from `head`, at least [`BRIDGE_LEAST`].
    pub(super) fn extend_bridge(&mut self) -> bool {
        if self.pending() == 0 {
            return false;
        }
        let Some(piece) = self.piece.take() else {
            return false;
        };
        // `buf` ends with the piece's bytes before `at`: the piece starts at `joint` in `buf`.
        let joint = self.buf.len() - piece.at;
        if self.head >= joint {
            self.head -= joint;
            self.buf.clear();
            self.piece = Some(piece);
            return true;
        }
        // Bytes are dropped from `buf` only before `head`, so before `joint`.
        let in_buf = self.buf.len() - self.head;
        let end = piece
            .bytes
            .len()
            .min(piece.at.saturating_add(in_buf.max(BRIDGE_LEAST)));
        self.extend(&piece.bytes[piece.at..end]);
        if end < piece.bytes.len() {
            self.piece = Some(Piece {
                bytes: piece.bytes,
                at: end,
            });
        }
        true
    }

    /// Moves every byte held into `buf`, from its start, and lets the piece go.
    pub(super) fn flatten(&mut self) {
        let Some(piece) = self.piece.take() else {
            return;
        };
        if self.buf.is_empty() {
            self.buf.extend_from_slice(&piece.bytes[self.head..]);
        } else {
            self.buf.drain(..self.head);
            self.buf.extend_from_slice(&piece.bytes[piece.at..]);
        }
        self.head = 0;
    }

    /// Every byte of the front slice is consumed: the buffer is emptied, and with a bridge
    /// pending, `head` moves into the piece, where `buf`'s copy of it ended; a piece consumed to
    /// its end is let go.
    #[inline(never)]
    pub(super) fn front_consumed(&mut self) {
        if self.buf.is_empty() {
            self.piece = None;
            self.head = 0;
            return;
        }
        self.buf.clear();
        self.head = match &self.piece {
            Some(piece) => piece.at,
            None => 0,
        };
    }
}
