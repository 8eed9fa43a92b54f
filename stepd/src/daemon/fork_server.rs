//! `spurstepd --fork-server`: a small single-threaded process the agent keeps beside it, which forks each batch
//! job's supervisor instead of the agent executing `spurstepd <job_dir>` anew.
//!
//! Executing the supervisor cost each job a new program image: the kernel's exec, the dynamic loader's
//! relocations, glibc's start-up CPU probes (each `cpuid` a trap to the hypervisor on a VM), the page faults of a
//! fresh image and the exit of the process that detached. A fork of this idle process is a fraction of that, and
//! the supervisor it makes runs the very code `spurstepd <job_dir>` runs once detached.
//!
//! The protocol, on a `SOCK_SEQPACKET` socket that is the server's stdin: the agent sends the job directory's
//! path with the write end of a pipe attached (`SCM_RIGHTS`); the server forks, answers the child's pid (or
//! `error: ...`), and the child reports ready or failed through the pipe, exactly as a detaching `spurstepd`
//! does. The server ends when the agent closes its end, so an agent that stops or crashes takes it along; the
//! supervisors it forked live on, in process groups of their own.

use std::ffi::OsString;
use std::io::{IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::sys::signal::{signal, SigHandler, Signal};
use nix::sys::socket::{recvmsg, send, ControlMessageOwned, MsgFlags};
use nix::unistd::{fork, setpgid, setsid, ForkResult, Pid};

use super::detach::{self, ReadyPipe};
use super::{prepare, supervise};
use crate::files::proc_stat_field;

/// The argument that makes `spurstepd` a fork server.
pub const FORK_SERVER_ARG: &str = "--fork-server";

/// The longest request: a job directory's path.
pub const MAX_REQUEST: usize = 4096;

/// Entry point of `spurstepd --fork-server`; returns the process exit status when the agent goes away.
pub fn main_entry() -> i32 {
    // SAFETY: fd 0 is the agent's socket for the life of this process; nothing else closes it.
    let control = unsafe { BorrowedFd::borrow_raw(0) };
    // Out of the agent's session and process group: a terminal's ^C or a signal to the agent's group is not
    // for us, and the supervisors forked here inherit this session without leading it, so none of them can
    // ever acquire a controlling terminal.
    let _ = setsid();
    // The kernel reaps the supervisors when they end; each restores the default at once, for its own children.
    // SAFETY: SIG_IGN installs no handler code.
    if let Err(e) = unsafe { signal(Signal::SIGCHLD, SigHandler::SigIgn) } {
        eprintln!("spurstepd: fork server: cannot ignore SIGCHLD: {e}");
        return 1;
    }
    loop {
        let (dir, ready) = match receive(control) {
            Ok(Some(request)) => request,
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("spurstepd: fork server: {e}");
                return 1;
            }
        };
        let answer = match ready {
            None => "error: the request carried no readiness pipe".to_string(),
            // SAFETY: this process is single-threaded, so the child may run arbitrary code.
            Some(ready) => match unsafe { fork() } {
                Ok(ForkResult::Child) => std::process::exit(run_forked(control, &dir, ready)),
                Ok(ForkResult::Parent { child }) => child.to_string(),
                Err(e) => format!("error: fork: {e}"),
            },
        };
        if let Err(e) = send(
            control.as_raw_fd(),
            answer.as_bytes(),
            MsgFlags::MSG_NOSIGNAL,
        ) {
            eprintln!("spurstepd: fork server: cannot answer the agent: {e}");
            return 1;
        }
    }
}

/// One request: the job directory and the pipe to report through. `None` when the agent closed its end.
fn receive(control: BorrowedFd) -> Result<Option<(PathBuf, Option<OwnedFd>)>, Errno> {
    let mut buf = vec![0u8; MAX_REQUEST];
    let mut space = nix::cmsg_space!([RawFd; 4]);
    loop {
        let mut iov = [IoSliceMut::new(&mut buf)];
        let msg = match recvmsg::<()>(
            control.as_raw_fd(),
            &mut iov,
            Some(&mut space),
            MsgFlags::MSG_CMSG_CLOEXEC,
        ) {
            Ok(msg) => msg,
            Err(Errno::EINTR) => continue,
            Err(e) => return Err(e),
        };
        let mut fds = Vec::new();
        for cmsg in msg.cmsgs()? {
            if let ControlMessageOwned::ScmRights(received) = cmsg {
                // SAFETY: the kernel just installed these descriptors in this process; nothing else owns them.
                fds.extend(
                    received
                        .into_iter()
                        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
                );
            }
        }
        let len = msg.bytes;
        let truncated = msg.flags.contains(MsgFlags::MSG_TRUNC);
        if len == 0 && fds.is_empty() {
            return Ok(None);
        }
        // The kernel never reports more bytes than the buffer holds; a length past it counts as malformed.
        let request = buf.get(..len).filter(|_| !truncated && fds.len() == 1);
        let Some(request) = request else {
            // A malformed request gets an error answer; whatever descriptors came with it are closed.
            return Ok(Some((PathBuf::new(), None)));
        };
        let dir = PathBuf::from(OsString::from_vec(request.to_vec()));
        return Ok(Some((dir, fds.pop())));
    }
}

/// The forked supervisor: what `spurstepd <job_dir>` does, its errors going through the pipe.
fn run_forked(control: BorrowedFd, dir: &Path, ready: OwnedFd) -> i32 {
    // SAFETY: SIG_DFL installs no handler code.
    let _ = unsafe { signal(Signal::SIGCHLD, SigHandler::SigDfl) };
    // A process group of its own, so that no signal meant for another job's supervisor reaches this one.
    let _ = setpgid(Pid::from_raw(0), Pid::from_raw(0));
    // SAFETY: the server's socket is not this process's to use; settling in would close it anyway.
    unsafe { libc::close(control.as_raw_fd()) };
    let ready = ReadyPipe::from_fd(ready);
    let (job_dir, spec) = match prepare(dir) {
        Ok(prepared) => prepared,
        Err(e) => {
            ready.fail(&e.to_string());
            return 1;
        }
    };
    if let Err(e) = detach::settle_in(&job_dir, &ready) {
        ready.fail(&e.to_string());
        return 1;
    }
    retitle(&job_dir);
    supervise(&job_dir, spec, ready)
}

/// Makes `ps` show `spurstepd <job_dir>`, as for a supervisor the agent executed, rather than the server's
/// command line. Needs CAP_SYS_RESOURCE (root has it, unless a container dropped it); without it the server's
/// title stays, and the job directory is still the supervisor's working directory (`/proc/PID/cwd`), which is
/// what the agent goes by.
fn retitle(job_dir: &Path) {
    let mut text = std::env::args_os()
        .next()
        .unwrap_or_else(|| "spurstepd".into())
        .into_vec();
    text.push(0);
    text.extend_from_slice(job_dir.as_os_str().as_bytes());
    text.push(0);
    // The kernel reads the command line from this memory for as long as the process lives.
    let text: &'static [u8] = Box::leak(text.into_boxed_slice());
    let start = text.as_ptr() as libc::c_ulong;
    let end = start + text.len() as libc::c_ulong;
    let set = |what: libc::c_int, addr: libc::c_ulong| {
        // SAFETY: PR_SET_MM only records addresses; they point into memory this process keeps (leaked above).
        unsafe { libc::prctl(libc::PR_SET_MM, what as libc::c_ulong, addr, 0, 0) == 0 }
    };
    let (old_start, old_end) = match current_arg_bounds() {
        Some(bounds) => bounds,
        None => return,
    };
    // The kernel keeps start <= end after each call, so the bound moving toward the other goes second.
    let ((first, first_addr, first_old), (second, second_addr)) = if start > old_end {
        (
            (libc::PR_SET_MM_ARG_END, end, old_end),
            (libc::PR_SET_MM_ARG_START, start),
        )
    } else {
        (
            (libc::PR_SET_MM_ARG_START, start, old_start),
            (libc::PR_SET_MM_ARG_END, end),
        )
    };
    if set(first, first_addr) && !set(second, second_addr) {
        set(first, first_old);
    }
}

/// `arg_start` and `arg_end` of this process (fields 48 and 49 of `/proc/self/stat`).
fn current_arg_bounds() -> Option<(libc::c_ulong, libc::c_ulong)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let start = proc_stat_field(&stat, 48)?.parse().ok()?;
    let end = proc_stat_field(&stat, 49)?.parse().ok()?;
    Some((start, end))
}

/// Sends one request on the agent's side: `job_dir` with `ready` (the pipe's write end) attached.
pub(crate) fn send_request(
    control: BorrowedFd,
    job_dir: &Path,
    ready: &OwnedFd,
) -> Result<(), Errno> {
    use nix::sys::socket::{sendmsg, ControlMessage};
    let bytes = job_dir.as_os_str().as_bytes();
    if bytes.len() > MAX_REQUEST {
        return Err(Errno::ENAMETOOLONG);
    }
    let fds = [ready.as_raw_fd()];
    let cmsgs = [ControlMessage::ScmRights(&fds)];
    loop {
        match sendmsg::<()>(
            control.as_raw_fd(),
            &[IoSlice::new(bytes)],
            &cmsgs,
            MsgFlags::MSG_NOSIGNAL,
            None,
        ) {
            Err(Errno::EINTR) => continue,
            other => return other.map(|_| ()),
        }
    }
}
