//! Classifies an object once, by its type pointer, into what the dispatch writes.

use crate::ffi::{self, Obj, TypePtr};
use crate::opt;
use crate::ser::state::State;
use crate::ser::Ctx;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ObType {
    Str,
    Int,
    Bool,
    None,
    Float,
    List,
    Dict,
    Tuple,
    Bytes,
    ByteArray,
    MemoryView,
    Ext,
    /// Anything else: handed to `default`.
    Other,
}

/// The exact builtin types come first, by pointer comparison; everything else takes
/// [`classify_rare`].
///
/// # Safety
/// `obj` is live.
#[inline(always)]
pub unsafe fn classify(obj: Obj, st: State, cx: &Ctx) -> ObType {
    // SAFETY: the caller guarantees `obj` is live.
    let ty = unsafe { ffi::type_of(obj) };
    if ty == ffi::str_type() {
        ObType::Str
    } else if ty == ffi::int_type() {
        ObType::Int
    } else if ty == ffi::dict_type() {
        ObType::Dict
    } else if ty == ffi::list_type() {
        ObType::List
    } else if ty == ffi::float_type() {
        ObType::Float
    } else if ty == ffi::bool_type() {
        ObType::Bool
    } else if obj == ffi::none() {
        ObType::None
    } else {
        // SAFETY: `ty` is the live type of a live object.
        unsafe { classify_rare(ty, st, cx) }
    }
}

#[inline(never)]
unsafe fn classify_rare(ty: TypePtr, st: State, cx: &Ctx) -> ObType {
    if ty == ffi::tuple_type() {
        return if st.has(opt::PASSTHROUGH_TUPLE) {
            ObType::Other
        } else {
            ObType::Tuple
        };
    }
    if ty == ffi::bytes_type() {
        return ObType::Bytes;
    }
    if ty == cx.ext_type {
        return ObType::Ext;
    }
    if ty == ffi::bytearray_type() {
        return ObType::ByteArray;
    }
    if ty == ffi::memoryview_type() {
        return ObType::MemoryView;
    }
    if st.has(opt::PASSTHROUGH_SUBCLASS) {
        return ObType::Other;
    }
    // SAFETY: `ty` is a live type object; the GIL is held by every caller of the dispatch.
    unsafe { classify_subclass(ty) }
}

/// Subclasses of the builtins pack as their base type (tuple subclasses such as namedtuple
/// excepted: they go to `default`).
#[cold]
unsafe fn classify_subclass(ty: TypePtr) -> ObType {
    // SAFETY: forwarded from the caller.
    unsafe {
        if ffi::has_flag(ty, ffi::Py_TPFLAGS_UNICODE_SUBCLASS) {
            ObType::Str
        } else if ffi::has_flag(ty, ffi::Py_TPFLAGS_LONG_SUBCLASS) {
            ObType::Int
        } else if ffi::has_flag(ty, ffi::Py_TPFLAGS_DICT_SUBCLASS) {
            ObType::Dict
        } else if ffi::has_flag(ty, ffi::Py_TPFLAGS_LIST_SUBCLASS) {
            ObType::List
        } else if ffi::has_flag(ty, ffi::Py_TPFLAGS_BYTES_SUBCLASS) {
            ObType::Bytes
        } else if ffi::is_subtype(ty, ffi::float_type()) {
            ObType::Float
        } else if ffi::is_subtype(ty, ffi::bytearray_type()) {
            ObType::ByteArray
        } else {
            ObType::Other
        }
    }
}
