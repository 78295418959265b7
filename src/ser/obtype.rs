//! Classifies an object once, by its type pointer, into what the dispatch writes.

use crate::ffi::{self, Ref, TypePtr};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{per_type, Ctx};

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
    /// A `tuple` subclass whose class has a `_fields` tuple (`collections.namedtuple`,
    /// `typing.NamedTuple`).
    NamedTuple,
    Bytes,
    ByteArray,
    MemoryView,
    Ext,
    /// The class [`Ctx::ext_tuple`] names (that class exactly), in a call with a hook
    /// ([`crate::ser::hook`]): written as an extension value.
    ExtTuple,
    /// A `Fragment` (MessagePack) or a `json.Fragment` (JSON text), written verbatim.
    Fragment,
    JsonFragment,
    Datetime,
    Date,
    Time,
    Uuid,
    Enum,
    Set,
    Decimal,
    Dataclass,
    Pydantic,
    NumpyArray,
    NumpyScalar,
    /// A type `OPT_EXACT` writes as an extension ([`per_type::exact::handles`]).
    Exact,
    /// A type of the call's `Registry`.
    Registered,
    /// Anything else: handed to `default`.
    Other,
}

/// None and the exact builtin types come first, by pointer comparison; everything else takes
/// [`classify_rare`].
#[inline(always)]
pub fn classify(obj: Ref<'_>, st: State, cx: &Ctx) -> ObType {
    // None is told by its address, before its type is loaded.
    if obj.is_none() {
        return ObType::None;
    }
    let ty = obj.type_of();
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
    } else {
        let (last, kind) = cx.last_lineage.get();
        if ty == last {
            return kind;
        }
        // SAFETY: `ty` is the live type of a live object.
        unsafe { classify_rare(ty, st, cx) }
    }
}

/// # Safety
/// `ty` is a live type object; the GIL is held.
#[inline(never)]
unsafe fn classify_rare(ty: TypePtr, st: State, cx: &Ctx) -> ObType {
    let k = cx.known;
    // The user's classes first, then the exact types: both before any other rule.
    if let Some(x) = cx.exact.as_deref() {
        if x.registry.as_ref().is_some_and(|t| t.by_type(ty).is_some()) {
            return ObType::Registered;
        }
        // SAFETY: `ty` is a live type; the GIL is held.
        if st.has(opt::EXACT) && unsafe { per_type::exact::handles(ty, st, cx) } {
            return ObType::Exact;
        }
    }
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
    if ty == k.datetime || ty == k.date || ty == k.time {
        return datetime_kind(ty, st, cx);
    }
    if ty == k.uuid {
        return if st.has(opt::PASSTHROUGH_UUID) {
            ObType::Other
        } else {
            ObType::Uuid
        };
    }
    if ty == ffi::bytearray_type() {
        return ObType::ByteArray;
    }
    if ty == ffi::memoryview_type() {
        return ObType::MemoryView;
    }
    if ty == ffi::set_type() || ty == ffi::frozenset_type() {
        return hooked_other(cx, ObType::Set);
    }
    if ty == k.decimal {
        return hooked_other(cx, ObType::Decimal);
    }
    if ty == cx.fragment_types.0 {
        return ObType::Fragment;
    }
    if ty == cx.fragment_types.1 {
        return ObType::JsonFragment;
    }
    // What is left is told by the type's bases, metaclass and attributes: several lookups, so
    // the answers for the last few such types are kept (a list of members, each with an address,
    // repeats two).
    // The memo holds only types that every rule above passed over in this call, whose answers
    // cannot change during it (the registry and the options are the call's): so the last one
    // kept is tested before those rules, in `classify`. Not the last one found: of two types
    // that alternate (members and their addresses), one then always matches there.
    if let Some(known) = cx.lineage.get(ty, |&ob| ob) {
        return known;
    }
    // SAFETY: `ty` is a live type object and the GIL is held (this function's precondition).
    let found = unsafe { classify_uncommon(ty, st, cx) };
    // SAFETY: as above, and `ty` was not in the memo.
    if unsafe { cx.lineage.put(ty, found) } {
        cx.last_lineage.set((ty, found));
    }
    found
}

/// `kind`, or `default`'s in a call with a hook ([`crate::ser::hook`]), which sends sets and
/// decimals through `default` (an error without one).
#[inline(always)]
fn hooked_other(cx: &Ctx, kind: ObType) -> ObType {
    if cx.hook.is_some() {
        ObType::Other
    } else {
        kind
    }
}

/// numpy's types, then [`classify_by_lineage`].
///
/// # Safety
/// `ty` is a live type object; the GIL is held.
#[inline(never)]
unsafe fn classify_uncommon(ty: TypePtr, st: State, cx: &Ctx) -> ObType {
    if let Some(np) = cx.numpy {
        if ty == np.ndarray {
            return ObType::NumpyArray;
        }
        // numpy scalars that subclass str, bytes or float (np.str_, np.bytes_, np.float64)
        // pack as those, like any subclass.
        // SAFETY: all are live type objects.
        let builtin = unsafe {
            ffi::has_flag(
                ty,
                ffi::Py_TPFLAGS_UNICODE_SUBCLASS | ffi::Py_TPFLAGS_BYTES_SUBCLASS,
            ) || ffi::is_subtype(ty, ffi::float_type())
        };
        // SAFETY: as above.
        if !builtin && unsafe { ffi::is_subtype(ty, np.generic) } {
            return ObType::NumpyScalar;
        }
    }
    // SAFETY: `ty` is a live type object and the GIL is held (this function's precondition).
    unsafe { classify_by_lineage(ty, st, cx) }
}

/// A `datetime`, `date` or `time` (or subclass; `datetime` is itself a `date` subclass, so it is
/// tested first).
fn datetime_kind(ty: TypePtr, st: State, cx: &Ctx) -> ObType {
    if st.has(opt::PASSTHROUGH_DATETIME) {
        return ObType::Other;
    }
    let k = cx.known;
    // SAFETY: all are live type objects.
    unsafe {
        if ffi::is_subtype(ty, k.datetime) {
            ObType::Datetime
        } else if ffi::is_subtype(ty, k.date) {
            ObType::Date
        } else {
            ObType::Time
        }
    }
}

/// Types recognised by their metaclass, a marker attribute or their base classes: enums,
/// dataclasses, pydantic models, then subclasses of the types above and of the builtins, which
/// pack as their base type unless `OPT_PASSTHROUGH_SUBCLASS`, and named tuples
/// ([`tuple_subclass_kind`]).
///
/// # Safety
/// `ty` is a live type object; the GIL is held.
unsafe fn classify_by_lineage(ty: TypePtr, st: State, cx: &Ctx) -> ObType {
    let k = cx.known;
    // SAFETY: `ty` is a live type and the GIL is held (this function's precondition), so its
    // metaclass, flags and MRO can be read; lookups return strong references.
    unsafe {
        let meta = ffi::type_of(ty.cast());
        if meta != ffi::type_type() && ffi::is_subtype(meta, k.enum_meta) {
            return if st.has(opt::PASSTHROUGH_ENUM) {
                ObType::Other
            } else {
                ObType::Enum
            };
        }
        // Marker attributes are looked up along the MRO, as class attributes are defined:
        // `getattr` on the class would also call a metaclass `__getattr__` (pydantic's raises
        // AttributeError for every missing name, which took 0.8 us per object).
        if ffi::type_lookup(ty, k.names.dataclass_fields).is_some() {
            return if st.has(opt::PASSTHROUGH_DATACLASS) {
                ObType::Other
            } else {
                ObType::Dataclass
            };
        }
        if st.has(opt::SERIALIZE_PYDANTIC)
            && ffi::type_lookup(ty, k.names.pydantic_fields).is_some()
        {
            return ObType::Pydantic;
        }
        if cx.hook.is_some() && ty == cx.ext_tuple {
            return ObType::ExtTuple;
        }
        if st.has(opt::PASSTHROUGH_SUBCLASS) {
            return ObType::Other;
        }
        if ffi::is_subtype(ty, k.date) || ffi::is_subtype(ty, k.time) {
            return datetime_kind(ty, st, cx);
        }
        if ffi::is_subtype(ty, k.uuid) {
            return if st.has(opt::PASSTHROUGH_UUID) {
                ObType::Other
            } else {
                ObType::Uuid
            };
        }
        if ffi::is_subtype(ty, k.decimal) {
            return hooked_other(cx, ObType::Decimal);
        }
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
        } else if ffi::has_flag(ty, ffi::Py_TPFLAGS_TUPLE_SUBCLASS) {
            tuple_subclass_kind(ty, st, cx)
        } else if ffi::is_subtype(ty, ffi::float_type()) {
            ObType::Float
        } else if ffi::is_subtype(ty, ffi::bytearray_type()) {
            ObType::ByteArray
        } else if ffi::is_subtype(ty, ffi::set_type()) || ffi::is_subtype(ty, ffi::frozenset_type())
        {
            hooked_other(cx, ObType::Set)
        } else {
            ObType::Other
        }
    }
}

/// A `tuple` subclass (reached without `OPT_PASSTHROUGH_SUBCLASS`): a named tuple when its class
/// has a `_fields` tuple, as every class made by `collections.namedtuple` or `typing.NamedTuple`
/// (and each subclass of one) has, unless `OPT_PASSTHROUGH_TUPLE` sends it to `default` along with
/// the plain tuples. Other tuple subclasses go to `default`, as in orjson and ormsgpack, and so
/// do the class [`Ctx::ext_tuple`] names and its subclasses.
///
/// # Safety
/// `ty` is a live type object; the GIL is held.
unsafe fn tuple_subclass_kind(ty: TypePtr, st: State, cx: &Ctx) -> ObType {
    // SAFETY: both are live type objects (`ext_tuple` when not null: a class its caller holds).
    if !cx.ext_tuple.is_null() && unsafe { ffi::is_subtype(ty, cx.ext_tuple) } {
        return ObType::Other;
    }
    // SAFETY: `ty` is a live type object and the GIL is held (this function's precondition), as
    // `type_lookup` needs; the lookup's result is held while its type is read.
    let named = unsafe {
        ffi::type_lookup(ty, cx.known.names.fields).is_some_and(|fields| {
            ffi::has_flag(
                ffi::type_of(fields.as_ptr()),
                ffi::Py_TPFLAGS_TUPLE_SUBCLASS,
            )
        })
    };
    if named && !st.has(opt::PASSTHROUGH_TUPLE) {
        ObType::NamedTuple
    } else {
        ObType::Other
    }
}
