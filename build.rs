//! Exposes the target Python version as cfg flags (`Py_3_12`, `Py_GIL_DISABLED`, ...), for the
//! few places that read CPython object layouts directly.

fn main() {
    // Without a rerun-if-changed line, cargo reruns a build script, and so rebuilds the crate,
    // whenever any file of the package changes (a test, a doc page). The cfgs depend only on the
    // interpreter, which pyo3-build-config tracks: when it changes, that crate is rebuilt and
    // this script runs again.
    println!("cargo:rerun-if-changed=build.rs");
    pyo3_build_config::use_pyo3_cfgs();
}
