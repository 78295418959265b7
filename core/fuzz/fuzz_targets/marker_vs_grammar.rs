//! The write grammar against the read grammar at native speed: the fuzzer's bytes choose a value
//! (an integer, a float, a length with its payload, an ext, a timestamp); `marker` writes it and
//! `token::next` must read back the same value from exactly the bytes written.
#![no_main]

use fastmsgpack_core::marker;
use fastmsgpack_core::reader::Reader;
use fastmsgpack_core::token::{self, Token};
use libfuzzer_sys::fuzz_target;

fn read_all(bytes: &[u8]) -> Token<'_> {
    let mut r = Reader::new(bytes);
    let t = token::next(&mut r, "value").expect("what was written reads back");
    assert_eq!(r.pos, bytes.len(), "the token ends where the writing ended");
    t
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let mut word = [0u8; 8];
    let n = rest.len().min(8);
    word[..n].copy_from_slice(&rest[..n]);
    let v = u64::from_le_bytes(word);
    let payload = rest.get(8..).unwrap_or(&[]);
    match kind % 8 {
        0 => match read_all(marker::uint(v).as_bytes()) {
            Token::Int(got) => assert_eq!((got >= 0, got as u64), (true, v)),
            Token::UInt(got) => assert_eq!(got, v),
            other => panic!("uint read as {other:?}"),
        },
        1 => match read_all(marker::int(v as i64).as_bytes()) {
            Token::Int(got) => assert_eq!(got, v as i64),
            Token::UInt(got) => assert_eq!(got, v),
            other => panic!("int read as {other:?}"),
        },
        2 => assert_eq!(
            marker::int_branchless(v as i64).as_bytes(),
            marker::int(v as i64).as_bytes()
        ),
        3 => match read_all(marker::float64(f64::from_bits(v)).as_bytes()) {
            Token::F64(got) => assert_eq!(got.to_bits(), v),
            other => panic!("float64 read as {other:?}"),
        },
        4 | 5 => {
            let (header, want) = if kind % 8 == 4 {
                (marker::str_header(payload.len()), Token::Str(payload))
            } else {
                (marker::bin_header(payload.len()), Token::Bin(payload))
            };
            let mut bytes = header
                .expect("a short payload has a header")
                .as_bytes()
                .to_vec();
            bytes.extend_from_slice(payload);
            assert_eq!(read_all(&bytes), want);
        }
        6 => {
            let tag = v as i8;
            let header =
                marker::ext_header(tag, payload.len()).expect("a short payload has a header");
            let mut bytes = header.as_bytes().to_vec();
            bytes.extend_from_slice(payload);
            assert_eq!(read_all(&bytes), Token::Ext(tag, payload));
        }
        _ => {
            let secs = v as i64;
            let nanos = (u32::from_le_bytes([kind, 0, 0, 0]) * 3_921_569) % 1_000_000_000;
            let (bytes, n) = marker::timestamp(secs, nanos);
            match read_all(&bytes[..n]) {
                Token::Ext(-1, p) => assert_eq!(token::timestamp(p), Ok((secs, nanos))),
                other => panic!("timestamp read as {other:?}"),
            }
        }
    }
});
