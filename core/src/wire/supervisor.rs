//! The contract between the node agent (spurd) and spurstepd.
//!
//! Everything the two exchange lives in one per-job directory, so the agent can crash, restart and pick a
//! running job up again without any in-memory state:
//!
//! | file | written by | content |
//! | --- | --- | --- |
//! | `launch.json` | agent | [`LaunchSpec`] |
//! | `slurm_script` | agent | the batch script |
//! | `stepd.pid` | stepd | the supervisor's pid, one decimal line |
//! | `stepd.log` | stepd | the supervisor's own log |
//! | `ctl.sock` | stepd | Unix socket, one JSON [`RequestEnvelope`] per line in, one [`ResponseEnvelope`] per line out |
//! | `started.json` | stepd | [`Started`], once the script runs |
//! | `result.json` | stepd | [`JobResult`], written last (atomically) |
//!
//! Every JSON document carries a `version` field ([`PROTOCOL_VERSION`]); readers ignore unknown fields so
//! that either side can add optional fields without a version bump.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Version of every document and message defined here.
pub const PROTOCOL_VERSION: u32 = 1;

/// File names inside the job directory.
pub const LAUNCH_FILE: &str = "launch.json";
/// The batch script the agent writes before launching.
pub const SCRIPT_FILE: &str = "slurm_script";
/// Pid of the running supervisor.
pub const PID_FILE: &str = "stepd.pid";
/// The supervisor's own log (its stdout and stderr after it detached).
pub const LOG_FILE: &str = "stepd.log";
/// Control socket.
pub const SOCKET_FILE: &str = "ctl.sock";
/// Written once the script has been started.
pub const STARTED_FILE: &str = "started.json";
/// Written once the job is over; its presence means the supervisor is done.
pub const RESULT_FILE: &str = "result.json";
/// The agent's datagram socket in the spool root, beside the job directories: a supervisor sends one datagram
/// there once its result is written, so the agent reports the end at once instead of at its next spool scan.
/// Best effort: the scan still finds every result, e.g. while the agent restarts.
pub const WAKE_SOCKET: &str = "wake.sock";

/// The datagram a supervisor sends to [`WAKE_SOCKET`]: `done <job id>`, so the agent reads that one job's result
/// instead of every job directory of the spool. Supervisors of before the id was added send a bare `done`.
pub fn wake_message(job_id: u32) -> Vec<u8> {
    format!("done {job_id}").into_bytes()
}

/// The job a wake datagram names; `None` for one that names none (the agent then looks at every job).
pub fn woken_job(datagram: &[u8]) -> Option<u32> {
    std::str::from_utf8(datagram)
        .ok()?
        .strip_prefix("done ")?
        .parse()
        .ok()
}

/// How the job's output files are opened (sbatch `--open-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OpenMode {
    /// Truncate existing files (Slurm's default).
    #[default]
    Truncate,
    /// Append to existing files.
    Append,
}

/// Everything spurstepd needs to run one batch job; the agent has already resolved users, groups, paths and
/// the environment, so stepd does no name lookups of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchSpec {
    /// [`PROTOCOL_VERSION`] of the writer.
    pub version: u32,
    pub job_id: u32,
    /// The node name, as in `*** JOB 41 ON vm ...`.
    pub node_name: String,
    /// The name in the `slurmstepd-<hostname>:` prefix of messages written into the job's stderr.
    pub hostname: String,
    pub uid: u32,
    pub gid: u32,
    /// Supplementary groups, already resolved by the agent (stepd calls `setgroups` with exactly these).
    #[serde(default)]
    pub supplementary_gids: Vec<u32>,
    pub user_name: String,
    pub work_dir: PathBuf,
    /// The job's complete environment, in order; nothing from stepd's own environment is inherited.
    pub env: Vec<(String, String)>,
    pub script_path: PathBuf,
    /// Arguments after the script path (the script path itself is argv\[0\]).
    #[serde(default)]
    pub argv: Vec<String>,
    /// `None` means `/dev/null`. Relative paths are taken relative to `work_dir`.
    #[serde(default)]
    pub stdin_path: Option<PathBuf>,
    pub stdout_path: PathBuf,
    /// May equal `stdout_path`; the file is then opened once and shared.
    pub stderr_path: PathBuf,
    #[serde(default)]
    pub open_mode: OpenMode,
    /// Seconds between SIGTERM and SIGKILL when the job is terminated (slurm.conf `KillWait`).
    pub kill_wait_secs: u32,
    /// The submitter's umask (Slurm's `SLURM_UMASK`); `None` means 022.
    #[serde(default)]
    pub umask: Option<u32>,
    /// What the job is confined to; `None` runs it without cgroups (cgroup.conf constrains nothing, or
    /// TaskPlugin lacks task/cgroup).
    #[serde(default)]
    pub cgroup: Option<CgroupSpec>,
    /// slurm.conf `Prolog` and `Epilog`, run as root before the script and after the job's end.
    #[serde(default)]
    pub node_scripts: Option<NodeScripts>,
    /// Soft resource limits to set before the script starts, by Slurm's names (`NOFILE`), each capped at the
    /// node's hard limit; `u64::MAX` is unlimited.
    #[serde(default)]
    pub rlimits: Vec<(String, u64)>,
    /// slurm.conf's `JobAcctGatherType`/`JobAcctGatherFrequency`: sample the script's usage for sacct; `None`
    /// (`jobacct_gather/none`, or an agent that predates it) measures nothing.
    #[serde(default)]
    pub acct_gather: Option<crate::model::step_acct::AcctGather>,
}

/// The node's prolog and epilog with the environment slurmd gives them (`SLURM_JOB_ID`, `SLURM_JOB_USER`, ...;
/// the supervisor adds `SLURM_SCRIPT_CONTEXT` and, for the epilog, the job's exit code).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct NodeScripts {
    #[serde(default)]
    pub prolog: Option<PathBuf>,
    #[serde(default)]
    pub epilog: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    /// slurm.conf `TaskProlog` and `TaskEpilog`, run as the job's user around the batch script.
    #[serde(default)]
    pub task_prolog: Option<PathBuf>,
    #[serde(default)]
    pub task_epilog: Option<PathBuf>,
}

/// The limits spurstepd writes into the job's cgroups before the script starts (docs/isolation.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CgroupSpec {
    /// cpuset list (`0-1,4`) of the job's cores; `None` leaves the cpuset unconstrained.
    #[serde(default)]
    pub cpus: Option<String>,
    /// Memory limits; `None` leaves memory unconstrained.
    #[serde(default)]
    pub memory: Option<crate::model::isolation::MemoryLimits>,
    /// Whether device access is confined (cgroup.conf `ConstrainDevices`).
    #[serde(default)]
    pub constrain_devices: bool,
    /// GRES device files the job was not given; opening them fails with EPERM.
    #[serde(default)]
    pub denied_devices: Vec<PathBuf>,
    /// A step's own memory limits (`srun --mem`), written into the step's directory only; `None`: the step has
    /// the job's.
    #[serde(default)]
    pub step_memory: Option<crate::model::isolation::MemoryLimits>,
    /// The most processes and threads the job may have on the node (`pids.max` of its cgroup; spurd's
    /// `--job-pids-max`, Slurm 22.05 has no such setting); `None`: unlimited.
    #[serde(default)]
    pub pids_max: Option<u64>,
    /// The job must not run unless every limit here could be applied (spurd's `--require-confinement`); otherwise
    /// what cannot be enforced is logged and the job runs.
    #[serde(default)]
    pub required: bool,
}

impl CgroupSpec {
    /// The memory limits of the directory `is_step` says: the job's, or the step's own where it has them.
    pub fn memory_at(&self, is_step: bool) -> Option<&crate::model::isolation::MemoryLimits> {
        match (is_step, &self.step_memory) {
            (true, Some(own)) => Some(own),
            _ => self.memory.as_ref(),
        }
    }
}

/// Contents of `started.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    pub version: u32,
    pub job_id: u32,
    /// Pid of the batch script; it is also its session and process group id.
    pub pid: u32,
    /// Seconds since the Unix epoch.
    pub start_time: i64,
}

/// How the job ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Outcome {
    /// Exit code 0.
    Completed,
    /// Non-zero exit code, killed by a signal nobody asked stepd to send, or the script could not be executed
    /// (exit code 126/127). (Observed in Slurm 22.05: a script killed by SIGKILL shows as
    /// `JobState=FAILED Reason=JobLaunchFailure ExitCode=0:9`.)
    Failed,
    /// Ended after a [`Request::Terminate`] with [`TerminateReason::Cancelled`].
    Cancelled,
    /// Ended after a [`Request::Terminate`] with [`TerminateReason::TimeLimit`].
    TimedOut,
    /// Ended after a [`Request::Terminate`] with [`TerminateReason::NodeFail`].
    NodeFail,
    /// Ended after a [`Request::Terminate`] with [`TerminateReason::Preempted`].
    Preempted,
    /// Ended after a [`Request::Terminate`] with [`TerminateReason::Requeued`].
    Requeued,
    /// The job's memory cgroup killed at least one of its processes (and no terminate request came first).
    /// Slurm 22.05 shows such a job as `JobState=OUT_OF_MEMORY Reason=OutOfMemory ExitCode=0:125`.
    OutOfMemory,
    /// The script never ran: switching user, opening its files or changing directory failed. (Slurm 22.05
    /// shows such a job as `JobState=FAILED Reason=JobLaunchFailure ExitCode=0:53`.)
    LaunchFailed { message: String },
    /// slurm.conf's Prolog failed: the script never ran. (Slurm 22.05 drains the node with reason `Prolog
    /// error` and requeues the job held: `Reason=launch_failed_requeued_held`.)
    PrologFailed { message: String },
}

/// Contents of `result.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobResult {
    pub version: u32,
    pub job_id: u32,
    /// Pid the script ran as; `None` when it was never started.
    pub pid: Option<u32>,
    /// Raw `waitpid` status; `None` when the script was never started.
    pub wait_status: Option<i32>,
    /// Exit code when the script exited normally.
    pub exit_code: Option<i32>,
    /// Terminating signal when the script was killed by one.
    pub signal: Option<i32>,
    #[serde(default)]
    pub core_dumped: bool,
    /// Seconds since the Unix epoch; `None` when the script was never started.
    pub start_time: Option<i64>,
    pub end_time: i64,
    pub outcome: Outcome,
    /// Detail for failures stepd saw itself (e.g. the execve error); also written to the job's stderr.
    #[serde(default)]
    pub message: Option<String>,
    /// slurm.conf's `Epilog` failed after the job: the node is to be drained (`Epilog error`).
    #[serde(default)]
    pub epilog_failed: bool,
    /// What the script and everything it ran outside steps used (`jobacct_gather`); `None` when not measured.
    #[serde(default)]
    pub usage: Option<Box<crate::model::step_acct::StepAcct>>,
}

impl JobResult {
    /// Slurm's `ExitCode=<code>:<signal>` pair: `3:0` for `exit 3`, `0:15` for a job killed by SIGTERM.
    pub fn exit_code_pair(&self) -> (i32, i32) {
        (self.exit_code.unwrap_or(0), self.signal.unwrap_or(0))
    }
}

/// Which processes a [`Request::Signal`] reaches (`scancel --batch` vs `scancel --full`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalScope {
    /// Only the batch script's own process.
    BatchShell,
    /// The script's whole process group, plus any orphans that left it.
    AllProcesses,
    /// The tasks of the job's running steps: every descendant of the `srun` processes in
    /// [`Request::Signal::step_pids`], not `srun` itself nor the batch shell (`scancel -s` without `-b`/`-f`).
    StepTasks,
}

/// Why a job is being terminated; decides the message written into its stderr and the [`Outcome`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerminateReason {
    TimeLimit,
    Cancelled,
    NodeFail,
    Preempted,
    Requeued,
}

impl TerminateReason {
    /// The outcome a job terminated for this reason ends with.
    pub fn outcome(self) -> Outcome {
        match self {
            TerminateReason::TimeLimit => Outcome::TimedOut,
            TerminateReason::Cancelled => Outcome::Cancelled,
            TerminateReason::NodeFail => Outcome::NodeFail,
            TerminateReason::Preempted => Outcome::Preempted,
            TerminateReason::Requeued => Outcome::Requeued,
        }
    }
}

/// A control request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// Deliver `signo` (any signal number, real-time ones included).
    Signal {
        signo: i32,
        scope: SignalScope,
        /// For [`SignalScope::StepTasks`]: the steps' `srun` processes. Left out when empty, so the other
        /// signals keep the wire form older supervisors read.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        step_pids: Vec<u32>,
    },
    /// Write Slurm's cancellation line into the job's stderr, SIGCONT+SIGTERM everything, SIGKILL after
    /// `kill_wait_secs`. `at_epoch_secs` is the time shown in the message (now when absent).
    Terminate {
        reason: TerminateReason,
        #[serde(default)]
        at_epoch_secs: Option<i64>,
    },
    /// Ask whether the script still runs.
    Status,
    /// `scontrol notify`: write `slurmstepd-<host>: error: MESSAGE` into the job's stderr, as slurmstepd does.
    Notify { message: String },
}

/// A control response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    Ok,
    Status {
        running: bool,
        pid: Option<u32>,
        start_time: Option<i64>,
        terminating: Option<TerminateReason>,
    },
    /// The request was refused or failed; `message` uses Slurm's error texts where Slurm has one.
    Error {
        message: String,
    },
}

/// One request line on the socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestEnvelope {
    pub version: u32,
    pub request: Request,
}

/// One response line on the socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResponseEnvelope {
    pub version: u32,
    pub response: Response,
}

/// Error text for requests from anyone but root or the job's owner (Slurm's ESLURM_ACCESS_DENIED).
pub const ACCESS_DENIED: &str = "Access/permission denied";
/// Error text for requests that need a running script (Slurm's ESLURM_ALREADY_DONE).
pub const ALREADY_DONE: &str = "Job/step already completing or completed";
/// Error text for a signal number the kernel does not know (Slurm's `Invalid signal`).
pub const INVALID_SIGNAL: &str = "Invalid signal";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wake_datagrams_name_their_job_or_none() {
        assert_eq!(woken_job(&wake_message(4_000_000)), Some(4_000_000));
        assert_eq!(woken_job(b"done"), None);
        assert_eq!(woken_job(b"done x"), None);
        assert_eq!(woken_job(b"\xff"), None);
    }

    fn spec() -> LaunchSpec {
        LaunchSpec {
            version: PROTOCOL_VERSION,
            job_id: 41,
            node_name: "vm".into(),
            hostname: "vm".into(),
            uid: 1000,
            gid: 1000,
            supplementary_gids: vec![27, 100],
            user_name: "alice".into(),
            work_dir: "/home/alice".into(),
            env: vec![("B".into(), "2".into()), ("A".into(), "1".into())],
            script_path: "/var/spool/spur/job41/slurm_script".into(),
            argv: vec!["x".into()],
            stdin_path: None,
            stdout_path: "/home/alice/slurm-41.out".into(),
            stderr_path: "/home/alice/slurm-41.out".into(),
            open_mode: OpenMode::Append,
            kill_wait_secs: 30,
            umask: Some(0o027),
            cgroup: Some(CgroupSpec {
                cpus: Some("0-1".into()),
                memory: None,
                constrain_devices: true,
                denied_devices: vec!["/dev/nvidia1".into()],
                step_memory: None,
                pids_max: Some(512),
                required: true,
            }),
            node_scripts: None,
            rlimits: Vec::new(),
            acct_gather: None,
        }
    }

    #[test]
    fn launch_spec_round_trips_and_keeps_env_order() {
        let text = serde_json::to_string(&spec()).unwrap();
        assert!(text.contains(r#""env":[["B","2"],["A","1"]]"#), "{text}");
        assert!(text.contains(r#""open_mode":"append""#), "{text}");
        let back: LaunchSpec = serde_json::from_str(&text).unwrap();
        assert_eq!(back, spec());
    }

    #[test]
    fn launch_spec_optional_fields_default_and_unknown_fields_are_ignored() {
        let text = r#"{"version":1,"job_id":1,"node_name":"n","hostname":"n","uid":0,"gid":0,
            "user_name":"root","work_dir":"/","env":[],"script_path":"/s","stdout_path":"/o",
            "stderr_path":"/o","kill_wait_secs":30,"future_field":true}"#;
        let s: LaunchSpec = serde_json::from_str(text).unwrap();
        assert_eq!(s.open_mode, OpenMode::Truncate);
        assert_eq!(s.stdin_path, None);
        assert!(s.supplementary_gids.is_empty() && s.argv.is_empty() && s.umask.is_none());
    }

    #[test]
    fn requests_have_a_stable_wire_form() {
        let req = RequestEnvelope {
            version: 1,
            request: Request::Signal {
                signo: 10,
                scope: SignalScope::BatchShell,
                step_pids: Vec::new(),
            },
        };
        assert_eq!(
            serde_json::to_string(&req).unwrap(),
            r#"{"version":1,"request":{"type":"signal","signo":10,"scope":"batch_shell"}}"#
        );
        let t: RequestEnvelope = serde_json::from_str(
            r#"{"version":1,"request":{"type":"terminate","reason":"time_limit"}}"#,
        )
        .unwrap();
        assert_eq!(
            t.request,
            Request::Terminate {
                reason: TerminateReason::TimeLimit,
                at_epoch_secs: None
            }
        );
    }

    #[test]
    fn outcome_wire_form_and_reason_mapping() {
        let o = Outcome::LaunchFailed {
            message: "m".into(),
        };
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"state":"launch_failed","message":"m"}"#
        );
        assert_eq!(
            serde_json::to_string(&Outcome::TimedOut).unwrap(),
            r#"{"state":"timed_out"}"#
        );
        assert_eq!(TerminateReason::TimeLimit.outcome(), Outcome::TimedOut);
        assert_eq!(TerminateReason::Cancelled.outcome(), Outcome::Cancelled);
        assert_eq!(TerminateReason::NodeFail.outcome(), Outcome::NodeFail);
        assert_eq!(TerminateReason::Preempted.outcome(), Outcome::Preempted);
        assert_eq!(TerminateReason::Requeued.outcome(), Outcome::Requeued);
    }

    #[test]
    fn exit_code_pair_matches_slurm_exitcode_field() {
        let mut r = JobResult {
            version: 1,
            job_id: 5,
            pid: Some(9),
            wait_status: Some(3 << 8),
            exit_code: Some(3),
            signal: None,
            core_dumped: false,
            start_time: Some(1),
            end_time: 2,
            outcome: Outcome::Failed,
            message: None,
            epilog_failed: false,
            usage: None,
        };
        assert_eq!(r.exit_code_pair(), (3, 0));
        r.exit_code = None;
        r.signal = Some(15);
        assert_eq!(r.exit_code_pair(), (0, 15));
    }
}
