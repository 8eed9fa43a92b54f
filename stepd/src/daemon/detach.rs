//! Turning the process the agent started into a daemon that outlives the agent: `setsid` and a fork,
//! stdio moved to `/dev/null` and `stepd.log`, every inherited descriptor closed. The original process
//! waits on a pipe until the daemon says it is ready (pid file written, socket listening) and exits with
//! that verdict, so the agent's launch call is synchronous and cannot hang on a leaked pipe.

use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use nix::fcntl::OFlag;
use nix::sys::stat::{umask, Mode};
use nix::sys::wait::waitpid;
use nix::unistd::{chdir, dup2_stderr, dup2_stdin, dup2_stdout, fork, pipe2, setsid, ForkResult};

use super::StepdError;
use spur_core::wire::supervisor::LOG_FILE;

/// The daemon's end of the readiness pipe.
pub(crate) struct ReadyPipe(OwnedFd);

impl ReadyPipe {
    /// The write end of a pipe whose reader waits for the verdict (the fork server passes the agent's).
    pub(crate) fn from_fd(fd: OwnedFd) -> Self {
        ReadyPipe(fd)
    }

    /// Tells the waiting launcher that the supervisor is up.
    pub(crate) fn ready(self) {
        self.send("ok\n");
    }

    /// Tells the waiting launcher why the supervisor could not start.
    pub(crate) fn fail(self, message: &str) {
        self.send(&format!("error: {message}\n"));
    }

    fn send(self, text: &str) {
        // The launcher may be gone already (the agent was killed); the daemon carries on regardless.
        let mut f = fs::File::from(self.0);
        let _ = f.write_all(text.as_bytes());
    }
}

/// Detaches from the caller. Returns only in the daemon; the original process exits with 0 once the daemon
/// reports ready, or prints the daemon's error and exits with 1.
///
/// The original process first leaves the agent's session (`setsid`), so that its terminal or process-group
/// signals do not reach the job, and then forks once: the daemon is in the new session without leading it, so
/// it can never acquire a controlling terminal, and it is reparented once the original exits. That is what the
/// classic double fork gives, with one fork (and one process exit) less per job. A caller that made us a
/// process group leader (setsid refuses those) gets the double fork.
pub(crate) fn daemonize(job_dir: &Path) -> Result<ReadyPipe, StepdError> {
    let (read_end, write_end) =
        pipe2(OFlag::O_CLOEXEC).map_err(|e| StepdError::Detach("pipe", e))?;
    let left_session = setsid().is_ok();
    // SAFETY: spurstepd has not started any thread yet, so the child may run arbitrary code.
    match unsafe { fork() }.map_err(|e| StepdError::Detach("fork", e))? {
        ForkResult::Parent { child } => {
            drop(write_end);
            let mut verdict = String::new();
            let _ = fs::File::from(read_end).read_to_string(&mut verdict);
            // The intermediate child of a double fork is reaped; a daemon forked once is not waited for (it
            // runs the job), and is reparented as this process exits.
            if !left_session {
                let _ = waitpid(child, None);
            }
            std::process::exit(report_verdict(&verdict));
        }
        ForkResult::Child => {}
    }
    drop(read_end);
    if !left_session {
        setsid().map_err(|e| StepdError::Detach("setsid", e))?;
        // SAFETY: still single-threaded.
        match unsafe { fork() }.map_err(|e| StepdError::Detach("fork", e))? {
            // SAFETY: _exit skips destructors and atexit handlers, which belong to the daemon now.
            ForkResult::Parent { .. } => unsafe { libc::_exit(0) },
            ForkResult::Child => {}
        }
    }
    let ready = ReadyPipe(write_end);
    settle_in(job_dir, &ready)?;
    Ok(ready)
}

/// What every supervisor does once it is the daemon, however it got there: its working directory is the job
/// directory, its stdio goes to `/dev/null` and `stepd.log`, and it holds no descriptor but `ready`.
pub(crate) fn settle_in(job_dir: &Path, ready: &ReadyPipe) -> Result<(), StepdError> {
    chdir(job_dir).map_err(|e| StepdError::Detach("chdir", e))?;
    umask(Mode::from_bits_truncate(0o022));
    redirect_stdio()?;
    close_inherited_fds(&[ready.0.as_raw_fd()]);
    Ok(())
}

fn report_verdict(verdict: &str) -> i32 {
    match read_verdict(verdict) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("spurstepd: error: {msg}");
            1
        }
    }
}

/// What a supervisor said through the readiness pipe: ready, or why not. A pipe closed without a word means
/// the supervisor died before it could say anything.
pub(crate) fn read_verdict(verdict: &str) -> Result<(), String> {
    let msg = verdict.trim_end();
    if msg == "ok" {
        return Ok(());
    }
    let msg = msg.strip_prefix("error: ").unwrap_or(msg);
    if msg.is_empty() {
        Err(format!(
            "the supervisor exited before it was ready (see {LOG_FILE})"
        ))
    } else {
        Err(msg.to_string())
    }
}

/// stdin from /dev/null; stdout and stderr into the job directory's log (cwd is the job directory).
fn redirect_stdio() -> Result<(), StepdError> {
    let null = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
        .map_err(|e| StepdError::Io("/dev/null", e))?;
    let log = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(LOG_FILE)
        .map_err(|e| StepdError::Io(LOG_FILE, e))?;
    dup2_stdin(&null).map_err(|e| StepdError::Detach("dup2", e))?;
    dup2_stdout(&log).map_err(|e| StepdError::Detach("dup2", e))?;
    dup2_stderr(&log).map_err(|e| StepdError::Detach("dup2", e))?;
    Ok(())
}

/// Closes every descriptor above stderr except `keep`: an inherited agent socket or pipe held open by a
/// long-lived job supervisor would confuse the agent (or its successor) for the whole job.
fn close_inherited_fds(keep: &[RawFd]) {
    let Ok(entries) = fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<RawFd> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|fd| *fd > 2 && !keep.contains(fd))
        .collect();
    for fd in fds {
        // SAFETY: nothing in this process owns these descriptors (they came from the agent); the read_dir
        // handle among them is already closed, which makes close fail harmlessly with EBADF.
        unsafe { libc::close(fd) };
    }
}

#[cfg(test)]
mod tests {
    use super::{read_verdict, report_verdict};

    #[test]
    fn verdicts() {
        assert_eq!(report_verdict("ok\n"), 0);
        assert_eq!(report_verdict("error: cannot bind\n"), 1);
        assert_eq!(report_verdict(""), 1);
        assert_eq!(read_verdict("ok\n"), Ok(()));
        assert_eq!(
            read_verdict("error: cannot bind\n"),
            Err("cannot bind".into())
        );
        assert!(read_verdict("").is_err_and(|m| m.contains("exited before it was ready")));
    }
}
