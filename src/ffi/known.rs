//! Types and names looked up once per interpreter: the datetime C API, uuid.UUID, enum.EnumMeta,
//! decimal.Decimal, the dataclass field marker, and interned attribute names.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::{Obj, TypePtr};

pub struct Known {
    pub datetime: TypePtr,
    pub date: TypePtr,
    pub time: TypePtr,
    pub utc: Obj,
    /// `datetime.timezone`: a fixed offset, the same for every datetime.
    pub fixed_timezone: TypePtr,
    pub datetime_api: *const ffi::PyDateTime_CAPI,
    pub uuid: TypePtr,
    /// Where `uuid.UUID` instances keep `int` (a `__slots__` member), when they do.
    pub uuid_int_slot: Option<usize>,
    pub enum_meta: TypePtr,
    /// `enum.Enum.__dict__["value"]`: members whose type resolves `value` to this read
    /// `_value_` directly.
    pub enum_value_descriptor: Obj,
    pub decimal: TypePtr,
    /// `dataclasses._FIELD`: the `_field_type` of real fields (not ClassVar or InitVar).
    pub field_marker: Obj,
    pub names: Names,
    /// Field names per dataclass type, worked out once per type.
    pub dataclass_fields: Py<PyDict>,
    /// Keeps every object above alive for the life of the interpreter's module.
    _owned: Vec<Py<PyAny>>,
}

/// Interned attribute names.
pub struct Names {
    pub dataclass_fields: Obj,
    pub field_type: Obj,
    pub value: Obj,
    pub value_slot: Obj,
    pub int: Obj,
    pub utcoffset: Obj,
    pub pydantic_fields: Obj,
    pub pydantic_extra: Obj,
    pub dict: Obj,
    /// A named tuple class's `_fields`.
    pub fields: Obj,
}

// SAFETY: every pointer refers to an object kept alive by `_owned` (or by the interpreter, for
// static types), and is only dereferenced while attached to the interpreter.
unsafe impl Send for Known {}
// SAFETY: as above; the pointed-to objects are immutable or internally synchronised by CPython.
unsafe impl Sync for Known {}

static KNOWN: super::interp::PerInterp<Known> = super::interp::PerInterp::new();

impl Known {
    pub fn get(py: Python<'_>) -> PyResult<&'static Known> {
        KNOWN.get_or_try_init(py, || Known::load(py))
    }

    fn load(py: Python<'_>) -> PyResult<Known> {
        let mut owned: Vec<Py<PyAny>> = Vec::new();
        let mut keep = |obj: Bound<'_, PyAny>| -> Obj {
            let ptr = obj.as_ptr();
            owned.push(obj.unbind());
            ptr
        };
        // SAFETY: attached; the capsule is this interpreter's datetime C API (pyo3's
        // `PyDateTime_IMPORT` would keep the first interpreter's in a process-wide static).
        let api = unsafe {
            ffi::PyCapsule_Import(c"datetime.datetime_CAPI".as_ptr(), 1)
                .cast::<ffi::PyDateTime_CAPI>()
                .cast_const()
        };
        if api.is_null() {
            return Err(PyErr::fetch(py));
        }
        let uuid = keep(py.import("uuid")?.getattr("UUID")?);
        let enum_module = py.import("enum")?;
        let enum_meta = keep(enum_module.getattr("EnumMeta")?);
        let enum_value_descriptor = keep(
            enum_module
                .getattr("Enum")?
                .getattr("__dict__")?
                .get_item("value")?,
        );
        let decimal = keep(py.import("decimal")?.getattr("Decimal")?);
        let field_marker = keep(py.import("dataclasses")?.getattr("_FIELD")?);
        let mut name = |s: &str| keep(PyString::intern(py, s).into_any());
        let names = Names {
            dataclass_fields: name("__dataclass_fields__"),
            field_type: name("_field_type"),
            value: name("value"),
            value_slot: name("_value_"),
            int: name("int"),
            utcoffset: name("utcoffset"),
            pydantic_fields: name("__pydantic_fields__"),
            pydantic_extra: name("__pydantic_extra__"),
            dict: name("__dict__"),
            fields: name("_fields"),
        };
        // SAFETY: `api` was checked non-null; the C API struct lives as long as the interpreter.
        let (datetime, date, time, utc) = unsafe {
            (
                (*api).DateTimeType,
                (*api).DateType,
                (*api).TimeType,
                (*api).TimeZone_UTC,
            )
        };
        // SAFETY: attached; `uuid` is a live type and the name a live str.
        let uuid_int_slot = unsafe { super::object_slot(uuid.cast(), names.int) };
        // SAFETY: `utc` is a live object (the C API's UTC singleton).
        let fixed_timezone = unsafe { ffi::Py_TYPE(utc) };
        Ok(Known {
            fixed_timezone,
            datetime,
            date,
            time,
            utc,
            datetime_api: api,
            uuid: uuid.cast(),
            uuid_int_slot,
            enum_meta: enum_meta.cast(),
            enum_value_descriptor,
            decimal: decimal.cast(),
            field_marker,
            names,
            dataclass_fields: PyDict::new(py).unbind(),
            _owned: owned,
        })
    }
}
