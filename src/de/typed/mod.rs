//! Typed decoding, `unpackb(data, type=T)`: MessagePack straight into the objects `T` names,
//! checked as they are read.
//!
//! `fastmsgpack._typed` (Python) works out a plan for `T` once, from its annotations; the plan
//! is compiled into [`plan::TypePlan`], kept by the class it is for, and [`decode`] follows it.

mod classes;
mod decode;
pub mod error;
pub mod plan;
mod scalars;
mod text;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};

use super::reader::Reader;
use super::{DeError, Kind, Session, Setup};
use crate::ffi::{self, Known, Obj};
use crate::opt::{self, Opt};
use decode::TypedDecoder;
use plan::TypePlan;

/// Objects and names typed decoding uses, looked up once per process.
pub struct Handles {
    uuid: Obj,
    safe_unknown: Obj,
    decimal: Obj,
    int: Obj,
    is_safe: Obj,
    post_init: Obj,
    model_validate: Obj,
    plan_attr: Obj,
    alias_plans_attr: Obj,
    args_attr: Obj,
    origin_attr: Obj,
    /// `fastmsgpack._typed._BUILTIN_ALIASES`: plans of aliases that name no class of the
    /// program's own.
    builtin_aliases: Obj,
    plan_for: Obj,
    _owned: Vec<Py<PyAny>>,
}

// SAFETY: every pointer refers to an object kept alive by `_owned`, only used while attached.
unsafe impl Send for Handles {}
// SAFETY: as above.
unsafe impl Sync for Handles {}

static HANDLES: PyOnceLock<Handles> = PyOnceLock::new();

impl Handles {
    fn get(py: Python<'_>) -> PyResult<&'static Handles> {
        HANDLES.get_or_try_init(py, || {
            let mut owned: Vec<Py<PyAny>> = Vec::new();
            let mut keep = |obj: Bound<'_, PyAny>| -> Obj {
                let ptr = obj.as_ptr();
                owned.push(obj.unbind());
                ptr
            };
            let uuid_module = py.import("uuid")?;
            let uuid = keep(uuid_module.getattr("UUID")?);
            let safe_unknown = keep(uuid_module.getattr("SafeUUID")?.getattr("unknown")?);
            let decimal = keep(py.import("decimal")?.getattr("Decimal")?);
            let typed = py.import("fastmsgpack._typed")?;
            let plan_for = keep(typed.getattr("plan_for")?);
            let builtin_aliases = keep(
                typed
                    .getattr("_BUILTIN_ALIASES")?
                    .cast_into::<PyDict>()?
                    .into_any(),
            );
            let mut name = |s: &str| keep(PyString::intern(py, s).into_any());
            Ok(Handles {
                uuid,
                safe_unknown,
                decimal,
                int: name("int"),
                is_safe: name("is_safe"),
                post_init: name("__post_init__"),
                model_validate: name("model_validate"),
                plan_attr: name("__fastmsgpack_plan__"),
                alias_plans_attr: name("__fastmsgpack_plans__"),
                args_attr: name("__args__"),
                origin_attr: name("__origin__"),
                builtin_aliases,
                plan_for,
                _owned: owned,
            })
        })
    }
}

/// The plan for `tp`: a class's own (kept in its `__dict__`), else worked out by
/// `fastmsgpack._typed.plan_for`.
fn plan_for<'py>(
    py: Python<'py>,
    handles: &Handles,
    tp: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, TypePlan>> {
    // SAFETY: attached; `tp` is live.
    if unsafe { ffi::is_type(tp.as_ptr()) } {
        // SAFETY: the name is a live interned str.
        let name = unsafe {
            Bound::from_borrowed_ptr(py, handles.plan_attr).cast_into_unchecked::<PyString>()
        };
        if let Ok(found) = tp.getattr(name) {
            if let Ok(plan) = found.cast_into::<TypePlan>() {
                // A subclass finds its base's plan by inheritance: only its own will do.
                if plan.get().owner.as_ref().is_some_and(|o| o.is(tp)) {
                    return Ok(plan);
                }
            }
        }
    }
    if let Some(plan) = alias_plan(py, handles, tp) {
        return Ok(plan);
    }
    // SAFETY: `plan_for` is a live function.
    let plan_for = unsafe { Bound::from_borrowed_ptr(py, handles.plan_for) };
    Ok(plan_for.call1((tp,))?.cast_into::<TypePlan>()?)
}

/// An interned name of `handles` as a str.
fn name<'py>(py: Python<'py>, name: Obj) -> Bound<'py, PyString> {
    // SAFETY: the names of `Handles` are live interned strs.
    unsafe { Bound::from_borrowed_ptr(py, name).cast_into_unchecked::<PyString>() }
}

/// The plan already made for an alias (`list[Route]`, `Route | None`), found where
/// `fastmsgpack._typed.plan_for` keeps it, without calling into Python; `None` when there is
/// none yet (or the alias is one this look-up does not follow).
fn alias_plan<'py>(
    py: Python<'py>,
    handles: &Handles,
    tp: &Bound<'py, PyAny>,
) -> Option<Bound<'py, TypePlan>> {
    let owned = alias_owner(py, handles, tp, 0);
    let table = owned
        .and_then(|owner| owner.getattr(name(py, handles.alias_plans_attr)).ok())
        .and_then(|t| t.cast_into::<PyDict>().ok())
        // SAFETY: the dict is kept alive by `handles`.
        .unwrap_or_else(|| unsafe {
            Bound::from_borrowed_ptr(py, handles.builtin_aliases).cast_into_unchecked::<PyDict>()
        });
    table.get_item(tp).ok()??.cast_into::<TypePlan>().ok()
}

/// Which class owns the plan of the alias `tp`, for `fastmsgpack._typed`, which stores the plan
/// there: [`alias_owner`], the one statement of the rule.
#[pyfunction]
pub fn _plan_owner<'py>(
    py: Python<'py>,
    tp: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(alias_owner(py, Handles::get(py)?, tp, 0))
}

/// The class whose `__dict__` keeps the plan of the alias `tp` (the ownership rule, stated here
/// only: `fastmsgpack._typed` asks [`_plan_owner`]): the first heap type among its `__args__`,
/// depth first, else its `__origin__` when that is one; `None` past 8 levels of nesting.
fn alias_owner<'py>(
    py: Python<'py>,
    handles: &Handles,
    tp: &Bound<'py, PyAny>,
    depth: u32,
) -> Option<Bound<'py, PyAny>> {
    if depth > 8 {
        return None;
    }
    if let Ok(args) = tp.getattr(name(py, handles.args_attr)) {
        if let Ok(args) = args.cast_into::<PyTuple>() {
            for arg in args.iter() {
                // SAFETY: attached; `arg` is live.
                if unsafe { ffi::is_type(arg.as_ptr()) } {
                    // SAFETY: as above; `arg` is a type.
                    if unsafe { ffi::is_heap_type(arg.as_ptr()) } {
                        return Some(arg);
                    }
                } else if let Some(found) = alias_owner(py, handles, &arg, depth + 1) {
                    return Some(found);
                }
            }
        }
    }
    let origin = tp.getattr(name(py, handles.origin_attr)).ok()?;
    // SAFETY: attached; `origin` is live, and a type when checked first.
    let heap = unsafe { ffi::is_type(origin.as_ptr()) && ffi::is_heap_type(origin.as_ptr()) };
    heap.then_some(origin)
}

/// What a typed call needs besides its input: the plan and the decoders' set-ups.
pub struct Typed<'py> {
    /// Some node is a `memoryview`: bins may view the input.
    pub has_memoryview: bool,
    plan: Bound<'py, TypePlan>,
    numpy_setup: Option<Setup>,
    dec_hook: Option<Obj>,
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
        source: Option<Obj>,
    ) -> PyResult<Typed<'py>> {
        let plan = plan_for(py, Handles::get(py)?, tp)?;
        Typed::with_plan(py, plan, dec_hook, opts, ext_hook, source)
    }

    /// The plan for `tp`, looked up (or worked out) now: an `Unpacker` keeps it.
    pub fn plan(py: Python<'py>, tp: &Bound<'py, PyAny>) -> PyResult<Bound<'py, TypePlan>> {
        plan_for(py, Handles::get(py)?, tp)
    }

    /// As [`Typed::new`], with the plan already at hand.
    pub fn with_plan(
        py: Python<'py>,
        plan: Bound<'py, TypePlan>,
        dec_hook: Option<&Bound<'py, PyAny>>,
        opts: Opt,
        ext_hook: Option<&Bound<'py, PyAny>>,
        source: Option<Obj>,
    ) -> PyResult<Typed<'py>> {
        let handles = Handles::get(py)?;
        let p = plan.get();
        if p.has_custom && dec_hook.is_none() {
            return Err(no_dec_hook(p));
        }
        if let Some(hook) = dec_hook {
            if !hook.is_callable() {
                return Err(PyTypeError::new_err("dec_hook must be callable"));
            }
        }
        let numpy_setup = if p.has_numpy {
            Some(Setup::new(py, opts | opt::NUMPY_RAW, ext_hook, source)?)
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
            dec_hook: dec_hook.map(|h| h.as_ptr()),
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
            dec_hook: self.dec_hook,
            forbid_unknown: self.forbid_unknown,
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
            dec_hook: self.dec_hook,
            forbid_unknown: self.forbid_unknown,
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
