//! The agent's side of the protocol: start a supervisor for a job directory, talk to it, and read what it
//! left behind. Nothing here keeps state in memory, so a restarted agent can pick up any job directory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::files::{self, ReadError};
use spur_core::wire::supervisor::{
    JobResult, LaunchSpec, Request, RequestEnvelope, Response, ResponseEnvelope, Started,
    LAUNCH_FILE, PROTOCOL_VERSION, RESULT_FILE, SOCKET_FILE, STARTED_FILE,
};

/// How long [`send_request`] waits for the supervisor to answer.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest path `sockaddr_un` accepts, without the terminating NUL.
const SUN_PATH_MAX: usize = 107;

/// Errors of the agent-side functions.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot write {path}: {source}")]
    WriteLaunch { path: PathBuf, source: io::Error },
    #[error("cannot run {binary}: {source}")]
    Spawn { binary: PathBuf, source: io::Error },
    #[error("spurstepd failed ({status}): {stderr}")]
    StepdFailed {
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("spurstepd: {0}")]
    NotReady(String),
    #[error("the spurstepd fork server failed: {0}")]
    ForkServer(io::Error),
    #[error("the spurstepd fork server is unavailable for this spurstepd binary")]
    ForkServerOff,
    #[error("spurstepd started but left no readable pid file in {0}")]
    NoPid(PathBuf),
    #[error("cannot reach spurstepd at {path}: {source}")]
    Connect { path: PathBuf, source: io::Error },
    #[error("spurstepd request failed: {0}")]
    Io(#[from] io::Error),
    #[error("spurstepd closed the connection without answering")]
    NoAnswer,
    #[error("malformed answer from spurstepd: {0}")]
    BadAnswer(serde_json::Error),
    #[error("spurstepd speaks protocol version {0}, this agent version {PROTOCOL_VERSION}")]
    Version(u32),
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// Writes `<job_dir>/launch.json` and runs `stepd_binary <job_dir>`, which detaches and returns once the
/// supervisor listens on its socket. Returns the supervisor's pid. The script must already be in place.
pub fn launch(job_dir: &Path, spec: &LaunchSpec, stepd_binary: &Path) -> Result<u32, ClientError> {
    write_launch_spec(job_dir, spec)?;
    exec_supervisor(job_dir, stepd_binary)
}

/// Writes `<job_dir>/launch.json`, which the supervisor reads as it starts.
pub fn write_launch_spec(job_dir: &Path, spec: &LaunchSpec) -> Result<(), ClientError> {
    let launch_path = job_dir.join(LAUNCH_FILE);
    files::write_json_atomic(&launch_path, spec, 0o600).map_err(|source| ClientError::WriteLaunch {
        path: launch_path,
        source,
    })
}

/// Runs `stepd_binary <job_dir>` for a job directory whose launch spec is written, and returns the supervisor's
/// pid once it is ready.
pub fn exec_supervisor(job_dir: &Path, stepd_binary: &Path) -> Result<u32, ClientError> {
    let out = Command::new(stepd_binary)
        .arg(job_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| ClientError::Spawn {
            binary: stepd_binary.to_path_buf(),
            source,
        })?;
    if !out.status.success() {
        return Err(ClientError::StepdFailed {
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    files::read_pid_file(job_dir).ok_or_else(|| ClientError::NoPid(job_dir.to_path_buf()))
}

/// Starts `stepd_binary --step` for one node's tasks of an srun step, its log going to `log_path`; it runs in a
/// process group of its own, so it outlives the agent, which only reaps it. Returns the supervisor's pid.
/// Starts a step supervisor. `pid_path` records its pid while it runs (removed when it ends under this process),
/// so the agent can reach its tasks with signals, after an agent restart too.
pub fn launch_step(
    spec: &crate::step_tasks::StepSupervisorSpec,
    stepd_binary: &Path,
    log_path: &Path,
    pid_path: &Path,
) -> Result<u32, ClientError> {
    use std::os::unix::process::CommandExt;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_path)
        .map_err(|source| ClientError::WriteLaunch {
            path: log_path.to_path_buf(),
            source,
        })?;
    let spawn_error = |source| ClientError::Spawn {
        binary: stepd_binary.to_path_buf(),
        source,
    };
    let mut child = Command::new(stepd_binary)
        .arg("--step")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .map_err(spawn_error)?;
    let text = serde_json::to_vec(spec).map_err(|e| ClientError::Io(io::Error::other(e)))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&text)?;
    }
    let pid = child.id();
    if let Err(e) = std::fs::write(pid_path, format!("{pid}\n")) {
        eprintln!(
            "spurd: cannot record step supervisor {pid} in {}: {e}",
            pid_path.display()
        );
    }
    let log_path = log_path.to_path_buf();
    let pid_path = pid_path.to_path_buf();
    std::thread::spawn(move || {
        let _ = child.wait();
        let _ = std::fs::remove_file(&pid_path);
        // A supervisor that had nothing to complain about leaves no log behind.
        if std::fs::metadata(&log_path).is_ok_and(|m| m.len() == 0) {
            let _ = std::fs::remove_file(&log_path);
        }
    });
    Ok(pid)
}

/// Sends one request to the job's supervisor and returns its answer. A refusal (wrong user, job already
/// over) comes back as `Ok(Response::Error { .. })`.
pub fn send_request(job_dir: &Path, request: &Request) -> Result<Response, ClientError> {
    let stream = connect(job_dir)?;
    stream.set_read_timeout(Some(REQUEST_TIMEOUT))?;
    stream.set_write_timeout(Some(REQUEST_TIMEOUT))?;
    let envelope = RequestEnvelope {
        version: PROTOCOL_VERSION,
        request: request.clone(),
    };
    let mut line = serde_json::to_vec(&envelope).map_err(io::Error::other)?;
    line.push(b'\n');
    (&stream).write_all(&line)?;
    let mut answer = String::new();
    BufReader::new(&stream).read_line(&mut answer)?;
    if answer.is_empty() {
        return Err(ClientError::NoAnswer);
    }
    let envelope: ResponseEnvelope =
        serde_json::from_str(&answer).map_err(ClientError::BadAnswer)?;
    if envelope.version != PROTOCOL_VERSION {
        return Err(ClientError::Version(envelope.version));
    }
    Ok(envelope.response)
}

fn connect(job_dir: &Path) -> Result<UnixStream, ClientError> {
    let path = job_dir.join(SOCKET_FILE);
    let connected = if path.as_os_str().as_bytes().len() <= SUN_PATH_MAX {
        UnixStream::connect(&path)
    } else {
        // Too long for sockaddr_un: reach the socket through a short /proc path to an open directory.
        File::open(job_dir).and_then(|dir| {
            UnixStream::connect(format!("/proc/self/fd/{}/{SOCKET_FILE}", dir.as_raw_fd()))
        })
    };
    connected.map_err(|source| ClientError::Connect { path, source })
}

/// The job's result, once the supervisor has finished.
pub fn read_result(job_dir: &Path) -> Result<Option<JobResult>, ClientError> {
    Ok(files::read_json_opt(&job_dir.join(RESULT_FILE))?)
}

/// The script's pid and start time, once it has been started.
pub fn read_started(job_dir: &Path) -> Result<Option<Started>, ClientError> {
    Ok(files::read_json_opt(&job_dir.join(STARTED_FILE))?)
}

/// True while a spurstepd supervises this job directory (per `stepd.pid` and `/proc`).
pub fn is_alive(job_dir: &Path) -> bool {
    files::read_pid_file(job_dir).is_some_and(|pid| files::is_stepd_for(pid, job_dir))
}

/// Runs one node's part of an sbcast (`spurstepd --bcast`, which becomes the job's owner first) and waits for it.
pub fn bcast(spec: &crate::bcast::BcastSpec, stepd_binary: &Path) -> Result<(), ClientError> {
    let mut child = Command::new(stepd_binary)
        .arg("--bcast")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|source| ClientError::Spawn {
            binary: stepd_binary.to_path_buf(),
            source,
        })?;
    let text = serde_json::to_vec(spec).map_err(|e| ClientError::Io(io::Error::other(e)))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&text)?;
    }
    let status = child.wait()?;
    if status.success() {
        Ok(())
    } else {
        Err(ClientError::Io(io::Error::other(format!(
            "spurstepd --bcast ended with {status}"
        ))))
    }
}
