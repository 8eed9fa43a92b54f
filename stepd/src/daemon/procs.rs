//! Finding, signalling and reaping the job's processes. The job is the script's process group (the script
//! is its session leader) plus any orphan that escaped it: stepd is a child subreaper, so such orphans
//! become its own children and are found in `/proc/self/task/<tid>/children`.

use std::fs;

use nix::errno::Errno;
use nix::unistd::Pid;

/// Reaps one exited child without blocking; `(pid, raw wait status)`.
pub(crate) fn reap_any() -> Option<(Pid, i32)> {
    let mut status = 0;
    // SAFETY: waitpid only writes the status integer we pass.
    let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
    (pid > 0).then(|| (Pid::from_raw(pid), status))
}

/// Sends `signo` to one process.
pub(crate) fn signal_pid(pid: Pid, signo: i32) -> Result<(), Errno> {
    // SAFETY: kill has no memory-safety preconditions. Raw numbers allow real-time signals.
    Errno::result(unsafe { libc::kill(pid.as_raw(), signo) }).map(drop)
}

/// Sends `signo` to the job's process group and to every child of stepd outside it. Succeeds when at least
/// one process got the signal, or when there was none left to signal.
pub(crate) fn signal_all(pgid: Pid, signo: i32) -> Result<(), Errno> {
    // SAFETY: as in signal_pid; a negative pid addresses the process group.
    let group = Errno::result(unsafe { libc::kill(-pgid.as_raw(), signo) }).map(drop);
    let mut escaped = Ok(());
    for child in children() {
        if nix::unistd::getpgid(Some(child)).ok() != Some(pgid) {
            escaped = escaped.and(signal_pid(child, signo));
        }
    }
    match group {
        Err(Errno::ESRCH) => escaped.or_else(|e| if e == Errno::ESRCH { Ok(()) } else { Err(e) }),
        other => other,
    }
}

/// True while any process of the job exists (including stepd children that escaped the group).
pub(crate) fn anything_left(pgid: Pid) -> bool {
    // SAFETY: signal 0 only checks for existence.
    let group = unsafe { libc::kill(-pgid.as_raw(), 0) } == 0 || Errno::last() == Errno::EPERM;
    group || !children().is_empty()
}

/// stepd's direct children, per the kernel. Empty when the kernel does not offer the list.
pub(crate) fn children() -> Vec<Pid> {
    let me = std::process::id();
    fs::read_to_string(format!("/proc/{me}/task/{me}/children"))
        .map(|text| parse_children(&text))
        .unwrap_or_default()
}

fn parse_children(text: &str) -> Vec<Pid> {
    text.split_whitespace()
        .filter_map(|w| w.parse().ok())
        .map(Pid::from_raw)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_list_parsing() {
        assert_eq!(
            parse_children("12 34 \n"),
            vec![Pid::from_raw(12), Pid::from_raw(34)]
        );
        assert!(parse_children("").is_empty());
    }

    #[test]
    fn signalling_a_missing_group_is_not_an_error() {
        // Pid 2^22-ish is above the default pid_max, so no such group exists.
        let ghost = Pid::from_raw(4_194_000);
        assert_eq!(signal_all(ghost, 0), Ok(()));
        assert_eq!(signal_pid(ghost, 0), Err(Errno::ESRCH));
    }
}
