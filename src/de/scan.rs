//! The stream scanner of the pure-Rust core ([`fastmsgpack_core::scan`]): the streaming reader
//! asks it, after each piece, whether the bytes so far hold a complete object.
//!
//! What is checked of each item as it arrives is the caller's [`Check`]: [`Structure`] checks
//! only the structure (and refuses a container too deep from its marker); a caller with rules
//! of its own (limits on each item, as a reader of another library's API has) brings its own.

use fastmsgpack_core::scan;

use super::error::DeError;
use super::token::Token;

pub use fastmsgpack_core::scan::{Check, Scan};

/// An error found by the scanner, and where the item it was found in ends (from the start of
/// the object): a reader that builds items as they arrive goes on from that item's last byte.
pub type Fault = scan::Fault<DeError>;

/// Where objects end in the stream (the core's scanner, state kept between pieces).
#[derive(Default)]
pub struct Scanner(scan::Scanner);

impl Scanner {
    /// Scans on from where the last call stopped ([`scan::Scanner::scan`]), each item checked
    /// by `checks`.
    #[inline]
    pub fn scan<C: Check<Error = DeError>>(
        &mut self,
        data: &[u8],
        checks: &mut C,
    ) -> Result<Scan, Fault> {
        self.0.scan(data, checks)
    }

    /// Whether no object is being scanned (the next call starts one).
    #[inline(always)]
    pub fn is_idle(&self) -> bool {
        self.0.is_idle()
    }

    /// Bytes of the object being scanned that have been read as complete items: a reader that
    /// builds items as they arrive no longer holds them.
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

/// No checks beyond the structure: a container too deep is refused from its marker.
pub struct Structure;

impl Check for Structure {
    type Error = DeError;

    #[inline(always)]
    fn deep_at_marker(&self) -> bool {
        true
    }

    #[inline(always)]
    fn item(
        &mut self,
        _token: &Token<'_>,
        _start: usize,
        _key: bool,
    ) -> Result<Option<&'static str>, DeError> {
        Ok(None)
    }

    #[inline(always)]
    fn sees_items(&self) -> bool {
        false
    }

    #[cold]
    fn refuse_key(&mut self, why: &'static str) -> DeError {
        DeError::python(pyo3::exceptions::PyValueError::new_err(format!(
            "{why} is not allowed for map key"
        )))
    }
}
