// The grammar walked the plain way, recursively, token by token: the oracle that the iterative
// `skip` must agree with (shared by tests/skip_agrees_with_grammar.rs and the fuzz target).

use fastmsgpack_core::error::{InputError, Kind};
use fastmsgpack_core::limits::MAX_DECODE_DEPTH;
use fastmsgpack_core::reader::{ReadResult, Reader};
use fastmsgpack_core::token::{self, Token};

/// Reads past the value at the reader's position, at nesting `depth`, checking it as
/// `skip::skip_value` promises to.
pub fn walk(r: &mut Reader<'_>, depth: u32) -> ReadResult<()> {
    let start = r.pos;
    let items = match token::next(r, "value")? {
        Token::Str(bytes) => {
            if std::str::from_utf8(bytes).is_err() {
                return Err(InputError::new(Kind::InvalidUtf8, start));
            }
            return Ok(());
        }
        Token::Array(n) => n as u64,
        Token::Map(n) => 2 * n as u64,
        _ => return Ok(()),
    };
    if depth >= MAX_DECODE_DEPTH {
        return Err(InputError::new(Kind::TooDeep, start));
    }
    if items > r.remaining() as u64 {
        return Err(r.truncated("container", items, start));
    }
    for _ in 0..items {
        walk(r, depth + 1)?;
    }
    Ok(())
}

/// `data` as exactly one value, as `skip::check_one` promises to check it.
pub fn walk_one(data: &[u8]) -> ReadResult<()> {
    if data.is_empty() {
        return Err(InputError::new(Kind::Empty, 0));
    }
    let mut r = Reader::new(data);
    walk(&mut r, 0)?;
    if r.pos != data.len() {
        let extra = data.len() - r.pos;
        return Err(InputError::new(Kind::Trailing { extra }, r.pos));
    }
    Ok(())
}

/// Whether the two results are the same: both fine, or the same error at the same offset.
pub fn same(a: &ReadResult<()>, b: &ReadResult<()>) -> bool {
    match (a, b) {
        (Ok(()), Ok(())) => true,
        (Err(x), Err(y)) => x.to_string() == y.to_string(),
        _ => false,
    }
}
