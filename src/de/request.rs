//! What a call that unpacks asks for ([`Request`]), filled once by the Python face from its
//! arguments, and the one place where the decoder for it is chosen ([`Request::decode`]).

use std::sync::Arc;

use pyo3::prelude::*;

use crate::opt::{self, Opt};
use crate::registry::Table;

/// What a call that unpacks asks for: its options, `ext_hook`, the type to decode into (with
/// its `dec_hook`), the out-of-band `buffers` and a registry's table. Each is `None` when not
/// given (or given as None).
pub struct Request<'a, 'py> {
    pub opts: Opt,
    pub ext_hook: Option<&'a Bound<'py, PyAny>>,
    /// `type=` and `dec_hook`, when a type is given.
    pub typed: Option<(&'a Bound<'py, PyAny>, Option<&'a Bound<'py, PyAny>>)>,
    pub buffers: Option<&'a Bound<'py, PyAny>>,
    pub registry: Option<Arc<Table>>,
}

impl<'py> Request<'_, 'py> {
    /// Decodes the one object `data` holds as this request asks: into its type, with the exact
    /// types or a registry's classes, or plainly. `what` names `data` in a `TypeError`
    /// ("unpackb() argument").
    #[inline(always)]
    pub fn decode(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        what: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.typed {
            Some(typed) => super::unpackb_typed(py, data, what, self, typed),
            None if self.registry.is_none() && self.opts & opt::EXACT == 0 => {
                super::unpackb(py, data, what, self)
            }
            None => super::unpackb_exact(py, data, what, self),
        }
    }
}
