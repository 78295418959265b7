//! JSON string text: the UTF-8 between quotes, with `"`, `\` and control characters escaped as
//! orjson writes them (`\n`-style letters where JSON has one, else `\u00XX`).

use crate::error::Res;
use crate::ffi::BytesWriter;

/// What each byte becomes inside a JSON string: 0 = itself, else the escape letter (`u` for
/// `\u00XX`).
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Writes `"` + the escaped text + `end`'s first `end_len` bytes (the closing quote and the
/// separator that follows the string).
///
/// One pass over 16-byte blocks: each block is stored whole and the output advanced past its
/// bytes that need no escaping; an escape is then written and the scan goes on after it. The
/// last 4 to 15 bytes are checked as one block of two overlapping loads, and the last 1 to 3 as
/// their first, middle and last byte, and, when clean (the usual case), stored the same way.
#[inline(always)]
pub fn write(out: &mut BytesWriter, utf8: &[u8], end: &[u8; 4], end_len: usize) -> Res {
    let n = utf8.len();
    let src = utf8.as_ptr();
    // The opening quote, the text, slack for storing a whole block or the end.
    out.reserve(n + 1 + 16)?;
    // SAFETY: reads stay within `utf8` (`i + 16 <= n` for blocks, `i + k <= n` for the tail's
    // `k`-byte loads, `i + rest / 2 < n` for its middle byte). `dst` stays within the room
    // reserved since `start`: the text left plus 17, so a whole block can be stored wherever text
    // is left, and the 4-byte end after the text. An escape, which writes more than it reads,
    // commits what was written and reserves again before writing.
    unsafe {
        let mut start = out.tail();
        let mut dst = start;
        *dst = b'"';
        dst = dst.add(1);
        let mut i = 0;
        loop {
            while i + 16 <= n {
                let block = src.add(i).cast::<[u8; 16]>().read_unaligned();
                dst.cast::<[u8; 16]>().write_unaligned(block);
                let mask = escape_mask16(&block);
                if mask != 0 {
                    let clean = mask.trailing_zeros() as usize;
                    dst = dst.add(clean);
                    i += clean;
                    break;
                }
                dst = dst.add(16);
                i += 16;
            }
            let rest = n - i;
            if rest < 16 {
                if rest >= 8 {
                    let head = src.add(i).cast::<[u8; 8]>().read_unaligned();
                    let tail = src.add(n - 8).cast::<[u8; 8]>().read_unaligned();
                    if escape_mask_halves(head, tail) == 0 {
                        dst.cast::<[u8; 8]>().write_unaligned(head);
                        dst.add(rest - 8).cast::<[u8; 8]>().write_unaligned(tail);
                        dst = dst.add(rest);
                        break;
                    }
                } else if rest >= 4 {
                    let head = src.add(i).cast::<[u8; 4]>().read_unaligned();
                    let tail = src.add(n - 4).cast::<[u8; 4]>().read_unaligned();
                    let pad = [b' '; 4];
                    let halves = (concat4(head, tail), concat4(pad, pad));
                    if escape_mask_halves(halves.0, halves.1) == 0 {
                        dst.cast::<[u8; 4]>().write_unaligned(head);
                        dst.add(rest - 4).cast::<[u8; 4]>().write_unaligned(tail);
                        dst = dst.add(rest);
                        break;
                    }
                } else if rest > 0 {
                    // 1 to 3 bytes: the first, middle and last (the same byte more than once
                    // when fewer), checked and stored without a loop, whose exit was
                    // mispredicted on strings of varied lengths.
                    let (a, b, c) = (*src.add(i), *src.add(i + rest / 2), *src.add(n - 1));
                    if ESCAPE[a as usize] | ESCAPE[b as usize] | ESCAPE[c as usize] == 0 {
                        *dst = a;
                        *dst.add(rest / 2) = b;
                        *dst.add(rest - 1) = c;
                        dst = dst.add(rest);
                        break;
                    }
                }
                // A tail with an escape (or none left): byte by byte up to the escape.
                while i < n && ESCAPE[*src.add(i) as usize] == 0 {
                    *dst = *src.add(i);
                    dst = dst.add(1);
                    i += 1;
                }
                if i == n {
                    break;
                }
            }
            let b = *src.add(i);
            out.advance(dst.offset_from(start) as usize);
            out.reserve(6 + (n - i) + 16)?;
            start = out.tail();
            dst = start;
            let esc = ESCAPE[b as usize];
            let code: [u8; 8] = if esc == b'u' {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let (hi, lo) = (HEX[(b >> 4) as usize], HEX[(b & 0xf) as usize]);
                [b'\\', b'u', b'0', b'0', hi, lo, 0, 0]
            } else {
                [b'\\', esc, 0, 0, 0, 0, 0, 0]
            };
            dst.cast::<[u8; 8]>().write_unaligned(code);
            dst = dst.add(if esc == b'u' { 6 } else { 2 });
            i += 1;
        }
        dst.cast::<[u8; 4]>().write_unaligned(*end);
        dst = dst.add(end_len);
        out.advance(dst.offset_from(start) as usize);
    }
    Ok(())
}

#[inline(always)]
fn concat4(a: [u8; 4], b: [u8; 4]) -> [u8; 8] {
    let mut out = [0; 8];
    out[..4].copy_from_slice(&a);
    out[4..].copy_from_slice(&b);
    out
}

/// Whether any of 16 bytes, given as two halves, needs escaping (a nonzero mask).
#[inline(always)]
fn escape_mask_halves(head: [u8; 8], tail: [u8; 8]) -> u32 {
    let mut block = [0; 16];
    block[..8].copy_from_slice(&head);
    block[8..].copy_from_slice(&tail);
    escape_mask16(&block)
}

/// Which of 16 bytes need escaping (bit `k` for byte `k`), with SSE2 (part of every x86-64 CPU).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn escape_mask16(chunk: &[u8; 16]) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is always present on x86-64; the load reads the 16 bytes of `chunk`.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))) as u32
    }
}

/// Which of 16 bytes need escaping (bit `k` for byte `k`), from the escape table.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn escape_mask16(chunk: &[u8; 16]) -> u32 {
    portable_escape_mask16(chunk)
}

// On x86-64 the SSE2 scan is used; this is the portable one (and is tested everywhere).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn portable_escape_mask16(chunk: &[u8; 16]) -> u32 {
    chunk.iter().enumerate().fold(0, |mask, (k, &b)| {
        mask | (u32::from(ESCAPE[b as usize] != 0) << k)
    })
}

#[cfg(test)]
mod tests {
    use super::{escape_mask16, portable_escape_mask16};

    #[test]
    fn escape_masks_mark_exactly_the_bytes_to_escape() {
        for b in 0u8..=255 {
            for pos in 0..16 {
                let mut chunk = *b"abcdefghijklmnop";
                chunk[pos] = b;
                let expected = if b < 0x20 || b == b'"' || b == b'\\' {
                    1 << pos
                } else {
                    0
                };
                assert_eq!(escape_mask16(&chunk), expected, "byte {b} at {pos}");
                assert_eq!(
                    portable_escape_mask16(&chunk),
                    expected,
                    "byte {b} at {pos}"
                );
            }
        }
    }
}
