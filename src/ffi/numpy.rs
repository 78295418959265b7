//! numpy, looked up only when an option asks for it (numpy is never a build dependency), and a
//! strided view of an array's memory through the buffer protocol.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::{Obj, TypePtr};

pub struct Numpy {
    pub ndarray: TypePtr,
    pub generic: TypePtr,
    pub asarray: Obj,
    pub ascontiguousarray: Obj,
    pub frombuffer: Obj,
    pub dtype: Obj,
    pub names: NumpyNames,
    /// The exact scalar types whose value is read straight from the object (`np.int64`,
    /// `np.float32`, `np.bool_` ...), with their element type.
    pub scalars: Vec<(TypePtr, Elem)>,
    /// dtypes by their string, for decoding raw arrays.
    pub dtype_cache: Py<PyDict>,
    _owned: Vec<Py<PyAny>>,
}

pub struct NumpyNames {
    pub dtype: Obj,
    pub str_: Obj,
    pub view: Obj,
    pub name: Obj,
    pub hasobject: Obj,
}

// SAFETY: the pointers refer to objects kept alive by `_owned`, used only while attached.
unsafe impl Send for Numpy {}
// SAFETY: as above.
unsafe impl Sync for Numpy {}

static NUMPY: super::interp::PerInterp<Numpy> = super::interp::PerInterp::new();

/// Set (per interpreter) when an import of numpy failed (it is not installed, or cannot be imported): later calls
/// then look for numpy in `sys.modules` only, and import it again only once it appears there
/// (the program imported it, after installing it or changing `sys.path`). Only a hint, read and
/// written without ordering: a thread that misses it tries the import once more, which is all
/// the flag saves.
static NUMPY_MISSING: super::interp::PerInterp<AtomicBool> = super::interp::PerInterp::new();

fn numpy_missing(py: Python<'_>) -> &'static AtomicBool {
    NUMPY_MISSING.get_or_init(py, || AtomicBool::new(false))
}

/// numpy's fixed-size numeric scalar types, by their names in the `numpy` module (several names
/// can be one type). `float64` is left out: it subclasses `float` and packs as one.
const SCALAR_TYPE_NAMES: [&str; 17] = [
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "intc",
    "uintc",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
];

impl Numpy {
    /// numpy's handles, importing it on first use (to decode raw arrays, which need numpy whether
    /// or not the program imported it); `Ok(None)` when numpy cannot be imported. Whether it can
    /// is found out once: after a failed import, a call costs one look in `sys.modules`.
    #[inline]
    pub fn get(py: Python<'_>) -> PyResult<Option<&'static Numpy>> {
        if let Some(np) = NUMPY.get(py) {
            return Ok(Some(np));
        }
        if numpy_missing(py).load(Ordering::Relaxed) && !imported(py)? {
            return Ok(None);
        }
        Self::load(py)
    }

    /// numpy's handles when numpy is imported (in `sys.modules`), else `Ok(None)` without
    /// importing it: for packing, as no numpy array or scalar can exist before numpy is imported.
    /// Costs one look in `sys.modules` until numpy is imported.
    #[inline]
    pub fn if_imported(py: Python<'_>) -> PyResult<Option<&'static Numpy>> {
        if let Some(np) = NUMPY.get(py) {
            return Ok(Some(np));
        }
        if !imported(py)? {
            return Ok(None);
        }
        Self::load(py)
    }

    /// Imports numpy and looks up its handles, once; `Ok(None)` (and [`NUMPY_MISSING`] set) when
    /// the import fails with `ImportError`.
    #[cold]
    #[inline(never)]
    fn load(py: Python<'_>) -> PyResult<Option<&'static Numpy>> {
        let module = match py.import("numpy") {
            Ok(module) => module,
            Err(err) if err.is_instance_of::<pyo3::exceptions::PyImportError>(py) => {
                numpy_missing(py).store(true, Ordering::Relaxed);
                return Ok(None);
            }
            Err(err) => return Err(err),
        };
        numpy_missing(py).store(false, Ordering::Relaxed);
        let mut owned: Vec<Py<PyAny>> = Vec::new();
        let mut keep = |obj: Bound<'_, PyAny>| -> Obj {
            let ptr = obj.as_ptr();
            owned.push(obj.unbind());
            ptr
        };
        let ndarray = keep(module.getattr("ndarray")?).cast();
        let generic = keep(module.getattr("generic")?).cast();
        let asarray = keep(module.getattr("asarray")?);
        let ascontiguousarray = keep(module.getattr("ascontiguousarray")?);
        let frombuffer = keep(module.getattr("frombuffer")?);
        let dtype = keep(module.getattr("dtype")?);
        let mut name = |s: &str| keep(PyString::intern(py, s).into_any());
        let names = NumpyNames {
            dtype: name("dtype"),
            str_: name("str"),
            view: name("view"),
            name: name("name"),
            hasobject: name("hasobject"),
        };
        let generic_type = module
            .getattr("generic")?
            .cast_into::<pyo3::types::PyType>()?;
        let dtype_of = module.getattr("dtype")?;
        let mut scalars = Vec::new();
        for name in SCALAR_TYPE_NAMES {
            let Ok(ty) = module.getattr(name) else {
                continue; // not in this numpy version
            };
            let Ok(ty) = ty.cast_into::<pyo3::types::PyType>() else {
                continue;
            };
            if !ty.is_subclass(&generic_type)? {
                continue;
            }
            let text: String = dtype_of.call1((&ty,))?.getattr("str")?.extract()?;
            if let Some((_, elem)) = parse_dtype(&text) {
                if !matches!(elem, Elem::Datetime(_)) {
                    scalars.push((keep(ty.into_any()).cast(), elem));
                }
            }
        }
        let np = Numpy {
            ndarray,
            generic,
            asarray,
            ascontiguousarray,
            frombuffer,
            dtype,
            names,
            scalars,
            dtype_cache: PyDict::new(py).unbind(),
            _owned: owned,
        };
        Ok(Some(NUMPY.get_or_init(py, || np)))
    }
}

/// Whether `sys.modules` holds numpy: a dict lookup, no import.
#[inline]
fn imported(py: Python<'_>) -> PyResult<bool> {
    let name = crate::intern!(py, "numpy");
    // SAFETY: attached (`py`); `PyImport_GetModule` returns a new reference or null, and sets an
    // error only on failure (not when the module is simply absent); the reference is released
    // when `module` is dropped.
    let module = unsafe { super::Owned::from_new(ffi::PyImport_GetModule(name.as_ptr())) };
    match module {
        Some(_) => Ok(true),
        None => match PyErr::take(py) {
            Some(err) => Err(err),
            None => Ok(false),
        },
    }
}

/// Byte order of an array's elements.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Little,
    Big,
}

impl Order {
    /// This machine's byte order.
    pub const NATIVE: Order = if cfg!(target_endian = "big") {
        Order::Big
    } else {
        Order::Little
    };
}

/// A datetime64 unit numpy can express and MessagePack text or timestamps can carry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeUnit {
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    Micro,
    Nano,
}

/// The element types packed value by value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Elem {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
    Datetime(TimeUnit),
}

/// Parses numpy's `dtype.str` (`<f8`, `|b1`, `>M8[ns]`, ...) into byte order and element type;
/// `None` for every other dtype (objects, strings, complex, structured, timedelta, ...).
pub fn parse_dtype(text: &str) -> Option<(Order, Elem)> {
    let bytes = text.as_bytes();
    let order = match bytes.first()? {
        b'<' => Order::Little,
        b'>' => Order::Big,
        b'|' | b'=' => Order::NATIVE,
        _ => return None,
    };
    let elem = match text.get(1..)? {
        "b1" => Elem::Bool,
        "i1" => Elem::I8,
        "i2" => Elem::I16,
        "i4" => Elem::I32,
        "i8" => Elem::I64,
        "u1" => Elem::U8,
        "u2" => Elem::U16,
        "u4" => Elem::U32,
        "u8" => Elem::U64,
        "f2" => Elem::F16,
        "f4" => Elem::F32,
        "f8" => Elem::F64,
        rest => Elem::Datetime(match rest.strip_prefix("M8[")?.strip_suffix(']')? {
            "Y" => TimeUnit::Year,
            "M" => TimeUnit::Month,
            "W" => TimeUnit::Week,
            "D" => TimeUnit::Day,
            "h" => TimeUnit::Hour,
            "m" => TimeUnit::Minute,
            "s" => TimeUnit::Second,
            "ms" => TimeUnit::Milli,
            "us" => TimeUnit::Micro,
            "ns" => TimeUnit::Nano,
            _ => return None,
        }),
    };
    Some((order, elem))
}

/// A buffer-protocol export of an array: its memory, shape and strides, released on drop.
pub struct ArrayBuffer {
    view: Box<ffi::Py_buffer>,
}

impl ArrayBuffer {
    /// Exports `obj` with strides (any layout), or only C-contiguous memory when `contiguous`.
    ///
    /// # Safety
    /// `obj` is live (and kept alive while the buffer is used) and the GIL is held.
    pub unsafe fn export(obj: Obj, contiguous: bool) -> PyResult<ArrayBuffer> {
        let flags = if contiguous {
            ffi::PyBUF_C_CONTIGUOUS
        } else {
            ffi::PyBUF_STRIDES
        };
        let mut view: Box<MaybeUninit<ffi::Py_buffer>> = Box::new(MaybeUninit::uninit());
        // SAFETY: on success the view is initialised and ours until released in `drop`.
        unsafe {
            if ffi::PyObject_GetBuffer(obj, view.as_mut_ptr(), flags) != 0 {
                return Err(super::fetch_error());
            }
            Ok(ArrayBuffer {
                view: Box::from_raw(Box::into_raw(view).cast()),
            })
        }
    }

    pub fn ndim(&self) -> usize {
        self.view.ndim.max(0) as usize
    }

    pub fn ptr(&self) -> *const u8 {
        self.view.buf as *const u8
    }

    /// The whole memory of a contiguous export.
    pub fn bytes(&self) -> &[u8] {
        if self.view.len <= 0 {
            return &[];
        }
        // SAFETY: an export holds `len` bytes at `buf` until released.
        unsafe { std::slice::from_raw_parts(self.ptr(), self.view.len as usize) }
    }

    /// Length and stride in bytes of dimension `dim` (< ndim).
    pub fn dim(&self, dim: usize) -> (usize, isize) {
        // SAFETY: a strided export has `ndim` entries in `shape` and `strides`.
        unsafe {
            let len = *self.view.shape.add(dim) as usize;
            let stride = if self.view.strides.is_null() {
                self.view.itemsize
            } else {
                *self.view.strides.add(dim)
            };
            (len, stride)
        }
    }
}

impl Drop for ArrayBuffer {
    fn drop(&mut self) {
        // SAFETY: the view came from a successful export and is released once, attached.
        unsafe { ffi::PyBuffer_Release(&mut *self.view) }
    }
}

/// Where a numpy scalar object (`np.float32(1.5)`, ...) keeps its value, in native byte order:
/// right after the object header (numpy/arrayscalars.h). Valid while `obj` lives.
///
/// # Safety
/// `obj` is an instance of one of numpy's scalar types whose value has a fixed size (bool, the
/// ints and floats, datetime64 and timedelta64).
#[inline(always)]
pub unsafe fn scalar_value(obj: super::Ref<'_>) -> *const u8 {
    // SAFETY: such a scalar's layout is the object header followed by its value (the
    // precondition), so the address one header past its start is inside the object.
    unsafe {
        obj.as_ptr()
            .cast::<u8>()
            .add(std::mem::size_of::<pyo3::ffi::PyObject>())
            .cast_const()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_strings() {
        assert_eq!(parse_dtype("<f8").map(|d| d.1), Some(Elem::F64));
        assert!(parse_dtype(">i4").is_some_and(|d| d.0 == Order::Big && d.1 == Elem::I32));
        assert_eq!(parse_dtype("|b1").map(|d| d.1), Some(Elem::Bool));
        assert_eq!(
            parse_dtype("<M8[ns]").map(|d| d.1),
            Some(Elem::Datetime(TimeUnit::Nano))
        );
        assert_eq!(
            parse_dtype("<M8[Y]").map(|d| d.1),
            Some(Elem::Datetime(TimeUnit::Year))
        );
        for unsupported in [
            "|O", "<U3", "|S3", "<c16", "|V8", "<m8[s]", "<M8", "<M8[ps]", "", "<",
        ] {
            assert!(parse_dtype(unsupported).is_none(), "{unsupported}");
        }
    }
}
