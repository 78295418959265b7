//! `decimal.Decimal`: a flags byte (bit 0 the sign, bits 1-2 the kind), then for a finite one
//! its exponent (i32) and for every kind but infinity its coefficient's (or NaN payload's)
//! decimal digits in ASCII. Also the two texts the extension trades with Python: `str(d)` in,
//! the scientific text `Decimal()` reads out.

use std::borrow::Cow;

use super::{Malformed, MAX_DECIMAL_DIGITS, MAX_DECIMAL_EXPONENT};

/// Bit 0 of the flags: negative.
pub const NEGATIVE: u8 = 1;
/// Bits 1-2 of the flags: the kind.
pub const FINITE: u8 = 0 << 1;
pub const INFINITE: u8 = 1 << 1;
pub const NAN: u8 = 2 << 1;
pub const SNAN: u8 = 3 << 1;

/// What a Decimal is, with the digits of its coefficient or its NaN's payload (ASCII 0-9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecimalKind<'a> {
    Finite {
        exponent: i32,
        digits: Cow<'a, [u8]>,
    },
    Infinite,
    NaN(Cow<'a, [u8]>),
    SNaN(Cow<'a, [u8]>),
}

/// `(-1)**negative * coefficient * 10**exponent`, or an infinity or a NaN, with the digits as
/// `Decimal.as_tuple()` gives them. A reader accepts leading zero digits (`007` is 7, a NaN's
/// `0` payload is none); [`Decimal::write`] leaves them out, so two spellings of one value
/// write the same bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal<'a> {
    pub negative: bool,
    pub kind: DecimalKind<'a>,
}

impl<'a> Decimal<'a> {
    #[inline]
    pub fn read(payload: &'a [u8]) -> Result<Decimal<'a>, Malformed> {
        let Some((&flags, rest)) = payload.split_first() else {
            return Err(Malformed::Empty);
        };
        if flags & !0b111 != 0 {
            return Err(Malformed::Flags(flags));
        }
        let kind = match flags & 0b110 {
            INFINITE if rest.is_empty() => DecimalKind::Infinite,
            INFINITE => return Err(Malformed::InfinityDigits),
            NAN => DecimalKind::NaN(Cow::Borrowed(digits(rest)?)),
            SNAN => DecimalKind::SNaN(Cow::Borrowed(digits(rest)?)),
            _ => {
                let [e0, e1, e2, e3, ref coefficient @ ..] = *rest else {
                    return Err(Malformed::NoCoefficient);
                };
                if coefficient.is_empty() {
                    return Err(Malformed::NoCoefficient);
                }
                let exponent = i32::from_be_bytes([e0, e1, e2, e3]);
                if (exponent as i64).unsigned_abs() > MAX_DECIMAL_EXPONENT as u64 {
                    return Err(Malformed::Exponent(exponent as i64));
                }
                DecimalKind::Finite {
                    exponent,
                    digits: Cow::Borrowed(digits(coefficient)?),
                }
            }
        };
        Ok(Decimal {
            negative: flags & NEGATIVE != 0,
            kind,
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        let sign = if self.negative { NEGATIVE } else { 0 };
        match &self.kind {
            DecimalKind::Finite { exponent, digits } => {
                out.push(sign | FINITE);
                out.extend_from_slice(&exponent.to_be_bytes());
                let d = trim_zeros(digits);
                out.extend_from_slice(if d.is_empty() { b"0" } else { d });
            }
            DecimalKind::Infinite => out.push(sign | INFINITE),
            DecimalKind::NaN(d) => {
                out.push(sign | NAN);
                out.extend_from_slice(trim_zeros(d));
            }
            DecimalKind::SNaN(d) => {
                out.push(sign | SNAN);
                out.extend_from_slice(trim_zeros(d));
            }
        }
    }

    /// The value of `str(d)`: `-1.25E+7`, `0.00`, `sNaN12`, `-Infinity` (and the spellings
    /// `Decimal()` also reads: `Inf`, a `+` sign, any case). The refusal says why.
    pub fn from_text(text: &[u8]) -> Result<Decimal<'static>, String> {
        let (negative, rest) = match text.split_first() {
            Some((b'-', rest)) => (true, rest),
            Some((b'+', rest)) => (false, rest),
            _ => (false, text),
        };
        let nan_digits = |d: &[u8]| -> Result<Cow<'static, [u8]>, String> {
            let d = trim_zeros(d);
            if !d.iter().all(u8::is_ascii_digit) || d.len() > MAX_DECIMAL_DIGITS {
                return Err("unreadable NaN payload".to_owned());
            }
            Ok(Cow::Owned(d.to_vec()))
        };
        let starts =
            |n: usize, word: &[u8]| rest.len() >= n && rest[..n].eq_ignore_ascii_case(word);
        let kind = if rest.eq_ignore_ascii_case(b"Infinity") || rest.eq_ignore_ascii_case(b"Inf") {
            DecimalKind::Infinite
        } else if starts(4, b"sNaN") {
            DecimalKind::SNaN(nan_digits(&rest[4..])?)
        } else if starts(3, b"NaN") {
            DecimalKind::NaN(nan_digits(&rest[3..])?)
        } else {
            finite_from_text(rest)?
        };
        Ok(Decimal { negative, kind })
    }

    /// The scientific text `Decimal()` reads as this value: `-125E-2`, `sNaN4`, `Infinity`.
    pub fn text(&self) -> String {
        let sign = if self.negative { "-" } else { "" };
        let ascii = |d: &[u8]| String::from_utf8_lossy(d).into_owned();
        match &self.kind {
            DecimalKind::Finite { exponent, digits } => {
                format!("{sign}{}E{exponent}", ascii(digits))
            }
            DecimalKind::Infinite => format!("{sign}Infinity"),
            DecimalKind::NaN(d) => format!("{sign}NaN{}", ascii(d)),
            DecimalKind::SNaN(d) => format!("{sign}sNaN{}", ascii(d)),
        }
    }

    /// The same value spelt without leading zero digits (what [`Decimal::write`] writes).
    pub fn canonical(&self) -> Decimal<'_> {
        let kind = match &self.kind {
            DecimalKind::Finite { exponent, digits } => {
                let d = trim_zeros(digits);
                DecimalKind::Finite {
                    exponent: *exponent,
                    digits: Cow::Borrowed(if d.is_empty() { b"0" } else { d }),
                }
            }
            DecimalKind::Infinite => DecimalKind::Infinite,
            DecimalKind::NaN(d) => DecimalKind::NaN(Cow::Borrowed(trim_zeros(d))),
            DecimalKind::SNaN(d) => DecimalKind::SNaN(Cow::Borrowed(trim_zeros(d))),
        };
        Decimal {
            negative: self.negative,
            kind,
        }
    }
}

/// A finite Decimal from the text after its sign: digits, an optional point and more digits,
/// an optional exponent.
fn finite_from_text(rest: &[u8]) -> Result<DecimalKind<'static>, String> {
    let (mantissa, exp) = match rest.iter().position(|&c| c == b'e' || c == b'E') {
        Some(at) => {
            let exp = std::str::from_utf8(&rest[at + 1..])
                .ok()
                .and_then(|t| t.parse::<i64>().ok())
                .ok_or("unreadable exponent")?;
            (&rest[..at], exp)
        }
        None => (rest, 0),
    };
    let (int_part, frac) = match mantissa.iter().position(|&c| c == b'.') {
        Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
        None => (mantissa, &mantissa[..0]),
    };
    if int_part.is_empty() && frac.is_empty()
        || !int_part.iter().chain(frac).all(u8::is_ascii_digit)
    {
        return Err("unreadable digits".to_owned());
    }
    let exponent = exp.saturating_sub(frac.len() as i64);
    if exponent.unsigned_abs() > MAX_DECIMAL_EXPONENT as u64 {
        return Err(format!(
            "exponent {exponent} is beyond ±{MAX_DECIMAL_EXPONENT}"
        ));
    }
    let mut digits: Vec<u8> = int_part
        .iter()
        .chain(frac)
        .copied()
        .skip_while(|&d| d == b'0')
        .collect();
    if digits.is_empty() {
        digits.push(b'0');
    }
    if digits.len() > MAX_DECIMAL_DIGITS {
        return Err(format!(
            "{} digits is more than {MAX_DECIMAL_DIGITS}",
            digits.len()
        ));
    }
    Ok(DecimalKind::Finite {
        exponent: exponent as i32,
        digits: Cow::Owned(digits),
    })
}

/// Digits read from a payload: at most [`MAX_DECIMAL_DIGITS`], each ASCII 0-9.
fn digits(d: &[u8]) -> Result<&[u8], Malformed> {
    if d.len() > MAX_DECIMAL_DIGITS {
        return Err(Malformed::Digits(d.len()));
    }
    if !d.iter().all(u8::is_ascii_digit) {
        return Err(Malformed::NotDigits);
    }
    Ok(d)
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let first = d.iter().position(|&c| c != b'0').unwrap_or(d.len());
    &d[first..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        match Decimal::from_text(text.as_bytes()) {
            Ok(d) => d.write(&mut out),
            Err(why) => panic!("{text}: {why}"),
        }
        out
    }

    fn text(payload: &[u8]) -> Result<String, Malformed> {
        Decimal::read(payload).map(|d| d.text())
    }

    #[test]
    fn from_str_text() {
        assert_eq!(
            payload("1.25"),
            [0, 0xff, 0xff, 0xff, 0xfe, b'1', b'2', b'5']
        );
        assert_eq!(payload("-0.00"), [1, 0xff, 0xff, 0xff, 0xfe, b'0']);
        assert_eq!(payload("1.2E+7"), [0, 0, 0, 0, 6, b'1', b'2']);
        assert_eq!(payload("-Infinity"), [1 | 2]);
        assert_eq!(payload("NaN12"), [4, b'1', b'2']);
        assert_eq!(payload("NaN0012"), [4, b'1', b'2']);
        assert_eq!(payload("-sNaN"), [1 | 6]);
        assert!(Decimal::from_text(b"1E+1000000000").is_err());
        assert!(Decimal::from_text(b"1E+99999999999999999999").is_err());
        assert!(Decimal::from_text(b"1.x").is_err());
    }

    #[test]
    fn to_decimal_text() {
        assert_eq!(
            text(&[0, 0xff, 0xff, 0xff, 0xfe, b'1', b'2', b'5']).as_deref(),
            Ok("125E-2")
        );
        assert_eq!(text(&[3]).as_deref(), Ok("-Infinity"));
        assert_eq!(text(&[7, b'4']).as_deref(), Ok("-sNaN4"));
        assert_eq!(
            text(&[0, 0x7f, 0xff, 0xff, 0xff, b'1']),
            Err(Malformed::Exponent(i32::MAX as i64))
        );
        assert_eq!(text(&[0, 0, 0, 0, 0]), Err(Malformed::NoCoefficient));
        assert_eq!(text(&[0, 0, 0, 0, 0, b'x']), Err(Malformed::NotDigits));
        assert_eq!(text(&[8]), Err(Malformed::Flags(8)));
    }
}
