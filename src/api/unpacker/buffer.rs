//! The Unpacker's buffer: the bytes fed or read and not yet consumed, how it grows within
//! `max_buffer_size`, reading more from the file-like object, and consuming what was read.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::{Extent, Unpacker};
use crate::de;
use crate::exc::{with_data, BufferFull, ErrorData};

/// [`Unpacker::grown_least`]: 1 MiB.
const GROWN_LEAST: usize = 1 << 20;

impl Unpacker {
    /// Bytes held and not yet consumed.
    pub(super) fn held(&self) -> usize {
        self.front().len() - self.head + self.pending()
    }

    /// Bytes held that count towards `max_buffer_size`: all those held, but in compat mode, not
    /// those of the object in progress that the scanner has read.
    pub(super) fn counted(&self) -> usize {
        match self.compat {
            Some(_) => self.held() - self.scanner.scanned(),
            None => self.held(),
        }
    }

    /// `BufferFull` when `more` bytes after those held would be more than `max_buffer_size`.
    pub(super) fn check_room(&self, more: usize) -> PyResult<()> {
        let counted = self.counted();
        if counted.saturating_add(more) > self.max_buffer_size {
            return Err(buffer_full(counted, more, self.max_buffer_size));
        }
        Ok(())
    }

    /// Adds `data` after what is held, copied, or refuses it whole when the buffer would then
    /// hold more than `max_buffer_size` bytes.
    pub(super) fn append(&mut self, data: &[u8]) -> PyResult<()> {
        self.check_room(data.len())?;
        self.flatten();
        self.extend(data);
        Ok(())
    }

    /// Copies `data` after the bytes in `buf` (all those held, or with a bridge pending, those
    /// before the rest of the piece).
    pub(super) fn extend(&mut self, data: &[u8]) {
        let held = self.buf.len() - self.head;
        // Drop the consumed bytes once they are at least as many as those held, so that each
        // byte is moved a bounded number of times.
        if self.head > 0 && self.head >= held {
            self.buf.drain(..self.head);
            self.head = 0;
            let keep = held
                .max(self.read_size)
                .saturating_mul(4)
                .max(self.grown_least());
            if self.buf.capacity() > keep {
                self.buf.shrink_to(keep);
            }
        }
        if self.buf.capacity() - self.buf.len() < data.len() {
            self.grow(data.len());
        }
        self.buf.extend_from_slice(data);
    }

    /// The least capacity of a buffer that has grown past its first piece: an object up to this
    /// size that arrives in pieces is never moved as it grows (msgpack-python's reader reserves
    /// as much when it is made). Not more than `max_buffer_size`.
    pub(super) fn grown_least(&self) -> usize {
        GROWN_LEAST.min(self.max_buffer_size)
    }

    /// Makes room for `more` bytes after those in the buffer. Growing moves every byte held, so
    /// a buffer that already holds a piece grows to at least [`Unpacker::grown_least`], and then
    /// doubles, up to `max_buffer_size` (or what is needed, if more: compat mode counts only the
    /// bytes not yet scanned). Only the bytes at hand decide the size, never a declared length.
    #[cold]
    pub(super) fn grow(&mut self, more: usize) {
        let len = self.buf.len();
        let needed = len.saturating_add(more);
        let target = match self.buf.capacity() {
            0 => needed,
            capacity => capacity
                .saturating_mul(2)
                .max(self.grown_least())
                .min(self.max_buffer_size)
                .max(needed),
        };
        self.buf.reserve_exact(target - len);
    }

    /// Refuses, with `BufferFull`, the object being scanned when what its headers declare already
    /// needs more than `max_buffer_size` bytes: it could never be read, and a peer announcing
    /// 4 GiB need not be fed 100 MiB before the buffer says no. The stream stops there.
    #[cold]
    pub(super) fn check_fits(&mut self, py: Python<'_>) -> PyResult<()> {
        if !self.refuse_unfit {
            return Ok(());
        }
        let least = self.scanner.least_len(self.window());
        if least <= self.max_buffer_size as u64 {
            return Ok(());
        }
        let reason = format!(
            "the object declares at least {least} bytes, more than max_buffer_size ({})",
            self.max_buffer_size
        );
        let data = ErrorData {
            kind: "too_large",
            reason: &reason,
            offset: Some(self.consumed as usize),
            path: None,
        };
        let err = with_data(
            BufferFull::new_err(format!(
                "the object at byte offset {} declares at least {least} bytes, more than \
                 max_buffer_size ({})",
                self.consumed, self.max_buffer_size
            )),
            &data,
        );
        // What the headers declare, for code to compare (`None` on other BufferFull errors).
        err.value(py)
            .setattr(crate::intern!(py, "declared"), least)?;
        self.broken = Some((err.get_type(py).unbind(), err.value(py).to_string()));
        Err(err)
    }

    /// Reads up to `read_size` more bytes from the file-like object; `false` when there is none
    /// or it has no more.
    pub(super) fn read_more(&mut self, py: Python<'_>) -> PyResult<bool> {
        let Some(file) = &self.file else {
            return Ok(false);
        };
        if self.eof {
            return self.at_end();
        }
        let room = self.max_buffer_size.saturating_sub(self.counted());
        if room == 0 {
            return Err(buffer_full(self.counted(), 1, self.max_buffer_size));
        }
        let held = self.held();
        let chunk = file
            .bind(py)
            .call_method1("read", (self.read_size.min(room),))?;
        self.feed_object(py, &chunk, "what Unpacker's file_like.read() returns")?;
        if self.held() == held {
            self.eof = true;
            return self.at_end();
        }
        Ok(true)
    }

    /// More bytes held in one slice: more of a pending bridge's piece, else what the file-like
    /// object reads; `false` when there are none.
    pub(super) fn more_held(&mut self, py: Python<'_>) -> PyResult<bool> {
        if self.extend_bridge() {
            return Ok(true);
        }
        self.read_more(py)
    }

    /// Adds `data` (`bytes`, kept as it is; a `bytearray` or a C-contiguous `memoryview`,
    /// copied) after what is held; `what` names it in a type error.
    pub(super) fn feed_object(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        what: &str,
    ) -> PyResult<()> {
        if let Ok(bytes) = data.cast::<PyBytes>() {
            return self.append_piece(bytes);
        }
        let mut holder = None;
        let data = de::input_of(py, data, &mut holder, what)?;
        self.append(data)
    }

    /// The file has no more bytes, and more were asked for: the object in progress can never be
    /// whole. Outside compat mode (where msgpack-python's Unpacker stops quietly) that is an
    /// error, as it is for `AsyncUnpacker`: a file cut short must not read as a shorter one.
    pub(super) fn at_end(&self) -> PyResult<bool> {
        let held = self.held();
        if held == 0 || self.compat.is_some() {
            return Ok(false);
        }
        Err(ended_inside(held, self.consumed))
    }

    /// Marks the object at `extent` consumed.
    pub(super) fn consume(&mut self, extent: &Extent) {
        self.consume_len(extent.end - extent.start);
    }

    /// Marks the `len` bytes of the object at `head` consumed.
    #[inline]
    pub(super) fn consume_len(&mut self, len: usize) {
        self.consumed += len as u64;
        self.head += len;
        if self.head == self.front().len() {
            self.front_consumed();
        }
    }

    /// An error was found in the item that ends at `end` (in the buffer): the object in
    /// progress is dropped, and the stream goes on from that item's last byte, as in
    /// msgpack-python.
    #[cold]
    pub(super) fn fail_at(&mut self, end: usize) {
        let resume = end.saturating_sub(1).max(self.head);
        self.take(resume - self.head);
    }
}

#[cold]
pub(super) fn buffer_full(held: usize, more: usize, max: usize) -> PyErr {
    let reason = format!("holding {held} bytes, {more} more would go over max_buffer_size ({max})");
    let data = ErrorData {
        kind: "buffer_full",
        reason: &reason,
        offset: None,
        path: None,
    };
    with_data(BufferFull::new_err(reason.clone()), &data)
}

/// The file or stream ended `held` bytes into the object at stream offset `offset`.
#[cold]
pub(super) fn ended_inside(held: usize, offset: u64) -> PyErr {
    let reason = "the stream ended inside an object";
    let msg = format!("{reason} ({held} bytes of it read) at byte offset {offset}");
    let data = ErrorData {
        kind: "truncated",
        reason,
        offset: usize::try_from(offset).ok(),
        path: None,
    };
    with_data(crate::exc::MsgpackDecodeError::new_err(msg), &data)
}
