//! Works out the plan of a type from the type itself: its annotations, origin and arguments,
//! read through `typing`, `dataclasses` and pydantic, into the nodes of [`TypePlan`].
//!
//! A class is given its node before its fields are read, so that a recursive class (or one met
//! again through a forward reference) refers back to it by index.

use pyo3::exceptions::{PyRecursionError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use super::env::{class_name, Env};
use super::plan::{settle_unions, Class, Field, Missing, Named, Node, TypePlan, Union};

/// How deeply types may nest inside one another (classes met again do not count).
const MAX_DEPTH: u32 = 128;

/// The plan for `tp`, worked out now.
pub(super) fn compile(py: Python<'_>, tp: &Bound<'_, PyAny>) -> PyResult<TypePlan> {
    let env = Env::new(py)?;
    let mut builder = Builder {
        e: &env,
        nodes: Vec::new(),
        classes: PyDict::new(py),
        has_custom: false,
        depth: 0,
    };
    let root = builder.add(tp, None)?;
    settle_unions(&mut builder.nodes);
    let has_numpy = builder
        .nodes
        .iter()
        .any(|n| matches!(n.node, Node::Numpy(_)));
    Ok(TypePlan {
        nodes: builder.nodes,
        root,
        tp: tp.clone().unbind(),
        has_custom: builder.has_custom,
        has_numpy,
    })
}

type Vars<'a, 'py> = Option<&'a Bound<'py, PyDict>>;

struct Builder<'a, 'py> {
    e: &'a Env<'py>,
    nodes: Vec<Named>,
    /// Classes being (or already) built, by `(class, type arguments)`: a recursive reference
    /// becomes the index of the class's node.
    classes: Bound<'py, PyDict>,
    has_custom: bool,
    depth: u32,
}

#[cold]
fn unsupported(tp: &Bound<'_, PyAny>) -> PyErr {
    match tp.repr() {
        Ok(repr) => PyTypeError::new_err(format!("unsupported type {repr} for unpackb(type=...)")),
        Err(err) => err,
    }
}

impl<'py> Builder<'_, 'py> {
    fn name(&self, index: usize) -> &str {
        &self.nodes[index].name
    }

    fn push(&mut self, node: Node, name: impl Into<Box<str>>) -> usize {
        self.nodes.push(Named {
            node,
            name: name.into(),
        });
        self.nodes.len() - 1
    }

    fn add(&mut self, tp: &Bound<'py, PyAny>, vars: Vars<'_, 'py>) -> PyResult<usize> {
        if self.depth >= MAX_DEPTH {
            return Err(PyRecursionError::new_err(
                "unpackb(type=...): the type nests too deeply",
            ));
        }
        self.depth += 1;
        let index = self.add_nested(tp, vars);
        self.depth -= 1;
        index
    }

    fn add_nested(&mut self, tp: &Bound<'py, PyAny>, vars: Vars<'_, 'py>) -> PyResult<usize> {
        let e = self.e;
        let py = e.py;
        if e.isinstance(tp, &e.type_var)? {
            if let Some(found) = vars.map(|v| v.get_item(tp)).transpose()?.flatten() {
                return self.add(&found, None);
            }
            let bound = tp.getattr("__bound__")?;
            return self.add(if bound.is_none() { &e.any } else { &bound }, None);
        }
        if tp.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(format!(
                "unresolved forward reference {}: pass the type itself",
                tp.repr()?
            )));
        }
        if e.isinstance(tp, &e.new_type)? {
            return self.add(&tp.getattr("__supertype__")?, vars);
        }
        if let Some((node, name)) = e.scalar(tp) {
            return Ok(self.push(node, name));
        }
        let origin = e.get_origin.call1((tp,))?;
        let mut args = e.get_args.call1((tp,))?.cast_into::<PyTuple>()?;
        if let Some(vars) = vars.filter(|v| !v.is_empty()) {
            let mut bound = Vec::with_capacity(args.len());
            for arg in args.iter() {
                let found = if e.isinstance(&arg, &e.type_var)? {
                    vars.get_item(&arg)?
                } else {
                    None
                };
                bound.push(found.unwrap_or(arg));
            }
            args = PyTuple::new(py, bound)?;
        }
        if origin.is(&e.annotated) || origin.is(&e.final_) || origin.is(&e.class_var) {
            return self.add(&args.get_item(0)?, vars);
        }
        if e.wrappers.iter().any(|(w, _)| w.is(&origin)) {
            return self.add(&args.get_item(0)?, vars);
        }
        if e.unions.iter().any(|u| u.is(&origin)) {
            return self.union(&args, vars);
        }
        if origin.is(&e.literal) {
            return self.literal(&args);
        }
        if !origin.is_none() {
            return self.generic(tp, &origin, &args, vars);
        }
        if e.is_class(tp)? {
            return self.class(tp, &PyTuple::empty(py), vars);
        }
        Err(unsupported(tp))
    }

    #[inline(never)]
    fn union(&mut self, args: &Bound<'py, PyTuple>, vars: Vars<'_, 'py>) -> PyResult<usize> {
        let mut members = Vec::with_capacity(args.len());
        for arg in args.iter() {
            members.push(self.add(&arg, vars)?);
        }
        let names: Vec<&str> = members.iter().map(|&m| self.name(m)).collect();
        let name = names.join(" | ");
        Ok(self.push(Node::Union(Union::new(members)), name))
    }

    #[inline(never)]
    fn literal(&mut self, args: &Bound<'py, PyTuple>) -> PyResult<usize> {
        let e = self.e;
        let py = e.py;
        let mut values = Vec::new();
        for arg in args.iter() {
            // Literal[Literal[1], 2]
            if e.get_origin.call1((&arg,))?.is(&e.literal) {
                values.extend(e.get_args.call1((&arg,))?.cast_into::<PyTuple>()?.iter());
            } else {
                values.push(arg);
            }
        }
        let mut plain = Vec::with_capacity(4);
        for n in ["int", "str", "bool", "bytes"] {
            plain.push(e.builtins.getattr(n)?);
        }
        let mut reprs = Vec::with_capacity(values.len());
        for value in &values {
            let ty = value.get_type();
            let mut allowed = value.is_none() || e.isinstance(value, &e.enum_)?;
            allowed |= plain.iter().any(|p| ty.is(p));
            if !allowed {
                return Err(PyTypeError::new_err(format!(
                    "unsupported Literal value {}",
                    value.repr()?
                )));
            }
            reprs.push(value.repr()?.to_string());
        }
        let name = format!("Literal[{}]", reprs.join(", "));
        let table = PyDict::new(py);
        for value in &values {
            if !e.isinstance(value, &e.enum_)? {
                table.set_item((value.get_type(), value), value)?;
            }
        }
        for value in &values {
            if e.isinstance(value, &e.enum_)? {
                let inner = value.getattr("value")?;
                table.set_item((inner.get_type(), &inner), value)?;
            }
        }
        Ok(self.push(Node::Literal(table.unbind()), name))
    }

    /// The first argument, or `Any` when there is none.
    fn arg(&self, args: &Bound<'py, PyTuple>, i: usize) -> Bound<'py, PyAny> {
        args.get_item(i).unwrap_or_else(|_| self.e.any.clone())
    }

    fn generic(
        &mut self,
        tp: &Bound<'py, PyAny>,
        origin: &Bound<'py, PyAny>,
        args: &Bound<'py, PyTuple>,
        vars: Vars<'_, 'py>,
    ) -> PyResult<usize> {
        let e = self.e;
        let is_in = |group: &[Bound<'py, PyAny>]| group.iter().any(|t| t.is(origin));
        if is_in(&e.lists) {
            let child = self.add(&self.arg(args, 0), vars)?;
            let name = format!("list[{}]", self.name(child));
            return Ok(self.push(Node::List(child), name));
        }
        let frozen = e.containers[3].is(origin);
        if frozen || is_in(&e.sets) {
            let child = self.add(&self.arg(args, 0), vars)?;
            let kind = if frozen { "frozenset" } else { "set" };
            let name = format!("{kind}[{}]", self.name(child));
            let node = if frozen {
                Node::FrozenSet(child)
            } else {
                Node::Set(child)
            };
            return Ok(self.push(node, name));
        }
        if is_in(&e.dicts) {
            let key = self.add(&self.arg(args, 0), vars)?;
            let value = self.add(&self.arg(args, 1), vars)?;
            let name = format!("dict[{}, {}]", self.name(key), self.name(value));
            return Ok(self.push(Node::Dict(key, value), name));
        }
        if e.containers[1].is(origin) {
            return self.tuple(args, vars);
        }
        if origin.is(&e.type_) || origin.is(&e.callable) {
            return Err(unsupported(tp));
        }
        if e.isinstance(origin, &e.type_)? {
            return self.class(origin, args, vars);
        }
        Err(unsupported(tp))
    }

    /// `tuple[X, ...]` or `tuple[X, Y]`.
    #[inline(never)]
    fn tuple(&mut self, args: &Bound<'py, PyTuple>, vars: Vars<'_, 'py>) -> PyResult<usize> {
        let py = self.e.py;
        if args.len() == 2 && args.get_item(1)?.is(py.Ellipsis()) {
            let child = self.add(&args.get_item(0)?, vars)?;
            let name = format!("tuple[{}, ...]", self.name(child));
            return Ok(self.push(Node::VarTuple(child), name));
        }
        let mut items = Vec::with_capacity(args.len());
        // typing.Tuple[()] has the one argument ().
        let empty = args.len() == 1
            && args
                .get_item(0)?
                .cast::<PyTuple>()
                .is_ok_and(|t| t.is_empty());
        if !empty {
            for arg in args.iter() {
                items.push(self.add(&arg, vars)?);
            }
        }
        let names: Vec<&str> = items.iter().map(|&i| self.name(i)).collect();
        let inner = if names.is_empty() {
            "()".to_owned()
        } else {
            names.join(", ")
        };
        let name = format!("tuple[{inner}]");
        Ok(self.push(Node::Tuple(items), name))
    }

    #[inline(never)]
    fn class(
        &mut self,
        cls: &Bound<'py, PyAny>,
        args: &Bound<'py, PyTuple>,
        vars: Vars<'_, 'py>,
    ) -> PyResult<usize> {
        let e = self.e;
        let py = e.py;
        let key = PyTuple::new(py, [cls.clone(), args.clone().into_any()])?;
        if let Some(index) = self.classes.get_item(&key)? {
            return index.extract();
        }
        if e.containers.iter().any(|c| c.is(cls)) {
            return self.generic(cls, cls, &PyTuple::empty(py), vars);
        }
        if e.issubclass(cls, &e.enum_)? {
            let members = PyDict::new(py);
            members.update(
                cls.getattr("_value2member_map_")?
                    .cast::<PyDict>()?
                    .as_mapping(),
            )?;
            let node = Node::Enum {
                cls: cls.clone().unbind(),
                members: members.unbind(),
            };
            return Ok(self.push(node, class_name(cls)?));
        }
        let params = match cls.getattr("__parameters__") {
            Ok(p) => p.try_iter()?.collect::<PyResult<Vec<_>>>()?,
            Err(_) => Vec::new(),
        };
        let local = if !params.is_empty() && !args.is_empty() {
            let local = PyDict::new(py);
            for (param, arg) in params.iter().zip(args.iter()) {
                local.set_item(param, arg)?;
            }
            Some(local)
        } else {
            None
        };
        let local = local.as_ref();
        if e.is_dataclass.call1((cls,))?.is_truthy()? {
            return self.reserved(&key, cls, |b| b.dataclass(cls, local));
        }
        if e.is_typeddict.call1((cls,))?.is_truthy()? {
            return self.reserved(&key, cls, |b| b.typeddict(cls, local));
        }
        let tuple = &e.containers[1];
        if e.issubclass(cls, tuple)? && cls.hasattr("_fields")? {
            return self.reserved(&key, cls, |b| b.namedtuple(cls, local));
        }
        if let Some(base) = &e.base_model {
            if e.issubclass(cls, base)? {
                return Ok(self.push(Node::Model(cls.clone().unbind()), class_name(cls)?));
            }
        }
        if e.ndarray.as_ref().is_some_and(|a| a.is(cls)) {
            return Ok(self.push(Node::Numpy(cls.clone().unbind()), "numpy.ndarray"));
        }
        self.has_custom = true;
        Ok(self.push(Node::Custom(cls.clone().unbind()), class_name(cls)?))
    }

    /// Gives the class its node first (a placeholder, found by `key`), then builds it.
    #[inline(never)]
    fn reserved(
        &mut self,
        key: &Bound<'py, PyTuple>,
        cls: &Bound<'py, PyAny>,
        build: impl FnOnce(&mut Self) -> PyResult<Node>,
    ) -> PyResult<usize> {
        let index = self.push(Node::Any, class_name(cls)?);
        self.classes.set_item(key, index)?;
        self.nodes[index].node = build(self)?;
        Ok(index)
    }

    #[inline(never)]
    fn dataclass(&mut self, cls: &Bound<'py, PyAny>, local: Vars<'_, 'py>) -> PyResult<Node> {
        let e = self.e;
        let hints = e.type_hints(cls, false)?;
        let mut initvars = false;
        let declared = cls.getattr("__dataclass_fields__")?;
        for f in declared.call_method0("values")?.try_iter()? {
            initvars |= f?.getattr("_field_type")?.is(&e.field_initvar);
        }
        let params = cls.getattr("__dataclass_params__")?;
        let direct = params.getattr("init")?.is_truthy()?
            && !initvars
            && cls.getattr("__new__").is_ok_and(|n| n.is(&e.object_new))
            && cls.get_type().getattr("__call__")?.is(&e.type_call)
            && is_generated_init(cls)?;
        let mut fields = Vec::new();
        for f in e.fields.call1((cls,))?.try_iter()? {
            let f = f?;
            let name = f.getattr("name")?.cast_into::<PyString>()?;
            let default = f.getattr("default")?;
            let factory = f.getattr("default_factory")?;
            let missing = if !default.is(&e.missing) {
                Missing::Value(default.unbind())
            } else if !factory.is(&e.missing) {
                Missing::Factory(factory.unbind())
            } else {
                Missing::Required
            };
            let Some(hint) = hints.get_item(&name)? else {
                return Err(PyTypeError::new_err(format!(
                    "cannot resolve the annotation of {}.{}",
                    cls.getattr("__qualname__")?.str()?,
                    name
                )));
            };
            let node = self.add(&hint, local)?;
            let init = f.getattr("init")?.is_truthy()?;
            fields.push(field(&name, node, init, missing)?);
        }
        let post_init = cls.hasattr("__post_init__")?;
        Ok(Node::Dataclass(class(cls, fields, post_init, direct)))
    }

    #[inline(never)]
    fn typeddict(&mut self, cls: &Bound<'py, PyAny>, local: Vars<'_, 'py>) -> PyResult<Node> {
        let e = self.e;
        let hints = e.type_hints(cls, false)?;
        let required = pyo3::types::PySet::new(
            e.py,
            cls.getattr("__required_keys__")?
                .try_iter()?
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        // Under `from __future__ import annotations` the class could not see Required and
        // NotRequired in its (string) annotations: they are read from the resolved ones.
        // Over a list of the items: reading a field's type runs Python code.
        for item in e.type_hints(cls, true)?.items().iter() {
            let (name, hint): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
            let origin = e.get_origin.call1((&hint,))?;
            match e.wrappers.iter().find(|(w, _)| w.is(&origin)) {
                Some((_, true)) => required.add(&name)?,
                Some((_, false)) => {
                    required.discard(&name)?;
                }
                None => {}
            }
        }
        let mut fields = Vec::new();
        for item in hints.items().iter() {
            let (name, hint): (Bound<'py, PyString>, Bound<'py, PyAny>) = item.extract()?;
            let node = self.add(&hint, local)?;
            let missing = if required.contains(&name)? {
                Missing::Required
            } else {
                Missing::Omit
            };
            fields.push(field(&name, node, true, missing)?);
        }
        Ok(Node::TypedDict(class(cls, fields, false, true)))
    }

    #[inline(never)]
    fn namedtuple(&mut self, cls: &Bound<'py, PyAny>, local: Vars<'_, 'py>) -> PyResult<Node> {
        let e = self.e;
        let py = e.py;
        let hints = if super::env::truthy_attr(cls, "__annotations__")? {
            e.type_hints(cls, false)?
        } else {
            PyDict::new(py)
        };
        let defaults = cls.getattr("_field_defaults")?;
        let mut fields = Vec::new();
        for name in cls.getattr("_fields")?.try_iter()? {
            let name = name?.cast_into::<PyString>()?;
            let hint = hints.get_item(&name)?.unwrap_or_else(|| e.any.clone());
            let node = self.add(&hint, local)?;
            let missing = if defaults.contains(&name)? {
                Missing::Value(defaults.get_item(&name)?.unbind())
            } else {
                Missing::Required
            };
            fields.push(field(&name, node, true, missing)?);
        }
        // The __new__ that collections.namedtuple writes only makes the tuple: when the class
        // keeps it, the core makes the tuple itself.
        let mut direct = false;
        for base in cls.getattr("__mro__")?.try_iter()? {
            let base = base?;
            if base.getattr("__dict__")?.contains("_make")? {
                direct = cls.getattr("__new__")?.is(&base.getattr("__new__")?);
                break;
            }
        }
        Ok(Node::NamedTuple(class(cls, fields, false, direct)))
    }
}

/// Whether `cls.__init__` is the one @dataclass wrote (its code comes from a string).
fn is_generated_init(cls: &Bound<'_, PyAny>) -> PyResult<bool> {
    let Ok(code) = cls.getattr("__init__").and_then(|i| i.getattr("__code__")) else {
        return Ok(false);
    };
    Ok(code
        .getattr("co_filename")
        .is_ok_and(|f| f.eq("<string>").unwrap_or(false)))
}

fn field(name: &Bound<'_, PyString>, node: usize, init: bool, missing: Missing) -> PyResult<Field> {
    let text = name.to_str()?;
    Ok(Field {
        name: PyString::intern(name.py(), text).unbind(),
        bytes: text.as_bytes().into(),
        node,
        init,
        missing,
    })
}

fn class(cls: &Bound<'_, PyAny>, fields: Vec<Field>, post_init: bool, direct: bool) -> Box<Class> {
    let required = fields
        .iter()
        .filter(|f| f.init && matches!(f.missing, Missing::Required))
        .count();
    Box::new(Class {
        cls: cls.clone().unbind(),
        fields,
        post_init,
        direct,
        required,
    })
}
