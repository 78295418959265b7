//! Float text for JSON: the shortest digits that read back as the same value (from `zmij`),
//! laid out in positional form for decimal exponents -5..=15 (`0.00001`, `100.0`) and in
//! scientific form otherwise (`1e-6`, `1.2345e+16`). Pure Rust, unit-tested here.

/// Up to 17 significant digits, sign, point, `e+308`: 32 bytes is always enough... except for
/// positional form with 15 leading zeros (`0.00001234...`): 40 covers every case.
pub struct FloatText {
    buf: [u8; 40],
    len: usize,
}

impl FloatText {
    #[inline(always)]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Writes a finite f64's JSON text at `dst` and returns its length.
///
/// # Safety
/// `dst` has room for 26 bytes.
#[inline(always)]
pub unsafe fn write_f64(v: f64, dst: *mut u8) -> usize {
    let mut buf = zmij::Buffer::new();
    let text = buf.format_finite(v).as_bytes();
    // SAFETY: the caller gave 26 bytes; zmij's text is at most 24.
    unsafe { copy_short(text, dst) };
    text.len()
}

/// Writes a finite f32's JSON text at `dst` and returns its length.
///
/// # Safety
/// `dst` has room for 18 bytes.
#[inline(always)]
pub unsafe fn write_f32(v: f32, dst: *mut u8) -> usize {
    let mut buf = zmij::Buffer::new();
    let text = buf.format_finite(v).as_bytes();
    // SAFETY: the caller gave 18 bytes; zmij's f32 text is at most 16.
    unsafe { copy_short(text, dst) };
    text.len()
}

/// Copies up to 32 bytes with two overlapping fixed-size moves (a variable-length copy would be
/// a call to `memcpy`).
///
/// # Safety
/// `dst` has room for `src.len()` bytes, and `src.len() <= 32`.
#[inline(always)]
unsafe fn copy_short(src: &[u8], dst: *mut u8) {
    let n = src.len();
    debug_assert!(n <= 32);
    let s = src.as_ptr();
    // SAFETY: both moves of each size class read within `src[..n]` and write within
    // `dst[..n]`.
    unsafe {
        if n >= 16 {
            let head = s.cast::<[u8; 16]>().read_unaligned();
            let tail = s.add(n - 16).cast::<[u8; 16]>().read_unaligned();
            dst.cast::<[u8; 16]>().write_unaligned(head);
            dst.add(n - 16).cast::<[u8; 16]>().write_unaligned(tail);
        } else if n >= 8 {
            let head = s.cast::<[u8; 8]>().read_unaligned();
            let tail = s.add(n - 8).cast::<[u8; 8]>().read_unaligned();
            dst.cast::<[u8; 8]>().write_unaligned(head);
            dst.add(n - 8).cast::<[u8; 8]>().write_unaligned(tail);
        } else if n >= 4 {
            let head = s.cast::<[u8; 4]>().read_unaligned();
            let tail = s.add(n - 4).cast::<[u8; 4]>().read_unaligned();
            dst.cast::<[u8; 4]>().write_unaligned(head);
            dst.add(n - 4).cast::<[u8; 4]>().write_unaligned(tail);
        } else {
            for k in 0..n {
                *dst.add(k) = *s.add(k);
            }
        }
    }
}

/// A finite f64 as JSON text.
pub fn f64_text(v: f64) -> FloatText {
    let mut out = FloatText {
        buf: [0; 40],
        len: 0,
    };
    // SAFETY: the buffer has 40 bytes.
    out.len = unsafe { write_f64(v, out.buf.as_mut_ptr()) };
    out
}

/// A finite f32 as JSON text (its own shortest digits, not those of the widened f64).
pub fn f32_text(v: f32) -> FloatText {
    let mut out = FloatText {
        buf: [0; 40],
        len: 0,
    };
    // SAFETY: the buffer has 40 bytes.
    out.len = unsafe { write_f32(v, out.buf.as_mut_ptr()) };
    out
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
    fn direct_writes_match_the_buffered_text() {
        for v in [1.0, 1e16, 1.5e-7, -1.5e300, 123.456, 5e-324, 1e21] {
            let mut buf = [0u8; 26];
            // SAFETY: 26 bytes of room.
            let n = unsafe { write_f64(v, buf.as_mut_ptr()) };
            assert_eq!(&buf[..n], f64_text(v).as_bytes());
        }
        let mut buf = [0u8; 18];
        // SAFETY: 18 bytes of room.
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
