// The stream scanner (`scan::Scanner`, fed piece by piece) against the grammar walked the plain
// way: the same objects end in the same places, and the stream stops with the same error at
// the same offset, or waits for more, whatever the size of the pieces. Shared by
// tests/scan_agrees_with_grammar.rs and the fuzz target.

use fastmsgpack_core::error::{InputError, Kind};
use fastmsgpack_core::limits::MAX_DECODE_DEPTH;
use fastmsgpack_core::reader::{ReadResult, Reader};
use fastmsgpack_core::scan::{Scan, Scanner, Structure};
use fastmsgpack_core::token::{self, Token};

/// How a stream ends: waiting for more bytes, or at an error (its text, with its offset).
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    Waiting,
    Error(String),
}

/// Reads past the value at the reader's position, at nesting `depth`, checking its structure
/// only, as the scanner promises to: a str is taken by its length, and a container too deep is
/// refused from its marker.
pub fn walk_structure(r: &mut Reader<'_>, depth: u32) -> ReadResult<()> {
    let start = r.pos;
    if let Some(&marker) = r.data.get(start) {
        if depth >= MAX_DECODE_DEPTH && token::is_container_marker(marker) {
            return Err(InputError::new(Kind::TooDeep, start));
        }
    }
    let items = match token::next(r, "value")? {
        Token::Array(n) => n as u64,
        Token::Map(n) => 2 * n as u64,
        _ => return Ok(()),
    };
    for _ in 0..items {
        walk_structure(r, depth + 1)?;
    }
    Ok(())
}

/// Where each object of the stream `data` ends (from the start of `data`), and how the stream
/// ends, by the grammar.
pub fn by_the_grammar(data: &[u8]) -> (Vec<usize>, End) {
    let mut r = Reader::new(data);
    let mut ends = Vec::new();
    loop {
        if r.pos == data.len() {
            return (ends, End::Waiting);
        }
        match walk_structure(&mut r, 0) {
            Ok(()) => ends.push(r.pos),
            Err(err) if err.is_truncated() => return (ends, End::Waiting),
            Err(err) => return (ends, End::Error(rebase(&err, 0))),
        }
    }
}

/// The same, by the scanner fed `piece` bytes at a time (at least one); with an error, also
/// where the scanner says the failing item ends.
pub fn by_the_scanner(data: &[u8], piece: usize) -> (Vec<usize>, End, Option<usize>) {
    let mut scanner = Scanner::default();
    let (mut start, mut fed, mut ends) = (0, 0, Vec::new());
    loop {
        match scanner.scan(&data[start..fed], &mut Structure) {
            Ok(Scan::Complete(end)) => {
                assert!(end > 0, "an object takes at least a byte");
                start += end;
                ends.push(start);
            }
            Ok(Scan::Incomplete) if fed == data.len() => return (ends, End::Waiting, None),
            Ok(Scan::Incomplete) => fed = (fed + piece.max(1)).min(data.len()),
            Err(fault) => {
                let text = rebase(&fault.err, start);
                return (ends, End::Error(text), Some(start + fault.end));
            }
        }
    }
}

/// An error's text, its offset counted from `base` earlier.
fn rebase(err: &InputError, base: usize) -> String {
    format!("{} at byte offset {}", err.kind(), base + err.offset())
}

/// Panics unless the scanner, fed in pieces of `piece` bytes, agrees with the grammar and with
/// itself fed the whole stream at once.
pub fn agrees(data: &[u8], piece: usize) {
    let (ends, end) = by_the_grammar(data);
    let whole = by_the_scanner(data, data.len());
    assert_eq!(
        (&whole.0, &whole.1),
        (&ends, &end),
        "{data:02x?}: the scanner (whole) against the grammar"
    );
    let pieces = by_the_scanner(data, piece);
    assert_eq!(
        pieces, whole,
        "{data:02x?}: the scanner in pieces of {piece} against the whole"
    );
}
