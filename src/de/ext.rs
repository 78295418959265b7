//! Extension values: handed to `ext_hook(tag, data)`, or kept as [`Ext`].

use pyo3::prelude::*;

use super::error::DeError;
use super::error::Kind;
use crate::ext::Ext;
use crate::ffi::{self, Civil, Known, Owned, Ref};
use fastmsgpack_core::calendar::{civil_from_days, MAX_SECS, MIN_SECS};

/// The extension type MessagePack reserves for timestamps.
const TIMESTAMP_TAG: i8 = -1;

pub fn build(
    py: Python<'_>,
    tag: i8,
    data: &[u8],
    ext_hook: Option<Ref<'_>>,
    timestamps: Option<&Known>,
    start: usize,
) -> Result<Owned, DeError> {
    if tag == TIMESTAMP_TAG {
        if let Some(known) = timestamps {
            return timestamp(known, data, start);
        }
    }
    let Some(hook) = ext_hook else {
        let ext = Ext::from_parts(py, tag, data)?;
        // SAFETY: `into_ptr` hands over a strong reference to a live object.
        return unsafe { Owned::from_new(ext.into_any().into_ptr()) }
            .ok_or_else(|| DeError::python(ffi::fetch_error()));
    };
    // SAFETY: attached (`py`); `hook` is live (`Ref`'s invariant: the decoder's set-up holds
    // it) and the two arguments are strong references held here.
    unsafe {
        let tag = ffi::new_i64(tag as i64).ok_or_else(ffi::fetch_error)?;
        let data = ffi::new_bytes(data).ok_or_else(ffi::fetch_error)?;
        ffi::call2(hook.as_ptr(), tag.as_ptr(), data.as_ptr())
            .map_err(|cause| DeError::callback("ext_hook raised an exception", start, cause))
    }
}

/// A timestamp extension (`OPT_DATETIME_AS_TIMESTAMP_EXT`) as an aware UTC datetime; nanoseconds
/// are truncated to microseconds.
pub(super) fn timestamp(known: &Known, data: &[u8], start: usize) -> Result<Owned, DeError> {
    let (secs, nanos) = fastmsgpack_core::token::timestamp(data)
        .map_err(|why| DeError::input(Kind::BadTimestamp(why), start))?;
    if !(MIN_SECS..=MAX_SECS).contains(&secs) {
        return Err(DeError::input(
            Kind::BadTimestamp("outside the range of datetime (years 1 to 9999)"),
            start,
        ));
    }
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let in_day = secs.rem_euclid(86_400) as u32;
    let civil = Civil {
        year: year as u32,
        month,
        day,
        hour: in_day / 3600,
        minute: in_day % 3600 / 60,
        second: in_day % 60,
        microsecond: nanos / 1000,
    };
    // SAFETY: attached (the decoder runs with the GIL); the fields are a valid date and time.
    unsafe { ffi::new_utc_datetime(known, civil) }
        .ok_or_else(|| DeError::python(ffi::fetch_error()))
}
