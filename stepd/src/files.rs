//! File helpers shared by the agent side and the supervisor: crash-safe writes of the job directory's JSON
//! documents, and recognising a live spurstepd from its pid file.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use spur_core::wire::supervisor::PID_FILE;

/// Name of the supervisor's executable as the kernel shows it in `/proc/<pid>/comm`.
pub const STEPD_COMM: &str = "spurstepd";

/// Errors reading a JSON document from the job directory.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("malformed {path}: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// Writes `data` so that readers see either the old file or the complete new one, even when the writer is
/// killed halfway: temp file, then rename.
///
/// Nothing is fsynced. These files tell an agent and a supervisor about each other across a restart of either
/// process, which the page cache survives; they need not survive the machine. A node that loses power loses its
/// jobs with it: the controller fails them when the node stops answering, and the restarted agent treats every
/// job directory from before the boot as orphaned (`JobSpool::orphaned_jobs`). Two fsyncs per file, five files
/// per job, were a third of a trivial job's time on the node.
pub fn write_atomic(path: &Path, data: &[u8], mode: u32) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let tmp = dir.join(format!(
        ".{}.tmp.{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    // A stale temp file (or a planted symlink) is removed, then the name is created exclusively, so a
    // privileged writer never follows a link someone else put there.
    let _ = fs::remove_file(&tmp);
    let written = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)?;
        f.write_all(data)?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// [`write_atomic`] of a value as pretty JSON followed by a newline.
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T, mode: u32) -> io::Result<()> {
    let mut text = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    text.push(b'\n');
    write_atomic(path, &text, mode)
}

/// Reads a JSON document; `Ok(None)` when the file does not exist.
pub fn read_json_opt<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, ReadError> {
    let data = match fs::read(path) {
        Ok(d) => d,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ReadError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    serde_json::from_slice(&data)
        .map(Some)
        .map_err(|source| ReadError::Json {
            path: path.to_path_buf(),
            source,
        })
}

/// The pid recorded in `<job_dir>/stepd.pid`, if any.
pub fn read_pid_file(job_dir: &Path) -> Option<u32> {
    let text = fs::read_to_string(job_dir.join(PID_FILE)).ok()?;
    text.trim().parse().ok().filter(|&p| p > 0)
}

/// Field `n` of a `/proc/<pid>/stat` line, numbered as in proc(5) from 3 (the state) on: the fields after the
/// parenthesised command name, which may itself contain spaces and parentheses.
pub fn proc_stat_field(stat: &str, n: usize) -> Option<&str> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(n.checked_sub(3)?)
}

/// The one-letter state from a `/proc/<pid>/stat` line.
pub fn proc_stat_state(stat: &str) -> Option<char> {
    proc_stat_field(stat, 3)?.chars().next()
}

/// True when `pid` is a running (not zombie) spurstepd supervising `job_dir`.
///
/// The supervisor keeps its working directory in the job directory, which tells two supervisors apart and
/// guards against a recycled pid; when that link cannot be read (another user's process), the name check
/// alone decides.
pub fn is_stepd_for(pid: u32, job_dir: &Path) -> bool {
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    let Ok(stat) = fs::read_to_string(proc_dir.join("stat")) else {
        return false;
    };
    if matches!(proc_stat_state(&stat), None | Some('Z' | 'X' | 'x')) {
        return false;
    }
    match fs::read_to_string(proc_dir.join("comm")) {
        Ok(comm) if comm.trim_end() == STEPD_COMM => {}
        _ => return false,
    }
    match (
        fs::read_link(proc_dir.join("cwd")),
        fs::canonicalize(job_dir),
    ) {
        (Ok(cwd), Ok(dir)) => cwd == dir,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tempdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("spur-stepd-files-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_file() {
        let d = tempdir("atomic");
        let p = d.join("x.json");
        write_json_atomic(&p, &vec![1, 2], 0o600).unwrap();
        write_json_atomic(&p, &vec![3], 0o600).unwrap();
        let back: Option<Vec<i32>> = read_json_opt(&p).unwrap();
        assert_eq!(back, Some(vec![3]));
        let names: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("x.json")]);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn read_json_opt_distinguishes_missing_and_malformed() {
        let d = tempdir("read");
        let missing: Option<u32> = read_json_opt(&d.join("none")).unwrap();
        assert_eq!(missing, None);
        fs::write(d.join("bad"), "{").unwrap();
        let err = read_json_opt::<u32>(&d.join("bad")).unwrap_err();
        assert!(matches!(err, ReadError::Json { .. }), "{err}");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn stat_state_survives_odd_command_names() {
        assert_eq!(proc_stat_state("12 (a) b) S 1 2"), Some('S'));
        assert_eq!(proc_stat_state("12 (spurstepd) Z 1 2"), Some('Z'));
        assert_eq!(proc_stat_state("garbage"), None);
        assert_eq!(proc_stat_field("12 (a) b) S 1 2", 4), Some("1"));
        assert_eq!(proc_stat_field("12 (a) b) S 1 2", 5), Some("2"));
        assert_eq!(proc_stat_field("12 (a) b) S 1 2", 6), None);
        assert_eq!(proc_stat_field("12 (a) b) S 1 2", 2), None);
    }

    #[test]
    fn pid_file_and_liveness() {
        let d = tempdir("pid");
        assert_eq!(read_pid_file(&d), None);
        fs::write(d.join(PID_FILE), format!("{}\n", std::process::id())).unwrap();
        assert_eq!(read_pid_file(&d), Some(std::process::id()));
        // The test binary is alive but is not spurstepd.
        assert!(!is_stepd_for(std::process::id(), &d));
        assert!(!is_stepd_for(u32::MAX - 1, &d));
        fs::write(d.join(PID_FILE), "junk").unwrap();
        assert_eq!(read_pid_file(&d), None);
        fs::remove_dir_all(&d).unwrap();
    }
}
