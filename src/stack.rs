//! Room on the stack for the recursive walks.
//!
//! Decoding and encoding recurse once per nesting level, and the limits allow 1024 levels (254
//! when encoding, 1025 for compat): more than a 128 KiB thread stack holds (musl's default, and
//! a thread made after `threading.stack_size(128 * 1024)`). Every [`EVERY`]th level that
//! recurses goes through [`deeper`], which checks the room left (stacker's `maybe_grow`: a
//! thread-local read and a compare) and, when under [`RED_ZONE`], runs the rest of the walk on a
//! new [`SEGMENT`] of stack, as rustc does for its own recursion. The levels in between pay one
//! test of their depth: a check at every level cost packb 12% more instructions on a small
//! document (callgrind), where documents under [`EVERY`] levels deep now pay none.

/// How many nesting levels apart the room left is checked.
pub const EVERY: u32 = 8;

/// The room [`EVERY`] levels may use between two checks, with the Python code a hook or a
/// registered function runs in them: 64 KiB, where the deepest level measured takes under 1 KiB.
pub const RED_ZONE: usize = 64 * 1024;

/// The stack added when the room left is under [`RED_ZONE`]: enough for every remaining level.
pub const SEGMENT: usize = 1024 * 1024;

/// Whether the level `depth` is one that checks the room left.
#[inline(always)]
pub fn checks(depth: u32) -> bool {
    depth % EVERY == EVERY - 1
}

/// Runs `f`, one nesting level deeper: when `check` (see [`checks`]), on this stack if it has
/// [`RED_ZONE`] left, else on a new segment.
#[inline(always)]
pub fn deeper<R>(check: bool, f: impl FnOnce() -> R) -> R {
    if check {
        grown(f)
    } else {
        f()
    }
}

/// [`deeper`]'s check, out of line: the levels that do not check keep their code small.
#[inline(never)]
pub fn grown<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
