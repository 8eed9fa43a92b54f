//! slurm.conf's `TaskProlog` and `TaskEpilog` for every launcher (the batch supervisor, srun's own tasks, the step
//! supervisor on other nodes). The prolog gets the task's environment, and its `export`/`unset` lines change that
//! environment (see `spur_core::grammar::task_prolog`); what its `print` lines say goes to the task's stdout.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::task_launch::TaskIdentity;

/// Runs `prolog` with `env` (plus `SLURM_SCRIPT_CONTEXT=prolog_task` and the task's pid when known), as
/// `identity` when given, and applies its instructions to `env`; returns the text to print. A prolog that cannot
/// run changes nothing.
pub fn run_task_prolog(
    prolog: &Path,
    env: &mut Vec<(String, String)>,
    task_pid: Option<i32>,
    identity: Option<&TaskIdentity>,
) -> String {
    run_task_prolog_status(prolog, env, task_pid, identity).printed
}

/// What one task prolog did.
pub struct PrologRun {
    /// The text its `print` lines give the task's standard output.
    pub printed: String,
    /// Its exit status: 0 lets the task start; slurmstepd ends the task with any other (a prolog killed by a
    /// signal, or one that cannot be started, counts as 1).
    pub status: i32,
}

/// [`run_task_prolog`], also telling how the prolog ended. Like slurmstepd, the task's environment keeps the
/// `SLURM_SCRIPT_CONTEXT=prolog_task` given to the prolog.
pub fn run_task_prolog_status(
    prolog: &Path,
    env: &mut Vec<(String, String)>,
    task_pid: Option<i32>,
    identity: Option<&TaskIdentity>,
) -> PrologRun {
    env.retain(|(k, _)| k != "SLURM_SCRIPT_CONTEXT");
    env.push((
        "SLURM_SCRIPT_CONTEXT".to_string(),
        "prolog_task".to_string(),
    ));
    let mut command = Command::new(prolog);
    command
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    if let Some(pid) = task_pid {
        command.env("SLURM_TASK_PID", pid.to_string());
    }
    if let Some(identity) = identity {
        run_as(&mut command, identity);
    }
    let Ok(output) = command.output() else {
        return PrologRun {
            printed: String::new(),
            status: 1,
        };
    };
    let instructions =
        spur_core::grammar::task_prolog::parse(&String::from_utf8_lossy(&output.stdout));
    let printed = spur_core::grammar::task_prolog::apply(&instructions, env);
    PrologRun {
        printed,
        status: output.status.code().unwrap_or(1),
    }
}

/// Runs a task epilog after a task ended, as slurmstepd does: with the task's environment and
/// `SLURM_SCRIPT_CONTEXT=epilog_task`, in the task's directory, in a process group of its own whose output goes
/// nowhere; `max_wait` (`srun --task-epilog` has 5 s) kills the group after that long, and whatever the epilog left
/// running in its group is killed when it ends. Returns its raw wait status, -1 when it could not start.
pub fn run_task_epilog(
    epilog: &Path,
    env: &[(String, String)],
    work_dir: &Path,
    identity: Option<&TaskIdentity>,
    max_wait: Option<std::time::Duration>,
) -> i32 {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let mut command = Command::new(epilog);
    command
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("SLURM_SCRIPT_CONTEXT", "epilog_task")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    if let Some(identity) = identity {
        run_as(&mut command, identity);
    }
    chdir_as_user(&mut command, work_dir);
    let Ok(mut child) = command.spawn() else {
        return -1;
    };
    let group = i32::try_from(child.id())
        .ok()
        .map(nix::unistd::Pid::from_raw);
    let kill_group = || {
        if let Some(group) = group {
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        }
    };
    let deadline = max_wait.map(|wait| std::time::Instant::now() + wait);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.into_raw(),
            Ok(None) => {}
            Err(_) => break -1,
        }
        if deadline.is_some_and(|at| std::time::Instant::now() >= at) {
            kill_group();
            break child.wait().map_or(-1, |s| s.into_raw());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    // Like slurmstepd, nothing the epilog started outlives it.
    kill_group();
    status
}

/// The task scripts of a step, in slurmstepd's order: before each task slurm.conf's `TaskProlog` then
/// `--task-prolog`; after it `--task-epilog` (killed after 5 s) then slurm.conf's `TaskEpilog`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskScripts {
    pub prolog: Option<std::path::PathBuf>,
    pub user_prolog: Option<std::path::PathBuf>,
    pub user_epilog: Option<std::path::PathBuf>,
    pub epilog: Option<std::path::PathBuf>,
}

/// How long slurmstepd lets `--task-epilog` run.
pub const USER_EPILOG_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What a task's prologs did.
#[derive(Debug, Default)]
pub struct PrologsRun {
    /// What their `print` lines give the task's standard output.
    pub printed: String,
    /// A prolog failed: the task is not to run but to end with this status, after slurmstepd's error lines
    /// (without their `slurmstepd-NODE: error: ` start) on its stderr.
    pub failed: Option<(i32, Vec<String>)>,
}

/// Why slurmstepd's `run_command` would not start a task prolog: it wants a full path to a file the task's user
/// may execute.
fn unrunnable(path: &Path, kind: &str, identity: Option<&TaskIdentity>) -> Option<String> {
    if !path.is_absolute() {
        return Some(format!(
            "run_command: {kind} is not fully qualified pathname ({})",
            path.display()
        ));
    }
    let denied = |errno: nix::errno::Errno| {
        Some(format!(
            "run_command: {kind} can not be executed ({}) {}",
            path.display(),
            errno.desc()
        ))
    };
    match identity {
        // A supervisor running as root asks for the task's user: its own access says nothing.
        Some(identity) => {
            use std::os::unix::fs::MetadataExt;
            let meta = match std::fs::metadata(path) {
                Ok(meta) => meta,
                Err(e) => {
                    return denied(nix::errno::Errno::from_raw(e.raw_os_error().unwrap_or(0)))
                }
            };
            let mode = meta.mode();
            let allowed = if meta.uid() == identity.uid {
                mode & 0o100 != 0
            } else if meta.gid() == identity.gid || identity.groups.contains(&meta.gid()) {
                mode & 0o010 != 0
            } else {
                mode & 0o001 != 0
            };
            (!allowed || meta.is_dir()).then(|| denied(nix::errno::Errno::EACCES))?
        }
        None => match nix::unistd::access(path, nix::unistd::AccessFlags::X_OK) {
            Ok(()) => None,
            Err(errno) => denied(errno),
        },
    }
}

/// Runs a task's prologs (slurm.conf's, then `--task-prolog`) as slurmstepd's task process does before it
/// executes the program: each one's instructions change `env`, and the first that fails stops the task.
pub fn run_task_prologs(
    scripts: &TaskScripts,
    env: &mut Vec<(String, String)>,
    identity: Option<&TaskIdentity>,
) -> PrologsRun {
    let mut run = PrologsRun::default();
    let prologs = [
        (scripts.prolog.as_ref(), "slurm task_prolog", "TaskProlog"),
        (
            scripts.user_prolog.as_ref(),
            "user task_prolog",
            "--task-prolog",
        ),
    ];
    for (prolog, kind, name) in prologs
        .iter()
        .filter_map(|(p, k, n)| p.map(|p| (p, *k, *n)))
    {
        if let Some(reason) = unrunnable(prolog, kind, identity) {
            run.failed = Some((
                1,
                vec![
                    reason,
                    format!(
                        "{kind} did not exit normally. reason: Run command failed - configuration error"
                    ),
                    format!("{name} failed status=1"),
                ],
            ));
            break;
        }
        let ran = run_task_prolog_status(prolog, env, None, identity);
        run.printed.push_str(&ran.printed);
        if ran.status != 0 {
            run.failed = Some((
                ran.status,
                vec![format!("{name} failed status={}", ran.status)],
            ));
            break;
        }
    }
    run
}

/// Runs a task's epilogs after it ended (`--task-epilog` first) with `env`, the task's environment before its
/// prologs changed it; returns slurmstepd's error lines for those that failed, each under the other's name and
/// with the raw wait status, as slurmstepd 22.05 words them.
pub fn run_task_epilogs(
    scripts: &TaskScripts,
    env: &[(String, String)],
    work_dir: &Path,
    identity: Option<&TaskIdentity>,
) -> Vec<String> {
    let epilogs = [
        (
            scripts.user_epilog.as_ref(),
            Some(USER_EPILOG_WAIT),
            "TaskEpilog",
        ),
        (scripts.epilog.as_ref(), None, "--task-epilog"),
    ];
    let mut errors = Vec::new();
    for (epilog, wait, name) in epilogs
        .iter()
        .filter_map(|(e, w, n)| e.map(|e| (e, *w, *n)))
    {
        let status = run_task_epilog(epilog, env, work_dir, identity, wait);
        if status != 0 {
            errors.push(format!("{name} failed status={status}"));
        }
    }
    errors
}

/// slurmstepd's error lines as they reach the task's stderr: `slurmstepd-NODE: error: LINE`.
pub fn error_text(node: &str, lines: &[String]) -> String {
    lines
        .iter()
        .map(|line| format!("slurmstepd-{node}: error: {line}\n"))
        .collect()
}

/// The program that stands in for a task whose prolog failed: it writes `text` to its stderr and exits with
/// `status`, so the task ends through the same watch and report as any other.
pub fn stand_in_argv(status: i32, text: &str) -> Vec<String> {
    vec![
        "/bin/sh".to_string(),
        "-c".to_string(),
        "printf '%s' \"$1\" >&2; exit \"$2\"".to_string(),
        "sh".to_string(),
        text.to_string(),
        (status & 0xff).to_string(),
    ]
}

/// Makes `command` drop to `identity` before it execs: groups, gid, uid in that order (each needs the privilege
/// the next gives up; std's own uid/gid switch would come first and leave setgroups without that right).
pub fn run_as(command: &mut Command, identity: &TaskIdentity) {
    use std::os::unix::process::CommandExt;
    let groups: Vec<nix::unistd::Gid> = identity
        .groups
        .iter()
        .map(|g| nix::unistd::Gid::from_raw(*g))
        .collect();
    let (uid, gid) = (
        nix::unistd::Uid::from_raw(identity.uid),
        nix::unistd::Gid::from_raw(identity.gid),
    );
    // SAFETY: the closure runs between fork and exec and only makes these three system calls.
    unsafe {
        command.pre_exec(move || {
            nix::unistd::setgroups(&groups)?;
            nix::unistd::setgid(gid)?;
            nix::unistd::setuid(uid)?;
            Ok(())
        });
    }
}

/// Makes `command` enter `dir` only after [`run_as`] dropped to the job's user (register it after `run_as`): a
/// directory changed into as root would hand the user's program a working directory it could not have entered,
/// inside paths closed to it. Where the user may not enter `dir`, the program starts in `/tmp`, as slurmstepd
/// falls back; where not even that, it does not start.
pub fn chdir_as_user(command: &mut Command, dir: &Path) {
    use std::os::unix::process::CommandExt;
    let Ok(dir) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return;
    };
    // SAFETY: the closure runs between fork and exec and only makes chdir calls on strings built before fork.
    unsafe {
        command.pre_exec(move || {
            if nix::unistd::chdir(dir.as_c_str()).is_err() {
                nix::unistd::chdir(c"/tmp")?;
            }
            Ok(())
        });
    }
}
