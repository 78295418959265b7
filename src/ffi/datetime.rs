//! Reading `datetime`, `date`, `time` and `timedelta` objects, and making aware datetimes.

use pyo3::ffi;

use super::{Known, Obj, Owned};

/// The fields of a `date`, `datetime` or `time` (date fields are zero for a `time`).
#[derive(Default, Clone, Copy)]
pub struct Civil {
    pub year: u32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub microsecond: u32,
}

/// # Safety
/// `obj` is a live `datetime` (or subclass).
#[inline]
pub unsafe fn datetime_fields(obj: Obj) -> Civil {
    // SAFETY: `obj` is a live `datetime` (this function's precondition), so its date and time
    // fields are initialised; the macros read them from the object's fixed layout.
    unsafe {
        Civil {
            year: ffi::PyDateTime_GET_YEAR(obj) as u32,
            month: ffi::PyDateTime_GET_MONTH(obj) as u32,
            day: ffi::PyDateTime_GET_DAY(obj) as u32,
            hour: ffi::PyDateTime_DATE_GET_HOUR(obj) as u32,
            minute: ffi::PyDateTime_DATE_GET_MINUTE(obj) as u32,
            second: ffi::PyDateTime_DATE_GET_SECOND(obj) as u32,
            microsecond: ffi::PyDateTime_DATE_GET_MICROSECOND(obj) as u32,
        }
    }
}

/// # Safety
/// `obj` is a live `date` (or subclass, including `datetime`).
#[inline]
pub unsafe fn date_fields(obj: Obj) -> Civil {
    // SAFETY: `obj` is a live `date` or subclass (the precondition): its year, month and day sit at
    // the same place in every such object, where the macros read them.
    unsafe {
        Civil {
            year: ffi::PyDateTime_GET_YEAR(obj) as u32,
            month: ffi::PyDateTime_GET_MONTH(obj) as u32,
            day: ffi::PyDateTime_GET_DAY(obj) as u32,
            ..Civil::default()
        }
    }
}

/// # Safety
/// `obj` is a live `time` (or subclass).
#[inline]
pub unsafe fn time_fields(obj: Obj) -> Civil {
    // SAFETY: `obj` is a live `time` (the precondition): the macros read its fields from the fixed
    // layout of a `time`.
    unsafe {
        Civil {
            hour: ffi::PyDateTime_TIME_GET_HOUR(obj) as u32,
            minute: ffi::PyDateTime_TIME_GET_MINUTE(obj) as u32,
            second: ffi::PyDateTime_TIME_GET_SECOND(obj) as u32,
            microsecond: ffi::PyDateTime_TIME_GET_MICROSECOND(obj) as u32,
            ..Civil::default()
        }
    }
}

/// The tzinfo of a `datetime`, or `None` for a naive one (borrowed).
///
/// # Safety
/// `obj` is a live `datetime` (or subclass).
#[inline]
pub unsafe fn datetime_tzinfo(obj: Obj) -> Option<Obj> {
    // SAFETY: `obj` is a live `datetime` (the precondition), so the macro reads its tzinfo slot;
    // the result is borrowed from `obj`, `Py_None` when naive, and only compared here.
    let tz = unsafe { ffi::PyDateTime_DATE_GET_TZINFO(obj) };
    (tz != super::none()).then_some(tz)
}

/// Whether a `time` carries a tzinfo.
///
/// # Safety
/// `obj` is a live `time` (or subclass).
#[inline]
pub unsafe fn time_has_tzinfo(obj: Obj) -> bool {
    // SAFETY: `obj` is a live `time` (the precondition); the macro reads its tzinfo slot, a
    // borrowed reference compared only by address.
    unsafe { ffi::PyDateTime_TIME_GET_TZINFO(obj) != super::none() }
}

/// A `timedelta` in microseconds. One beyond what 64 bits count (more than about 292,000 years)
/// is clamped to `±i64::MAX`: far out of any range the callers accept, and never wrapped around
/// into one they do.
///
/// # Safety
/// `obj` is a live `timedelta`.
#[inline]
pub unsafe fn timedelta_micros(obj: Obj) -> i64 {
    // SAFETY: `obj` is a live `timedelta` (the precondition), so the macros read its three
    // normalised fields from its fixed layout.
    let (days, seconds, micros) = unsafe {
        (
            ffi::PyDateTime_DELTA_GET_DAYS(obj) as i64,
            ffi::PyDateTime_DELTA_GET_SECONDS(obj) as i64,
            ffi::PyDateTime_DELTA_GET_MICROSECONDS(obj) as i64,
        )
    };
    // |days| < 10**9, so the seconds fit; the microseconds may not.
    (days * 86_400 + seconds)
        .saturating_mul(1_000_000)
        .saturating_add(micros)
        .max(-i64::MAX)
}

/// Whether `obj` is a `timedelta` (of this interpreter's datetime module, as `known` has it).
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline]
pub unsafe fn is_timedelta(known: &Known, obj: Obj) -> bool {
    // SAFETY: `datetime_api` is this interpreter's loaded C API (`Known`), whose `DeltaType` is
    // a live type; `obj` is live (the precondition).
    unsafe { ffi::PyObject_TypeCheck(obj, (*known.datetime_api).DeltaType) != 0 }
}

/// A new aware `datetime` in UTC.
///
/// # Safety
/// The GIL is held, and the fields are a valid date and time.
pub unsafe fn new_utc_datetime(known: &Known, c: Civil) -> Option<Owned> {
    // SAFETY: `datetime_api` is the loaded C API; the constructor validates its arguments.
    unsafe {
        let api = &*known.datetime_api;
        Owned::from_new((api.DateTime_FromDateAndTime)(
            c.year as i32,
            c.month as i32,
            c.day as i32,
            c.hour as i32,
            c.minute as i32,
            c.second as i32,
            c.microsecond as i32,
            known.utc,
            known.datetime,
        ))
    }
}
