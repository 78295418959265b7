//! What every decode of an input begins with, written once for the untyped and typed decoders
//! and those above the engine that bring a policy of their own: the shared key cache, claimed when no other decode holds it (a nested call from a
//! hook, or another thread, goes without), and automatic garbage collection paused while an
//! input large enough to start a collection is decoded.

use pyo3::Python;

use super::keycache::{KeyCache, KeyCacheClaim, KEY_CACHE};
use crate::ffi::GcPause;

/// Inputs above this many bytes are decoded with automatic garbage collection paused; smaller
/// ones build too few objects for a collection to start.
const GC_PAUSE_MIN_INPUT: usize = 1024;

/// Held on the stack of one decode, for as long as it runs.
pub struct Session {
    // Dropped in this order: the collector resumes, then the cache is released.
    _gc: Option<GcPause>,
    claim: Option<KeyCacheClaim<'static>>,
}

impl Session {
    /// Begins the decode of an input of `input_len` bytes.
    #[inline(always)]
    pub fn begin(py: Python<'_>, input_len: usize) -> Session {
        let claim = KEY_CACHE.claim(py);
        // SAFETY: attached (`py`); the pause ends when the session is dropped, and a session
        // lives on the stack of the decode that began it, so the pause ends on the thread that
        // made it, before that decode returns.
        let gc = (input_len > GC_PAUSE_MIN_INPUT).then(|| unsafe { GcPause::new() });
        Session { _gc: gc, claim }
    }

    /// Begins the decode of the one item that starts at `offset` of `input` (a lazy view reads
    /// a part of a larger input): only a container builds enough objects for a collection to
    /// start, so only a container pauses it.
    #[inline(always)]
    pub fn begin_at(py: Python<'_>, input: &[u8], offset: usize) -> Session {
        let claim = KEY_CACHE.claim(py);
        let container = input
            .get(offset)
            .is_some_and(|&m| super::token::is_container_marker(m));
        // SAFETY: attached (`py`); as in `begin`, the session lives on the stack of the decode
        // that began it, so the pause ends on this thread before that decode returns.
        let gc = container.then(|| unsafe { GcPause::new() });
        Session { _gc: gc, claim }
    }

    /// Begins the decode of a run of objects read one after another (an `Unpacker`'s messages):
    /// collection stays paused however small each object is. The allocations of a paused decode
    /// still count towards the next collection, which a decode left unpaused would then run in
    /// the middle of a message, over every message kept since the last one.
    #[inline(always)]
    pub fn begin_run(py: Python<'_>) -> Session {
        let claim = KEY_CACHE.claim(py);
        // SAFETY: attached (`py`); as in `begin`, the session lives on the stack of the decode
        // that began it, so the pause ends on this thread before that decode returns.
        let gc = Some(unsafe { GcPause::new() });
        Session { _gc: gc, claim }
    }

    /// The key cache, when this decode holds it.
    #[inline(always)]
    pub fn keys(&mut self) -> Option<&mut KeyCache> {
        self.claim.as_deref_mut()
    }
}
