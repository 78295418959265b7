//! Integer text for JSON, written straight into the output. Formatting into a side buffer and
//! copying out made the copy's wide loads wait on the formatter's narrow stores (a failed
//! store-to-load forward) on every integer; writing in place has no copy. Pure Rust, unit-tested
//! here against `itoa`.

use crate::number_text::NumberText;

/// Bytes `write_i64` and `write_u64` may write: `-9223372036854775808` and `u64::MAX` are 20.
pub const ROOM: usize = 20;

/// "00" to "99", two bytes each.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// # Safety
/// `dst` has room for 2 bytes; `pair < 100`.
#[inline(always)]
unsafe fn put_pair(dst: *mut u8, pair: usize) {
    // SAFETY: `pair < 100` so `2 * pair + 2 <= 200` stays in the table, and `dst` has room for 2
    // bytes (this function's precondition).
    unsafe {
        let src = PAIRS.as_ptr().add(2 * pair).cast::<[u8; 2]>();
        dst.cast::<[u8; 2]>().write_unaligned(src.read());
    }
}

/// The eight decimal digits of `v` (under 100,000,000, with leading zeros) as ASCII, the first
/// digit in the lowest byte: stored little-endian, they read in order.
///
/// The digits are split in halves, quarters and single digits inside one 64-bit word (two
/// lanes of 32 bits, then four of 16, then eight of 8); each split divides every lane at
/// once, so eight digits take three splits and one store, and no table lookups.
#[inline(always)]
fn digits_8(v: u32) -> u64 {
    debug_assert!(v < 100_000_000);
    // Lanes of 32 bits: the first four digits, then the last four.
    let x = u64::from(v / 10_000) | u64::from(v % 10_000) << 32;
    // x / 100 per lane: for x < 10,000 the product stays under 2**27, so no lane spills into
    // the next, and (x * 10486) >> 20 equals x / 100 there (checked for every x in the tests).
    let hundreds = ((x * 10_486) >> 20) & 0x0000_007F_0000_007F;
    // Lanes of 16 bits, each under 100.
    let x = hundreds | (x - hundreds * 100) << 16;
    // x / 10 per lane: x * 103 < 2**14 for x < 100, and (x * 103) >> 10 equals x / 10 there.
    let tens = ((x * 103) >> 10) & 0x000F_000F_000F_000F;
    // Lanes of 8 bits, one digit each.
    let x = tens | (x - tens * 10) << 8;
    x | 0x3030_3030_3030_3030
}

/// Stores eight bytes of ASCII digits.
///
/// # Safety
/// `dst` has room for 8 bytes.
#[inline(always)]
unsafe fn put_u64(dst: *mut u8, digits: u64) {
    // SAFETY: `dst` has room for 8 bytes (this function's precondition).
    unsafe { dst.cast::<u64>().write_unaligned(digits.to_le()) }
}

/// Writes `v` in decimal at `dst` and returns the length.
///
/// The length comes from branches on the value's size, each writing a fixed number of
/// digits: the next value's position in the output then follows the predicted branch instead
/// of waiting for a digit count computed from the value, which put a chain of dependent
/// instructions between one number and the next. From five digits on, all eight digits are
/// made before the branches (`digits_8`) and each branch only drops the leading zeros, so a
/// mispredicted length, as in a list of counts of every size, wastes little work.
///
/// # Safety
/// `dst` has room for `ROOM` bytes.
#[inline(always)]
pub unsafe fn write_u64(v: u64, dst: *mut u8) -> usize {
    // SAFETY: each branch writes within the `ROOM` bytes, and returns the number of digits.
    unsafe {
        if v < 100_000_000 {
            return write_under_1e8(v as u32, dst);
        }
        if v < 10_000_000_000 {
            let (high, low) = ((v / 100_000_000) as u32, (v % 100_000_000) as u32);
            if high < 10 {
                *dst = b'0' + high as u8;
                put_u64(dst.add(1), digits_8(low));
                return 9;
            }
            put_pair(dst, high as usize);
            put_u64(dst.add(2), digits_8(low));
            return 10;
        }
        write_long(v, dst)
    }
}

/// Writes `v` (under 100,000,000) in decimal at `dst` and returns the length.
///
/// # Safety
/// `dst` has room for 8 bytes.
#[inline(always)]
unsafe fn write_under_1e8(v: u32, dst: *mut u8) -> usize {
    // SAFETY: every store is of at most 8 bytes at `dst`. Five to eight digits store all
    // eight digits of `v` shifted past its leading zeros; the bytes after the number are
    // overwritten by what follows it.
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
        let digits = digits_8(v);
        if v < 1_000_000 {
            if v < 100_000 {
                put_u64(dst, digits >> 24);
                return 5;
            }
            put_u64(dst, digits >> 16);
            return 6;
        }
        if v < 10_000_000 {
            put_u64(dst, digits >> 8);
            return 7;
        }
        put_u64(dst, digits);
        8
    }
}

/// Writes `v` (at least 10,000,000,000) in decimal at `dst` and returns the length: its
/// leading digits, then eight or sixteen more.
///
/// # Safety
/// `dst` has room for `ROOM` bytes.
#[inline(never)]
unsafe fn write_long(v: u64, dst: *mut u8) -> usize {
    let (high, low) = (v / 100_000_000, (v % 100_000_000) as u32);
    // SAFETY: the head takes at most 8 bytes, and at most 4 when sixteen digits follow (`v` has
    // at most 20 digits); with eight bytes per group after it, that stays within `ROOM`.
    unsafe {
        let n = if high < 100_000_000 {
            write_under_1e8(high as u32, dst)
        } else {
            let n = write_under_1e8((high / 100_000_000) as u32, dst);
            put_u64(dst.add(n), digits_8((high % 100_000_000) as u32));
            n + 8
        };
        put_u64(dst.add(n), digits_8(low));
        n + 8
    }
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
    fn lane_divisions_are_exact_over_their_ranges() {
        for x in 0..10_000u64 {
            assert_eq!((x * 10_486) >> 20, x / 100, "{x}");
        }
        for x in 0..100u64 {
            assert_eq!((x * 103) >> 10, x / 10, "{x}");
        }
    }

    #[test]
    fn eight_digit_words_read_in_order() {
        let mut v = 0u32;
        while v < 100_000_000 {
            let word = digits_8(v).to_le_bytes();
            assert_eq!(&word, format!("{v:08}").as_bytes(), "{v}");
            v += 997;
        }
        let word = digits_8(99_999_999).to_le_bytes();
        assert_eq!(&word, b"99999999");
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
