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
    let mut command = Command::new(prolog);
    command
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("SLURM_SCRIPT_CONTEXT", "prolog_task")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    if let Some(pid) = task_pid {
        command.env("SLURM_TASK_PID", pid.to_string());
    }
    if let Some(identity) = identity {
        run_as(&mut command, identity);
    }
    let Ok(output) = command.output() else {
        return String::new();
    };
    let instructions =
        spur_core::grammar::task_prolog::parse(&String::from_utf8_lossy(&output.stdout));
    spur_core::grammar::task_prolog::apply(&instructions, env)
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
