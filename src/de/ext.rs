//! Extension values: handed to `ext_hook(tag, data)`, or kept as [`Ext`].

use pyo3::prelude::*;

use super::error::DeError;
use crate::ext::Ext;
use crate::ffi::{self, Obj, Owned};

pub fn build(
    py: Python<'_>,
    tag: i8,
    data: &[u8],
    ext_hook: Option<Obj>,
    start: usize,
) -> Result<Owned, DeError> {
    let Some(hook) = ext_hook else {
        let ext = Ext::from_parts(py, tag, data)?;
        // SAFETY: `into_ptr` hands over a strong reference to a live object.
        return unsafe { Owned::from_new(ext.into_any().into_ptr()) }
            .ok_or_else(|| DeError::Python(ffi::fetch_error()));
    };
    // SAFETY: attached; `hook` is kept alive by the caller of unpackb.
    unsafe {
        let tag = ffi::new_i64(tag as i64).ok_or_else(ffi::fetch_error)?;
        let data = ffi::new_bytes(data).ok_or_else(ffi::fetch_error)?;
        ffi::call2(hook, tag.as_ptr(), data.as_ptr()).map_err(|cause| DeError::Callback {
            what: "ext_hook raised an exception",
            offset: start,
            cause,
        })
    }
}
