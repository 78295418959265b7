//! What typed decoding (`unpackb(type=...)`) needs of the C API beyond the untyped decoder:
//! instances made without `__init__`, attributes set directly, calls with positional and keyword
//! arguments, sets, bytearrays, and dates, times and time zones.

use std::os::raw::c_char;

use pyo3::ffi;
use pyo3::PyErr;

use super::{fetch_error, Known, Obj, Owned, Ref};

/// `object.__new__(cls)`: an instance of `cls` whose `__init__` has not run.
///
/// # Safety
/// `cls` is a live type whose `__new__` is `object.__new__`, and the GIL is held.
pub unsafe fn object_new(cls: Obj) -> Result<Owned, PyErr> {
    // SAFETY: `cls` is a live type whose `__new__` is `object.__new__` (the precondition, checked
    // in debug builds), so calling its `tp_new` with the shared empty tuple and no keywords is
    // `object.__new__(cls)`; the GIL is held.
    unsafe {
        debug_assert!(ffi::PyType_Check(cls) != 0);
        let empty = Owned::from_new(ffi::PyTuple_New(0)).ok_or_else(fetch_error)?;
        let Some(new) = (*std::ptr::addr_of_mut!(ffi::PyBaseObject_Type)).tp_new else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "object has no __new__",
            ));
        };
        Owned::from_new(new(cls.cast(), empty.as_ptr(), std::ptr::null_mut()))
            .ok_or_else(fetch_error)
    }
}

/// `object.__setattr__(obj, name, value)`: bypasses a class's own `__setattr__` (a frozen
/// dataclass, `UUID`), as their constructors do.
///
/// # Safety
/// All three are live, `name` is a str, and the GIL is held.
#[inline]
pub unsafe fn set_attr_direct(obj: Obj, name: Obj, value: Obj) -> Result<(), PyErr> {
    // SAFETY: `obj`, `name` (a str) and `value` are live and the GIL is held (the precondition),
    // all that `PyObject_GenericSetAttr` needs; it takes its own reference to `value`.
    unsafe {
        if ffi::PyObject_GenericSetAttr(obj, name, value) == 0 {
            Ok(())
        } else {
            Err(fetch_error())
        }
    }
}

/// `func(*args, **dict(zip(kwnames, args[len(args) - len(kwnames):])))`.
///
/// # Safety
/// Every argument stays alive for the whole call, which runs Python code: each is held by a
/// strong reference of the caller's, not only by a container that code could change.
/// `kwnames` is a tuple of str no longer than `args`.
pub unsafe fn vectorcall(
    func: Ref<'_>,
    args: &[Ref<'_>],
    kwnames: Option<Ref<'_>>,
) -> Result<Owned, PyErr> {
    let kwnames = kwnames.map_or(std::ptr::null_mut(), Ref::as_ptr);
    // SAFETY: `func`, every arg and `kwnames` are live and the thread attached (`Ref`'s
    // invariant), and the arguments stay alive through the call (the precondition); `kwnames`
    // is a tuple no longer than `args` (the precondition), so `positional` is within `args`.
    // `Ref` is a transparent non-null object pointer, so `args` is the `PyObject *const *`
    // vectorcall borrows for the call.
    unsafe {
        let positional = if kwnames.is_null() {
            args.len()
        } else {
            args.len() - ffi::PyTuple_GET_SIZE(kwnames) as usize
        };
        Owned::from_new(ffi::PyObject_Vectorcall(
            func.as_ptr(),
            args.as_ptr().cast::<Obj>(),
            positional,
            kwnames,
        ))
        .ok_or_else(fetch_error)
    }
}

/// `func()`.
///
/// # Safety
/// `func` is live and the GIL is held.
#[inline]
pub unsafe fn call0(func: Obj) -> Result<Owned, PyErr> {
    // SAFETY: `func` is live and the GIL is held (the precondition); the call returns a new
    // reference, or null with an error set.
    unsafe { Owned::from_new(ffi::PyObject_CallNoArgs(func)).ok_or_else(fetch_error) }
}

/// A new empty `set`, or `frozenset` when `frozen`.
///
/// # Safety
/// The GIL is held.
pub unsafe fn new_set(frozen: bool) -> Result<Owned, PyErr> {
    // SAFETY: the GIL is held; a null iterable makes an empty set.
    unsafe {
        let set = if frozen {
            ffi::PyFrozenSet_New(std::ptr::null_mut())
        } else {
            ffi::PySet_New(std::ptr::null_mut())
        };
        Owned::from_new(set).ok_or_else(fetch_error)
    }
}

/// Adds `item` to a set (or to a frozenset nobody else has seen yet).
///
/// # Safety
/// Both are live, `set` was made by [`new_set`] and not yet shared, and the GIL is held.
#[inline]
pub unsafe fn set_add(set: &Owned, item: &Owned) -> Result<(), PyErr> {
    // SAFETY: both are live, the GIL is held, and `set` was made by `new_set` and not yet shared
    // (the precondition), so adding to it, even to a frozenset, changes nothing another piece of
    // code has seen.
    unsafe {
        if ffi::PySet_Add(set.as_ptr(), item.as_ptr()) == 0 {
            Ok(())
        } else {
            Err(fetch_error())
        }
    }
}

/// A new `bytearray` holding a copy of `data`.
///
/// # Safety
/// The GIL is held.
pub unsafe fn new_bytearray(data: &[u8]) -> Option<Owned> {
    // SAFETY: copies `data.len()` bytes from a valid slice.
    unsafe {
        Owned::from_new(ffi::PyByteArray_FromStringAndSize(
            data.as_ptr() as *const c_char,
            data.len() as ffi::Py_ssize_t,
        ))
    }
}

/// A new int from 128 bits.
///
/// # Safety
/// The GIL is held.
pub unsafe fn new_u128(v: u128) -> Option<Owned> {
    // SAFETY: the GIL is held.
    unsafe {
        if v >> 64 == 0 {
            return Owned::from_new(ffi::PyLong_FromUnsignedLongLong(v as u64));
        }
        let high = Owned::from_new(ffi::PyLong_FromUnsignedLongLong((v >> 64) as u64))?;
        let shift = Owned::from_new(ffi::PyLong_FromLong(64))?;
        let shifted = Owned::from_new(ffi::PyNumber_Lshift(high.as_ptr(), shift.as_ptr()))?;
        let low = Owned::from_new(ffi::PyLong_FromUnsignedLongLong(v as u64))?;
        Owned::from_new(ffi::PyNumber_Or(shifted.as_ptr(), low.as_ptr()))
    }
}

/// `isinstance(obj, cls)`.
///
/// # Safety
/// Both are live and the GIL is held.
pub unsafe fn is_instance(obj: Obj, cls: Obj) -> Result<bool, PyErr> {
    // SAFETY: both are live and the GIL is held (the precondition); `PyObject_IsInstance` returns
    // -1 with an error set when `__instancecheck__` fails.
    match unsafe { ffi::PyObject_IsInstance(obj, cls) } {
        1 => Ok(true),
        0 => Ok(false),
        _ => Err(fetch_error()),
    }
}

/// Whether `obj` is a class (`type` or a subclass of it).
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline]
pub unsafe fn is_type(obj: Obj) -> bool {
    // SAFETY: `obj` is live (the precondition), so its type's flags can be read.
    unsafe { ffi::PyType_Check(obj) != 0 }
}

/// A `datetime.timezone` of `seconds` east of UTC (`known.utc` for 0).
///
/// # Safety
/// The GIL is held; `|seconds|` is below a day.
pub unsafe fn new_timezone(known: &Known, seconds: i32) -> Result<Owned, PyErr> {
    // SAFETY: `datetime_api` is the loaded C API; the constructors check their arguments.
    unsafe {
        if seconds == 0 {
            return Ok(Owned::from_borrowed(known.utc));
        }
        let api = &*known.datetime_api;
        let delta = Owned::from_new((api.Delta_FromDelta)(0, seconds, 0, 1, api.DeltaType))
            .ok_or_else(fetch_error)?;
        Owned::from_new((api.TimeZone_FromTimeZone)(
            delta.as_ptr(),
            std::ptr::null_mut(),
        ))
        .ok_or_else(fetch_error)
    }
}

/// A new `datetime` (naive when `tz` is null); `ValueError` for a field out of range.
///
/// # Safety
/// The GIL is held; `tz` is null or a live tzinfo.
#[allow(clippy::too_many_arguments)]
pub unsafe fn new_datetime(
    known: &Known,
    date: (i32, i32, i32),
    time: (i32, i32, i32, i32),
    tz: Obj,
) -> Result<Owned, PyErr> {
    // SAFETY: as above; the constructor validates every field.
    unsafe {
        let api = &*known.datetime_api;
        let tz = if tz.is_null() { ffi::Py_None() } else { tz };
        Owned::from_new((api.DateTime_FromDateAndTime)(
            date.0,
            date.1,
            date.2,
            time.0,
            time.1,
            time.2,
            time.3,
            tz,
            known.datetime,
        ))
        .ok_or_else(fetch_error)
    }
}

/// A new `date`; `ValueError` for a field out of range.
///
/// # Safety
/// The GIL is held.
pub unsafe fn new_date(known: &Known, year: i32, month: i32, day: i32) -> Result<Owned, PyErr> {
    // SAFETY: as above.
    unsafe {
        let api = &*known.datetime_api;
        Owned::from_new((api.Date_FromDate)(year, month, day, known.date)).ok_or_else(fetch_error)
    }
}

/// A new `time` (naive when `tz` is null); `ValueError` for a field out of range.
///
/// # Safety
/// The GIL is held; `tz` is null or a live tzinfo.
pub unsafe fn new_time(known: &Known, time: (i32, i32, i32, i32), tz: Obj) -> Result<Owned, PyErr> {
    // SAFETY: as above.
    unsafe {
        let api = &*known.datetime_api;
        let tz = if tz.is_null() { ffi::Py_None() } else { tz };
        Owned::from_new((api.Time_FromTime)(
            time.0, time.1, time.2, time.3, tz, known.time,
        ))
        .ok_or_else(fetch_error)
    }
}

/// `repr(obj)` as Rust text, for error messages (`"?"` when repr itself fails).
///
/// # Safety
/// `obj` is live and the GIL is held.
#[cold]
pub unsafe fn repr_string(obj: Obj) -> String {
    // SAFETY: `obj` is live and the GIL is held (the precondition); the repr is a new reference
    // owned here, and the error of a failed repr is cleared.
    unsafe {
        let Some(text) = Owned::from_new(ffi::PyObject_Repr(obj)) else {
            ffi::PyErr_Clear();
            return "?".to_owned();
        };
        match super::str_utf8(text.as_ptr()) {
            Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            None => {
                ffi::PyErr_Clear();
                "?".to_owned()
            }
        }
    }
}

/// The type of `obj` as a new reference (the first item of a Literal's lookup key).
///
/// # Safety
/// `obj` is live and the GIL is held.
#[inline]
pub unsafe fn type_object(obj: Obj) -> Owned {
    // SAFETY: every live object has a live type.
    unsafe { Owned::from_borrowed(ffi::Py_TYPE(obj).cast()) }
}

/// A new instance of the tuple subclass `cls` with `n` empty slots, made as `tuple.__new__(cls,
/// items)` makes one; each slot must then be filled once with [`super::tuple_set`].
///
/// # Safety
/// `cls` is a live subclass of `tuple` that adds no fields of its own, and the GIL is held.
pub unsafe fn new_tuple_subclass(cls: Obj, n: usize) -> Result<Owned, PyErr> {
    // SAFETY: `cls` is a live subclass of `tuple` that adds no fields (the precondition, checked in
    // debug builds), so its `tp_alloc` makes a zeroed tuple of `n` empty slots, which the collector
    // tracks as any tuple; the GIL is held.
    unsafe {
        let ty: *mut ffi::PyTypeObject = cls.cast();
        debug_assert!(ffi::PyType_IsSubtype(ty, std::ptr::addr_of_mut!(ffi::PyTuple_Type)) != 0);
        let alloc = (*ty).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
        Owned::from_new(alloc(ty, n as ffi::Py_ssize_t)).ok_or_else(fetch_error)
    }
}
