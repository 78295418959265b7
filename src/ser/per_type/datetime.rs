//! `datetime`, `date` and `time` as RFC 3339 text, or aware datetimes as the MessagePack
//! timestamp extension with `OPT_DATETIME_AS_TIMESTAMP_EXT`.

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Ref, TimeUnit};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{error, Ctx};
use fastmsgpack_core::calendar::{civil_from_days, days_from_civil, Text, MAX_SECS, MIN_SECS};

/// The UTC offset of a datetime in microseconds, `None` when it is naive (no tzinfo, or a tzinfo
/// whose
/// `utcoffset` says `None`).
///
/// # Safety
/// `obj` is a live datetime; the GIL is held.
unsafe fn utc_offset(obj: Ref<'_>, cx: &Ctx) -> Res<Option<i64>> {
    // SAFETY: `obj` is a live datetime and the GIL is held (this function's precondition). Its
    // tzinfo is borrowed from it and stays alive while `obj` does; `delta` is read as a timedelta
    // only once checked to be one.
    unsafe {
        let Some(tz) = ffi::datetime_tzinfo(obj.as_ptr()) else {
            return Ok(None);
        };
        if tz == cx.known.utc {
            return Ok(Some(0));
        }
        let fixed = ffi::type_of(tz) == cx.known.fixed_timezone;
        if fixed {
            if let Some((last, offset)) = cx.last_fixed_tz.take() {
                let hit = last.as_ptr() == tz;
                cx.last_fixed_tz.set(Some((last, offset)));
                if hit {
                    return Ok(Some(offset));
                }
            }
        }
        // An exact datetime's `utcoffset()` is `tzinfo.utcoffset(dt)` with its result checked,
        // which is done here: the datetime method goes through CPython's format-string call
        // (a name made and hashed, a bound method, a tuple), about 120 ns of the 175 ns that
        // packing a zoneinfo datetime took. A subclass may override `utcoffset()`, and is asked
        // itself.
        let names = &cx.known.names;
        let exact = obj.type_of() == cx.known.datetime;
        let delta = if exact {
            ffi::call_method1(tz, names.utcoffset, obj.as_ptr())
        } else {
            ffi::call_method0(obj.as_ptr(), names.utcoffset)
        }
        .map_err(|cause| error::attribute_failed("datetime.utcoffset() raised", cause))?;
        if delta.as_ptr() == ffi::none() {
            return Ok(None);
        }
        if !ffi::is_timedelta(cx.known, delta.as_ptr()) {
            return Err(error::bad_utcoffset());
        }
        let offset = ffi::timedelta_micros(delta.as_ptr());
        if exact && offset.abs() >= 86_400_000_000 {
            return Err(error::utcoffset_out_of_range());
        }
        if fixed {
            cx.last_fixed_tz
                .set(Some((ffi::Owned::from_borrowed(tz), offset)));
        }
        Ok(Some(offset))
    }
}

/// # Safety
/// `obj` is a live datetime (or subclass); the GIL is held.
pub unsafe fn write_datetime<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live datetime and the GIL is held (this function's precondition), as
    // `datetime_fields` and `utc_offset` need.
    let (c, offset) = unsafe { (ffi::datetime_fields(obj.as_ptr()), utc_offset(obj, cx)?) };
    let offset = offset.or_else(|| st.has(opt::NAIVE_UTC).then_some(0));
    if st.has(opt::DATETIME_AS_TIMESTAMP_EXT) {
        if let Some(offset) = offset {
            let days = days_from_civil(c.year as i64, c.month, c.day);
            let local = days * 86_400 + (c.hour * 3600 + c.minute * 60 + c.second) as i64;
            let micros = local * 1_000_000 + c.microsecond as i64 - offset;
            let nanos = micros.rem_euclid(1_000_000) as u32 * 1000;
            return e.timestamp(micros.div_euclid(1_000_000), nanos);
        }
    }
    let mut text = Text::new();
    text.date(c.year, c.month, c.day);
    text.sep(b'T');
    text.time(c.hour, c.minute, c.second, micros(c.microsecond, st));
    if let Some(offset) = offset {
        text.offset(offset, st.has(opt::UTC_Z));
    }
    e.str(text.as_bytes())
}

/// # Safety
/// `obj` is a live date (or subclass).
pub unsafe fn write_date<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live date (this function's precondition), as `date_fields` needs.
    let c = unsafe { ffi::date_fields(obj.as_ptr()) };
    let mut text = Text::new();
    text.date(c.year, c.month, c.day);
    e.str(text.as_bytes())
}

/// A naive time; an aware one is an error (its offset could depend on a date it does not have).
///
/// # Safety
/// `obj` is a live time (or subclass).
pub unsafe fn write_time<E: Emitter>(obj: Ref<'_>, st: State, e: &mut E) -> Res {
    // SAFETY: `obj` is a live time (this function's precondition), as `time_fields` and
    // `time_has_tzinfo` need.
    let (c, aware) = unsafe {
        (
            ffi::time_fields(obj.as_ptr()),
            ffi::time_has_tzinfo(obj.as_ptr()),
        )
    };
    if aware {
        return Err(error::aware_time());
    }
    let mut text = Text::new();
    text.time(c.hour, c.minute, c.second, micros(c.microsecond, st));
    e.str(text.as_bytes())
}

fn micros(microsecond: u32, st: State) -> u32 {
    if st.has(opt::OMIT_MICROSECONDS) {
        0
    } else {
        microsecond
    }
}

/// A numpy datetime64 value (`value` units since the epoch), naive like every datetime64: text
/// under the datetime options, or a timestamp with `OPT_NAIVE_UTC` and
/// `OPT_DATETIME_AS_TIMESTAMP_EXT`. NaT and instants outside years 1-9999 are errors.
pub fn write_datetime64<E: Emitter>(value: i64, unit: TimeUnit, st: State, e: &mut E) -> Res {
    if value == i64::MIN {
        return Err(error::datetime64("NaT (not a time) cannot be packed"));
    }
    let Some((secs, nanos)) = datetime64_instant(value, unit) else {
        return Err(error::datetime64(
            "datetime64 value is outside years 1 to 9999",
        ));
    };
    if !(MIN_SECS..=MAX_SECS).contains(&secs) {
        return Err(error::datetime64(
            "datetime64 value is outside years 1 to 9999",
        ));
    }
    if st.has(opt::DATETIME_AS_TIMESTAMP_EXT) && st.has(opt::NAIVE_UTC) {
        return e.timestamp(secs, nanos);
    }
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let in_day = secs.rem_euclid(86_400) as u32;
    let mut text = Text::new();
    text.date(year as u32, month, day);
    text.sep(b'T');
    text.time(
        in_day / 3600,
        in_day % 3600 / 60,
        in_day % 60,
        micros(nanos / 1000, st),
    );
    if st.has(opt::NAIVE_UTC) {
        text.offset(0, st.has(opt::UTC_Z));
    }
    e.str(text.as_bytes())
}

/// Seconds since the epoch and nanoseconds of a datetime64 value; `None` on overflow.
fn datetime64_instant(value: i64, unit: TimeUnit) -> Option<(i64, u32)> {
    let whole = |per_sec: i64| {
        (
            value.div_euclid(per_sec),
            (value.rem_euclid(per_sec) * (1_000_000_000 / per_sec)) as u32,
        )
    };
    Some(match unit {
        TimeUnit::Year => (
            days_from_civil(1970i64.checked_add(value)?, 1, 1).checked_mul(86_400)?,
            0,
        ),
        TimeUnit::Month => {
            let year = 1970i64.checked_add(value.div_euclid(12))?;
            (
                days_from_civil(year, value.rem_euclid(12) as u32 + 1, 1).checked_mul(86_400)?,
                0,
            )
        }
        TimeUnit::Week => (value.checked_mul(7 * 86_400)?, 0),
        TimeUnit::Day => (value.checked_mul(86_400)?, 0),
        TimeUnit::Hour => (value.checked_mul(3600)?, 0),
        TimeUnit::Minute => (value.checked_mul(60)?, 0),
        TimeUnit::Second => (value, 0),
        TimeUnit::Milli => whole(1_000),
        TimeUnit::Micro => whole(1_000_000),
        TimeUnit::Nano => whole(1_000_000_000),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetime64_units() {
        assert_eq!(
            datetime64_instant(51, TimeUnit::Year),
            Some((1_609_459_200, 0))
        );
        assert_eq!(
            datetime64_instant(614, TimeUnit::Month),
            Some((1_614_556_800, 0))
        );
        assert_eq!(
            datetime64_instant(-1, TimeUnit::Nano),
            Some((-1, 999_999_999))
        );
        assert_eq!(
            datetime64_instant(1_500, TimeUnit::Milli),
            Some((1, 500_000_000))
        );
        assert_eq!(datetime64_instant(i64::MAX, TimeUnit::Day), None);
    }
}
