// Well-formed documents from a seeded random stream, for the integration tests.

/// xorshift64*: a fixed, seedable stream, so that a failure repeats.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random well-formed value (every family, small and wide headers) appended to `out`.
pub fn value(rng: &mut Rng, depth: u32, out: &mut Vec<u8>) {
    let pick = if depth > 6 {
        rng.below(8)
    } else {
        rng.below(11)
    };
    match pick {
        0 => out.push(0xc0),
        1 => out.push(0xc2 | rng.below(2) as u8),
        2 => out.push(rng.below(128) as u8),
        3 => {
            out.push(0xd3);
            out.extend_from_slice(&rng.next().to_be_bytes());
        }
        4 => {
            out.push(0xcb);
            out.extend_from_slice(&rng.next().to_be_bytes());
        }
        5 => {
            let text = ["", "a", "héllo", "日本", "\u{10ffff}"][rng.below(5) as usize];
            if rng.below(2) == 0 && text.len() < 32 {
                out.push(0xa0 | text.len() as u8);
            } else {
                out.push(0xd9);
                out.push(text.len() as u8);
            }
            out.extend_from_slice(text.as_bytes());
        }
        6 => {
            let n = rng.below(5) as usize;
            out.extend_from_slice(&[0xc4, n as u8]);
            out.extend(std::iter::repeat_n(0xab, n));
        }
        7 => {
            out.extend_from_slice(&[0xd6, 0xff]);
            out.extend_from_slice(&(rng.next() as u32).to_be_bytes());
        }
        8 | 9 => {
            let n = rng.below(4);
            let map = pick == 9;
            if rng.below(2) == 0 {
                out.push(if map { 0x80 } else { 0x90 } | n as u8);
            } else {
                out.push(if map { 0xde } else { 0xdc });
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            for _ in 0..n * if map { 2 } else { 1 } {
                value(rng, depth + 1, out);
            }
        }
        _ => {
            out.push(0xdd);
            out.extend_from_slice(&1u32.to_be_bytes());
            value(rng, depth + 1, out);
        }
    }
}
