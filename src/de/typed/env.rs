//! The Python objects a plan is worked out with (`typing`, `dataclasses`, the scalar types),
//! and the reading of a class's annotations.
//!
//! They are looked up afresh for each plan: plans are made once per type, and a program (or a
//! test) that replaces `typing.get_type_hints` is seen.

use pyo3::exceptions::{PyAttributeError, PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyModule, PyTuple};

use super::plan::Node;

/// Looked up once per plan.
pub(super) struct Env<'py> {
    pub py: Python<'py>,
    pub any: Bound<'py, PyAny>,
    /// `(type, kind)` of each scalar: `kind` names the node (and its type, in messages).
    scalars: Vec<(Bound<'py, PyAny>, Scalar)>,
    pub type_var: Bound<'py, PyAny>,
    pub new_type: Bound<'py, PyAny>,
    pub generic_alias: Bound<'py, PyAny>,
    pub get_origin: Bound<'py, PyAny>,
    pub get_args: Bound<'py, PyAny>,
    get_type_hints: Bound<'py, PyAny>,
    pub is_typeddict: Bound<'py, PyAny>,
    pub annotated: Bound<'py, PyAny>,
    pub final_: Bound<'py, PyAny>,
    pub class_var: Bound<'py, PyAny>,
    /// `typing.Union` and `types.UnionType`.
    pub unions: [Bound<'py, PyAny>; 2],
    pub literal: Bound<'py, PyAny>,
    /// Origins of the aliases that decode to a list.
    pub lists: [Bound<'py, PyAny>; 4],
    pub sets: [Bound<'py, PyAny>; 3],
    pub dicts: [Bound<'py, PyAny>; 3],
    /// `list`, `tuple`, `set`, `frozenset`, `dict`: bare, they are their own origin.
    pub containers: [Bound<'py, PyAny>; 5],
    pub callable: Bound<'py, PyAny>,
    pub builtins: Bound<'py, PyAny>,
    pub type_: Bound<'py, PyAny>,
    issubclass: Bound<'py, PyAny>,
    pub enum_: Bound<'py, PyAny>,
    pub is_dataclass: Bound<'py, PyAny>,
    pub fields: Bound<'py, PyAny>,
    pub missing: Bound<'py, PyAny>,
    pub field_initvar: Bound<'py, PyAny>,
    get_annotations: Bound<'py, PyAny>,
    pub object_new: Bound<'py, PyAny>,
    pub type_call: Bound<'py, PyAny>,
    /// `Required` and `NotRequired` (from typing, and typing_extensions when loaded), each with
    /// whether it makes its key required.
    pub wrappers: Vec<(Bound<'py, PyAny>, bool)>,
    /// `pydantic.BaseModel` and `numpy.ndarray`, when their modules are loaded.
    pub base_model: Option<Bound<'py, PyAny>>,
    pub ndarray: Option<Bound<'py, PyAny>>,
}

/// The modules plans are read with, imported once.
struct Modules {
    typing: Py<PyModule>,
    builtins: Py<PyModule>,
    abc: Py<PyModule>,
    types: Py<PyModule>,
    datetime: Py<PyModule>,
    dataclasses: Py<PyModule>,
    uuid: Py<PyModule>,
    decimal: Py<PyModule>,
    enum_: Py<PyModule>,
    inspect: Py<PyModule>,
    sys_modules: Py<PyDict>,
}

static MODULES: crate::ffi::PerInterp<Modules> = crate::ffi::PerInterp::new();

impl Modules {
    fn import(py: Python<'_>) -> PyResult<Modules> {
        let import = |name: &str| py.import(name).map(Bound::unbind);
        Ok(Modules {
            typing: import("typing")?,
            builtins: import("builtins")?,
            abc: import("collections.abc")?,
            types: import("types")?,
            datetime: import("datetime")?,
            dataclasses: import("dataclasses")?,
            uuid: import("uuid")?,
            decimal: import("decimal")?,
            enum_: import("enum")?,
            inspect: import("inspect")?,
            sys_modules: py
                .import("sys")?
                .getattr("modules")?
                .cast_into::<PyDict>()?
                .unbind(),
        })
    }
}

#[derive(Clone, Copy)]
enum Scalar {
    Int,
    Float,
    Str,
    Bool,
    Bytes,
    ByteArray,
    MemoryView,
    None,
    Uuid,
    DateTime,
    Date,
    Time,
    Decimal,
    Any,
}

impl Scalar {
    fn node(self) -> (Node, &'static str) {
        match self {
            Scalar::Int => (Node::Int, "int"),
            Scalar::Float => (Node::Float, "float"),
            Scalar::Str => (Node::Str, "str"),
            Scalar::Bool => (Node::Bool, "bool"),
            Scalar::Bytes => (Node::Bytes, "bytes"),
            Scalar::ByteArray => (Node::ByteArray, "bytearray"),
            Scalar::MemoryView => (Node::MemoryView, "memoryview"),
            Scalar::None => (Node::None, "None"),
            Scalar::Uuid => (Node::Uuid, "UUID"),
            Scalar::DateTime => (Node::DateTime, "datetime"),
            Scalar::Date => (Node::Date, "date"),
            Scalar::Time => (Node::Time, "time"),
            Scalar::Decimal => (Node::Decimal, "Decimal"),
            Scalar::Any => (Node::Any, "Any"),
        }
    }
}

impl<'py> Env<'py> {
    pub fn new(py: Python<'py>) -> PyResult<Env<'py>> {
        let m = MODULES.get_or_try_init(py, || Modules::import(py))?;
        let typing = m.typing.bind(py);
        let builtins = m.builtins.bind(py);
        let abc = m.abc.bind(py);
        let types = m.types.bind(py);
        let datetime = m.datetime.bind(py);
        let dataclasses = m.dataclasses.bind(py);
        let modules = m.sys_modules.bind(py);
        let t = |name: &str| typing.getattr(name);
        let b = |name: &str| builtins.getattr(name);
        let a = |name: &str| abc.getattr(name);
        let any = t("Any")?;
        let object = b("object")?;
        let scalars = vec![
            (b("int")?, Scalar::Int),
            (b("float")?, Scalar::Float),
            (b("str")?, Scalar::Str),
            (b("bool")?, Scalar::Bool),
            (b("bytes")?, Scalar::Bytes),
            (b("bytearray")?, Scalar::ByteArray),
            (b("memoryview")?, Scalar::MemoryView),
            (py.None().into_bound(py).get_type().into_any(), Scalar::None),
            (py.None().into_bound(py), Scalar::None),
            (m.uuid.bind(py).getattr("UUID")?, Scalar::Uuid),
            (datetime.getattr("datetime")?, Scalar::DateTime),
            (datetime.getattr("date")?, Scalar::Date),
            (datetime.getattr("time")?, Scalar::Time),
            (m.decimal.bind(py).getattr("Decimal")?, Scalar::Decimal),
            (any.clone(), Scalar::Any),
            (object.clone(), Scalar::Any),
        ];
        let mut wrappers = Vec::new();
        let extensions = modules.get_item("typing_extensions")?;
        for module in std::iter::once(typing.clone().into_any()).chain(extensions) {
            for (name, required) in [("Required", true), ("NotRequired", false)] {
                if let Ok(wrapper) = module.getattr(name) {
                    wrappers.push((wrapper, required));
                }
            }
        }
        let loaded = |module: &str, name: &str| -> PyResult<Option<Bound<'py, PyAny>>> {
            match modules.get_item(module)? {
                Some(m) => Ok(m.getattr(name).ok()),
                None => Ok(None),
            }
        };
        let type_ = b("type")?;
        Ok(Env {
            py,
            scalars,
            type_var: t("TypeVar")?,
            new_type: t("NewType")?,
            generic_alias: types.getattr("GenericAlias")?,
            get_origin: t("get_origin")?,
            get_args: t("get_args")?,
            get_type_hints: t("get_type_hints")?,
            is_typeddict: t("is_typeddict")?,
            annotated: t("Annotated")?,
            final_: t("Final")?,
            class_var: t("ClassVar")?,
            unions: [t("Union")?, types.getattr("UnionType")?],
            literal: t("Literal")?,
            lists: [
                b("list")?,
                a("Sequence")?,
                a("MutableSequence")?,
                a("Collection")?,
            ],
            sets: [b("set")?, a("Set")?, a("MutableSet")?],
            dicts: [b("dict")?, a("Mapping")?, a("MutableMapping")?],
            containers: [
                b("list")?,
                b("tuple")?,
                b("set")?,
                b("frozenset")?,
                b("dict")?,
            ],
            callable: a("Callable")?,
            enum_: m.enum_.bind(py).getattr("Enum")?,
            is_dataclass: dataclasses.getattr("is_dataclass")?,
            fields: dataclasses.getattr("fields")?,
            missing: dataclasses.getattr("MISSING")?,
            field_initvar: dataclasses.getattr("_FIELD_INITVAR")?,
            get_annotations: m.inspect.bind(py).getattr("get_annotations")?,
            object_new: object.getattr("__new__")?,
            type_call: type_.getattr("__call__")?,
            wrappers,
            base_model: loaded("pydantic", "BaseModel")?,
            ndarray: loaded("numpy", "ndarray")?,
            any,
            issubclass: builtins.getattr("issubclass")?,
            type_: type_.clone(),
            builtins: builtins.clone().into_any(),
        })
    }

    /// The node of a scalar type (`int`, `UUID`, `Any`, ...) and its name.
    pub fn scalar(&self, tp: &Bound<'py, PyAny>) -> Option<(Node, &'static str)> {
        self.scalars
            .iter()
            .find(|(t, _)| t.is(tp))
            .map(|(_, s)| s.node())
    }

    /// `isinstance(obj, cls)`.
    pub fn isinstance(&self, obj: &Bound<'py, PyAny>, cls: &Bound<'py, PyAny>) -> PyResult<bool> {
        obj.is_instance(cls)
    }

    /// `issubclass(cls, base)`, by the builtin.
    pub fn issubclass(&self, cls: &Bound<'py, PyAny>, base: &Bound<'py, PyAny>) -> PyResult<bool> {
        self.issubclass.call1((cls, base))?.is_truthy()
    }

    /// A real class (`isinstance(list[int], type)` is true too, for an alias).
    pub fn is_class(&self, tp: &Bound<'py, PyAny>) -> PyResult<bool> {
        Ok(self.isinstance(tp, &self.type_)? && !self.isinstance(tp, &self.generic_alias)?)
    }

    /// The resolved annotations of a class; those that cannot be resolved are left out when the
    /// whole cannot be (Python 3.10 cannot evaluate the text "InitVar[int]"), and a field that
    /// needs one of them fails when it is built.
    pub fn type_hints(
        &self,
        cls: &Bound<'py, PyAny>,
        include_extras: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        match self.hints_of(cls, include_extras) {
            Ok(hints) => Ok(hints),
            Err(err) if err.is_instance_of::<PyException>(self.py) => {
                let hints = self.hints_one_by_one(cls, include_extras)?;
                if hints.is_empty() && truthy_attr(cls, "__annotations__")? {
                    let e = PyTypeError::new_err(format!(
                        "cannot resolve the annotations of {}: {}",
                        cls.getattr("__qualname__")?.str()?,
                        err.value(self.py).str()?
                    ));
                    e.set_cause(self.py, Some(err));
                    return Err(e);
                }
                Ok(hints)
            }
            Err(err) => Err(err),
        }
    }

    fn hints_of(
        &self,
        cls: &Bound<'py, PyAny>,
        include_extras: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let kwargs = PyDict::new(self.py);
        kwargs.set_item("include_extras", include_extras)?;
        let hints = self.get_type_hints.call((cls,), Some(&kwargs))?;
        Ok(hints.cast_into::<PyDict>()?)
    }

    fn hints_one_by_one(
        &self,
        cls: &Bound<'py, PyAny>,
        include_extras: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let py = self.py;
        let hints = PyDict::new(py);
        let mro = cls.getattr("__mro__")?.cast_into::<PyTuple>()?;
        for base in mro.iter().rev() {
            let annotations = self.get_annotations.call1((&base,))?;
            for item in annotations.call_method0("items")?.try_iter()? {
                let (name, annotation): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item?.extract()?;
                let namespace = PyDict::new(py);
                let one_annotation = PyDict::new(py);
                one_annotation.set_item(&name, annotation)?;
                namespace.set_item("__annotations__", one_annotation)?;
                let one = self.type_.call1(("_One", PyTuple::empty(py), namespace))?;
                one.setattr("__module__", base.getattr("__module__")?)?;
                match self.hints_of(&one, include_extras) {
                    Ok(found) => hints.update(found.as_mapping())?,
                    // Left out; a field that needs it fails later.
                    Err(err) if err.is_instance_of::<PyException>(py) => {
                        if hints.contains(&name)? {
                            hints.del_item(&name)?;
                        }
                    }
                    Err(err) => return Err(err),
                }
            }
        }
        Ok(hints)
    }
}

/// `getattr(obj, name, None)` is truthy (an error other than `AttributeError` is raised).
pub(super) fn truthy_attr(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    match obj.getattr(name) {
        Ok(value) => value.is_truthy(),
        Err(err) if err.is_instance_of::<PyAttributeError>(obj.py()) => Ok(false),
        Err(err) => Err(err),
    }
}

/// The name of a class in messages: its qualified name unless it was made in a function.
pub(super) fn class_name(cls: &Bound<'_, PyAny>) -> PyResult<String> {
    let qualname: String = cls.getattr("__qualname__")?.extract()?;
    if qualname.contains("<locals>") {
        cls.getattr("__name__")?.extract()
    } else {
        Ok(qualname)
    }
}
