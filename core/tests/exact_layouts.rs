//! Every `OPT_EXACT` payload written at its edges and read back as the same value, and every
//! malformed payload refused with the reason `unpackb` gives (`doc/exact.md` is the
//! specification these follow).

use std::borrow::Cow;

use fastmsgpack_core::exact::{
    self, BigInt, Clock, Complex, Date, DateTime, Decimal, DecimalKind, Field, Malformed, Seq,
    Time, TimeDelta, Uuid, Zone,
};

fn written(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    write(&mut out);
    out
}

fn zones() -> Vec<Zone<'static>> {
    let day = 86_400_000_000i64;
    vec![
        Zone::Naive,
        Zone::Utc,
        Zone::Fixed {
            offset: 0,
            name: None,
        },
        Zone::Fixed {
            offset: day - 1,
            name: None,
        },
        Zone::Fixed {
            offset: -(day - 1),
            name: Some(Cow::Borrowed("")),
        },
        Zone::Fixed {
            offset: 3_600_000_000,
            name: Some(Cow::Borrowed("CET \u{e9}t\u{e9}")),
        },
        Zone::Key(Cow::Borrowed("Europe/Paris")),
        Zone::Key(Cow::Borrowed("Etc/GMT+5")),
        Zone::Key(Cow::Owned("A".repeat(exact::MAX_ZONE_KEY))),
    ]
}

fn clocks() -> [Clock; 3] {
    [
        Clock {
            hour: 0,
            minute: 0,
            second: 0,
            fold: false,
            microsecond: 0,
        },
        Clock {
            hour: 23,
            minute: 59,
            second: 59,
            fold: true,
            microsecond: 999_999,
        },
        Clock {
            hour: 2,
            minute: 30,
            second: 0,
            fold: true,
            microsecond: 1,
        },
    ]
}

fn dates() -> [Date; 5] {
    [
        Date {
            year: 1,
            month: 1,
            day: 1,
        },
        Date {
            year: 9999,
            month: 12,
            day: 31,
        },
        Date {
            year: 2024,
            month: 2,
            day: 29,
        },
        Date {
            year: 2000,
            month: 2,
            day: 29,
        },
        Date {
            year: 1900,
            month: 2,
            day: 28,
        },
    ]
}

#[test]
fn datetimes_and_times_read_back() {
    for zone in zones() {
        for clock in clocks() {
            for date in dates() {
                let v = DateTime {
                    date,
                    clock,
                    zone: zone.clone(),
                };
                let bytes = written(|out| v.write(out));
                assert!(bytes.len() >= 12);
                assert_eq!(DateTime::read(&bytes), Ok(v.clone()), "{bytes:02x?}");
            }
            let t = Time {
                clock,
                zone: zone.clone(),
            };
            let bytes = written(|out| t.write(out));
            assert_eq!(Time::read(&bytes), Ok(t), "{bytes:02x?}");
        }
    }
}

#[test]
fn datetime_bytes_are_the_documented_ones() {
    // doc/exact.md's example: 2024-10-27 02:30 fold=1 in Europe/Paris.
    let v = DateTime {
        date: Date {
            year: 2024,
            month: 10,
            day: 27,
        },
        clock: Clock {
            hour: 2,
            minute: 30,
            second: 0,
            fold: true,
            microsecond: 0,
        },
        zone: Zone::Key(Cow::Borrowed("Europe/Paris")),
    };
    let mut want = b"\x07\xe8\x0a\x1b\x02\x1e\x00\x01\x00\x00\x00\x00".to_vec();
    want.extend_from_slice(b"\x03Europe/Paris");
    assert_eq!(written(|out| v.write(out)), want);
}

#[test]
fn dates_and_timedeltas_read_back() {
    for date in dates() {
        assert_eq!(Date::read(&date.to_bytes()), Ok(date));
    }
    for (days, seconds, microseconds) in [
        (0, 0, 0),
        (-999_999_999, 0, 0),
        (999_999_999, 86_399, 999_999),
        (-1, 86_399, 999_999),
    ] {
        let v = TimeDelta {
            days,
            seconds,
            microseconds,
        };
        assert_eq!(TimeDelta::read(&v.to_bytes()), Ok(v));
    }
}

#[test]
fn numbers_read_back() {
    // The limits: -2**32767 and 2**32767-1 in 4096 bytes, and small values.
    let lowest = [&[0x80u8][..], &[0; 4095]].concat();
    let highest = [&[0x7fu8][..], &[0xff; 4095]].concat();
    for bytes in [
        &[0x80][..],
        &[0x7f],
        &[0x00, 0x80],
        &[0xff, 0x7f],
        &lowest,
        &highest,
    ] {
        let v = BigInt::read(bytes).map(|v| written(|out| v.write(out)) == bytes);
        assert_eq!(v, Ok(true), "{} bytes", bytes.len());
    }
    for (re, im) in [
        (0.0, -0.0),
        (f64::INFINITY, f64::NAN),
        (f64::MIN_POSITIVE, 1e308),
    ] {
        let v = Complex { re, im };
        let back = Complex::read(&v.to_bytes()).map(|c| (c.re.to_bits(), c.im.to_bits()));
        assert_eq!(back, Ok((re.to_bits(), im.to_bits())));
    }
    for v in [0, u128::MAX, 0x1234_5678_1234_5678_1234_5678_1234_5678] {
        assert_eq!(Uuid::read(&Uuid(v).to_bytes()), Ok(Uuid(v)));
    }
    assert_eq!(Uuid(1).to_bytes()[15], 1, "big-endian");
}

#[test]
fn decimals_read_back() {
    let nines = "9".repeat(exact::MAX_DECIMAL_DIGITS);
    for text in [
        "0",
        "-0",
        "1.50",
        "-1.50",
        "1E+7",
        "0E-999999999",
        "1E+999999999",
        "NaN",
        "-sNaN42",
        "-Infinity",
        "Infinity",
        nines.as_str(),
    ] {
        let v = Decimal::from_text(text.as_bytes()).unwrap_or_else(|why| panic!("{text}: {why}"));
        let bytes = written(|out| v.write(out));
        assert_eq!(Decimal::read(&bytes), Ok(v.clone()), "{text}");
        // The text `Decimal()` reads gives the same value again.
        let again = Decimal::from_text(v.text().as_bytes()).map(|d| written(|out| d.write(out)));
        assert_eq!(again, Ok(bytes), "{text}");
    }
    // doc/exact.md's example.
    let v = Decimal::from_text(b"-1.50").map(|d| written(|out| d.write(out)));
    assert_eq!(v.as_deref(), Ok(&b"\x01\xff\xff\xff\xfe150"[..]));
    // Leading zeros are a second spelling of one value: the writer leaves them out.
    let v = Decimal::read(b"\x00\x00\x00\x00\x00007").map(|d| written(|out| d.write(out)));
    assert_eq!(v.as_deref(), Ok(&b"\x00\x00\x00\x00\x007"[..]));
    let v = Decimal::read(b"\x04000")
        .map(|d| d.canonical().kind == DecimalKind::NaN(Cow::Borrowed(b"")));
    assert_eq!(v, Ok(true));
}

#[test]
fn decimal_limits_both_ways() {
    let too_many = format!("1{}", "0".repeat(exact::MAX_DECIMAL_DIGITS));
    assert!(Decimal::from_text(too_many.as_bytes()).is_err());
    assert!(Decimal::from_text(b"1E+1000000000").is_err());
    assert!(Decimal::from_text(b"1E-999999999").is_ok());
    assert!(Decimal::from_text(b"0.1E-999999999").is_err());
    let mut digits = b"\x00\x00\x00\x00\x00".to_vec();
    digits.extend(std::iter::repeat_n(b'1', exact::MAX_DECIMAL_DIGITS + 1));
    assert_eq!(
        Decimal::read(&digits),
        Err(Malformed::Digits(exact::MAX_DECIMAL_DIGITS + 1))
    );
    assert_eq!(
        Decimal::read(b"\x00\xc4\x65\x36\x00\x31"),
        Err(Malformed::Exponent(-1_000_000_000))
    );
}

#[test]
fn sequences_read_back() {
    let items = b"\x01\xa1x\x92\xc0\xc3";
    let v = Seq { len: 3, items };
    let bytes = written(|out| v.write(out));
    assert_eq!(bytes[0], 0x93);
    assert_eq!(Seq::read(&bytes), Ok(v));
    let empty = Seq { len: 0, items: b"" };
    assert_eq!(Seq::read(&written(|out| empty.write(out))), Ok(empty));
}

/// Each refusal, with the words `unpackb` shows after `invalid ... extension (type N): `.
#[test]
fn malformed_payloads_are_refused_with_their_reason() {
    let dt = b"\x07\xe8\x05\x11\x00\x00\x00\x00\x00\x00\x00\x00";
    let with = |suffix: &[u8]| [&dt[..], suffix].concat();
    let cases: Vec<(Result<(), Malformed>, &str)> = vec![
        (BigInt::read(b"").map(drop), "empty payload"),
        (
            BigInt::read(&[1; 4097]).map(drop),
            "4097 bytes is more than the limit of 4096",
        ),
        (
            Complex::read(&[0; 15]).map(drop),
            "payload must be 16 bytes, not 15",
        ),
        (
            Uuid::read(&[0; 17]).map(drop),
            "payload must be 16 bytes, not 17",
        ),
        (
            DateTime::read(&dt[..11]).map(drop),
            "payload truncated: 11 bytes, at least 12 needed",
        ),
        (
            DateTime::read(&[dt[..7].to_vec(), vec![2], dt[8..].to_vec()].concat()).map(drop),
            "fold must be 0 or 1, not 2",
        ),
        (
            DateTime::read(&with(b"\x00\x00")).map(drop),
            "unknown time zone form 0",
        ),
        (
            DateTime::read(&with(&[1; 8])).map(drop),
            "unknown time zone form 1",
        ),
        (
            DateTime::read(&with(&[&[1u8][..], &[0; 8], b"x"].concat())).map(drop),
            "unnamed fixed offset with trailing bytes",
        ),
        (
            DateTime::read(&with(
                &[&[1u8][..], &86_400_000_000i64.to_be_bytes()].concat(),
            ))
            .map(drop),
            "UTC offset of 86400000000 microseconds is not below a day",
        ),
        (
            DateTime::read(&with(&[&[1u8][..], &i64::MIN.to_be_bytes()].concat())).map(drop),
            "UTC offset of -9223372036854775808 microseconds is not below a day",
        ),
        (
            DateTime::read(&with(&[&[2u8][..], &[0; 8], b"\xff"].concat())).map(drop),
            "time zone name is not UTF-8",
        ),
        (
            DateTime::read(&with(b"\x03../../etc/passwd")).map(drop),
            "bad zone key \"../../etc/passwd\"",
        ),
        (
            DateTime::read(&with(b"\x03")).map(drop),
            "bad zone key \"\"",
        ),
        (
            DateTime::read(&with(b"\x09")).map(drop),
            "unknown time zone form 9",
        ),
        (
            Date::read(b"\x07\xe8\x0d").map(drop),
            "payload must be 4 bytes, not 3",
        ),
        (
            TimeDelta::read(&[0; 11]).map(drop),
            "payload must be 12 bytes, not 11",
        ),
        (
            TimeDelta::read(b"\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00").map(drop),
            "1073741824 days is outside timedelta's range",
        ),
        (
            TimeDelta::read(&[&[0u8; 4][..], &86_400u32.to_be_bytes(), &[0; 4]].concat()).map(drop),
            "seconds must be below 86400 and microseconds below 10**6",
        ),
        (Decimal::read(b"").map(drop), "empty payload"),
        (
            Decimal::read(b"\x00\x00\x00\x00").map(drop),
            "a finite Decimal needs an exponent and at least one digit",
        ),
        (
            Decimal::read(b"\x00\x40\x00\x00\x00\x31").map(drop),
            "exponent 1073741824 is beyond the limit of ±999999999",
        ),
        (
            Decimal::read(b"\x00\x00\x00\x00\x00\x31\x78").map(drop),
            "digits must be ASCII 0-9",
        ),
        (
            Decimal::read(b"\x02\x31").map(drop),
            "an infinity has no digits",
        ),
        (Decimal::read(b"\x10").map(drop), "unknown flags 0x10"),
        (Seq::read(b"").map(drop), "empty payload"),
        (
            Seq::read(b"\x01").map(drop),
            "payload must be an array, not int",
        ),
        (
            Seq::read(b"\x91\x01\x02").map(drop),
            "1 bytes after the payload's value",
        ),
    ];
    for (got, want) in cases {
        match got {
            Err(why) => assert_eq!(why.to_string(), want),
            Ok(()) => panic!("accepted; expected {want:?}"),
        }
    }
    assert!(matches!(
        Seq::read(b"\x93\x01"),
        Err(Malformed::SeqTruncated(_))
    ));
}

#[test]
fn fields_out_of_the_calendar_are_refused() {
    let date = |y: u16, m: u8, d: u8| {
        let [y0, y1] = y.to_be_bytes();
        Date::read(&[y0, y1, m, d])
    };
    assert_eq!(date(2024, 2, 30), Err(Malformed::Field(Field::Day, 30)));
    assert_eq!(date(2023, 2, 29), Err(Malformed::Field(Field::Day, 29)));
    assert_eq!(date(2024, 4, 31), Err(Malformed::Field(Field::Day, 31)));
    assert_eq!(date(2024, 13, 1), Err(Malformed::Field(Field::Month, 13)));
    assert_eq!(date(0, 1, 1), Err(Malformed::Field(Field::Year, 0)));
    assert_eq!(date(10000, 1, 1), Err(Malformed::Field(Field::Year, 10000)));
    assert_eq!(date(2024, 1, 0), Err(Malformed::Field(Field::Day, 0)));
    let time = |h: u8, m: u8, s: u8, us: u32| {
        Time::read(&[&[h, m, s, 0][..], &us.to_be_bytes()].concat()).map(drop)
    };
    assert_eq!(time(24, 0, 0, 0), Err(Malformed::Field(Field::Hour, 24)));
    assert_eq!(time(0, 60, 0, 0), Err(Malformed::Field(Field::Minute, 60)));
    assert_eq!(time(0, 0, 60, 0), Err(Malformed::Field(Field::Second, 60)));
    assert_eq!(
        time(0, 0, 0, 1_000_000),
        Err(Malformed::Field(Field::Microsecond, 1_000_000))
    );
    // The layout alone still reads them (the extension lets the interpreter word the refusal).
    assert!(Date::read_raw(b"\x07\xe8\x0d\x01").is_ok());
}

#[test]
fn refusals_become_input_errors_at_the_extension() {
    let err = Malformed::Fold(2).at(exact::DATETIME, 7);
    assert_eq!(err.offset(), 7);
    assert_eq!(err.kind().name(), "bad_extension");
    assert_eq!(
        err.to_string(),
        "invalid datetime extension (type -123): fold must be 0 or 1, not 2 at byte offset 7"
    );
}
