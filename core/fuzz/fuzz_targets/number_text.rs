//! The number writers against the standard library: an integer's text is `to_string()`'s, a
//! float's text reads back as the same float, and a day count survives the calendar both ways.
#![no_main]

use fastmsgpack_core::calendar::{civil_from_days, days_from_civil};
use fastmsgpack_core::float_text::{f32_text, f64_text};
use fastmsgpack_core::int_text::{i64_text, u64_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u64, i64, u64, u32, i32)| {
    let (u, i, f_bits, f32_bits, days) = input;
    assert_eq!(u64_text(u).as_bytes(), u.to_string().as_bytes());
    assert_eq!(i64_text(i).as_bytes(), i.to_string().as_bytes());

    let f = f64::from_bits(f_bits);
    if f.is_finite() {
        let written = f64_text(f);
        let text = std::str::from_utf8(written.as_bytes()).expect("ASCII");
        assert_eq!(
            text.parse::<f64>().map(f64::to_bits),
            Ok(f.to_bits()),
            "{text}"
        );
    }
    let g = f32::from_bits(f32_bits);
    if g.is_finite() {
        let written = f32_text(g);
        let text = std::str::from_utf8(written.as_bytes()).expect("ASCII");
        assert_eq!(
            text.parse::<f32>().map(f32::to_bits),
            Ok(g.to_bits()),
            "{text}"
        );
    }

    // Days from 0001-01-01 to 9999-12-31 and beyond, within what the calendar takes.
    let days = i64::from(days) % 5_000_000;
    let (year, month, day) = civil_from_days(days);
    assert_eq!(days_from_civil(year, month, day), days);
});
