//! Integer text for JSON, written straight into the output. Formatting into a side buffer and
//! copying out made the copy's wide loads wait on the formatter's narrow stores (a failed
//! store-to-load forward) on every integer; writing in place has no copy. Pure Rust, unit-tested
//! here against `itoa`.

use super::number_text::NumberText;

/// Bytes `write_i64` and `write_u64` may write: `-9223372036854775808` and `u64::MAX` are 20.
pub const ROOM: usize = 20;

/// "00" to "99", two bytes each.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `LOWER[t]` is the smallest number with `t + 1` digits, except `LOWER[0] = 0`.
const LOWER: [u64; 20] = {
    let mut t = [0u64; 20];
    let mut i = 1;
    let mut p = 10u64;
    while i < 20 {
        t[i] = p;
        p = p.wrapping_mul(10);
        i += 1;
    }
    t
};

/// The number of decimal digits of `v` (1 for 0).
#[inline(always)]
fn decimal_len(v: u64) -> usize {
    // With b the bit length, v has t = floor(b log10 2) digits or t + 1, and t + 1 exactly when
    // v >= 10^t. 1233 / 4096 is log10 2 rounded down, which gives the same t for every b up
    // to 64 (the tests cover each length's edges).
    let bits = 64 - (v | 1).leading_zeros() as usize;
    let t = (bits * 1233) >> 12;
    t + usize::from(v >= LOWER[t])
}

/// # Safety
/// `dst` has room for 2 bytes; `pair < 100`.
#[inline(always)]
unsafe fn put_pair(dst: *mut u8, pair: usize) {
    // SAFETY: `2 * pair + 2 <= 200`, and the caller gave 2 bytes.
    unsafe {
        let src = PAIRS.as_ptr().add(2 * pair).cast::<[u8; 2]>();
        dst.cast::<[u8; 2]>().write_unaligned(src.read());
    }
}

/// Writes `v` in decimal at `dst` and returns the length.
///
/// Values under 10,000 (counts, flags, indices, small codes) take branches on their size. The
/// length then comes from the predicted branch, so the next value's position in the output
/// need not wait for it; counting the digits arithmetically puts a chain of dependent
/// instructions between one number's position and the next.
///
/// # Safety
/// `dst` has room for `ROOM` bytes.
#[inline(always)]
pub unsafe fn write_u64(v: u64, dst: *mut u8) -> usize {
    // SAFETY: each branch writes exactly the length it returns, at most 4 bytes.
    unsafe {
        if v < 100 {
            if v < 10 {
                *dst = b'0' + v as u8;
                return 1;
            }
            put_pair(dst, v as usize);
            return 2;
        }
        if v < 10_000 {
            let (high, low) = ((v / 100) as usize, (v % 100) as usize);
            if v < 1000 {
                *dst = b'0' + high as u8;
                put_pair(dst.add(1), low);
                return 3;
            }
            put_pair(dst, high);
            put_pair(dst.add(2), low);
            return 4;
        }
        write_long(v, dst)
    }
}

/// Writes `v` (at least 10,000) in decimal at `dst` and returns the length.
///
/// # Safety
/// `dst` has room for `ROOM` bytes.
#[inline(always)]
unsafe fn write_long(v: u64, dst: *mut u8) -> usize {
    let n = decimal_len(v);
    // SAFETY: every store lands in `dst[..n]`, and `n <= ROOM`: the digits are laid out from the
    // end, four, then two, then one at a time.
    unsafe {
        let mut end = dst.add(n);
        let mut rest = v;
        while rest >= 10_000 {
            let four = (rest % 10_000) as usize;
            rest /= 10_000;
            end = end.sub(4);
            put_pair(end, four / 100);
            put_pair(end.add(2), four % 100);
        }
        let mut rest = rest as usize;
        if rest >= 100 {
            end = end.sub(2);
            put_pair(end, rest % 100);
            rest /= 100;
        }
        if rest >= 10 {
            put_pair(end.sub(2), rest);
        } else {
            *end.sub(1) = b'0' + rest as u8;
        }
    }
    n
}

/// Writes `v` in decimal at `dst` and returns the length.
///
/// # Safety
/// `dst` has room for `ROOM` bytes.
#[inline(always)]
pub unsafe fn write_i64(v: i64, dst: *mut u8) -> usize {
    // SAFETY: a negative number's digits are at most 19, after the sign.
    unsafe {
        if v < 0 {
            *dst = b'-';
            1 + write_u64(v.unsigned_abs(), dst.add(1))
        } else {
            write_u64(v as u64, dst)
        }
    }
}

const _: () = assert!(ROOM <= NumberText::ROOM);

pub fn i64_text(v: i64) -> NumberText {
    // SAFETY: `write_i64` writes at most `ROOM <= NumberText::ROOM` bytes.
    unsafe { NumberText::new(|dst| write_i64(v, dst)) }
}

pub fn u64_text(v: u64) -> NumberText {
    // SAFETY: as above.
    unsafe { NumberText::new(|dst| write_u64(v, dst)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed(v: i64) -> String {
        String::from_utf8(i64_text(v).as_bytes().to_vec()).unwrap()
    }

    fn unsigned(v: u64) -> String {
        String::from_utf8(u64_text(v).as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn every_length_and_its_edges_match_itoa() {
        let mut p = 1u64;
        for _ in 0..20 {
            for v in [
                p.saturating_sub(1),
                p,
                p.saturating_add(1),
                p.saturating_mul(5),
            ] {
                assert_eq!(unsigned(v), itoa::Buffer::new().format(v), "{v}");
                let s = v as i64;
                assert_eq!(signed(s), itoa::Buffer::new().format(s), "{s}");
                assert_eq!(signed(-s), itoa::Buffer::new().format(-s), "{}", -s);
            }
            p = p.saturating_mul(10);
        }
        for v in [0, u64::MAX, i64::MAX as u64] {
            assert_eq!(unsigned(v), itoa::Buffer::new().format(v));
        }
        for v in [0, i64::MIN, i64::MIN + 1, i64::MAX, -1] {
            assert_eq!(signed(v), itoa::Buffer::new().format(v));
        }
    }

    #[test]
    fn a_spread_of_values_matches_itoa() {
        // A multiplicative walk visits every length with varied digits.
        let mut v = 1u64;
        while v < u64::MAX / 3 {
            assert_eq!(unsigned(v), itoa::Buffer::new().format(v), "{v}");
            assert_eq!(signed(-(v as i64)), itoa::Buffer::new().format(-(v as i64)));
            v = v * 3 + 7;
        }
        for v in 0..100_000u64 {
            assert_eq!(unsigned(v), itoa::Buffer::new().format(v));
        }
    }
}
