//! MessagePack to the objects a plan names, in one pass: each item is checked against its node
//! as it is read, and only the types of the plan are ever made. `Any` subtrees, pydantic models
//! and `dec_hook` types are decoded by the untyped decoder first.

use crate::intern;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::error::{Step, TError, TResult};
use super::plan::{Named, Node, Union};
use super::text;
use super::Handles;
use crate::de::error::{DeError, Kind};
use crate::de::keycache::{KeyCache, MAX_KEY_LEN};
use crate::de::reader::Reader;
use crate::de::token::{self, Token};
use crate::de::walk;
use crate::de::{ext, Setup};
use crate::ffi::{self, Known, Owned, Ref};

pub struct TypedDecoder<'a> {
    pub py: Python<'a>,
    pub r: Reader<'a>,
    pub nodes: &'a [Named],
    pub setup: &'a Setup,
    /// The setup for numpy nodes (`OPT_NUMPY_RAW` added), when the plan has any.
    pub numpy_setup: Option<&'a Setup>,
    pub keys: Option<&'a mut KeyCache>,
    pub known: &'static Known,
    pub handles: &'static Handles,
    pub dec_hook: Option<Ref<'a>>,
    /// `OPT_FORBID_UNKNOWN_FIELDS`: a key no field has is an error instead of skipped.
    pub forbid_unknown: bool,
    /// The node of the item the walk reads next: set for the root, and by the walk's hooks
    /// for each array item (`before_item`) and map value (`key`).
    pub node: usize,
    /// How deep that item is nested.
    pub depth: u32,
    /// The slots of the fields of the classes being read (see `policy::Slots`).
    pub slots: Vec<Option<Owned>>,
}

/// An object of the plan (a class, a table), borrowed for as long as the plan is.
#[inline(always)]
fn held<T>(obj: &Py<T>) -> Ref<'_> {
    // SAFETY: a `Py` is a strong reference, held by the plan at least as long as it is
    // borrowed, and typed decoding runs attached.
    unsafe { Ref::new(obj.as_ptr()) }
}

#[inline(always)]
pub(super) fn made(obj: Option<Owned>) -> TResult<Owned> {
    obj.ok_or_else(|| TError::from(ffi::fetch_error()))
}

/// Whether Python code that checks a value (a validator, `__post_init__`, `dec_hook`, a
/// constructor) refused it, as opposed to failing some other way.
fn is_refusal(py: Python<'_>, err: &pyo3::PyErr) -> bool {
    err.is_instance_of::<PyValueError>(py) || err.is_instance_of::<PyTypeError>(py)
}

impl<'a> TypedDecoder<'a> {
    #[cold]
    pub(super) fn mismatch(&self, node: usize, token: &Token<'_>, start: usize) -> TError {
        let found = match token {
            Token::Str(bytes) if bytes.len() <= 64 => {
                format!("str {:?}", String::from_utf8_lossy(bytes))
            }
            Token::Int(v) => format!("int {v}"),
            Token::UInt(v) => format!("int {v}"),
            Token::Bool(v) => format!("bool {}", if *v { "true" } else { "false" }),
            Token::Array(n) => format!("array of {n} items"),
            Token::Map(n) => format!("map of {n} entries"),
            Token::Ext(tag, _) => format!("ext type {tag}"),
            other => other.type_name().to_owned(),
        };
        TError::invalid(
            format!("expected {}, found {found}", self.nodes[node].name),
            start,
        )
    }

    /// What Python code that checks a value (a validator, `__post_init__`, `dec_hook`, a
    /// constructor) raised: a refusal (`ValueError`, `TypeError`) becomes a `ValidationError`
    /// caused by it, anything else passes through as it is.
    #[cold]
    pub(super) fn refused_or_raised(
        &self,
        node: usize,
        what: &str,
        start: usize,
        cause: pyo3::PyErr,
    ) -> TError {
        if is_refusal(self.py, &cause) {
            self.refused(node, what, start, cause)
        } else {
            cause.into()
        }
    }

    #[cold]
    pub(super) fn refused(
        &self,
        node: usize,
        what: &str,
        start: usize,
        cause: pyo3::PyErr,
    ) -> TError {
        TError::invalid_from(
            format!("expected {}, found {what}", self.nodes[node].name),
            start,
            cause,
        )
    }

    /// The object at the reader's position, untyped, as `setup` decodes it.
    fn untyped(&mut self, setup: &Setup, depth: u32) -> TResult<Owned> {
        // The numpy setup reads the out-of-band buffers of the call's own.
        let views = self.setup.views();
        let keys = self.keys.as_deref_mut();
        let (value, end) = if self.setup.bin_views() {
            let mut decoder = setup.decoder_with::<true>(self.py, self.r.data, keys, views);
            decoder.decode_nested(self.r.pos, depth)?
        } else {
            let mut decoder = setup.decoder_with::<false>(self.py, self.r.data, keys, views);
            decoder.decode_nested(self.r.pos, depth)?
        };
        self.r.pos = end;
        Ok(value)
    }

    /// The object for `node` at the reader's position.
    pub fn value(&mut self, node: usize, depth: u32) -> TResult<Owned> {
        self.node = node;
        if let Some(value) = self.quick(depth) {
            return value;
        }
        walk::value(self, depth)
    }

    /// The object for [`TypedDecoder::node`] when the node reads its value whole; `None` for
    /// the nodes the walk reads (a test of the node's variant, the cheap common case).
    #[inline(always)]
    pub(super) fn quick(&mut self, depth: u32) -> Option<TResult<Owned>> {
        let nodes = self.nodes;
        let node = &nodes[self.node].node;
        if !node.reads_whole() {
            return None;
        }
        // `Optional[T]`, the common union, without a call.
        if let Node::Union(u) = node {
            if let Some(m) = self.decided(u) {
                if !nodes[m].node.reads_whole() {
                    self.node = m;
                    return None;
                }
            }
        }
        self.whole(self.node, depth)
    }

    /// The object for a node that looks at the value whole, or tries more than one reading
    /// (`Any`, a union, an Enum, ...); `None` for the nodes the walk reads. A union whose
    /// member the token alone decides sets [`TypedDecoder::node`] to it (`None`, the walk reads
    /// it) or reads it (a member that reads the value whole).
    #[inline(never)]
    fn whole(&mut self, node: usize, depth: u32) -> Option<TResult<Owned>> {
        let nodes = self.nodes;
        Some(match &nodes[node].node {
            Node::Any => self.untyped(self.setup, depth),
            Node::Union(u) => match self.decided(u) {
                Some(m) if !nodes[m].node.reads_whole() => {
                    self.node = m;
                    return None;
                }
                Some(m) => self.value(m, depth),
                None => self.union(node, u, depth),
            },
            Node::Enum { cls, members } => self.enumeration(node, held(cls), held(members)),
            Node::Literal(table) => self.literal(node, held(table)),
            Node::Model(cls) => self.model(node, held(cls), depth),
            Node::Custom(cls) => self.custom(node, held(cls), depth),
            Node::Numpy(cls) => self.numpy(node, held(cls), depth),
            _ => return None,
        })
    }

    /// The object for `node` from the scalar `token`, which began at `start`.
    #[inline(always)]
    pub(super) fn typed_scalar(
        &mut self,
        node: usize,
        token: Token<'a>,
        start: usize,
    ) -> TResult<Owned> {
        let nodes = self.nodes;
        // SAFETY: every constructor below is called while attached (`self.py`).
        unsafe {
            match (&nodes[node].node, token) {
                (Node::Int, Token::Int(v)) => made(ffi::new_i64(v)),
                (Node::Int, Token::UInt(v)) => made(ffi::new_u64(v)),
                (Node::Str, Token::Str(bytes)) => self.str(bytes, start),
                (Node::Float, Token::F64(v)) => made(ffi::new_f64(v)),
                (Node::Float, Token::F32(v)) => made(ffi::new_f64(v as f64)),
                (Node::Float, Token::Int(v)) => made(ffi::new_f64(v as f64)),
                (Node::Float, Token::UInt(v)) => made(ffi::new_f64(v as f64)),
                (Node::Bool, Token::Bool(v)) => Ok(ffi::new_bool(v)),
                (Node::None, Token::Nil) => Ok(ffi::new_singleton(ffi::none())),
                (Node::Bytes, Token::Bin(bytes)) => made(ffi::new_bytes(bytes)),
                (Node::MemoryView, Token::Bin(bytes)) => self.memoryview(bytes),
                (
                    Node::Bytes | Node::MemoryView,
                    Token::Ext(fastmsgpack_core::buffer_ref::TAG, payload),
                ) => self.out_of_band(node, payload, start),
                (Node::ByteArray, Token::Bin(bytes)) => made(ffi::new_bytearray(bytes)),
                (Node::DateTime, Token::Str(bytes)) => self.datetime(node, bytes, start),
                (Node::DateTime, Token::Ext(-1, data)) => {
                    Ok(ext::timestamp(self.known, data, start)?)
                }
                (Node::Date, Token::Str(bytes)) => self.date(node, bytes, start),
                (Node::Time, Token::Str(bytes)) => self.time(node, bytes, start),
                (Node::Uuid, Token::Str(bytes)) => match text::uuid(bytes) {
                    Some(v) => self.uuid(v),
                    None => Err(self.mismatch(node, &token, start)),
                },
                (Node::Uuid, Token::Bin(bytes)) if bytes.len() == 16 => {
                    let mut raw = [0u8; 16];
                    raw.copy_from_slice(bytes);
                    self.uuid(u128::from_be_bytes(raw))
                }
                (Node::Decimal, Token::Str(_) | Token::Int(_) | Token::UInt(_))
                | (Node::Decimal, Token::F64(_) | Token::F32(_)) => {
                    self.decimal(node, token, start)
                }
                (_, token) => Err(self.mismatch(node, &token, start)),
            }
        }
    }

    /// A dict key, nested `depth` deep: strings through the key cache, and ints and floats
    /// also from their text (as keys written by JSON tools arrive).
    #[inline(always)]
    pub(super) fn dict_key(&mut self, node: usize, depth: u32) -> TResult<Owned> {
        let start = self.r.pos;
        let nodes = self.nodes;
        match &nodes[node].node {
            Node::Str => {
                let bytes = match token::next_key(&mut self.r)? {
                    Ok(bytes) => bytes,
                    Err(token) => return Err(self.mismatch(node, &token, start)),
                };
                if bytes.len() > MAX_KEY_LEN {
                    return self.str(bytes, start);
                }
                if !bytes.is_ascii() && simdutf8::basic::from_utf8(bytes).is_err() {
                    return Err(DeError::input(Kind::InvalidUtf8, start).into());
                }
                // SAFETY: valid UTF-8, and attached.
                made(unsafe {
                    match self.keys.as_deref_mut() {
                        Some(cache) => cache.get(bytes),
                        None => ffi::new_str(bytes),
                    }
                })
            }
            Node::Int | Node::Float => {
                let mut peek = Reader {
                    data: self.r.data,
                    pos: self.r.pos,
                };
                let Token::Str(bytes) = token::next(&mut peek, "map key")? else {
                    return self.value(node, depth);
                };
                self.r.pos = peek.pos;
                let text = std::str::from_utf8(bytes).unwrap_or("");
                // SAFETY: attached.
                let parsed = unsafe {
                    if matches!(nodes[node].node, Node::Int) {
                        match (text.parse::<i64>(), text.parse::<u64>()) {
                            (Ok(v), _) => ffi::new_i64(v),
                            (_, Ok(v)) => ffi::new_u64(v),
                            _ => None,
                        }
                    } else {
                        text.parse::<f64>().ok().and_then(|v| ffi::new_f64(v))
                    }
                };
                match parsed {
                    Some(key) => Ok(key),
                    None => Err(self.mismatch(node, &Token::Str(bytes), start)),
                }
            }
            _ => self.value(node, depth),
        }
    }

    /// The member of a union that the token alone decides: the one that reads a nil, or for
    /// `Optional[T]`, `T` for any other value.
    #[inline(always)]
    fn decided(&self, u: &Union) -> Option<usize> {
        if let (Some(m), Some(0xc0)) = (u.nil, self.r.data.get(self.r.pos)) {
            return Some(m);
        }
        u.only
    }

    /// A union that the token alone does not decide: each member is tried in turn.
    fn union(&mut self, node: usize, u: &Union, depth: u32) -> TResult<Owned> {
        let nodes = self.nodes;
        let start = self.r.pos;
        let members = &u.members;
        for &m in members {
            if matches!(nodes[m].node, Node::None) {
                continue;
            }
            match self.value(m, depth) {
                Ok(value) => return Ok(value),
                Err(e) if e.is_invalid() => self.r.pos = start,
                Err(e) => return Err(e),
            }
        }
        let token = token::next(&mut self.r, "value")?;
        Err(self.mismatch(node, &token, start))
    }

    /// The scalar at the reader's position (an Enum's or a Literal's value): str, int, float,
    /// bool, nil or bin, built from its token; anything else is refused before anything is made
    /// of it (an ext never reaches `ext_hook`, a container is not built).
    fn scalar(&mut self, node: usize) -> TResult<Owned> {
        let start = self.r.pos;
        let token = token::next(&mut self.r, "value")?;
        // SAFETY: attached.
        unsafe {
            match token {
                Token::Str(bytes) => self.str(bytes, start),
                Token::Int(v) => made(ffi::new_i64(v)),
                Token::UInt(v) => made(ffi::new_u64(v)),
                Token::F64(v) => made(ffi::new_f64(v)),
                Token::F32(v) => made(ffi::new_f64(v as f64)),
                Token::Bool(v) => Ok(ffi::new_bool(v)),
                Token::Nil => Ok(ffi::new_singleton(ffi::none())),
                Token::Bin(bytes) => made(ffi::new_bytes(bytes)),
                other => Err(self.mismatch(node, &other, start)),
            }
        }
    }

    fn enumeration(&mut self, node: usize, cls: Ref<'_>, members: Ref<'_>) -> TResult<Owned> {
        let start = self.r.pos;
        let value = self.scalar(node)?;
        let v = Ref::of(&value);
        // A bool or a float is the value only of a member whose value has that very type (as
        // for `type=int` and `Literal`): `True` and `1.0` are not the member whose value is 1.
        let exact = v.as_ptr() == ffi::true_obj()
            || v.as_ptr() == ffi::false_obj()
            || v.type_of() == ffi::float_type();
        // SAFETY: attached; `members` is a dict the plan keeps alive, `v` is held by `value`.
        unsafe {
            if let Some(member) = ffi::dict_get(members.as_ptr(), v.as_ptr()) {
                if !exact || same_value_type(self.py, Ref::of(&member), v) {
                    return Ok(member);
                }
                return Err(self.not_a_value(node, v, start));
            }
            // A combination of flags, or a value the class's `_missing_` knows.
            match ffi::call1(cls.as_ptr(), v.as_ptr()) {
                Ok(member) if exact && !same_value_type(self.py, Ref::of(&member), v) => {
                    Err(self.not_a_value(node, v, start))
                }
                Ok(member) => Ok(member),
                Err(cause) if is_refusal(self.py, &cause) => {
                    let what = ffi::repr_string(v.as_ptr());
                    Err(self.refused(node, &what, start, cause))
                }
                Err(cause) => Err(cause.into()),
            }
        }
    }

    #[cold]
    fn not_a_value(&self, node: usize, value: Ref<'_>, start: usize) -> TError {
        // SAFETY: attached; `value` is live.
        let what = unsafe { ffi::repr_string(value.as_ptr()) };
        TError::invalid(
            format!("expected {}, found {what}", self.nodes[node].name),
            start,
        )
    }

    fn literal(&mut self, node: usize, table: Ref<'_>) -> TResult<Owned> {
        let start = self.r.pos;
        let value = self.scalar(node)?;
        // SAFETY: attached; `table` is a dict the plan keeps alive, `value` is live.
        unsafe {
            let key = made(ffi::new_tuple(2))?;
            ffi::tuple_set(&key, 0, ffi::type_object(value.as_ptr()));
            ffi::tuple_set(&key, 1, Owned::from_borrowed(value.as_ptr()));
            if let Some(found) = ffi::dict_get(table.as_ptr(), key.as_ptr()) {
                return Ok(found);
            }
            let what = ffi::repr_string(value.as_ptr());
            Err(TError::invalid(
                format!("expected {}, found {what}", self.nodes[node].name),
                start,
            ))
        }
    }

    fn model(&mut self, node: usize, cls: Ref<'_>, depth: u32) -> TResult<Owned> {
        let start = self.r.pos;
        let value = self.untyped(self.setup, depth)?;
        let name = Ref::of_py(&self.handles.model_validate, self.py);
        // SAFETY: attached (`py`); `cls` is held by the plan, the name by the process's handles,
        // `value` here.
        unsafe { ffi::call_method1(cls.as_ptr(), name.as_ptr(), value.as_ptr()) }.map_err(|cause| {
            match pydantic_refusal(self.py, &cause) {
                Some((message, steps)) => steps
                    .into_iter()
                    .rev()
                    .fold(TError::invalid_from(message, start, cause), TError::at),
                None => {
                    self.refused_or_raised(node, "a value its validation refused", start, cause)
                }
            }
        })
    }

    fn custom(&mut self, node: usize, cls: Ref<'_>, depth: u32) -> TResult<Owned> {
        let start = self.r.pos;
        let value = self.untyped(self.setup, depth)?;
        let Some(hook) = self.dec_hook else {
            return Err(PyTypeError::new_err("dec_hook is needed").into());
        };
        // SAFETY: attached (`py`); the hook is held by the `Typed` this decoder borrows (`Ref`),
        // `cls` by the plan, `value` here.
        unsafe { ffi::call2(hook.as_ptr(), cls.as_ptr(), value.as_ptr()) }
            .map_err(|cause| self.refused_or_raised(node, "a value dec_hook refused", start, cause))
    }

    /// A bin as a `memoryview`: a view of the input when it cannot change, else of a copy.
    fn memoryview(&mut self, bytes: &[u8]) -> TResult<Owned> {
        let offset = bytes.as_ptr() as usize - self.r.data.as_ptr() as usize;
        match self.setup.views() {
            Some(views) => Ok(views.bin(self.py, bytes, offset)?),
            None => {
                let copy = pyo3::types::PyBytes::new(self.py, bytes);
                let view = pyo3::types::PyMemoryView::from(&copy).map_err(DeError::python)?;
                // SAFETY: a new strong reference.
                made(unsafe { Owned::from_new(view.into_any().into_ptr()) })
            }
        }
    }

    /// A `bytes` or `memoryview` field whose bin was sent out of band.
    fn out_of_band(&mut self, node: usize, payload: &[u8], start: usize) -> TResult<Owned> {
        let Some(views) = self.setup.views() else {
            return Err(DeError::input(
                Kind::BadBuffer(
                    "the data refers to an out-of-band buffer, but no buffers were given \
                     (unpackb(..., buffers=...))"
                        .to_owned(),
                ),
                start,
            )
            .into());
        };
        let (flat, _) = views.take(self.py, payload, start)?;
        if matches!(self.nodes[node].node, Node::MemoryView) {
            return Ok(flat);
        }
        Ok(views.bytes_from_buffer(self.py, flat)?)
    }

    fn numpy(&mut self, node: usize, ndarray: Ref<'_>, depth: u32) -> TResult<Owned> {
        let start = self.r.pos;
        let setup = self.numpy_setup.unwrap_or(self.setup);
        let value = self.untyped(setup, depth)?;
        // SAFETY: attached; both are live.
        if unsafe { ffi::is_instance(value.as_ptr(), ndarray.as_ptr())? } {
            return Ok(value);
        }
        let mut r = Reader {
            data: self.r.data,
            pos: start,
        };
        let token = token::next(&mut r, "value")?;
        Err(self.mismatch(node, &token, start))
    }
}

/// What pydantic's `ValidationError` says first: its message (with the count of the others)
/// and its location inside the model, outermost step first. `None` for any other error.
#[cold]
fn pydantic_refusal(py: Python<'_>, cause: &PyErr) -> Option<(String, Vec<Step>)> {
    let value = cause.value(py);
    let module = value.get_type().module().ok()?;
    if !module.to_str().ok()?.starts_with("pydantic") {
        return None;
    }
    let errors = value.call_method0(intern!(py, "errors")).ok()?;
    let errors = errors.cast::<PyList>().ok()?;
    let first = errors.get_item(0).ok()?;
    let message: String = first.get_item(intern!(py, "msg")).ok()?.extract().ok()?;
    let loc = first.get_item(intern!(py, "loc")).ok()?;
    let mut steps = Vec::new();
    for item in loc.try_iter().ok()? {
        let item = item.ok()?;
        let step = if let Ok(i) = item.extract::<usize>() {
            Step::Index(i)
        } else {
            match item.extract::<String>() {
                Ok(name) if is_identifier(&name) => Step::Field(name.into()),
                _ => Step::Key(item.repr().ok()?.to_string()),
            }
        };
        steps.push(step);
    }
    let message = match errors.len() - 1 {
        0 => message,
        1 => format!("{message} (and 1 more error)"),
        more => format!("{message} (and {more} more errors)"),
    };
    Some((message, steps))
}

/// Whether `name` is written as `.name` in a path (else as `["name"]`).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Whether the enum member `member`'s value has the type of `value`.
#[cold]
fn same_value_type(py: pyo3::Python<'_>, member: Ref<'_>, value: Ref<'_>) -> bool {
    use pyo3::prelude::*;
    // SAFETY: both are live borrowed references on an attached thread (what a `Ref` is);
    // borrowing them for this call keeps them alive as long as the `Bound`s.
    let (member, value) = unsafe {
        (
            Bound::from_borrowed_ptr(py, member.as_ptr()),
            Bound::from_borrowed_ptr(py, value.as_ptr()),
        )
    };
    member
        .getattr(crate::intern!(py, "_value_"))
        .is_ok_and(|v| v.get_type().is(value.get_type()))
}
