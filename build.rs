//! Exposes the target Python version as cfg flags (`Py_3_12`, `Py_GIL_DISABLED`, ...), for the
//! few places that read CPython object layouts directly.

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
