//! Objects decoded ahead: a stream of many small objects (a queue consumer's messages) is
//! decoded in runs, the whole objects at the start of the bytes held (up to [`AHEAD_OBJECTS`] of
//! them, or [`AHEAD_BYTES`]) in one pass, and the objects are handed out one by one from a queue.
//!
//! One pass sets up the decoder, claims the key cache and pauses the garbage collector once per
//! run instead of once per object. (Every untyped object of an `Unpacker` is decoded with
//! collection paused, in a run or alone: a paused decode's allocations still count towards the
//! next collection, which an object decoded unpaused would then start in the middle of the
//! stream, over every message kept so far.)
//!
//! Nothing the caller can observe changes. The bytes of the queued objects stay in the buffer
//! until each object is handed out: `tell()`, `max_buffer_size` and `skip()` see the stream as
//! if each object were decoded when asked for. Runs are made only when decoding calls no code of
//! the caller's (no `ext_hook`, `type`, `dec_hook`, `buffers` or registry, not in compat mode),
//! so an object decoded early is the object it would have been later; anything that takes bytes
//! from under the queue drops it, and its objects are decoded again from the same bytes. A run
//! stops before an object that is not whole or cannot be decoded: its error is raised when the
//! caller reaches it, after the objects before it.

use std::collections::VecDeque;

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

use super::Unpacker;
use crate::de::{self, Setup};
use crate::opt;

/// A run stops once it has decoded this many objects: few enough that the objects of a run
/// which the caller lets go one by one fit in CPython's free lists (80 dicts, 80 lists, 100
/// floats), so that the next run reuses them; a longer run, all alive at once, would take each
/// from the allocator and give it back there. Many enough that a run's set-up is shared: with
/// 100k messages of a dict, a str, an int and a list of two floats, `AsyncUnpacker` takes 299.3
/// million instructions a round with runs of 32, 298.7 million with 48 and 301.8 million with 64
/// (whose 128 floats overflow the free list; callgrind, CPython 3.11).
const AHEAD_OBJECTS: usize = 48;
/// ... or this many bytes of the stream (larger objects: one run holds little more than this).
const AHEAD_BYTES: usize = 1 << 16;

/// The objects decoded ahead, in stream order, each with its length in bytes: they are the
/// bytes that follow `Unpacker::head`.
#[derive(Default)]
pub(super) struct Ahead {
    objects: VecDeque<(Py<PyAny>, usize)>,
}

impl Ahead {
    pub(super) fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Drops the objects (their bytes are still held, and will be decoded again).
    pub(super) fn clear(&mut self) {
        self.objects.clear();
    }

    pub(super) fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        for (obj, _) in &self.objects {
            visit.call(obj)?;
        }
        Ok(())
    }
}

impl Unpacker {
    /// Whether objects may be decoded ahead: decoding them calls nothing of the caller's and
    /// depends on nothing but their bytes.
    pub(super) fn runs_ahead(&self) -> bool {
        self.compat.is_none()
            && self.plan.is_none()
            && self.ext_hook.is_none()
            && self.buffers.is_none()
            && self.registry.is_none()
            && self.opts & opt::BIN_MEMORYVIEW == 0
    }

    /// The next object decoded ahead, consumed; `None` when there is none.
    #[inline(always)]
    pub(super) fn next_ahead<'py>(
        &mut self,
        py: Python<'py>,
    ) -> Option<(Bound<'py, PyAny>, usize)> {
        let (obj, len) = self.ahead.objects.pop_front()?;
        self.consume_len(len);
        Some((obj.into_bound(py), len))
    }

    /// Decodes the run of whole objects at the start of the bytes held: the first is consumed
    /// and returned, the others queued. `None` when the first is not whole or cannot be decoded
    /// (nothing is consumed).
    pub(super) fn decode_ahead<'py>(
        &mut self,
        py: Python<'py>,
        setup: &Setup,
    ) -> Option<Bound<'py, PyAny>> {
        debug_assert!(self.ahead.is_empty());
        let mut first = None;
        let mut start = 0;
        let mut count = 0;
        let last_len = &mut self.last_len;
        let objects = &mut self.ahead.objects;
        let input = &super::piece::front(&self.buf, &self.piece)[self.head..];
        de::decode_run(py, input, setup, |obj, end| {
            let len = end - start;
            *last_len = len;
            match first {
                None => first = Some((obj, len)),
                Some(_) => objects.push_back((obj.unbind(), len)),
            }
            start = end;
            count += 1;
            // On while the bytes left may hold the next object whole (see `last_len`).
            end < AHEAD_BYTES && count < AHEAD_OBJECTS && input.len() - end >= len
        });
        let (obj, len) = first?;
        self.consume_len(len);
        Some(obj)
    }
}
