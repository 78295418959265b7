//! Room on the stack for the recursive walks.
//!
//! Decoding and encoding recurse once per nesting level, and the limits allow 1024 levels (254
//! when encoding, 1025 for compat): more than a 128 KiB thread stack holds (musl's default, and
//! a thread made after `threading.stack_size(128 * 1024)`). Each level that recurses goes
//! through [`deeper`], which checks the room left (a thread-local read and a compare) and, when
//! under [`RED_ZONE`], runs the rest of the walk on a new [`SEGMENT`] of stack, as rustc does
//! for its own recursion.

/// The room a level may use before the next check, with the Python code a hook or a registered
/// function runs between two levels: 64 KiB, a tenth of the deepest walk measured.
pub const RED_ZONE: usize = 64 * 1024;

/// The stack added when the room left is under [`RED_ZONE`]: enough for every remaining level.
pub const SEGMENT: usize = 1024 * 1024;

/// Runs `f`, one nesting level deeper, on this stack when it has [`RED_ZONE`] left, else on a
/// new segment.
#[inline(always)]
pub fn deeper<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
