//! The stream scanner of the pure-Rust core ([`fastmsgpack_core::scan`]), with the checks of
//! `fastmsgpack.compat.Unpacker`: the streaming reader asks it, after each piece, whether the
//! bytes so far hold a complete object.
//!
//! Given `fastmsgpack.compat`'s `max_*_len` limits, the scanner checks each item against them as
//! it reads it ([`header::check_token`]): a container as soon as its header has arrived, a
//! `str`, `bin` or ext once its bytes have, whether or not the object around it is complete.

use fastmsgpack_core::scan::{self, Check};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::compat::header;
use super::compat::options::CompatOptions;
use super::error::DeError;
use super::token::Token;

pub use fastmsgpack_core::scan::Scan;

/// An error found by the scanner, and where the item it was found in ends (from the start of
/// the object): msgpack-python's reader goes on from that item's last byte.
pub type Fault = scan::Fault<DeError>;

/// How the stream of `fastmsgpack.compat.Unpacker` is checked as it arrives: as
/// msgpack-python's stream reader, which builds each item as soon as it has arrived, reports
/// errors (an item over its `max_*_len`, invalid UTF-8, a key `strict_map_key` refuses) inside
/// an object that is not complete yet. `build` is false for `skip`, which builds nothing and so
/// checks only the structure.
#[derive(Clone, Copy)]
pub struct Compat<'o> {
    pub o: &'o CompatOptions,
    pub build: bool,
}

/// Where objects end in the stream (the core's scanner, state kept between pieces).
#[derive(Default)]
pub struct Scanner(scan::Scanner);

impl Scanner {
    /// Scans on from where the last call stopped ([`scan::Scanner::scan`]). With `compat`,
    /// items are checked as msgpack-python's reader checks them ([`Compat`]); without, only the
    /// structure is, and a container too deep is refused from its marker.
    #[inline]
    pub fn scan(
        &mut self,
        py: Python<'_>,
        data: &[u8],
        compat: Option<Compat<'_>>,
    ) -> Result<Scan, Fault> {
        self.0.scan(data, &mut Checks { py, compat })
    }

    /// Whether no object is being scanned (the next call starts one).
    #[inline(always)]
    pub fn is_idle(&self) -> bool {
        self.0.is_idle()
    }

    /// Bytes of the object being scanned that have been read as complete items: msgpack-python's
    /// reader no longer holds them.
    #[inline(always)]
    pub fn scanned(&self) -> usize {
        self.0.scanned()
    }

    /// [`scan::Scanner::least_len`].
    #[cold]
    pub fn least_len(&self, data: &[u8]) -> u64 {
        self.0.least_len(data)
    }
}

/// The checks made on each item: none beyond the structure, or msgpack-python's.
struct Checks<'py, 'o> {
    py: Python<'py>,
    compat: Option<Compat<'o>>,
}

impl Check for Checks<'_, '_> {
    type Error = DeError;

    #[inline(always)]
    fn deep_at_marker(&self) -> bool {
        // msgpack-python refuses a container too deep once its header has arrived.
        self.compat.is_none()
    }

    #[inline(always)]
    fn item(
        &mut self,
        token: &Token<'_>,
        _start: usize,
        key: bool,
    ) -> Result<Option<&'static str>, DeError> {
        match self.compat {
            Some(c) if c.build => check(self.py, c.o, token, key),
            _ => Ok(None),
        }
    }

    #[inline(always)]
    fn sees_items(&self) -> bool {
        self.compat.is_some_and(|c| c.build)
    }

    #[cold]
    fn refuse_key(&mut self, why: &'static str) -> DeError {
        DeError::python(PyValueError::new_err(format!(
            "{why} is not allowed for map key when strict_map_key=True"
        )))
    }
}

/// The checks of msgpack-python's reader on the item `token`; for a key `strict_map_key`
/// refuses, the name of its type.
#[inline(never)]
fn check(
    py: Python<'_>,
    o: &CompatOptions,
    token: &Token<'_>,
    key: bool,
) -> Result<Option<&'static str>, DeError> {
    header::check_token(token, &o.limits)?;
    if let Token::Str(bytes) = token {
        if o.strict_utf8 && simdutf8::basic::from_utf8(bytes).is_err() {
            let text = pyo3::types::PyBytes::new(py, bytes);
            text.call_method1("decode", ("utf-8", "strict"))
                .map_err(DeError::python)?;
        }
    }
    Ok(if o.strict_map_key && key {
        key_type(token, o.use_list)
    } else {
        None
    })
}

/// The type of the key a token makes, when `strict_map_key` refuses it: not a str or bin, nor
/// an ext (whose `ext_hook` may return a str).
fn key_type(token: &Token<'_>, use_list: bool) -> Option<&'static str> {
    Some(match token {
        Token::Str(_) | Token::Bin(_) | Token::Ext(..) => return None,
        Token::Int(_) | Token::UInt(_) => "int",
        Token::F32(_) | Token::F64(_) => "float",
        Token::Bool(_) => "bool",
        Token::Nil => "NoneType",
        Token::Array(_) if use_list => "list",
        Token::Array(_) => "tuple",
        Token::Map(_) => "dict",
    })
}
