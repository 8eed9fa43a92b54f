//! Running a fired trigger's program (`Effect::RunTrigger`), on the leader only, as slurmctld's trigger manager
//! runs it: the program checked again, then started in a session of its own as the trigger's owner (groups,
//! gid, uid), with the event's node list or job id as its last argument, and killed with its process group if it
//! still runs after [`MAX_PROG_TIME`].

use std::os::unix::fs::MetadataExt;
use std::time::Duration;

use spur_core::model::trigger::{program_argv, program_path};

/// How long a trigger's program may run (slurmctld's `MAX_PROG_TIME`).
pub const MAX_PROG_TIME: Duration = Duration::from_secs(300);

/// Whether `program` (its path: up to the first blank) is a regular file that `uid` (of group `gid`) may
/// execute by its mode bits, as slurmctld checks it when the trigger is set and again when it fires.
pub fn executable_by(program: &str, uid: u32, gid: u32) -> bool {
    let Ok(meta) = std::fs::metadata(program_path(program)) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let mode = meta.mode();
    let bits = if meta.uid() == uid {
        mode >> 6
    } else if meta.gid() == gid {
        mode >> 3
    } else {
        mode
    };
    bits & 0o1 != 0
}

/// Starts the program of trigger `trig_id` as `uid`/`gid` and reaps it in the background. A controller that is
/// not root runs only its own user's triggers: it could not switch to another owner, and running someone
/// else's program as the controller's user is what slurmctld's rule against user triggers with a non-root
/// SlurmUser exists to prevent.
pub fn run(trig_id: u32, uid: u32, gid: u32, program: &str, arg: &str) {
    if !executable_by(program, uid, gid) {
        tracing::info!("trigger {trig_id}: program {program} is not executable by uid {uid}");
        return;
    }
    let own = nix::unistd::geteuid();
    if !own.is_root() && own.as_raw() != uid {
        tracing::error!(
            "trigger {trig_id}: not run: the controller (uid {own}) cannot run it as its owner uid {uid}"
        );
        return;
    }
    let (path, argv) = program_argv(program, arg);
    let mut command = tokio::process::Command::new(&path);
    command
        .arg0(argv.first().cloned().unwrap_or_default())
        .args(argv.iter().skip(1))
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(false);
    if own.is_root() {
        // Looked up before the fork: getgrouplist is not safe to call between fork and exec.
        let name = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
            .ok()
            .flatten()
            .map(|u| u.name);
        let groups = name
            .and_then(|n| std::ffi::CString::new(n).ok())
            .and_then(|n| nix::unistd::getgrouplist(&n, nix::unistd::Gid::from_raw(gid)).ok())
            .unwrap_or_else(|| vec![nix::unistd::Gid::from_raw(gid)]);
        let (uid, gid) = (
            nix::unistd::Uid::from_raw(uid),
            nix::unistd::Gid::from_raw(gid),
        );
        // SAFETY: the closure runs between fork and exec and only makes these system calls, on data built before.
        unsafe {
            command.pre_exec(move || {
                nix::unistd::setsid()?;
                nix::unistd::setgroups(&groups)?;
                nix::unistd::setgid(gid)?;
                nix::unistd::setuid(uid)?;
                Ok(())
            });
        }
    } else {
        // SAFETY: as above; setsid only.
        unsafe {
            command.pre_exec(|| {
                nix::unistd::setsid()?;
                Ok(())
            });
        }
    }
    match command.spawn() {
        Ok(mut child) => {
            tracing::info!("trigger {trig_id}: running {program} {arg} as uid {uid}");
            let pid = child.id();
            tokio::spawn(async move {
                match tokio::time::timeout(MAX_PROG_TIME, child.wait()).await {
                    Ok(Ok(status)) if !status.success() => {
                        tracing::info!("trigger {trig_id}: program ended {status}");
                    }
                    Ok(_) => {}
                    Err(_) => {
                        // Its session leader's group holds whatever it started.
                        if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
                            let _ = nix::sys::signal::killpg(
                                nix::unistd::Pid::from_raw(pid),
                                nix::sys::signal::Signal::SIGKILL,
                            );
                        }
                        let _ = child.wait().await;
                    }
                }
            });
        }
        Err(e) => tracing::error!("trigger {trig_id}: cannot start {path}: {e}"),
    }
}
