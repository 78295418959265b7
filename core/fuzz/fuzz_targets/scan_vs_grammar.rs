//! The stream scanner against the grammar walked recursively (tests/common/stream.rs): the
//! first byte picks the size of the pieces the rest is fed in; the same objects must end in the
//! same places, and the stream stop at the same error or wait for more, as the grammar says and
//! as the scanner itself says when fed everything at once.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/stream.rs"]
mod stream;

fuzz_target!(|data: &[u8]| {
    let Some((&piece, stream)) = data.split_first() else {
        return;
    };
    stream::agrees(stream, 1 + usize::from(piece % 16));
});
