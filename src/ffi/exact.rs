//! What `OPT_EXACT` needs of the C API beyond the other paths: the fold, tzinfo and fields of
//! times and timedeltas, complex numbers, and the types and names it looks up once.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::{fetch_error, Known, Obj, Owned, Ref, TypePtr};

/// Types and names the exact mode uses, looked up once per process.
pub struct ExactHandles {
    pub timedelta: TypePtr,
    pub complex: TypePtr,
    pub uuid_safe_unknown: Obj,
    /// `zoneinfo.ZoneInfo` (imported with the handles: it is small and in the standard library).
    pub zoneinfo: Obj,
    pub names: ExactNames,
    _owned: Vec<Py<PyAny>>,
}

pub struct ExactNames {
    pub key: Obj,
    pub int: Obj,
    pub is_safe: Obj,
}

// SAFETY: every pointer refers to an object kept alive by `_owned` or by the interpreter, and is
// only used while attached.
unsafe impl Send for ExactHandles {}
// SAFETY: as above.
unsafe impl Sync for ExactHandles {}

static HANDLES: super::interp::PerInterp<ExactHandles> = super::interp::PerInterp::new();

impl ExactHandles {
    pub fn get(py: Python<'_>) -> PyResult<&'static ExactHandles> {
        HANDLES.get_or_try_init(py, || {
            let known = Known::get(py)?;
            let mut owned: Vec<Py<PyAny>> = Vec::new();
            let mut keep = |obj: Bound<'_, PyAny>| -> Obj {
                let ptr = obj.as_ptr();
                owned.push(obj.unbind());
                ptr
            };
            let uuid_safe_unknown =
                keep(py.import("uuid")?.getattr("SafeUUID")?.getattr("unknown")?);
            let zoneinfo = keep(py.import("zoneinfo")?.getattr("ZoneInfo")?);
            let mut name = |s: &str| keep(PyString::intern(py, s).into_any());
            let names = ExactNames {
                key: name("key"),
                int: name("int"),
                is_safe: name("is_safe"),
            };
            // SAFETY: the C API is loaded (`Known`); `PyComplex_Type` is a static type.
            let (timedelta, complex) = unsafe {
                (
                    (*known.datetime_api).DeltaType,
                    std::ptr::addr_of_mut!(ffi::PyComplex_Type),
                )
            };
            Ok(ExactHandles {
                timedelta,
                complex,
                uuid_safe_unknown,
                zoneinfo,
                names,
                _owned: owned,
            })
        })
    }
}

/// A datetime's `fold` (0 or 1).
///
/// # Safety
/// `obj` is a live `datetime`.
#[inline]
pub unsafe fn datetime_fold(obj: Obj) -> u8 {
    // SAFETY: `obj` is a live `datetime` (the precondition), so the macro reads its `fold` from the
    // object's fixed layout.
    unsafe { ffi::PyDateTime_DATE_GET_FOLD(obj) as u8 }
}

/// A time's `fold` (0 or 1).
///
/// # Safety
/// `obj` is a live `time`.
#[inline]
pub unsafe fn time_fold(obj: Obj) -> u8 {
    // SAFETY: `obj` is a live `time` (the precondition), so the macro reads its `fold` from the
    // object's fixed layout.
    unsafe { ffi::PyDateTime_TIME_GET_FOLD(obj) as u8 }
}

/// A time's tzinfo (borrowed), `None` when naive.
///
/// # Safety
/// `obj` is a live `time`.
#[inline]
pub unsafe fn time_tzinfo(obj: Obj) -> Option<Obj> {
    // SAFETY: `obj` is a live `time` (the precondition), so the macro reads its tzinfo slot; the
    // result is borrowed from `obj`.
    let tz = unsafe { ffi::PyDateTime_TIME_GET_TZINFO(obj) };
    (tz != super::none()).then_some(tz)
}

/// A timedelta's normalised fields: days, seconds (0..86400), microseconds (0..10**6).
///
/// # Safety
/// `obj` is a live `timedelta`.
#[inline]
pub unsafe fn timedelta_parts(obj: Obj) -> (i32, i32, i32) {
    // SAFETY: `obj` is a live `timedelta` (the precondition), so the macros read its three
    // normalised fields from its fixed layout.
    unsafe {
        (
            ffi::PyDateTime_DELTA_GET_DAYS(obj),
            ffi::PyDateTime_DELTA_GET_SECONDS(obj),
            ffi::PyDateTime_DELTA_GET_MICROSECONDS(obj),
        )
    }
}

/// A complex number's real and imaginary parts.
///
/// # Safety
/// `obj` is a live `complex`; the GIL is held.
#[inline]
pub unsafe fn complex_parts(obj: Obj) -> (f64, f64) {
    // SAFETY: `obj` is a live `complex` and the GIL is held (the precondition); on a complex
    // neither call runs `__complex__` nor fails.
    unsafe {
        (
            ffi::PyComplex_RealAsDouble(obj),
            ffi::PyComplex_ImagAsDouble(obj),
        )
    }
}

/// A new `complex`.
///
/// # Safety
/// The GIL is held.
pub unsafe fn new_complex(real: f64, imag: f64) -> Result<Owned, PyErr> {
    // SAFETY: the GIL is held (the precondition); the constructor returns a new reference, or null
    // with an error set.
    unsafe { Owned::from_new(ffi::PyComplex_FromDoubles(real, imag)).ok_or_else(fetch_error) }
}

/// A new `datetime` with its `fold`; `ValueError` for a field out of range.
///
/// # Safety
/// The GIL is held; `tz` is a tzinfo, or `None` for a naive datetime.
pub unsafe fn new_datetime_fold(
    known: &Known,
    date: (i32, i32, i32),
    time: (i32, i32, i32, i32),
    fold: i32,
    tz: Option<Ref<'_>>,
) -> Result<Owned, PyErr> {
    let tz = tz.map_or(super::none(), Ref::as_ptr);
    // SAFETY: the C API is loaded; the constructor validates every field.
    unsafe {
        let api = &*known.datetime_api;
        Owned::from_new((api.DateTime_FromDateAndTimeAndFold)(
            date.0,
            date.1,
            date.2,
            time.0,
            time.1,
            time.2,
            time.3,
            tz,
            fold,
            known.datetime,
        ))
        .ok_or_else(fetch_error)
    }
}

/// A new `time` with its `fold`; `ValueError` for a field out of range.
///
/// # Safety
/// The GIL is held; `tz` is a tzinfo, or `None` for a naive time.
pub unsafe fn new_time_fold(
    known: &Known,
    time: (i32, i32, i32, i32),
    fold: i32,
    tz: Option<Ref<'_>>,
) -> Result<Owned, PyErr> {
    let tz = tz.map_or(super::none(), Ref::as_ptr);
    // SAFETY: as above.
    unsafe {
        let api = &*known.datetime_api;
        Owned::from_new((api.Time_FromTimeAndFold)(
            time.0, time.1, time.2, time.3, tz, fold, known.time,
        ))
        .ok_or_else(fetch_error)
    }
}

/// A new `timedelta`; `OverflowError` beyond its range.
///
/// # Safety
/// The GIL is held.
pub unsafe fn new_timedelta(
    known: &Known,
    days: i32,
    seconds: i32,
    micros: i32,
) -> Result<Owned, PyErr> {
    // SAFETY: as above; `normalize` makes the constructor check the range.
    unsafe {
        let api = &*known.datetime_api;
        Owned::from_new((api.Delta_FromDelta)(
            days,
            seconds,
            micros,
            1,
            api.DeltaType,
        ))
        .ok_or_else(fetch_error)
    }
}

/// A new `datetime.timezone` of `offset` (a timedelta) and `name` (a str, or null for none).
///
/// # Safety
/// The GIL is held; `offset` is a live timedelta, `name` null or a live str.
pub unsafe fn new_fixed_timezone(known: &Known, offset: Obj, name: Obj) -> Result<Owned, PyErr> {
    // SAFETY: as above; the constructor checks the offset's range.
    unsafe {
        let api = &*known.datetime_api;
        Owned::from_new((api.TimeZone_FromTimeZone)(offset, name)).ok_or_else(fetch_error)
    }
}
