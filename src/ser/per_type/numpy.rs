//! numpy arrays and scalars.
//!
//! `OPT_SERIALIZE_NUMPY`: value by value, as nested arrays (float16 and float32 as float 32,
//! datetime64 under the datetime options), read through the buffer protocol with the array's own
//! strides and byte order, so any layout packs its true values.
//!
//! `OPT_NUMPY_RAW`: the raw bytes with dtype and shape, in the map layout msgpack-numpy uses
//! (`nd`, `type`, `kind`, `shape`, `data`, with bin keys), for a round trip at memory speed.

use crate::emit::Emitter;
use crate::error::Res;
use crate::ffi::{self, parse_dtype, ArrayBuffer, Elem, Numpy, Order, Owned, Ref};
use crate::opt;
use crate::ser::state::State;
use crate::ser::{error, per_type, Ctx};

/// The numpy handles; classification only reports numpy types when they are loaded.
fn numpy(cx: &Ctx) -> Res<&'static Numpy> {
    cx.numpy
        .ok_or_else(|| error::numpy_dtype("(numpy is not loaded)"))
}

/// An ndarray.
///
/// # Safety
/// `obj` is a live ndarray; the GIL is held.
pub unsafe fn write_array<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    // SAFETY: `obj` is a live ndarray and the GIL is held (this function's precondition), as
    // `write_values` needs of both its object and its array.
    unsafe { write_values(obj, obj, true, st, cx, e) }
}

/// A numpy scalar (`np.float32(1.5)`, `np.datetime64(...)`, ...), packed through a 0-d array
/// (`default` still receives the scalar itself).
///
/// # Safety
/// `obj` is a live numpy scalar; the GIL is held.
pub unsafe fn write_scalar<E: Emitter>(obj: Ref<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let np = numpy(cx)?;
    // SAFETY: `obj` is a live numpy scalar and the GIL is held (this function's precondition); its
    // inline value is read only once its type is found among numpy's scalar types.
    unsafe {
        if !st.has(opt::NUMPY_RAW) {
            let ty = ffi::type_of(obj.as_ptr());
            if let Some(&(_, elem)) = np.scalars.iter().find(|&&(t, _)| t == ty) {
                // Its value is read before anything runs Python code, while `obj` lives.
                return write_elem(ffi::scalar_value(obj), Order::NATIVE, elem, st, e);
            }
        }
        let array = ffi::call1(np.asarray, obj.as_ptr()).map_err(numpy_failed)?;
        write_values(Ref::of(&array), obj, false, st, cx, e)
    }
}

/// `array`'s values, element-wise or raw; `original` (the array, or the scalar it was made
/// from) is what `default` receives for an unsupported dtype.
///
/// # Safety
/// `array` is a live ndarray and `original` a live object, both held by the caller; the GIL is
/// held.
unsafe fn write_values<E: Emitter>(
    array: Ref<'_>,
    original: Ref<'_>,
    is_array: bool,
    st: State,
    cx: &Ctx,
    e: &mut E,
) -> Res {
    let np = numpy(cx)?;
    // SAFETY: `array` and `original` are held by the caller and the GIL is held (this function's
    // precondition); every object made here is held while used.
    unsafe {
        let _hold = ffi::hold(array.as_ptr());
        let (dtype, dtype_str) = dtype_of(array, np)?;
        let parsed = parse_dtype(&dtype_str);
        if st.has(opt::NUMPY_RAW) {
            let raw = Raw {
                array,
                original,
                dtype: Ref::of(&dtype),
                dtype_str: &dtype_str,
                parsed,
                is_array,
            };
            return write_raw(raw, st, cx, e);
        }
        let Some((order, elem)) = parsed else {
            return unsupported(original, Ref::of(&dtype), false, st, cx, e);
        };
        let source = as_int_view(array, order, elem, np)?;
        let buf = ArrayBuffer::export(source.as_ptr(), false).map_err(numpy_failed)?;
        if buf.ndim() == 0 {
            return write_elem(buf.ptr(), order, elem, st, e);
        }
        // Room for every value at its largest encoding and every array header up front, so the
        // output grows once instead of doubling (and copying) its way up; the unused rest is
        // given back at the end.
        let dims = (0..buf.ndim()).map(|d| buf.dim(d).0);
        let values = dims.clone().fold(1usize, |n, len| n.saturating_mul(len));
        let headers = dims.fold((1usize, 0usize), |(rows, total), len| {
            let rows = rows.saturating_mul(len);
            (rows, total.saturating_add(rows))
        });
        e.reserve_hint(
            values
                .saturating_mul(max_encoded_len(elem))
                .saturating_add(headers.1.saturating_mul(5)),
        )?;
        walk(&buf, 0, buf.ptr(), order, elem, st, e)
    }
}

/// An array's dtype and its `dtype.str` (`<f8`, `|b1`, ...).
///
/// # Safety
/// `obj` is a live ndarray; the GIL is held.
unsafe fn dtype_of(obj: Ref<'_>, np: &Numpy) -> Res<(Owned, String)> {
    // SAFETY: attached; `obj` is live.
    unsafe {
        let dtype = ffi::get_attr(obj.as_ptr(), np.names.dtype).map_err(numpy_failed)?;
        let text = ffi::get_attr(dtype.as_ptr(), np.names.str_).map_err(numpy_failed)?;
        let Some(utf8) = ffi::str_utf8(text.as_ptr()) else {
            return Err(numpy_failed(ffi::fetch_error()));
        };
        Ok((dtype, String::from_utf8_lossy(utf8).into_owned()))
    }
}

/// datetime64 arrays have no buffer export: they are read through a view as int64 of the same
/// byte order (the values are counts of the unit since the epoch).
///
/// # Safety
/// `obj` is a live ndarray of the dtype `elem` was parsed from; the GIL is held.
unsafe fn as_int_view(obj: Ref<'_>, order: Order, elem: Elem, np: &Numpy) -> Res<Owned> {
    // SAFETY: attached; `obj` is live.
    unsafe {
        if !matches!(elem, Elem::Datetime(_)) {
            return Ok(obj.hold());
        }
        let int64 = ffi::new_str(if order == Order::Big { b">i8" } else { b"<i8" })
            .ok_or_else(ffi::fetch_error)?;
        ffi::call_method1(obj.as_ptr(), np.names.view, int64.as_ptr()).map_err(numpy_failed)
    }
}

/// One dimension of an array: an array of the next dimension's arrays, or of values.
///
/// # Safety
/// `ptr` points at the start of dimension `dim` of `buf`'s exported buffer, whose shape and strides
/// describe memory that stays valid (the export is held) for the call.
unsafe fn walk<E: Emitter>(
    buf: &ArrayBuffer,
    dim: usize,
    ptr: *const u8,
    order: Order,
    elem: Elem,
    st: State,
    e: &mut E,
) -> Res {
    let st = st.enter_container()?;
    let (len, stride) = buf.dim(dim);
    if dim + 1 == buf.ndim() {
        // SAFETY: the export guarantees `len` items `stride` bytes apart from `ptr`.
        return unsafe { write_row(ptr, len, stride, order, elem, st, e) };
    }
    e.array_begin(len)?;
    for i in 0..len {
        e.array_item(i)?;
        // SAFETY: item `i` of this dimension starts `i * stride` bytes from `ptr`.
        unsafe {
            walk(
                buf,
                dim + 1,
                ptr.offset(i as isize * stride),
                order,
                elem,
                st,
                e,
            )?
        };
    }
    e.array_end()
}

/// The most bytes one value of the element type takes in MessagePack.
fn max_encoded_len(elem: Elem) -> usize {
    match elem {
        Elem::Bool => 1,
        Elem::I8 | Elem::U8 => 2,
        Elem::I16 | Elem::U16 => 3,
        Elem::I32 | Elem::U32 | Elem::F16 | Elem::F32 => 5,
        Elem::I64 | Elem::U64 | Elem::F64 => 9,
        // `YYYY-MM-DDTHH:MM:SS.ffffff+00:00` as a str, or a 96-bit timestamp.
        Elem::Datetime(_) => 34,
    }
}

/// Reads an element as an unsigned integer of its width, in native order.
macro_rules! loader {
    ($name:ident, $t:ty) => {
        /// # Safety
        /// `ptr` points at an element of this width, in readable memory.
        #[inline(always)]
        unsafe fn $name(ptr: *const u8, order: Order) -> $t {
            // SAFETY: `ptr` points at a readable element of this width (this function's
            // precondition); the read is unaligned, so any address is fine.
            let raw = unsafe { ptr.cast::<$t>().read_unaligned() };
            match order {
                Order::Little => <$t>::from_le(raw),
                Order::Big => <$t>::from_be(raw),
            }
        }
    };
}
loader!(load16, u16);
loader!(load32, u32);
loader!(load64, u64);

/// The innermost dimension: the element type is matched once, then the emitter writes the run.
///
/// # Safety
/// `ptr` points at `len` elements of the dtype `elem`, `stride` bytes apart, in memory that stays
/// valid for the call.
#[allow(clippy::too_many_arguments)]
unsafe fn write_row<E: Emitter>(
    ptr: *const u8,
    len: usize,
    stride: isize,
    order: Order,
    elem: Elem,
    st: State,
    e: &mut E,
) -> Res {
    e.array_begin(len)?;
    // SAFETY: the export guarantees `len` items `stride` bytes apart from `ptr`; each load reads
    // one element of the row's dtype.
    let at = |i: usize| unsafe { ptr.offset(i as isize * stride) };
    // SAFETY: as above, for every closure below.
    unsafe {
        match elem {
            Elem::Bool => e.bool_run(len, |i| *at(i) != 0)?,
            Elem::I8 => e.int_run(len, |i| *at(i) as i8 as i64)?,
            Elem::U8 => e.int_run(len, |i| *at(i) as i64)?,
            Elem::I16 => e.signed_int_run(len, |i| load16(at(i), order) as i16 as i64)?,
            Elem::U16 => e.int_run(len, |i| load16(at(i), order) as i64)?,
            Elem::I32 => e.signed_int_run(len, |i| load32(at(i), order) as i32 as i64)?,
            Elem::U32 => e.int_run(len, |i| load32(at(i), order) as i64)?,
            Elem::I64 => e.int_run(len, |i| load64(at(i), order) as i64)?,
            Elem::U64 => e.uint_run(len, |i| load64(at(i), order))?,
            Elem::F16 => e.f32_run(len, |i| half::f16::from_bits(load16(at(i), order)).to_f32())?,
            Elem::F32 => e.f32_run(len, |i| f32::from_bits(load32(at(i), order)))?,
            Elem::F64 => e.f64_run(len, |i| f64::from_bits(load64(at(i), order)))?,
            Elem::Datetime(unit) => {
                for i in 0..len {
                    e.array_item(i)?;
                    let value = load64(at(i), order) as i64;
                    per_type::datetime::write_datetime64(value, unit, st, e)?;
                }
            }
        }
    }
    e.array_end()
}

/// One value (a 0-d array or a numpy scalar): a run of one, without the array around it.
///
/// # Safety
/// `ptr` points at one element of the dtype `elem`, in memory that stays valid for the call.
unsafe fn write_elem<E: Emitter>(
    ptr: *const u8,
    order: Order,
    elem: Elem,
    st: State,
    e: &mut E,
) -> Res {
    // SAFETY: `ptr` points at one element of the dtype.
    unsafe {
        match elem {
            Elem::Bool => e.bool(*ptr != 0),
            Elem::I8 => e.int(*ptr as i8 as i64),
            Elem::U8 => e.int(*ptr as i64),
            Elem::I16 => e.int(load16(ptr, order) as i16 as i64),
            Elem::U16 => e.int(load16(ptr, order) as i64),
            Elem::I32 => e.int(load32(ptr, order) as i32 as i64),
            Elem::U32 => e.int(load32(ptr, order) as i64),
            Elem::I64 => e.int(load64(ptr, order) as i64),
            Elem::U64 => e.uint(load64(ptr, order)),
            Elem::F16 => e.float32(half::f16::from_bits(load16(ptr, order)).to_f32()),
            Elem::F32 => e.float32(f32::from_bits(load32(ptr, order))),
            Elem::F64 => e.float(f64::from_bits(load64(ptr, order))),
            Elem::Datetime(unit) => {
                per_type::datetime::write_datetime64(load64(ptr, order) as i64, unit, st, e)
            }
        }
    }
}

/// What the raw form is made from.
struct Raw<'a> {
    array: Ref<'a>,
    original: Ref<'a>,
    dtype: Ref<'a>,
    dtype_str: &'a str,
    parsed: Option<(Order, Elem)>,
    is_array: bool,
}

/// The raw form: `{b"nd": True, b"type": dtype.str, b"kind": b"", b"shape": [...], b"data": ...}`
/// for arrays, `{b"nd": False, b"type": dtype.str, b"data": ...}` for scalars. Object and
/// structured dtypes have no raw form.
///
/// # Safety
/// `raw`'s objects are live and held by the caller; the GIL is held.
unsafe fn write_raw<E: Emitter>(raw: Raw<'_>, st: State, cx: &Ctx, e: &mut E) -> Res {
    let np = numpy(cx)?;
    let Raw {
        array: obj,
        original,
        dtype,
        dtype_str,
        parsed,
        is_array,
    } = raw;
    // SAFETY: attached; objects made here are held while used.
    unsafe {
        let has_object = ffi::get_attr(dtype.as_ptr(), np.names.hasobject)
            .map(|h| h.as_ptr() == ffi::true_obj())
            .unwrap_or(true);
        if has_object || dtype_str.starts_with("|V") || dtype_str.is_empty() {
            return unsupported(original, dtype, true, st, cx, e);
        }
        // datetime64 and timedelta64 arrays are exported through an int64 view.
        let source = match parsed {
            Some((order, elem)) => as_int_view(obj, order, elem, np)?,
            None if dtype_str.contains("m8") => {
                let order = if dtype_str.starts_with('>') {
                    Order::Big
                } else {
                    Order::Little
                };
                as_int_view(obj, order, Elem::Datetime(ffi::TimeUnit::Second), np)?
            }
            None => obj.hold(),
        };
        // C-contiguous memory is exported as it is; other layouts are copied into C order
        // first (0-d arrays are always contiguous, so they keep their shape).
        let contiguous;
        let (buf, exported) = match ArrayBuffer::export(source.as_ptr(), true) {
            Ok(buf) => (buf, Ref::of(&source)),
            Err(_) => {
                contiguous =
                    ffi::call1(np.ascontiguousarray, source.as_ptr()).map_err(numpy_failed)?;
                let buf = ArrayBuffer::export(contiguous.as_ptr(), true).map_err(numpy_failed)?;
                (buf, Ref::of(&contiguous))
            }
        };
        let data = buf.bytes();
        // With `buffer_callback`, large data goes out of band (the array, or its C-ordered
        // copy, handed over as a PickleBuffer); `buf` keeps it exported meanwhile.
        let out_of_band = if data.len() >= cx.oob_threshold {
            per_type::oob::claim(exported, cx)?
        } else {
            None
        };
        if out_of_band.is_none() {
            e.reserve_hint(data.len().saturating_add(64))?;
        }
        e.map_begin(if is_array { 5 } else { 3 })?;
        let mut entry = 0;
        let mut key = |e: &mut E, name: &[u8]| -> Res {
            e.map_key(entry)?;
            entry += 1;
            e.bin(name)?;
            e.map_value()
        };
        key(e, b"nd")?;
        e.bool(is_array)?;
        key(e, b"type")?;
        e.str(dtype_str.as_bytes())?;
        if is_array {
            key(e, b"kind")?;
            e.bin(b"")?;
            key(e, b"shape")?;
            let ndim = buf.ndim();
            e.array_begin(ndim)?;
            for d in 0..ndim {
                e.array_item(d)?;
                e.int(buf.dim(d).0 as i64)?;
            }
            e.array_end()?;
        }
        key(e, b"data")?;
        match out_of_band {
            Some((index, len)) => per_type::oob::write_ref(index, len, e)?,
            None => e.bin(data)?,
        }
    }
    e.map_end()
}

/// A dtype nothing packs: to `default`, or an error naming it.
///
/// # Safety
/// `obj` and `dtype` are live; the GIL is held.
#[cold]
unsafe fn unsupported<E: Emitter>(
    obj: Ref<'_>,
    dtype: Ref<'_>,
    raw: bool,
    st: State,
    cx: &Ctx,
    e: &mut E,
) -> Res {
    if cx.default.is_some() {
        return per_type::default::write(obj, st, cx, e);
    }
    let np = numpy(cx)?;
    // SAFETY: attached; `dtype` is live.
    let name = unsafe {
        ffi::get_attr(dtype.as_ptr(), np.names.name)
            .ok()
            .and_then(|n| ffi::str_utf8(n.as_ptr()).map(<[u8]>::to_vec))
    };
    let name = String::from_utf8_lossy(&name.unwrap_or_default()).into_owned();
    Err(if raw {
        error::numpy_raw_dtype(&name)
    } else {
        error::numpy_dtype(&name)
    })
}

#[cold]
fn numpy_failed(cause: pyo3::PyErr) -> crate::error::Error {
    error::attribute_failed("numpy array could not be read", cause)
}
