// Shared by the integration tests and the fuzz targets. Each test binary uses only some of it.
#![allow(dead_code)]

pub mod docs;
pub mod stream;
pub mod walk;
