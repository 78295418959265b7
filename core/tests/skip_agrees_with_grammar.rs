//! `skip` (iterative, one stack of counts) against the grammar walked recursively: the same
//! verdict, the same error at the same offset, for well-formed documents, their truncations and
//! single-byte corruptions, and random bytes. The fuzz target (fuzz/) does the same with
//! libFuzzer's inputs.

mod common;

use common::walk::{same, walk_one};
use fastmsgpack_core::limits::MAX_DECODE_DEPTH;
use fastmsgpack_core::skip::check_one;

/// xorshift64*: a fixed, seedable stream, so that a failure repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random well-formed value (every family, small and wide headers) appended to `out`.
fn value(rng: &mut Rng, depth: u32, out: &mut Vec<u8>) {
    let pick = if depth > 6 {
        rng.below(8)
    } else {
        rng.below(11)
    };
    match pick {
        0 => out.push(0xc0),
        1 => out.push(0xc2 | rng.below(2) as u8),
        2 => out.push(rng.below(128) as u8),
        3 => {
            out.push(0xd3);
            out.extend_from_slice(&rng.next().to_be_bytes());
        }
        4 => {
            out.push(0xcb);
            out.extend_from_slice(&rng.next().to_be_bytes());
        }
        5 => {
            let text = ["", "a", "héllo", "日本", "\u{10ffff}"][rng.below(5) as usize];
            if rng.below(2) == 0 && text.len() < 32 {
                out.push(0xa0 | text.len() as u8);
            } else {
                out.push(0xd9);
                out.push(text.len() as u8);
            }
            out.extend_from_slice(text.as_bytes());
        }
        6 => {
            let n = rng.below(5) as usize;
            out.extend_from_slice(&[0xc4, n as u8]);
            out.extend(std::iter::repeat_n(0xab, n));
        }
        7 => {
            out.extend_from_slice(&[0xd6, 0xff]);
            out.extend_from_slice(&(rng.next() as u32).to_be_bytes());
        }
        8 | 9 => {
            let n = rng.below(4);
            let map = pick == 9;
            if rng.below(2) == 0 {
                out.push(if map { 0x80 } else { 0x90 } | n as u8);
            } else {
                out.push(if map { 0xde } else { 0xdc });
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            for _ in 0..n * if map { 2 } else { 1 } {
                value(rng, depth + 1, out);
            }
        }
        _ => {
            out.push(0xdd);
            out.extend_from_slice(&1u32.to_be_bytes());
            value(rng, depth + 1, out);
        }
    }
}

fn agree(data: &[u8]) {
    // The recursive walk needs a frame per level: more than a test thread's stack holds for
    // 1024 levels in a debug build.
    let theirs = if data.len() < 200 {
        walk_one(data)
    } else {
        deep_walk(data)
    };
    let ours = check_one(data);
    assert!(
        same(&ours, &theirs),
        "{data:02x?}: skip gave {ours:?}, the grammar {theirs:?}"
    );
}

fn deep_walk(data: &[u8]) -> fastmsgpack_core::reader::ReadResult<()> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn_scoped(s, || walk_one(data))
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|_| panic!("the walk panicked"))
            })
            .unwrap_or_else(|err| panic!("no thread for the walk: {err}"))
    })
}

#[test]
fn documents_their_truncations_and_corruptions() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..2000 {
        let mut doc = Vec::new();
        value(&mut rng, 0, &mut doc);
        assert!(check_one(&doc).is_ok(), "{doc:02x?}");
        agree(&doc);
        for cut in 0..doc.len() {
            agree(&doc[..cut]);
        }
        let mut bad = doc.clone();
        let at = rng.below(bad.len() as u64) as usize;
        bad[at] = rng.next() as u8;
        agree(&bad);
        bad.push(0xc1);
        agree(&bad);
    }
}

#[test]
fn random_bytes() {
    let mut rng = Rng(42);
    for _ in 0..20000 {
        let n = rng.below(24) as usize;
        let data: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        agree(&data);
    }
}

#[test]
fn nesting_at_and_past_the_limit() {
    for levels in [MAX_DECODE_DEPTH - 1, MAX_DECODE_DEPTH, MAX_DECODE_DEPTH + 1] {
        let mut data = vec![0x91; levels as usize];
        data.push(0x01);
        agree(&data);
        let mut empty = vec![0x91; levels as usize - 1];
        empty.push(0x90);
        agree(&empty);
    }
    let mut deep = vec![0x91; MAX_DECODE_DEPTH as usize - 1];
    deep.push(0x01);
    assert!(check_one(&deep).is_ok());
    let mut too_deep = vec![0x91; MAX_DECODE_DEPTH as usize + 1];
    too_deep.push(0x01);
    let err = check_one(&too_deep).map(|_| ()).unwrap_err();
    assert_eq!(err.offset(), MAX_DECODE_DEPTH as usize);
    assert_eq!(err.kind().name(), "too_deep");
}

#[test]
fn huge_counts_are_truncated_without_reading_on() {
    // A header that declares 2**32-1 items: refused at the header, nothing allocated for them.
    let data = [0xdd, 0xff, 0xff, 0xff, 0xff, 0x01];
    agree(&data);
    let err = check_one(&data).unwrap_err();
    assert_eq!((err.kind().name(), err.offset()), ("truncated", 0));
}
