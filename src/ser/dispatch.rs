//! The one dispatch: every value, at any depth, is written through [`write`].

use crate::error::Res;

use super::obtype::{classify, ObType};
use super::per_type;
use super::state::State;
use super::Ctx;
use crate::emit::Emitter;
use crate::ffi::Ref;

/// Writes `obj` with the emitter.
///
/// Always inlined: each container writer (kept out of line) gets its own copy of this one
/// dispatch in its loop, so scalars are written without a call per item.
///
/// `obj` is live on an attached thread ([`Ref`]'s invariant): every object reaching here comes
/// from the Python call, from a container held by the serializer, or from a strong reference.
#[inline(always)]
pub fn write<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is live and the thread attached (`Ref`'s invariant), and `classify` has
    // checked its type to be the one each per-type writer reads it as.
    unsafe {
        match classify(obj, st, cx) {
            ObType::Str => per_type::str::write(obj, st, cx, e),
            ObType::Int => per_type::int::write(obj, st, cx, e),
            ObType::Dict => per_type::dict::write(obj, st, cx, e),
            ObType::List => per_type::list::write(obj, st, cx, e),
            ObType::Float => per_type::float::write(obj, e),
            ObType::Bool => e.bool(obj.as_ptr() == crate::ffi::true_obj()),
            ObType::None => e.nil(),
            ObType::Tuple => per_type::list::write_tuple(obj, st, cx, e),
            ObType::NamedTuple => per_type::list::write_named_tuple(obj, st, cx, e),
            ObType::Bytes => per_type::bytes::write_bytes(obj, cx, e),
            ObType::ByteArray => per_type::bytes::write_bytearray(obj, cx, e),
            ObType::MemoryView => per_type::bytes::write_memoryview(obj, cx, e),
            ObType::Ext => per_type::ext::write(obj, e),
            ObType::ExtTuple => per_type::ext::write_tuple(obj, st, cx, e),
            ObType::Fragment => per_type::fragment::write(obj, e),
            ObType::JsonFragment => per_type::fragment::write_json(obj, e),
            ObType::Datetime => per_type::datetime::write_datetime(obj, st, cx, e),
            ObType::Date => per_type::datetime::write_date(obj, e),
            ObType::Time => per_type::datetime::write_time(obj, st, e),
            ObType::Uuid => per_type::uuid::write(obj, cx, e),
            ObType::Enum => per_type::enums::write(obj, st, cx, e),
            ObType::Set => per_type::set::write(obj, st, cx, e),
            ObType::Decimal => per_type::decimal::write(obj, e),
            ObType::Dataclass => per_type::dataclass::write(obj, st, cx, e),
            ObType::Pydantic => per_type::pydantic::write(obj, st, cx, e),
            ObType::NumpyArray => per_type::numpy::write_array(obj, st, cx, e),
            ObType::NumpyScalar => per_type::numpy::write_scalar(obj, st, cx, e),
            ObType::Exact => per_type::exact::write(obj, st, cx, e),
            ObType::Registered => per_type::registered::write(obj, st, cx, e),
            ObType::Other => per_type::default::write(obj, st, cx, e),
        }
    }
}
