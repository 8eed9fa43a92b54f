//! The `spurstepd <job_dir>` program: validate the job directory, detach from the agent, set up the pid
//! file, signal handling and control socket, then supervise the batch script to its end.

mod child;
pub(crate) mod conn;
mod detach;
pub mod fork_server;
mod log;
mod node_script;
mod procs;
pub use procs::{signal_children, signal_descendants};
mod spawn;
mod supervise;

pub(crate) use detach::read_verdict;
pub use node_script::{epilog as node_epilog, prolog as node_prolog};

use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use nix::sys::signal::{signal, SigHandler, SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};

use crate::files::{self, read_json_opt, ReadError};
use log::slog;
use spur_core::wire::supervisor::{
    LaunchSpec, LAUNCH_FILE, PID_FILE, PROTOCOL_VERSION, RESULT_FILE, SOCKET_FILE, STARTED_FILE,
};
use supervise::Supervisor;

/// Why spurstepd could not take charge of a job directory.
#[derive(Debug, thiserror::Error)]
pub enum StepdError {
    #[error("usage: spurstepd <job_dir>")]
    Usage,
    #[error("cannot use job directory {path}: {source}")]
    JobDir { path: PathBuf, source: io::Error },
    #[error("{0} already holds a result; refusing to run the job again")]
    AlreadyFinished(PathBuf),
    #[error("a spurstepd (pid {pid}) already supervises {dir}")]
    AlreadyRunning { pid: u32, dir: PathBuf },
    #[error("no {LAUNCH_FILE} in {0}")]
    NoLaunchSpec(PathBuf),
    #[error(transparent)]
    LaunchSpec(#[from] ReadError),
    #[error(
        "{LAUNCH_FILE} has version {0}; this spurstepd understands version {PROTOCOL_VERSION}"
    )]
    Version(u32),
    #[error("{0} failed while detaching: {1}")]
    Detach(&'static str, nix::errno::Errno),
    #[error("{0}: {1}")]
    Io(&'static str, io::Error),
    #[error("{0}: {1}")]
    Sys(&'static str, nix::errno::Errno),
}

/// Entry point of the binary; returns the process exit status.
pub fn main_entry(args: impl IntoIterator<Item = OsString>) -> i32 {
    let mut args = args.into_iter().skip(1);
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("spurstepd: error: {}", StepdError::Usage);
        return 2;
    };
    let (job_dir, spec) = match prepare(Path::new(&dir)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("spurstepd: error: {e}");
            return 1;
        }
    };
    let ready = match detach::daemonize(&job_dir) {
        Ok(r) => r,
        Err(e) => {
            // Only the first fork can fail visibly; later failures reach the launcher through the pipe
            // being closed without a verdict, and this line lands in whatever stderr we still have.
            eprintln!("spurstepd: error: {e}");
            return 1;
        }
    };
    supervise(&job_dir, spec, ready)
}

/// The daemon's life, from settling in the job directory to the job's end, however it was started.
fn supervise(job_dir: &Path, spec: LaunchSpec, ready: detach::ReadyPipe) -> i32 {
    slog!("supervising job {} in {}", spec.job_id, job_dir.display());
    match setup(spec) {
        Ok(sup) => {
            ready.ready();
            sup.run()
        }
        Err(e) => {
            slog!("setup failed: {e}");
            ready.fail(&e.to_string());
            let _ = fs::remove_file(SOCKET_FILE);
            1
        }
    }
}

/// Checks the job directory and reads the launch spec, before detaching so that errors reach the caller.
fn prepare(dir: &Path) -> Result<(PathBuf, LaunchSpec), StepdError> {
    let job_dir = fs::canonicalize(dir)
        .and_then(|d| {
            if d.is_dir() {
                Ok(d)
            } else {
                Err(io::Error::from(io::ErrorKind::NotADirectory))
            }
        })
        .map_err(|source| StepdError::JobDir {
            path: dir.to_path_buf(),
            source,
        })?;
    if job_dir.join(RESULT_FILE).exists() {
        return Err(StepdError::AlreadyFinished(job_dir));
    }
    if let Some(pid) = files::read_pid_file(&job_dir).filter(|&p| files::is_stepd_for(p, &job_dir))
    {
        return Err(StepdError::AlreadyRunning { pid, dir: job_dir });
    }
    let spec: LaunchSpec = read_json_opt(&job_dir.join(LAUNCH_FILE))?
        .ok_or_else(|| StepdError::NoLaunchSpec(job_dir.clone()))?;
    if spec.version != PROTOCOL_VERSION {
        return Err(StepdError::Version(spec.version));
    }
    // Leftovers of a supervisor that died mid-job would confuse the agent about this run.
    for stale in [STARTED_FILE, SOCKET_FILE] {
        let _ = fs::remove_file(job_dir.join(stale));
    }
    Ok((job_dir, spec))
}

/// Runs in the detached daemon, whose working directory is the job directory.
fn setup(spec: LaunchSpec) -> Result<Supervisor, StepdError> {
    files::write_atomic(
        Path::new(PID_FILE),
        format!("{}\n", std::process::id()).as_bytes(),
        0o644,
    )
    .map_err(|e| StepdError::Io(PID_FILE, e))?;
    // Orphans of the job get reparented to us instead of init, so we can still find and kill them.
    nix::sys::prctl::set_child_subreaper(true)
        .map_err(|e| StepdError::Sys("PR_SET_CHILD_SUBREAPER", e))?;
    let sigfd = setup_signals()?;
    let listener = bind_socket()?;
    Ok(Supervisor {
        spec,
        euid: nix::unistd::geteuid().as_raw(),
        sigfd,
        listener,
    })
}

/// SIGCHLD (and the usual termination signals, which the supervisor ignores but logs) arrive on a
/// signalfd; broken pipes from departed clients are plain errors.
fn setup_signals() -> Result<SignalFd, StepdError> {
    // SAFETY: SIG_IGN installs no handler code.
    unsafe { signal(Signal::SIGPIPE, SigHandler::SigIgn) }
        .map_err(|e| StepdError::Sys("signal", e))?;
    let mut mask = SigSet::empty();
    for s in [
        Signal::SIGCHLD,
        Signal::SIGHUP,
        Signal::SIGINT,
        Signal::SIGTERM,
    ] {
        mask.add(s);
    }
    mask.thread_block()
        .map_err(|e| StepdError::Sys("sigprocmask", e))?;
    SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
        .map_err(|e| StepdError::Sys("signalfd", e))
}

/// Binds `ctl.sock` by its relative name (the cwd is the job directory), which also sidesteps the
/// 108-byte limit of socket paths. Anyone may connect; requests are checked against the peer's uid.
fn bind_socket() -> Result<UnixListener, StepdError> {
    let _ = fs::remove_file(SOCKET_FILE);
    let listener =
        UnixListener::bind(SOCKET_FILE).map_err(|e| StepdError::Io("bind ctl.sock", e))?;
    fs::set_permissions(SOCKET_FILE, fs::Permissions::from_mode(0o666))
        .map_err(|e| StepdError::Io("chmod ctl.sock", e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| StepdError::Io("ctl.sock", e))?;
    Ok(listener)
}
