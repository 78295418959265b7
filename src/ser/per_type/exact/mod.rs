//! `OPT_EXACT`: the types that come back as themselves, each written as one extension value
//! (codes and payload layouts in the core's `exact`, specified in `doc/exact.md`): these writers
//! only turn Python objects into the core's values.

mod scalars;
mod seq;
mod time;

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, Ref, TypePtr};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{per_type, Ctx};
use fastmsgpack_core::exact as code;

pub use scalars::write_big_int;
use time::TzCache;

/// What a call with `OPT_EXACT` or a registry needs: the types and names, the last time zone
/// met, and the registry's classes (a table taken once per call).
pub struct ExactCx {
    pub handles: &'static ffi::ExactHandles,
    pub tz_cache: TzCache,
    pub registry: Option<std::sync::Arc<crate::registry::Table>>,
}

impl ExactCx {
    #[cold]
    #[inline(never)]
    pub fn new(
        py: pyo3::Python<'_>,
        registry: Option<std::sync::Arc<crate::registry::Table>>,
    ) -> pyo3::PyResult<Box<ExactCx>> {
        Ok(Box::new(ExactCx {
            handles: ffi::ExactHandles::get(py)?,
            tz_cache: TzCache::default(),
            registry,
        }))
    }
}

/// Whether the exact mode writes objects of exactly the type `ty` (subclasses are packed as
/// without it).
///
/// # Safety
/// `ty` is a live type; the GIL is held.
#[inline(never)]
pub unsafe fn handles(ty: TypePtr, st: State, cx: &Ctx) -> bool {
    let k = cx.known;
    let Some(h) = cx.exact.as_deref().map(|x| x.handles) else {
        return false;
    };
    if ty == ffi::tuple_type()
        || ty == ffi::set_type()
        || ty == ffi::frozenset_type()
        || ty == k.datetime
        || ty == k.date
        || ty == k.time
        || ty == h.timedelta
        || ty == k.uuid
        || ty == k.decimal
        || ty == ffi::bytearray_type()
        || ty == h.complex
    {
        return true;
    }
    // With `OPT_NUMPY_RAW` too, numpy values are its plain maps (which it reads back).
    // SAFETY: `ty` is a live type (a precondition of `handles`), so numpy's types can be compared
    // with it as `is_numpy` needs.
    !st.has(opt::NUMPY_RAW) && cx.numpy.is_some_and(|np| unsafe { is_numpy(ty, np) })
}

/// numpy's array and every numpy scalar, those that subclass a builtin (`numpy.float64`,
/// `str_`, `bytes_`) included: they come back as numpy scalars too.
///
/// # Safety
/// `ty` is a live type and `np` holds numpy's live types.
unsafe fn is_numpy(ty: TypePtr, np: &ffi::Numpy) -> bool {
    // SAFETY: both are live types.
    ty == np.ndarray || unsafe { ffi::is_subtype(ty, np.generic) }
}

/// An object of a type [`handles`] accepted.
///
/// # Safety
/// `obj` is live, of a type [`handles`] accepted; the GIL is held.
#[inline(never)]
pub unsafe fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let k = cx.known;
    // SAFETY: `obj` is live, of a type `handles` accepted, and the GIL is held (this function's
    // precondition); each writer gets `obj` only once its type was checked to be the writer's.
    unsafe {
        let ty = ffi::type_of(obj.as_ptr());
        if ty == ffi::tuple_type() {
            seq::write_tuple(obj, st, cx, e)
        } else if ty == ffi::set_type() {
            seq::write_set(obj, code::SET, st, cx, e)
        } else if ty == ffi::frozenset_type() {
            seq::write_set(obj, code::FROZENSET, st, cx, e)
        } else if ty == k.datetime {
            time::write_datetime(obj, cx, e)
        } else if ty == k.date {
            time::write_date(obj, e)
        } else if ty == k.time {
            time::write_time(obj, cx, e)
        } else if ty == k.uuid {
            scalars::write_uuid(obj, cx, e)
        } else if ty == k.decimal {
            scalars::write_decimal(obj, cx, e)
        } else if ty == ffi::bytearray_type() {
            ffi::with_bytearray(obj.as_ptr(), |bytes| e.ext(code::BYTEARRAY, bytes))
        } else if cx.exact.as_ref().is_some_and(|x| ty == x.handles.timedelta) {
            time::write_timedelta(obj, e)
        } else if cx.exact.as_ref().is_some_and(|x| ty == x.handles.complex) {
            scalars::write_complex(obj, e)
        } else {
            write_numpy(obj, ty, st, cx, e)
        }
    }
}

/// The extension `tag` whose payload `write` writes, in a buffer the call reuses (one of its
/// own when the call has no exact context).
fn write_payload<E: Emitter>(
    tag: i8,
    cx: &Ctx,
    e: &mut E,
    write: impl FnOnce(&mut Vec<u8>),
) -> Res {
    let cache = cx.exact.as_deref().map(|x| &x.tz_cache);
    let mut out = cache.map(TzCache::take_scratch).unwrap_or_default();
    out.clear();
    write(&mut out);
    let r = e.ext(tag, &out);
    if let Some(cache) = cache {
        cache.put_scratch(out);
    }
    r
}

/// A numpy array or scalar: `OPT_NUMPY_RAW`'s map, as the payload of one extension.
///
/// # Safety
/// `obj` is a live numpy array or scalar of type `ty`; the GIL is held.
unsafe fn write_numpy<E: Emitter>(
    obj: Ref<'_>,
    ty: TypePtr,
    st: State,
    cx: &Ctx,
    e: &mut E,
) -> Res {
    let raw = st.with(opt::NUMPY_RAW);
    let mark = e.ext_begin()?;
    // SAFETY: `obj` is live, of type `ty`, with the GIL held (this function's precondition), and
    // `handles` saw numpy's array or scalar type: each writer gets the kind it reads.
    unsafe {
        if cx.numpy.is_some_and(|np| ty == np.ndarray) {
            per_type::numpy::write_array(obj, raw, cx, e)?;
        } else {
            per_type::numpy::write_scalar(obj, raw, cx, e)?;
        }
    }
    e.ext_end(mark, code::NUMPY)
}
