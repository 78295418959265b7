//! The views a container has handed out for its nested maps and arrays one at a time (`[]`,
//! `get`), so that reading the same item again gives the same view, with the items it has
//! already found: a path read again from the outermost view passes over nothing twice.
//!
//! A pass over a whole container (`items()`, `values()`, iteration) hands out the views it finds
//! kept, and keeps none it makes: a walk over a large document would otherwise keep a view of
//! every container alive, for the garbage collector to go over again and again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

use super::doc::lock;

/// The views kept, by item index.
type Kept = HashMap<usize, Py<PyAny>>;

/// The views of a container's items, by item index.
#[derive(Default)]
pub struct Kids {
    /// Made at the first view kept: an empty map took a sixth of the memory of a view, cleared
    /// and moved at every view made.
    kept: Mutex<Option<Box<Kept>>>,
    /// Whether any view was kept: most containers keep none, and are then read (and gone
    /// over by the garbage collector) without taking the lock.
    any: AtomicBool,
}

impl Kids {
    /// The view of item `i`, if one was kept.
    #[inline]
    pub fn get<'py>(&self, py: Python<'py>, i: usize) -> Option<Bound<'py, PyAny>> {
        if !self.any.load(Ordering::Acquire) {
            return None;
        }
        let kept = lock(&self.kept);
        kept.as_ref()?.get(&i).map(|v| v.bind(py).clone())
    }

    /// Keeps `made` as the view of item `i`, unless another thread kept one first: the view
    /// kept is returned.
    pub fn keep<'py>(&self, i: usize, made: Bound<'py, PyAny>) -> Bound<'py, PyAny> {
        let py = made.py();
        let mut kept = lock(&self.kept);
        let view = kept
            .get_or_insert_with(Box::default)
            .entry(i)
            .or_insert_with(|| made.clone().unbind())
            .bind(py)
            .clone();
        self.any.store(true, Ordering::Release);
        drop(kept);
        // `made`, when another was kept first, is dropped here, with no lock held.
        view
    }

    /// Tells the garbage collector of the views kept. A table another thread is changing is
    /// left out this time (reporting fewer references than are held is safe; more is not).
    pub fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        if !self.any.load(Ordering::Acquire) {
            return Ok(());
        }
        let Ok(kept) = self.kept.try_lock() else {
            return Ok(());
        };
        for view in kept.iter().flat_map(|kept| kept.values()) {
            visit.call(view)?;
        }
        Ok(())
    }
}

/// The views kept hold views of their own items: a path read to the bottom of a deep document
/// is a chain of views, released one inside the release of the other. Each is released on a
/// stack with room for it (as the walks recurse, [`crate::stack`]).
impl Drop for Kids {
    fn drop(&mut self) {
        let kept = match self.kept.get_mut() {
            Ok(kept) => kept.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(kept) = kept {
            crate::stack::grown(|| drop(kept));
        }
    }
}
