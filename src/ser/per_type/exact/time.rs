//! `datetime`, `date`, `time` and `timedelta`: their fields and their time zone, as the core's
//! values (`fastmsgpack_core::exact`), which write the payloads.

use std::borrow::Cow;
use std::cell::Cell;

use pyo3::prelude::*;

use fastmsgpack_core::exact::{self as code, Clock, Date, DateTime, Time, TimeDelta, Zone};

use crate::emit::Emitter;
use crate::error::{Error, Res};
use crate::exc::MsgpackEncodeError;
use crate::ffi::{self, Owned, Ref};
use crate::ser::{error, Ctx};

/// The last time zone met in a call and its value (the datetimes of one call usually share
/// one), and the buffer payloads are written in. The zone is held, so its address cannot be
/// reused by another object meanwhile.
#[derive(Default)]
pub struct TzCache {
    last: Cell<Option<(Owned, Zone<'static>)>>,
    scratch: Cell<Vec<u8>>,
}

impl TzCache {
    pub(super) fn take_scratch(&self) -> Vec<u8> {
        self.scratch.take()
    }

    pub(super) fn put_scratch(&self, out: Vec<u8>) {
        self.scratch.set(out);
    }
}

#[cold]
fn refused(msg: String) -> Error {
    Error::new(
        crate::error::Kind::InvalidValue,
        MsgpackEncodeError::new_err(msg),
    )
}

/// # Safety
/// `obj` is a live datetime; the GIL is held.
#[inline(never)]
pub unsafe fn write_datetime<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live datetime (this function's precondition), as the three readers need;
    // the tzinfo is held by `obj`, so it lives as long as `obj` does.
    let (c, fold, tz) = unsafe {
        (
            ffi::datetime_fields(obj.as_ptr()),
            ffi::datetime_fold(obj.as_ptr()),
            ffi::datetime_tzinfo(obj.as_ptr()).map(|tz| Ref::new(tz)),
        )
    };
    let date = Date {
        year: c.year as u16,
        month: c.month as u8,
        day: c.day as u8,
    };
    let clock = Clock {
        hour: c.hour as u8,
        minute: c.minute as u8,
        second: c.second as u8,
        fold: fold != 0,
        microsecond: c.microsecond,
    };
    with_zone(code::DATETIME, tz, cx, e, |zone, out| {
        DateTime { date, clock, zone }.write(out)
    })
}

/// # Safety
/// `obj` is a live date.
#[inline(never)]
pub unsafe fn write_date<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live date (this function's precondition), as `date_fields` needs.
    let c = unsafe { ffi::date_fields(obj.as_ptr()) };
    let date = Date {
        year: c.year as u16,
        month: c.month as u8,
        day: c.day as u8,
    };
    e.ext(code::DATE, &date.to_bytes())
}

/// # Safety
/// `obj` is a live time; the GIL is held.
#[inline(never)]
pub unsafe fn write_time<E: Emitter>(obj: Ref<'_>, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live time (this function's precondition), as the three readers need; the
    // tzinfo is held by `obj`, so it lives as long as `obj` does.
    let (c, fold, tz) = unsafe {
        (
            ffi::time_fields(obj.as_ptr()),
            ffi::time_fold(obj.as_ptr()),
            ffi::time_tzinfo(obj.as_ptr()).map(|tz| Ref::new(tz)),
        )
    };
    let clock = Clock {
        hour: c.hour as u8,
        minute: c.minute as u8,
        second: c.second as u8,
        fold: fold != 0,
        microsecond: c.microsecond,
    };
    with_zone(code::TIME, tz, cx, e, |zone, out| {
        Time { clock, zone }.write(out)
    })
}

/// # Safety
/// `obj` is a live timedelta.
#[inline(never)]
pub unsafe fn write_timedelta<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live timedelta (this function's precondition), as `timedelta_parts` needs.
    let (days, secs, micros) = unsafe { ffi::timedelta_parts(obj.as_ptr()) };
    let delta = TimeDelta {
        days,
        seconds: secs as u32,
        microseconds: micros as u32,
    };
    e.ext(code::TIMEDELTA, &delta.to_bytes())
}

/// The extension `tag` that `write` writes with the zone of `tz`.
fn with_zone<E: Emitter>(
    tag: i8,
    tz: Option<Ref<'_>>,
    cx: &Ctx,
    e: &mut E,
    write: impl FnOnce(Zone<'_>, &mut Vec<u8>),
) -> Res {
    let Some(tz) = tz else {
        return super::write_payload(tag, cx, e, |out| write(Zone::Naive, out));
    };
    if tz.as_ptr() == cx.known.utc {
        return super::write_payload(tag, cx, e, |out| write(Zone::Utc, out));
    }
    let Some(x) = cx.exact.as_deref() else {
        return Err(refused("OPT_EXACT handles are not loaded".to_owned()));
    };
    let (held, zone) = match x.tz_cache.last.take() {
        Some((held, zone)) if held.as_ptr() == tz.as_ptr() => (held, zone),
        _ => (tz.hold(), zone_of(tz, cx)?),
    };
    let r = super::write_payload(tag, cx, e, |out| write(zone.borrowed(), out));
    x.tz_cache.last.set(Some((held, zone)));
    r
}

/// The zone of a tzinfo other than UTC.
#[cold]
fn zone_of(tz: Ref<'_>, cx: &Ctx) -> Res<Zone<'static>> {
    // SAFETY: a `Ref` exists only on an attached thread (its invariant).
    let py = unsafe { Python::assume_attached() };
    // SAFETY: `tz` is live on this attached thread (`Ref`'s invariant), so it can be borrowed for
    // the call.
    let tz_obj = unsafe { Borrowed::from_ptr(py, tz.as_ptr()) };
    let Some(h) = cx.exact.as_deref().map(|x| x.handles) else {
        return Err(refused("OPT_EXACT handles are not loaded".to_owned()));
    };
    let ty = tz.type_of();
    if ty == cx.known.fixed_timezone {
        // `(offset,)` or `(offset, name)`: how the timezone was made.
        let args = tz_obj
            .call_method0(crate::intern!(py, "__getinitargs__"))
            .map_err(|c| error::attribute_failed("timezone.__getinitargs__() raised", c))?;
        let offset = args
            .get_item(0)
            .map_err(|c| error::attribute_failed("timezone has no offset", c))?;
        // SAFETY: `offset` is live and the thread attached (a `Ref`'s invariant).
        if !unsafe { ffi::is_timedelta(cx.known, offset.as_ptr()) } {
            return Err(error::bad_utcoffset());
        }
        // SAFETY: checked to be a timedelta just above.
        let offset = unsafe { ffi::timedelta_micros(offset.as_ptr()) };
        let name = match args.get_item(1).ok() {
            Some(name) => {
                Some(Cow::Owned(name.extract::<String>().map_err(|c| {
                    error::attribute_failed("timezone name is not a str", c)
                })?))
            }
            None => None,
        };
        return Ok(Zone::Fixed { offset, name });
    }
    if ty.cast() == h.zoneinfo {
        // SAFETY: `tz` is live on an attached thread (`Ref`'s invariant), and the name is a str
        // the handles hold.
        let key = unsafe { ffi::get_attr(tz.as_ptr(), h.names.key) }
            .map_err(|c| error::attribute_failed("ZoneInfo.key could not be read", c))?;
        // SAFETY: `key` is live; a str gives its UTF-8.
        let utf8 = unsafe {
            if key.as_ptr() == ffi::none()
                || !ffi::has_flag(ffi::type_of(key.as_ptr()), ffi::Py_TPFLAGS_UNICODE_SUBCLASS)
            {
                None
            } else {
                ffi::str_utf8(key.as_ptr())
            }
        };
        let key = utf8
            .filter(|k| code::valid_zone_key(k))
            .and_then(|k| std::str::from_utf8(k).ok());
        let Some(key) = key else {
            return Err(refused(
                "OPT_EXACT keeps a ZoneInfo by its key, and this one has none that names a zone \
                 (made with ZoneInfo.from_file?)"
                    .to_owned(),
            ));
        };
        return Ok(Zone::Key(Cow::Owned(key.to_owned())));
    }
    let name = tz.type_name();
    Err(refused(format!(
        "OPT_EXACT keeps a tzinfo only when it is a datetime.timezone or a zoneinfo.ZoneInfo, not \
         {name}: convert it first (dt.astimezone(zoneinfo.ZoneInfo(key)))"
    )))
}
