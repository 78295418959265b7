//! Proleptic Gregorian calendar arithmetic and RFC 3339 text, in pure Rust (unit-tested here).

/// Seconds since the epoch of 0001-01-01T00:00:00 and of 9999-12-31T23:59:59: the range of
/// Python's `datetime` and of RFC 3339's four-digit years.
pub const MIN_SECS: i64 = -62_135_596_800;
pub const MAX_SECS: i64 = 253_402_300_799;

/// Days since 1970-01-01 of a civil date (any year; month 1-12, day 1-31).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

/// A small fixed buffer for date and time text (the longest is 32 bytes:
/// `YYYY-MM-DDTHH:MM:SS.ffffff+HH:MM`).
pub struct Text {
    buf: [u8; 40],
    len: usize,
}

impl Text {
    pub fn new() -> Text {
        Text {
            buf: [0; 40],
            len: 0,
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// `value` as exactly `width` decimal digits (zero-padded; `value` must fit).
    fn digits(&mut self, mut value: u32, width: usize) {
        let end = self.len + width;
        let Some(out) = self.buf.get_mut(self.len..end) else {
            return;
        };
        for slot in out.iter_mut().rev() {
            *slot = b'0' + (value % 10) as u8;
            value /= 10;
        }
        self.len = end;
    }

    /// `YYYY-MM-DD`.
    pub fn date(&mut self, year: u32, month: u32, day: u32) {
        self.digits(year, 4);
        self.push(b'-');
        self.digits(month, 2);
        self.push(b'-');
        self.digits(day, 2);
    }

    /// `HH:MM:SS`, then `.ffffff` when `microsecond` is not zero.
    pub fn time(&mut self, hour: u32, minute: u32, second: u32, microsecond: u32) {
        self.digits(hour, 2);
        self.push(b':');
        self.digits(minute, 2);
        self.push(b':');
        self.digits(second, 2);
        if microsecond != 0 {
            self.push(b'.');
            self.digits(microsecond, 6);
        }
    }

    pub fn sep(&mut self, b: u8) {
        self.push(b);
    }

    /// A UTC offset in microseconds as `+HH:MM`, or `Z` for zero when `utc_z`. RFC 3339 has no
    /// place for seconds in an offset, so it is rounded to the closest minute, as the RFC's own
    /// example does (+00:19:32.13 as `+00:20`), up to `23:59`; an offset that rounds to zero is
    /// written `+00:00`, since `-00:00` means "offset unknown".
    pub fn offset(&mut self, micros: i64, utc_z: bool) {
        const MINUTE: u64 = 60_000_000;
        let minutes = ((micros.unsigned_abs() + MINUTE / 2) / MINUTE).min(23 * 60 + 59) as u32;
        if minutes == 0 && utc_z {
            self.push(b'Z');
            return;
        }
        self.push(if micros < 0 && minutes != 0 {
            b'-'
        } else {
            b'+'
        });
        self.digits(minutes / 60, 2);
        self.push(b':');
        self.digits(minutes % 60, 2);
    }
}

impl Default for Text {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_over_the_datetime_range() {
        // 0001-01-01 .. 9999-12-31, every 97th day plus both ends.
        let first = days_from_civil(1, 1, 1);
        let last = days_from_civil(9999, 12, 31);
        assert_eq!(first, -719_162);
        assert_eq!(last, 2_932_896);
        let mut d = first;
        while d <= last {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
            d += 97;
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(days_from_civil(2000, 2, 29)), (2000, 2, 29));
    }

    #[test]
    fn text_forms() {
        let mut t = Text::new();
        t.date(2020, 1, 2);
        t.sep(b'T');
        t.time(3, 4, 5, 6);
        t.offset(-(5 * 3600 + 30 * 60 + 15) * 1_000_000, false);
        assert_eq!(t.as_bytes(), b"2020-01-02T03:04:05.000006-05:30");
        let mut z = Text::new();
        z.time(0, 0, 0, 0);
        z.offset(0, true);
        assert_eq!(z.as_bytes(), b"00:00:00Z");
        let mut small = Text::new();
        small.offset(-29_999_999, false);
        assert_eq!(small.as_bytes(), b"+00:00");
        let mut amsterdam = Text::new();
        amsterdam.offset((19 * 60 + 32) * 1_000_000 + 130_000, false);
        assert_eq!(amsterdam.as_bytes(), b"+00:20");
        let mut carry = Text::new();
        carry.offset((5 * 3600 + 59 * 60 + 30) * 1_000_000, false);
        assert_eq!(carry.as_bytes(), b"+06:00");
        let mut top = Text::new();
        top.offset(-(24 * 3600 * 1_000_000 - 1), false);
        assert_eq!(top.as_bytes(), b"-23:59");
    }
}
