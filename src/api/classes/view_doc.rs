//! The Python methods of `crate::view::doc`'s `Doc`.

use crate::view::doc::*;
use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

#[pymethods]
impl Doc {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        match &self.source {
            Source::Bytes(b) if self.owned => visit.call(b)?,
            Source::Buffer(b) => visit.call(b.exporter())?,
            Source::Bytes(_) => {}
        }
        visit.call(self.setup.ext_hook())?;
        visit.call(&self.dec_hook)?;
        visit.call(&self.plan)
    }
}

crate::heap_class!(Doc);
