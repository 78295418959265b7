//! `skip` (iterative, one stack of counts) against the grammar walked recursively: the same
//! verdict, the same error at the same offset, for well-formed documents, their truncations and
//! single-byte corruptions, and random bytes. The fuzz target (fuzz/) does the same with
//! libFuzzer's inputs.

mod common;

use common::docs::{value, Rng};
use common::walk::{same, walk_one};
use fastmsgpack_core::limits::MAX_DECODE_DEPTH;
use fastmsgpack_core::skip::check_one;

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
