//! Per-interpreter storage: every Python object the extension keeps between calls (types looked
//! up once, interned names, exception classes, caches) is kept once per interpreter, never in a
//! process-wide static, because objects must not cross interpreters (each isolated interpreter
//! has its own GIL and allocator).
//!
//! [`PerInterp`] has the call shape of `pyo3::sync::PyOnceLock` (`get`, `get_or_init`,
//! `get_or_try_init`) and is declared as a `static` in the same places. The main interpreter
//! (ID 0, which lives as long as the process) reads its value from a `OnceLock`: an interpreter
//! ID and one atomic load, as `PyOnceLock` costs. Other interpreters read theirs from a list
//! behind a read-write lock, and give it back when the last module object of that interpreter
//! is freed ([`Release`]): interpreter IDs are never reused, so a value can never be found by
//! another interpreter.
//!
//! Values of an interpreter other than the main one are handed out as `&'static T`: they stay
//! in place until the last `_fastmsgpack` module object of their interpreter is freed, in that
//! interpreter, and every call that reads them runs code of that module (whose functions and
//! classes keep it alive) in that same interpreter.

use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, RwLock};

use pyo3::ffi;
use pyo3::prelude::*;

/// The ID of the interpreter this thread runs in (0 for the main interpreter).
#[inline(always)]
pub fn id() -> i64 {
    // SAFETY: only called while attached (every caller holds a `Python` token), so this thread
    // has a current interpreter, which `PyInterpreterState_Get` returns and whose ID is read.
    unsafe { ffi::PyInterpreterState_GetID(ffi::PyInterpreterState_Get()) }
}

/// The main interpreter's ID.
const MAIN: i64 = 0;

/// A value per interpreter, made on first use there (see the module).
pub struct PerInterp<T> {
    main: OnceLock<T>,
    others: RwLock<Vec<(i64, Box<T>)>>,
    /// Whether this storage is in [`RELEASERS`], so that an interpreter's values are freed.
    listed: AtomicBool,
}

/// Frees what a storage holds for one interpreter.
trait Release: Sync {
    fn release(&self, interp: i64);
    /// How many interpreters other than the main one have a value here.
    fn count(&self) -> usize;
}

/// Every storage that has held a value for an interpreter other than the main one.
static RELEASERS: Mutex<Vec<&'static dyn Release>> = Mutex::new(Vec::new());

/// Set (for good) when an interpreter other than the main one first makes a module object,
/// before any of its calls can reach a [`PerInterp`]: until then the main interpreter is the
/// only one there is to look up.
static OTHERS: AtomicBool = AtomicBool::new(false);

/// How many live `_fastmsgpack` module objects each interpreter other than the main one has.
static MODULES: Mutex<Vec<(i64, usize)>> = Mutex::new(Vec::new());

impl<T: Send + Sync + 'static> PerInterp<T> {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> PerInterp<T> {
        PerInterp {
            main: OnceLock::new(),
            others: RwLock::new(Vec::new()),
            listed: AtomicBool::new(false),
        }
    }

    /// This interpreter's value, if it has been made.
    #[inline(always)]
    pub fn get(&'static self, _py: Python<'_>) -> Option<&'static T> {
        // Until another interpreter imports the module, every call runs in the main one: no
        // need to ask which (two calls into libpython, about 5 ns, on every lookup).
        if !OTHERS.load(Ordering::Acquire) {
            return self.main.get();
        }
        let interp = id();
        if interp == MAIN {
            return self.main.get();
        }
        self.other(interp)
    }

    #[cold]
    fn other(&'static self, interp: i64) -> Option<&'static T> {
        // A poisoned lock (a panic while held) leaves the list whole: pushes and removals are
        // single steps.
        let list = self.others.read().unwrap_or_else(|e| e.into_inner());
        let found = list.iter().find(|(i, _)| *i == interp)?;
        let value: *const T = &*found.1;
        // SAFETY: the box is not moved or freed while its interpreter has a module object (see
        // the module), and only that interpreter's calls find it under its ID.
        Some(unsafe { &*value })
    }

    /// This interpreter's value, made by `f` the first time.
    #[inline(always)]
    pub fn get_or_init(&'static self, py: Python<'_>, f: impl FnOnce() -> T) -> &'static T {
        match self.get_or_try_init::<std::convert::Infallible>(py, || Ok(f())) {
            Ok(value) => value,
            Err(never) => match never {},
        }
    }

    /// This interpreter's value, made by `f` the first time (an error is passed on and nothing
    /// is kept, so the next call tries again).
    #[inline(always)]
    pub fn get_or_try_init<E>(
        &'static self,
        py: Python<'_>,
        f: impl FnOnce() -> Result<T, E>,
    ) -> Result<&'static T, E> {
        match self.get(py) {
            Some(value) => Ok(value),
            None => self.init(py, f),
        }
    }

    /// Makes the value outside any lock (`f` may run Python code, which may call back here);
    /// where two threads race, the first value kept wins and the other is dropped.
    #[cold]
    fn init<E>(
        &'static self,
        py: Python<'_>,
        f: impl FnOnce() -> Result<T, E>,
    ) -> Result<&'static T, E> {
        let made = f()?;
        let interp = if OTHERS.load(Ordering::Acquire) {
            id()
        } else {
            MAIN
        };
        if interp == MAIN {
            // A value another thread kept first wins; `made` is then dropped with the closure,
            // after the `OnceLock` let go.
            return Ok(self.main.get_or_init(move || made));
        }
        self.list_for_release();
        let boxed = Box::new(made);
        let value: *const T = &*boxed;
        let loser = {
            let mut list = self.others.write().unwrap_or_else(|e| e.into_inner());
            match list.iter().find(|(i, _)| *i == interp) {
                Some((_, kept)) => {
                    let kept: *const T = &**kept;
                    Some((boxed, kept))
                }
                None => {
                    list.push((interp, boxed));
                    None
                }
            }
        };
        let kept = match loser {
            // Dropped outside the lock: dropping may run Python code.
            Some((boxed, kept)) => {
                drop(boxed);
                kept
            }
            None => value,
        };
        let _ = py;
        // SAFETY: the box holding `kept` is in the list (moving a box into the list does not
        // move its contents) and stays there while this interpreter has a module object.
        Ok(unsafe { &*kept })
    }

    fn list_for_release(&'static self) {
        if self.listed.swap(true, Ordering::AcqRel) {
            return;
        }
        RELEASERS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(self);
    }
}

impl<T: Send + Sync + 'static> Release for PerInterp<T> {
    fn release(&self, interp: i64) {
        let gone: Vec<(i64, Box<T>)> = {
            let mut list = self.others.write().unwrap_or_else(|e| e.into_inner());
            let (gone, kept) = std::mem::take(&mut *list)
                .into_iter()
                .partition(|(i, _)| *i == interp);
            *list = kept;
            gone
        };
        // Dropped outside the lock, while attached to `interp` (see `module_freed`).
        drop(gone);
    }

    fn count(&self) -> usize {
        self.others.read().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// Called when a `_fastmsgpack` module object is made in this interpreter.
fn module_made(_py: Python<'_>) {
    let interp = id();
    if interp == MAIN {
        return;
    }
    OTHERS.store(true, Ordering::Release);
    let mut modules = MODULES.lock().unwrap_or_else(|e| e.into_inner());
    match modules.iter_mut().find(|(i, _)| *i == interp) {
        Some((_, count)) => *count += 1,
        None => modules.push((interp, 1)),
    }
}

/// Called when a `_fastmsgpack` module object is freed, in its interpreter: the last one frees
/// everything kept for that interpreter.
fn module_freed(_py: Python<'_>) {
    let interp = id();
    if interp == MAIN {
        return;
    }
    {
        let mut modules = MODULES.lock().unwrap_or_else(|e| e.into_inner());
        let Some(at) = modules.iter().position(|(i, _)| *i == interp) else {
            return;
        };
        modules[at].1 -= 1;
        if modules[at].1 > 0 {
            return;
        }
        modules.swap_remove(at);
    }
    // Copied out so that no lock is held while values are dropped (which may run Python code
    // that reaches a storage for the first time and lists it).
    let releasers: Vec<&'static dyn Release> =
        RELEASERS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    for storage in releasers {
        storage.release(interp);
    }
}

/// How many values are kept for interpreters other than the main one, over every storage: for
/// tests, which check that destroyed interpreters leave none.
pub fn kept_elsewhere() -> usize {
    let releasers: Vec<&'static dyn Release> =
        RELEASERS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    releasers.iter().map(|r| r.count()).sum()
}

/// `crate::intern!` per interpreter: the `str` object for a literal, made once in each
/// interpreter and kept there.
#[macro_export]
macro_rules! intern {
    ($py:expr, $text:expr) => {{
        static INTERNED: $crate::ffi::PerInterp<pyo3::Py<pyo3::types::PyString>> =
            $crate::ffi::PerInterp::new();
        let py: pyo3::Python<'_> = $py;
        INTERNED
            .get_or_init(py, || pyo3::types::PyString::intern(py, $text).unbind())
            .bind(py)
    }};
}

impl PerInterp<Py<pyo3::types::PyType>> {
    /// The class `module.attr` of this interpreter, imported the first time.
    pub fn import<'py>(
        &'static self,
        py: Python<'py>,
        module: &str,
        attr: &str,
    ) -> PyResult<&'py Bound<'py, pyo3::types::PyType>> {
        let class = self.get_or_try_init(py, || -> PyResult<_> {
            Ok(py
                .import(module)?
                .getattr(attr)?
                .cast_into::<pyo3::types::PyType>()?
                .unbind())
        })?;
        Ok(class.bind(py))
    }
}

/// The capsule's name (`PyCapsule_New` wants one that lives as long as the capsule).
const TOKEN_NAME: &std::ffi::CStr = c"fastmsgpack._fastmsgpack._interpreter";

/// What the capsule points at: a capsule's pointer must not be NULL, and the token needs no
/// data.
static TOKEN_TARGET: u8 = 0;

/// The object each `_fastmsgpack` module object holds (as `_interpreter`), made first in its
/// exec slot, before anything is kept for its interpreter: made, it tells [`PerInterp`] that
/// the interpreter exists; freed with the module, in its interpreter, it tells [`module_freed`]
/// so that the last one of an interpreter frees what that interpreter kept.
///
/// A capsule, whose type is CPython's own (one per process by design, and shared by every
/// interpreter), so that no class of this extension is involved: a `#[pyclass]` type object is
/// one process-wide PyO3 static, which an interpreter with its own GIL must not share.
pub fn module_token(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: attached; the pointer and the name are statics (valid for as long as the capsule
    // lives), and the destructor is an `extern "C"` function of the right shape. A new
    // reference or NULL with an exception set comes back.
    let token = unsafe {
        let made = ffi::PyCapsule_New(
            std::ptr::addr_of!(TOKEN_TARGET) as *mut c_void,
            TOKEN_NAME.as_ptr(),
            Some(token_freed),
        );
        Bound::from_owned_ptr_or_err(py, made)?
    };
    module_made(py);
    Ok(token)
}

/// The capsule's destructor: runs when it is freed, in the module's interpreter and attached
/// (CPython frees an object only there).
unsafe extern "C" fn token_freed(capsule: *mut ffi::PyObject) {
    // PyO3's trampoline, as its own `tp_dealloc` uses: it counts the thread's attachment
    // (`Python::attach` here hung a legacy subinterpreter's end on 3.11), so that the `Py`
    // values `module_freed` drops are released at once, in this interpreter (uncounted, PyO3
    // queues them for its next attachment, which may be in another interpreter: they leaked,
    // about 4,000 blocks per legacy subinterpreter); and it turns a panic into an exception
    // instead of unwinding out of `extern "C"`.
    let release = pyo3::impl_::trampoline::get_trampoline_function!(inquiry, token_release);
    // SAFETY: CPython calls a capsule's destructor attached, with the capsule.
    if unsafe { release(capsule) } < 0 {
        // SAFETY: attached (see above); the trampoline left an exception set.
        unsafe { ffi::PyErr_WriteUnraisable(capsule) };
    }
}

/// The body of [`token_freed`].
///
/// # Safety
/// Called through PyO3's `inquiry` trampoline only.
unsafe fn token_release(py: Python<'_>, _capsule: *mut ffi::PyObject) -> PyResult<c_int> {
    module_freed(py);
    Ok(0)
}
