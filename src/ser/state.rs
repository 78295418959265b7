//! Per-call options and nesting depths, in one `Copy` word passed down by value.

use crate::error::Res;

use super::error;
use crate::opt::Opt;

use fastmsgpack_core::limits::MAX_DEFAULT_DEPTH;
#[cfg(test)]
use fastmsgpack_core::limits::MAX_ENCODE_DEPTH as MAX_DEPTH;

const DEPTH_SHIFT: u32 = 32;
const DEFAULT_SHIFT: u32 = 48;
const FIELD: u64 = 0xffff;

/// Bits 0-31: options; 32-47: containers that may still be opened; 48-63: nested `default`
/// calls.
#[derive(Clone, Copy)]
pub struct State(u64);

impl State {
    /// The state at the top of a call with options `opts`, where `depth` containers may be
    /// open at once.
    #[inline(always)]
    pub fn new(opts: Opt, depth: u64) -> State {
        State(opts as u64 | (depth & FIELD) << DEPTH_SHIFT)
    }

    #[inline(always)]
    pub fn opts(self) -> Opt {
        self.0 as Opt
    }

    #[inline(always)]
    pub fn has(self, opt: Opt) -> bool {
        self.opts() & opt != 0
    }

    /// The same state with `opt` set too.
    #[inline(always)]
    pub fn with(self, opt: Opt) -> State {
        State(self.0 | opt as u64)
    }

    /// How many more containers may be opened.
    #[inline(always)]
    fn depth_left(self) -> u64 {
        (self.0 >> DEPTH_SHIFT) & FIELD
    }

    #[inline(always)]
    fn default_depth(self) -> u64 {
        (self.0 >> DEFAULT_SHIFT) & FIELD
    }

    /// Whether a list or dict packed in this state checks the room left on the stack first
    /// ([`crate::stack`]): one level in [`crate::stack::EVERY`], counting containers and nested
    /// `default` (and registered, exact) calls alike, each of which moves one of the two fields
    /// by one. (Chains of the other recursing types stop at 255 levels, which fit a 128 KiB
    /// stack: tests/test_small_stacks.py.)
    #[inline(always)]
    pub fn checks_stack(self) -> bool {
        let level = self.default_depth().wrapping_sub(self.depth_left()) as u32;
        crate::stack::checks(level)
    }

    /// The state inside one more container.
    #[inline(always)]
    pub fn enter_container(self) -> Res<State> {
        if self.depth_left() == 0 {
            return Err(self.too_deep());
        }
        Ok(State(self.0 - (1 << DEPTH_SHIFT)))
    }

    #[cold]
    fn too_deep(self) -> crate::error::Error {
        error::too_deep()
    }

    /// The state for packing what one more nested `default` call returned.
    #[inline]
    pub fn enter_default(self) -> Res<State> {
        if self.default_depth() >= MAX_DEFAULT_DEPTH {
            return Err(error::default_too_deep());
        }
        Ok(State(self.0 + (1 << DEFAULT_SHIFT)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_do_not_disturb_options() {
        pyo3::Python::initialize();
        let mut s = State::new(0x5ead_beef, MAX_DEPTH);
        for _ in 0..MAX_DEPTH {
            let next = s.enter_container();
            assert!(next.is_ok(), "depth below the limit");
            s = next.unwrap_or(s);
        }
        for _ in 0..MAX_DEFAULT_DEPTH {
            let next = s.enter_default();
            assert!(next.is_ok(), "depth below the limit");
            s = next.unwrap_or(s);
        }
        assert_eq!(s.opts(), 0x5ead_beef);
        assert_eq!(s.depth_left(), 0);
        assert_eq!(s.default_depth(), MAX_DEFAULT_DEPTH);
        assert!(s.enter_container().is_err());
        assert!(s.enter_default().is_err());
    }

    #[test]
    fn a_call_may_set_its_own_depth() {
        pyo3::Python::initialize();
        let mut s = State::new(1 << 31, 1025);
        for _ in 0..1025 {
            let next = s.enter_container();
            assert!(next.is_ok(), "depth below the limit");
            s = next.unwrap_or(s);
        }
        assert!(s.enter_container().is_err());
        assert!(s.has(1 << 31));
    }
}
