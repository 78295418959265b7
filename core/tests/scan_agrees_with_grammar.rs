//! The stream scanner, fed piece by piece, against the grammar walked recursively: the same
//! objects end in the same places, and the stream stops at the same error or waits for more,
//! whatever the size of the pieces. For streams of well-formed documents, their truncations and
//! single-byte corruptions, and random bytes. The fuzz target (fuzz/) does the same with
//! libFuzzer's inputs.

mod common;

use common::docs::{value, Rng};
use common::stream::{agrees, by_the_scanner, End};
use fastmsgpack_core::limits::MAX_DECODE_DEPTH;

/// Runs `f` on a thread with room for the recursive walk's 1024 levels in a debug build.
fn with_stack(f: impl FnOnce() + Send) {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn_scoped(s, f)
            .unwrap_or_else(|err| panic!("no thread for the walk: {err}"))
            .join()
            .unwrap_or_else(|err| std::panic::resume_unwind(err))
    })
}

#[test]
fn streams_their_truncations_and_corruptions() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..1000 {
        let mut stream = Vec::new();
        for _ in 0..1 + rng.below(4) {
            value(&mut rng, 0, &mut stream);
        }
        let piece = 1 + rng.below(8) as usize;
        agrees(&stream, piece);
        for cut in 0..stream.len() {
            agrees(&stream[..cut], piece);
        }
        let mut bad = stream.clone();
        let at = rng.below(bad.len() as u64) as usize;
        bad[at] = rng.next() as u8;
        agrees(&bad, piece);
        bad.push(0xc1);
        agrees(&bad, piece);
    }
}

#[test]
fn random_bytes() {
    let mut rng = Rng(7);
    for _ in 0..20000 {
        let n = rng.below(24) as usize;
        let data: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        agrees(&data, 1 + rng.below(5) as usize);
    }
}

#[test]
fn nesting_at_and_past_the_limit() {
    with_stack(|| {
        for levels in [MAX_DECODE_DEPTH - 1, MAX_DECODE_DEPTH, MAX_DECODE_DEPTH + 1] {
            let mut data = vec![0x91; levels as usize];
            data.push(0x01);
            for piece in [1, 7, data.len()] {
                agrees(&data, piece);
            }
        }
        // One level too deep, the marker alone: refused before its header arrives.
        let mut deep = vec![0x91; MAX_DECODE_DEPTH as usize];
        deep.push(0xdc);
        let (ends, end, _) = by_the_scanner(&deep, 3);
        assert!(ends.is_empty());
        assert_eq!(
            end,
            End::Error(format!(
                "containers nested deeper than {MAX_DECODE_DEPTH} levels at byte offset {MAX_DECODE_DEPTH}"
            ))
        );
    })
}

#[test]
fn a_huge_declared_length_waits_whatever_follows() {
    for header in [
        &b"\xdb\xff\xff\xff\xff"[..],
        b"\xdd\xff\xff\xff\xff\x01\x02",
        b"\xc6\xff\xff\xff\xffabc",
    ] {
        agrees(header, 2);
        assert_eq!(by_the_scanner(header, 1).1, End::Waiting);
    }
}
