//! `datetime`, `date`, `time` and `timedelta`: their fields, and the time zone of a `datetime` or
//! `time` as a suffix ([`Zone`]): none when naive, UTC, a fixed offset (with its name, if it was
//! given one) or a `ZoneInfo` key.

use std::borrow::Cow;

use super::numbers::fixed;
use super::{valid_zone_key, Field, Malformed};

/// The first byte of a time zone suffix.
pub const ZONE_UTC: u8 = 0;
pub const ZONE_FIXED: u8 = 1;
pub const ZONE_FIXED_NAMED: u8 = 2;
pub const ZONE_KEY: u8 = 3;

/// A UTC offset must be strictly within a day.
const DAY_MICROS: u64 = 86_400_000_000;

/// The `tzinfo` of a `datetime` or a `time`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Zone<'a> {
    /// None: a naive value (the payload ends after the fields).
    Naive,
    /// `datetime.timezone.utc`.
    Utc,
    /// `datetime.timezone(offset)` or `datetime.timezone(offset, name)`: the offset in
    /// microseconds east of UTC, strictly within a day.
    Fixed {
        offset: i64,
        name: Option<Cow<'a, str>>,
    },
    /// `zoneinfo.ZoneInfo(key)`: a key [`valid_zone_key`] accepts.
    Key(Cow<'a, str>),
}

impl<'a> Zone<'a> {
    /// The zone of a suffix (the bytes after the fields).
    pub fn read(suffix: &'a [u8]) -> Result<Zone<'a>, Malformed> {
        let Some((&form, rest)) = suffix.split_first() else {
            return Ok(Zone::Naive);
        };
        match form {
            ZONE_UTC if rest.is_empty() => Ok(Zone::Utc),
            ZONE_FIXED | ZONE_FIXED_NAMED if rest.len() >= 8 => {
                let (offset, name) = rest.split_at(8);
                if form == ZONE_FIXED && !name.is_empty() {
                    return Err(Malformed::UnnamedTrailing);
                }
                let mut word = [0u8; 8];
                word.copy_from_slice(offset);
                let offset = i64::from_be_bytes(word);
                if offset.unsigned_abs() >= DAY_MICROS {
                    return Err(Malformed::Offset(offset));
                }
                let name = match form {
                    ZONE_FIXED_NAMED => match std::str::from_utf8(name) {
                        Ok(text) => Some(Cow::Borrowed(text)),
                        Err(_) => return Err(Malformed::NameNotUtf8),
                    },
                    _ => None,
                };
                Ok(Zone::Fixed { offset, name })
            }
            ZONE_KEY if valid_zone_key(rest) => {
                // SAFETY: `valid_zone_key` accepts only ASCII bytes, which are UTF-8.
                let key = unsafe { std::str::from_utf8_unchecked(rest) };
                Ok(Zone::Key(Cow::Borrowed(key)))
            }
            ZONE_KEY => Err(Malformed::ZoneKey(
                String::from_utf8_lossy(rest).into_owned().into(),
            )),
            _ => Err(Malformed::ZoneForm(form)),
        }
    }

    #[inline]
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Zone::Naive => {}
            Zone::Utc => out.push(ZONE_UTC),
            Zone::Fixed { offset, name: None } => {
                out.push(ZONE_FIXED);
                out.extend_from_slice(&offset.to_be_bytes());
            }
            Zone::Fixed {
                offset,
                name: Some(name),
            } => {
                out.push(ZONE_FIXED_NAMED);
                out.extend_from_slice(&offset.to_be_bytes());
                out.extend_from_slice(name.as_bytes());
            }
            Zone::Key(key) => {
                out.push(ZONE_KEY);
                out.extend_from_slice(key.as_bytes());
            }
        }
    }

    /// The same zone, owning its name or key (to be kept past the payload).
    pub fn into_owned(self) -> Zone<'static> {
        match self {
            Zone::Naive => Zone::Naive,
            Zone::Utc => Zone::Utc,
            Zone::Fixed { offset, name } => Zone::Fixed {
                offset,
                name: name.map(|n| Cow::Owned(n.into_owned())),
            },
            Zone::Key(key) => Zone::Key(Cow::Owned(key.into_owned())),
        }
    }

    /// The same zone, borrowing what this one holds.
    pub fn borrowed(&self) -> Zone<'_> {
        match self {
            Zone::Naive => Zone::Naive,
            Zone::Utc => Zone::Utc,
            Zone::Fixed { offset, name } => Zone::Fixed {
                offset: *offset,
                name: name.as_deref().map(Cow::Borrowed),
            },
            Zone::Key(key) => Zone::Key(Cow::Borrowed(key)),
        }
    }
}

/// `date`: year (u16), month, day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl Date {
    #[inline]
    pub fn read(payload: &[u8]) -> Result<Date, Malformed> {
        let d = Date::read_raw(payload)?;
        d.check()?;
        Ok(d)
    }

    /// The layout alone, the fields not checked against the calendar ([`Date::check`]).
    #[inline]
    pub fn read_raw(payload: &[u8]) -> Result<Date, Malformed> {
        let [y0, y1, month, day] = fixed::<4>(payload)?;
        Ok(Date {
            year: u16::from_be_bytes([y0, y1]),
            month,
            day,
        })
    }

    /// Whether the fields name a day of years 1 to 9999, as Python's `date` accepts.
    #[inline]
    pub fn check(&self) -> Result<(), Malformed> {
        let in_range = |field, value: u32, lo: u32, hi: u32| {
            if (lo..=hi).contains(&value) {
                Ok(())
            } else {
                Err(Malformed::Field(field, value))
            }
        };
        in_range(Field::Year, self.year as u32, 1, 9999)?;
        in_range(Field::Month, self.month as u32, 1, 12)?;
        let last = days_in_month(self.year, self.month);
        in_range(Field::Day, self.day as u32, 1, last)
    }

    #[inline]
    pub fn to_bytes(&self) -> [u8; 4] {
        let [y0, y1] = self.year.to_be_bytes();
        [y0, y1, self.month, self.day]
    }
}

#[inline]
fn days_in_month(year: u16, month: u8) -> u32 {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The time of day of a `datetime` or `time`: hour, minute, second, fold, microsecond (u32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    /// `fold`: which of two repeated wall times (0 or 1; any other byte is refused).
    pub fold: bool,
    pub microsecond: u32,
}

impl Clock {
    /// The 8 bytes at the start of `b`.
    #[inline]
    fn read_raw(b: &[u8; 8]) -> Result<Clock, Malformed> {
        let fold = match b[3] {
            0 => false,
            1 => true,
            other => return Err(Malformed::Fold(other)),
        };
        Ok(Clock {
            hour: b[0],
            minute: b[1],
            second: b[2],
            fold,
            microsecond: u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
        })
    }

    #[inline]
    pub fn check(&self) -> Result<(), Malformed> {
        let below = |field, value: u32, limit: u32| {
            if value < limit {
                Ok(())
            } else {
                Err(Malformed::Field(field, value))
            }
        };
        below(Field::Hour, self.hour as u32, 24)?;
        below(Field::Minute, self.minute as u32, 60)?;
        below(Field::Second, self.second as u32, 60)?;
        below(Field::Microsecond, self.microsecond, 1_000_000)
    }

    #[inline]
    fn to_bytes(self) -> [u8; 8] {
        let [m0, m1, m2, m3] = self.microsecond.to_be_bytes();
        [
            self.hour,
            self.minute,
            self.second,
            self.fold as u8,
            m0,
            m1,
            m2,
            m3,
        ]
    }
}

/// The first `N` bytes of a payload, or why it is too short.
#[inline(always)]
fn head<const N: usize>(payload: &[u8]) -> Result<(&[u8; N], &[u8]), Malformed> {
    match payload.split_first_chunk::<N>() {
        Some(split) => Ok(split),
        None => Err(Malformed::Short {
            least: N,
            got: payload.len(),
        }),
    }
}

/// `datetime`: year (u16), month, day, then the [`Clock`] (12 bytes), then the [`Zone`]. The
/// fields are the object's own, in its own zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateTime<'a> {
    pub date: Date,
    pub clock: Clock,
    pub zone: Zone<'a>,
}

impl<'a> DateTime<'a> {
    pub fn read(payload: &'a [u8]) -> Result<DateTime<'a>, Malformed> {
        let v = DateTime::read_raw(payload)?;
        v.check()?;
        Ok(v)
    }

    /// The layout alone: the length, the fold and the zone, the fields not checked against the
    /// calendar ([`DateTime::check`]).
    pub fn read_raw(payload: &'a [u8]) -> Result<DateTime<'a>, Malformed> {
        let (date, clock, suffix) = DateTime::split(payload)?;
        Ok(DateTime {
            date,
            clock,
            zone: Zone::read(suffix)?,
        })
    }

    /// The fields (length and fold checked) and the zone's suffix, not yet read: a reader that
    /// keeps the zones it made finds one by these bytes before [`Zone::read`] reads them.
    #[inline]
    pub fn split(payload: &'a [u8]) -> Result<(Date, Clock, &'a [u8]), Malformed> {
        let (fields, suffix) = head::<12>(payload)?;
        let [y0, y1, month, day, c @ ..] = *fields;
        let date = Date {
            year: u16::from_be_bytes([y0, y1]),
            month,
            day,
        };
        Ok((date, Clock::read_raw(&c)?, suffix))
    }

    #[inline]
    pub fn check(&self) -> Result<(), Malformed> {
        self.date.check()?;
        self.clock.check()
    }

    #[inline]
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.date.to_bytes());
        out.extend_from_slice(&self.clock.to_bytes());
        self.zone.write(out);
    }
}

/// `time`: the [`Clock`] (8 bytes), then the [`Zone`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Time<'a> {
    pub clock: Clock,
    pub zone: Zone<'a>,
}

impl<'a> Time<'a> {
    pub fn read(payload: &'a [u8]) -> Result<Time<'a>, Malformed> {
        let v = Time::read_raw(payload)?;
        v.clock.check()?;
        Ok(v)
    }

    /// The layout alone, the fields not checked ([`Clock::check`]).
    pub fn read_raw(payload: &'a [u8]) -> Result<Time<'a>, Malformed> {
        let (clock, suffix) = Time::split(payload)?;
        Ok(Time {
            clock,
            zone: Zone::read(suffix)?,
        })
    }

    /// The fields (length and fold checked) and the zone's suffix, not yet read (as
    /// [`DateTime::split`]).
    #[inline]
    pub fn split(payload: &'a [u8]) -> Result<(Clock, &'a [u8]), Malformed> {
        let (clock, suffix) = head::<8>(payload)?;
        Ok((Clock::read_raw(clock)?, suffix))
    }

    #[inline]
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.clock.to_bytes());
        self.zone.write(out);
    }
}

/// `timedelta`: its normalised fields, as Python keeps them: days (i32,
/// -999999999..999999999), seconds (u32, below 86400), microseconds (u32, below 10**6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeDelta {
    pub days: i32,
    pub seconds: u32,
    pub microseconds: u32,
}

impl TimeDelta {
    #[inline]
    pub fn read(payload: &[u8]) -> Result<TimeDelta, Malformed> {
        let raw = fixed::<12>(payload)?;
        let days = i32::from_be_bytes([raw[0], raw[1], raw[2], raw[3]]);
        let seconds = u32::from_be_bytes([raw[4], raw[5], raw[6], raw[7]]);
        let microseconds = u32::from_be_bytes([raw[8], raw[9], raw[10], raw[11]]);
        if seconds >= 86_400 || microseconds >= 1_000_000 {
            return Err(Malformed::DeltaParts);
        }
        if !(-999_999_999..=999_999_999).contains(&days) {
            return Err(Malformed::DeltaDays(days));
        }
        Ok(TimeDelta {
            days,
            seconds,
            microseconds,
        })
    }

    #[inline]
    pub fn to_bytes(&self) -> [u8; 12] {
        let mut out = [0u8; 12];
        out[..4].copy_from_slice(&self.days.to_be_bytes());
        out[4..8].copy_from_slice(&self.seconds.to_be_bytes());
        out[8..].copy_from_slice(&self.microseconds.to_be_bytes());
        out
    }
}
