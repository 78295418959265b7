//! `datetime`, `date` and `time` as RFC 3339 text, or aware datetimes as the MessagePack
//! timestamp extension with `OPT_DATETIME_AS_TIMESTAMP_EXT`.

use crate::calendar::{days_from_civil, Text};
use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Obj};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{error, Ctx};

/// The UTC offset of a datetime in microseconds, `None` when it is naive (no tzinfo, or a tzinfo whose
/// `utcoffset` says `None`).
///
/// # Safety
/// `obj` is a live datetime; the GIL is held.
unsafe fn utc_offset(obj: Obj, cx: &Ctx) -> Res<Option<i64>> {
    // SAFETY: forwarded from the caller.
    unsafe {
        let Some(tz) = ffi::datetime_tzinfo(obj) else {
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
        let delta = ffi::call_method0(obj, cx.known.names.utcoffset)
            .map_err(|cause| error::attribute_failed("datetime.utcoffset() raised", cause))?;
        if delta.as_ptr() == ffi::none() {
            return Ok(None);
        }
        if !ffi::is_timedelta(delta.as_ptr()) {
            return Err(error::bad_utcoffset());
        }
        let offset = ffi::timedelta_micros(delta.as_ptr());
        if fixed {
            cx.last_fixed_tz
                .set(Some((ffi::Owned::from_borrowed(tz), offset)));
        }
        Ok(Some(offset))
    }
}

/// # Safety
/// `obj` is a live datetime (or subclass); the GIL is held.
pub unsafe fn write_datetime<E: Emitter>(obj: Obj, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    let (c, offset) = unsafe { (ffi::datetime_fields(obj), utc_offset(obj, cx)?) };
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
pub unsafe fn write_date<E: Emitter>(obj: Obj, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    let c = unsafe { ffi::date_fields(obj) };
    let mut text = Text::new();
    text.date(c.year, c.month, c.day);
    e.str(text.as_bytes())
}

/// A naive time; an aware one is an error (its offset could depend on a date it does not have).
///
/// # Safety
/// `obj` is a live time (or subclass).
pub unsafe fn write_time<E: Emitter>(obj: Obj, st: State, e: &mut E) -> Res {
    // SAFETY: forwarded from the caller.
    let (c, aware) = unsafe { (ffi::time_fields(obj), ffi::time_has_tzinfo(obj)) };
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
