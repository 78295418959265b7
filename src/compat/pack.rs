//! Packing as msgpack-python's `Packer` does: the engine's walk ([`crate::ser`]) with a hook
//! ([`crate::ser::hook`]) that carries compat's rules, and msgpack-python's old-spec strings and
//! float32 ([`Legacy`]) when asked.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::legacy::Legacy;
use crate::emit::MsgpackEmitter;
use crate::error::{Error, Kind};
use crate::ffi::{self, BytesWriter, Ref};
use crate::opt::Opt;
use crate::ser::{self, dispatch, hook::Hook, Hooks};

/// How deep msgpack-python packs: a list nested 1024 levels deep (1025 containers), and not
/// one more.
pub const MAX_DEPTH: u64 = 1025;

/// What msgpack-python's `Packer` is asked to do beyond `packb`'s options.
pub struct Legacies {
    /// Strings and bytes as old-spec raw strings (`use_bin_type=False`).
    pub old_spec: bool,
    /// Floats as float32 (`use_single_float=True`).
    pub single_float: bool,
    /// The codec error handler for a str that strict UTF-8 refuses (`unicode_errors`).
    pub unicode_errors: Option<std::ffi::CString>,
}

/// Packs `obj` as msgpack-python's `Packer` does, the output starting with room for `start`
/// bytes (`buf_size`) when that is more than the scratch buffer holds. `defaults` are the
/// `Packer`'s conversion and its user's `default` ([`Hook::user_default`]).
pub fn packb<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    defaults: (Option<&Bound<'py, PyAny>>, Option<&Bound<'py, PyAny>>),
    opts: Opt,
    legacies: Legacies,
    start: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let (default, user_default) = defaults;
    let hooks = Hooks {
        default,
        registry: None,
        ext_tuple: super::ext_type(py),
    };
    let mut cx = ser::context(py, hooks, opts)?;
    cx.hook = Some(Hook {
        user_default: user_default.map(Ref::of_bound),
        converted: super::timestamp_type(py),
        max_depth: MAX_DEPTH,
    });
    cx.unicode_errors = legacies.unicode_errors;
    let mut scratch = ffi::scratch();
    let writer = if start > ffi::SCRATCH_LEN {
        // SAFETY: the GIL is held (`py`).
        unsafe { BytesWriter::with_capacity(start) }?
    } else {
        // SAFETY: the GIL is held for the whole call (`py`), and `scratch` outlives the writer,
        // which `finish` consumes before this function returns.
        unsafe { BytesWriter::in_scratch(&mut scratch) }
    };
    let written = if !legacies.old_spec && !legacies.single_float {
        ser::write_msgpack(obj, opts, &cx, writer)
    } else {
        let inner = MsgpackEmitter::new(writer);
        let mut emitter = Legacy::new(inner, legacies.old_spec, legacies.single_float);
        let st = ser::start(opts, &cx);
        dispatch::write(Ref::of_bound(obj), st, &cx, &mut emitter)
            .map(|()| emitter.into_inner().into_writer())
    };
    ser::finish(py, written.map_err(as_msgpack_python)?)
}

/// The engine's error as msgpack-python raises it: containers nested too deep (or in a circle)
/// are its `ValueError`; the rest pass unchanged.
#[inline(always)]
fn as_msgpack_python(err: Error) -> Error {
    match err.kind() {
        Some(Kind::TooDeep | Kind::CircularReference) => too_deep(),
        _ => err,
    }
}

#[cold]
fn too_deep() -> Error {
    // As msgpack-python words it.
    PyValueError::new_err("recursion limit exceeded.").into()
}
