//! One file per Python type. Each `write` is `unsafe`: the caller passes a live object of the
//! type its name says (checked by `classify`) and holds the GIL.

pub mod bytes;
pub mod dataclass;
pub mod datetime;
pub mod decimal;
pub mod default;
pub mod dict;
pub mod enums;
pub mod exact;
pub mod ext;
pub mod float;
pub mod fragment;
pub mod int;
pub mod key;
#[cfg(Py_GIL_DISABLED)]
pub mod leaf;
pub mod list;
#[cfg(Py_GIL_DISABLED)]
pub mod locked;
pub mod numpy;
pub mod oob;
pub mod pydantic;
pub mod registered;
pub mod set;
pub mod str;
pub mod uuid;
