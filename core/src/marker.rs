//! The write grammar: the type byte and the length or value bytes that precede a payload, always
//! in the shortest form. The read grammar ([`crate::token`]) must read back exactly what is
//! written here; `tests/write_read.rs` and the `marker_vs_grammar` fuzz target check that.

/// Up to 9 header bytes (a uint64 or float64 is the longest: marker plus 8 bytes).
#[allow(clippy::len_without_is_empty)]
#[derive(Clone, Copy)]
pub struct Header {
    bytes: [u8; 9],
    len: u8,
}

impl Header {
    #[inline(always)]
    fn new(prefix: &[u8]) -> Header {
        let mut bytes = [0u8; 9];
        bytes[..prefix.len()].copy_from_slice(prefix);
        Header {
            bytes,
            len: prefix.len() as u8,
        }
    }

    #[inline(always)]
    fn with(marker: u8, tail: &[u8]) -> Header {
        let mut bytes = [0u8; 9];
        bytes[0] = marker;
        bytes[1..1 + tail.len()].copy_from_slice(tail);
        Header {
            bytes,
            len: 1 + tail.len() as u8,
        }
    }

    #[inline(always)]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// A one-byte header (nil, booleans, fixints).
    #[inline(always)]
    pub fn byte(b: u8) -> Header {
        Header::new(&[b])
    }

    /// All 9 bytes, of which the first [`Header::len`] are the header.
    #[inline(always)]
    pub fn block(&self) -> &[u8; 9] {
        &self.bytes
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }
}

pub const NIL: u8 = 0xc0;
pub const FALSE: u8 = 0xc2;
pub const TRUE: u8 = 0xc3;

/// The shortest encoding of a non-negative integer.
#[inline(always)]
pub fn uint(v: u64) -> Header {
    if v < 0x80 {
        Header::new(&[v as u8])
    } else if v <= u8::MAX as u64 {
        Header::with(0xcc, &[v as u8])
    } else if v <= u16::MAX as u64 {
        Header::with(0xcd, &(v as u16).to_be_bytes())
    } else if v <= u32::MAX as u64 {
        Header::with(0xce, &(v as u32).to_be_bytes())
    } else {
        Header::with(0xcf, &v.to_be_bytes())
    }
}

/// The shortest encoding of a signed integer: non-negative values as unsigned, as most
/// MessagePack writers do.
#[inline(always)]
pub fn int(v: i64) -> Header {
    if v >= 0 {
        uint(v as u64)
    } else if v >= -32 {
        Header::new(&[v as u8])
    } else if v >= i8::MIN as i64 {
        Header::with(0xd0, &[v as u8])
    } else if v >= i16::MIN as i64 {
        Header::with(0xd1, &(v as i16).to_be_bytes())
    } else if v >= i32::MIN as i64 {
        Header::with(0xd2, &(v as i32).to_be_bytes())
    } else {
        Header::with(0xd3, &v.to_be_bytes())
    }
}

/// How each integer is written, by its sign and its count of significant bits (for a negative
/// value, those of its one's complement plus the sign bit): the marker byte, in bits 8-15 a mask
/// that is 0xff for a fixint (its own marker byte, the value's low byte), and in bits 16-23 the
/// payload's length. Entries 0-64 are for non-negative values, 65-129 for negative ones.
const INT_FORMS: [u32; 130] = {
    let mut forms = [0u32; 130];
    let mut i = 0;
    while i < 130 {
        let neg = i >= 65;
        let bits = if neg { i - 65 } else { i };
        // The width class: a fixint, then 1, 2, 4 or 8 payload bytes.
        let fix_bits = if neg { 6 } else { 7 };
        let class = if bits <= fix_bits {
            0
        } else if bits <= 8 {
            1
        } else if bits <= 16 {
            2
        } else if bits <= 32 {
            3
        } else {
            4
        };
        let markers: [u32; 5] = if neg {
            [0, 0xd0, 0xd1, 0xd2, 0xd3]
        } else {
            [0, 0xcc, 0xcd, 0xce, 0xcf]
        };
        let payload: [u32; 5] = [0, 1, 2, 4, 8];
        let fix_mask = if class == 0 { 0xff } else { 0 };
        forms[i] = markers[class] | fix_mask << 8 | payload[class] << 16;
        i += 1;
    }
    forms
};

/// The same bytes as [`int`], without a branch on the value: for runs of integers whose signs
/// and sizes vary at random (a numpy array of samples), where `int`'s branches are mispredicted
/// about once in two values and cost more than the few instructions this takes.
#[inline(always)]
pub fn int_branchless(v: i64) -> Header {
    let neg = (v < 0) as usize;
    // For a negative value, its one's complement: `v >= -32` is `!v < 32`, and so on.
    let m = (v ^ (v >> 63)) as u64;
    let bits = 64 - m.leading_zeros() as usize + neg;
    let form = INT_FORMS[neg * 65 + bits];
    let marker = form as u8 | (v as u8 & (form >> 8) as u8);
    let n = form >> 16;
    // The payload's `n` bytes first, big-endian; for a fixint the shift is 64, masked to 0, and
    // the bytes after the marker are not counted.
    let payload = (v as u64).wrapping_shl(64 - 8 * n).to_be_bytes();
    let mut bytes = [0u8; 9];
    bytes[0] = marker;
    bytes[1..].copy_from_slice(&payload);
    Header {
        bytes,
        len: 1 + n as u8,
    }
}

#[inline(always)]
pub fn float64(v: f64) -> Header {
    Header::with(0xcb, &v.to_bits().to_be_bytes())
}

#[inline(always)]
pub fn float32(v: f32) -> Header {
    Header::with(0xca, &v.to_bits().to_be_bytes())
}

/// Picks the 8, 16 or 32-bit form of a length-prefixed family. `None` past `u32::MAX`.
#[inline(always)]
fn sized(len: usize, m8: Option<u8>, m16: u8, m32: u8) -> Option<Header> {
    match (len, m8) {
        (0..=0xff, Some(m8)) => Some(Header::with(m8, &[len as u8])),
        (0..=0xffff, _) => Some(Header::with(m16, &(len as u16).to_be_bytes())),
        _ => u32::try_from(len)
            .ok()
            .map(|l| Header::with(m32, &l.to_be_bytes())),
    }
}

/// The one-byte header of a string of `len < 32` bytes.
#[inline(always)]
pub fn fixstr(len: usize) -> u8 {
    debug_assert!(len < 32);
    0xa0 | len as u8
}

#[inline(always)]
pub fn str_header(len: usize) -> Option<Header> {
    if len < 32 {
        Some(Header::new(&[fixstr(len)]))
    } else {
        sized(len, Some(0xd9), 0xda, 0xdb)
    }
}

#[inline(always)]
pub fn bin_header(len: usize) -> Option<Header> {
    sized(len, Some(0xc4), 0xc5, 0xc6)
}

#[inline(always)]
pub fn array_header(len: usize) -> Option<Header> {
    if len < 16 {
        Some(Header::new(&[0x90 | len as u8]))
    } else {
        sized(len, None, 0xdc, 0xdd)
    }
}

#[inline(always)]
pub fn map_header(len: usize) -> Option<Header> {
    if len < 16 {
        Some(Header::new(&[0x80 | len as u8]))
    } else {
        sized(len, None, 0xde, 0xdf)
    }
}

/// The header of an extension value with `len` payload bytes: fixext when the length is 1, 2,
/// 4, 8 or 16, else ext 8/16/32. The type byte follows the length.
#[inline]
pub fn ext_header(tag: i8, len: usize) -> Option<Header> {
    let fixed = match len {
        1 => Some(0xd4),
        2 => Some(0xd5),
        4 => Some(0xd6),
        8 => Some(0xd7),
        16 => Some(0xd8),
        _ => None,
    };
    if let Some(m) = fixed {
        return Some(Header::with(m, &[tag as u8]));
    }
    let h = sized(len, Some(0xc7), 0xc8, 0xc9)?;
    let mut out = Header::new(h.as_bytes());
    out.bytes[out.len as usize] = tag as u8;
    out.len += 1;
    Some(out)
}

/// The MessagePack timestamp extension (type -1) in its smallest form: 32-bit seconds when
/// there are no nanoseconds and the seconds fit, 64-bit (30-bit nanoseconds, 34-bit seconds)
/// when the seconds fit 34 bits, else 96-bit (32-bit nanoseconds, signed 64-bit seconds).
/// Returns the bytes and how many of them are used.
pub fn timestamp(secs: i64, nanos: u32) -> ([u8; 15], usize) {
    let mut out = [0u8; 15];
    if secs >> 34 == 0 {
        let packed = ((nanos as u64) << 34) | secs as u64;
        if packed >> 32 == 0 {
            out[..2].copy_from_slice(&[0xd6, 0xff]);
            out[2..6].copy_from_slice(&(packed as u32).to_be_bytes());
            return (out, 6);
        }
        out[..2].copy_from_slice(&[0xd7, 0xff]);
        out[2..10].copy_from_slice(&packed.to_be_bytes());
        return (out, 10);
    }
    out[..3].copy_from_slice(&[0xc7, 12, 0xff]);
    out[3..7].copy_from_slice(&nanos.to_be_bytes());
    out[7..15].copy_from_slice(&secs.to_be_bytes());
    (out, 15)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rmp_uint(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let _ = rmp::encode::write_uint(&mut out, v);
        out
    }

    fn rmp_sint(v: i64) -> Vec<u8> {
        let mut out = Vec::new();
        let _ = rmp::encode::write_sint(&mut out, v);
        out
    }

    fn boundaries() -> Vec<i128> {
        let mut edges = vec![0i128];
        for bits in [5u32, 7, 8, 15, 16, 31, 32, 63, 64] {
            let p = 1i128 << bits;
            edges.extend([p - 1, p, p + 1, -p - 1, -p, -p + 1]);
        }
        edges
    }

    #[test]
    fn uint_matches_rmp_at_every_width_boundary() {
        for v in boundaries() {
            if let Ok(u) = u64::try_from(v) {
                assert_eq!(uint(u).as_bytes(), rmp_uint(u).as_slice(), "uint {u}");
            }
        }
    }

    #[test]
    fn int_matches_rmp_at_every_width_boundary() {
        for v in boundaries() {
            if let Ok(i) = i64::try_from(v) {
                // rmp's write_sint also prefers unsigned markers for non-negative values.
                assert_eq!(int(i).as_bytes(), rmp_sint(i).as_slice(), "int {i}");
            }
        }
    }

    #[test]
    fn int_branchless_matches_int() {
        let mut values: Vec<i64> = boundaries()
            .into_iter()
            .filter_map(|v| i64::try_from(v).ok())
            .collect();
        values.extend([i64::MIN, i64::MAX, -1, 1]);
        // And a spread of values of every width, both signs.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push((x as i64) >> (x % 64));
        }
        for v in values {
            assert_eq!(int_branchless(v).as_bytes(), int(v).as_bytes(), "int {v}");
        }
    }

    #[test]
    fn floats_keep_their_bits() {
        for v in [
            0.0f64,
            -0.0,
            1.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN,
        ] {
            let mut want = Vec::new();
            let _ = rmp::encode::write_f64(&mut want, v);
            assert_eq!(float64(v).as_bytes(), want.as_slice());
        }
        for v in [0.5f32, -0.0, f32::NAN, f32::INFINITY] {
            let mut want = Vec::new();
            let _ = rmp::encode::write_f32(&mut want, v);
            assert_eq!(float32(v).as_bytes(), want.as_slice());
        }
    }

    #[test]
    fn lengths_match_rmp() {
        for len in [
            0usize,
            1,
            15,
            16,
            31,
            32,
            255,
            256,
            65535,
            65536,
            u32::MAX as usize,
        ] {
            let l = len as u32;
            let mut s = Vec::new();
            let _ = rmp::encode::write_str_len(&mut s, l);
            assert_eq!(
                str_header(len).map(|h| h.as_bytes().to_vec()),
                Some(s),
                "str {len}"
            );
            let mut b = Vec::new();
            let _ = rmp::encode::write_bin_len(&mut b, l);
            assert_eq!(
                bin_header(len).map(|h| h.as_bytes().to_vec()),
                Some(b),
                "bin {len}"
            );
            let mut a = Vec::new();
            let _ = rmp::encode::write_array_len(&mut a, l);
            assert_eq!(
                array_header(len).map(|h| h.as_bytes().to_vec()),
                Some(a),
                "array {len}"
            );
            let mut m = Vec::new();
            let _ = rmp::encode::write_map_len(&mut m, l);
            assert_eq!(
                map_header(len).map(|h| h.as_bytes().to_vec()),
                Some(m),
                "map {len}"
            );
        }
    }

    #[test]
    fn ext_headers_match_rmp() {
        for len in [0usize, 1, 2, 3, 4, 8, 16, 17, 255, 256, 65535, 65536] {
            for tag in [-128i8, -1, 0, 5, 127] {
                let mut want = Vec::new();
                let _ = rmp::encode::write_ext_meta(&mut want, len as u32, tag);
                let got = ext_header(tag, len).map(|h| h.as_bytes().to_vec());
                assert_eq!(got, Some(want), "ext {tag} {len}");
            }
        }
    }

    #[test]
    fn timestamps_take_the_smallest_form() {
        let (b, n) = timestamp(0, 0);
        assert_eq!(&b[..n], &[0xd6, 0xff, 0, 0, 0, 0]);
        let (b, n) = timestamp(u32::MAX as i64, 0);
        assert_eq!(&b[..n], &[0xd6, 0xff, 0xff, 0xff, 0xff, 0xff]);
        let (_, n) = timestamp(u32::MAX as i64 + 1, 0);
        assert_eq!(n, 10);
        let (_, n) = timestamp(1, 1);
        assert_eq!(n, 10);
        let (b, n) = timestamp((1 << 34) - 1, 999_999_999);
        assert_eq!(n, 10);
        assert_eq!(
            u64::from_be_bytes([b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9]]) >> 34,
            999_999_999
        );
        let (b, n) = timestamp(-1, 0);
        assert_eq!(
            &b[..n],
            &[0xc7, 12, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        );
        let (_, n) = timestamp(1 << 34, 0);
        assert_eq!(n, 15);
    }

    #[test]
    fn too_long_has_no_header() {
        let too_long = u32::MAX as usize + 1;
        assert!(str_header(too_long).is_none());
        assert!(bin_header(too_long).is_none());
        assert!(array_header(too_long).is_none());
        assert!(map_header(too_long).is_none());
        assert!(ext_header(1, too_long).is_none());
    }
}
