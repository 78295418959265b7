//! PyO3 as the classes' `#[pyclass(crate = "crate::ffi::pyo3_per_interp")]` expands against
//! it: all of PyO3, except that the function the expansion calls for a class's type object
//! finds the one made for the calling interpreter (src/ffi/heap_class.rs), instead of PyO3's
//! one per process.

pub use pyo3::*;

/// PyO3's implementation details, as the macros use them.
pub mod impl_ {
    pub use pyo3::impl_::*;

    /// PyO3's `impl_::pyclass`, with the type object per interpreter.
    pub mod pyclass {
        pub use crate::ffi::heap_class::pyclass_type_object_raw;
        pub use pyo3::impl_::pyclass::*;
    }
}
