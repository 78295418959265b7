//! Zone keys `zoneinfo` does not know, remembered with what it said: a miss is not cached by
//! `ZoneInfo` itself, and looking for one searches the time zone path (and the first time, tries
//! to import `tzdata`), which cost 0.15 ms a datetime and 43 ms the first time. Hostile input
//! can name any number of keys, so only the last [`CAPACITY`] are kept.
//!
//! One list for the process, behind a lock: decodes on several threads (free-threaded builds
//! included) share it.

use std::collections::VecDeque;
use std::sync::Mutex;

/// How many unknown keys are remembered.
pub const CAPACITY: usize = 64;

/// The longest key remembered: longer ones are looked up each time (no real key is this long).
const MAX_KEY: usize = 256;

/// A key refused, and what `zoneinfo` said of it.
type Refusal = (Box<[u8]>, Box<str>);

static UNKNOWN: Mutex<VecDeque<Refusal>> = Mutex::new(VecDeque::new());

/// What `zoneinfo` said of `key` when it was last refused, if it is remembered.
pub fn refused(key: &[u8]) -> Option<String> {
    // A poisoned lock (a panic while it was held) only loses the list: it holds no invariant.
    let list = UNKNOWN.lock().unwrap_or_else(|e| e.into_inner());
    list.iter()
        .find(|(k, _)| &**k == key)
        .map(|(_, why)| why.to_string())
}

/// Remembers that `zoneinfo` refused `key`, saying `why`; the oldest key goes past
/// [`CAPACITY`].
#[cold]
pub fn remember(key: &[u8], why: &str) {
    if key.len() > MAX_KEY {
        return;
    }
    let mut list = UNKNOWN.lock().unwrap_or_else(|e| e.into_inner());
    if list.iter().any(|(k, _)| &**k == key) {
        return;
    }
    if list.len() >= CAPACITY {
        list.pop_front();
    }
    list.push_back((key.into(), why.into()));
}

/// How many keys are remembered now (for the tests of the bound).
#[cfg(test)]
fn len() -> usize {
    UNKNOWN.lock().unwrap_or_else(|e| e.into_inner()).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_found() {
        for i in 0..CAPACITY + 10 {
            remember(format!("Nowhere/K{i}").as_bytes(), "no such zone");
        }
        assert_eq!(len(), CAPACITY);
        assert_eq!(refused(b"Nowhere/K0"), None);
        assert_eq!(
            refused(format!("Nowhere/K{}", CAPACITY + 9).as_bytes()).as_deref(),
            Some("no such zone")
        );
    }
}
