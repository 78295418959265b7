//! The text forms `packb` writes for dates, times and UUIDs, parsed back without Python.
//!
//! Datetimes are RFC 3339 as `datetime.isoformat()` writes them: `YYYY-MM-DDTHH:MM:SS`, an
//! optional fraction of 1 to 9 digits (beyond microseconds truncated), and an optional offset
//! `Z`, `+HH:MM` or `-HH:MM` (absent: a naive datetime). Ranges (month 13, February 30) are left
//! to the datetime constructors, which refuse them.

/// A parsed datetime, date or time; `offset` in seconds east of UTC, `None` when naive.
#[derive(Debug, PartialEq, Eq, Default)]
pub struct Parsed {
    pub year: i32,
    pub month: i32,
    pub day: i32,
    pub hour: i32,
    pub minute: i32,
    pub second: i32,
    pub micro: i32,
    pub offset: Option<i32>,
}

fn digits(s: &[u8], n: usize) -> Option<i32> {
    let part = s.get(..n)?;
    let mut v = 0i32;
    for &c in part {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as i32;
    }
    Some(v)
}

/// `YYYY-MM-DD`.
pub fn date(s: &[u8]) -> Option<Parsed> {
    if s.len() != 10 {
        return None;
    }
    date_prefix(s)
}

fn date_prefix(s: &[u8]) -> Option<Parsed> {
    if s.get(4) != Some(&b'-') || s.get(7) != Some(&b'-') {
        return None;
    }
    Some(Parsed {
        year: digits(s, 4)?,
        month: digits(&s[5..], 2)?,
        day: digits(&s[8..], 2)?,
        ..Parsed::default()
    })
}

/// `HH:MM:SS[.fraction][offset]` into `p`; `s` must be all of it.
fn time_into(s: &[u8], p: &mut Parsed) -> Option<()> {
    if s.get(2) != Some(&b':') {
        return None;
    }
    p.hour = digits(s, 2)?;
    p.minute = digits(&s[3..], 2)?;
    let mut rest = &s[5..];
    if rest.first() == Some(&b':') {
        p.second = digits(&rest[1..], 2)?;
        rest = &rest[3..];
        if rest.first() == Some(&b'.') {
            let frac = &rest[1..];
            let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 || n > 9 {
                return None;
            }
            let mut micro = digits(frac, n.min(6))?;
            for _ in n..6 {
                micro *= 10;
            }
            p.micro = micro;
            rest = &frac[n..];
        }
    }
    p.offset = match rest {
        [] => None,
        [b'Z' | b'z'] => Some(0),
        [sign @ (b'+' | b'-'), offset @ ..] => {
            let secs = utc_offset(offset)?;
            Some(if *sign == b'-' { -secs } else { secs })
        }
        _ => return None,
    };
    Some(())
}

/// An offset's `HH:MM`, or `HH:MM:SS` as `isoformat()` writes an offset of whole seconds (a
/// historic local mean time); below a day, in seconds. Sub-second offsets are refused.
fn utc_offset(s: &[u8]) -> Option<i32> {
    let (hours, minutes, seconds) = match s {
        [h1, h2, b':', m1, m2] => (digits(&[*h1, *h2], 2)?, digits(&[*m1, *m2], 2)?, 0),
        [h1, h2, b':', m1, m2, b':', s1, s2] => (
            digits(&[*h1, *h2], 2)?,
            digits(&[*m1, *m2], 2)?,
            digits(&[*s1, *s2], 2)?,
        ),
        _ => return None,
    };
    if hours > 23 || minutes > 59 || seconds > 59 {
        return None;
    }
    Some(hours * 3600 + minutes * 60 + seconds)
}

/// `HH:MM[:SS[.fraction]][offset]`.
pub fn time(s: &[u8]) -> Option<Parsed> {
    let mut p = Parsed::default();
    time_into(s, &mut p)?;
    Some(p)
}

/// `YYYY-MM-DD[T ]HH:MM[:SS[.fraction]][offset]`.
pub fn datetime(s: &[u8]) -> Option<Parsed> {
    let mut p = date_prefix(s)?;
    if !matches!(s.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    time_into(&s[11..], &mut p)?;
    Some(p)
}

fn hex(c: u8) -> Option<u128> {
    Some(match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => return None,
    } as u128)
}

/// A UUID's 128 bits from its 36-character hyphenated form or 32 hex digits.
pub fn uuid(s: &[u8]) -> Option<u128> {
    let mut v = 0u128;
    match s.len() {
        36 => {
            for (i, &c) in s.iter().enumerate() {
                if matches!(i, 8 | 13 | 18 | 23) {
                    if c != b'-' {
                        return None;
                    }
                } else {
                    v = v << 4 | hex(c)?;
                }
            }
        }
        32 => {
            for &c in s {
                v = v << 4 | hex(c)?;
            }
        }
        _ => return None,
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetimes() {
        let p = datetime(b"2024-02-29T13:05:09.123456+05:30").unwrap();
        assert_eq!(
            p,
            Parsed {
                year: 2024,
                month: 2,
                day: 29,
                hour: 13,
                minute: 5,
                second: 9,
                micro: 123456,
                offset: Some(5 * 3600 + 30 * 60),
            }
        );
        assert_eq!(datetime(b"2024-02-29T13:05:09Z").unwrap().offset, Some(0));
        assert_eq!(datetime(b"2024-02-29T13:05:09").unwrap().offset, None);
        assert_eq!(
            datetime(b"2024-02-29T13:05:09.5-01:00").unwrap().micro,
            500000
        );
        assert_eq!(
            datetime(b"2024-02-29T13:05:09.123456789Z").unwrap().micro,
            123456
        );
        for bad in [
            &b"2024-02-29"[..],
            b"2024-02-29T13:05:09.",
            b"2024-02-29T13:05:09+0100",
            b"2024-02-29T13:05:09+24:00",
            b"2024-02-29T13:05:09+01:00:60",
            b"2024-02-29T13:05:09+01:00:00.5",
            b"2024-2-29T13:05:09",
            b"2024-02-29T13:05:09.1234567890",
            b"2024-02-29X13:05:09",
            b"",
        ] {
            assert_eq!(datetime(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(date(b"0001-12-31").unwrap().day, 31);
        assert_eq!(date(b"2024-02-29T"), None);
        let t = time(b"23:59:58.000001").unwrap();
        assert_eq!((t.hour, t.minute, t.second, t.micro), (23, 59, 58, 1));
        assert_eq!(time(b"10:00+01:00").unwrap().offset, Some(3600));
        assert_eq!(time(b"10"), None);
    }

    #[test]
    fn uuids() {
        let text = b"12345678-1234-5678-1234-567812345678";
        assert_eq!(uuid(text), Some(0x12345678123456781234567812345678));
        assert_eq!(uuid(b"12345678123456781234567812345678"), uuid(text));
        assert_eq!(uuid(b"12345678-1234-5678-1234_567812345678"), None);
        assert_eq!(uuid(b"g2345678123456781234567812345678"), None);
    }
}
