//! Walks MessagePack without building anything: checks that bytes hold one well-formed object
//! (every header complete, every length within the input, every str valid UTF-8, no reserved
//! marker, nesting within the decoder's limit).
//!
//! Used to check a `Fragment`'s contents once, when it is made, so that `packb` can then write
//! them verbatim.

use super::error::{DeError, Kind};
use super::msgpack::MAX_DEPTH;
use super::reader::{DeResult, Reader};

/// Checks that `data` is exactly one well-formed MessagePack object.
pub fn check_one(data: &[u8]) -> DeResult<()> {
    if data.is_empty() {
        return Err(DeError::input(Kind::Empty, 0));
    }
    let mut r = Reader::new(data);
    // Items still to read in each open container (a map counts keys and values); the stack is
    // at most MAX_DEPTH long, whatever the headers declare.
    let mut open: Vec<u64> = Vec::new();
    loop {
        let start = r.pos;
        let children = item(&mut r, start)?;
        if children > 0 {
            if open.len() >= MAX_DEPTH as usize {
                return Err(DeError::input(Kind::TooDeep, start));
            }
            // Each item takes at least one byte: a count beyond the input is truncated now,
            // not after reading what there is.
            if children > r.remaining() as u64 {
                return Err(r.truncated("container", children, start));
            }
            open.push(children);
            continue;
        }
        // The item is complete: it ends one item of each container it completes.
        loop {
            match open.last_mut() {
                None => {
                    if r.pos != data.len() {
                        let extra = data.len() - r.pos;
                        return Err(DeError::input(Kind::Trailing { extra }, r.pos));
                    }
                    return Ok(());
                }
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
/// returns how many items its container holds (0 for scalars and empty containers).
fn item(r: &mut Reader<'_>, start: usize) -> DeResult<u64> {
    let marker = r.u8(start)?;
    let payload = |r: &mut Reader<'_>, n: usize, what: &'static str| -> DeResult<u64> {
        r.take(n, what, start)?;
        Ok(0)
    };
    match marker {
        0x00..=0x7f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => Ok(0),
        0x80..=0x8f => Ok(2 * (marker & 0x0f) as u64),
        0x90..=0x9f => Ok((marker & 0x0f) as u64),
        0xa0..=0xbf => text(r, (marker & 0x1f) as usize, start),
        0xc1 => Err(DeError::input(Kind::Reserved, start)),
        0xc4 => {
            let n = r.u8(start)? as usize;
            payload(r, n, "bin")
        }
        0xc5 => {
            let n = r.u16(start)? as usize;
            payload(r, n, "bin")
        }
        0xc6 => {
            let n = r.u32(start)? as usize;
            payload(r, n, "bin")
        }
        0xc7 => {
            let n = r.u8(start)? as usize;
            payload(r, n + 1, "ext")
        }
        0xc8 => {
            let n = r.u16(start)? as usize;
            payload(r, n + 1, "ext")
        }
        0xc9 => {
            let n = r.u32(start)? as usize;
            payload(r, n + 1, "ext")
        }
        0xca => payload(r, 4, "float 32"),
        0xcb => payload(r, 8, "float 64"),
        0xcc | 0xd0 => payload(r, 1, "int"),
        0xcd | 0xd1 => payload(r, 2, "int"),
        0xce | 0xd2 => payload(r, 4, "int"),
        0xcf | 0xd3 => payload(r, 8, "int"),
        0xd4 => payload(r, 2, "ext"),
        0xd5 => payload(r, 3, "ext"),
        0xd6 => payload(r, 5, "ext"),
        0xd7 => payload(r, 9, "ext"),
        0xd8 => payload(r, 17, "ext"),
        0xd9 => {
            let n = r.u8(start)? as usize;
            text(r, n, start)
        }
        0xda => {
            let n = r.u16(start)? as usize;
            text(r, n, start)
        }
        0xdb => {
            let n = r.u32(start)? as usize;
            text(r, n, start)
        }
        0xdc => Ok(r.u16(start)? as u64),
        0xdd => Ok(r.u32(start)? as u64),
        0xde => Ok(2 * r.u16(start)? as u64),
        0xdf => Ok(2 * r.u32(start)? as u64),
    }
}

fn text(r: &mut Reader<'_>, n: usize, start: usize) -> DeResult<u64> {
    let bytes = r.take(n, "str", start)?;
    if !bytes.is_ascii() && simdutf8::basic::from_utf8(bytes).is_err() {
        return Err(DeError::input(Kind::InvalidUtf8, start));
    }
    Ok(0)
}
