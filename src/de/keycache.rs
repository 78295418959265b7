//! A cache of short map-key strings, kept across calls: documents repeat the same keys, and a
//! hit saves building and hashing a new `str`.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::Python;

use crate::ffi::{self, Owned};

/// The table has `2^SLOT_BITS` slots, in sets of two.
const SLOT_BITS: u32 = 11;
const SLOTS: usize = 1 << SLOT_BITS;
/// Keys up to this many UTF-8 bytes are cached.
pub const MAX_KEY_LEN: usize = 64;

struct Slot {
    len: u8,
    /// The key's first word as [`short_word`] reads it: for a key of up to 8 bytes, with `len`,
    /// the whole key, compared without reading `bytes`.
    head: u64,
    bytes: [u8; MAX_KEY_LEN],
    obj: Owned,
}

/// A two-way set-associative table from key bytes to an interned `str`.
pub struct KeyCache {
    slots: Vec<Option<Slot>>,
}

/// The caches of one interpreter: one with the GIL, where one thread decodes at a time. A call that
/// finds it claimed (a nested call from `ext_hook`, or another thread while the claiming one
/// runs Python code) decodes without it.
///
/// Free-threaded builds have [`STRIPES`] of them, so that threads decoding at the same time each
/// get one: each thread has a home cache (given in turn) that it tries first, then the others.
/// Keeping to one cache
/// also keeps a thread's keys made by that thread, whose reference counts CPython then changes
/// without atomic instructions.
pub static KEY_CACHE: PerInterpreter = PerInterpreter;

/// The caches of the interpreter a call runs in: a key's `str` belongs to the interpreter that
/// made it.
pub struct PerInterpreter;

static CACHES: ffi::PerInterp<KeyCaches> = ffi::PerInterp::new();

impl PerInterpreter {
    /// A cache of this interpreter for the current call, or `None` while every one is claimed.
    #[inline(always)]
    pub fn claim(&self, attached: Python<'_>) -> Option<KeyCacheClaim<'static>> {
        CACHES
            .get_or_init(attached, || KeyCaches {
                stripes: [const { SharedKeyCache::new() }; STRIPES],
            })
            .claim(attached)
    }
}

#[cfg(not(Py_GIL_DISABLED))]
const STRIPES: usize = 1;
/// One for each of up to 16 threads decoding at once (each is made on first use, about 180 KB).
#[cfg(Py_GIL_DISABLED)]
const STRIPES: usize = 16;

pub struct KeyCaches {
    stripes: [SharedKeyCache; STRIPES],
}

impl KeyCaches {
    /// A cache for the current call, or `None` while every one is claimed.
    #[inline(always)]
    pub fn claim(&self, attached: Python<'_>) -> Option<KeyCacheClaim<'_>> {
        #[cfg(not(Py_GIL_DISABLED))]
        return self.stripes[0].claim(attached);
        #[cfg(Py_GIL_DISABLED)]
        {
            use std::cell::Cell;
            thread_local! {
                /// The stripe this thread tries first (a plain index: nothing to drop).
                static HOME: Cell<usize> = const { Cell::new(usize::MAX) };
            }
            static NEXT_HOME: std::sync::atomic::AtomicUsize =
                std::sync::atomic::AtomicUsize::new(0);
            let mut home = HOME.with(Cell::get);
            if home >= STRIPES {
                home = NEXT_HOME.fetch_add(1, Ordering::Relaxed) % STRIPES;
                HOME.with(|h| h.set(home));
            }
            // A thread keeps its home even when it had to take another cache (a nested call from
            // `ext_hook`, or a thread given the same home): it is free again next time.
            (0..STRIPES).find_map(|k| self.stripes[(home + k) % STRIPES].claim(attached))
        }
    }
}

/// A [`KeyCache`] that one call at a time can claim, made on first use.
///
/// Where the interpreter has a GIL, claiming and releasing take no locked instruction. With a
/// mutex's lock and unlock instead, unpacking a 10-field map took 397-398 ns against 382-384 ns
/// (CPython 3.11, one process, alternating builds).
///
/// Each is aligned to its own 128 bytes (two cache lines, as the adjacent-line prefetcher pairs
/// them): the stripes of threads decoding at once would otherwise share a line, and every claim
/// and release by one would take it from the others.
#[repr(align(128))]
pub struct SharedKeyCache {
    claimed: AtomicBool,
    cache: UnsafeCell<Option<KeyCache>>,
}

// SAFETY: the cache (strong references to immutable `str` objects) is only reached through a
// `KeyCacheClaim`, made by `claim` while attached, and at most one claim exists at a time.
unsafe impl Sync for SharedKeyCache {}
// SAFETY: as above: the `str` objects are only touched by a claim, made while attached to the
// interpreter that owns them, and the caches are dropped there when its module is freed.
unsafe impl Send for SharedKeyCache {}

impl SharedKeyCache {
    const fn new() -> SharedKeyCache {
        SharedKeyCache {
            claimed: AtomicBool::new(false),
            cache: UnsafeCell::new(None),
        }
    }

    /// The cache for the current call, or `None` while another claim holds it.
    #[inline(always)]
    fn claim(&self, _attached: Python<'_>) -> Option<KeyCacheClaim<'_>> {
        if !self.try_mark_claimed() {
            return None;
        }
        // SAFETY: this claim is the only one (just marked), so nothing else refers to the cache
        // until it is dropped.
        let slot = unsafe { &mut *self.cache.get() };
        if slot.is_none() {
            *slot = KeyCache::try_new();
        }
        match slot {
            Some(cache) => Some(KeyCacheClaim {
                claimed: &self.claimed,
                cache,
            }),
            None => {
                // No memory for the cache: this call decodes without one.
                self.claimed.store(false, Ordering::Release);
                None
            }
        }
    }

    /// With the GIL, only the thread holding it runs here, and nothing between the test and the
    /// set can release it; the GIL's hand-over between threads orders the flag and the cache's
    /// contents after what other threads did while they held it. Plain loads and stores suffice.
    #[cfg(not(Py_GIL_DISABLED))]
    #[inline(always)]
    fn try_mark_claimed(&self) -> bool {
        if self.claimed.load(Ordering::Acquire) {
            return false;
        }
        self.claimed.store(true, Ordering::Relaxed);
        true
    }

    /// Without the GIL, threads race for the flag; winning it (acquire) orders the cache's
    /// contents after the last claim's release.
    #[cfg(Py_GIL_DISABLED)]
    #[inline(always)]
    fn try_mark_claimed(&self) -> bool {
        self.claimed
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }
}

/// The claimed cache; dropping it lets the next call claim it.
pub struct KeyCacheClaim<'a> {
    claimed: &'a AtomicBool,
    cache: &'a mut KeyCache,
}

impl Deref for KeyCacheClaim<'_> {
    type Target = KeyCache;
    fn deref(&self) -> &KeyCache {
        self.cache
    }
}

impl DerefMut for KeyCacheClaim<'_> {
    fn deref_mut(&mut self) -> &mut KeyCache {
        self.cache
    }
}

impl Drop for KeyCacheClaim<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.claimed.store(false, Ordering::Release);
    }
}

impl KeyCache {
    /// An empty cache, or `None` when its table (some 180 KB) cannot be allocated: the cache is
    /// only a shortcut, and a decoder goes without it rather than abort the process.
    pub fn try_new() -> Option<KeyCache> {
        let mut slots = Vec::new();
        slots.try_reserve_exact(SLOTS).ok()?;
        slots.resize_with(SLOTS, || None);
        Some(KeyCache { slots })
    }

    /// The `str` for `utf8`, from the cache or newly made and remembered.
    ///
    /// Each key has a set of two slots. The test of the first, where nearly every key of a
    /// document is found, is small enough to inline into the map loops; the second slot and the
    /// miss, which makes and stores a string, are a call of their own, so that the hit does not
    /// pay for their stack frame.
    ///
    /// # Safety
    /// `utf8` is valid UTF-8 of at most [`MAX_KEY_LEN`] bytes, and the GIL is held.
    #[inline(always)]
    pub unsafe fn get(&mut self, utf8: &[u8]) -> Option<Owned> {
        let head = short_word(utf8);
        let set = slot_with_head(utf8, head) & !1;
        if let Some(obj) = self.found(set, utf8, head) {
            return Some(obj);
        }
        // SAFETY: this method's precondition is `second_or_miss`'s.
        unsafe { self.second_or_miss(utf8, set) }
    }

    /// [`KeyCache::get`] for bytes not yet checked to be UTF-8: `check` runs only when they are
    /// in neither slot of their set. Bytes equal to a cached key's are valid UTF-8, as that
    /// key's were checked before it was stored, so a hit, nearly every key of a document, skips
    /// the check (some 20 instructions a key of five or six bytes).
    ///
    /// # Safety
    /// `bytes` is at most [`MAX_KEY_LEN`] bytes long, the GIL is held, and `check` fails unless
    /// `bytes` is valid UTF-8.
    #[inline(always)]
    pub unsafe fn get_checking<E>(
        &mut self,
        bytes: &[u8],
        check: impl FnOnce() -> Result<(), E>,
    ) -> Result<Option<Owned>, E> {
        let head = short_word(bytes);
        let set = slot_with_head(bytes, head) & !1;
        if let Some(obj) = self.found(set, bytes, head) {
            return Ok(Some(obj));
        }
        if let Some(obj) = self.found(set + 1, bytes, head) {
            return Ok(Some(obj));
        }
        check()?;
        // SAFETY: `check` passed, so `bytes` is valid UTF-8; the rest is this method's
        // precondition.
        Ok(unsafe { self.second_or_miss(bytes, set) })
    }

    /// The string in slot `index` if it holds `utf8`.
    #[inline(always)]
    fn found(&self, index: usize, utf8: &[u8], head: u64) -> Option<Owned> {
        match self.slots.get(index) {
            Some(Some(slot))
                if slot.head == head
                    && slot.len as usize == utf8.len()
                    && (utf8.len() <= 8 || same_prefix(&slot.bytes, utf8)) =>
            {
                // SAFETY: the cached string is live (the slot holds a reference).
                Some(unsafe { Owned::from_borrowed(slot.obj.as_ptr()) })
            }
            _ => None,
        }
    }

    /// The string for `utf8` from the second slot of its set, else newly made and stored in
    /// the first slot, whose string moves to the second (the one there is dropped): two keys
    /// whose hashes share a set, read in turn, both stay cached.
    ///
    /// # Safety
    /// As for [`KeyCache::get`].
    #[inline(never)]
    unsafe fn second_or_miss(&mut self, utf8: &[u8], set: usize) -> Option<Owned> {
        let head = short_word(utf8);
        if let Some(obj) = self.found(set + 1, utf8, head) {
            return Some(obj);
        }
        // SAFETY: `utf8` is valid UTF-8 and the GIL is held (this method's precondition), as
        // `new_str` needs.
        let obj = unsafe { ffi::new_str(utf8)? };
        // SAFETY: `obj` is a new str.
        unsafe { ffi::prime_hash(obj.as_ptr()) };
        let mut bytes = [0u8; MAX_KEY_LEN];
        bytes.get_mut(..utf8.len())?.copy_from_slice(utf8);
        // SAFETY: `obj` is live; the slot takes its own reference.
        let cached = unsafe { Owned::from_borrowed(obj.as_ptr()) };
        if set + 1 < self.slots.len() {
            self.slots.swap(set, set + 1);
            if let Some(slot) = self.slots.get_mut(set) {
                *slot = Some(Slot {
                    len: utf8.len() as u8,
                    head,
                    bytes,
                    obj: cached,
                });
            }
        }
        Some(obj)
    }
}

/// Whether `key` equals the first `key.len()` bytes of `stored`, compared a word at a time (the
/// last word overlaps the one before it rather than running past the end): no call to `memcmp`
/// for these short keys.
#[inline(always)]
fn same_prefix(stored: &[u8; MAX_KEY_LEN], key: &[u8]) -> bool {
    let n = key.len();
    if n > MAX_KEY_LEN {
        return false;
    }
    if n <= 8 {
        return short_word(&stored[..n]) == short_word(key);
    }
    let mut at = 0;
    while at + 8 < n {
        if word(stored, at) != word(key, at) {
            return false;
        }
        at += 8;
    }
    word(stored, n - 8) == word(key, n - 8)
}

/// The 8 bytes of `bytes` from `at`.
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Up to 8 bytes as one word, read as two overlapping loads of a fixed width instead of a copy
/// of variable length (whose narrow stores a wide load right after would wait for). For a given
/// length, different bytes give different words.
#[inline(always)]
fn short_word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let fixed = |at: usize, width: usize| -> u64 {
        let mut w = [0u8; 8];
        w[..width].copy_from_slice(&bytes[at..at + width]);
        u64::from_le_bytes(w)
    };
    match n {
        8.. => word(bytes, 0),
        4..=7 => fixed(0, 4) | fixed(n - 4, 4) << 32,
        2..=3 => fixed(0, 2) | fixed(n - 2, 2) << 16,
        1 => u64::from(bytes[0]),
        0 => 0,
    }
}

/// The slot for `bytes`: a multiplicative hash over 8-byte words (keys are short and not
/// attacker-chosen for collisions in any way that matters: a collision only costs a cache miss).
///
/// The slot is taken from the hash's top bits, which every input bit reaches through the
/// multiplications. Its low bits would not do: they depend only on the low bits of the last
/// word, so keys that differ only past their fourth byte or so (`field0` ... `field9`, or
/// numeric ids) would all share one slot and push each other out on every call.
#[cfg(test)]
fn slot_of(bytes: &[u8]) -> usize {
    slot_with_head(bytes, short_word(bytes))
}

/// [`slot_of`] for `bytes` whose [`short_word`] is `head`, read once for the hash and the
/// compare.
#[inline(always)]
fn slot_with_head(bytes: &[u8], head: u64) -> usize {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let n = bytes.len();
    let mut h = n as u64;
    // Whole words, then the last (up to) 8 bytes: past 8, a word that overlaps the one before.
    let mut at = 0;
    while at + 8 < n {
        h = (h.rotate_left(5) ^ word(bytes, at)).wrapping_mul(K);
        at += 8;
    }
    // Up to 8 bytes, `head` is the whole key (and at 8, the last word).
    let last = if n > 8 { word(bytes, n - 8) } else { head };
    h = (h.rotate_left(5) ^ last).wrapping_mul(K);
    (h >> (u64::BITS - SLOT_BITS)) as usize
}

/// Whether `obj` is the cached object for `utf8`, in either slot of its set (used by tests of
/// the cache).
#[cfg(test)]
fn is_cached(cache: &KeyCache, utf8: &[u8], obj: &Owned) -> bool {
    let set = slot_of(utf8) & !1;
    (set..set + 2).any(
        |i| matches!(cache.slots.get(i), Some(Some(slot)) if slot.obj.as_ptr() == obj.as_ptr()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_returns_the_same_object_and_distinct_keys_stay_distinct() {
        pyo3::Python::initialize();
        pyo3::Python::attach(|_py| {
            let mut cache = KeyCache::try_new().expect("the test's cache");
            // SAFETY: attached to the interpreter; inputs are short valid UTF-8.
            unsafe {
                let a = cache.get(b"name");
                let b = cache.get(b"name");
                assert!(a.is_some());
                let address = |o: &Option<Owned>| o.as_ref().map(Owned::as_ptr);
                assert_eq!(address(&a), address(&b));
                let c = cache.get("nämé".as_bytes());
                assert_ne!(address(&a), address(&c));
                if let Some(a) = &a {
                    assert!(is_cached(&cache, b"name", a));
                }
            }
        });
    }

    #[test]
    fn two_keys_of_one_slot_both_stay_cached() {
        // Two keys of the same hash slot, read in turn (as a document's keys are): in a table of
        // one slot for each hash they pushed each other out on every read.
        let mut first_in_slot = std::collections::HashMap::new();
        let (a, b) = (0..100_000)
            .map(|i| format!("key{i}"))
            .find_map(|key| {
                first_in_slot
                    .insert(slot_of(key.as_bytes()), key.clone())
                    .map(|other| (other, key))
            })
            .expect("two keys in one slot");
        pyo3::Python::initialize();
        pyo3::Python::attach(|_py| {
            let mut cache = KeyCache::try_new().expect("the test's cache");
            // SAFETY: attached to the interpreter; the keys are short ASCII.
            unsafe {
                let first_a = cache.get(a.as_bytes()).map(|o| o.as_ptr());
                let first_b = cache.get(b.as_bytes()).map(|o| o.as_ptr());
                for _ in 0..3 {
                    assert_eq!(cache.get(a.as_bytes()).map(|o| o.as_ptr()), first_a);
                    assert_eq!(cache.get(b.as_bytes()).map(|o| o.as_ptr()), first_b);
                }
                // A third key in the set keeps the most recently stored one of the other two.
                let c = (0..100_000)
                    .map(|i| format!("other{i}"))
                    .find(|key| slot_of(key.as_bytes()) & !1 == slot_of(a.as_bytes()) & !1)
                    .expect("a third key in the set");
                let held_c = cache.get(c.as_bytes());
                let first_c = held_c.as_ref().map(Owned::as_ptr);
                assert_eq!(cache.get(c.as_bytes()).map(|o| o.as_ptr()), first_c);
                assert_eq!(cache.get(b.as_bytes()).map(|o| o.as_ptr()), first_b);
                if let Some(obj) = &held_c {
                    assert!(is_cached(&cache, c.as_bytes(), obj));
                }
            }
        });
    }

    #[test]
    fn same_prefix_compares_every_byte() {
        let mut stored = [0u8; MAX_KEY_LEN];
        let key: Vec<u8> = (0..MAX_KEY_LEN as u8).collect();
        stored.copy_from_slice(&key);
        for n in 0..=MAX_KEY_LEN {
            assert!(same_prefix(&stored, &key[..n]));
            for i in 0..n {
                let mut other = key[..n].to_vec();
                other[i] ^= 1;
                assert!(!same_prefix(&stored, &other), "n={n} i={i}");
            }
        }
    }

    #[test]
    fn keys_differing_in_one_byte_spread_over_slots() {
        // Ten keys that differ in a single byte, at every position of every cacheable length:
        // they must not crowd into a few slots (all ten once shared one when the difference
        // was past the fourth byte).
        for len in 1..=MAX_KEY_LEN {
            for at in 0..len {
                let mut slots: Vec<usize> = (b'0'..=b'9')
                    .map(|digit| {
                        let mut key = vec![b'k'; len];
                        key[at] = digit;
                        slot_of(&key)
                    })
                    .collect();
                slots.sort_unstable();
                slots.dedup();
                assert!(slots.len() >= 8, "len={len} at={at}: {} slots", slots.len());
            }
        }
    }

    #[test]
    fn numeric_id_keys_spread_over_slots() {
        // 300 consecutive ids as keys (as in documents keyed by id) fill most of their share
        // of the table; expected for a uniform hash is about 279 distinct slots.
        let slots: std::collections::HashSet<usize> = (0..300)
            .map(|i| slot_of((138_586_341 + i).to_string().as_bytes()))
            .collect();
        assert!(slots.len() >= 250, "{} slots", slots.len());
    }
}
