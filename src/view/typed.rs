//! Typed reading through a view: `View(data, type=T)` follows `T`'s decoding plan (the one
//! `unpackb(data, type=T)` uses) as the view is walked, and `.get(key, type=T)` or
//! `.to_python(type=T)` decode one item into `T`. Only what is read is built: one `Stop` read
//! out of a large `Route` builds that `Stop` alone.

use pyo3::prelude::*;

use super::doc::Doc;
use crate::de::typed::error::TError;
use crate::de::typed::plan::{Node, TypePlan};
use crate::de::typed::Typed;

impl Doc {
    /// The node of the document's type for its outermost object.
    pub fn root_node(&self, py: Python<'_>) -> Option<usize> {
        self.plan.as_ref().map(|p| p.bind(py).get().root)
    }

    /// Whether an item read as `node` is seen as a view (a list, tuple or dict of the type, or
    /// a class at the outermost level) rather than built whole (a class, a union, a scalar).
    pub fn navigable(&self, py: Python<'_>, node: usize) -> bool {
        let Some(plan) = &self.plan else {
            return true;
        };
        let plan = plan.bind(py).get();
        match plan.nodes.get(node).map(|n| &n.node) {
            Some(
                Node::Any | Node::List(_) | Node::VarTuple(_) | Node::Tuple(_) | Node::Dict(..),
            ) => true,
            Some(Node::Dataclass(_) | Node::TypedDict(_)) => node == plan.root,
            _ => false,
        }
    }

    /// The node of the value under the key whose UTF-8 bytes are `key` (`None` for another key
    /// type) in a map read as `node`; `None` when the type says nothing of it (read untyped).
    pub fn map_child(
        &self,
        py: Python<'_>,
        node: Option<usize>,
        key: Option<&[u8]>,
    ) -> Option<usize> {
        let plan = self.plan.as_ref()?.bind(py).get();
        match &plan.nodes.get(node?)?.node {
            Node::Dict(_, value) => Some(*value),
            Node::Dataclass(class) | Node::TypedDict(class) => {
                let key = key?;
                class
                    .fields
                    .iter()
                    .find(|f| &*f.bytes == key)
                    .map(|f| f.node)
            }
            _ => None,
        }
    }

    /// The node of item `i` of an array read as `node`.
    pub fn array_child(&self, py: Python<'_>, node: Option<usize>, i: usize) -> Option<usize> {
        let plan = self.plan.as_ref()?.bind(py).get();
        match &plan.nodes.get(node?)?.node {
            Node::List(item) | Node::VarTuple(item) => Some(*item),
            Node::Tuple(items) => items.get(i).copied(),
            _ => None,
        }
    }

    /// The object at `offset`, nested `depth` deep, built as `node` of the document's type
    /// says.
    pub fn decode_typed<'py>(
        &self,
        py: Python<'py>,
        offset: usize,
        depth: u32,
        node: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(plan) = &self.plan else {
            return self.decode(py, offset, depth);
        };
        let typed = Typed::with_plan(
            py,
            plan.bind(py).clone(),
            self.dec_hook.as_ref().map(|h| h.bind(py)),
            self.opts(),
            self.setup.ext_hook().map(|h| h.bind(py)),
            None,
        )?;
        typed
            .decode_nested_at(py, self.data(), &self.setup, offset, depth, node)
            .map_err(TError::into_pyerr)
    }

    /// The object at `offset`, nested `depth` deep, built as the type `tp` says.
    pub fn decode_as<'py>(
        &self,
        py: Python<'py>,
        offset: usize,
        depth: u32,
        tp: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let typed = Typed::new(
            py,
            tp,
            self.dec_hook.as_ref().map(|h| h.bind(py)),
            self.opts(),
            self.setup.ext_hook().map(|h| h.bind(py)),
            None,
        )?;
        typed
            .decode_nested_at(py, self.data(), &self.setup, offset, depth, None)
            .map_err(TError::into_pyerr)
    }
}

/// The plan for the type `tp`.
pub fn plan_of(py: Python<'_>, tp: &Bound<'_, PyAny>) -> PyResult<Py<TypePlan>> {
    Ok(Typed::plan(py, tp)?.unbind())
}
