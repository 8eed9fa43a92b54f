//! The supervisor's event loop: one thread polling a signalfd (SIGCHLD), the control socket and its client
//! connections, with timers for the SIGTERM→SIGKILL grace and the final clean-up. Staying single-threaded
//! keeps `fork` in [`super::spawn`] safe.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsFd;
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signalfd::SignalFd;
use nix::unistd::Pid;

use super::conn::{self, Conn, MAX_CONNS};
use super::log::{now_epoch, slog};
use super::node_script;
use super::procs;
use super::spawn::{spawn_job, Spawned};
use crate::cgroup::{self, JobCgroups};
use crate::files::write_json_atomic;
use crate::gather::Gather;
use crate::messages;
use spur_core::model::step_usage::StepRef;
use spur_core::wire::supervisor::{
    wake_message, JobResult, LaunchSpec, Outcome, Request, Response, SignalScope, Started,
    TerminateReason, ACCESS_DENIED, ALREADY_DONE, INVALID_SIGNAL, PROTOCOL_VERSION, RESULT_FILE,
    SOCKET_FILE, STARTED_FILE, WAKE_SOCKET,
};

/// How long processes may linger after the script ended (and after SIGKILL) before stepd gives up on them
/// and reports anyway; only processes stuck in the kernel survive SIGKILL that long.
const CLEANUP_GRACE: Duration = Duration::from_secs(10);

/// Poll interval while waiting for leftover processes to disappear.
const CLEANUP_TICK: Duration = Duration::from_millis(50);

enum Script {
    Running,
    Exited { status: i32 },
}

struct Terminating {
    reason: TerminateReason,
    kill_at: Instant,
    killed: bool,
}

/// Everything the running supervisor owns.
pub(crate) struct Supervisor {
    pub(crate) spec: LaunchSpec,
    pub(crate) euid: u32,
    pub(crate) sigfd: SignalFd,
    pub(crate) listener: UnixListener,
}

struct Job {
    pid: Pid,
    start_time: i64,
    stderr: File,
    exec_error: Option<String>,
    script: Script,
    terminating: Option<Terminating>,
    /// Slurm's stepd prints the `*** JOB n ON node CANCELLED AT ... ***` line once per job, whichever request
    /// (termination, or a plain SIGTERM/SIGKILL from `scancel -s`) comes first.
    cancel_line_written: bool,
    cleanup_deadline: Option<Instant>,
}

impl Supervisor {
    /// Starts the script, supervises it to the end, writes `result.json`. Returns the process exit code.
    pub(crate) fn run(self) -> i32 {
        if let Err(message) = node_script::run_prolog(&self.spec) {
            slog!("job {} prolog failed: {message}", self.spec.job_id);
            let result = JobResult {
                outcome: Outcome::PrologFailed { message },
                ..launch_failed_result(self.spec.job_id, String::new())
            };
            let result = node_script::run_epilog(&self.spec, result);
            return finish(&result);
        }
        let cgroups = match self.setup_cgroups() {
            Ok(cgroups) => cgroups,
            Err(message) => {
                slog!("job {} not started: {message}", self.spec.job_id);
                let result = launch_failed_result(self.spec.job_id, message);
                let result = node_script::run_epilog(&self.spec, result);
                return finish(&result);
            }
        };
        // Before the script starts, so that its usage is told from what the supervisor ran earlier.
        let gather = self.spec.acct_gather.map(|settings| {
            Gather::new(
                settings,
                &self.spec.node_name,
                self.spec.job_id,
                self.spec.uid,
                StepRef::Batch,
            )
        });
        let spawned = spawn_job(&self.spec, self.euid, cgroups.as_ref());
        let result = match spawned {
            Spawned::LaunchFailed(message) => {
                slog!("job {} launch failed: {message}", self.spec.job_id);
                remove_cgroups(cgroups);
                launch_failed_result(self.spec.job_id, message)
            }
            Spawned::Started {
                pid,
                stderr,
                exec_error,
            } => {
                let job = Job {
                    pid,
                    start_time: now_epoch(),
                    stderr,
                    exec_error,
                    script: Script::Running,
                    terminating: None,
                    cancel_line_written: false,
                    cleanup_deadline: None,
                };
                slog!("job {} started as pid {pid}", self.spec.job_id);
                self.write_started(&job);
                let mut running = Running {
                    sup: self,
                    job,
                    conns: Vec::new(),
                    gather,
                };
                running.event_loop();
                let oom_kills = cgroups.as_ref().map_or(0, JobCgroups::oom_kills);
                if oom_kills > 0 {
                    running.write_oom_line(oom_kills);
                }
                remove_cgroups(cgroups);
                let result = running.result(oom_kills > 0);
                // Stop listening before the result appears: from then on a client's connect fails at once
                // instead of waiting on a supervisor that no longer reads.
                let spec = running.sup.spec.clone();
                drop(running);
                // The job stays COMPLETING until its epilogs are done, as under slurmd.
                if result.start_time.is_some() {
                    node_script::run_task_epilog(&spec);
                }
                let result = node_script::run_epilog(&spec, result);
                return finish(&result);
            }
        };
        let result = node_script::run_epilog(&self.spec, result);
        finish(&result)
    }

    /// Makes the job's cgroups before anything of the job runs; what cannot be enforced is logged and the job
    /// runs anyway, unless confinement is required (then the reason it cannot start).
    fn setup_cgroups(&self) -> Result<Option<JobCgroups>, String> {
        let Some(spec) = self.spec.cgroup.as_ref() else {
            return Ok(None);
        };
        let hierarchy = cgroup::Hierarchy::detect();
        let setup = cgroup::create(
            hierarchy.as_ref(),
            spec,
            &self.spec.node_name,
            self.spec.uid,
            self.spec.job_id,
            cgroup::BATCH_STEP,
        );
        for warning in &setup.warnings {
            slog!("warning: {warning}");
        }
        if let Some(c) = &setup.cgroups {
            slog!("job {} confined to {:?}", self.spec.job_id, c.step_dirs());
        }
        setup.enforced(spec, true)
    }

    fn write_started(&self, job: &Job) {
        let started = Started {
            version: PROTOCOL_VERSION,
            job_id: self.spec.job_id,
            pid: pid_u32(job.pid),
            start_time: job.start_time,
        };
        if let Err(e) = write_json_atomic(Path::new(STARTED_FILE), &started, 0o644) {
            slog!("cannot write {STARTED_FILE}: {e}");
        }
    }
}

/// Writes the result, removes the socket, and picks the supervisor's exit code.
fn finish(result: &JobResult) -> i32 {
    let written = write_json_atomic(Path::new(RESULT_FILE), result, 0o644);
    let _ = std::fs::remove_file(SOCKET_FILE);
    if written.is_ok() {
        wake_agent(result.job_id);
    }
    match written {
        Ok(()) => {
            slog!("job {} done: {:?}", result.job_id, result.outcome);
            0
        }
        Err(e) => {
            slog!("cannot write {RESULT_FILE}: {e}");
            1
        }
    }
}

/// Tells the agent a result is there (see [`WAKE_SOCKET`]); the supervisor runs in its job directory, so the
/// socket is one level up. No agent listening is fine: its scan finds the result later.
fn wake_agent(job_id: u32) {
    if let Ok(socket) = std::os::unix::net::UnixDatagram::unbound() {
        let _ = socket.send_to(&wake_message(job_id), Path::new("..").join(WAKE_SOCKET));
    }
}

fn remove_cgroups(cgroups: Option<JobCgroups>) {
    for failure in cgroups.map(JobCgroups::remove).unwrap_or_default() {
        slog!("warning: cannot remove cgroup {failure}");
    }
}

fn launch_failed_result(job_id: u32, message: String) -> JobResult {
    JobResult {
        version: PROTOCOL_VERSION,
        job_id,
        pid: None,
        wait_status: None,
        exit_code: None,
        signal: None,
        core_dumped: false,
        start_time: None,
        end_time: now_epoch(),
        outcome: Outcome::LaunchFailed { message },
        message: None,
        epilog_failed: false,
        usage: None,
    }
}

fn pid_u32(pid: Pid) -> u32 {
    u32::try_from(pid.as_raw()).unwrap_or(0)
}

/// Decodes a raw wait status into (exit code, signal, core dumped).
pub(crate) fn decode_status(status: i32) -> (Option<i32>, Option<i32>, bool) {
    if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None, false)
    } else if libc::WIFSIGNALED(status) {
        (None, Some(libc::WTERMSIG(status)), libc::WCOREDUMP(status))
    } else {
        (None, None, false)
    }
}

/// A terminate request decides the outcome whatever the exit status; then an OOM kill in the job's memory
/// cgroup (Slurm reports it even when the script went on and exited 0); otherwise exit code 0 completes.
pub(crate) fn decide_outcome(
    status: i32,
    terminated: Option<TerminateReason>,
    oom_killed: bool,
) -> Outcome {
    if let Some(reason) = terminated {
        return reason.outcome();
    }
    if oom_killed {
        return Outcome::OutOfMemory;
    }
    match decode_status(status) {
        (Some(0), _, _) => Outcome::Completed,
        _ => Outcome::Failed,
    }
}

struct Running {
    sup: Supervisor,
    job: Job,
    conns: Vec<Conn>,
    /// The batch step's usage sampling (`jobacct_gather`), when slurm.conf asks for it.
    gather: Option<Gather>,
}

impl Running {
    fn event_loop(&mut self) {
        while !self.finished() {
            let revents = self.poll_once();
            // poll_once always answers for the signalfd and the listener first.
            let Some([signals, listener, conns @ ..]) = revents.as_deref() else {
                continue;
            };
            if signals.intersects(PollFlags::POLLIN) {
                self.drain_signals();
            }
            if listener.intersects(PollFlags::POLLIN) {
                self.accept();
            }
            for (i, ev) in conns.iter().enumerate() {
                if ev.intersects(PollFlags::POLLIN | PollFlags::POLLHUP | PollFlags::POLLERR) {
                    self.serve(i);
                }
                if ev.intersects(PollFlags::POLLOUT) {
                    if let Some(c) = self.conns.get_mut(i) {
                        c.flush();
                    }
                }
            }
            let now = Instant::now();
            self.conns.retain(|c| !c.is_done() && !c.is_idle(now));
            self.tick();
        }
    }

    /// Waits for events; the returned flags are in the order signalfd, listener, connections.
    fn poll_once(&mut self) -> Option<Vec<PollFlags>> {
        let timeout = self.timeout();
        let mut fds = vec![
            PollFd::new(self.sup.sigfd.as_fd(), PollFlags::POLLIN),
            PollFd::new(self.sup.listener.as_fd(), PollFlags::POLLIN),
        ];
        fds.extend(self.conns.iter().map(|c| PollFd::new(c.fd(), c.interest())));
        match poll(&mut fds, timeout) {
            Ok(_) => Some(
                fds.iter()
                    .map(|f| f.revents().unwrap_or(PollFlags::empty()))
                    .collect(),
            ),
            Err(Errno::EINTR) => None,
            Err(e) => {
                slog!("poll: {e}");
                std::thread::sleep(CLEANUP_TICK);
                None
            }
        }
    }

    fn timeout(&self) -> PollTimeout {
        let now = Instant::now();
        let mut wake_at = match (&self.job.script, &self.job.terminating) {
            (Script::Exited { .. }, _) => Some(now + CLEANUP_TICK),
            (Script::Running, Some(t)) if !t.killed => Some(t.kill_at),
            _ => None,
        };
        if let (Script::Running, Some(sample_at)) = (
            &self.job.script,
            self.gather.as_ref().and_then(Gather::next_at),
        ) {
            wake_at = Some(wake_at.map_or(sample_at, |w| w.min(sample_at)));
        }
        if !self.conns.is_empty() {
            // Wake up now and then to drop idle connections.
            let idle_check = now + Duration::from_secs(1);
            wake_at = Some(wake_at.map_or(idle_check, |w| w.min(idle_check)));
        }
        wake_at.map_or(PollTimeout::NONE, |w| {
            millis(w.saturating_duration_since(now))
        })
    }

    fn drain_signals(&mut self) {
        loop {
            match self.sup.sigfd.read_signal() {
                Ok(Some(info)) => {
                    let signo = i32::try_from(info.ssi_signo).unwrap_or(0);
                    if signo != libc::SIGCHLD {
                        slog!("ignoring signal {signo} sent to the supervisor");
                    }
                }
                Ok(None) => break,
                Err(Errno::EINTR) => {}
                Err(e) => {
                    slog!("signalfd: {e}");
                    break;
                }
            }
        }
        // One SIGCHLD may stand for several children, so reap until none is left waiting.
        while let Some((pid, status)) = procs::reap_any() {
            if pid == self.job.pid {
                self.on_script_exit(status);
            }
        }
    }

    fn on_script_exit(&mut self, status: i32) {
        slog!("script pid {} ended, wait status {status:#x}", self.job.pid);
        self.job.script = Script::Exited { status };
        let now = Instant::now();
        let grace_from = match &self.job.terminating {
            Some(t) if !t.killed => t.kill_at.max(now),
            _ => now,
        };
        self.job.cleanup_deadline = Some(grace_from + CLEANUP_GRACE);
        if self.job.terminating.is_none() {
            // Like Slurm, the end of the batch script ends the job: nothing it left behind may linger.
            let _ = procs::signal_all(self.job.pid, libc::SIGKILL);
        }
    }

    fn tick(&mut self) {
        let now = Instant::now();
        if let (Script::Running, Some(gather)) = (&self.job.script, self.gather.as_mut()) {
            gather.due(now);
        }
        let pid = self.job.pid;
        if let Some(t) = &mut self.job.terminating {
            if !t.killed && now >= t.kill_at {
                t.killed = true;
                if self.job_alive() {
                    slog!("processes survived SIGTERM, sending SIGKILL");
                    let _ = procs::signal_all(pid, libc::SIGKILL);
                }
            }
        }
        let may_kill = self.job.terminating.as_ref().is_none_or(|t| t.killed);
        if matches!(self.job.script, Script::Exited { .. }) && may_kill && self.job_alive() {
            // Orphans keep getting reparented to us while their parents die; keep sweeping.
            let _ = procs::signal_all(pid, libc::SIGKILL);
            // Reparented orphans that die do not always come with a SIGCHLD we have not drained yet.
            while procs::reap_any().is_some() {}
        }
    }

    fn job_alive(&self) -> bool {
        matches!(self.job.script, Script::Running) || procs::anything_left(self.job.pid)
    }

    fn finished(&self) -> bool {
        if !matches!(self.job.script, Script::Exited { .. }) {
            return false;
        }
        if !self.job_alive() {
            return true;
        }
        let give_up = self
            .job
            .cleanup_deadline
            .is_some_and(|d| Instant::now() >= d);
        if give_up {
            slog!("giving up on processes that survive SIGKILL");
        }
        give_up
    }

    fn accept(&mut self) {
        loop {
            match self.sup.listener.accept() {
                Ok((stream, _)) => match Conn::new(stream, self.sup.spec.uid, self.sup.euid) {
                    Ok(c) => self.admit(c),
                    Err(e) => slog!("control connection setup: {e}"),
                },
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    slog!("accept: {e}");
                    break;
                }
            }
        }
    }

    /// Keeps a new connection if there is room, making room for root or the owner at the expense of a
    /// connection from anyone else.
    fn admit(&mut self, conn: Conn) {
        if self.conns.len() >= MAX_CONNS {
            let victim = self.conns.iter().position(|c| !c.is_authorized());
            match victim {
                Some(v) if conn.is_authorized() => {
                    self.conns.remove(v);
                }
                _ => {
                    slog!(
                        "too many control connections, refusing one from uid {:?}",
                        conn.peer_uid()
                    );
                    return;
                }
            }
        }
        self.conns.push(conn);
    }

    /// Answers what connection `i` sent; an index with no connection (it went away) is skipped.
    fn serve(&mut self, i: usize) {
        let Some(lines) = self.conns.get_mut(i).map(Conn::read_lines) else {
            return;
        };
        for line in lines {
            let Some(c) = self.conns.get_mut(i) else {
                return;
            };
            if !c.is_authorized() {
                slog!("refusing request from uid {:?}", c.peer_uid());
                c.queue(&conn::access_denied());
                c.close_after_reply();
                return;
            }
            let response = match conn::parse_request(&line) {
                Ok(req) => self.handle(req),
                Err(message) => Response::Error { message },
            };
            if let Some(c) = self.conns.get_mut(i) {
                c.queue(&response);
            }
        }
    }

    fn handle(&mut self, request: Request) -> Response {
        match request {
            Request::Status => Response::Status {
                running: matches!(self.job.script, Script::Running),
                pid: Some(pid_u32(self.job.pid)),
                start_time: Some(self.job.start_time),
                terminating: self.job.terminating.as_ref().map(|t| t.reason),
            },
            Request::Signal {
                signo,
                scope,
                step_pids,
            } => self.signal(signo, scope, &step_pids),
            Request::Terminate {
                reason,
                at_epoch_secs,
            } => self.terminate(reason, at_epoch_secs),
            Request::Notify { message } => self.notify(&message),
        }
    }

    fn notify(&mut self, message: &str) -> Response {
        if !matches!(self.job.script, Script::Running) {
            return Response::Error {
                message: ALREADY_DONE.into(),
            };
        }
        let line = messages::notify_line(&self.sup.spec.hostname, message);
        match self.job.stderr.write_all(line.as_bytes()) {
            Ok(()) => Response::Ok,
            Err(e) => Response::Error {
                message: e.to_string(),
            },
        }
    }

    fn signal(&mut self, signo: i32, scope: SignalScope, step_pids: &[u32]) -> Response {
        if !(1..=libc::SIGRTMAX()).contains(&signo) {
            return Response::Error {
                message: INVALID_SIGNAL.into(),
            };
        }
        if !matches!(self.job.script, Script::Running) {
            return Response::Error {
                message: ALREADY_DONE.into(),
            };
        }
        slog!("delivering signal {signo} to {scope:?}");
        // Signalling only step tasks does not end the job, so it leaves no cancellation line.
        if matches!(signo, libc::SIGTERM | libc::SIGKILL) && scope != SignalScope::StepTasks {
            self.write_cancel_line(TerminateReason::Cancelled, None);
        }
        let sent = match scope {
            SignalScope::BatchShell => procs::signal_pid(self.job.pid, signo),
            SignalScope::AllProcesses => procs::signal_all(self.job.pid, signo),
            SignalScope::StepTasks => {
                procs::signal_job_step_tasks(std::process::id(), step_pids, signo)
            }
        };
        match sent {
            Ok(()) => Response::Ok,
            Err(Errno::EPERM) if scope == SignalScope::StepTasks => {
                slog!("refused to signal processes that are not the job's: {step_pids:?}");
                Response::Error {
                    message: ACCESS_DENIED.into(),
                }
            }
            Err(e) => Response::Error {
                message: e.desc().into(),
            },
        }
    }

    fn write_cancel_line(&mut self, reason: TerminateReason, at: Option<i64>) {
        if self.job.cancel_line_written {
            return;
        }
        self.job.cancel_line_written = true;
        let spec = &self.sup.spec;
        let when = messages::format_local_time(at.unwrap_or_else(now_epoch)).unwrap_or_default();
        let line =
            messages::terminate_line(&spec.hostname, spec.job_id, &spec.node_name, reason, &when);
        if let Err(e) = self.job.stderr.write_all(line.as_bytes()) {
            slog!("cannot write the termination message to the job's stderr: {e}");
        }
    }

    fn terminate(&mut self, reason: TerminateReason, at: Option<i64>) -> Response {
        if !matches!(self.job.script, Script::Running) {
            return Response::Error {
                message: ALREADY_DONE.into(),
            };
        }
        if self.job.terminating.is_some() {
            return Response::Ok;
        }
        self.write_cancel_line(reason, at);
        let spec = &self.sup.spec;
        slog!(
            "terminating job ({reason:?}), SIGKILL in {} s",
            spec.kill_wait_secs
        );
        let _ = procs::signal_all(self.job.pid, libc::SIGCONT);
        let _ = procs::signal_all(self.job.pid, libc::SIGTERM);
        self.job.terminating = Some(Terminating {
            reason,
            kill_at: Instant::now() + Duration::from_secs(u64::from(spec.kill_wait_secs)),
            killed: false,
        });
        Response::Ok
    }

    fn write_oom_line(&mut self, kills: u64) {
        let spec = &self.sup.spec;
        slog!("job {}: {kills} oom-kill event(s)", spec.job_id);
        let line = cgroup::oom_line(&spec.hostname, spec.job_id, kills);
        if let Err(e) = self.job.stderr.write_all(line.as_bytes()) {
            slog!("cannot write the OOM message to the job's stderr: {e}");
        }
    }

    fn result(&mut self, oom_killed: bool) -> JobResult {
        let status = match self.job.script {
            Script::Exited { status } => status,
            Script::Running => 0,
        };
        let (exit_code, signal, core_dumped) = decode_status(status);
        JobResult {
            version: PROTOCOL_VERSION,
            job_id: self.sup.spec.job_id,
            pid: Some(pid_u32(self.job.pid)),
            wait_status: Some(status),
            exit_code,
            signal,
            core_dumped,
            start_time: Some(self.job.start_time),
            end_time: now_epoch(),
            outcome: decide_outcome(
                status,
                self.job.terminating.as_ref().map(|t| t.reason),
                oom_killed,
            ),
            message: self.job.exec_error.clone(),
            epilog_failed: false,
            // Every process of the job is gone by now: the batch step is its one task, rank 0.
            usage: self
                .gather
                .take()
                .map(|gather| Box::new(gather.finish(&[0]))),
        }
    }
}

fn millis(d: Duration) -> PollTimeout {
    // Round up so that a timer never fires a hair early and costs an extra wake-up.
    let ms = d
        .as_millis()
        .saturating_add(u128::from(!d.subsec_nanos().is_multiple_of(1_000_000)));
    PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_decoding() {
        assert_eq!(decode_status(0), (Some(0), None, false));
        assert_eq!(decode_status(3 << 8), (Some(3), None, false));
        assert_eq!(decode_status(9), (None, Some(9), false));
        assert_eq!(decode_status(0x80 | 11), (None, Some(11), true));
    }

    #[test]
    fn outcomes() {
        assert_eq!(decide_outcome(0, None, false), Outcome::Completed);
        assert_eq!(decide_outcome(3 << 8, None, false), Outcome::Failed);
        assert_eq!(decide_outcome(9, None, false), Outcome::Failed);
        assert_eq!(
            decide_outcome(15, Some(TerminateReason::TimeLimit), true),
            Outcome::TimedOut
        );
        assert_eq!(
            decide_outcome(0, Some(TerminateReason::Cancelled), false),
            Outcome::Cancelled
        );
        assert_eq!(decide_outcome(0, None, true), Outcome::OutOfMemory);
        assert_eq!(decide_outcome(9, None, true), Outcome::OutOfMemory);
    }

    #[test]
    fn timeouts_round_up() {
        assert_eq!(i32::from(millis(Duration::from_micros(1500))), 2);
        assert_eq!(i32::from(millis(Duration::from_millis(7))), 7);
        assert_eq!(i32::from(millis(Duration::from_secs(u64::MAX))), i32::MAX);
    }
}
