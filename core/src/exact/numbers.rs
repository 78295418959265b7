//! Big integers, `complex` and `UUID`: fixed binary payloads.

use super::{Malformed, MAX_BIG_INT_BYTES};

/// An integer beyond 64 bits as `int.from_bytes(payload, "big", signed=True)` reads it: its
/// big-endian two's complement, 1 to [`MAX_BIG_INT_BYTES`] bytes. A reader accepts redundant
/// sign bytes (`00 01` is 1); [`BigInt::write`] writes the fewest bytes that hold the value and
/// its sign, and two spellings of one value compare equal.
#[derive(Debug, Clone, Copy)]
pub struct BigInt<'a>(&'a [u8]);

impl<'a> BigInt<'a> {
    /// The integer of these two's-complement bytes, if there are 1 to [`MAX_BIG_INT_BYTES`].
    #[inline]
    pub fn new(twos_complement: &'a [u8]) -> Result<BigInt<'a>, Malformed> {
        if twos_complement.is_empty() {
            return Err(Malformed::Empty);
        }
        if twos_complement.len() > MAX_BIG_INT_BYTES {
            return Err(Malformed::BigIntTooLong(twos_complement.len()));
        }
        Ok(BigInt(twos_complement))
    }

    #[inline]
    pub fn read(payload: &'a [u8]) -> Result<BigInt<'a>, Malformed> {
        BigInt::new(payload)
    }

    /// How many bytes hold an integer whose magnitude (`n`, or `~n` when negative) has `bits`
    /// bits, and its sign: `bits // 8 + 1`; `None` past [`MAX_BIG_INT_BYTES`], checked before the
    /// bytes are made.
    pub fn len_for_bits(bits: u64) -> Option<usize> {
        let len = bits / 8 + 1;
        (len <= MAX_BIG_INT_BYTES as u64).then_some(len as usize)
    }

    pub fn is_negative(&self) -> bool {
        self.0[0] & 0x80 != 0
    }

    /// The bytes as given.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The fewest bytes that hold the value: without leading `00` (or `ff`) bytes whose next
    /// byte carries the same sign.
    pub fn minimal(&self) -> &'a [u8] {
        let fill = if self.is_negative() { 0xff } else { 0x00 };
        let mut b = self.0;
        while b.len() > 1 && b[0] == fill && (b[1] & 0x80 == 0x80) == (fill == 0xff) {
            b = &b[1..];
        }
        b
    }

    /// The payload [`BigInt::write`] writes: the [`BigInt::minimal`] bytes.
    pub fn payload(&self) -> &'a [u8] {
        self.minimal()
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.payload());
    }
}

impl PartialEq for BigInt<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.minimal() == other.minimal()
    }
}

/// A `complex`: real part, then imaginary part, float 64 big-endian each (16 bytes). Every bit
/// is kept, NaN payloads included.
#[derive(Debug, Clone, Copy)]
pub struct Complex {
    pub re: f64,
    pub im: f64,
}

impl Complex {
    #[inline]
    pub fn read(payload: &[u8]) -> Result<Complex, Malformed> {
        let raw = fixed::<16>(payload)?;
        let (re, im) = raw.split_at(8);
        Ok(Complex {
            re: f64::from_bits(u64::from_be_bytes(word(re))),
            im: f64::from_bits(u64::from_be_bytes(word(im))),
        })
    }

    #[inline]
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&self.re.to_be_bytes());
        out[8..].copy_from_slice(&self.im.to_be_bytes());
        out
    }
}

impl PartialEq for Complex {
    /// Bit for bit (NaNs of one payload are equal, `0.0` and `-0.0` are not).
    fn eq(&self, other: &Self) -> bool {
        self.re.to_bits() == other.re.to_bits() && self.im.to_bits() == other.im.to_bits()
    }
}

/// A `UUID`'s 128 bits, big-endian (`UUID.bytes`, RFC 9562 byte order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uuid(pub u128);

impl Uuid {
    #[inline]
    pub fn read(payload: &[u8]) -> Result<Uuid, Malformed> {
        Ok(Uuid(u128::from_be_bytes(fixed::<16>(payload)?)))
    }

    #[inline]
    pub fn to_bytes(&self) -> [u8; 16] {
        self.0.to_be_bytes()
    }
}

/// A payload of exactly `N` bytes.
#[inline(always)]
pub(super) fn fixed<const N: usize>(payload: &[u8]) -> Result<[u8; N], Malformed> {
    <[u8; N]>::try_from(payload).map_err(|_| Malformed::Length {
        want: N,
        got: payload.len(),
    })
}

/// Eight bytes of a slice known to hold eight.
#[inline(always)]
fn word(b: &[u8]) -> [u8; 8] {
    let mut w = [0u8; 8];
    w.copy_from_slice(b);
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_int_minimal_form() {
        let cases: [(&[u8], &[u8]); 6] = [
            (&[0, 1], &[1]),
            (&[0, 0x80], &[0, 0x80]),
            (&[0xff, 0xff, 0x7f], &[0xff, 0x7f]),
            (&[0xff, 0x80], &[0x80]),
            (&[0xff], &[0xff]),
            (&[0, 0, 0], &[0]),
        ];
        for (given, minimal) in cases {
            let v = BigInt::read(given).map(|v| v.minimal());
            assert_eq!(v, Ok(minimal), "{given:02x?}");
        }
        assert_eq!(BigInt::read(&[]), Err(Malformed::Empty));
        assert_eq!(BigInt::len_for_bits(32767 - 1), Some(4096));
        assert_eq!(BigInt::len_for_bits(32768), None);
    }
}
