//! Messages on the agent's session with the controller (the `AgentLink.Session` stream). The agent opens the
//! session, so the controller never needs to reach nodes; everything that changes state is acknowledged only after
//! the controller committed it, so an agent keeps a report until then and resends it after a reconnect.

use serde::{Deserialize, Serialize};

use crate::model::job::{EpochSecs, JobRecord};
use crate::wire::api::SignalScope;

/// What a node offers, as its agent found it (configuration wins where slurm.conf says more).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeHello {
    pub name: String,
    pub hostname: String,
    pub addr: String,
    pub cpus: u32,
    pub sockets: u32,
    pub cores_per_socket: u32,
    pub threads_per_core: u32,
    pub real_memory_mb: u64,
    pub boot_time: EpochSecs,
    pub agent_start_time: EpochSecs,
    pub os: String,
    pub arch: String,
    pub version: String,
    /// Jobs whose supervisor is alive on this node.
    pub running_jobs: Vec<u32>,
    /// Which run (the job's `restarts` at launch) of each of `running_jobs` runs here, where the agent knows: a
    /// run the controller has since requeued is stale and must be stopped, not taken for the current one.
    #[serde(default)]
    pub running_runs: Vec<(u32, u32)>,
    /// The GPUs the agent found and how they are linked, named by device file.
    #[serde(default)]
    pub gpu_topology: Option<crate::policy::gpu_topology::GpuTopology>,
    /// A fresh random value per session: the agent asks the controller to seal every order of this session with
    /// a MUNGE credential bound to it (`spur_auth::orders`), and refuses orders without one. Controllers that
    /// predate it send none, so such an agent refuses them. Not part of the node's record: the controller takes
    /// it out before registering the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_nonce: Option<String>,
}

/// How a job's batch script ended, as the supervisor recorded it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobOutcome {
    pub job_id: u32,
    /// `None`: the job could not be launched.
    pub exit_code: Option<u32>,
    pub signal: u32,
    pub end_time: EpochSecs,
    #[serde(default)]
    pub message: Option<String>,
    /// The job's memory cgroup killed one of its processes (Slurm's OUT_OF_MEMORY).
    #[serde(default)]
    pub out_of_memory: bool,
    /// slurm.conf's Prolog failed on the node, so the job never ran (`exit_code` is `None`).
    #[serde(default)]
    pub prolog_failed: bool,
    /// Which run of the job this is the result of (the job's `restarts` when it was launched): a result the
    /// agent resends after the job was requeued and started again must not be taken for the new run's. `None`
    /// from agents that predate it.
    #[serde(default)]
    pub run: Option<u32>,
    /// slurm.conf's Epilog failed on the node after the job: the node is drained (`Epilog error`).
    #[serde(default)]
    pub epilog_failed: bool,
    /// What the batch step used (`jobacct_gather`); `None` when not measured or from agents that predate it.
    #[serde(default)]
    pub usage: Option<Box<crate::model::step_acct::StepAcct>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AgentToController {
    /// First message of every session.
    Hello(Box<NodeHello>),
    Heartbeat {
        free_mem_mb: Option<u64>,
        cpu_load: Option<f64>,
    },
    /// Sent until the controller answers `FinishedAck` for the job.
    Finished(JobOutcome),
    /// slurm.conf's `Prolog` failed here before a step of the job (on a node other than its first): the node
    /// must be drained (`Prolog error`), as slurmd has slurmctld do.
    PrologFailed { job_id: u32, message: String },
    /// slurm.conf's `Epilog` failed here after the job (on a node other than its batch node, whose failure comes
    /// with the job's result): the node must be drained (`Epilog error`).
    EpilogFailed { job_id: u32 },
    /// The answer to [`ControllerToAgent::RunProlog`] for run `run` (the job's `restarts`) of the job: `failed`
    /// drains the node (`Prolog error`). A lost answer is asked for again when the agent registers.
    PrologFinished { job_id: u32, run: u32, failed: bool },
    /// The answer to [`ControllerToAgent::MeasureSteps`]: the steps' usage on this node (steps without
    /// processes here are left out).
    StepUsage {
        request_id: u64,
        usage: Vec<(
            crate::model::step_usage::StepRef,
            crate::model::step_usage::NodeUsage,
        )>,
    },
    /// The answer to [`ControllerToAgent::RunEpilog`], whether the epilog ran, failed (then `EpilogFailed` came
    /// first) or there is none: the node may take new jobs again.
    EpilogFinished { job_id: u32 },
}

/// Cluster facts a supervisor needs to build the job's environment (`SLURM_CLUSTER_NAME`, `SLURM_CONF`, ...).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LaunchContext {
    pub cluster_name: String,
    pub slurm_conf: String,
    pub controller_addr: String,
    pub kill_wait_secs: u32,
    /// Every task id of the job's array (for `SLURM_ARRAY_TASK_COUNT`, `_MIN`, `_MAX`, `_STEP`); empty otherwise.
    /// Superseded by `array_summary`; still filled for arrays of up to [`ARRAY_IDS_SENT_MAX`] tasks, for agents
    /// that predate it.
    #[serde(default)]
    pub array_task_ids: Vec<u32>,
    /// What the job's environment says about its array. Sent instead of the ids: with the ids, launching every
    /// task of an array of N costs N² (10,000 tasks: 10^8 ids encoded).
    #[serde(default)]
    pub array_summary: Option<ArraySummary>,
    /// The node's GRES device files per GRES name, in the order the scheduler numbers the units (so a job's
    /// `gres_indices` pick its files); the agent denies the job the others.
    #[serde(default)]
    pub gres_files: std::collections::BTreeMap<String, Vec<String>>,
    /// The node's place in topology.conf's switch tree, for `SLURM_TOPOLOGY_ADDR` (`None`: the node's name).
    #[serde(default)]
    pub topology_addr: Option<crate::policy::switch_tree::TopologyAddr>,
    /// A heterogeneous job's leader: every component's record (leader first, scripts and environments left
    /// out), for the batch script's `_HET_GROUP_N` variables. Empty otherwise.
    #[serde(default)]
    pub het_components: Vec<crate::model::job::JobRecord>,
}

/// Arrays up to this many tasks (Slurm's default `MaxArraySize`) still carry their task ids in a launch.
pub const ARRAY_IDS_SENT_MAX: usize = 1001;

/// An array's task ids as the job's environment describes them (`SLURM_ARRAY_TASK_COUNT`, `_MIN`, `_MAX`,
/// `_STEP`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArraySummary {
    pub count: u32,
    pub min: u32,
    pub max: u32,
    /// The distance between consecutive ids when it is the same throughout, else 1.
    pub step: u32,
}

impl ArraySummary {
    /// `None` for no ids.
    pub fn of(ids: &[u32]) -> Option<ArraySummary> {
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let first_step = sorted.get(1).map_or(1, |second| second - min);
        let regular = sorted.windows(2).all(|w| w[1] - w[0] == first_step);
        Some(ArraySummary {
            count: u32::try_from(sorted.len()).unwrap_or(u32::MAX),
            min,
            max,
            step: if regular { first_step } else { 1 },
        })
    }
}

/// Why the controller ends a running job; decides the line the supervisor writes into the job's stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TerminateReason {
    TimeLimit,
    Cancelled,
    NodeFail,
    Requeued,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ControllerToAgent {
    Welcome {
        node: String,
    },
    Launch {
        job: Box<JobRecord>,
        context: LaunchContext,
    },
    Signal {
        job_id: u32,
        signal: i32,
        scope: SignalScope,
        /// For [`SignalScope::Steps`]: the `srun` processes of the running steps, whose descendants are the
        /// steps' tasks.
        #[serde(default)]
        step_pids: Vec<u32>,
        /// For [`SignalScope::Steps`]: the running steps whose tasks this node's step supervisors run.
        #[serde(default)]
        step_ids: Vec<u32>,
    },
    Terminate {
        job_id: u32,
        reason: TerminateReason,
        at: EpochSecs,
        kill_wait_secs: u32,
        /// The run to end (the job's `restarts`); whatever the agent holds of an older run is obsolete.
        #[serde(default)]
        run: Option<u32>,
    },
    FinishedAck {
        job_id: u32,
        /// The run whose result was committed: an agent that meanwhile took a newer run's launch keeps that.
        #[serde(default)]
        run: Option<u32>,
    },
    /// The controller refuses this agent (unknown node name, ...); it should log and retry later.
    Rejected {
        message: String,
    },
    /// Start a step's tasks on this node under a step supervisor that connects back to the step's srun.
    LaunchStep {
        launch: Box<crate::model::step_launch::NodeStepLaunch>,
        /// The job, for slurm.conf's `Prolog` before the job's first step on a node other than its first.
        #[serde(default)]
        job: Option<Box<JobRecord>>,
        #[serde(default)]
        context: Option<LaunchContext>,
    },
    /// The job ended: run slurm.conf's `Epilog` here, one of the job's nodes other than its first (whose
    /// supervisor runs it). `job` carries the final state and exit code.
    RunEpilog {
        job: Box<JobRecord>,
        context: LaunchContext,
    },
    /// Measure these steps of a job on this node (sstat), counting only processes of the job's owner `uid`;
    /// answered with [`AgentToController::StepUsage`] carrying the same request id.
    MeasureSteps {
        request_id: u64,
        job_id: u32,
        uid: u32,
        steps: Vec<crate::model::step_usage::StepRef>,
    },
    /// `scontrol notify`: write the message into the batch job's stderr (its supervisor does).
    Notify {
        job_id: u32,
        message: String,
    },
    /// `sattach`: have the step's supervisor here connect to `addr`, present `key` as node `node_index` and send
    /// copies of its tasks' output there (and take their input); when no supervisor of the step runs here, the
    /// agent tells `addr` so itself.
    AttachStep(Box<crate::model::step_launch::StepAttach>),
    /// `PrologFlags=Alloc`: the job was just allocated; run slurm.conf's `Prolog` here (once per run) and answer
    /// [`AgentToController::PrologFinished`]. With `contain`, the job's extern cgroup is made here first.
    RunProlog {
        job: Box<JobRecord>,
        context: LaunchContext,
        contain: bool,
    },
    /// `sbcast`: connect to the client as the job's owner and write the file it sends (see
    /// [`crate::model::step_launch::FileBcastOrder`]).
    FileBcast(Box<crate::model::step_launch::FileBcastOrder>),
}

impl ControllerToAgent {
    /// The job the message is about, so an agent can keep each job's messages in order while it handles
    /// different jobs' at once.
    pub fn job_id(&self) -> Option<u32> {
        match self {
            Self::Launch { job, .. }
            | Self::RunEpilog { job, .. }
            | Self::RunProlog { job, .. } => Some(job.job_id),
            Self::Signal { job_id, .. }
            | Self::Terminate { job_id, .. }
            | Self::FinishedAck { job_id, .. }
            | Self::MeasureSteps { job_id, .. }
            | Self::Notify { job_id, .. } => Some(*job_id),
            Self::LaunchStep { launch, .. } => Some(launch.job_id),
            Self::AttachStep(order) => Some(order.job_id),
            Self::FileBcast(order) => Some(order.job_id),
            Self::Welcome { .. } | Self::Rejected { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_summaries() {
        let of = |ids: &[u32]| ArraySummary::of(ids).map(|s| (s.count, s.min, s.max, s.step));
        assert_eq!(of(&[]), None);
        assert_eq!(of(&[7]), Some((1, 7, 7, 1)));
        assert_eq!(of(&[9, 1, 5]), Some((3, 1, 9, 4)));
        assert_eq!(of(&[1, 2, 4]), Some((3, 1, 4, 1)));
        let big: Vec<u32> = (1..=10_000).collect();
        assert_eq!(of(&big), Some((10_000, 1, 10_000, 1)));
    }

    #[test]
    fn launch_contexts_of_older_controllers_still_decode() {
        let old = serde_json::json!({
            "cluster_name": "c", "slurm_conf": "/etc/slurm.conf", "controller_addr": "h:6817",
            "kill_wait_secs": 30, "array_task_ids": [1, 2, 3]
        });
        let context: LaunchContext = serde_json::from_value(old).unwrap();
        assert_eq!(context.array_summary, None);
        assert_eq!(context.array_task_ids, [1, 2, 3]);
    }
}
