//! `fastmsgpack.Decoder(type=T)`: typed decoding with the plan for `T` worked out once, when the
//! decoder is made, and kept by it for every call, with the options and hooks of the call fixed
//! with it (as msgspec's `Decoder`). `unpackb(data, type=T)` looks the plan up for each call.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::{PyTraverseError, PyVisit};

use super::request::UnpackArgs;
use crate::de::typed::error::TError;
use crate::de::typed::plan::TypePlan;
use crate::de::typed::Typed;
use crate::de::{self, Setup};
use crate::ffi::Ref;
use crate::opt;

/// Decoder(type, *, dec_hook=None, ext_hook=None, option=None): decodes into `type` as
/// `unpackb(data, type=type, ...)` does, with the plan for the type worked out once, here
/// (an unsupported type, or a missing `dec_hook`, fails now). `dec_hook`, `ext_hook` and
/// `option` are those of `unpackb`. `decode(data)` decodes one object.
///
/// Example:
///     >>> Decoder(list[int]).decode(b'\x92\x01\x02')
///     [1, 2]
#[pyclass(
    crate = "crate::ffi::pyo3_per_interp",
    module = "fastmsgpack",
    name = "Decoder"
)]
pub struct Decoder {
    tp: Option<Py<PyAny>>,
    plan: Option<Py<TypePlan>>,
    dec_hook: Option<Py<PyAny>>,
    ext_hook: Option<Py<PyAny>>,
    opts: opt::Opt,
}

#[pymethods]
impl Decoder {
    #[new]
    #[pyo3(signature = (r#type, *, dec_hook=None, ext_hook=None, option=None))]
    fn py_new(
        py: Python<'_>,
        r#type: Bound<'_, PyAny>,
        dec_hook: Option<Bound<'_, PyAny>>,
        ext_hook: Option<Bound<'_, PyAny>>,
        option: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Decoder> {
        let args = UnpackArgs {
            option,
            ext_hook: ext_hook.as_ref(),
            tp: Some(&r#type),
            dec_hook: dec_hook.as_ref(),
            ..UnpackArgs::default()
        };
        let opts = super::request::unpack("Decoder", opt::UNPACKB_MASK, args)?.opts;
        let dec_hook = dec_hook.filter(|h| !h.is_none());
        let ext_hook = ext_hook.filter(|h| !h.is_none());
        // Worked out and checked now (an unsupported type, a missing dec_hook), not at the
        // first call.
        let plan = Typed::plan(py, &r#type)?;
        Typed::with_plan(py, plan.clone(), dec_hook.as_ref(), opts, None, None)?;
        Ok(Decoder {
            tp: Some(r#type.unbind()),
            plan: Some(plan.unbind()),
            dec_hook: dec_hook.map(Bound::unbind),
            ext_hook: ext_hook.map(Bound::unbind),
            opts,
        })
    }

    /// The one object that `data` holds, as the decoder's type.
    #[pyo3(signature = (data, /))]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(plan) = &self.plan else {
            return Err(PyTypeError::new_err("the Decoder was cleared"));
        };
        let source = data
            .is_exact_instance_of::<PyBytes>()
            .then(|| Ref::of_bound(data));
        let ext_hook = self.ext_hook.as_ref().map(|h| h.bind(py).clone());
        let dec_hook = self.dec_hook.as_ref().map(|h| h.bind(py).clone());
        let plan = plan.bind(py).clone();
        let typed = Typed::with_plan(
            py,
            plan,
            dec_hook.as_ref(),
            self.opts,
            ext_hook.as_ref(),
            source,
        )?;
        let mut holder = None;
        let input = de::input_of(py, data, &mut holder, "Decoder.decode() argument")?;
        let setup = Setup::of(py, self.opts, ext_hook.as_ref(), source)?;
        let (value, _) = typed
            .decode_at(py, input, &setup, true)
            .map_err(TError::into_pyerr)?;
        Ok(value)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let tp = match &self.tp {
            Some(tp) => tp.bind(py).repr()?.to_string(),
            None => "None".to_owned(),
        };
        Ok(format!("fastmsgpack.Decoder(type={tp})"))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.tp)?;
        visit.call(&self.plan)?;
        visit.call(&self.dec_hook)?;
        visit.call(&self.ext_hook)
    }

    fn __clear__(&mut self) {
        self.tp = None;
        self.plan = None;
        self.dec_hook = None;
        self.ext_hook = None;
    }
}

/// `Decoder.type`.
fn decoder_type<'py>(slf: &Bound<'py, Decoder>) -> PyResult<Bound<'py, PyAny>> {
    let py = slf.py();
    let this = slf.try_borrow()?;
    Ok(match &this.tp {
        Some(tp) => tp.bind(py).clone(),
        None => py.None().into_bound(py),
    })
}

crate::heap_class!(Decoder, getters: [(c"type", c"The type the decoder decodes to.", decoder_type)]);
