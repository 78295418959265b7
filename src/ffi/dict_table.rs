//! Reading a combined dict's entries from its table, as `PyDict_Next` does, without a call per
//! entry (CPython 3.11 and later; not PyPy or GraalPy).
//!
//! A dict whose keys and values live in one table (every dict built by literals, `json.loads`,
//! `unpackb` ...) keeps its entries in insertion order after a header and an index array;
//! `PyDict_Next` walks them, skipping deleted ones. It is a call into CPython per entry, which
//! profiles of dict-heavy documents showed at 15-18% of `packb`'s time. Split tables (instance
//! dicts sharing their keys) and other kinds of table are left to `PyDict_Next`.
//!
//! The layout is CPython's own (Include/cpython/dictobject.h for the dict, pyo3-ffi's
//! `PyDictObject`; Include/internal/pycore_dict.h for the table). On 3.11 to 3.13 with the GIL it
//! is read as declared. From 3.14 on, where the free-threaded build adds a lock byte to the
//! table's header, the reading is used only once [`verify`] has checked it at module import
//! against `PyDict_Next` on dicts of every kind read directly, as the str header's reading is
//! checked (`text_layout`); a check that fails leaves every dict to `PyDict_Next`.
//!
//! The caller keeps the table from changing while it reads: with the GIL, no Python code runs
//! between a step's reads; on free-threaded builds, the dict's lock is held (`with_dict_entries`).

use pyo3::ffi;

use super::Obj;

/// `PyDictKeysObject` up to its variable part: `dk_indices` (`1 << dk_log2_index_bytes` bytes)
/// starts right after it, then the entries.
#[repr(C)]
struct Keys {
    dk_refcnt: isize,
    dk_log2_size: u8,
    dk_log2_index_bytes: u8,
    dk_kind: u8,
    /// `dk_mutex` (a one-byte `PyMutex`), in the byte that is padding in the GIL build.
    #[cfg(Py_GIL_DISABLED)]
    _dk_mutex: u8,
    dk_version: u32,
    dk_usable: isize,
    dk_nentries: isize,
}

/// `dk_kind` of a table whose keys are any objects (entries carry their hash).
const KEYS_GENERAL: u8 = 0;
/// `dk_kind` of a combined table whose keys are all str.
const KEYS_UNICODE: u8 = 1;

#[repr(C)]
struct GeneralEntry {
    hash: isize,
    key: Obj,
    value: Obj,
}

#[repr(C)]
struct UnicodeEntry {
    key: Obj,
    value: Obj,
}

/// Whether the layout above may be read: always before 3.14 (GIL builds only get here), from
/// 3.14 once [`verify`] agreed.
#[cfg(not(Py_3_14))]
#[inline(always)]
fn usable() -> bool {
    true
}

#[cfg(Py_3_14)]
static VERIFIED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Read without ordering, as in `text_layout`: a `false` seen late only sends dicts to
/// `PyDict_Next`, which is always right.
#[cfg(Py_3_14)]
#[inline(always)]
fn usable() -> bool {
    VERIFIED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether [`verify`] turned the reading on.
#[cfg(Py_3_14)]
pub fn verified() -> bool {
    usable()
}

/// Whether `dict`'s entries may be read from its table: the layout is known and the table is
/// combined (`ma_values` is null; a combined table never becomes split).
///
/// # Safety
/// `dict` is a live dict (or subclass) and the thread is attached.
#[inline(always)]
pub unsafe fn combined(dict: Obj) -> bool {
    // SAFETY: a live dict (or subclass) starts with the `PyDictObject` fields.
    usable() && unsafe { (*dict.cast::<ffi::PyDictObject>()).ma_values.is_null() }
}

/// Where the entries of the table last read start, and what that depends on; or that the dict's
/// entries are left to `PyDict_Next`.
#[derive(Clone, Copy)]
pub struct Table {
    /// Null until a table is read, and for good once the entries are left to `PyDict_Next`, so
    /// that the first step (and every step then) takes the branch that looks at the table.
    keys: *const Keys,
    /// `dk_log2_index_bytes` and `dk_kind`: with the address, they fix where the entries start
    /// and how they are laid out, so a new table at a freed one's address is told apart.
    shape: (u8, u8),
    entries: *const u8,
    unicode: bool,
    /// The entries are left to `PyDict_Next`: the dict is not [`combined`], or its table turned
    /// out to be of a kind not read directly.
    api: bool,
}

impl Table {
    /// The walk of `dict`'s entries: read from its table when [`combined`] says so, else left to
    /// `PyDict_Next` (decided once: a combined table never becomes split).
    ///
    /// # Safety
    /// `dict` is a live dict (or subclass) and the thread is attached.
    #[inline(always)]
    pub unsafe fn for_dict(dict: Obj) -> Table {
        Table {
            keys: std::ptr::null(),
            shape: (0, 0),
            entries: std::ptr::null(),
            unicode: false,
            // SAFETY: the precondition, as `combined` needs.
            api: unsafe { !combined(dict) },
        }
    }

    /// Whether the entries are left to `PyDict_Next` (from the `pos` that [`Table::next`] left):
    /// asked once `next` answered `None`.
    #[inline(always)]
    pub fn api(&self) -> bool {
        self.api
    }

    /// The next live entry of `dict` at or after entry `*pos`, which is moved past it, reading
    /// the dict's current table (its address and entry count are read again at each step, so a
    /// table replaced or grown since the last is followed as `PyDict_Next` follows it, and `pos`
    /// never goes past the live table). `None` at the end of the entries, and also when they are
    /// not read directly ([`Table::api`]): the caller goes on with `PyDict_Next` from the same
    /// `pos` (an entry index for a combined table, as here).
    ///
    /// One result, not a `Result` of an `Option`: the step is in the loop of every dict walked,
    /// and the second answer cost seven instructions a step (callgrind, small-pack on 3.11).
    ///
    /// # Safety
    /// `dict` is a live dict, the thread is attached, and nothing changes the dict during the
    /// call (the GIL, or the dict's lock, is held); `self` was made by [`Table::for_dict`] for
    /// it.
    #[inline(always)]
    pub unsafe fn next(&mut self, dict: Obj, pos: &mut ffi::Py_ssize_t) -> Option<(Obj, Obj)> {
        // SAFETY: `dict` is live, so `ma_keys` is its table; the shape is read only when the
        // table is the one `self` read (so combined, and of a kind read directly); `self` holds
        // where that table's entries start (same address and shape), and `pos < dk_nentries`
        // keeps the entry read within them.
        unsafe {
            let keys = (*dict.cast::<ffi::PyDictObject>())
                .ma_keys
                .cast::<Keys>()
                .cast_const();
            if keys != self.keys || ((*keys).dk_log2_index_bytes, (*keys).dk_kind) != self.shape {
                if self.api {
                    return None;
                }
                match Self::of(keys) {
                    Some(table) => *self = table,
                    None => {
                        self.api = true;
                        return None;
                    }
                }
            }
            let used = (*keys).dk_nentries;
            while *pos < used {
                let i = *pos as usize;
                *pos += 1;
                let (key, value) = if self.unicode {
                    let e = &*self.entries.cast::<UnicodeEntry>().add(i);
                    (e.key, e.value)
                } else {
                    let e = &*self.entries.cast::<GeneralEntry>().add(i);
                    (e.key, e.value)
                };
                if !value.is_null() {
                    return Some((key, value));
                }
            }
            None
        }
    }

    /// Where a table's entries start; `None` for a kind not read directly.
    ///
    /// # Safety
    /// `keys` is the live table of a combined dict.
    #[inline(always)]
    unsafe fn of(keys: *const Keys) -> Option<Table> {
        // SAFETY: the entries start after the header and the `1 << dk_log2_index_bytes` bytes
        // of indices.
        unsafe {
            let kind = (*keys).dk_kind;
            if kind != KEYS_UNICODE && kind != KEYS_GENERAL {
                return None;
            }
            let entries = keys
                .cast::<u8>()
                .add(std::mem::size_of::<Keys>())
                .add(1usize << (*keys).dk_log2_index_bytes);
            Some(Table {
                keys,
                shape: ((*keys).dk_log2_index_bytes, kind),
                entries,
                unicode: kind == KEYS_UNICODE,
                api: false,
            })
        }
    }
}

/// Checks the direct reading against `PyDict_Next` on dicts of each kind and size read directly
/// (str keys and other keys; index arrays of one and two bytes an entry; deleted entries) and that
/// an instance's split dict is told apart, and turns it on when all agree.
#[cfg(Py_3_14)]
pub fn verify(py: pyo3::Python<'_>) -> pyo3::PyResult<()> {
    use pyo3::prelude::*;
    use pyo3::types::PyDict;

    let mut dicts = Vec::new();
    for n in [1usize, 5, 200] {
        let unicode = PyDict::new(py);
        let general = PyDict::new(py);
        for i in 0..n {
            unicode.set_item(format!("k{i}"), i)?;
            general.set_item(i, format!("v{i}"))?;
        }
        general.set_item("str key", n)?;
        for i in (0..n).step_by(3) {
            unicode.del_item(format!("k{i}"))?;
            general.del_item(i)?;
        }
        dicts.push(unicode);
        dicts.push(general);
    }
    // An instance's attributes: a split table, which `combined` must refuse.
    let locals = PyDict::new(py);
    py.run(
        c"class Probe:\n    def __init__(self):\n        self.a = 1\n        self.b = 2\nd = Probe().__dict__",
        None,
        Some(&locals),
    )?;
    let split = locals.get_item("d")?;
    // SAFETY: attached; every dict is live, local to this thread and unchanged while read.
    let agrees = unsafe {
        VERIFIED.store(true, std::sync::atomic::Ordering::Relaxed);
        let split_refused = split.is_some_and(|d| !combined(d.as_ptr()));
        split_refused
            && dicts.iter().all(|d| {
                let dict = d.as_ptr();
                if !combined(dict) {
                    return false;
                }
                let mut table = Table::for_dict(dict);
                let mut pos = 0;
                let mut api_pos = 0;
                loop {
                    let mut key: Obj = std::ptr::null_mut();
                    let mut value: Obj = std::ptr::null_mut();
                    let api = ffi::PyDict_Next(dict, &mut api_pos, &mut key, &mut value) != 0;
                    match table.next(dict, &mut pos) {
                        Some(entry) if api && entry == (key, value) && pos == api_pos => {}
                        None if !api && !table.api() => break true,
                        _ => break false,
                    }
                }
            })
    };
    VERIFIED.store(agrees, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}
