//! The JSON emitter (RFC 8259, UTF-8): compact, or indented by two spaces with
//! `OPT_INDENT_2` (`INDENT`), in the same text as orjson writes. Map keys that are not strings
//! (allowed with `OPT_NON_STR_KEYS`) are written as the JSON text of the value, quoted.
//!
//! Every value is written with the separator that follows it (`,`, or `:` after a key) in the
//! same store, so an item costs one write to the output; a container's end replaces the `,`
//! after its last item, and the one after the whole document is dropped.

use super::float_text::{self, f32_text, f64_text, write_f32, write_f64};
use super::int_text::{self, i64_text, u64_text, write_i64, write_u64};
use super::{json_str, Emitter};
use crate::error::{Error, Res};
use crate::exc::MsgpackEncodeError;
use crate::ffi::BytesWriter;

pub struct JsonEmitter<const INDENT: bool> {
    out: BytesWriter,
    /// Open containers, for indentation (kept only when indenting).
    depth: usize,
    /// Between a map key's start and its value: the key is followed by `:`, and numbers and
    /// literals are quoted.
    in_key: bool,
}

#[cold]
fn not_json(what: &str) -> Error {
    crate::error::Error::new(
        crate::error::Kind::UnsupportedType,
        MsgpackEncodeError::new_err(format!("{what} cannot be written as JSON")),
    )
}

/// A string value's closing quote and separator.
const VALUE_END: &[u8; 4] = b"\",\0\0";

impl<const INDENT: bool> JsonEmitter<INDENT> {
    /// A key's closing quote and separator.
    const KEY_END: (&'static [u8; 4], usize) = if INDENT {
        (b"\": \0", 3)
    } else {
        (b"\":\0\0", 2)
    };

    pub fn new(out: BytesWriter) -> JsonEmitter<INDENT> {
        JsonEmitter {
            out,
            depth: 0,
            in_key: false,
        }
    }

    /// The finished document (the separator after the top-level value dropped).
    pub fn into_writer(mut self) -> BytesWriter {
        if self.out.last() == Some(b',') {
            self.out.pop();
        }
        self.out
    }

    /// Room for a number's text of at most `room` bytes and the separator after it; the text
    /// goes at the returned pointer, then [`Self::number_written`].
    ///
    /// Each number writer is called in the caller's own code rather than through a closure
    /// handed to one helper: the closure was compiled as a call per number.
    #[inline(always)]
    fn number_room(&mut self, room: usize) -> Result<*mut u8, Error> {
        self.out.reserve(room + 1)?;
        // SAFETY: `reserve` just made room for `room + 1` bytes at the tail; a write through the
        // returned pointer is an unsafe step of its own, bounded by this function's doc to
        // `room` bytes of text and the separator.
        Ok(unsafe { self.out.tail() })
    }

    /// Ends a number of `len` bytes written at `dst` (from [`Self::number_room`]) with its
    /// separator.
    ///
    /// # Safety
    /// `dst` came from `number_room` with a `room` of at least `len`, and nothing was written
    /// to the output since.
    #[inline(always)]
    unsafe fn number_written(&mut self, dst: *mut u8, len: usize) -> Res {
        // SAFETY: `room + 1` bytes were reserved at `dst`, and `len <= room`.
        unsafe {
            *dst.add(len) = b',';
            self.out.advance(len + 1);
        }
        Ok(())
    }

    /// A literal with its separator (`len` bytes of `block`), as one store; quoted in key
    /// position.
    #[inline(always)]
    fn literal(&mut self, block: &[u8; 8], len: usize) -> Res {
        if self.in_key {
            return self.quoted_key(&block[..len - 1]);
        }
        self.block(block, len)
    }

    /// `len` bytes of `block`, as one store.
    #[inline(always)]
    fn block(&mut self, block: &[u8; 8], len: usize) -> Res {
        self.out.reserve(8)?;
        // SAFETY: 8 bytes were reserved.
        unsafe { self.out.put_block(block, len) };
        Ok(())
    }

    /// A number or literal as a map key: its text quoted.
    #[cold]
    #[inline(never)]
    fn quoted_key(&mut self, text: &[u8]) -> Res {
        let (end, end_len) = Self::KEY_END;
        self.out.reserve(1 + text.len() + 4)?;
        // SAFETY: room was reserved just above.
        unsafe {
            self.out.put_block(b"\"", 1);
            self.out.put_unchecked(text);
            self.out.put_block(end, end_len);
        }
        Ok(())
    }

    /// A newline and two spaces per open container.
    #[inline(always)]
    fn newline(&mut self) -> Res {
        let depth = self.depth;
        self.out.reserve(1 + 2 * depth)?;
        // SAFETY: room was reserved just above.
        unsafe {
            self.out.put_block(b"\n", 1);
            for _ in 0..depth {
                self.out.put_block(b"  ", 2);
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn open(&mut self, bracket: &[u8; 1]) -> Res {
        if INDENT {
            self.depth += 1;
        }
        self.out.reserve(1)?;
        // SAFETY: one byte was reserved.
        unsafe { self.out.put_block(bracket, 1) };
        Ok(())
    }

    /// Ends a container: the `,` after its last item (none if it is empty) becomes the
    /// bracket, which gets its own separator.
    #[inline(always)]
    fn close(&mut self, bracket: u8) -> Res {
        if INDENT {
            self.depth = self.depth.saturating_sub(1);
        }
        if self.out.last() == Some(b',') {
            self.out.pop();
            if INDENT {
                self.newline()?;
            }
        }
        self.out.reserve(2)?;
        // SAFETY: two bytes were reserved.
        unsafe { self.out.put_block(&[bracket, b','], 2) };
        Ok(())
    }
}

impl<const INDENT: bool> Emitter for JsonEmitter<INDENT> {
    const STRINGIFIES_KEYS: bool = true;
    const JSON_TEXT: bool = true;

    #[inline(always)]
    fn nil(&mut self) -> Res {
        self.literal(b"null,\0\0\0", 5)
    }

    #[inline(always)]
    fn bool(&mut self, v: bool) -> Res {
        if v {
            self.literal(b"true,\0\0\0", 5)
        } else {
            self.literal(b"false,\0\0", 6)
        }
    }

    #[inline(always)]
    fn int(&mut self, v: i64) -> Res {
        if self.in_key {
            return self.quoted_key(i64_text(v).as_bytes());
        }
        let dst = self.number_room(int_text::ROOM)?;
        // SAFETY: `write_i64` writes at most `int_text::ROOM` bytes at `dst` and returns the length.
        unsafe { self.number_written(dst, write_i64(v, dst)) }
    }

    #[inline(always)]
    fn uint(&mut self, v: u64) -> Res {
        if self.in_key {
            return self.quoted_key(u64_text(v).as_bytes());
        }
        let dst = self.number_room(int_text::ROOM)?;
        // SAFETY: `write_u64` writes at most `int_text::ROOM` bytes at `dst` and returns the length.
        unsafe { self.number_written(dst, write_u64(v, dst)) }
    }

    /// A `json.Fragment`'s text, and the separator after it.
    #[inline]
    fn raw_json(&mut self, text: &[u8]) -> Res {
        self.out.put(text)?;
        self.out.put(b",")
    }

    #[cold]
    fn raw_msgpack(&mut self, _data: &[u8]) -> Res {
        Err(not_json(
            "a Fragment (MessagePack bytes; fastmsgpack.json.Fragment holds JSON)",
        ))
    }

    /// NaN and the infinities have no JSON form: `null`.
    #[inline(always)]
    fn float(&mut self, v: f64) -> Res {
        if !v.is_finite() {
            return self.nil();
        }
        if self.in_key {
            return self.quoted_key(f64_text(v).as_bytes());
        }
        let dst = self.number_room(float_text::ROOM)?;
        // SAFETY: `write_f64` writes at most `float_text::ROOM` bytes at `dst` and returns the length.
        unsafe { self.number_written(dst, write_f64(v, dst)) }
    }

    /// `[a,b]` and its separator, in room reserved once; the general route for non-finite
    /// values (`null`), indentation and key position (where an array is refused).
    #[inline(always)]
    fn float_pair(&mut self, a: f64, b: f64) -> Res {
        if INDENT || self.in_key || !(a.is_finite() && b.is_finite()) {
            return super::float_pair_items(self, a, b);
        }
        // `[`, two numbers with a separator each, and `]` whose separator replaces the last.
        self.out.reserve(2 * float_text::ROOM + 4)?;
        // SAFETY: room for `[`, each number's `ROOM` bytes and `,`, then `],` was reserved just
        // above; each write starts after the text before it, so all stay within it.
        unsafe {
            let start = self.out.tail();
            *start = b'[';
            let mut dst = start.add(1);
            dst = dst.add(write_f64(a, dst));
            *dst = b',';
            dst = dst.add(1);
            dst = dst.add(write_f64(b, dst));
            dst.cast::<[u8; 2]>().write_unaligned(*b"],");
            self.out.advance(dst.offset_from(start) as usize + 2);
        }
        Ok(())
    }

    #[inline(always)]
    fn float32(&mut self, v: f32) -> Res {
        if !v.is_finite() {
            return self.nil();
        }
        if self.in_key {
            return self.quoted_key(f32_text(v).as_bytes());
        }
        let dst = self.number_room(float_text::ROOM)?;
        // SAFETY: `write_f32` writes at most `float_text::ROOM` bytes at `dst` and returns the length.
        unsafe { self.number_written(dst, write_f32(v, dst)) }
    }

    #[inline(always)]
    fn str(&mut self, utf8: &[u8]) -> Res {
        if self.in_key {
            let (end, end_len) = Self::KEY_END;
            json_str::write(&mut self.out, utf8, end, end_len)
        } else {
            json_str::write(&mut self.out, utf8, VALUE_END, 2)
        }
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

    #[inline(always)]
    fn array_begin(&mut self, _len: usize) -> Res {
        if self.in_key {
            return Err(not_json("a tuple dict key"));
        }
        self.open(b"[")
    }

    #[inline(always)]
    fn array_empty(&mut self) -> Res {
        if self.in_key {
            return Err(not_json("a tuple dict key"));
        }
        self.block(b"[],\0\0\0\0\0", 3)
    }

    #[inline(always)]
    fn array_item(&mut self, _index: usize) -> Res {
        if INDENT {
            self.newline()?;
        }
        Ok(())
    }

    #[inline(always)]
    fn array_end(&mut self) -> Res {
        self.close(b']')
    }

    #[inline(always)]
    fn map_begin(&mut self, _len: usize) -> Res {
        self.open(b"{")
    }

    #[inline(always)]
    fn map_empty(&mut self) -> Res {
        self.block(b"{},\0\0\0\0\0", 3)
    }

    #[inline(always)]
    fn map_key(&mut self, _index: usize) -> Res {
        if INDENT {
            self.newline()?;
        }
        self.in_key = true;
        Ok(())
    }

    #[inline(always)]
    fn map_value(&mut self) -> Res {
        self.in_key = false;
        Ok(())
    }

    #[inline(always)]
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
        self.str(i64_text(v).as_bytes())
    }
    fn uint(&mut self, v: u64) -> Res {
        self.str(u64_text(v).as_bytes())
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
