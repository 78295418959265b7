//! `datetime`, `date`, `time` and `timedelta` from their fields and time zone suffix.

use super::{bad, cause_text, refused, unknown_zones, Exact};
use crate::de::error::DeError;
use crate::de::reader::DeResult;
use crate::exact::{self as code, tz};
use crate::ffi::{self, Owned, Ref};

/// The time zone of `suffix`: `None` (naive) when it is empty.
fn zone(exact: &Exact, tag: i8, suffix: &[u8], start: usize) -> DeResult<Option<Owned>> {
    match suffix.first() {
        None => return Ok(None),
        Some(&tz::UTC) if suffix.len() == 1 => {
            // SAFETY: the decoder runs attached, and the UTC singleton `known.utc` lives as long
            // as the interpreter, so it is live to take a new reference to.
            let utc = unsafe { Owned::from_borrowed(exact.known.utc) };
            return Ok(Some(utc));
        }
        _ => {}
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
    let made = new_zone(exact, tag, suffix, start)?;
    if let Some(zone) = &made {
        // SAFETY: attached; `zone` is live.
        let held = unsafe { Owned::from_borrowed(zone.as_ptr()) };
        exact.last_zone.set(Some((suffix.to_vec(), held)));
    }
    // The replaced zone (if any) is released here: a timezone or a ZoneInfo, whose release runs
    // no code of the data's choosing.
    drop(last);
    Ok(made)
}

/// The time zone of a non-empty `suffix`, made anew.
#[cold]
fn new_zone(exact: &Exact, tag: i8, suffix: &[u8], start: usize) -> DeResult<Option<Owned>> {
    let Some((&kind, rest)) = suffix.split_first() else {
        return Ok(None);
    };
    let known = exact.known;
    match kind {
        tz::UTC if rest.is_empty() => {
            // SAFETY: attached; the UTC singleton lives as long as the interpreter.
            Ok(Some(unsafe { Owned::from_borrowed(known.utc) }))
        }
        tz::FIXED | tz::FIXED_NAMED if rest.len() >= 8 => {
            let (offset, name) = rest.split_at(8);
            if kind == tz::FIXED && !name.is_empty() {
                return Err(bad(tag, "unnamed fixed offset with trailing bytes", start));
            }
            let micros = i64::from_be_bytes(offset.try_into().unwrap_or_default());
            if micros.abs() >= 86_400_000_000 {
                return Err(bad(
                    tag,
                    format!("UTC offset of {micros} microseconds is not below a day"),
                    start,
                ));
            }
            let name = match kind {
                tz::FIXED_NAMED => {
                    let Ok(text) = std::str::from_utf8(name) else {
                        return Err(bad(tag, "time zone name is not UTF-8", start));
                    };
                    // SAFETY: attached; valid UTF-8.
                    Some(
                        unsafe { ffi::new_str(text.as_bytes()) }
                            .ok_or_else(|| DeError::python(ffi::fetch_error()))?,
                    )
                }
                _ => None,
            };
            // SAFETY: attached; the seconds fit an i32 (below a day).
            unsafe {
                let delta = ffi::new_timedelta(
                    known,
                    0,
                    micros.div_euclid(1_000_000) as i32,
                    micros.rem_euclid(1_000_000) as i32,
                )?;
                let name_ptr = name.as_ref().map_or(std::ptr::null_mut(), Owned::as_ptr);
                Ok(Some(
                    ffi::new_fixed_timezone(known, delta.as_ptr(), name_ptr)
                        .map_err(|c| refused(tag, c, start))?,
                ))
            }
        }
        tz::ZONE => {
            if !code::valid_zone_key(rest) {
                return Err(bad(
                    tag,
                    format!("bad zone key {:?}", String::from_utf8_lossy(rest)),
                    start,
                ));
            }
            let unknown = |why: &str| {
                let key = String::from_utf8_lossy(rest);
                bad(tag, format!("unknown zone key {key:?} ({why})"), start)
            };
            if let Some(why) = unknown_zones::refused(rest) {
                return Err(unknown(&why));
            }
            // SAFETY: attached; the key is ASCII; `ZoneInfo` is held by the handles.
            unsafe {
                let key =
                    ffi::new_ascii_str(rest).ok_or_else(|| DeError::python(ffi::fetch_error()))?;
                let zone = ffi::call1(exact.handles.zoneinfo, key.as_ptr()).map_err(|cause| {
                    // A key zoneinfo does not have (`ZoneInfoNotFoundError` is a `KeyError`) or
                    // refuses as a key is remembered; another failure (out of memory) is not.
                    // SAFETY: the decoder runs attached.
                    let py = pyo3::Python::assume_attached();
                    let remembered = cause.is_instance_of::<pyo3::exceptions::PyKeyError>(py)
                        || cause.is_instance_of::<pyo3::exceptions::PyValueError>(py);
                    let why = cause_text(cause);
                    if remembered {
                        unknown_zones::remember(rest, &why);
                    }
                    unknown(&why)
                })?;
                Ok(Some(zone))
            }
        }
        _ => Err(bad(tag, format!("unknown time zone form {kind}"), start)),
    }
}

fn fold(tag: i8, b: u8, start: usize) -> DeResult<i32> {
    match b {
        0 | 1 => Ok(b as i32),
        _ => Err(bad(tag, format!("fold must be 0 or 1, not {b}"), start)),
    }
}

pub fn datetime(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let tag = code::DATETIME;
    if data.len() < 12 {
        return Err(bad(
            tag,
            format!(
                "payload truncated: {} bytes, at least 12 needed",
                data.len()
            ),
            start,
        ));
    }
    let year = u16::from_be_bytes([data[0], data[1]]) as i32;
    let micro = u32::from_be_bytes([data[8], data[9], data[10], data[11]]);
    let fold = fold(tag, data[7], start)?;
    let zone = zone(exact, tag, &data[12..], start)?;
    // SAFETY: attached; the zone is live or None; the constructor checks every field.
    unsafe {
        ffi::new_datetime_fold(
            exact.known,
            (year, data[2] as i32, data[3] as i32),
            (
                data[4] as i32,
                data[5] as i32,
                data[6] as i32,
                micro.min(i32::MAX as u32) as i32,
            ),
            fold,
            zone.as_ref().map(Ref::of),
        )
    }
    .map_err(|c| refused(tag, c, start))
}

pub fn date(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let tag = code::DATE;
    let [y0, y1, month, day] = *data else {
        return Err(bad(
            tag,
            format!("payload must be 4 bytes, not {}", data.len()),
            start,
        ));
    };
    // SAFETY: attached; the constructor checks every field.
    unsafe {
        ffi::new_date(
            exact.known,
            u16::from_be_bytes([y0, y1]) as i32,
            month as i32,
            day as i32,
        )
    }
    .map_err(|c| refused(tag, c, start))
}

pub fn time(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let tag = code::TIME;
    if data.len() < 8 {
        return Err(bad(
            tag,
            format!("payload truncated: {} bytes, at least 8 needed", data.len()),
            start,
        ));
    }
    let micro = u32::from_be_bytes([data[4], data[5], data[6], data[7]]);
    let fold = fold(tag, data[3], start)?;
    let zone = zone(exact, tag, &data[8..], start)?;
    // SAFETY: attached; the zone is live or None; the constructor checks every field.
    unsafe {
        ffi::new_time_fold(
            exact.known,
            (
                data[0] as i32,
                data[1] as i32,
                data[2] as i32,
                micro.min(i32::MAX as u32) as i32,
            ),
            fold,
            zone.as_ref().map(Ref::of),
        )
    }
    .map_err(|c| refused(tag, c, start))
}

pub fn timedelta(exact: &Exact, data: &[u8], start: usize) -> DeResult<Owned> {
    let tag = code::TIMEDELTA;
    let Ok(raw) = <[u8; 12]>::try_from(data) else {
        return Err(bad(
            tag,
            format!("payload must be 12 bytes, not {}", data.len()),
            start,
        ));
    };
    let days = i32::from_be_bytes([raw[0], raw[1], raw[2], raw[3]]);
    let secs = u32::from_be_bytes([raw[4], raw[5], raw[6], raw[7]]);
    let micros = u32::from_be_bytes([raw[8], raw[9], raw[10], raw[11]]);
    if secs >= 86_400 || micros >= 1_000_000 {
        return Err(bad(
            tag,
            "seconds must be below 86400 and microseconds below 10**6",
            start,
        ));
    }
    if !(-999_999_999..=999_999_999).contains(&days) {
        return Err(bad(
            tag,
            format!("{days} days is outside timedelta's range"),
            start,
        ));
    }
    // SAFETY: attached; the constructor checks the range.
    unsafe { ffi::new_timedelta(exact.known, days, secs as i32, micros as i32) }
        .map_err(|c| refused(tag, c, start))
}
