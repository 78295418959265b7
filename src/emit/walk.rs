//! An emitter that writes nothing: [`crate::ser::walk`] runs `packb`'s walk over the objects with
//! it, so that the part of a call spent reading the Python objects can be measured apart from
//! writing the output. Built only with the `walk-probe` feature (`scripts/profile_row.py`'s
//! `walk` library).
//!
//! Each value read goes through [`black_box`], so the compiler keeps every read a real write
//! would need (the float's value, the string's UTF-8 and length, each container's length).

use std::hint::black_box;

use super::Emitter;
use crate::error::Res;

pub struct WalkEmitter;

impl Emitter for WalkEmitter {
    fn nil(&mut self) -> Res {
        Ok(())
    }
    fn bool(&mut self, v: bool) -> Res {
        black_box(v);
        Ok(())
    }
    fn int(&mut self, v: i64) -> Res {
        black_box(v);
        Ok(())
    }
    fn uint(&mut self, v: u64) -> Res {
        black_box(v);
        Ok(())
    }
    fn float(&mut self, v: f64) -> Res {
        black_box(v);
        Ok(())
    }
    fn float32(&mut self, v: f32) -> Res {
        black_box(v);
        Ok(())
    }
    fn str(&mut self, utf8: &[u8]) -> Res {
        black_box(utf8);
        Ok(())
    }
    fn bin(&mut self, data: &[u8]) -> Res {
        black_box(data);
        Ok(())
    }
    fn ext(&mut self, tag: i8, data: &[u8]) -> Res {
        black_box((tag, data));
        Ok(())
    }
    fn timestamp(&mut self, secs: i64, nanos: u32) -> Res {
        black_box((secs, nanos));
        Ok(())
    }
    fn array_begin(&mut self, len: usize) -> Res {
        black_box(len);
        Ok(())
    }
    fn map_begin(&mut self, len: usize) -> Res {
        black_box(len);
        Ok(())
    }
}
