//! The write grammar against the read grammar: every header that `marker` writes, followed by a
//! payload of the length it declares, is read back by `token::next` as the same value, in exactly
//! the bytes written.

use fastmsgpack_core::marker;
use fastmsgpack_core::reader::Reader;
use fastmsgpack_core::token::{self, Token};

/// Reads one token from `bytes` and checks that it used them all.
fn read_all(bytes: &[u8]) -> Token<'_> {
    let mut r = Reader::new(bytes);
    let t = token::next(&mut r, "value").expect("the written bytes read back");
    assert_eq!(r.pos, bytes.len(), "the token ends where the writing ended");
    t
}

/// Integers at every width boundary, both signs, and a spread between them.
fn integers() -> Vec<i128> {
    let mut out = vec![
        0i128,
        1,
        -1,
        i64::MIN as i128,
        i64::MAX as i128,
        u64::MAX as i128,
    ];
    for bits in [5u32, 6, 7, 8, 15, 16, 31, 32, 63] {
        let p = 1i128 << bits;
        out.extend([p - 1, p, p + 1, -p - 1, -p, -p + 1]);
    }
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push(((x as i64) >> (x % 64)) as i128);
        out.push((x >> (x % 64)) as i128);
    }
    out
}

fn as_i128(t: Token<'_>) -> i128 {
    match t {
        Token::Int(v) => v as i128,
        Token::UInt(v) => v as i128,
        other => panic!("an integer was read as {other:?}"),
    }
}

#[test]
fn integers_read_back() {
    for v in integers() {
        if let Ok(u) = u64::try_from(v) {
            assert_eq!(as_i128(read_all(marker::uint(u).as_bytes())), v, "uint {u}");
        }
        if let Ok(i) = i64::try_from(v) {
            assert_eq!(as_i128(read_all(marker::int(i).as_bytes())), v, "int {i}");
            let branchless = marker::int_branchless(i);
            assert_eq!(as_i128(read_all(branchless.as_bytes())), v, "int {i}");
        }
    }
}

#[test]
fn floats_read_back_bit_for_bit() {
    for v in [
        0.0f64,
        -0.0,
        1.5,
        -2.25e300,
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NAN,
    ] {
        match read_all(marker::float64(v).as_bytes()) {
            Token::F64(got) => assert_eq!(got.to_bits(), v.to_bits()),
            other => panic!("float64 read as {other:?}"),
        }
    }
    for v in [0.0f32, -0.0, 0.1, f32::MAX, f32::NEG_INFINITY, f32::NAN] {
        match read_all(marker::float32(v).as_bytes()) {
            Token::F32(got) => assert_eq!(got.to_bits(), v.to_bits()),
            other => panic!("float32 read as {other:?}"),
        }
    }
}

/// Lengths at every boundary of the str, bin, array, map and ext forms.
const LENGTHS: [usize; 16] = [
    0,
    1,
    2,
    4,
    8,
    15,
    16,
    17,
    31,
    32,
    255,
    256,
    65_535,
    65_536,
    70_000,
    1 << 20,
];

fn with_payload(header: marker::Header, payload: &[u8]) -> Vec<u8> {
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(payload);
    out
}

#[test]
fn str_bin_and_ext_read_back_with_their_payload() {
    for len in LENGTHS {
        let payload: Vec<u8> = (0..len).map(|i| (i % 97) as u8 + b' ').collect();
        let s = with_payload(marker::str_header(len).expect("str header"), &payload);
        assert_eq!(read_all(&s), Token::Str(&payload), "str {len}");
        let b = with_payload(marker::bin_header(len).expect("bin header"), &payload);
        assert_eq!(read_all(&b), Token::Bin(&payload), "bin {len}");
        for tag in [i8::MIN, -1, 0, 1, 42, i8::MAX] {
            let e = with_payload(marker::ext_header(tag, len).expect("ext header"), &payload);
            assert_eq!(read_all(&e), Token::Ext(tag, &payload), "ext {tag} {len}");
        }
    }
}

#[test]
fn container_headers_read_back() {
    for len in LENGTHS.into_iter().chain([u32::MAX as usize]) {
        let a = marker::array_header(len).expect("array header");
        let m = marker::map_header(len).expect("map header");
        // The reader compares a container's length with the bytes left (each item takes at least
        // one), so give it that many.
        let room = len.min(1 << 20);
        let mut array = a.as_bytes().to_vec();
        array.resize(array.len() + room, 0xc0);
        let mut r = Reader::new(&array);
        match token::next(&mut r, "value") {
            Ok(Token::Array(n)) => assert_eq!((n, r.pos), (len, a.len())),
            Ok(other) => panic!("array header read as {other:?}"),
            // Longer than the bytes given: refused as truncated, never read as something else.
            Err(_) => assert!(len > room),
        }
        let mut map = m.as_bytes().to_vec();
        map.resize(map.len() + 2 * room, 0xc0);
        let mut r = Reader::new(&map);
        match token::next(&mut r, "value") {
            Ok(Token::Map(n)) => assert_eq!((n, r.pos), (len, m.len())),
            Ok(other) => panic!("map header read as {other:?}"),
            Err(_) => assert!(len > room),
        }
    }
}

#[test]
fn single_byte_markers_read_back() {
    assert_eq!(read_all(&[marker::NIL]), Token::Nil);
    assert_eq!(read_all(&[marker::TRUE]), Token::Bool(true));
    assert_eq!(read_all(&[marker::FALSE]), Token::Bool(false));
    for len in 0..32 {
        let mut s = vec![marker::fixstr(len)];
        s.resize(1 + len, b'a');
        assert_eq!(read_all(&s), Token::Str(&s[1..]), "fixstr {len}");
    }
}

#[test]
fn timestamps_read_back() {
    let mut cases = vec![
        (0i64, 0u32),
        (1, 1),
        (u32::MAX as i64, 0),
        (u32::MAX as i64 + 1, 0),
        ((1 << 34) - 1, 999_999_999),
        (1 << 34, 0),
        (-1, 0),
        (-62_135_596_800, 0),
        (253_402_300_799, 999_999_999),
        (i64::MIN, 5),
        (i64::MAX, 999_999_999),
    ];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..10_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        cases.push(((x as i64) >> (x % 64), (x % 1_000_000_000) as u32));
    }
    for (secs, nanos) in cases {
        let (bytes, n) = marker::timestamp(secs, nanos);
        match read_all(&bytes[..n]) {
            Token::Ext(-1, payload) => {
                assert_eq!(
                    token::timestamp(payload),
                    Ok((secs, nanos)),
                    "{secs} {nanos}"
                )
            }
            other => panic!("timestamp read as {other:?}"),
        }
    }
    assert!(token::timestamp(&[0; 5]).is_err());
    // Nanoseconds of 10**9 or more are refused in both the 64-bit and the 96-bit form.
    let too_many = (1_000_000_000u64 << 34).to_be_bytes();
    assert!(token::timestamp(&too_many).is_err());
    let mut wide = [0u8; 12];
    wide[..4].copy_from_slice(&1_000_000_000u32.to_be_bytes());
    assert!(token::timestamp(&wide).is_err());
}
