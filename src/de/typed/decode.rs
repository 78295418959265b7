//! MessagePack to the objects a plan names, in one pass: each item is checked against its node
//! as it is read, and only the types of the plan are ever made. `Any` subtrees, pydantic models
//! and `dec_hook` types are decoded by the untyped decoder first.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::error::{Step, TError, TResult};
use super::plan::{Named, Node};
use super::text;
use super::Handles;
use crate::de::error::{DeError, Kind};
use crate::de::keycache::{KeyCache, MAX_KEY_LEN};
use crate::de::reader::Reader;
use crate::de::token::{self, Token};
use crate::de::{ext, Setup};
use crate::ffi::{self, Known, Obj, Owned};

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
    pub dec_hook: Option<Obj>,
    /// `OPT_FORBID_UNKNOWN_FIELDS`: a key no field has is an error instead of skipped.
    pub forbid_unknown: bool,
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

    /// Checks a container's depth, and that `n` items of `min_size` bytes each fit in what is
    /// left of the input, before anything is allocated for it.
    #[inline(always)]
    pub(super) fn container(
        &self,
        n: usize,
        min_size: usize,
        depth: u32,
        start: usize,
    ) -> TResult<()> {
        Ok(self.r.container(n, min_size, "container", depth, start)?)
    }

    /// The object for `node` at the reader's position.
    pub fn value(&mut self, node: usize, depth: u32) -> TResult<Owned> {
        let nodes = self.nodes;
        let start = self.r.pos;
        // Nodes that look at the value whole, or try more than one reading.
        match &nodes[node].node {
            Node::Any => return self.untyped(self.setup, depth),
            Node::Union(members) => return self.union(node, members, depth),
            Node::Enum { cls, members } => {
                return self.enumeration(node, cls.as_ptr(), members.as_ptr())
            }
            Node::Literal(table) => return self.literal(node, table.as_ptr()),
            Node::Model(cls) => return self.model(node, cls.as_ptr(), depth),
            Node::Custom(cls) => return self.custom(node, cls.as_ptr(), depth),
            Node::Numpy(cls) => return self.numpy(node, cls.as_ptr(), depth),
            _ => {}
        }
        let token = token::next(&mut self.r, "value")?;
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
                (Node::Bytes | Node::MemoryView, Token::Ext(crate::oob::TAG, payload)) => {
                    self.out_of_band(node, payload, start)
                }
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
                (Node::List(child), Token::Array(n)) => {
                    self.sequence(n, false, depth, start, |_| *child)
                }
                (Node::VarTuple(child), Token::Array(n)) => {
                    self.sequence(n, true, depth, start, |_| *child)
                }
                (Node::Tuple(items), Token::Array(n)) => {
                    self.fixed_tuple(node, items, n, depth, start)
                }
                (Node::Set(child), Token::Array(n)) => self.set(*child, n, false, depth, start),
                (Node::FrozenSet(child), Token::Array(n)) => {
                    self.set(*child, n, true, depth, start)
                }
                (Node::Dict(key, value), Token::Map(n)) => self.dict(*key, *value, n, depth, start),
                (Node::Dataclass(class), Token::Map(n)) => {
                    self.dataclass(node, class, n, depth, start)
                }
                (Node::TypedDict(class), Token::Map(n)) => {
                    self.typed_dict(node, class, n, depth, start)
                }
                (Node::NamedTuple(class), Token::Array(n)) => {
                    self.named_tuple(node, class, n, depth, start)
                }
                (_, token) => Err(self.mismatch(node, &token, start)),
            }
        }
    }

    /// A list (or with `tuple`, a tuple) of `n` items, item `i` read as node `item(i)`.
    fn sequence(
        &mut self,
        n: usize,
        tuple: bool,
        depth: u32,
        start: usize,
        item: impl Fn(usize) -> usize,
    ) -> TResult<Owned> {
        self.container(n, 1, depth, start)?;
        // SAFETY: attached; each slot `i < n` is filled once.
        unsafe {
            let seq = made(if tuple {
                ffi::new_tuple(n)
            } else {
                ffi::new_list(n)
            })?;
            for i in 0..n {
                let value = self
                    .value(item(i), depth + 1)
                    .map_err(|e| e.at(Step::Index(i)))?;
                if tuple {
                    ffi::tuple_set(&seq, i, value);
                } else {
                    ffi::list_set(&seq, i, value);
                }
            }
            Ok(seq)
        }
    }

    fn fixed_tuple(
        &mut self,
        node: usize,
        items: &[usize],
        n: usize,
        depth: u32,
        start: usize,
    ) -> TResult<Owned> {
        if n != items.len() {
            return Err(TError::invalid(
                format!(
                    "expected {} (an array of {} items), found an array of {n} items",
                    self.nodes[node].name,
                    items.len()
                ),
                start,
            ));
        }
        self.sequence(n, true, depth, start, |i| items[i])
    }

    fn set(
        &mut self,
        child: usize,
        n: usize,
        frozen: bool,
        depth: u32,
        start: usize,
    ) -> TResult<Owned> {
        self.container(n, 1, depth, start)?;
        // SAFETY: attached; the set is new and not shared until returned.
        unsafe {
            let set = ffi::new_set(frozen)?;
            for i in 0..n {
                let item_start = self.r.pos;
                let item = self
                    .value(child, depth + 1)
                    .map_err(|e| e.at(Step::Index(i)))?;
                if let Err(cause) = ffi::set_add(&set, &item) {
                    return Err(TError::invalid_from(
                        "expected a hashable set item, found an unhashable one".to_owned(),
                        item_start,
                        cause,
                    )
                    .at(Step::Index(i)));
                }
            }
            Ok(set)
        }
    }

    fn dict(
        &mut self,
        key_node: usize,
        value_node: usize,
        n: usize,
        depth: u32,
        start: usize,
    ) -> TResult<Owned> {
        self.container(n, 2, depth, start)?;
        // SAFETY: attached.
        unsafe {
            let dict = made(ffi::new_dict(n))?;
            for _ in 0..n {
                let key_start = self.r.pos;
                let key = self.key(key_node, depth + 1)?;
                // (The closure runs inside this unsafe block: attached, and `key` is live.)
                let value = self
                    .value(value_node, depth + 1)
                    .map_err(|e| e.at(Step::Key(ffi::repr_string(key.as_ptr()))))?;
                if !ffi::dict_set(&dict, &key, &value) {
                    return Err(TError::invalid_from(
                        "expected a hashable map key, found an unhashable one".to_owned(),
                        key_start,
                        ffi::fetch_error(),
                    ));
                }
            }
            Ok(dict)
        }
    }

    /// A dict key: strings through the key cache, and ints and floats also from their text
    /// (as keys written by JSON tools arrive).
    #[inline(always)]
    fn key(&mut self, node: usize, depth: u32) -> TResult<Owned> {
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

    fn union(&mut self, node: usize, members: &[usize], depth: u32) -> TResult<Owned> {
        let nodes = self.nodes;
        let start = self.r.pos;
        let nil = self.r.data.get(start) == Some(&0xc0);
        if nil {
            if let Some(&m) = members.iter().find(|&&m| nodes[m].node.takes_nil()) {
                return self.value(m, depth);
            }
        }
        // `Optional[T]` and the like: one member besides None gives its own error.
        let mut others = members
            .iter()
            .filter(|&&m| !matches!(nodes[m].node, Node::None));
        if let (Some(&only), None) = (others.next(), others.next()) {
            return self.value(only, depth);
        }
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

    fn enumeration(&mut self, node: usize, cls: Obj, members: Obj) -> TResult<Owned> {
        let start = self.r.pos;
        let value = self.scalar(node)?;
        let v = value.as_ptr();
        // A bool or a float is the value only of a member whose value has that very type (as
        // for `type=int` and `Literal`): `True` and `1.0` are not the member whose value is 1.
        // SAFETY: attached; `value` is live.
        let exact = v == ffi::true_obj()
            || v == ffi::false_obj()
            || unsafe { ffi::type_of(v) == ffi::float_type() };
        // SAFETY: attached; `members` is a dict the plan keeps alive.
        unsafe {
            if let Some(member) = ffi::dict_get(members, v) {
                if !exact || same_value_type(self.py, member.as_ptr(), v) {
                    return Ok(member);
                }
                return Err(self.not_a_value(node, v, start));
            }
            // A combination of flags, or a value the class's `_missing_` knows.
            match ffi::call1(cls, v) {
                Ok(member) if exact && !same_value_type(self.py, member.as_ptr(), v) => {
                    Err(self.not_a_value(node, v, start))
                }
                Ok(member) => Ok(member),
                Err(cause) if is_refusal(self.py, &cause) => {
                    let what = ffi::repr_string(value.as_ptr());
                    Err(self.refused(node, &what, start, cause))
                }
                Err(cause) => Err(cause.into()),
            }
        }
    }

    #[cold]
    fn not_a_value(&self, node: usize, value: Obj, start: usize) -> TError {
        // SAFETY: attached; `value` is live.
        let what = unsafe { ffi::repr_string(value) };
        TError::invalid(
            format!("expected {}, found {what}", self.nodes[node].name),
            start,
        )
    }

    fn literal(&mut self, node: usize, table: Obj) -> TResult<Owned> {
        let start = self.r.pos;
        let value = self.scalar(node)?;
        // SAFETY: attached; `table` is a dict the plan keeps alive.
        unsafe {
            let key = made(ffi::new_tuple(2))?;
            ffi::tuple_set(&key, 0, ffi::type_object(value.as_ptr()));
            ffi::tuple_set(&key, 1, Owned::from_borrowed(value.as_ptr()));
            if let Some(found) = ffi::dict_get(table, key.as_ptr()) {
                return Ok(found);
            }
            let what = ffi::repr_string(value.as_ptr());
            Err(TError::invalid(
                format!("expected {}, found {what}", self.nodes[node].name),
                start,
            ))
        }
    }

    fn model(&mut self, node: usize, cls: Obj, depth: u32) -> TResult<Owned> {
        let start = self.r.pos;
        let value = self.untyped(self.setup, depth)?;
        // SAFETY: attached; `cls` is kept alive by the plan.
        unsafe { ffi::call_method1(cls, self.handles.model_validate, value.as_ptr()) }.map_err(
            |cause| match pydantic_refusal(self.py, &cause) {
                Some((message, steps)) => steps
                    .into_iter()
                    .rev()
                    .fold(TError::invalid_from(message, start, cause), TError::at),
                None => {
                    self.refused_or_raised(node, "a value its validation refused", start, cause)
                }
            },
        )
    }

    fn custom(&mut self, node: usize, cls: Obj, depth: u32) -> TResult<Owned> {
        let start = self.r.pos;
        let value = self.untyped(self.setup, depth)?;
        let Some(hook) = self.dec_hook else {
            return Err(PyTypeError::new_err("dec_hook is needed").into());
        };
        // SAFETY: attached; the hook is kept alive by the caller, `cls` by the plan.
        unsafe { ffi::call2(hook, cls, value.as_ptr()) }
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

    fn numpy(&mut self, node: usize, ndarray: Obj, depth: u32) -> TResult<Owned> {
        let start = self.r.pos;
        let setup = self.numpy_setup.unwrap_or(self.setup);
        let value = self.untyped(setup, depth)?;
        // SAFETY: attached; both are live.
        if unsafe { ffi::is_instance(value.as_ptr(), ndarray)? } {
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
///
/// # Safety
/// Both are live; attached.
#[cold]
unsafe fn same_value_type(py: pyo3::Python<'_>, member: Obj, value: Obj) -> bool {
    use pyo3::prelude::*;
    // SAFETY: the caller guarantees both pointers are live objects and the thread is attached;
    // borrowing them for this call keeps them alive as long as the `Bound`s.
    let (member, value) = unsafe {
        (
            Bound::from_borrowed_ptr(py, member),
            Bound::from_borrowed_ptr(py, value),
        )
    };
    member
        .getattr(pyo3::intern!(py, "_value_"))
        .is_ok_and(|v| v.get_type().is(value.get_type()))
}
