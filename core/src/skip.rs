//! Walks MessagePack without building anything: checks that bytes hold one well-formed object
//! (every header complete, every length within the input, every str valid UTF-8, no reserved
//! marker, nesting within the decoder's limit).
//!
//! Used to check a `Fragment`'s contents once, when it is made, so that `packb` can then write
//! them verbatim, and by typed decoding to pass over the values of keys no field has.

use crate::error::{InputError, Kind};
use crate::reader::{ReadResult, Reader};
use crate::token::{self, Token};

/// Checks that `data` is exactly one well-formed MessagePack object.
pub fn check_one(data: &[u8]) -> ReadResult<()> {
    if data.is_empty() {
        return Err(InputError::new(Kind::Empty, 0));
    }
    let mut r = Reader::new(data);
    skip_value(&mut r, 0)?;
    if r.pos != data.len() {
        let extra = data.len() - r.pos;
        return Err(InputError::new(Kind::Trailing { extra }, r.pos));
    }
    Ok(())
}

/// Reads past the one object that starts at the reader's position, checking it as
/// [`check_one`] does (what follows it is left alone). `depth` is the nesting of that object.
pub fn skip_value(r: &mut Reader<'_>, depth: u32) -> ReadResult<()> {
    // Items still to read in each open container (a map counts keys and values); the stack is
    // at most MAX_DECODE_DEPTH long, whatever the headers declare.
    let mut open: Vec<u64> = Vec::new();
    loop {
        let start = r.pos;
        if let Some(children) = item(r, start)? {
            // Every container counts towards the depth limit, an empty one too, as in the
            // decoder. Each item takes at least one byte: a count beyond the input is truncated
            // now, not after reading what there is.
            let n = usize::try_from(children).unwrap_or(usize::MAX);
            r.container(n, 1, "container", open.len() as u32 + depth, start)?;
            if children > 0 {
                open.push(children);
                continue;
            }
        }
        // The item is complete: it ends one item of each container it completes.
        loop {
            match open.last_mut() {
                None => return Ok(()),
                Some(left) => {
                    *left -= 1;
                    if *left > 0 {
                        break;
                    }
                    open.pop();
                }
            }
        }
    }
}

/// Reads the item that starts at `start` (a scalar whole, a container's header only) and
/// returns, for a container, how many items it holds.
#[inline(always)]
fn item(r: &mut Reader<'_>, start: usize) -> ReadResult<Option<u64>> {
    Ok(match token::next(r, "value")? {
        Token::Str(bytes) => {
            if !bytes.is_ascii() && simdutf8::basic::from_utf8(bytes).is_err() {
                return Err(InputError::new(Kind::InvalidUtf8, start));
            }
            None
        }
        Token::Array(n) => Some(n as u64),
        Token::Map(n) => Some(2 * n as u64),
        _ => None,
    })
}
