//! The checks of msgpack-python's stream reader, for `fastmsgpack.compat.Unpacker`'s scanner
//! ([`crate::de::scan`]): that reader builds each item as soon as it has arrived, and so reports
//! errors (an item over its `max_*_len`, invalid UTF-8, a key `strict_map_key` refuses) inside
//! an object that is not complete yet.
//!
//! Given the `max_*_len` limits, each item is checked against them as it is read
//! ([`header::check_token`]): a container as soon as its header has arrived, a `str`, `bin` or
//! ext once its bytes have, whether or not the object around it is complete.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::decode::header;
use super::decode::options::CompatOptions;
use crate::de::error::DeError;
use crate::de::scan::Check;
use crate::de::token::Token;

/// How the stream is checked as it arrives. `build` is false for `skip`, which builds nothing
/// and so checks only the structure.
pub struct Checks<'py, 'o> {
    pub py: Python<'py>,
    pub o: &'o CompatOptions,
    pub build: bool,
}

impl Check for Checks<'_, '_> {
    type Error = DeError;

    #[inline(always)]
    fn deep_at_marker(&self) -> bool {
        // msgpack-python refuses a container too deep once its header has arrived.
        false
    }

    #[inline(always)]
    fn item(
        &mut self,
        token: &Token<'_>,
        _start: usize,
        key: bool,
    ) -> Result<Option<&'static str>, DeError> {
        if self.build {
            check(self.py, self.o, token, key)
        } else {
            Ok(None)
        }
    }

    #[inline(always)]
    fn sees_items(&self) -> bool {
        self.build
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
