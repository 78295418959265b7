//! The Python methods of `crate::de::typed::plan`'s `TypePlan`.

use crate::de::typed::plan::*;
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::PyTraverseError;

#[pymethods]
impl TypePlan {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.tp)?;
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

crate::heap_class!(TypePlan);
