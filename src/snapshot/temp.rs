//! The temporary files of saves, and the removal of those that dead saves left.
//!
//! A save writes into `.NAME.PID-N-XXXXXXXX.tmp` next to the snapshot, created exclusively, and
//! holds an exclusive `flock` on it from just after creating it until after the rename (or the
//! removal, if the save fails). A process killed in the middle of a save leaves its temporary
//! file, but its lock goes with it. [`remove_stale`] removes a file of that name only when a
//! non-blocking `flock` can take it *and* either the process `PID` named in it is gone or the
//! file is [`SURELY_STALE`] old: a save in the moment between creating its file and locking it
//! is not yet seen by the lock, but its process is running and its file new. (A PID reused by
//! another process, as in containers whose processes get the same PIDs at every start, only
//! keeps a stale file until it is that old. Should a save ever be paused in that moment for
//! longer, or its process be one the cleaner cannot see, the save still succeeds: one that finds
//! its file gone once it holds its lock makes another.)

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
        let file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
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
/// snapshot `name`, or of any snapshot), and returns their paths. A file whose process is still
/// running, or that cannot be opened, is not a regular file, or is locked (a running save's) is
/// left alone.
pub fn remove_stale(dir: &Path, name: Option<&OsStr>) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        if !is_temp_name(&entry.file_name(), name) {
            continue;
        }
        let path = entry.path();
        if owner_pid(&entry.file_name()).is_some_and(may_be_running) && !surely_stale(&path) {
            continue;
        }
        if remove_if_stale(&path) {
            removed.push(path);
        }
    }
    Ok(removed)
}

/// The `PID` of a temporary file's name `.NAME.PID-N-XXXXXXXX.tmp` (one `is_temp_name` accepts).
fn owner_pid(file_name: &OsStr) -> Option<u32> {
    let inner = file_name.as_bytes().strip_suffix(b".tmp")?;
    let stamp = &inner[inner.iter().rposition(|&b| b == b'.')? + 1..];
    let digits = stamp.split(|&b| b == b'-').next()?;
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// The age past which an unlocked temporary file is stale whatever its `PID`: a save holds its
/// lock from a moment after creating the file, never seconds later.
const SURELY_STALE: std::time::Duration = std::time::Duration::from_secs(10);

/// Whether the file at `path` was last written [`SURELY_STALE`] ago or longer.
fn surely_stale(path: &Path) -> bool {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|written| written.elapsed().is_ok_and(|age| age >= SURELY_STALE))
}

/// Whether the process `pid` may still be running: this process, or one that exists (signal 0
/// sends nothing; `EPERM` means it exists but is not ours to signal).
fn may_be_running(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    // 0 and negative numbers name process groups, not a process: no save's.
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: `kill` with signal 0 delivers nothing; it only reports whether `pid` exists.
    let found = unsafe { libc::kill(pid, 0) } == 0;
    found || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
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

    #[test]
    fn the_process_of_a_temporary_file_is_read_from_its_name() {
        let pid = |s: &str| owner_pid(OsStr::new(s));
        assert_eq!(pid(".plan.snap.12-0-0badcafe.tmp"), Some(12));
        assert_eq!(pid(".a.b.4194304-2-00000000.tmp"), Some(4_194_304));
        assert_eq!(pid(".plan.snap.99999999999-0-0badcafe.tmp"), None);
        assert!(may_be_running(std::process::id()));
        assert!(!may_be_running(0));
        assert!(!may_be_running(u32::MAX));
    }
}
