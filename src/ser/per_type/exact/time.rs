//! `datetime`, `date`, `time` and `timedelta`: their fields, and the time zone of a `datetime` or
//! `time` as a suffix ([`crate::exact::tz`]): none when naive, UTC, a fixed offset (with its
//! name, if it was given one) or a `ZoneInfo` key.

use std::cell::Cell;

use pyo3::prelude::*;

use crate::emit::Emitter;
use crate::error::{Error, Res};
use crate::exact::{self as code, tz};
use crate::exc::MsgpackEncodeError;
use crate::ffi::{self, Owned, Ref};
use crate::ser::{error, Ctx};

/// The last time zone met in a call and its suffix (the datetimes of one call usually share
/// one). The zone is held, so its address cannot be reused by another object meanwhile.
#[derive(Default)]
pub struct TzCache(Cell<Option<(Owned, Vec<u8>)>>);

#[cold]
fn refused(msg: String) -> Error {
    Error::new(
        crate::error::Kind::InvalidValue,
        MsgpackEncodeError::new_err(msg),
    )
}

/// # Safety
/// `obj` is a live datetime; the GIL is held.
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
    let mut head = [0u8; 12];
    head[..2].copy_from_slice(&(c.year as u16).to_be_bytes());
    head[2..8].copy_from_slice(&[
        c.month as u8,
        c.day as u8,
        c.hour as u8,
        c.minute as u8,
        c.second as u8,
        fold,
    ]);
    head[8..].copy_from_slice(&c.microsecond.to_be_bytes());
    with_tz(code::DATETIME, &head, tz, cx, e)
}

/// # Safety
/// `obj` is a live date.
pub unsafe fn write_date<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live date (this function's precondition), as `date_fields` needs.
    let c = unsafe { ffi::date_fields(obj.as_ptr()) };
    let [y0, y1] = (c.year as u16).to_be_bytes();
    e.ext(code::DATE, &[y0, y1, c.month as u8, c.day as u8])
}

/// # Safety
/// `obj` is a live time; the GIL is held.
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
    let mut head = [0u8; 8];
    head[..4].copy_from_slice(&[c.hour as u8, c.minute as u8, c.second as u8, fold]);
    head[4..].copy_from_slice(&c.microsecond.to_be_bytes());
    with_tz(code::TIME, &head, tz, cx, e)
}

/// # Safety
/// `obj` is a live timedelta.
pub unsafe fn write_timedelta<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: `obj` is a live timedelta (this function's precondition), as `timedelta_parts` needs.
    let (days, secs, micros) = unsafe { ffi::timedelta_parts(obj.as_ptr()) };
    let mut out = [0u8; 12];
    out[..4].copy_from_slice(&days.to_be_bytes());
    out[4..8].copy_from_slice(&(secs as u32).to_be_bytes());
    out[8..].copy_from_slice(&(micros as u32).to_be_bytes());
    e.ext(code::TIMEDELTA, &out)
}

/// The extension `tag` of the fields `head` followed by the suffix of `tz`.
fn with_tz<E: Emitter>(tag: i8, head: &[u8], tz: Option<Ref<'_>>, cx: &Ctx, e: &mut E) -> Res {
    let Some(tz) = tz else {
        return e.ext(tag, head);
    };
    let mut small = [0u8; 32];
    small[..head.len()].copy_from_slice(head);
    if tz.as_ptr() == cx.known.utc {
        small[head.len()] = tz::UTC;
        return e.ext(tag, &small[..head.len() + 1]);
    }
    let Some(x) = cx.exact.as_deref() else {
        return Err(refused("OPT_EXACT handles are not loaded".to_owned()));
    };
    let cached = x.tz_cache.0.take();
    let suffix = match cached {
        Some((held, suffix)) if held.as_ptr() == tz.as_ptr() => {
            let r = write_joined(tag, head, &suffix, e);
            x.tz_cache.0.set(Some((held, suffix)));
            return r;
        }
        _ => tz_suffix(tz, cx)?,
    };
    let r = write_joined(tag, head, &suffix, e);
    x.tz_cache.0.set(Some((tz.hold(), suffix)));
    r
}

fn write_joined<E: Emitter>(tag: i8, head: &[u8], suffix: &[u8], e: &mut E) -> Res {
    let mut out = Vec::with_capacity(head.len() + suffix.len());
    out.extend_from_slice(head);
    out.extend_from_slice(suffix);
    e.ext(tag, &out)
}

/// The suffix of a time zone other than UTC.
#[cold]
fn tz_suffix(tz: Ref<'_>, cx: &Ctx) -> Res<Vec<u8>> {
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
        let micros = unsafe { ffi::timedelta_micros(offset.as_ptr()) };
        let name = args.get_item(1).ok();
        let mut out = Vec::with_capacity(16);
        out.push(if name.is_some() {
            tz::FIXED_NAMED
        } else {
            tz::FIXED
        });
        out.extend_from_slice(&micros.to_be_bytes());
        if let Some(name) = name {
            let name: String = name
                .extract()
                .map_err(|c| error::attribute_failed("timezone name is not a str", c))?;
            out.extend_from_slice(name.as_bytes());
        }
        return Ok(out);
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
        let Some(utf8) = utf8.filter(|k| code::valid_zone_key(k)) else {
            return Err(refused(
                "OPT_EXACT keeps a ZoneInfo by its key, and this one has none that names a zone \
                 (made with ZoneInfo.from_file?)"
                    .to_owned(),
            ));
        };
        let mut out = Vec::with_capacity(1 + utf8.len());
        out.push(tz::ZONE);
        out.extend_from_slice(utf8);
        return Ok(out);
    }
    let name = tz.type_name();
    Err(refused(format!(
        "OPT_EXACT keeps a tzinfo only when it is a datetime.timezone or a zoneinfo.ZoneInfo, not \
         {name}: convert it first (dt.astimezone(zoneinfo.ZoneInfo(key)))"
    )))
}
