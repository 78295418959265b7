//! A number's text held on the stack, for the paths that need it as a slice (quoted map keys,
//! keys sorted by their text); values themselves are written in place by the number writers.

/// Text of at most [`NumberText::ROOM`] bytes.
pub struct NumberText {
    buf: [u8; NumberText::ROOM],
    len: usize,
}

impl NumberText {
    /// Enough for every writer: `float_text::ROOM` (24) and `int_text::ROOM` (20).
    pub const ROOM: usize = 24;

    /// The text `write` puts at the pointer it is given, returning its length.
    ///
    /// # Safety
    /// `write` writes at most `ROOM` bytes there.
    #[inline(always)]
    pub unsafe fn new(write: impl FnOnce(*mut u8) -> usize) -> NumberText {
        let mut text = NumberText {
            buf: [0; NumberText::ROOM],
            len: 0,
        };
        text.len = write(text.buf.as_mut_ptr());
        text
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}
