//! Typed decoding, `unpackb(data, type=T)`: MessagePack straight into the objects `T` names,
//! checked as they are read.
//!
//! [`compile`] works out a plan for `T` from `T` itself, once: [`cache`] keeps it (in the module,
//! never on the class), and [`decode`] follows it.

pub mod cache;
mod classes;
mod compile;
mod decode;
mod env;
pub mod error;
pub mod plan;
mod policy;
mod scalars;
mod text;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::reader::Reader;
use super::{DeError, Kind, Session, Setup};
use crate::ffi::{Known, Ref};
use crate::opt::{self, Opt};
use decode::TypedDecoder;
use plan::TypePlan;

/// Objects and names typed decoding uses, looked up once per process and held for its life
/// (borrowed as [`Ref`] with [`Ref::of_py`] while attached).
pub struct Handles {
    uuid: Py<PyAny>,
    safe_unknown: Py<PyAny>,
    decimal: Py<PyAny>,
    int: Py<PyString>,
    is_safe: Py<PyString>,
    post_init: Py<PyString>,
    model_validate: Py<PyString>,
}

static HANDLES: crate::ffi::PerInterp<Handles> = crate::ffi::PerInterp::new();

impl Handles {
    fn get(py: Python<'_>) -> PyResult<&'static Handles> {
        HANDLES.get_or_try_init(py, || {
            let uuid_module = py.import("uuid")?;
            let name = |s: &str| PyString::intern(py, s).unbind();
            Ok(Handles {
                uuid: uuid_module.getattr("UUID")?.unbind(),
                safe_unknown: uuid_module
                    .getattr("SafeUUID")?
                    .getattr("unknown")?
                    .unbind(),
                decimal: py.import("decimal")?.getattr("Decimal")?.unbind(),
                int: name("int"),
                is_safe: name("is_safe"),
                post_init: name("__post_init__"),
                model_validate: name("model_validate"),
            })
        })
    }
}

/// What a typed call needs besides its input: the plan and the decoders' set-ups.
pub struct Typed<'py> {
    /// Some node is a `memoryview`: bins may view the input.
    pub has_memoryview: bool,
    plan: Bound<'py, TypePlan>,
    numpy_setup: Option<Setup>,
    dec_hook: Option<Bound<'py, PyAny>>,
    forbid_unknown: bool,
    handles: &'static Handles,
    known: &'static Known,
}

impl<'py> Typed<'py> {
    /// Looks up (or works out) the plan for `tp`; `dec_hook` must outlive the decoding.
    pub fn new(
        py: Python<'py>,
        tp: &Bound<'py, PyAny>,
        dec_hook: Option<&Bound<'py, PyAny>>,
        opts: Opt,
        ext_hook: Option<&Bound<'py, PyAny>>,
        source: Option<Ref<'_>>,
    ) -> PyResult<Typed<'py>> {
        let plan = cache::plan_for(py, tp)?;
        Typed::with_plan(py, plan, dec_hook, opts, ext_hook, source)
    }

    /// The plan for `tp`, looked up (or worked out) now: an `Unpacker` keeps it.
    pub fn plan(py: Python<'py>, tp: &Bound<'py, PyAny>) -> PyResult<Bound<'py, TypePlan>> {
        cache::plan_for(py, tp)
    }

    /// As [`Typed::new`], with the plan already at hand.
    pub fn with_plan(
        py: Python<'py>,
        plan: Bound<'py, TypePlan>,
        dec_hook: Option<&Bound<'py, PyAny>>,
        opts: Opt,
        ext_hook: Option<&Bound<'py, PyAny>>,
        source: Option<Ref<'_>>,
    ) -> PyResult<Typed<'py>> {
        let handles = Handles::get(py)?;
        let p = plan.get();
        if p.has_custom && dec_hook.is_none() {
            return Err(no_dec_hook(p));
        }
        crate::opt::check_hook(dec_hook, "dec_hook")?;
        let numpy_setup = if p.has_numpy {
            Some(Setup::of(py, opts | opt::NUMPY_RAW, ext_hook, source)?)
        } else {
            None
        };
        let has_memoryview = p
            .nodes
            .iter()
            .any(|n| matches!(n.node, plan::Node::MemoryView));
        Ok(Typed {
            has_memoryview,
            plan,
            numpy_setup,
            dec_hook: dec_hook.cloned(),
            forbid_unknown: opts & opt::FORBID_UNKNOWN_FIELDS != 0,
            handles,
            known: Known::get(py)?,
        })
    }

    /// The object that `input` starts with, as the plan says, and where it ends (`whole`:
    /// nothing may follow it); the error not yet a Python exception (a stream shifts its offset).
    pub fn decode_at<'a>(
        &'a self,
        py: Python<'py>,
        input: &'a [u8],
        setup: &'a Setup,
        whole: bool,
    ) -> Result<(Bound<'py, PyAny>, usize), error::TError> {
        if input.is_empty() {
            return Err(DeError::input(Kind::Empty, 0).into());
        }
        let mut session = Session::begin(py, input.len());
        let mut decoder = TypedDecoder {
            py,
            r: Reader::new(input),
            nodes: &self.plan.get().nodes,
            setup,
            numpy_setup: self.numpy_setup.as_ref(),
            keys: session.keys(),
            known: self.known,
            handles: self.handles,
            dec_hook: self.dec_hook.as_ref().map(Ref::of_bound),
            forbid_unknown: self.forbid_unknown,
            node: 0,
            depth: 0,
            slots: Vec::new(),
        };
        let value = decoder.value(self.plan.get().root, 0)?;
        let end = decoder.r.pos;
        if whole && end != input.len() {
            let extra = input.len() - end;
            return Err(DeError::input(Kind::Trailing { extra }, end).into());
        }
        // SAFETY: the decoder hands over a strong reference.
        Ok((unsafe { Bound::from_owned_ptr(py, value.into_raw()) }, end))
    }
}

impl<'py> Typed<'py> {
    /// The object that starts at `offset` of `input`, nested `depth` containers deep, as the
    /// plan's node `node` says (its root when `None`); what follows it is left alone, and errors
    /// give offsets in the whole input. A lazy view builds one typed item of a large input with
    /// this.
    pub fn decode_nested_at(
        &self,
        py: Python<'py>,
        input: &[u8],
        setup: &Setup,
        offset: usize,
        depth: u32,
        node: Option<usize>,
    ) -> Result<Bound<'py, PyAny>, error::TError> {
        if offset >= input.len() {
            return Err(DeError::input(Kind::Empty, offset).into());
        }
        let mut session = Session::begin_at(py, input, offset);
        let mut r = Reader::new(input);
        r.pos = offset;
        let mut decoder = TypedDecoder {
            py,
            r,
            nodes: &self.plan.get().nodes,
            setup,
            numpy_setup: self.numpy_setup.as_ref(),
            keys: session.keys(),
            known: self.known,
            handles: self.handles,
            dec_hook: self.dec_hook.as_ref().map(Ref::of_bound),
            forbid_unknown: self.forbid_unknown,
            node: 0,
            depth: 0,
            slots: Vec::new(),
        };
        let node = node.unwrap_or(self.plan.get().root);
        let value = decoder.value(node, depth)?;
        // SAFETY: the decoder hands over a strong reference.
        Ok(unsafe { Bound::from_owned_ptr(py, value.into_raw()) })
    }
}

#[cold]
fn no_dec_hook(plan: &TypePlan) -> PyErr {
    let names: Vec<&str> = plan
        .nodes
        .iter()
        .filter(|n| matches!(n.node, plan::Node::Custom(_)))
        .map(|n| &*n.name)
        .collect();
    PyTypeError::new_err(format!(
        "unpackb(type={}): fastmsgpack cannot build {} itself; pass dec_hook(type, obj) to build it",
        plan.nodes[plan.root].name,
        names.join(", ")
    ))
}
