//! Float text for JSON: the shortest digits that read back as the same value (from `zmij`),
//! laid out in positional form for decimal exponents -5..=15 (`0.00001`, `100.0`) and in
//! scientific form otherwise (`1e-6`, `1.2345e+16`). Pure Rust, unit-tested here.

use crate::number_text::NumberText;

/// Bytes that `write_f64` and `write_f32` may touch at `dst`: zmij formats into a buffer of this
/// size and may write past the end of the text it returns (digits it trims afterwards).
pub const ROOM: usize = ZMIJ_BUFFER;

/// The size of `zmij::Buffer`: an array of `MaybeUninit<u8>`, checked here so that any `ROOM`
/// writable bytes can stand in for one.
const ZMIJ_BUFFER: usize = 24;
const _: () = assert!(
    core::mem::size_of::<zmij::Buffer>() == ZMIJ_BUFFER
        && core::mem::align_of::<zmij::Buffer>() == 1
        && ROOM <= NumberText::ROOM
);

/// Formats a finite float with zmij straight into `dst` and returns the text's length.
///
/// zmij builds its text from several narrow stores; copying it out of a stack buffer right
/// afterwards made the copy's wide loads wait for those stores (a failed store-to-load forward),
/// which cost about a fifth of the time on float-heavy documents. Formatting in place has no copy.
///
/// # Safety
/// `dst` has room for `ROOM` bytes.
#[inline(always)]
unsafe fn format_in_place<F: zmij::Float>(v: F, dst: *mut u8) -> usize {
    // SAFETY: `zmij::Buffer` is `ROOM` bytes of `MaybeUninit<u8>` with alignment 1 (asserted
    // above), so any `ROOM` writable bytes are a valid one, whatever they hold. The text it
    // returns starts at `dst`.
    unsafe {
        let buf = &mut *dst.cast::<zmij::Buffer>();
        let text = buf.format_finite(v);
        debug_assert_eq!(text.as_ptr(), dst.cast_const());
        text.len()
    }
}

/// Writes a finite f64's JSON text at `dst` and returns its length.
///
/// # Safety
/// `dst` has room for `ROOM` bytes.
#[inline(always)]
pub unsafe fn write_f64(v: f64, dst: *mut u8) -> usize {
    // SAFETY: `format_in_place` writes at most `ROOM` bytes at `dst`, and `dst` has room for
    // `ROOM` bytes (this function's precondition).
    unsafe { format_in_place(v, dst) }
}

/// Writes a finite f32's JSON text at `dst` and returns its length.
///
/// # Safety
/// `dst` has room for `ROOM` bytes.
#[inline(always)]
pub unsafe fn write_f32(v: f32, dst: *mut u8) -> usize {
    // SAFETY: `format_in_place` writes at most `ROOM` bytes at `dst`, and `dst` has room for
    // `ROOM` bytes (this function's precondition).
    unsafe { format_in_place(v, dst) }
}

/// A finite f64 as JSON text.
pub fn f64_text(v: f64) -> NumberText {
    // SAFETY: `write_f64` writes at most `ROOM <= NumberText::ROOM` bytes.
    unsafe { NumberText::new(|dst| write_f64(v, dst)) }
}

/// A finite f32 as JSON text (its own shortest digits, not those of the widened f64).
pub fn f32_text(v: f32) -> NumberText {
    // SAFETY: as above.
    unsafe { NumberText::new(|dst| write_f32(v, dst)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: f64) -> String {
        String::from_utf8_lossy(f64_text(v).as_bytes()).into_owned()
    }

    #[test]
    fn forms_match_the_reference_json_writer() {
        // Expected strings were produced by orjson 3.13.0 for the same values.
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-7, "1.5e-7"),
            (0.1, "0.1"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1e-5, "0.00001"),
            (1e-4, "0.0001"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (100.0, "100.0"),
            (1e21, "1e+21"),
            (1e-6, "1e-6"),
            (1.2345e-6, "1.2345e-6"),
            (1.2345e15, "1234500000000000.0"),
            (1.2345e16, "1.2345e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (2.5e-5, "0.000025"),
            (3.14e-10, "3.14e-10"),
            (123.456, "123.456"),
            (0.000123456, "0.000123456"),
            (9007199254740992.0, "9007199254740992.0"),
            (-1.5e300, "-1.5e+300"),
        ];
        for &(v, want) in cases {
            assert_eq!(text(v), want, "{v:e}");
        }
    }

    #[test]
    fn direct_writes_match_zmij_own_buffer() {
        // The in-place write relies on zmij's text starting where its buffer does.
        for v in [
            1.0,
            1e16,
            1.5e-7,
            -1.5e300,
            123.456,
            5e-324,
            1e21,
            -65.61361699999998,
        ] {
            let mut buf = [0u8; ROOM];
            // SAFETY: `ROOM` bytes of room.
            let n = unsafe { write_f64(v, buf.as_mut_ptr()) };
            assert_eq!(&buf[..n], zmij::Buffer::new().format_finite(v).as_bytes());
            assert_eq!(&buf[..n], f64_text(v).as_bytes());
        }
        let mut buf = [0u8; ROOM];
        // SAFETY: `ROOM` bytes of room.
        let n = unsafe { write_f32(1e20, buf.as_mut_ptr()) };
        assert_eq!(&buf[..n], b"1e+20");
    }

    #[test]
    fn f32_uses_its_own_shortest_digits() {
        assert_eq!(f32_text(0.1).as_bytes(), b"0.1");
        assert_eq!(f32_text(16777216.0).as_bytes(), b"16777216.0");
        assert_eq!(f32_text(1e20).as_bytes(), b"1e+20");
        assert_eq!(f32_text(3.4028235e38).as_bytes(), b"3.4028235e+38");
    }
}
