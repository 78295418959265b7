//! The exact payloads read from any bytes: the first byte picks the layout, the rest is the
//! payload. A read never panics; when it succeeds, the value is written again and must give the
//! same bytes, or (where the layout allows a second spelling: redundant sign bytes of a big
//! integer, leading zero digits of a Decimal, a longer array header than a sequence needs) bytes
//! that read back as the same value and that are then written unchanged.
#![no_main]

use fastmsgpack_core::exact::{
    BigInt, Complex, Date, DateTime, Decimal, Malformed, Seq, Time, TimeDelta, Uuid, Zone,
};
use libfuzzer_sys::fuzz_target;

fn written(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    write(&mut out);
    out
}

/// A refusal always has words (its message is what users see).
fn refused(why: Malformed) {
    assert!(!why.to_string().is_empty());
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, payload)) = data.split_first() else {
        return;
    };
    match kind % 10 {
        0 => match BigInt::read(payload) {
            Ok(v) => {
                let again = written(|out| v.write(out));
                assert!(again.len() <= payload.len());
                let back = BigInt::read(&again).expect("a written big int reads back");
                assert_eq!(back, v);
                assert_eq!(back.minimal(), &again[..], "written in the fewest bytes");
                assert_eq!(back.is_negative(), v.is_negative());
            }
            Err(why) => refused(why),
        },
        1 => match Complex::read(payload) {
            Ok(v) => assert_eq!(&v.to_bytes()[..], payload),
            Err(why) => refused(why),
        },
        2 => match Uuid::read(payload) {
            Ok(v) => assert_eq!(&v.to_bytes()[..], payload),
            Err(why) => refused(why),
        },
        3 => match DateTime::read(payload) {
            Ok(v) => {
                assert_eq!(written(|out| v.write(out)), payload);
                assert!(DateTime::read_raw(payload).is_ok());
            }
            Err(why) => refused(why),
        },
        4 => match Date::read(payload) {
            Ok(v) => assert_eq!(&v.to_bytes()[..], payload),
            Err(why) => refused(why),
        },
        5 => match Time::read(payload) {
            Ok(v) => assert_eq!(written(|out| v.write(out)), payload),
            Err(why) => refused(why),
        },
        6 => match TimeDelta::read(payload) {
            Ok(v) => assert_eq!(&v.to_bytes()[..], payload),
            Err(why) => refused(why),
        },
        7 => match Decimal::read(payload) {
            Ok(v) => {
                let again = written(|out| v.write(out));
                let back = Decimal::read(&again).expect("a written Decimal reads back");
                assert_eq!(back.canonical(), v.canonical());
                assert_eq!(written(|out| back.write(out)), again, "canonical bytes");
                // The text Decimal() reads gives the same value, and the text of `str()` too.
                let text = v.text();
                let from_text = Decimal::from_text(text.as_bytes()).expect("its text reads");
                assert_eq!(written(|out| from_text.write(out)), again);
            }
            Err(why) => refused(why),
        },
        8 => match Seq::read(payload) {
            Ok(v) => {
                // A longer array header than needed is a second spelling.
                let again = written(|out| v.write(out));
                assert!(again.len() <= payload.len());
                let back = Seq::read(&again).expect("a written sequence reads back");
                assert_eq!(back, v);
                assert_eq!(written(|out| back.write(out)), again, "canonical bytes");
            }
            Err(why) => refused(why),
        },
        _ => match Zone::read(payload) {
            Ok(z) => {
                assert_eq!(written(|out| z.write(out)), payload);
                assert_eq!(z.clone().into_owned(), z);
            }
            Err(why) => refused(why),
        },
    }
});
