//! The few file operations cgroup handling needs: interface files are written in one `write` each (the kernel
//! takes one value per write), and directories are removed once their processes are gone.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long cleanup keeps killing a cgroup's processes before it gives up on removing the directory.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);
const DRAIN_TICK: Duration = Duration::from_millis(20);

/// Writes `value` into the interface file `dir/name`.
pub(crate) fn write(dir: &Path, name: &str, value: &str) -> io::Result<()> {
    let mut f = fs::OpenOptions::new().write(true).open(dir.join(name))?;
    f.write_all(value.as_bytes())
}

pub(crate) fn read(dir: &Path, name: &str) -> io::Result<String> {
    fs::read_to_string(dir.join(name))
}

/// Opens `dir/cgroup.procs` for the child to write "0" into between fork and exec (which moves the writer).
pub(crate) fn open_procs(dir: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(dir.join("cgroup.procs"))
}

/// The pids in a cgroup (`cgroup.procs`); empty when the directory is gone.
pub(crate) fn pids(dir: &Path) -> Vec<i32> {
    read(dir, "cgroup.procs")
        .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// A `key value` line of a flat-keyed file such as `memory.events` or `memory.oom_control`.
pub(crate) fn keyed(dir: &Path, file: &str, key: &str) -> Option<u64> {
    let text = read(dir, file).ok()?;
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok())?
    })
}

/// Kills whatever still runs in `dir` (and its subdirectories), then removes them, deepest first. A directory
/// that is already gone counts as removed.
pub(crate) fn drain_and_remove(dir: &Path) -> io::Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    if let Ok(entries) = fs::read_dir(dir) {
        for sub in entries.filter_map(Result::ok).filter(|e| e.path().is_dir()) {
            drain_and_remove(&sub.path())?;
        }
    }
    let deadline = Instant::now() + DRAIN_TIMEOUT;
    loop {
        for pid in pids(dir) {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            // EBUSY while dying processes are still charged to the cgroup.
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => std::thread::sleep(DRAIN_TICK),
        }
    }
}

/// Runs `make` again when it failed because a parent directory vanished (see [`super::CREATE_ATTEMPTS`]).
pub(crate) fn retry_vanished<T>(
    mut make: impl FnMut() -> std::io::Result<T>,
) -> std::io::Result<T> {
    let mut attempt = 1;
    loop {
        match make() {
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound && attempt < super::CREATE_ATTEMPTS =>
            {
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// Removes `dir` only if it is empty of processes and children (a shared parent such as `uid_<n>`).
pub(crate) fn remove_if_unused(dir: &Path) {
    let _ = fs::remove_dir(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vanished_parents_are_retried_a_bounded_number_of_times() {
        let mut calls = 0;
        let ok = retry_vanished(|| {
            calls += 1;
            if calls < 3 {
                Err(io::Error::from(io::ErrorKind::NotFound))
            } else {
                Ok(calls)
            }
        });
        assert_eq!(ok.unwrap(), 3);
        let mut calls = 0;
        let err = retry_vanished(|| -> io::Result<()> {
            calls += 1;
            Err(io::Error::from(io::ErrorKind::NotFound))
        });
        assert!(err.is_err());
        assert_eq!(calls, super::super::CREATE_ATTEMPTS);
        let mut calls = 0;
        let denied = retry_vanished(|| -> io::Result<()> {
            calls += 1;
            Err(io::Error::from(io::ErrorKind::PermissionDenied))
        });
        assert!(denied.is_err());
        assert_eq!(calls, 1);
    }

    #[test]
    fn keyed_files() {
        let dir = std::env::temp_dir().join(format!("spur-cg-keyed-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("memory.events"),
            "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\n",
        )
        .unwrap();
        assert_eq!(keyed(&dir, "memory.events", "oom_kill"), Some(1));
        assert_eq!(keyed(&dir, "memory.events", "oom"), Some(2));
        assert_eq!(keyed(&dir, "memory.events", "nope"), None);
        assert_eq!(keyed(&dir, "missing", "oom_kill"), None);
        fs::remove_dir_all(&dir).unwrap();
    }
}
