use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::emit::Emitter;
use crate::error::Res;
use crate::exc::MsgpackEncodeError;
use crate::ffi::Ref;
use crate::fragment::{Fragment, JsonFragment};

/// A [`Fragment`]: its MessagePack bytes, checked when it was made, written as they are.
///
/// # Safety
/// `obj` is a live `Fragment`; the GIL is held.
#[inline(never)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: the GIL is held and `obj` is a Fragment (its type was checked by pointer).
    let (py, fragment) = unsafe {
        let py = Python::assume_attached();
        (
            py,
            Borrowed::from_ptr(py, obj.as_ptr()).cast_unchecked::<Fragment>(),
        )
    };
    debug_assert!(fragment.is_exact_instance_of::<Fragment>());
    e.raw_msgpack(fragment.get().bytes(py))
}

/// A [`JsonFragment`]: `bytes` written as they are, a `str` as its UTF-8.
///
/// # Safety
/// `obj` is a live `JsonFragment`; the GIL is held.
#[inline(never)]
pub unsafe fn write_json<E: Emitter>(obj: Ref<'_>, e: &mut E) -> Res {
    // SAFETY: the GIL is held and `obj` is a json.Fragment (its type was checked by pointer).
    let (py, fragment) = unsafe {
        let py = Python::assume_attached();
        (
            py,
            Borrowed::from_ptr(py, obj.as_ptr()).cast_unchecked::<JsonFragment>(),
        )
    };
    debug_assert!(fragment.is_exact_instance_of::<JsonFragment>());
    let contents = fragment.get().contents.bind(py);
    if let Ok(bytes) = contents.cast::<PyBytes>() {
        return e.raw_json(bytes.as_bytes());
    }
    if let Ok(text) = contents.cast::<PyString>() {
        let utf8 = text.to_str().map_err(|cause| {
            crate::error::Error::new(
                crate::error::Kind::InvalidStr,
                crate::ser::error::with_cause(
                    MsgpackEncodeError::new_err(
                        "json.Fragment contents are not valid UTF-8 (a str with a lone surrogate)",
                    ),
                    cause,
                ),
            )
        })?;
        return e.raw_json(utf8.as_bytes());
    }
    let ty = contents.get_type().name()?;
    Err(crate::error::Error::new(
        crate::error::Kind::InvalidValue,
        MsgpackEncodeError::new_err(format!(
            "json.Fragment contents must be str or bytes, not {ty}"
        )),
    ))
}
