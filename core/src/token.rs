//! The MessagePack grammar, written once: [`next`] reads the item that starts at the reader's
//! position and names it as a [`Token`]. The decoder (`unpackb`), the transcoder
//! (`json.from_msgpack`) and the structure check (`Fragment`) all read their input through it, so
//! the format's markers are matched here and nowhere else.
//!
//! A scalar's token carries its value; a `str`, `bin` or ext token its bytes (a `str`'s are not
//! yet checked to be UTF-8: each reader checks them its own way); a container's token only its
//! length, its items following as tokens of their own. Every read is bounds-checked, and a
//! length is only ever compared with the input, never used to reserve memory.

use crate::error::{InputError, Kind};
use crate::reader::{ReadResult, Reader};

/// One item of MessagePack.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Token<'a> {
    Nil,
    Bool(bool),
    /// Every integer form but uint 64.
    Int(i64),
    /// uint 64 (which may exceed `i64::MAX`).
    UInt(u64),
    F32(f32),
    F64(f64),
    /// A str's bytes, not yet checked to be UTF-8.
    Str(&'a [u8]),
    Bin(&'a [u8]),
    Ext(i8, &'a [u8]),
    /// An array header and its item count.
    Array(usize),
    /// A map header and its entry count (each entry a key and a value).
    Map(usize),
}

impl Token<'_> {
    /// The MessagePack type, for error messages.
    #[cold]
    pub fn type_name(&self) -> &'static str {
        match self {
            Token::Nil => "nil",
            Token::Bool(_) => "bool",
            Token::Int(_) | Token::UInt(_) => "int",
            Token::F32(_) | Token::F64(_) => "float",
            Token::Str(_) => "str",
            Token::Bin(_) => "bin",
            Token::Ext(..) => "ext",
            Token::Array(_) => "array",
            Token::Map(_) => "map",
        }
    }
}

/// Reads the item that starts at the reader's position: its whole encoding for a scalar, `str`,
/// `bin` or ext, its header for a container. `what` names the item for a truncation error when
/// not even its first byte is there ("value", "map key").
#[inline(always)]
pub fn next<'a>(r: &mut Reader<'a>, what: &'static str) -> ReadResult<Token<'a>> {
    let start = r.pos;
    let Some(&marker) = r.data.get(start) else {
        return Err(r.truncated(what, 1, start));
    };
    r.pos += 1;
    Ok(match marker {
        0x00..=0x7f => Token::Int(marker as i64),
        0x80..=0x8f => Token::Map((marker & 0x0f) as usize),
        0x90..=0x9f => Token::Array((marker & 0x0f) as usize),
        0xa0..=0xbf => Token::Str(r.take((marker & 0x1f) as usize, "str", start)?),
        0xc0 => Token::Nil,
        0xc1 => return Err(InputError::new(Kind::Reserved, start)),
        0xc2 => Token::Bool(false),
        0xc3 => Token::Bool(true),
        0xc4 => {
            let n = r.u8(start)? as usize;
            Token::Bin(r.take(n, "bin", start)?)
        }
        0xc5 => {
            let n = r.u16(start)? as usize;
            Token::Bin(r.take(n, "bin", start)?)
        }
        0xc6 => {
            let n = r.u32(start)? as usize;
            Token::Bin(r.take(n, "bin", start)?)
        }
        0xc7 => {
            let n = r.u8(start)? as usize;
            ext(r, n, start)?
        }
        0xc8 => {
            let n = r.u16(start)? as usize;
            ext(r, n, start)?
        }
        0xc9 => {
            let n = r.u32(start)? as usize;
            ext(r, n, start)?
        }
        0xca => Token::F32(f32::from_bits(r.u32(start)?)),
        0xcb => Token::F64(f64::from_bits(r.u64(start)?)),
        0xcc => Token::Int(r.u8(start)? as i64),
        0xcd => Token::Int(r.u16(start)? as i64),
        0xce => Token::Int(r.u32(start)? as i64),
        0xcf => Token::UInt(r.u64(start)?),
        0xd0 => Token::Int(r.u8(start)? as i8 as i64),
        0xd1 => Token::Int(r.u16(start)? as i16 as i64),
        0xd2 => Token::Int(r.u32(start)? as i32 as i64),
        0xd3 => Token::Int(r.u64(start)? as i64),
        0xd4 => ext(r, 1, start)?,
        0xd5 => ext(r, 2, start)?,
        0xd6 => ext(r, 4, start)?,
        0xd7 => ext(r, 8, start)?,
        0xd8 => ext(r, 16, start)?,
        0xd9 => {
            let n = r.u8(start)? as usize;
            Token::Str(r.take(n, "str", start)?)
        }
        0xda => {
            let n = r.u16(start)? as usize;
            Token::Str(r.take(n, "str", start)?)
        }
        0xdb => {
            let n = r.u32(start)? as usize;
            Token::Str(r.take(n, "str", start)?)
        }
        0xdc => Token::Array(r.u16(start)? as usize),
        0xdd => Token::Array(r.u32(start)? as usize),
        0xde => Token::Map(r.u16(start)? as usize),
        0xdf => Token::Map(r.u32(start)? as usize),
        0xe0..=0xff => Token::Int(marker as i8 as i64),
    })
}

/// The whole length (marker included) of each item whose length the marker alone gives: the
/// ints, floats, nil, booleans and fixext; 0 for the others. Lets a walk that builds nothing pass
/// over them without the full dispatch of [`next`] (it agrees with [`next`]: see the tests).
pub const FIXED_LEN: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut m = 0;
    while m < 256 {
        table[m] = match m as u8 {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => 1,
            0xcc | 0xd0 => 2,
            0xcd | 0xd1 => 3,
            0xca | 0xce | 0xd2 => 5,
            0xcb | 0xcf | 0xd3 => 9,
            0xd4 => 3,
            0xd5 => 4,
            0xd6 => 6,
            0xd7 => 10,
            0xd8 => 18,
            _ => 0,
        };
        m += 1;
    }
    table
};

/// A map key: the bytes of a `str` (`Ok`), or any other item as its token (`Err`). Keys are
/// mostly short strings, so a fixstr is read before the full dispatch of [`next`]: the readers'
/// map loops spend most of their time here.
#[inline(always)]
pub fn next_key<'a>(r: &mut Reader<'a>) -> ReadResult<Result<&'a [u8], Token<'a>>> {
    let start = r.pos;
    if let Some(&marker @ 0xa0..=0xbf) = r.data.get(start) {
        r.pos += 1;
        return Ok(Ok(r.take((marker & 0x1f) as usize, "str", start)?));
    }
    Ok(match next(r, "map key")? {
        Token::Str(bytes) => Ok(bytes),
        token => Err(token),
    })
}

/// An ext item's type byte and its `n` bytes of data.
#[inline(always)]
fn ext<'a>(r: &mut Reader<'a>, n: usize, start: usize) -> ReadResult<Token<'a>> {
    let tag = r.u8(start)? as i8;
    Ok(Token::Ext(tag, r.take(n, "ext", start)?))
}

/// nil, false or true, when the next item is one of them (read, one byte), else `None` with
/// nothing read: lets a container's loop take them without the full dispatch of [`next`].
#[derive(Clone, Copy)]
pub enum Singleton {
    Nil,
    False,
    True,
}

#[inline(always)]
pub fn singleton(r: &mut Reader<'_>) -> Option<Singleton> {
    let found = match r.data.get(r.pos)? {
        0xc0 => Singleton::Nil,
        0xc2 => Singleton::False,
        0xc3 => Singleton::True,
        _ => return None,
    };
    r.pos += 1;
    Some(found)
}

/// Whether the byte starts an array or a map (known from the marker alone, before the rest of
/// the header has arrived).
#[inline(always)]
pub fn is_container_marker(marker: u8) -> bool {
    matches!(marker, 0x80..=0x9f | 0xdc..=0xdf)
}

/// Whether the item that starts at `pos` can only decode to an atomic object (one the garbage
/// collector does not track): anything but an array, a map or an ext (which a hook may turn
/// into any object).
///
/// One look-up in a table of the 256 markers: the map loops ask it for every key and value, and
/// the five ranges compared one by one cost some 12 instructions a test.
#[inline(always)]
pub fn is_atomic_at(data: &[u8], pos: usize) -> bool {
    match data.get(pos) {
        Some(&marker) => ATOMIC_MARKER[marker as usize],
        None => false,
    }
}

/// For each marker, whether the item it starts is atomic (see [`is_atomic_at`]).
static ATOMIC_MARKER: [bool; 256] = {
    let mut table = [true; 256];
    let mut marker = 0;
    while marker < 256 {
        table[marker] = !matches!(
            marker as u8,
            0x80..=0x9f | 0xdc..=0xdf | 0xc7..=0xc9 | 0xd4..=0xd8
        );
        marker += 1;
    }
    table
};

/// Whether the item at `pos` starts with the two bytes `bin 8` of length `len` followed by
/// `text` (how a map in msgpack-numpy's layout begins: `bin 8 "nd"`).
#[inline(always)]
pub fn starts_with_bin8(data: &[u8], pos: usize, text: &[u8]) -> bool {
    let Some(rest) = data.get(pos..) else {
        return false;
    };
    rest.len() >= 2 + text.len()
        && rest[0] == 0xc4
        && rest[1] as usize == text.len()
        && &rest[2..2 + text.len()] == text
}

/// The kind of item that `data` starts with (`"str"`, `"bin"`, `"array"`, `"map"`, `"ext"`) and
/// the length its header declares, read from the header alone, before the item itself is there
/// (`None` for the other kinds, and for a header cut short): per-kind length limits (as
/// msgpack-python's `max_*_len`) are checked against it before anything is read.
#[inline(always)]
pub fn declared_length(data: &[u8]) -> Option<(&'static str, usize)> {
    let be = |n: usize| -> Option<usize> {
        let bytes = data.get(1..1 + n)?;
        Some(bytes.iter().fold(0usize, |acc, &b| acc << 8 | b as usize))
    };
    Some(match *data.first()? {
        m @ 0x80..=0x8f => ("map", (m & 0x0f) as usize),
        m @ 0x90..=0x9f => ("array", (m & 0x0f) as usize),
        m @ 0xa0..=0xbf => ("str", (m & 0x1f) as usize),
        0xc4 => ("bin", be(1)?),
        0xc5 => ("bin", be(2)?),
        0xc6 => ("bin", be(4)?),
        0xc7 => ("ext", be(1)?),
        0xc8 => ("ext", be(2)?),
        0xc9 => ("ext", be(4)?),
        0xd4 => ("ext", 1),
        0xd5 => ("ext", 2),
        0xd6 => ("ext", 4),
        0xd7 => ("ext", 8),
        0xd8 => ("ext", 16),
        0xd9 => ("str", be(1)?),
        0xda => ("str", be(2)?),
        0xdb => ("str", be(4)?),
        0xdc => ("array", be(2)?),
        0xdd => ("array", be(4)?),
        0xde => ("map", be(2)?),
        0xdf => ("map", be(4)?),
        _ => return None,
    })
}

/// The seconds and nanoseconds of a timestamp extension's payload (type -1): 32-bit seconds,
/// 64-bit (30-bit nanoseconds over 34-bit seconds) or 96-bit (32-bit nanoseconds, then signed
/// 64-bit seconds), the forms [`crate::marker::timestamp`] writes. The error names what is wrong.
pub fn timestamp(payload: &[u8]) -> Result<(i64, u32), &'static str> {
    let (secs, nanos) = match *payload {
        [a, b, c, d] => (u32::from_be_bytes([a, b, c, d]) as i64, 0),
        [a, b, c, d, e, f, g, h] => {
            let v = u64::from_be_bytes([a, b, c, d, e, f, g, h]);
            ((v & ((1 << 34) - 1)) as i64, (v >> 34) as u32)
        }
        [a, b, c, d, e, f, g, h, i, j, k, l] => (
            i64::from_be_bytes([e, f, g, h, i, j, k, l]),
            u32::from_be_bytes([a, b, c, d]),
        ),
        _ => return Err("length must be 4, 8 or 12 bytes"),
    };
    if nanos >= 1_000_000_000 {
        return Err("nanoseconds must be below 10**9");
    }
    Ok((secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Token<'_> {
        let mut r = Reader::new(bytes);
        let token = next(&mut r, "value").unwrap_or(Token::Nil);
        assert_eq!(r.pos, bytes.len(), "{bytes:02x?} read whole");
        token
    }

    #[test]
    fn every_family_is_named() {
        assert_eq!(read(&[0x05]), Token::Int(5));
        assert_eq!(read(&[0xff]), Token::Int(-1));
        assert_eq!(
            read(&[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            Token::Int(i64::MIN)
        );
        assert_eq!(
            read(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            Token::UInt(u64::MAX)
        );
        assert_eq!(read(&[0xa2, b'h', b'i']), Token::Str(b"hi"));
        assert_eq!(read(&[0xc4, 1, 7]), Token::Bin(&[7]));
        assert_eq!(read(&[0xd4, 0xff, 9]), Token::Ext(-1, &[9]));
        assert_eq!(read(&[0xc7, 0, 3]), Token::Ext(3, &[]));
        assert_eq!(read(&[0xdd, 0, 1, 0, 0]), Token::Array(65536));
        assert_eq!(read(&[0x81]), Token::Map(1));
        assert_eq!(read(&[0xca, 0x3f, 0x80, 0, 0]), Token::F32(1.0));
        assert_eq!(read(&[0xc3]), Token::Bool(true));
    }

    #[test]
    fn agrees_with_rmp_on_every_marker() {
        // Each marker's family as the rmp crate reads it, against ours.
        for byte in 0..=255u8 {
            // Enough bytes after the marker for any fixed-size item (a fixstr takes up to 31).
            let mut data = vec![byte];
            data.extend_from_slice(&[0; 40]);
            let mut r = Reader::new(&data);
            let ours = next(&mut r, "value").map_or("reserved", |t| t.type_name());
            let theirs = match rmp::Marker::from_u8(byte) {
                rmp::Marker::Null => "nil",
                rmp::Marker::True | rmp::Marker::False => "bool",
                rmp::Marker::F32 | rmp::Marker::F64 => "float",
                rmp::Marker::FixPos(_)
                | rmp::Marker::FixNeg(_)
                | rmp::Marker::U8
                | rmp::Marker::U16
                | rmp::Marker::U32
                | rmp::Marker::U64
                | rmp::Marker::I8
                | rmp::Marker::I16
                | rmp::Marker::I32
                | rmp::Marker::I64 => "int",
                rmp::Marker::FixStr(_)
                | rmp::Marker::Str8
                | rmp::Marker::Str16
                | rmp::Marker::Str32 => "str",
                rmp::Marker::Bin8 | rmp::Marker::Bin16 | rmp::Marker::Bin32 => "bin",
                rmp::Marker::FixArray(_) | rmp::Marker::Array16 | rmp::Marker::Array32 => "array",
                rmp::Marker::FixMap(_) | rmp::Marker::Map16 | rmp::Marker::Map32 => "map",
                rmp::Marker::FixExt1
                | rmp::Marker::FixExt2
                | rmp::Marker::FixExt4
                | rmp::Marker::FixExt8
                | rmp::Marker::FixExt16
                | rmp::Marker::Ext8
                | rmp::Marker::Ext16
                | rmp::Marker::Ext32 => "ext",
                rmp::Marker::Reserved => "reserved",
            };
            assert_eq!(ours, theirs, "marker {byte:#04x}");
        }
    }

    #[test]
    fn fixed_len_agrees_with_next() {
        for byte in 0..=255u8 {
            let mut data = vec![byte];
            data.extend_from_slice(&[0; 40]);
            let mut r = Reader::new(&data);
            let fixed = FIXED_LEN[byte as usize] as usize;
            match next(&mut r, "value") {
                Ok(Token::Str(_) | Token::Bin(_) | Token::Array(_) | Token::Map(_)) | Err(_) => {
                    assert_eq!(fixed, 0, "marker {byte:#04x}")
                }
                Ok(Token::Ext(..)) if !(0xd4..=0xd8).contains(&byte) => {
                    assert_eq!(fixed, 0, "marker {byte:#04x}")
                }
                Ok(_) => assert_eq!(fixed, r.pos, "marker {byte:#04x}"),
            }
        }
    }

    #[test]
    fn declared_length_agrees_with_the_token() {
        let cases: [&[u8]; 8] = [
            &[0xa2, b'h', b'i'],
            &[0xd9, 1, b'x'],
            &[0xc5, 0, 1, 7],
            &[0xd6, 5, 1, 2, 3, 4],
            &[0xc7, 0, 3],
            &[0x92, 1, 2],
            &[0xde, 0, 1, 1, 2],
            &[0xdd, 0, 0, 0, 1, 0xc0],
        ];
        for bytes in cases {
            let len = match read_first(bytes) {
                Token::Str(b) | Token::Bin(b) | Token::Ext(_, b) => b.len(),
                Token::Array(n) | Token::Map(n) => n,
                other => panic!("{other:?}"),
            };
            assert_eq!(
                declared_length(bytes).map(|(_, n)| n),
                Some(len),
                "{bytes:02x?}"
            );
        }
        assert_eq!(declared_length(&[0x05]), None);
        assert_eq!(declared_length(&[0xdc, 0]), None, "a header cut short");
    }

    fn read_first(bytes: &[u8]) -> Token<'_> {
        let mut r = Reader::new(bytes);
        next(&mut r, "value").unwrap_or(Token::Nil)
    }

    #[test]
    fn truncation_and_reserved_are_errors_at_the_item() {
        for bytes in [
            &[0xc1][..],
            &[0xcd, 1],
            &[0xa3, b'a'],
            &[0xc6, 0xff, 0xff, 0xff, 0xff],
            &[],
        ] {
            let mut r = Reader::new(bytes);
            assert!(next(&mut r, "value").is_err(), "{bytes:02x?}");
        }
    }
}
