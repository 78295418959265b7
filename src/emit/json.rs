//! The JSON emitter (RFC 8259, UTF-8): compact, or indented by two spaces with
//! `OPT_INDENT_2`, in the same text as orjson writes. Map keys that are not strings (allowed
//! with `OPT_NON_STR_KEYS`) are written as the JSON text of the value, quoted.

use super::float_text::{f32_text, f64_text, write_f32, write_f64};
use super::Emitter;
use crate::error::{Error, Res};
use crate::exc::MsgpackEncodeError;
use crate::ffi::BytesWriter;

pub struct JsonEmitter {
    out: BytesWriter,
    indent: bool,
    /// Lengths of the open containers (an empty one closes on the same line).
    open: Vec<usize>,
    /// Between a map key's start and its value: scalars are written as quoted text.
    in_key: bool,
}

#[cold]
fn not_json(what: &str) -> Error {
    MsgpackEncodeError::new_err(format!("{what} cannot be written as JSON")).into()
}

impl JsonEmitter {
    pub fn new(out: BytesWriter, indent: bool) -> JsonEmitter {
        JsonEmitter {
            out,
            indent,
            open: Vec::new(),
            in_key: false,
        }
    }

    pub fn into_writer(self) -> BytesWriter {
        self.out
    }

    #[inline(always)]
    fn raw(&mut self, bytes: &[u8]) -> Res {
        self.out.put(bytes)
    }

    #[inline(always)]
    fn byte(&mut self, b: u8) -> Res {
        self.out.reserve(1)?;
        // SAFETY: one byte was reserved.
        unsafe { self.out.put_block(&[b], 1) };
        Ok(())
    }

    /// Text of a number or literal, quoted in key position.
    #[inline(always)]
    fn scalar(&mut self, text: &[u8]) -> Res {
        if self.in_key {
            self.out.reserve(text.len() + 2)?;
            // SAFETY: room was reserved just above.
            unsafe {
                self.out.put_unchecked(b"\"");
                self.out.put_unchecked(text);
                self.out.put_unchecked(b"\"");
            }
            Ok(())
        } else {
            self.raw(text)
        }
    }

    /// A newline and two spaces per open container.
    #[inline(always)]
    fn newline(&mut self) -> Res {
        let depth = self.open.len();
        self.out.reserve(1 + 2 * depth)?;
        // SAFETY: room was reserved just above.
        unsafe {
            self.out.put_unchecked(b"\n");
            for _ in 0..depth {
                self.out.put_unchecked(b"  ");
            }
        }
        Ok(())
    }

    #[inline]
    fn close(&mut self, bracket: u8) -> Res {
        let len = self.open.pop().unwrap_or(0);
        if self.indent && len > 0 {
            self.newline()?;
        }
        self.byte(bracket)
    }

    #[inline(always)]
    fn item(&mut self, index: usize) -> Res {
        if index > 0 {
            self.byte(b',')?;
        }
        if self.indent {
            self.newline()?;
        }
        Ok(())
    }
}

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

/// Whether any of 16 bytes needs escaping, with SSE2 (part of every x86-64 CPU).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn needs_escape16(chunk: &[u8]) -> bool {
    use std::arch::x86_64::*;
    debug_assert!(chunk.len() >= 16);
    // SAFETY: SSE2 is always present on x86-64; the load reads the 16 bytes of `chunk`.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))) != 0
    }
}

/// Whether any of 16 bytes needs escaping, two words at a time.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn needs_escape16(chunk: &[u8]) -> bool {
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&chunk[at..at + 8]);
        u64::from_ne_bytes(w)
    };
    needs_escape(word(0)) || needs_escape(word(8))
}

/// Whether any of the 8 bytes is a control character, `"` or `\\` (the classic zero-byte
/// tests, which are exact as to whether any byte matches).
// On x86-64 the SSE2 scan is used; this is the portable one (and is tested everywhere).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * b'"' as u64);
    let backslash = word ^ (ONES * b'\\' as u64);
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x;
    (below_space | has_zero(quote) | has_zero(backslash)) & HIGH != 0
}

impl Emitter for JsonEmitter {
    const STRINGIFIES_KEYS: bool = true;

    #[inline(always)]
    fn nil(&mut self) -> Res {
        self.scalar(b"null")
    }

    #[inline(always)]
    fn bool(&mut self, v: bool) -> Res {
        self.scalar(if v { b"true" } else { b"false" })
    }

    #[inline(always)]
    fn int(&mut self, v: i64) -> Res {
        let mut buf = itoa::Buffer::new();
        self.scalar(buf.format(v).as_bytes())
    }

    #[inline(always)]
    fn uint(&mut self, v: u64) -> Res {
        let mut buf = itoa::Buffer::new();
        self.scalar(buf.format(v).as_bytes())
    }

    /// NaN and the infinities have no JSON form: `null`.
    #[inline(always)]
    fn float(&mut self, v: f64) -> Res {
        if !v.is_finite() {
            return self.nil();
        }
        if self.in_key {
            return self.scalar(f64_text(v).as_bytes());
        }
        self.out.reserve(26)?;
        // SAFETY: 26 bytes were reserved, as `write_f64` needs.
        unsafe {
            let n = write_f64(v, self.out.tail());
            self.out.advance(n);
        }
        Ok(())
    }

    #[inline(always)]
    fn float32(&mut self, v: f32) -> Res {
        if !v.is_finite() {
            return self.nil();
        }
        if self.in_key {
            return self.scalar(f32_text(v).as_bytes());
        }
        self.out.reserve(18)?;
        // SAFETY: 18 bytes were reserved, as `write_f32` needs.
        unsafe {
            let n = write_f32(v, self.out.tail());
            self.out.advance(n);
        }
        Ok(())
    }

    /// One pass: clean 16-byte chunks are stored as they are checked, other bytes one by one.
    fn str(&mut self, utf8: &[u8]) -> Res {
        let n = utf8.len();
        // The quotes, the text, and slack for storing a whole chunk.
        self.out.reserve(n + 18)?;
        // SAFETY: `dst` stays within the room reserved since `start` (the text left plus 18);
        // an escape, which writes more than it reads, commits what was written and reserves
        // again before writing.
        unsafe {
            let mut start = self.out.tail();
            let mut dst = start;
            *dst = b'"';
            dst = dst.add(1);
            let mut i = 0;
            loop {
                while let Some(chunk) = utf8.get(i..i + 16) {
                    if needs_escape16(chunk) {
                        break;
                    }
                    std::ptr::copy_nonoverlapping(chunk.as_ptr(), dst, 16);
                    i += 16;
                    dst = dst.add(16);
                }
                let Some(&b) = utf8.get(i) else {
                    break;
                };
                let esc = ESCAPE[b as usize];
                if esc == 0 {
                    *dst = b;
                    dst = dst.add(1);
                    i += 1;
                    continue;
                }
                self.out.advance(dst.offset_from(start) as usize);
                self.out.reserve(6 + (n - i) + 18)?;
                start = self.out.tail();
                dst = start;
                let code: [u8; 6];
                let text: &[u8] = if esc == b'u' {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    code = [
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[(b >> 4) as usize],
                        HEX[(b & 0xf) as usize],
                    ];
                    &code
                } else {
                    code = [b'\\', esc, 0, 0, 0, 0];
                    &code[..2]
                };
                std::ptr::copy_nonoverlapping(text.as_ptr(), dst, text.len());
                dst = dst.add(text.len());
                i += 1;
            }
            *dst = b'"';
            dst = dst.add(1);
            self.out.advance(dst.offset_from(start) as usize);
        }
        Ok(())
    }

    fn bin(&mut self, _data: &[u8]) -> Res {
        Err(not_json("bytes"))
    }

    fn ext(&mut self, _tag: i8, _data: &[u8]) -> Res {
        Err(not_json("Ext"))
    }

    fn timestamp(&mut self, _secs: i64, _nanos: u32) -> Res {
        Err(not_json("a timestamp extension"))
    }

    fn array_begin(&mut self, len: usize) -> Res {
        if self.in_key {
            return Err(not_json("a tuple dict key"));
        }
        self.open.push(len);
        self.byte(b'[')
    }

    #[inline(always)]
    fn array_item(&mut self, index: usize) -> Res {
        self.item(index)
    }

    fn array_end(&mut self) -> Res {
        self.close(b']')
    }

    fn map_begin(&mut self, len: usize) -> Res {
        self.open.push(len);
        self.byte(b'{')
    }

    #[inline(always)]
    fn map_key(&mut self, index: usize) -> Res {
        self.item(index)?;
        self.in_key = true;
        Ok(())
    }

    #[inline(always)]
    fn map_value(&mut self) -> Res {
        self.in_key = false;
        if self.indent {
            self.raw(b": ")
        } else {
            self.byte(b':')
        }
    }

    fn map_end(&mut self) -> Res {
        self.close(b'}')
    }
}

/// The text JSON writes for a map key that is not a string (before quoting), collected to sort
/// such keys the way they will read.
#[derive(Default)]
pub struct KeyText(pub Vec<u8>);

impl Emitter for KeyText {
    fn nil(&mut self) -> Res {
        self.str(b"null")
    }
    fn bool(&mut self, v: bool) -> Res {
        self.str(if v { b"true" } else { b"false" })
    }
    fn int(&mut self, v: i64) -> Res {
        self.str(itoa::Buffer::new().format(v).as_bytes())
    }
    fn uint(&mut self, v: u64) -> Res {
        self.str(itoa::Buffer::new().format(v).as_bytes())
    }
    fn float(&mut self, v: f64) -> Res {
        if !v.is_finite() {
            return self.nil();
        }
        self.str(f64_text(v).as_bytes())
    }
    fn float32(&mut self, v: f32) -> Res {
        if !v.is_finite() {
            return self.nil();
        }
        self.str(f32_text(v).as_bytes())
    }
    fn str(&mut self, utf8: &[u8]) -> Res {
        self.0.extend_from_slice(utf8);
        Ok(())
    }
    fn bin(&mut self, _data: &[u8]) -> Res {
        Err(not_json("a bytes dict key"))
    }
    fn ext(&mut self, _tag: i8, _data: &[u8]) -> Res {
        Err(not_json("an Ext dict key"))
    }
    fn timestamp(&mut self, _secs: i64, _nanos: u32) -> Res {
        Err(not_json("a timestamp dict key"))
    }
    fn array_begin(&mut self, _len: usize) -> Res {
        Err(not_json("a tuple dict key"))
    }
    fn map_begin(&mut self, _len: usize) -> Res {
        Err(not_json("a dict key that is a map"))
    }
}

#[cfg(test)]
mod tests {
    use super::needs_escape;

    #[test]
    fn sixteen_byte_scan_finds_exactly_the_bytes_to_escape() {
        use super::needs_escape16;
        for b in 0u8..=255 {
            for pos in 0..16 {
                let mut chunk = *b"abcdefghijklmnop";
                chunk[pos] = b;
                let expected = b < 0x20 || b == b'"' || b == b'\\';
                assert_eq!(needs_escape16(&chunk), expected, "byte {b} at {pos}");
            }
        }
    }

    #[test]
    fn escape_scan_finds_exactly_the_bytes_to_escape() {
        for b in 0u8..=255 {
            for pos in 0..8 {
                let mut word = *b"abcdefgh";
                word[pos] = b;
                let expected = b < 0x20 || b == b'"' || b == b'\\';
                assert_eq!(
                    needs_escape(u64::from_le_bytes(word)),
                    expected,
                    "byte {b} at {pos}"
                );
            }
        }
    }
}
