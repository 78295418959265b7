//! The error type of the serializer's hot paths: one pointer wide, so a `Result<(), Error>`
//! comes back in a register instead of through memory. What went wrong (a [`Kind`]), the type
//! refused and the path to the value are boxed with the `PyErr` on the (cold) error path: each
//! container adds its step while the error unwinds through it, so nothing is spent on the path
//! while walking. At the Python boundary they become the exception's `kind`, `type` and `path`
//! attributes, and the path ends the message.

use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::exc::MsgpackEncodeError;
use fastmsgpack_core::limits::MAX_ENCODE_DEPTH;

/// What went wrong while packing: the exception's `kind`, as the string [`Kind::name`] gives.
/// [`KINDS`] lists them for Python (`fastmsgpack._ENCODE_KINDS`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A value of a type that nothing packs (and no `default` took).
    UnsupportedType,
    /// `default` raised (its exception is the `__cause__`).
    DefaultFailed,
    /// `default` returned values that needed `default` again, too many times over.
    DefaultTooDeep,
    /// An int outside MessagePack's range (or `OPT_STRICT_INTEGER`'s).
    IntOutOfRange,
    /// A str with a lone surrogate (not valid UTF-8).
    InvalidStr,
    /// A dict key the options do not allow.
    InvalidKey,
    /// `OPT_SORT_KEYS` met keys it cannot sort.
    UnsortableKeys,
    /// A container changed size while it was being packed.
    ChangedSize,
    /// Containers nested deeper than the limit.
    TooDeep,
    /// A container that contains itself.
    CircularReference,
    /// A str, bytes, container or extension longer than the format holds.
    TooLong,
    /// A value of a supported type that cannot be written (an aware `time`, a bad `utcoffset`,
    /// a numpy dtype, a non-contiguous memoryview, a bad `Ext` or fragment...).
    InvalidValue,
    /// Python code that packing called (a `utcoffset`, a field lookup, `buffer_callback`) raised.
    CallFailed,
    /// An invalid `option` (or argument) given to the call.
    InvalidOption,
}

/// Every kind, in the order of [`Kind`].
pub const KINDS: &[Kind] = &[
    Kind::UnsupportedType,
    Kind::DefaultFailed,
    Kind::DefaultTooDeep,
    Kind::IntOutOfRange,
    Kind::InvalidStr,
    Kind::InvalidKey,
    Kind::UnsortableKeys,
    Kind::ChangedSize,
    Kind::TooDeep,
    Kind::CircularReference,
    Kind::TooLong,
    Kind::InvalidValue,
    Kind::CallFailed,
    Kind::InvalidOption,
];

impl Kind {
    pub const fn name(self) -> &'static str {
        match self {
            Kind::UnsupportedType => "unsupported_type",
            Kind::DefaultFailed => "default_failed",
            Kind::DefaultTooDeep => "default_too_deep",
            Kind::IntOutOfRange => "int_out_of_range",
            Kind::InvalidStr => "invalid_str",
            Kind::InvalidKey => "invalid_key",
            Kind::UnsortableKeys => "unsortable_keys",
            Kind::ChangedSize => "changed_size",
            Kind::TooDeep => "too_deep",
            Kind::CircularReference => "circular_reference",
            Kind::TooLong => "too_long",
            Kind::InvalidValue => "invalid_value",
            Kind::CallFailed => "call_failed",
            Kind::InvalidOption => "invalid_option",
        }
    }
}

/// One step of the path to the value at fault, from the container that holds it.
pub enum Step {
    /// An item of an array (list, tuple, set).
    Index(usize),
    /// A map key, or a field name (held: written as `.name` or `[repr]` at the end).
    Key(Py<PyAny>),
    /// A map entry whose key could not be found again (the dict changed meanwhile).
    Lost(usize),
}

pub struct Failure {
    err: PyErr,
    kind: Option<Kind>,
    refused: Option<Py<PyType>>,
    /// Innermost step first.
    steps: Vec<Step>,
    /// For a nesting error, the containers on the way out (innermost first), held: one met
    /// twice makes it a circular reference.
    containers: Vec<Py<PyAny>>,
    /// The error is about a dict key, not a value: the dict whose key it is adds no step.
    in_key: bool,
}

pub struct Error(Box<Failure>);

/// A Python object that an error names (the value refused, a key, a container on the path):
/// live, and on a thread attached to the interpreter, while the error is built. The engine's
/// borrowed references (`Ref`) are such objects.
pub trait Live: Copy {
    /// The object's address.
    fn object(self) -> *mut pyo3::ffi::PyObject;
}

pub type Res<T = ()> = Result<T, Error>;

impl From<PyErr> for Error {
    #[cold]
    #[inline(never)]
    fn from(err: PyErr) -> Error {
        Error(Box::new(Failure {
            err,
            kind: None,
            refused: None,
            steps: Vec::new(),
            containers: Vec::new(),
            in_key: false,
        }))
    }
}

impl Error {
    /// What went wrong, when the error is one of the engine's (not a Python exception passing
    /// through).
    #[cold]
    pub fn kind(&self) -> Option<Kind> {
        self.0.kind
    }

    /// A `MsgpackEncodeError` (or subclass instance `err`) of `kind`.
    #[cold]
    #[inline(never)]
    pub fn new(kind: Kind, err: PyErr) -> Error {
        let mut e = Error::from(err);
        e.0.kind = Some(kind);
        e
    }

    /// The same error, saying that `obj`'s type is the one refused.
    #[cold]
    #[inline(never)]
    pub fn refusing(mut self, obj: impl Live) -> Error {
        // SAFETY: `obj` is live on an attached thread (`Live`'s invariant).
        let py = unsafe { Python::assume_attached() };
        // SAFETY: `obj` is live (as above); a strong reference is taken to it while its type is
        // read.
        let obj = unsafe { Bound::from_borrowed_ptr(py, obj.object()) };
        self.0.refused = Some(obj.get_type().unbind());
        self
    }

    /// The error unwinding out of item `i` of the array `container`.
    #[cold]
    #[inline(never)]
    pub fn at_index(self, i: usize, container: impl Live) -> Error {
        self.step(Step::Index(i), container)
    }

    /// The error unwinding out of the value under `key` (live and held) in `container`.
    #[cold]
    #[inline(never)]
    pub fn at_key(self, key: impl Live, container: impl Live) -> Error {
        // SAFETY: `key` is live on an attached thread (`Live`'s invariant).
        let py = unsafe { Python::assume_attached() };
        // SAFETY: `key` is live (the caller holds it); a strong reference is taken to it.
        let key = unsafe { Bound::from_borrowed_ptr(py, key.object()) }.unbind();
        self.step(Step::Key(key), container)
    }

    /// The error was raised writing a dict key: the path ends at the dict.
    #[cold]
    #[inline(never)]
    pub fn in_key(mut self) -> Error {
        self.0.in_key = true;
        self
    }

    /// Whether the error is about the key of the entry unwinding (and takes no step for it);
    /// the containers further out take theirs.
    #[cold]
    pub fn take_in_key(&mut self) -> bool {
        std::mem::take(&mut self.0.in_key)
    }

    /// The error unwinding out of entry `n` of a map whose key cannot be read again.
    #[cold]
    #[inline(never)]
    pub fn at_lost_entry(self, n: usize, container: impl Live) -> Error {
        self.step(Step::Lost(n), container)
    }

    fn step(mut self, step: Step, container: impl Live) -> Error {
        if self.0.kind.is_none() {
            // Not one of ours (a Python exception passing through): left as it is.
            return self;
        }
        if self.0.kind == Some(Kind::TooDeep) {
            // SAFETY: errors unwind on an attached thread.
            let py = unsafe { Python::assume_attached() };
            // SAFETY: the container is live while its walk unwinds (its writer holds it); a
            // strong reference is taken to it.
            let held = unsafe { Bound::from_borrowed_ptr(py, container.object()) }.unbind();
            self.0.containers.push(held);
        }
        self.0.steps.push(step);
        self
    }
}

/// `$` and the steps, outermost first.
#[cold]
fn render(py: Python<'_>, steps: &[Step]) -> String {
    let mut out = String::from("$");
    for step in steps.iter().rev() {
        match step {
            Step::Index(i) => out += &format!("[{i}]"),
            Step::Lost(n) => out += &format!("[<entry {n}>]"),
            Step::Key(key) => {
                let key = key.bind(py);
                match key.extract::<String>() {
                    Ok(name)
                        if key.is_exact_instance_of::<pyo3::types::PyString>()
                            && is_identifier(&name) =>
                    {
                        out.push('.');
                        out += &name;
                    }
                    _ => {
                        let repr = key
                            .repr()
                            .map(|r| r.to_string())
                            .unwrap_or_else(|_| "?".to_owned());
                        out += &format!("[{repr}]");
                    }
                }
            }
        }
    }
    out
}

/// Whether `name` is written as `.name` in a path (else as `["name"]`), as decode paths are.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

impl From<Error> for PyErr {
    #[cold]
    fn from(err: Error) -> PyErr {
        let f = *err.0;
        let Some(mut kind) = f.kind else {
            return f.err;
        };
        // SAFETY: errors are only raised while attached to the interpreter.
        let py = unsafe { Python::assume_attached() };
        let first = crate::exc::settled(py, f.err);
        if !first.is_instance_of::<MsgpackEncodeError>(py) {
            // `fastmsgpack.compat`'s own classes (msgpack-python's): as msgpack-python words them.
            return first;
        }
        let path = render(py, &f.steps);
        let mut message = first.value(py).to_string();
        if kind == Kind::TooDeep {
            if let Some(circle) = circle(py, &f.containers, &f.steps) {
                kind = Kind::CircularReference;
                message = circle;
            }
        }
        if path != "$" && kind != Kind::CircularReference {
            message = format!("{message} at {path}");
        }
        let class = first.get_type(py);
        let err = match class.call1((message,)) {
            Ok(value) => PyErr::from_value(value),
            Err(failed) => return failed,
        };
        err.set_cause(py, first.cause(py));
        let value = err.value(py);
        let set = || -> PyResult<()> {
            value.setattr(crate::intern!(py, "kind"), kind.name())?;
            value.setattr(crate::intern!(py, "path"), &path)?;
            value.setattr(crate::intern!(py, "type"), f.refused.as_ref())?;
            Ok(())
        };
        match set() {
            Ok(()) => err,
            Err(failed) => failed,
        }
    }
}

/// For a nesting error, the message that names the circular reference, when a container on
/// the way out was met twice: where it is first, and where it is met again inside itself.
#[cold]
fn circle(py: Python<'_>, containers: &[Py<PyAny>], steps: &[Step]) -> Option<String> {
    // `containers[i]` is the container that `steps[i]` leads out of: the container at the path
    // of the steps after `i` (outer ones).
    let n = containers.len();
    for outer in (0..n).rev() {
        for inner in (0..outer).rev() {
            if containers[outer].as_ptr() == containers[inner].as_ptr() {
                let first = render(py, &steps[outer + 1..]);
                let again = render(py, &steps[inner + 1..]);
                return Some(format!(
                    "circular reference: the value at {first} contains itself at {again}"
                ));
            }
        }
    }
    None
}

// Errors that more than one direction raises: the serializer, the emitters and the transcoder
// (which refuses what `json.dumps` would).

#[cold]
pub fn too_long(what: &str) -> Error {
    Error::new(
        Kind::TooLong,
        MsgpackEncodeError::new_err(format!("{what} is too long for MessagePack (over 2**32-1)")),
    )
}

#[cold]
pub fn too_deep() -> Error {
    Error::new(
        Kind::TooDeep,
        MsgpackEncodeError::new_err(format!(
            "containers nested deeper than {MAX_ENCODE_DEPTH} levels"
        )),
    )
}

/// `err`, with `cause` as its `__cause__`.
#[cold]
pub fn with_cause(err: PyErr, cause: PyErr) -> PyErr {
    // SAFETY: errors are only built while the GIL is held.
    let py = unsafe { Python::assume_attached() };
    err.set_cause(py, Some(cause));
    err
}
