//! `datetime`, `date`, `time` and `timedelta`, built from the core's values of their payloads
//! (fields and time zone). The layout is the core's (`read_raw`, `split`); the fields' calendar
//! ranges are judged by the interpreter's constructors, whose refusal is the message users see
//! (worded as their Python words it; the core's `check` agrees with them).

use fastmsgpack_core::exact::{self as code, Date, DateTime, Time, TimeDelta, Zone};

use super::{bad, cause_text, malformed, refused, unknown_zones, Exact};
use crate::de::error::DeError;
use crate::de::reader::DeResult;
use crate::ffi::{self, Owned, Ref};

/// The time zone of the suffix after the fields: `None` (naive) when it is empty. A suffix the
/// last zone was read from gives that zone again, before the core reads it.
fn zone(exact: &Exact, tag: i8, suffix: &[u8], start: usize) -> DeResult<Option<Owned>> {
    if suffix.len() <= 1 {
        // Naive or UTC (or malformed): nothing to keep.
        return Ok(
            match Zone::read(suffix).map_err(|why| malformed(tag, why, start))? {
                // SAFETY: the decoder runs attached, and the UTC singleton `known.utc` lives as long
                // as the interpreter, so it is live to take a new reference to.
                Zone::Utc => Some(unsafe { Owned::from_borrowed(exact.known.utc) }),
                _ => None,
            },
        );
    }
    let last = exact.last_zone.take();
    if let Some((key, zone)) = &last {
        if key.as_slice() == suffix {
            // SAFETY: attached; `zone` is held by the cache.
            let found = unsafe { Owned::from_borrowed(zone.as_ptr()) };
            exact.last_zone.set(last);
            return Ok(Some(found));
        }
    }
    let made = match Zone::read(suffix).map_err(|why| malformed(tag, why, start))? {
        Zone::Naive => return Ok(None),
        // SAFETY: the decoder runs attached, and the UTC singleton `known.utc` lives as long as
        // the interpreter, so it is live to take a new reference to.
        Zone::Utc => unsafe { Owned::from_borrowed(exact.known.utc) },
        other => new_zone(exact, tag, &other, start)?,
    };
    // SAFETY: attached; `made` is live.
    let held = unsafe { Owned::from_borrowed(made.as_ptr()) };
    exact.last_zone.set(Some((suffix.to_vec(), held)));
    // The replaced zone (if any) is released here: a timezone or a ZoneInfo, whose release runs
    // no code of the data's choosing.
    drop(last);
    Ok(Some(made))
}

/// The time zone object of a fixed offset or a key, made anew.
#[cold]
fn new_zone(exact: &Exact, tag: i8, zone: &Zone<'_>, start: usize) -> DeResult<Owned> {
    let known = exact.known;
    match zone {
        Zone::Fixed { offset, name } => {
            let name = match name {
                // SAFETY: attached; a str is valid UTF-8.
                Some(text) => Some(
                    unsafe { ffi::new_str(text.as_bytes()) }
                        .ok_or_else(|| DeError::python(ffi::fetch_error()))?,
                ),
                None => None,
            };
            // SAFETY: attached; the seconds fit an i32 (the core keeps offsets below a day).
            unsafe {
                let delta = ffi::new_timedelta(
                    known,
                    0,
                    offset.div_euclid(1_000_000) as i32,
                    offset.rem_euclid(1_000_000) as i32,
                )?;
                let name_ptr = name.as_ref().map_or(std::ptr::null_mut(), Owned::as_ptr);
                ffi::new_fixed_timezone(known, delta.as_ptr(), name_ptr)
                    .map_err(|c| refused(tag, c, start))
            }
        }
        Zone::Key(key) => {
            let unknown = |why: &str| bad(tag, format!("unknown zone key {key:?} ({why})"), start);
            if let Some(why) = unknown_zones::refused(key.as_bytes()) {
                return Err(unknown(&why));
            }
            // SAFETY: attached; the key is ASCII; `ZoneInfo` is held by the handles.
            unsafe {
                let key_str = ffi::new_ascii_str(key.as_bytes())
                    .ok_or_else(|| DeError::python(ffi::fetch_error()))?;
                ffi::call1(exact.handles.zoneinfo, key_str.as_ptr()).map_err(|cause| {
                    // A key zoneinfo does not have (`ZoneInfoNotFoundError` is a `KeyError`) or
                    // refuses as a key is remembered; another failure (out of memory) is not.
                    // SAFETY: the decoder runs attached.
                    let py = pyo3::Python::assume_attached();
                    let remembered = cause.is_instance_of::<pyo3::exceptions::PyKeyError>(py)
                        || cause.is_instance_of::<pyo3::exceptions::PyValueError>(py);
                    let why = cause_text(cause);
                    if remembered {
                        unknown_zones::remember(key.as_bytes(), &why);
                    }
                    unknown(&why)
                })
            }
        }
        // SAFETY: attached; the UTC singleton lives as long as the interpreter.
        Zone::Utc => Ok(unsafe { Owned::from_borrowed(known.utc) }),
        // SAFETY: attached; `None` lives as long as the interpreter.
        Zone::Naive => Ok(unsafe { Owned::from_borrowed(ffi::none()) }),
    }
}

pub fn datetime(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let tag = code::DATETIME;
    let (d, c, suffix) = DateTime::split(data).map_err(|why| malformed(tag, why, start))?;
    let zone = zone(exact, tag, suffix, start)?;
    // SAFETY: attached; the zone is live or None; the constructor checks every field.
    unsafe {
        ffi::new_datetime_fold(
            exact.known,
            (d.year as i32, d.month as i32, d.day as i32),
            (
                c.hour as i32,
                c.minute as i32,
                c.second as i32,
                c.microsecond.min(i32::MAX as u32) as i32,
            ),
            c.fold as i32,
            zone.as_ref().map(Ref::of),
        )
    }
    .map_err(|c| refused(tag, c, start))
}

pub fn date(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let tag = code::DATE;
    let d = Date::read_raw(data).map_err(|why| malformed(tag, why, start))?;
    // SAFETY: attached; the constructor checks every field.
    unsafe { ffi::new_date(exact.known, d.year as i32, d.month as i32, d.day as i32) }
        .map_err(|c| refused(tag, c, start))
}

pub fn time(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let tag = code::TIME;
    let (c, suffix) = Time::split(data).map_err(|why| malformed(tag, why, start))?;
    let zone = zone(exact, tag, suffix, start)?;
    // SAFETY: attached; the zone is live or None; the constructor checks every field.
    unsafe {
        ffi::new_time_fold(
            exact.known,
            (
                c.hour as i32,
                c.minute as i32,
                c.second as i32,
                c.microsecond.min(i32::MAX as u32) as i32,
            ),
            c.fold as i32,
            zone.as_ref().map(Ref::of),
        )
    }
    .map_err(|c| refused(tag, c, start))
}

pub fn timedelta(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let tag = code::TIMEDELTA;
    let v = TimeDelta::read(data).map_err(|why| malformed(tag, why, start))?;
    // SAFETY: attached; the core checked the range.
    unsafe { ffi::new_timedelta(exact.known, v.days, v.seconds as i32, v.microseconds as i32) }
        .map_err(|c| refused(tag, c, start))
}
