//! The requests: what a call asks for, read once from its arguments, one struct per direction.
//! Every entry point that packs reads a [`Pack`]; every one that unpacks reads a
//! [`de::Request`] ([`unpack`]). A new
//! argument is a field here, read in `parse`, its implementation below, and its row in the docs
//! (`scripts/options.py` writes the option tables and the stubs).

use std::sync::Arc;

use pyo3::prelude::*;

use crate::exc::JSONEncodeError;
use crate::opt::{self, Opt};
use crate::registry::{self, Table};
use crate::{de, ser};

/// What a call that packs asks for: its options, `default` and a registry's table.
pub struct Pack<'a, 'py> {
    pub opts: Opt,
    pub default: Option<&'a Bound<'py, PyAny>>,
    pub registry: Option<Arc<Table>>,
}

impl<'a, 'py> Pack<'a, 'py> {
    /// Reads `default`, `option` and `registry` as `func` (named in errors) takes them.
    #[inline(always)]
    pub fn parse(
        func: &str,
        default: Option<&'a Bound<'py, PyAny>>,
        option: Option<&Bound<'py, PyAny>>,
        registry: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Pack<'a, 'py>> {
        let opts = opt::parse_for_packing(option, func)?;
        opt::check_hook(default, "default")?;
        Ok(Pack {
            opts,
            default: default.filter(|d| !d.is_none()),
            registry: registry::table_of(registry)?,
        })
    }

    /// Reads `default` and `option` as `json.dumps` takes them: its options (the JSON ones among
    /// them), no registry, and a bad option raised as `JSONEncodeError`.
    pub fn parse_json(
        default: Option<&'a Bound<'py, PyAny>>,
        option: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Pack<'a, 'py>> {
        let opts = opt::parse(option, opt::JSON_DUMPS_MASK, "json.dumps").map_err(|e| match e {
            opt::OptError::NotAnInt(msg) | opt::OptError::Invalid(msg) => {
                JSONEncodeError::new_err(msg)
            }
        })?;
        opt::check_hook(default, "default")?;
        Ok(Pack {
            opts,
            default: default.filter(|d| !d.is_none()),
            registry: None,
        })
    }

    /// The engine's hooks for this request: `default`, the registry's table, and the class
    /// that `packb` hands to `default` rather than packing as a named tuple
    /// ([`crate::compat::ext_type`]).
    #[inline(always)]
    pub fn hooks(&self, py: Python<'py>) -> ser::Hooks<'a, 'py> {
        crate::compat::hooks(py, self.default, self.registry.clone())
    }
}

/// The arguments of a call that unpacks, as given (each `None` when absent or None).
#[derive(Default)]
pub struct UnpackArgs<'a, 'py> {
    pub option: Option<&'a Bound<'py, PyAny>>,
    pub ext_hook: Option<&'a Bound<'py, PyAny>>,
    pub tp: Option<&'a Bound<'py, PyAny>>,
    pub dec_hook: Option<&'a Bound<'py, PyAny>>,
    pub buffers: Option<&'a Bound<'py, PyAny>>,
    pub registry: Option<&'a Bound<'py, PyAny>>,
}

/// Reads `args` as `func` (named in errors) takes them, with the options `mask` allows, into
/// the request the decoder takes: the hooks must be callable, and an option only a typed read
/// takes needs a type.
#[inline(always)]
pub fn unpack<'a, 'py>(
    func: &str,
    mask: Opt,
    args: UnpackArgs<'a, 'py>,
) -> PyResult<de::Request<'a, 'py>> {
    let opts = opt::parse_for_reading(args.option, mask, func)?;
    opt::check_hook(args.ext_hook, "ext_hook")?;
    opt::check_hook(args.dec_hook, "dec_hook")?;
    let tp = args.tp.filter(|t| !t.is_none());
    if tp.is_none() {
        opt::check_untyped(opts, func)?;
    }
    Ok(de::Request {
        opts,
        ext_hook: args.ext_hook.filter(|h| !h.is_none()),
        typed: tp.map(|tp| (tp, args.dec_hook.filter(|h| !h.is_none()))),
        buffers: args.buffers.filter(|b| !b.is_none()),
        registry: registry::table_of(args.registry)?,
    })
}
