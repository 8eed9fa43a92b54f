//! Shared fixtures for the integration tests: a job directory with a script and a launch spec, started
//! through the real `spurstepd` binary, and torn down (supervisor and job processes killed) on drop.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use spur_core::wire::supervisor::{
    JobResult, LaunchSpec, OpenMode, Started, PROTOCOL_VERSION, SCRIPT_FILE,
};
use spur_stepd::{client, files};

pub const STEPD: &str = env!("CARGO_BIN_EXE_spurstepd");
pub const WAIT: Duration = Duration::from_secs(30);

pub fn now_epoch() -> i64 {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(d.as_secs()).unwrap()
}

pub fn euid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

pub fn egid() -> u32 {
    // SAFETY: getegid cannot fail.
    unsafe { libc::getegid() }
}

pub struct TestJob {
    pub dir: PathBuf,
    pub spec: LaunchSpec,
    /// Extra directories to remove on drop.
    pub extra: Vec<PathBuf>,
}

impl TestJob {
    /// A job directory under /tmp (reachable by every user) with `body` as a bash script.
    pub fn new(tag: &str, body: &str) -> TestJob {
        let dir = std::env::temp_dir().join(format!("spur-stepd-it-{tag}-{}", std::process::id()));
        Self::in_dir(dir, body)
    }

    pub fn in_dir(dir: PathBuf, body: &str) -> TestJob {
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let script = dir.join(SCRIPT_FILE);
        fs::write(&script, format!("#!/bin/bash\n{body}\n")).unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        let spec = LaunchSpec {
            version: PROTOCOL_VERSION,
            job_id: 41,
            node_name: "vm".into(),
            hostname: "vm".into(),
            uid: euid(),
            gid: egid(),
            supplementary_gids: vec![egid()],
            user_name: "tester".into(),
            work_dir: dir.clone(),
            env: vec![
                ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
                ("SLURM_JOB_ID".into(), "41".into()),
                ("JOB_DIR".into(), dir.display().to_string()),
            ],
            script_path: script,
            argv: Vec::new(),
            stdin_path: None,
            stdout_path: dir.join("out.txt"),
            stderr_path: dir.join("err.txt"),
            open_mode: OpenMode::Truncate,
            kill_wait_secs: 1,
            umask: None,
            cgroup: None,
            node_scripts: None,
            rlimits: Vec::new(),
            acct_gather: None,
        };
        TestJob {
            dir,
            spec,
            extra: Vec::new(),
        }
    }

    pub fn launch(&self) -> u32 {
        client::launch(&self.dir, &self.spec, Path::new(STEPD)).unwrap()
    }

    pub fn wait_result(&self) -> JobResult {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(r) = client::read_result(&self.dir).unwrap() {
                return r;
            }
            assert!(
                Instant::now() < deadline,
                "no result.json in {}",
                self.dir.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_started(&self) -> Started {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(s) = client::read_started(&self.dir).unwrap() {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "no started.json in {}",
                self.dir.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn stdout(&self) -> String {
        fs::read_to_string(&self.spec.stdout_path).unwrap_or_default()
    }

    pub fn stderr(&self) -> String {
        fs::read_to_string(&self.spec.stderr_path).unwrap_or_default()
    }
}

/// Waits until `file` contains `needle`; returns the content.
pub fn wait_for_text(file: &Path, needle: &str) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let text = fs::read_to_string(file).unwrap_or_default();
        if text.contains(needle) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{needle:?} never appeared in {}: {text:?}",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// True when a process exists and is not a zombie.
pub fn process_running(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(files::proc_stat_state(&stat), Some('Z' | 'X') | None),
        Err(_) => false,
    }
}

/// True while any process of the group exists.
pub fn group_exists(pgid: u32) -> bool {
    let pgid = i32::try_from(pgid).unwrap();
    // SAFETY: signal 0 only probes.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

impl Drop for TestJob {
    fn drop(&mut self) {
        if client::read_result(&self.dir).ok().flatten().is_none() {
            if let Some(pid) =
                files::read_pid_file(&self.dir).filter(|p| files::is_stepd_for(*p, &self.dir))
            {
                // SAFETY: plain kill of a process this test started.
                unsafe { libc::kill(i32::try_from(pid).unwrap(), libc::SIGKILL) };
            }
            if let Ok(Some(s)) = client::read_started(&self.dir) {
                // SAFETY: the job's process group, started by this test.
                unsafe { libc::kill(-i32::try_from(s.pid).unwrap(), libc::SIGKILL) };
            }
        }
        let _ = fs::remove_dir_all(&self.dir);
        for d in &self.extra {
            let _ = fs::remove_dir_all(d);
        }
    }
}
