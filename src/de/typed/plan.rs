//! A decoding plan: the nodes `fastmsgpack._typed` works out for a type, compiled once into an
//! arena where nodes refer to each other by index (so a recursive class refers back to itself).

use pyo3::exceptions::PyTypeError;
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::PyTraverseError;

/// What a field does when its key is missing from the map.
pub enum Missing {
    /// A `ValidationError`.
    Required,
    /// Take this object (shared, as a dataclass's `__init__` shares its defaults).
    Value(Py<PyAny>),
    /// Call this `default_factory`.
    Factory(Py<PyAny>),
    /// Leave it out (a `NotRequired` key of a TypedDict).
    Omit,
}

pub struct Field {
    /// The attribute or key name, interned.
    pub name: Py<PyString>,
    /// Its UTF-8 bytes, compared with the keys of the input.
    pub bytes: Box<[u8]>,
    pub node: usize,
    /// `False` for a dataclass field with `init=False`: its key in the input is ignored.
    pub init: bool,
    pub missing: Missing,
}

pub struct Class {
    pub cls: Py<PyAny>,
    pub fields: Vec<Field>,
    /// The class has `__post_init__` (called after the fields are set).
    pub post_init: bool,
    /// The instance can be made with `object.__new__` and its fields set directly, as the
    /// generated `__init__` would; otherwise the class is called with the checked values.
    pub direct: bool,
    /// How many fields have no default.
    pub required: usize,
}

pub enum Node {
    Any,
    Int,
    Float,
    Str,
    Bool,
    None,
    Bytes,
    ByteArray,
    /// `memoryview`: a bin as a view (of the input, or of an out-of-band buffer).
    MemoryView,
    Uuid,
    DateTime,
    Date,
    Time,
    Decimal,
    /// `numpy.ndarray`, from a map in msgpack-numpy's layout (`OPT_NUMPY_RAW`).
    Numpy(Py<PyAny>),
    List(usize),
    Set(usize),
    FrozenSet(usize),
    VarTuple(usize),
    Tuple(Vec<usize>),
    Dict(usize, usize),
    Union(Vec<usize>),
    /// `(type(value), value) -> value` for each value the Literal allows.
    Literal(Py<PyDict>),
    Enum {
        cls: Py<PyAny>,
        /// `value -> member`.
        members: Py<PyDict>,
    },
    Dataclass(Box<Class>),
    TypedDict(Box<Class>),
    NamedTuple(Box<Class>),
    /// A pydantic model: validated by `cls.model_validate`.
    Model(Py<PyAny>),
    /// Any other type: built by the call's `dec_hook(type, obj)`.
    Custom(Py<PyAny>),
}

impl Node {
    /// Whether the node can make something of a nil (decides how a union reads nil).
    pub fn takes_nil(&self) -> bool {
        matches!(self, Node::None | Node::Any | Node::Custom(_))
    }
}

/// A node and the name of its type, for error messages.
pub struct Named {
    pub node: Node,
    pub name: Box<str>,
}

/// The compiled plan for one type.
#[pyclass(frozen, module = "fastmsgpack._fastmsgpack", name = "_TypePlan")]
pub struct TypePlan {
    pub nodes: Vec<Named>,
    /// The node of the type itself.
    pub root: usize,
    /// The class whose `__dict__` holds this plan, if any.
    pub owner: Option<Py<PyAny>>,
    /// Some node needs the call's `dec_hook`.
    pub has_custom: bool,
    /// Some node is a numpy array.
    pub has_numpy: bool,
}

#[pymethods]
impl TypePlan {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(owner) = &self.owner {
            visit.call(owner)?;
        }
        for named in &self.nodes {
            match &named.node {
                Node::Literal(table) => visit.call(table)?,
                Node::Enum { cls, members, .. } => {
                    visit.call(cls)?;
                    visit.call(members)?;
                }
                Node::Dataclass(c) | Node::TypedDict(c) | Node::NamedTuple(c) => {
                    visit.call(&c.cls)?;
                    for f in &c.fields {
                        match &f.missing {
                            Missing::Value(v) | Missing::Factory(v) => visit.call(v)?,
                            Missing::Required | Missing::Omit => {}
                        }
                    }
                }
                Node::Model(cls) | Node::Custom(cls) | Node::Numpy(cls) => visit.call(cls)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "<fastmsgpack decoding plan for {}>",
            self.nodes[self.root].name
        )
    }
}

/// Compiles the node list of `fastmsgpack._typed` (each node a tuple `(kind, name, *args)`).
#[pyfunction]
pub fn _compile_plan(
    nodes: &Bound<'_, PyList>,
    root: usize,
    owner: Option<Bound<'_, PyAny>>,
    has_custom: bool,
) -> PyResult<TypePlan> {
    let count = nodes.len();
    let mut out = Vec::with_capacity(count);
    let mut has_numpy = false;
    for item in nodes.iter() {
        let t = item.cast_into::<PyTuple>()?;
        let kind: String = t.get_item(0)?.extract()?;
        let name: String = t.get_item(1)?.extract()?;
        let index = |i: usize| -> PyResult<usize> {
            let n: usize = t.get_item(i)?.extract()?;
            if n >= count {
                return Err(PyTypeError::new_err("plan node index out of range"));
            }
            Ok(n)
        };
        let indices = |i: usize| -> PyResult<Vec<usize>> {
            let list: Vec<usize> = t.get_item(i)?.extract()?;
            if list.iter().any(|&n| n >= count) {
                return Err(PyTypeError::new_err("plan node index out of range"));
            }
            Ok(list)
        };
        let node = match kind.as_str() {
            "any" => Node::Any,
            "int" => Node::Int,
            "float" => Node::Float,
            "str" => Node::Str,
            "bool" => Node::Bool,
            "none" => Node::None,
            "bytes" => Node::Bytes,
            "bytearray" => Node::ByteArray,
            "memoryview" => Node::MemoryView,
            "uuid" => Node::Uuid,
            "datetime" => Node::DateTime,
            "date" => Node::Date,
            "time" => Node::Time,
            "decimal" => Node::Decimal,
            "numpy" => {
                has_numpy = true;
                Node::Numpy(t.get_item(2)?.unbind())
            }
            "list" => Node::List(index(2)?),
            "set" => Node::Set(index(2)?),
            "frozenset" => Node::FrozenSet(index(2)?),
            "vartuple" => Node::VarTuple(index(2)?),
            "tuple" => Node::Tuple(indices(2)?),
            "dict" => Node::Dict(index(2)?, index(3)?),
            "union" => Node::Union(indices(2)?),
            "literal" => Node::Literal(t.get_item(2)?.cast_into::<PyDict>()?.unbind()),
            "enum" => Node::Enum {
                cls: t.get_item(2)?.unbind(),
                members: t.get_item(3)?.cast_into::<PyDict>()?.unbind(),
            },
            "dataclass" => Node::Dataclass(class(&t, count)?),
            "typeddict" => Node::TypedDict(class(&t, count)?),
            "namedtuple" => Node::NamedTuple(class(&t, count)?),
            "model" => Node::Model(t.get_item(2)?.unbind()),
            "custom" => Node::Custom(t.get_item(2)?.unbind()),
            other => {
                return Err(PyTypeError::new_err(format!(
                    "unknown plan node kind {other:?}"
                )))
            }
        };
        out.push(Named {
            node,
            name: name.into_boxed_str(),
        });
    }
    if root >= out.len() {
        return Err(PyTypeError::new_err("plan root out of range"));
    }
    Ok(TypePlan {
        nodes: out,
        root,
        owner: owner.map(Bound::unbind),
        has_custom,
        has_numpy,
    })
}

/// `(kind, name, cls, fields, post_init, direct)`, each field `(name, node, init, missing,
/// default)`, `missing` 0 required, 1 a value, 2 a factory, 3 omitted.
fn class(t: &Bound<'_, PyTuple>, count: usize) -> PyResult<Box<Class>> {
    let py = t.py();
    let mut fields = Vec::new();
    let mut required = 0;
    for f in t.get_item(3)?.try_iter()? {
        let f = f?.cast_into::<PyTuple>()?;
        let name = f.get_item(0)?.cast_into::<PyString>()?;
        let bytes = name.to_str()?.as_bytes().to_vec().into_boxed_slice();
        let name = PyString::intern(py, name.to_str()?).unbind();
        let node: usize = f.get_item(1)?.extract()?;
        if node >= count {
            return Err(PyTypeError::new_err("plan node index out of range"));
        }
        let init: bool = f.get_item(2)?.extract()?;
        let kind: u8 = f.get_item(3)?.extract()?;
        let default = f.get_item(4)?.unbind();
        let missing = match kind {
            0 => {
                if init {
                    required += 1;
                }
                Missing::Required
            }
            1 => Missing::Value(default),
            2 => Missing::Factory(default),
            _ => Missing::Omit,
        };
        fields.push(Field {
            name,
            bytes,
            node,
            init,
            missing,
        });
    }
    Ok(Box::new(Class {
        cls: t.get_item(2)?.unbind(),
        fields,
        post_init: t.get_item(4)?.extract()?,
        direct: t.get_item(5)?.extract()?,
        required,
    }))
}
