//! What the forked child does before it becomes the batch script, in slurmstepd's order: join the job's cgroups, new
//! session and process group, default signal handling, supplementary groups, gid, uid, stdio, working directory (with
//! Slurm's fallback to /tmp), `execve` with exactly the job's environment.
//!
//! Failures are reported to the supervisor through a close-on-exec pipe: `L<text>` when the job could not be launched,
//! `E<text>` when the script itself could not be executed.

use std::ffi::CStr;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use nix::errno::Errno;
use nix::sys::signal::{sigprocmask, SigSet, SigmaskHow};
use nix::unistd::{
    chdir, dup2_stderr, dup2_stdin, dup2_stdout, execve, setgid, setgroups, setsid, setuid,
};
use nix::unistd::{Gid, Uid};

use super::spawn::{ExecArgs, Identity};
use crate::messages;

/// Exit status of a child that failed before `execve` (never seen by the job: it is reported as a launch
/// failure instead).
const LAUNCH_FAILED_STATUS: i32 = 1;

/// Inputs the child needs, prepared by the supervisor before forking.
pub(crate) struct ChildPlan<'a> {
    pub(crate) identity: &'a Identity,
    pub(crate) stdin: OwnedFd,
    pub(crate) stdout: OwnedFd,
    pub(crate) stderr: OwnedFd,
    pub(crate) work_dir: &'a Path,
    pub(crate) hostname: &'a str,
    pub(crate) exec: &'a ExecArgs,
    /// `cgroup.procs` of each of the job's cgroups: the child writes "0" (itself) into each while still root,
    /// so it is confined before the job's code runs.
    pub(crate) cgroup_procs: Vec<OwnedFd>,
    /// The submitter's soft limits, by Slurm's names.
    pub(crate) rlimits: &'a [(String, u64)],
    /// slurm.conf `TaskProlog`, run as the job's user just before the script.
    pub(crate) task_prolog: Option<&'a Path>,
}

/// A failure the child reported through the pipe.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Report {
    Launch(String),
    Exec(String),
}

impl Report {
    /// `None` for an empty report, which means `execve` succeeded.
    pub(crate) fn parse(text: &str) -> Option<Report> {
        let mut chars = text.chars();
        match chars.next()? {
            'E' => Some(Report::Exec(chars.as_str().to_string())),
            'L' => Some(Report::Launch(chars.as_str().to_string())),
            _ => Some(Report::Launch(format!(
                "unexpected report from child: {text:?}"
            ))),
        }
    }

    fn encode(&self) -> String {
        match self {
            Report::Launch(m) => format!("L{m}"),
            Report::Exec(m) => format!("E{m}"),
        }
    }
}

/// Runs in the forked child; never returns.
pub(crate) fn run(plan: ChildPlan<'_>, report: OwnedFd) -> ! {
    match prepare(&plan) {
        Ok(()) => {}
        Err(msg) => die(&report, &Report::Launch(msg), LAUNCH_FAILED_STATUS),
    }
    // Only the child knows its own pid, which Slurm gives every task as SLURM_TASK_PID.
    let task_pid = task_pid_entry(nix::unistd::getpid().as_raw());
    let prologued = plan
        .task_prolog
        .and_then(|prolog| run_task_prolog(prolog, &plan.exec.env));
    let env_source: &[std::ffi::CString] = prologued.as_deref().unwrap_or(&plan.exec.env);
    let mut env: Vec<&CStr> = env_source
        .iter()
        .map(|c| c.as_c_str())
        .filter(|c| !c.to_bytes().starts_with(TASK_PID_PREFIX))
        .collect();
    env.extend(task_pid.as_deref());
    let err = match execve::<&CStr, &CStr>(
        &plan.exec.path,
        &plan
            .exec
            .argv
            .iter()
            .map(|c| c.as_c_str())
            .collect::<Vec<_>>(),
        &env,
    ) {
        Err(e) => e,
        Ok(never) => match never {},
    };
    let path = Path::new(std::ffi::OsStr::from_bytes(plan.exec.path.to_bytes()));
    let line = messages::execve_line(plan.hostname, path, err.desc());
    write_stderr(&line);
    die(
        &report,
        &Report::Exec(line.trim_end().to_string()),
        exec_failure_status(err),
    )
}

const TASK_PID_PREFIX: &[u8] = b"SLURM_TASK_PID=";

/// Runs the TaskProlog (already as the job's user, in its directory, in the process that becomes the script) and
/// returns the script's environment as the prolog changed it; its `print` lines go to the job's stdout.
fn run_task_prolog(prolog: &Path, env: &[std::ffi::CString]) -> Option<Vec<std::ffi::CString>> {
    let mut pairs: Vec<(String, String)> = env
        .iter()
        .filter_map(|c| {
            let text = String::from_utf8_lossy(c.to_bytes());
            let (k, v) = text.split_once('=')?;
            Some((k.to_string(), v.to_string()))
        })
        .collect();
    let me = nix::unistd::getpid().as_raw();
    let printed = crate::task_script::run_task_prolog(prolog, &mut pairs, Some(me), None);
    let _ = nix::unistd::write(std::io::stdout().as_fd(), printed.as_bytes());
    pairs
        .into_iter()
        .map(|(k, v)| std::ffi::CString::new(format!("{k}={v}")).ok())
        .collect()
}

fn task_pid_entry(pid: i32) -> Option<std::ffi::CString> {
    let mut entry = TASK_PID_PREFIX.to_vec();
    entry.extend_from_slice(pid.to_string().as_bytes());
    std::ffi::CString::new(entry).ok()
}

/// Shell convention: 127 when the script is not there, 126 when it is there but cannot be executed.
pub(crate) fn exec_failure_status(err: Errno) -> i32 {
    match err {
        Errno::ENOENT | Errno::ENOTDIR => 127,
        _ => 126,
    }
}

fn prepare(plan: &ChildPlan<'_>) -> Result<(), String> {
    for procs in &plan.cgroup_procs {
        nix::unistd::write(procs, b"0")
            .map_err(|e| format!("cannot join the job's cgroup: {e}"))?;
    }
    setsid().map_err(|e| format!("setsid: {e}"))?;
    reset_signals();
    apply_rlimits(plan.rlimits);
    if let Identity::Switch { uid, gid, groups } = plan.identity {
        let gids: Vec<Gid> = groups.iter().map(|g| Gid::from_raw(*g)).collect();
        setgroups(&gids).map_err(|e| format!("setgroups: {e}"))?;
        setgid(Gid::from_raw(*gid)).map_err(|e| format!("setgid: {e}"))?;
        setuid(Uid::from_raw(*uid)).map_err(|e| format!("setuid: {e}"))?;
    }
    dup2_stdin(plan.stdin.as_fd()).map_err(|e| format!("dup2(stdin): {e}"))?;
    dup2_stdout(plan.stdout.as_fd()).map_err(|e| format!("dup2(stdout): {e}"))?;
    dup2_stderr(plan.stderr.as_fd()).map_err(|e| format!("dup2(stderr): {e}"))?;
    if let Err(e) = chdir(plan.work_dir) {
        // Slurm 22.05 fails this chdir twice (once in slurmstepd, once in the task) and both lines end up
        // in the job's stderr; job output is meant to look the same under Spur.
        let line = messages::chdir_fallback_line(plan.hostname, plan.work_dir, e.desc());
        write_stderr(&line);
        write_stderr(&line);
        if chdir("/tmp").is_err() {
            let line = messages::chdir_tmp_failed_line(plan.hostname);
            write_stderr(&line);
            return Err(line.trim_end().to_string());
        }
    }
    Ok(())
}

/// Sets each propagated soft limit, capped at the hard limit (as slurmstepd, which never raises a hard limit); a
/// limit the kernel refuses keeps the node's value.
fn apply_rlimits(limits: &[(String, u64)]) {
    use nix::sys::resource::{getrlimit, setrlimit};
    for (name, value) in limits {
        let Some(resource) = crate::rlimit::resource(name) else {
            continue;
        };
        if let Ok((_, hard)) = getrlimit(resource) {
            let _ = setrlimit(resource, (*value).min(hard), hard);
        }
    }
}

/// The supervisor blocks SIGCHLD and ignores SIGPIPE and others; the script must start with the defaults.
fn reset_signals() {
    for signo in 1..=libc::SIGRTMAX() {
        if signo == libc::SIGKILL || signo == libc::SIGSTOP {
            continue;
        }
        // SAFETY: installing SIG_DFL is always sound; the C library refuses its reserved signals with EINVAL,
        // which is fine to ignore.
        unsafe { libc::signal(signo, libc::SIG_DFL) };
    }
    let _ = sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None);
}

fn write_stderr(text: &str) {
    let _ = nix::unistd::write(std::io::stderr().as_fd(), text.as_bytes());
}

fn die(report: &OwnedFd, what: &Report, status: i32) -> ! {
    let _ = nix::unistd::write(report, what.encode().as_bytes());
    // SAFETY: _exit ends the child without running the supervisor's destructors or atexit handlers.
    unsafe { libc::_exit(status) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_round_trip() {
        assert_eq!(Report::parse(""), None);
        for r in [
            Report::Launch("setuid: EPERM".into()),
            Report::Exec("execve(): /x: No such file".into()),
        ] {
            assert_eq!(Report::parse(&r.encode()), Some(r));
        }
        assert!(matches!(Report::parse("?"), Some(Report::Launch(_))));
    }

    #[test]
    fn task_pid_entry_text() {
        assert_eq!(
            task_pid_entry(4242).unwrap().to_bytes(),
            b"SLURM_TASK_PID=4242"
        );
    }

    #[test]
    fn exec_failure_statuses() {
        assert_eq!(exec_failure_status(Errno::ENOENT), 127);
        assert_eq!(exec_failure_status(Errno::ENOTDIR), 127);
        assert_eq!(exec_failure_status(Errno::EACCES), 126);
        assert_eq!(exec_failure_status(Errno::ENOEXEC), 126);
    }
}
