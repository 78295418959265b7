//! Typed decoding of the scalars that travel as text or bytes: `str`, `datetime`, `date`,
//! `time`, `UUID` and `Decimal`.

use super::decode::{made, TypedDecoder};
use super::error::{TError, TResult};
use super::text;
use crate::de::error::{DeError, Kind};
use crate::de::token::Token;
use crate::ffi::{self, Owned, Ref};

impl TypedDecoder<'_> {
    pub(super) fn str(&mut self, bytes: &[u8], start: usize) -> TResult<Owned> {
        if bytes.is_ascii() {
            // SAFETY: ASCII, and attached.
            return made(unsafe { ffi::new_ascii_str(bytes) });
        }
        if simdutf8::basic::from_utf8(bytes).is_err() {
            return Err(DeError::input(Kind::InvalidUtf8, start).into());
        }
        // SAFETY: valid UTF-8, and attached.
        made(unsafe { ffi::new_non_ascii_str(bytes) })
    }

    pub(super) fn tz(&self, offset: Option<i32>) -> TResult<Option<Owned>> {
        Ok(match offset {
            None => None,
            // SAFETY: attached; the offset is below a day.
            Some(secs) => Some(unsafe { ffi::new_timezone(self.known, secs)? }),
        })
    }

    pub(super) fn datetime(&mut self, node: usize, bytes: &[u8], start: usize) -> TResult<Owned> {
        let Some(p) = text::datetime(bytes) else {
            return Err(self.mismatch(node, &Token::Str(bytes), start));
        };
        let tz = self.tz(p.offset)?;
        let tz_ptr = tz.as_ref().map_or(std::ptr::null_mut(), Owned::as_ptr);
        // SAFETY: attached; `tz` is live or null.
        let made = unsafe {
            ffi::new_datetime(
                self.known,
                (p.year, p.month, p.day),
                (p.hour, p.minute, p.second, p.micro),
                tz_ptr,
            )
        };
        made.map_err(|cause| self.out_of_range(node, bytes, start, cause))
    }

    pub(super) fn date(&mut self, node: usize, bytes: &[u8], start: usize) -> TResult<Owned> {
        let Some(p) = text::date(bytes) else {
            return Err(self.mismatch(node, &Token::Str(bytes), start));
        };
        // SAFETY: attached.
        unsafe { ffi::new_date(self.known, p.year, p.month, p.day) }
            .map_err(|cause| self.out_of_range(node, bytes, start, cause))
    }

    pub(super) fn time(&mut self, node: usize, bytes: &[u8], start: usize) -> TResult<Owned> {
        let Some(p) = text::time(bytes) else {
            return Err(self.mismatch(node, &Token::Str(bytes), start));
        };
        let tz = self.tz(p.offset)?;
        let tz_ptr = tz.as_ref().map_or(std::ptr::null_mut(), Owned::as_ptr);
        // SAFETY: attached; `tz` is live or null.
        unsafe { ffi::new_time(self.known, (p.hour, p.minute, p.second, p.micro), tz_ptr) }
            .map_err(|cause| self.out_of_range(node, bytes, start, cause))
    }

    #[cold]
    pub(super) fn out_of_range(
        &self,
        node: usize,
        bytes: &[u8],
        start: usize,
        cause: pyo3::PyErr,
    ) -> TError {
        let what = format!("str {:?}", String::from_utf8_lossy(bytes));
        self.refused(node, &what, start, cause)
    }

    pub(super) fn uuid(&mut self, v: u128) -> TResult<Owned> {
        let (h, py) = (self.handles, self.py);
        let uuid = Ref::of_py(&h.uuid, py);
        let (int_name, is_safe) = (Ref::of_py(&h.int, py), Ref::of_py(&h.is_safe, py));
        let unknown = Ref::of_py(&h.safe_unknown, py);
        // SAFETY: attached (`py`), every object held (the process's handles, and `int` and `obj`
        // owned here); `UUID.__new__` is `object.__new__`, and its constructor sets the same two
        // slots.
        unsafe {
            let int = made(ffi::new_u128(v))?;
            let obj = ffi::object_new(uuid.as_ptr())?;
            ffi::set_attr_direct(obj.as_ptr(), int_name.as_ptr(), int.as_ptr())?;
            ffi::set_attr_direct(obj.as_ptr(), is_safe.as_ptr(), unknown.as_ptr())?;
            Ok(obj)
        }
    }

    pub(super) fn decimal(
        &mut self,
        node: usize,
        token: Token<'_>,
        start: usize,
    ) -> TResult<Owned> {
        // SAFETY: attached.
        let arg = unsafe {
            match token {
                Token::Str(bytes) => self.str(bytes, start)?,
                Token::Int(v) => made(ffi::new_i64(v))?,
                Token::UInt(v) => made(ffi::new_u64(v))?,
                Token::F64(v) => ffi::to_str(made(ffi::new_f64(v))?.as_ptr())?,
                Token::F32(v) => ffi::to_str(made(ffi::new_f64(v as f64))?.as_ptr())?,
                _ => return Err(self.mismatch(node, &token, start)),
            }
        };
        let decimal = Ref::of_py(&self.handles.decimal, self.py);
        // SAFETY: attached (`py`); `Decimal` is held by the process's handles, `arg` here.
        match unsafe { ffi::call1(decimal.as_ptr(), arg.as_ptr()) } {
            Ok(d) => Ok(d),
            Err(cause) => {
                // SAFETY: attached; `arg` is live.
                let what = unsafe { ffi::repr_string(arg.as_ptr()) };
                Err(self.refused(node, &what, start, cause))
            }
        }
    }
}
