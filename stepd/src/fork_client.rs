//! The agent's side of `spurstepd --fork-server` (see [`crate::daemon::fork_server`]): one server per agent,
//! started on the first launch, asked to fork each batch job's supervisor.
//!
//! The server is a cache, never a dependency: when it cannot take a request the caller executes the supervisor
//! as before ([`crate::client::exec_supervisor`]). A server whose `spurstepd` binary was replaced on disk (an
//! upgrade) is retired before the next launch, so new jobs always get the installed supervisor.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::socket::{
    recv, setsockopt, socketpair, sockopt, AddressFamily, MsgFlags, SockFlag, SockType,
};
use nix::sys::time::{TimeVal, TimeValLike};
use nix::unistd::pipe2;

use crate::client::ClientError;
use crate::daemon::fork_server::{send_request, FORK_SERVER_ARG};
use crate::daemon::read_verdict;
use crate::files;

/// How long the server may take to answer that it forked (it answers before the supervisor starts its work).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// The agent's handle on its fork server.
pub struct ForkServer {
    binary: PathBuf,
    state: Mutex<State>,
}

enum State {
    NotStarted,
    Running(Server),
    /// The server could not be started or failed for this binary; executing supervisors until it changes.
    Off(BinaryStamp),
}

/// Identifies the `spurstepd` file on disk, so that a replaced binary is noticed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BinaryStamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
}

impl BinaryStamp {
    fn of(binary: &Path) -> io::Result<Self> {
        let m = std::fs::metadata(binary)?;
        Ok(BinaryStamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        })
    }
}

struct Server {
    child: Child,
    control: OwnedFd,
    stamp: BinaryStamp,
}

impl Server {
    fn spawn(binary: &Path, stamp: BinaryStamp) -> io::Result<Server> {
        let (control, server_end) = socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )?;
        setsockopt(
            &control,
            sockopt::ReceiveTimeout,
            &TimeVal::milliseconds(ANSWER_TIMEOUT.as_millis() as i64),
        )?;
        let child = Command::new(binary)
            .arg(FORK_SERVER_ARG)
            .stdin(Stdio::from(server_end))
            .stdout(Stdio::null())
            .spawn()?;
        Ok(Server {
            child,
            control,
            stamp,
        })
    }

    /// Sends the request for a supervisor of `job_dir`; returns the read end of its readiness pipe.
    fn send(&mut self, job_dir: &Path) -> io::Result<File> {
        let (read_end, write_end) = pipe2(OFlag::O_CLOEXEC)?;
        send_request(self.control.as_fd(), job_dir, &write_end)?;
        // Only the forked supervisor may hold the write end, or the verdict's end of file would never come.
        drop(write_end);
        Ok(File::from(read_end))
    }

    /// The server's answer to the request just sent: `Ok` once it forked.
    fn answer(&mut self) -> io::Result<()> {
        let mut answer = [0u8; 512];
        let n = loop {
            match recv(self.control.as_raw_fd(), &mut answer, MsgFlags::empty()) {
                Err(Errno::EINTR) => continue,
                other => break other?,
            }
        };
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "it exited without answering",
            ));
        }
        // `recv` never reports more than the buffer holds; were it to, nothing is taken.
        let answer = String::from_utf8_lossy(answer.get(..n).unwrap_or_default());
        match answer.strip_prefix("error: ") {
            Some(msg) => Err(io::Error::other(msg.to_string())),
            None => Ok(()),
        }
    }

    fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Supervisors it forked are in process groups of their own and are not its children's keepers: killing
        // the server touches none of them.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ForkServer {
    /// A handle that starts `binary --fork-server` on first use.
    pub fn new(binary: PathBuf) -> Self {
        ForkServer {
            binary,
            state: Mutex::new(State::NotStarted),
        }
    }

    /// Starts the supervisor of `job_dir`, whose launch spec is written, and returns its pid once it is ready.
    ///
    /// [`ClientError::ForkServer`] (the server just failed) and [`ClientError::ForkServerOff`] (it failed before,
    /// for this binary) mean no supervisor was started: the caller executes one instead. Any other error is the
    /// supervisor's own, as [`crate::client::exec_supervisor`] would have reported it.
    pub fn start(&self, job_dir: &Path) -> Result<u32, ClientError> {
        let (verdict_pipe, forked) = self.fork(job_dir)?;
        let mut verdict = String::new();
        let _ = (&verdict_pipe).read_to_string(&mut verdict);
        match (read_verdict(&verdict), forked) {
            (Ok(()), _) => {}
            // Nobody ever held the pipe's other end: the server went away before forking.
            (Err(_), Err(e)) if verdict.is_empty() => return Err(ClientError::ForkServer(e)),
            (Err(msg), _) => return Err(ClientError::NotReady(msg)),
        }
        files::read_pid_file(job_dir).ok_or_else(|| ClientError::NoPid(job_dir.to_path_buf()))
    }

    /// Has the server fork a supervisor: the readiness pipe, and whether the server answered that it forked.
    /// A server that did not answer is retired before this returns, so the pipe's end of file cannot hang.
    fn fork(&self, job_dir: &Path) -> Result<(File, io::Result<()>), ClientError> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let stamp = BinaryStamp::of(&self.binary).map_err(ClientError::ForkServer)?;
        let reusable = match &mut *state {
            State::Running(server) => server.stamp == stamp && server.is_running(),
            State::Off(off) if *off == stamp => return Err(ClientError::ForkServerOff),
            _ => false,
        };
        let (mut server, fresh) = match std::mem::replace(&mut *state, State::NotStarted) {
            State::Running(server) if reusable => (server, false),
            // Never started, replaced on disk, or gone: a fresh server (the old one, if any, is dropped).
            _ => match Server::spawn(&self.binary, stamp.clone()) {
                Ok(server) => (server, true),
                Err(e) => {
                    *state = State::Off(stamp);
                    return Err(ClientError::ForkServer(e));
                }
            },
        };
        // A server that fails on its first request will fail again: executing supervisors is left until the
        // binary changes. One that worked before (and was killed, say) is started anew next time.
        let after_failure = if fresh {
            State::Off(stamp)
        } else {
            State::NotStarted
        };
        let pipe = match server.send(job_dir) {
            Ok(pipe) => pipe,
            Err(e) => {
                *state = after_failure;
                return Err(ClientError::ForkServer(e));
            }
        };
        let answered = server.answer();
        if answered.is_ok() {
            *state = State::Running(server);
        } else {
            *state = after_failure;
            drop(server);
        }
        Ok((pipe, answered))
    }

    /// The server's pid, if one is running (for tests and diagnostics).
    pub fn server_pid(&self) -> Option<u32> {
        match &*self.state.lock().unwrap_or_else(|p| p.into_inner()) {
            State::Running(server) => Some(server.child.id()),
            _ => None,
        }
    }
}
