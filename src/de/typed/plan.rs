//! A decoding plan: the nodes worked out for a type (see `compile`), in an arena where nodes
//! refer to each other by index (so a recursive class refers back to itself).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

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

// An explicit tag: the decoder tests a node's variant for every item it reads, and a niche
// in a field would make that a decoding of the field.
#[repr(u8)]
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
    Union(Union),
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

/// A union's members, and what its token alone decides (worked out once the plan is complete,
/// as a recursive class's node is a placeholder while its fields are compiled).
pub struct Union {
    pub members: Vec<usize>,
    /// The member that reads a nil, if any.
    pub nil: Option<usize>,
    /// The only member besides `None` (`Optional[T]`): it reads every value but a nil, and
    /// gives its own error.
    pub only: Option<usize>,
}

impl Union {
    pub fn new(members: Vec<usize>) -> Union {
        Union {
            members,
            nil: None,
            only: None,
        }
    }
}

/// Works out what each union's token decides, once every node of the plan is final.
pub fn settle_unions(nodes: &mut [Named]) {
    for i in 0..nodes.len() {
        let Node::Union(u) = &nodes[i].node else {
            continue;
        };
        let nil = u
            .members
            .iter()
            .copied()
            .find(|&m| nodes[m].node.takes_nil());
        let mut others = u
            .members
            .iter()
            .copied()
            .filter(|&m| !matches!(nodes[m].node, Node::None));
        let only = match (others.next(), others.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        };
        if let Node::Union(u) = &mut nodes[i].node {
            u.nil = nil;
            u.only = only;
        }
    }
}

impl Node {
    /// Whether the node reads its value whole, or tries more than one reading, instead of
    /// being read by the walk token by token.
    pub fn reads_whole(&self) -> bool {
        matches!(
            self,
            Node::Any
                | Node::Union(_)
                | Node::Enum { .. }
                | Node::Literal(_)
                | Node::Model(_)
                | Node::Custom(_)
                | Node::Numpy(_)
        )
    }

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
#[pyclass(
    crate = "crate::ffi::pyo3_per_interp",
    frozen,
    module = "fastmsgpack._fastmsgpack",
    name = "_TypePlan"
)]
pub struct TypePlan {
    pub nodes: Vec<Named>,
    /// The node of the type itself.
    pub root: usize,
    /// The type the plan was worked out for.
    pub tp: Py<PyAny>,
    /// Some node needs the call's `dec_hook`.
    pub has_custom: bool,
    /// Some node is a numpy array.
    pub has_numpy: bool,
}
