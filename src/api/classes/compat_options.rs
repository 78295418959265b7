//! The Python methods of `crate::compat::options`'s `CompatOptions`.

use crate::compat::decode::options::{CompatOptions, Limits};
use crate::compat::options::*;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::{PyTraverseError, PyVisit};

#[pymethods]
impl CompatOptions {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (*, timestamp_type, ext_hook, format_error, stack_error, extra_data,
                        use_list, raw, strict_map_key, timestamp=0,
                        object_hook=None, object_pairs_hook=None, list_hook=None,
                        unicode_errors=None, max_str_len=-1, max_bin_len=-1,
                        max_array_len=-1, max_map_len=-1, max_ext_len=-1,
                        out_of_data=None, buffer_full=None, default_ext_hook=None))]
    fn py_new(
        py: Python<'_>,
        timestamp_type: Py<PyAny>,
        ext_hook: Bound<'_, PyAny>,
        format_error: Py<PyAny>,
        stack_error: Py<PyAny>,
        extra_data: Py<PyAny>,
        use_list: &Bound<'_, PyAny>,
        raw: &Bound<'_, PyAny>,
        strict_map_key: &Bound<'_, PyAny>,
        timestamp: i64,
        object_hook: Option<Bound<'_, PyAny>>,
        object_pairs_hook: Option<Bound<'_, PyAny>>,
        list_hook: Option<Bound<'_, PyAny>>,
        unicode_errors: Option<Bound<'_, PyString>>,
        max_str_len: i64,
        max_bin_len: i64,
        max_array_len: i64,
        max_map_len: i64,
        max_ext_len: i64,
        out_of_data: Option<Py<PyAny>>,
        buffer_full: Option<Py<PyAny>>,
        default_ext_hook: Option<Bound<'_, PyAny>>,
    ) -> PyResult<CompatOptions> {
        if !(0..=3).contains(&timestamp) {
            return Err(PyValueError::new_err("timestamp must be 0..3"));
        }
        let object_hook = hook(object_hook, "object_hook")?;
        let object_pairs_hook = hook(object_pairs_hook, "object_pairs_hook")?;
        if object_hook.is_some() && object_pairs_hook.is_some() {
            return Err(PyTypeError::new_err(
                "object_pairs_hook and object_hook are mutually exclusive",
            ));
        }
        let list_hook = hook(list_hook, "list_hook")?;
        let pure = object_hook.is_none()
            && object_pairs_hook.is_none()
            && list_hook.is_none()
            && default_ext_hook.is_some_and(|d| d.is(&ext_hook));
        let Some(ext_hook) = hook(Some(ext_hook), "ext_hook")? else {
            return Err(PyTypeError::new_err("`ext_hook` is not callable"));
        };
        let raw = raw.is_truthy()?;
        let unicode_errors = match unicode_errors {
            Some(e) => e.unbind(),
            None => crate::intern!(py, "strict").clone().unbind(),
        };
        let strict_utf8 = !raw && unicode_errors.bind(py).to_str()? == "strict";
        Ok(CompatOptions {
            use_list: use_list.is_truthy()?,
            raw,
            strict_map_key: strict_map_key.is_truthy()?,
            object_hook,
            object_pairs_hook,
            list_hook,
            ext_hook,
            timestamp: timestamp as u8,
            timestamp_type,
            unicode_errors,
            strict_utf8,
            pure,
            limits: Limits::new(
                max_str_len,
                max_bin_len,
                max_array_len,
                max_map_len,
                max_ext_len,
            ),
            format_error,
            stack_error,
            extra_data,
            out_of_data,
            buffer_full,
        })
    }

    // The hooks can hold what holds these options (an Unpacker whose hook refers to it): the
    // garbage collector must see them to free such cycles.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.object_hook)?;
        visit.call(&self.object_pairs_hook)?;
        visit.call(&self.list_hook)?;
        visit.call(&self.ext_hook)?;
        visit.call(&self.timestamp_type)
    }
}

crate::heap_class!(CompatOptions);
