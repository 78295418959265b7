//! The temporary files of saves, and the removal of those that dead saves left.
//!
//! A save writes into `.NAME.PID-N-XXXXXXXX.tmp` next to the snapshot, created exclusively, and
//! holds an exclusive `flock` on it from just after creating it until after the rename (or the
//! removal, if the save fails). A process killed in the middle of a save leaves its temporary
//! file, but its lock goes with it: a file of that name that a non-blocking `flock` can take
//! belongs to no running save, and [`remove_stale`] removes it while holding the lock. A save
//! that finds its file gone once it holds its lock (a cleaner took the lock in the moment
//! between the creation and the `flock`, and removed the file) makes another.

use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A counter that makes each temporary name of this process new.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A temporary file of a running save: open, locked, and named `path`.
pub struct Temp {
    pub file: File,
    pub path: PathBuf,
}

/// Creates a new temporary file next to the snapshot `name` in `dir`, and locks it.
pub fn create(dir: &Path, name: &OsStr) -> io::Result<Temp> {
    let pid = std::process::id();
    loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let mut temp_name = OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{pid}-{n}-{nanos:08x}.tmp"));
        let path = dir.join(temp_name);
        let file = match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        // Waits only while a cleaner holds the lock: for its `unlink`, no longer.
        flock(&file, libc::LOCK_EX)?;
        if same_file(&file, &path) {
            return Ok(Temp { file, path });
        }
        // Removed by a cleaner before our lock: the name is free again, and no longer ours.
    }
}

/// `flock(file, operation)`, retried when a signal interrupts it.
fn flock(file: &File, operation: libc::c_int) -> io::Result<()> {
    loop {
        // SAFETY: `file` is open for the whole call, so its descriptor is valid; `flock` reads
        // nothing else.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Whether `path` names the file open as `file` (and not another, or nothing).
fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

/// Whether `rest` is the `PID-N-XXXXXXXX` part of a temporary name.
fn is_stamp(rest: &[u8]) -> bool {
    let mut parts = rest.split(|&b| b == b'-');
    let digits =
        |p: Option<&[u8]>| p.is_some_and(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit));
    let pid = parts.next();
    let n = parts.next();
    let nanos = parts.next();
    digits(pid)
        && digits(n)
        && nanos.is_some_and(|p| p.len() == 8 && p.iter().all(u8::is_ascii_hexdigit))
        && parts.next().is_none()
}

/// Whether `file_name` is the name of a save's temporary file: of the snapshot `name`, or of
/// any snapshot when `name` is `None`.
pub fn is_temp_name(file_name: &OsStr, name: Option<&OsStr>) -> bool {
    let bytes = file_name.as_bytes();
    let Some(inner) = bytes
        .strip_prefix(b".")
        .and_then(|b| b.strip_suffix(b".tmp"))
    else {
        return false;
    };
    match name {
        Some(name) => inner
            .strip_prefix(name.as_bytes())
            .and_then(|rest| rest.strip_prefix(b"."))
            .is_some_and(is_stamp),
        None => match inner.iter().rposition(|&b| b == b'.') {
            Some(dot) => dot > 0 && is_stamp(&inner[dot + 1..]),
            None => false,
        },
    }
}

/// Removes from `dir` the temporary files of saves that are no longer running (of the
/// snapshot `name`, or of any snapshot), and returns their paths. A file that cannot be opened,
/// is not a regular file, or is locked (a running save's) is left alone.
pub fn remove_stale(dir: &Path, name: Option<&OsStr>) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        if !is_temp_name(&entry.file_name(), name) {
            continue;
        }
        let path = entry.path();
        if remove_if_stale(&path) {
            removed.push(path);
        }
    }
    Ok(removed)
}

/// Removes the temporary file at `path` if no running save holds its lock.
fn remove_if_stale(path: &Path) -> bool {
    // No symlink followed, and no wait on a FIFO given such a name.
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    let Ok(file) = opened else { return false };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    if flock(&file, libc::LOCK_EX | libc::LOCK_NB).is_err() {
        return false; // A running save's (or the lock cannot be taken): left alone.
    }
    // Removed while the lock is held, so that a save that created the file a moment ago and
    // then waits for its lock sees it gone (`create`); the lock goes when `file` is closed.
    same_file(&file, path) && std::fs::remove_file(path).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_told_from_others() {
        let named = |s: &str, n: Option<&str>| is_temp_name(OsStr::new(s), n.map(OsStr::new));
        assert!(named(".plan.snap.12-0-0badcafe.tmp", Some("plan.snap")));
        assert!(named(".plan.snap.12-0-0badcafe.tmp", None));
        assert!(named(".a.b.1-2-00000000.tmp", None));
        assert!(!named(".plan.snap.12-0-0badcafe.tmp", Some("plan")));
        assert!(!named(".other.12-0-0badcafe.tmp", Some("plan.snap")));
        assert!(!named(".plan.snap.12-0-0badcafe", None));
        assert!(!named("plan.snap.12-0-0badcafe.tmp", None));
        assert!(!named(".plan.snap.12-0-badcafe.tmp", None));
        assert!(!named(".plan.snap.x-0-0badcafe.tmp", None));
        assert!(!named(".plan.snap.12-0-0badcafe-1.tmp", None));
        assert!(!named("..12-0-0badcafe.tmp", None));
        assert!(!named(".notes.tmp", None));
    }
}
