//! `skip` against the grammar walked recursively (tests/common/walk.rs): for any bytes, the same
//! verdict and the same error at the same offset, for one whole document and for a stream of
//! values read one after another.
#![no_main]

use fastmsgpack_core::reader::Reader;
use fastmsgpack_core::skip::{check_one, skip_value};
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/walk.rs"]
mod walk;

fuzz_target!(|data: &[u8]| {
    let (ours, theirs) = (check_one(data), walk::walk_one(data));
    assert!(
        walk::same(&ours, &theirs),
        "check_one gave {ours:?}, the grammar {theirs:?}"
    );

    let mut skipped = Reader::new(data);
    let mut walked = Reader::new(data);
    while skipped.pos < data.len() {
        let (ours, theirs) = (skip_value(&mut skipped, 0), walk::walk(&mut walked, 0));
        assert!(
            walk::same(&ours, &theirs),
            "at {}: skip_value gave {ours:?}, the grammar {theirs:?}",
            walked.pos
        );
        if ours.is_err() {
            break;
        }
        assert_eq!(skipped.pos, walked.pos, "the value ends in the same place");
    }
});
