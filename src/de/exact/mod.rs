//! `OPT_EXACT` and registered extensions, read back as the types they stand for
//! (`doc/exact.md`). Codes that neither knows are left to `ext_hook` or `Ext`.

mod scalars;
mod time;
pub(crate) mod unknown_zones;

use std::sync::Arc;

use fastmsgpack_core::exact::{self as code, Malformed};
use pyo3::prelude::*;

use super::error::{DeError, Kind};
use super::msgpack::Decoder;
use super::reader::DeResult;
use super::token::{self, Token};
use crate::ffi::{self, ExactHandles, Known, Owned};
use crate::registry::Table;

/// What reading the exact and registered extensions needs, set up once per call.
pub struct Exact {
    /// `OPT_EXACT`: the codes of the core's `exact` are read.
    pub on: bool,
    pub known: &'static Known,
    pub handles: &'static ExactHandles,
    pub registry: Option<Arc<Table>>,
    /// The last time zone read and the suffix it was read from: the datetimes of one message
    /// usually share one, and building it again costs a timedelta and a timezone (or a
    /// `ZoneInfo` call).
    pub(super) last_zone: std::cell::Cell<Option<(Vec<u8>, Owned)>>,
}

impl Exact {
    #[cold]
    #[inline(never)]
    pub fn new(
        py: Python<'_>,
        on: bool,
        registry: Option<Arc<Table>>,
    ) -> PyResult<std::rc::Rc<Exact>> {
        Ok(std::rc::Rc::new(Exact {
            on,
            known: Known::get(py)?,
            handles: ExactHandles::get(py)?,
            registry,
            last_zone: std::cell::Cell::new(None),
        }))
    }
}

/// A malformed payload of the extension `code`.
#[cold]
pub(super) fn bad(code: i8, why: impl Into<String>, start: usize) -> DeError {
    let ty = code::type_name(code);
    let ty = if ty == "unknown" { "registered" } else { ty };
    DeError::input(
        Kind::Exact {
            ty,
            code,
            why: why.into(),
        },
        start,
    )
}

/// A payload the core's layout refuses.
#[cold]
pub(super) fn malformed(code: i8, why: Malformed, start: usize) -> DeError {
    DeError::from(why.at(code, start))
}

/// A payload Python refused (a field out of range, an unknown zone): its message says why.
#[cold]
pub(super) fn refused(code: i8, cause: PyErr, start: usize) -> DeError {
    bad(code, cause_text(cause), start)
}

/// What an exception says (`str(exc)`).
#[cold]
pub(super) fn cause_text(cause: PyErr) -> String {
    // SAFETY: errors are only built while attached.
    let py = unsafe { Python::assume_attached() };
    cause
        .value(py)
        .str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "refused".to_owned())
}

impl<'a, const VIEWS: bool> Decoder<'a, VIEWS> {
    /// The value of the extension `tag` if the exact mode or the registry knows it.
    #[inline(never)]
    pub(super) fn exact_ext(
        &mut self,
        exact: &Exact,
        tag: i8,
        data: &'a [u8],
        depth: u32,
        start: usize,
    ) -> DeResult<Option<Owned>> {
        if let Some(entry) = exact.registry.as_ref().and_then(|t| t.by_code(tag)) {
            let value = self.payload_value(tag, data, depth, start)?;
            if let Some(members) = &entry.members {
                // SAFETY: attached; the map is held by the table, and `dict_get` gives a strong
                // reference to the member found.
                let found = unsafe { ffi::dict_get(members.as_ptr(), value.as_ptr()) };
                if let Some(member) = found {
                    return Ok(Some(member));
                }
            }
            // SAFETY: attached; the table (held by the call) holds `decode`.
            let built =
                unsafe { ffi::call1(entry.decode.as_ptr(), value.as_ptr()) }.map_err(|cause| {
                    DeError::callback("the registered decode function raised", start, cause)
                })?;
            return Ok(Some(built));
        }
        if !exact.on || !(code::FIRST..=code::LAST).contains(&tag) {
            return Ok(None);
        }
        let value = match tag {
            code::TUPLE => self.exact_tuple(data, depth, start)?,
            code::SET | code::FROZENSET => self.exact_set(tag, data, depth, start)?,
            code::NUMPY => self.exact_numpy(data, depth, start)?,
            code::BIG_INT => scalars::big_int(data, start)?,
            code::COMPLEX => scalars::complex(data, start)?,
            code::UUID => scalars::uuid(exact, data, start)?,
            code::DECIMAL => scalars::decimal(exact, data, start)?,
            code::BYTEARRAY => {
                // SAFETY: attached.
                unsafe { ffi::new_bytearray(data) }
                    .ok_or_else(|| DeError::python(ffi::fetch_error()))?
            }
            code::DATETIME => time::datetime(exact, data, start)?,
            code::DATE => time::date(exact, data, start)?,
            code::TIME => time::time(exact, data, start)?,
            code::TIMEDELTA => time::timedelta(exact, data, start)?,
            // Kept for later types: read as `Ext` (or by `ext_hook`) until then.
            _ => return Ok(None),
        };
        Ok(Some(value))
    }

    /// Runs `read` over the payload `data` (a slice of the input) as if it were the whole
    /// input, then checks that it read all of it and goes back to where it was.
    fn in_payload<T>(
        &mut self,
        tag: i8,
        data: &'a [u8],
        start: usize,
        read: impl FnOnce(&mut Self) -> DeResult<T>,
    ) -> DeResult<T> {
        let full = self.r.data;
        let at = data.as_ptr() as usize - full.as_ptr() as usize;
        let end = at + data.len();
        let resume = self.r.pos;
        if data.is_empty() {
            return Err(malformed(tag, Malformed::Empty, start));
        }
        self.r.data = &full[..end];
        self.r.pos = at;
        let result = read(self);
        let stopped = self.r.pos;
        self.r.data = full;
        self.r.pos = resume;
        let value = result.map_err(|err| match err.input_kind() {
            Some(Kind::Truncated { .. }) => {
                malformed(tag, Malformed::SeqTruncated(err_text(&err).into()), start)
            }
            _ => err,
        })?;
        if stopped != end {
            return Err(malformed(tag, Malformed::Trailing(end - stopped), start));
        }
        Ok(value)
    }

    /// The one value a payload holds (a registered type's).
    fn payload_value(
        &mut self,
        tag: i8,
        data: &'a [u8],
        depth: u32,
        start: usize,
    ) -> DeResult<Owned> {
        holds_value(depth, start)?;
        self.in_payload(tag, data, start, |d| d.value(depth + 1))
    }

    /// The array header a tuple or set payload starts with: its item count.
    fn payload_array(&mut self, tag: i8, depth: u32, start: usize) -> DeResult<usize> {
        let at = self.r.pos;
        match token::next(&mut self.r, "value")? {
            Token::Array(n) => {
                self.container(n, 1, "array", depth + 1, at)?;
                Ok(n)
            }
            other => Err(malformed(
                tag,
                Malformed::NotArray(other.type_name()),
                start,
            )),
        }
    }

    fn exact_tuple(&mut self, data: &'a [u8], depth: u32, start: usize) -> DeResult<Owned> {
        self.in_payload(code::TUPLE, data, start, |d| {
            let n = d.payload_array(code::TUPLE, depth, start)?;
            // SAFETY: attached; each slot `i < n` is filled once.
            unsafe {
                let tuple = ffi::new_tuple(n).ok_or_else(|| DeError::python(ffi::fetch_error()))?;
                for i in 0..n {
                    let item = d.value(depth + 2)?;
                    ffi::tuple_set(&tuple, i, item);
                }
                Ok(tuple)
            }
        })
    }

    fn exact_set(&mut self, tag: i8, data: &'a [u8], depth: u32, start: usize) -> DeResult<Owned> {
        self.in_payload(tag, data, start, |d| {
            let n = d.payload_array(tag, depth, start)?;
            // SAFETY: attached; the set is new and not shared until returned.
            unsafe {
                let set = ffi::new_set(tag == code::FROZENSET)?;
                for _ in 0..n {
                    let at = d.r.pos;
                    let item = d.value(depth + 2)?;
                    ffi::set_add(&set, &item).map_err(|cause| {
                        let why = cause_text(cause);
                        bad(
                            tag,
                            format!("the item at byte offset {at} is unhashable ({why})"),
                            start,
                        )
                    })?;
                }
                Ok(set)
            }
        })
    }

    fn exact_numpy(&mut self, data: &'a [u8], depth: u32, start: usize) -> DeResult<Owned> {
        holds_value(depth, start)?;
        // Loaded for this payload only: other maps are not taken for raw arrays without
        // `OPT_NUMPY_RAW`.
        let saved = self.numpy;
        if self.numpy.is_none() {
            match ffi::Numpy::get(self.py)? {
                // Arrays get their own copy of the data: the payload is not a bytes of its own.
                Some(np) => self.numpy = Some((np, None)),
                None => return Err(bad(code::NUMPY, "numpy is not installed", start)),
            }
        }
        let result = self.numpy_payload(data, depth, start);
        self.numpy = saved;
        result
    }

    fn numpy_payload(&mut self, data: &'a [u8], depth: u32, start: usize) -> DeResult<Owned> {
        self.in_payload(code::NUMPY, data, start, |d| {
            let at = d.r.pos;
            match token::next(&mut d.r, "value")? {
                Token::Map(n)
                    if (n == 3 || n == 5) && token::starts_with_bin8(d.r.data, d.r.pos, b"nd") =>
                {
                    d.numpy_map(n, depth + 1, at)
                }
                _ => Err(bad(
                    code::NUMPY,
                    "payload must be a raw array map (3 or 5 entries, the first key bin \"nd\")",
                    start,
                )),
            }
        })
    }
}

/// An extension whose payload holds a value (a registered type's, a numpy array's map) nests it
/// one level deeper, as a container does: one `depth` deep is refused where a container would
/// be, so that a chain of them cannot recurse past the limit (and off the stack).
#[inline(always)]
pub(super) fn holds_value(depth: u32, start: usize) -> DeResult<()> {
    if depth >= fastmsgpack_core::limits::MAX_DECODE_DEPTH {
        return Err(DeError::input(Kind::TooDeep, start));
    }
    Ok(())
}

/// The message of an input error, without its offset (the payload's start is given instead).
#[cold]
fn err_text(err: &DeError) -> String {
    err.input_kind().map(|k| k.to_string()).unwrap_or_default()
}
