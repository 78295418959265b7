//! Typed decoding of classes: dataclasses and TypedDicts from maps, NamedTuples from arrays.
//! The walk reads the values into slots, one a field, each checked against the field's node
//! (see `policy`); defaults fill the rest, and only then is the instance made.

use super::decode::{made, TypedDecoder};
use super::error::{TError, TResult};
use super::plan::{Class, Field, Missing};
use crate::ffi::{self, Owned, Ref};

impl TypedDecoder<'_> {
    /// Fills the fields the input left out from their defaults; a required one missing is an
    /// error.
    pub(super) fn defaults(
        &self,
        node: usize,
        class: &Class,
        values: &mut [Option<Owned>],
        start: usize,
    ) -> TResult<()> {
        for (f, slot) in class.fields.iter().zip(values.iter_mut()) {
            if slot.is_some() {
                continue;
            }
            *slot = match &f.missing {
                Missing::Required if f.init => return Err(self.missing(node, f, start)),
                Missing::Required | Missing::Omit => None,
                Missing::Value(v) => Some(Ref::of_py(v, self.py).hold()),
                // SAFETY: attached (`py`); the plan holds the factory.
                Missing::Factory(factory) => Some(unsafe { ffi::call0(factory.as_ptr())? }),
            };
        }
        Ok(())
    }

    #[cold]
    pub(super) fn missing(&self, node: usize, f: &Field, start: usize) -> TError {
        TError::invalid_as(
            "missing_field",
            format!(
                "expected {}, found a map without the required field {:?}",
                self.nodes[node].name,
                String::from_utf8_lossy(&f.bytes)
            ),
            start,
        )
    }

    /// The dataclass `class` of the fields read into `values`.
    pub(super) fn dataclass(
        &mut self,
        node: usize,
        class: &Class,
        values: &mut [Option<Owned>],
        start: usize,
    ) -> TResult<Owned> {
        self.defaults(node, class, values, start)?;
        if class.direct {
            self.build_direct(node, class, values, start)
        } else {
            self.build_by_call(node, class, values, start)
        }
    }

    /// `object.__new__(cls)` and the fields set as the generated `__init__` sets them, then
    /// `__post_init__`.
    pub(super) fn build_direct(
        &mut self,
        node: usize,
        class: &Class,
        values: &[Option<Owned>],
        start: usize,
    ) -> TResult<Owned> {
        // SAFETY: attached; the plan checked that `cls.__new__` is `object.__new__`; every
        // value is live.
        unsafe {
            let obj = ffi::object_new(class.cls.as_ptr())?;
            for (f, value) in class.fields.iter().zip(values) {
                if let Some(value) = value {
                    ffi::set_attr_direct(obj.as_ptr(), f.name.as_ptr(), value.as_ptr())?;
                }
            }
            if class.post_init {
                let name = Ref::of_py(&self.handles.post_init, self.py);
                if let Err(cause) = ffi::call_method0(obj.as_ptr(), name.as_ptr()) {
                    return Err(self.refused_or_raised(
                        node,
                        "a value its constructor refused",
                        start,
                        cause,
                    ));
                }
            }
            Ok(obj)
        }
    }

    /// `cls(**fields)`, for classes whose instances must go through their `__init__`.
    pub(super) fn build_by_call(
        &mut self,
        node: usize,
        class: &Class,
        values: &[Option<Owned>],
        start: usize,
    ) -> TResult<Owned> {
        let py = self.py;
        let mut args = Vec::new();
        let mut names = Vec::new();
        for (f, value) in class.fields.iter().zip(values) {
            if let (true, Some(value)) = (f.init, value) {
                args.push(Ref::of(value));
                names.push(Ref::of_py(&f.name, py));
            }
        }
        // SAFETY: attached (`py`); `kwnames` is a new tuple of as many str as there are
        // arguments, each slot filled once with a strong reference; every argument is held by
        // `values`, which this call borrows, so it outlives the constructor's Python code.
        unsafe {
            let kwnames = made(ffi::new_tuple(names.len()))?;
            for (i, name) in names.iter().enumerate() {
                ffi::tuple_set(&kwnames, i, name.hold());
            }
            ffi::vectorcall(Ref::of_py(&class.cls, py), &args, Some(Ref::of(&kwnames))).map_err(
                |cause| {
                    self.refused_or_raised(node, "a value its constructor refused", start, cause)
                },
            )
        }
    }

    /// The TypedDict `class` of the fields read into `values`.
    pub(super) fn typed_dict(
        &mut self,
        node: usize,
        class: &Class,
        values: &mut [Option<Owned>],
        start: usize,
    ) -> TResult<Owned> {
        self.defaults(node, class, values, start)?;
        // SAFETY: attached; every value is live.
        unsafe {
            let dict = made(ffi::new_dict(class.fields.len()))?;
            for (f, value) in class.fields.iter().zip(values.iter()) {
                if let Some(value) = value {
                    if !ffi::dict_insert(dict.as_ptr(), f.name.as_ptr(), value.as_ptr()) {
                        return Err(ffi::fetch_error().into());
                    }
                }
            }
            Ok(dict)
        }
    }

    /// The NamedTuple `class` of the items read into `values` (the header checked their
    /// number).
    pub(super) fn named_tuple(
        &mut self,
        node: usize,
        class: &Class,
        values: &mut [Option<Owned>],
        start: usize,
    ) -> TResult<Owned> {
        self.defaults(node, class, values, start)?;
        if class.direct {
            // SAFETY: attached; the plan checked that the class's `__new__` is the one that
            // only makes the tuple, and every field has a value.
            unsafe {
                let tuple = ffi::new_tuple_subclass(class.cls.as_ptr(), values.len())?;
                for (i, value) in values.iter_mut().enumerate() {
                    if let Some(value) = value.take() {
                        ffi::tuple_set(&tuple, i, value);
                    }
                }
                return Ok(tuple);
            }
        }
        let args: Vec<Ref<'_>> = values.iter().flatten().map(Ref::of).collect();
        // SAFETY: every argument is held by `values`, which this call borrows, so it outlives
        // the constructor's Python code; no keyword names.
        unsafe { ffi::vectorcall(Ref::of_py(&class.cls, self.py), &args, None) }.map_err(|cause| {
            self.refused_or_raised(node, "a value its constructor refused", start, cause)
        })
    }
}
