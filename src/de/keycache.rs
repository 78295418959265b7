//! A cache of short map-key strings, kept across calls: documents repeat the same keys, and a
//! hit saves building and hashing a new `str`.

use std::sync::Mutex;

#[cfg(test)]
use crate::ffi::Obj;
use crate::ffi::{self, Owned};

const SLOTS: usize = 2048;
/// Keys up to this many UTF-8 bytes are cached.
pub const MAX_KEY_LEN: usize = 64;

struct Slot {
    len: u8,
    bytes: [u8; MAX_KEY_LEN],
    obj: Owned,
}

/// A direct-mapped table from key bytes to an interned `str`.
pub struct KeyCache {
    slots: Vec<Option<Slot>>,
}

// SAFETY: the cache holds strong references to immutable `str` objects; it is only used, and
// its references only created or released, by code attached to the interpreter while holding
// the cache's mutex.
unsafe impl Send for KeyCache {}

/// The process-wide cache. A call that finds it busy (a nested call from `ext_hook`, or
/// another thread) decodes without it.
pub static KEY_CACHE: Mutex<Option<KeyCache>> = Mutex::new(None);

impl KeyCache {
    pub fn new() -> KeyCache {
        let mut slots = Vec::with_capacity(SLOTS);
        slots.resize_with(SLOTS, || None);
        KeyCache { slots }
    }

    /// The `str` for `utf8`, from the cache or newly made and remembered.
    ///
    /// # Safety
    /// `utf8` is valid UTF-8 of at most [`MAX_KEY_LEN`] bytes, and the GIL is held.
    #[inline]
    pub unsafe fn get(&mut self, utf8: &[u8]) -> Option<Owned> {
        let index = (hash(utf8) as usize) & (SLOTS - 1);
        if let Some(Some(slot)) = self.slots.get(index) {
            if slot.bytes.get(..slot.len as usize) == Some(utf8) {
                // SAFETY: the cached string is live (the slot holds a reference).
                return Some(unsafe { Owned::from_borrowed(slot.obj.as_ptr()) });
            }
        }
        // SAFETY: forwarded from the caller.
        let obj = unsafe { ffi::new_str(utf8)? };
        // SAFETY: `obj` is a new str.
        unsafe { ffi::prime_hash(obj.as_ptr()) };
        let mut bytes = [0u8; MAX_KEY_LEN];
        bytes.get_mut(..utf8.len())?.copy_from_slice(utf8);
        // SAFETY: `obj` is live; the slot takes its own reference.
        let cached = unsafe { Owned::from_borrowed(obj.as_ptr()) };
        if let Some(slot) = self.slots.get_mut(index) {
            *slot = Some(Slot {
                len: utf8.len() as u8,
                bytes,
                obj: cached,
            });
        }
        Some(obj)
    }
}

impl Default for KeyCache {
    fn default() -> Self {
        Self::new()
    }
}

/// A fast, non-cryptographic hash over 8-byte words (keys are short and not attacker-chosen
/// for collisions in any way that matters: a collision only costs a cache miss).
#[inline(always)]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// Whether `obj` is the cached object for `utf8` (used by tests of the cache).
#[cfg(test)]
fn is_cached(cache: &KeyCache, utf8: &[u8], obj: Obj) -> bool {
    let index = (hash(utf8) as usize) & (SLOTS - 1);
    matches!(cache.slots.get(index), Some(Some(slot)) if slot.obj.as_ptr() == obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_returns_the_same_object_and_distinct_keys_stay_distinct() {
        pyo3::Python::initialize();
        pyo3::Python::attach(|_py| {
            let mut cache = KeyCache::new();
            // SAFETY: attached to the interpreter; inputs are short valid UTF-8.
            unsafe {
                let a = cache.get(b"name").map(|o| o.as_ptr());
                let b = cache.get(b"name").map(|o| o.as_ptr());
                assert!(a.is_some());
                assert_eq!(a, b);
                let c = cache.get("nämé".as_bytes()).map(|o| o.as_ptr());
                assert_ne!(a, c);
                if let Some(a) = a {
                    assert!(is_cached(&cache, b"name", a));
                }
            }
        });
    }

    #[test]
    fn hash_spreads_similar_keys() {
        let a = hash(b"field_000001") & (SLOTS as u64 - 1);
        let b = hash(b"field_000002") & (SLOTS as u64 - 1);
        assert_ne!(a, b);
    }
}
