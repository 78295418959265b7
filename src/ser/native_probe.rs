//! The route snapshot of the benchmarks held as Rust values, written by `packb`'s own emitter
//! and writer: the writing of a route without the reading of Python objects, for
//! `scripts/profile_row.py`'s `native` library. Built only with the `walk-probe` feature.
//!
//! The values are read out of the Python objects once, when the probe is made; each `pack()`
//! then makes the calls on [`MsgpackEmitter`] that [`super::dispatch::write`] makes for the
//! same document (a map header, each key as a str, an int, a str, the float list's header and
//! floats, each child's map and its point as a float pair), into a [`BytesWriter`] that starts
//! in a scratch buffer as `packb`'s does, and finishes it into a `bytes` object.

use pyo3::prelude::*;

use crate::emit::{Emitter, MsgpackEmitter};
use crate::error::Res;
use crate::ffi::{self, BytesWriter};

struct Child {
    id: i64,
    name: String,
    point: (f64, f64),
}

/// A route snapshot: `{"id": int, "name": str, "values": [float], "children": [{"id": int,
/// "name": str, "point": [float, float]}]}`, its keys in that order.
#[pyclass(crate = "crate::ffi::pyo3_per_interp", module = "fastmsgpack", frozen)]
pub struct NativeRoute {
    id: i64,
    name: String,
    values: Vec<f64>,
    children: Vec<Child>,
}

#[pymethods]
impl NativeRoute {
    #[new]
    fn new(route: &Bound<'_, PyAny>) -> PyResult<NativeRoute> {
        let mut children = Vec::new();
        for child in route.get_item("children")?.try_iter()? {
            let child = child?;
            let point: Vec<f64> = child.get_item("point")?.extract()?;
            let [a, b] = point[..] else {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "a point is two floats",
                ));
            };
            children.push(Child {
                id: child.get_item("id")?.extract()?,
                name: child.get_item("name")?.extract()?,
                point: (a, b),
            });
        }
        Ok(NativeRoute {
            id: route.get_item("id")?.extract()?,
            name: route.get_item("name")?.extract()?,
            values: route.get_item("values")?.extract()?,
            children,
        })
    }

    /// The snapshot packed: the same bytes as `packb` of the dict it was made from.
    fn pack<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut scratch = ffi::scratch();
        // SAFETY: the GIL is held for the whole call (`py`), and `scratch` outlives the writer,
        // which `finish` consumes before this function returns.
        let writer = unsafe { BytesWriter::in_scratch(&mut scratch) };
        let mut e = MsgpackEmitter::new(writer);
        self.write(&mut e)?;
        super::finish(py, e.into_writer())
    }
}

impl NativeRoute {
    #[inline(never)]
    fn write<E: Emitter>(&self, e: &mut E) -> Res {
        e.map_begin(4)?;
        e.str(b"id")?;
        e.int(self.id)?;
        e.str(b"name")?;
        e.str(self.name.as_bytes())?;
        e.str(b"values")?;
        e.array_begin(self.values.len())?;
        for &v in &self.values {
            e.float(v)?;
        }
        e.str(b"children")?;
        e.array_begin(self.children.len())?;
        for child in &self.children {
            write_child(child, e)?;
        }
        Ok(())
    }
}

/// One child, as `dict::write_entries` writes it (out of line, as that walk is).
#[inline(never)]
fn write_child<E: Emitter>(child: &Child, e: &mut E) -> Res {
    e.map_begin(3)?;
    e.str(b"id")?;
    e.int(child.id)?;
    e.str(b"name")?;
    e.str(child.name.as_bytes())?;
    e.str(b"point")?;
    e.float_pair(child.point.0, child.point.1)
}

crate::heap_class!(NativeRoute);
