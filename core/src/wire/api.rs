//! The controller's API as typed documents: what clients (CLI, REST, C shim) send and receive, and Slurm's error
//! numbers and texts. The gRPC envelope (core/src/wire/proto/spur.proto) carries these as JSON; see [`crate::wire`].

use serde::{Deserialize, Serialize};

use crate::model::job::{JobRecord, JobSpec};
use crate::model::records::{ClusterConfig, NodeRecord, PartitionRecord, PartitionState};

/// Slurm's error numbers (slurm_errno.h) for the errors Spur reports, with Slurm's texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SlurmErrno {
    Error,
    AccessDenied,
    InvalidPartitionName,
    DefaultPartitionNotSet,
    InvalidJobId,
    InvalidNodeName,
    RequestedNodeConfigUnavailable,
    RequestedPartConfigUnavailable,
    AlreadyDone,
    JobPending,
    TransitionStateNoUpdate,
    InvalidTimeLimit,
    InvalidDependency,
    InvalidNodeCount,
    UserIdMissing,
    InvalidGres,
    InvalidArray,
    DisabledRequeue,
    JobNotPending,
    JobNotRunning,
    InvalidTaskMemory,
    JobHeld,
    NotLeader,
    NodesBusy,
    NotTopPriority,
    /// SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT: what a Slurm client reports when the controller drops a request
    /// whose credential failed verification.
    ZeroBytes,
    /// What slurmctld answers `scontrol suspend|resume` for a job it does not know.
    UnexpectedMessage,
    JobNotSuspended,
    /// ESLURM_PRIO_RESET: what a user who lowers their own job's priority gets (they may change nice instead).
    PrioReset,
    /// ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP: the partition's `AllowGroups` excludes the job's user.
    PartitionGroup,
    /// ESLURM_RESERVATION_ACCESS: the job's user and account are not among the reservation's.
    ReservationAccess,
    /// ESLURM_RESERVATION_INVALID: no reservation of that name.
    ReservationInvalid,
    /// ESLURM_RESERVATION_BUSY: jobs still ask for the reservation being deleted.
    ReservationBusy,
    /// ESLURM_RESERVATION_OVERLAP: another reservation holds one of the nodes during the window.
    ReservationOverlap,
    /// ESLURM_RESERVATION_NAME_DUP.
    ReservationNameDup,
    /// ESLURM_INVALID_LICENSES: a license the cluster does not have, or more of it than it has.
    InvalidLicenses,
    /// ESLURM_INVALID_FEATURE: a `--constraint` no node could match (malformed, or a feature no node has).
    InvalidFeature,
    /// ESLURM_PARTITION_IN_USE: jobs still wait or run in the partition being deleted.
    PartitionInUse,
    /// ESLURM_INVALID_NODE_STATE: a state a node may not be given (scontrol creates only FUTURE nodes).
    InvalidNodeState,
    /// ESLURM_NOT_SUPPORTED.
    NotSupported,
    /// ESLURM_INVALID_ACCOUNT: with `AccountingStorageEnforce`, an account without an association for the user.
    InvalidAccount,
    /// ESLURM_INVALID_QOS: a QOS that does not exist or that the job's association may not use.
    InvalidQos,
    /// ESLURM_ACCOUNTING_POLICY: the submission breaks a QOS limit checked at submit (`MaxSubmitJobsPerUser`).
    AccountingPolicy,
    /// ESLURM_INVALID_NICE: a negative `--nice` from a user who is not an operator.
    InvalidNice,
    /// ESLURM_BAD_TASK_COUNT: `scontrol update NumTasks=0`.
    BadTaskCount,
    /// ESLURM_TOO_MANY_REQUESTED_CPUS: with `EnforcePartLimits`, more CPUs than the partition has.
    TooManyRequestedCpus,
    /// ESLURM_ACTIVE_FEATURE_NOT_SUBSET: `scontrol update NodeName= Features=` that drops an active feature.
    ActiveFeatureNotSubset,
    /// SLURM_NO_CHANGE_IN_DATA: slurmdbd's answer to an edit that sets nothing or selects no record.
    NoChangeInData,
    /// ESLURM_PORTS_BUSY: `MpiParams=ports=` has too few ports free on the step's nodes now (srun retries).
    PortsBusy,
    /// ESLURM_PORTS_INVALID: a step wants more reserved ports than `MpiParams=ports=` has at all.
    PortsInvalid,
    /// ESLURM_JOB_FINISHED: `scontrol release` of a job that has ended.
    JobFinished,
    /// ESLURM_TRIGGER_DUP: `strigger --set` of a trigger the caller already has.
    TriggerDup,
    /// ESRCH: `strigger --clear` found no trigger to clear.
    NoSuchProcess,
}

impl SlurmErrno {
    /// The number libslurm's `slurm_get_errno()` returns.
    pub fn code(self) -> i32 {
        match self {
            SlurmErrno::Error => -1,
            SlurmErrno::AccessDenied => 2002,
            SlurmErrno::InvalidPartitionName => 2000,
            SlurmErrno::DefaultPartitionNotSet => 2001,
            SlurmErrno::InvalidJobId => 2017,
            SlurmErrno::InvalidNodeName => 2018,
            SlurmErrno::RequestedNodeConfigUnavailable => 2014,
            SlurmErrno::RequestedPartConfigUnavailable => 2015,
            SlurmErrno::AlreadyDone => 2021,
            SlurmErrno::JobPending => 2024,
            SlurmErrno::TransitionStateNoUpdate => 2020,
            SlurmErrno::InvalidTimeLimit => 2051,
            SlurmErrno::InvalidDependency => 2038,
            SlurmErrno::TooManyRequestedCpus => 2005,
            SlurmErrno::InvalidNodeCount => 2006,
            SlurmErrno::UserIdMissing => 2010,
            SlurmErrno::InvalidGres => 2072,
            SlurmErrno::InvalidArray => 2081,
            SlurmErrno::DisabledRequeue => 2037,
            SlurmErrno::JobNotPending => 2073,
            SlurmErrno::JobNotRunning => 2085,
            SlurmErrno::UnexpectedMessage => 1000,
            SlurmErrno::JobNotSuspended => 2087,
            SlurmErrno::InvalidTaskMemory => 2044,
            SlurmErrno::JobHeld => 2042,
            SlurmErrno::NotLeader => 1008,
            SlurmErrno::NodesBusy => 2016,
            SlurmErrno::NotTopPriority => 2013,
            SlurmErrno::ZeroBytes => 5005,
            SlurmErrno::PrioReset => 2095,
            SlurmErrno::PartitionGroup => 2003,
            SlurmErrno::ReservationAccess => 2052,
            SlurmErrno::ReservationInvalid => 2053,
            SlurmErrno::ReservationBusy => 2055,
            SlurmErrno::ReservationOverlap => 2058,
            SlurmErrno::ReservationNameDup => 2082,
            SlurmErrno::InvalidLicenses => 2048,
            SlurmErrno::InvalidFeature => 2029,
            SlurmErrno::PartitionInUse => 2075,
            SlurmErrno::InvalidNodeState => 2028,
            SlurmErrno::NotSupported => 2036,
            SlurmErrno::InvalidAccount => 2045,
            SlurmErrno::InvalidQos => 2066,
            SlurmErrno::AccountingPolicy => 2050,
            SlurmErrno::InvalidNice => 2123,
            SlurmErrno::BadTaskCount => 2025,
            SlurmErrno::ActiveFeatureNotSubset => 2031,
            SlurmErrno::PortsBusy => 2059,
            SlurmErrno::PortsInvalid => 2060,
            SlurmErrno::NoChangeInData => 1900,
            SlurmErrno::JobFinished => 2084,
            SlurmErrno::TriggerDup => 2089,
            SlurmErrno::NoSuchProcess => 3,
        }
    }

    /// Slurm's `slurm_strerror()` text.
    pub fn text(self) -> &'static str {
        match self {
            SlurmErrno::Error => "Unspecified error",
            SlurmErrno::AccessDenied => "Access/permission denied",
            SlurmErrno::InvalidPartitionName => "Invalid partition name specified",
            SlurmErrno::DefaultPartitionNotSet => {
                "No partition specified or system default partition"
            }
            SlurmErrno::InvalidJobId => "Invalid job id specified",
            SlurmErrno::InvalidNodeName => "Invalid node name specified",
            SlurmErrno::RequestedNodeConfigUnavailable => {
                "Requested node configuration is not available"
            }
            SlurmErrno::RequestedPartConfigUnavailable => {
                "Requested partition configuration not available now"
            }
            SlurmErrno::AlreadyDone => "Job/step already completing or completed",
            SlurmErrno::JobPending => "Job is pending execution",
            SlurmErrno::TransitionStateNoUpdate => "Job can not be altered now, try again later",
            SlurmErrno::InvalidTimeLimit => {
                "Requested time limit is invalid (missing or exceeds some limit)"
            }
            SlurmErrno::InvalidDependency => "Job dependency problem",
            SlurmErrno::TooManyRequestedCpus => "More processors requested than permitted",
            SlurmErrno::InvalidNodeCount => "Node count specification invalid",
            SlurmErrno::UserIdMissing => "Invalid user id",
            SlurmErrno::InvalidGres => "Invalid generic resource (gres) specification",
            SlurmErrno::InvalidArray => "Invalid job array specification",
            // ESLURM_DISABLED: what a requeue of a `--no-requeue` job gets.
            SlurmErrno::DisabledRequeue => "Requested operation is presently disabled",
            SlurmErrno::JobNotPending => "Job is no longer pending execution",
            SlurmErrno::JobNotRunning => "Job is not running",
            SlurmErrno::UnexpectedMessage => "Unexpected message received",
            SlurmErrno::JobNotSuspended => "Job is not suspended",
            SlurmErrno::InvalidTaskMemory => "Memory required by task is not available",
            SlurmErrno::JobHeld => "Job is in held state, pending scheduler release",
            SlurmErrno::NotLeader => "Controller is not the leader",
            SlurmErrno::NodesBusy => "Requested nodes are busy",
            SlurmErrno::NotTopPriority => "Immediate execution impossible, insufficient priority",
            SlurmErrno::ZeroBytes => "Zero Bytes were transmitted or received",
            SlurmErrno::PrioReset => {
                "Changes to job priority are not persistent, change nice instead"
            }
            SlurmErrno::PartitionGroup => "User's group not permitted to use this partition",
            SlurmErrno::ReservationAccess => "Access denied to requested reservation",
            SlurmErrno::ReservationInvalid => "Requested reservation is invalid",
            SlurmErrno::ReservationBusy => "Requested reservation is in use",
            SlurmErrno::ReservationOverlap => {
                "Requested reservation overlaps with another reservation"
            }
            SlurmErrno::ReservationNameDup => "Duplicate reservation name",
            SlurmErrno::InvalidLicenses => "Invalid license specification",
            SlurmErrno::InvalidFeature => "Invalid feature specification",
            SlurmErrno::PartitionInUse => "Partition is in use",
            SlurmErrno::InvalidNodeState => "Invalid node state specified",
            SlurmErrno::NotSupported => "Requested operation not supported on this system",
            SlurmErrno::InvalidAccount => {
                "Invalid account or account/partition combination specified"
            }
            SlurmErrno::InvalidQos => "Invalid qos specification",
            SlurmErrno::AccountingPolicy => {
                "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"
            }
            SlurmErrno::InvalidNice => "Invalid --nice value",
            SlurmErrno::BadTaskCount => "Task count specification invalid",
            SlurmErrno::ActiveFeatureNotSubset => "Active features not subset of available features",
            SlurmErrno::NoChangeInData => "Data has not changed since time specified",
            SlurmErrno::PortsBusy => "Required ports are in use",
            SlurmErrno::PortsInvalid => "Requires more ports than can be reserved",
            SlurmErrno::JobFinished => "Job has already finished",
            SlurmErrno::TriggerDup => "Duplicate event trigger",
            SlurmErrno::NoSuchProcess => "No such process",
        }
    }

    pub fn from_code(code: i32) -> Option<SlurmErrno> {
        ALL_ERRNOS.iter().copied().find(|e| e.code() == code)
    }
}

const ALL_ERRNOS: [SlurmErrno; 53] = [
    SlurmErrno::ZeroBytes,
    SlurmErrno::Error,
    SlurmErrno::AccessDenied,
    SlurmErrno::InvalidPartitionName,
    SlurmErrno::DefaultPartitionNotSet,
    SlurmErrno::InvalidJobId,
    SlurmErrno::InvalidNodeName,
    SlurmErrno::RequestedNodeConfigUnavailable,
    SlurmErrno::RequestedPartConfigUnavailable,
    SlurmErrno::AlreadyDone,
    SlurmErrno::JobPending,
    SlurmErrno::TransitionStateNoUpdate,
    SlurmErrno::InvalidTimeLimit,
    SlurmErrno::InvalidDependency,
    SlurmErrno::InvalidNodeCount,
    SlurmErrno::UserIdMissing,
    SlurmErrno::InvalidGres,
    SlurmErrno::InvalidArray,
    SlurmErrno::DisabledRequeue,
    SlurmErrno::JobNotPending,
    SlurmErrno::JobNotRunning,
    SlurmErrno::InvalidTaskMemory,
    SlurmErrno::JobHeld,
    SlurmErrno::NotLeader,
    SlurmErrno::NodesBusy,
    SlurmErrno::NotTopPriority,
    SlurmErrno::UnexpectedMessage,
    SlurmErrno::JobNotSuspended,
    SlurmErrno::PrioReset,
    SlurmErrno::PartitionGroup,
    SlurmErrno::ReservationAccess,
    SlurmErrno::ReservationInvalid,
    SlurmErrno::ReservationBusy,
    SlurmErrno::ReservationOverlap,
    SlurmErrno::ReservationNameDup,
    SlurmErrno::InvalidLicenses,
    SlurmErrno::InvalidFeature,
    SlurmErrno::PartitionInUse,
    SlurmErrno::InvalidNodeState,
    SlurmErrno::NotSupported,
    SlurmErrno::InvalidAccount,
    SlurmErrno::InvalidQos,
    SlurmErrno::AccountingPolicy,
    SlurmErrno::InvalidNice,
    SlurmErrno::BadTaskCount,
    SlurmErrno::TooManyRequestedCpus,
    SlurmErrno::ActiveFeatureNotSubset,
    SlurmErrno::NoChangeInData,
    SlurmErrno::PortsBusy,
    SlurmErrno::PortsInvalid,
    SlurmErrno::JobFinished,
    SlurmErrno::TriggerDup,
    SlurmErrno::NoSuchProcess,
];

/// An API failure: a Slurm errno plus, where Slurm prints one, a more specific first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{}", self.errno.text())]
pub struct ApiError {
    pub errno: SlurmErrno,
    /// e.g. `invalid partition specified: nosuch`, printed by sbatch before the errno text.
    #[serde(default)]
    pub detail: Option<String>,
    /// The job id a refused submission used up: slurmctld creates the job before its node checks, and salloc
    /// names the id in `Job allocation N has been revoked.`
    #[serde(default)]
    pub job_id: Option<u32>,
}

impl ApiError {
    pub fn new(errno: SlurmErrno) -> Self {
        ApiError {
            errno,
            detail: None,
            job_id: None,
        }
    }

    pub fn with_detail(errno: SlurmErrno, detail: impl Into<String>) -> Self {
        ApiError {
            errno,
            detail: Some(detail.into()),
            job_id: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubmitRequest {
    pub spec: JobSpec,
    /// `--test-only`: validate and report where it would start, submit nothing.
    #[serde(default)]
    pub test_only: bool,
    /// `--immediate` / `srun` semantics: fail instead of queueing when resources are not free now.
    #[serde(default)]
    pub immediate: bool,
    /// `salloc`/`srun` allocations have no batch script to run; the client runs the work.
    #[serde(default)]
    pub interactive: bool,
    /// A heterogeneous job's components after the first (`spec`): each becomes a job of its own, with the ids
    /// following the leader's. Empty for a plain job.
    #[serde(default)]
    pub het_components: Vec<JobSpec>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubmitReply {
    pub job_id: u32,
    /// For `--test-only`: where and when the job would start.
    #[serde(default)]
    pub test_only: Option<TrialPlacement>,
}

/// Slurm prints this for `--test-only`: `Job N to start at T using C processors on nodes N in partition P`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialPlacement {
    pub start_time: i64,
    pub processors: u32,
    pub nodes: Vec<String>,
    pub partition: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Query {
    Jobs,
    Nodes,
    Partitions,
    Config,
    /// `scontrol token`: an auth/jwt token for `username` (default: the caller) valid `lifespan_secs`.
    Token {
        #[serde(default)]
        username: Option<String>,
        #[serde(default)]
        lifespan_secs: Option<u32>,
    },
    /// Job records for listings (squeue, `scontrol show job`, `slurm_load_jobs`): without batch scripts and
    /// environments (see [`crate::wire::listing`]). Answered with a [`JobList`], packed when the caller can read it.
    JobListing(JobListing),
    /// `sprio`: the priority factors of the jobs waiting for resources.
    PriorityFactors,
    /// `scontrol show reservation`, `sinfo -T`.
    Reservations,
    /// `scontrol show licenses`, `slurm_load_licenses`.
    Licenses,
    /// `sstat`, `slurm_job_step_stat`, `slurm_job_step_get_pids`: what a running job's steps use, measured now
    /// by the nodes' agents. Answered with [`QueryReply::StepUsage`] by the leader (the controller the agents
    /// report to).
    StepUsage {
        job_id: u32,
        pick: crate::model::step_usage::StepPick,
    },
    /// `scontrol show topology`: the switches of `topology/tree`.
    Topology,
    /// `sattach`: the step's nodes are asked to send copies of its tasks' output (and take input) over a
    /// connection to `addr`, presenting `key`. Only the job's owner or an administrator; answered with
    /// [`QueryReply::StepAttach`] by the leader (the controller the agents report to).
    AttachStep {
        job_id: u32,
        step_id: u32,
        addr: String,
        key: String,
    },
    /// `sacct`: the accounting records of live and purged jobs, narrowed to these jobs (an array's id brings its
    /// tasks) and users when given. Answered with [`QueryReply::Accounting`].
    Accounting {
        #[serde(default)]
        job_ids: Option<Vec<u32>>,
        #[serde(default)]
        user_ids: Option<Vec<u32>>,
        /// sacct's whole selection (window, states, names), applied by the controller so only the jobs shown
        /// travel; `None` selects every job the ids allow.
        #[serde(default)]
        select: Option<crate::model::accounting::Filter>,
    },
    /// `sacctmgr show|list`: every QOS, account, user and association. Answered with [`QueryReply::AcctDb`].
    AcctDb,
    /// `sshare`: the associations with their fair-share usage. Answered with [`QueryReply::Shares`].
    Shares,
    /// `sacctmgr modify job` and `slurmdb_job_modify` before they commit: the jobs the edit would change, or why
    /// the caller may not make it, checked as [`ControlRequest::ModifyJobRecords`] will be. Answered with
    /// [`QueryReply::JobRecordEdit`].
    JobRecordEdit {
        request: crate::model::job_edit::JobEditRequest,
    },
    /// `sbcast`: the nodes of a running job (of one of its steps when `step_id` is given) are asked to connect
    /// to `addr`, present `key` and write the file sbcast sends as the job's owner. Only the job's owner or an
    /// administrator; answered with [`QueryReply::Bcast`] by the leader.
    Bcast {
        job_id: u32,
        #[serde(default)]
        step_id: Option<u32>,
        addr: String,
        key: String,
    },
    /// `strigger --get`: every trigger still waiting for its event (anyone may list them all, as in Slurm).
    /// Answered with [`QueryReply::Triggers`].
    Triggers,
}

/// Which jobs a listing asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct JobListing {
    /// Only these jobs (an array's master id also selects its tasks); `None` lists every job.
    #[serde(default)]
    pub job_ids: Option<Vec<u32>>,
    /// Whole records, batch script and environment included (salloc and srun build the job's environment
    /// from the granted record; `slurm_job_batch_script` prints the script).
    #[serde(default)]
    pub whole_records: bool,
    /// Rows of just these fields ([`crate::wire::listing_rows::ListField::name`]) instead of records: answered with a
    /// `JobRows` document when the caller announced this build's packed schema and the controller knows every
    /// name, else with the usual [`JobList`] (callers read either).
    #[serde(default)]
    pub fields: Option<Vec<String>>,
    /// Only jobs that wait, run, are suspended or are completing: what `squeue` shows unless `-t` names a
    /// finished state. The controller then walks its index of those instead of every job kept for `MinJobAge`;
    /// a controller that does not know the field lists them all, and the caller's own filter still applies.
    #[serde(default)]
    pub live_only: bool,
}

impl JobListing {
    /// One job (or an array's tasks), as listings show it.
    pub fn job(job_id: u32) -> Self {
        JobListing {
            job_ids: Some(vec![job_id]),
            ..JobListing::default()
        }
    }

    /// One job (or an array's tasks), whole.
    pub fn whole_job(job_id: u32) -> Self {
        JobListing {
            whole_records: true,
            ..Self::job(job_id)
        }
    }

    pub fn selects(&self, job: &JobRecord) -> bool {
        self.job_ids.as_ref().is_none_or(|ids| {
            ids.iter().any(|&id| {
                job.shown_job_id() == id
                    || job.array_job_id == Some(id)
                    || job.het.as_ref().is_some_and(|h| h.job_id == id)
            })
        })
    }
}

/// The answer to [`Query::JobListing`]: the selected jobs in id order and the controller's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobList {
    pub jobs: Vec<JobRecord>,
    pub now: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum QueryReply {
    Jobs {
        jobs: Vec<JobRecord>,
        now: i64,
    },
    Nodes {
        nodes: Vec<NodeRecord>,
        now: i64,
    },
    Partitions {
        partitions: Vec<PartitionRecord>,
        nodes: Vec<NodeRecord>,
        now: i64,
    },
    Config {
        config: ClusterConfig,
        now: i64,
    },
    Token {
        token: String,
    },
    /// `weights` is `None` under `priority/basic`; `jobs` are the pending jobs multifactor orders: not held, not
    /// waiting for their begin time, without a priority an administrator set.
    PriorityFactors {
        weights: Option<crate::policy::priority::PriorityWeights>,
        jobs: Vec<crate::policy::priority::JobFactors>,
        now: i64,
    },
    /// Every reservation, by name.
    Reservations {
        reservations: Vec<crate::model::reservation::ReservationRecord>,
        now: i64,
    },
    /// Every configured license with what running jobs use of it, by name.
    Licenses {
        licenses: Vec<crate::model::records::LicenseRecord>,
    },
    /// The chosen steps that are running (none: the job or the step is not running).
    StepUsage {
        steps: Vec<crate::model::step_usage::StepUsage>,
    },
    /// topology.conf's switches in file order; none without `TopologyPlugin=topology/tree`.
    Topology {
        switches: Vec<crate::policy::switch_tree::Switch>,
    },
    /// The nodes asked to connect to sattach, in the step's order (a node's index is its place here).
    StepAttach {
        nodes: Vec<String>,
    },
    /// The selected accounting records in submission order, the cluster's name and the controller's clock.
    Accounting {
        records: Vec<crate::model::accounting::JobAccounting>,
        cluster: String,
        now: i64,
    },
    /// The accounting entities (`sacctmgr show`).
    AcctDb {
        db: crate::model::assoc::AcctDb,
    },
    /// What `sshare` shows: the associations, their usage and how the factor is computed (the client ranks them
    /// with [`crate::policy::fair_tree::shares`], as the scheduler does), and the running jobs' `TRESRunMins` by
    /// association key.
    Shares {
        db: crate::model::assoc::AcctDb,
        usage: crate::policy::fairshare::FairShareUsage,
        fair_tree: bool,
        #[serde(default)]
        run_mins: std::collections::BTreeMap<String, crate::policy::fairshare::TresRunMins>,
    },
    /// The jobs an edit of accounting records would change, in job id order, or why it would fail.
    JobRecordEdit {
        result: Result<Vec<crate::model::job_edit::EditedJob>, ApiError>,
    },
    /// The nodes asked to connect to sbcast, in order (a node's index is its place here).
    Bcast {
        nodes: Vec<String>,
    },
    /// The triggers waiting for their event, in the order slurmctld lists them.
    Triggers {
        triggers: Vec<crate::model::trigger::TriggerRecord>,
    },
}

/// Which jobs a control request addresses: a job id alone also addresses every task of an array it is the master of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSelector {
    pub job_id: u32,
    /// `12_3` addresses one task of array 12.
    #[serde(default)]
    pub array_task: Option<u32>,
}

/// Fields `scontrol update JobId=...` may change.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JobUpdate {
    #[serde(default, with = "crate::model::clearable")]
    pub time_limit_min: Option<Option<u32>>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub partition: Option<String>,
    #[serde(default)]
    pub nice: Option<i32>,
    #[serde(default)]
    pub priority: Option<u32>,
    #[serde(default)]
    pub comment: Option<String>,
    #[serde(default)]
    pub num_tasks: Option<u32>,
    #[serde(default)]
    pub dependency: Option<String>,
    #[serde(default)]
    pub begin_time: Option<i64>,
    /// `Reservation=NAME` (empty: none).
    #[serde(default)]
    pub reservation: Option<String>,
    /// `ArrayTaskThrottle=N` of an array (0: no limit): how many of its tasks may run at once.
    #[serde(default)]
    pub array_throttle: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SignalScope {
    /// `scancel --batch`: only the batch shell.
    BatchShell,
    /// `--full` (and Spur's internal signals): every process of the job.
    All,
    /// `scancel -s SIG` without `--batch` or `--full`: only the tasks of the job's running steps; a job without
    /// running steps is left alone.
    Steps,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ControlRequest {
    /// scancel without `-s`: terminate, record CANCELLED.
    Cancel {
        job: JobSelector,
    },
    /// scancel `-s SIG`: deliver a signal, the job keeps its state.
    Signal {
        job: JobSelector,
        signal: i32,
        scope: SignalScope,
    },
    Hold {
        job: JobSelector,
        by_user: bool,
    },
    Release {
        job: JobSelector,
    },
    Requeue {
        job: JobSelector,
        hold: bool,
    },
    UpdateJob {
        job: JobSelector,
        update: JobUpdate,
    },
    /// `scontrol update NodeName=...`, `slurm_update_node` (administrators only). `None` leaves a field as it is.
    UpdateNode {
        nodes: Vec<String>,
        /// Entries written before weights could change always carry a state, which decodes as `Some`.
        #[serde(default)]
        state: Option<NodeUpdateState>,
        reason: Option<String>,
        /// `Weight=`: the node's scheduling weight (lower weights are used first).
        #[serde(default)]
        weight: Option<u32>,
        /// `Features=`/`AvailableFeatures=`: the node's features (active ones too, as Slurm without a node
        /// features plugin); empty clears them.
        #[serde(default)]
        features: Option<Vec<String>>,
        /// `ActiveFeatures=`: must be a subset of the available ones; Spur keeps one list, so it may only equal
        /// them.
        #[serde(default)]
        active_features: Option<Vec<String>>,
    },
    /// `scontrol update PartitionName=... State=...`.
    UpdatePartition {
        name: String,
        state: PartitionState,
    },
    /// `slurm_complete_job`: the client that ran an allocation's work (salloc, srun) reports it ended.
    Complete {
        job: JobSelector,
        exit_code: u32,
        signal: u32,
    },
    /// srun registers a step of a running job; the reply carries its id.
    CreateStep {
        job_id: u32,
        name: String,
        num_tasks: u32,
        num_cpus: u32,
        #[serde(default)]
        time_limit_min: Option<u32>,
        #[serde(default)]
        srun_host: String,
        #[serde(default)]
        srun_pid: u32,
        /// Tasks to start through the nodes' agents (a step on other nodes than srun's own); `None` when srun
        /// runs the tasks itself.
        #[serde(default)]
        launch: Option<Box<crate::model::step_launch::StepLaunch>>,
        /// `srun --resv-ports[=N]` (`Some(0)`: none, whatever `MpiParams` says); `None`: as `MpiParams` says
        /// (`ports=`: the most tasks on any of the step's nodes plus one).
        #[serde(default)]
        resv_port_cnt: Option<u16>,
    },
    /// `scontrol suspend`: the job's processes are stopped, its run time and time limit stand still.
    Suspend {
        job: JobSelector,
    },
    /// `scontrol resume`: a suspended job continues.
    Resume {
        job: JobSelector,
    },
    /// `scancel JOB.STEP`: the step is recorded CANCELLED; its srun sees that and kills the tasks.
    CancelStep {
        job_id: u32,
        step_id: u32,
    },
    /// srun reports how a step ended (its worst task).
    CompleteStep {
        job_id: u32,
        step_id: u32,
        exit_code: u32,
        signal: u32,
        /// What the step's tasks used (`jobacct_gather`), merged by srun from its nodes' reports; `None` when
        /// nothing was gathered (or from an srun that predates it). Only the first report of a step is kept.
        #[serde(default)]
        usage: Option<Box<crate::model::step_acct::StepAcct>>,
    },
    /// `scontrol top LIST`: the listed pending jobs go ahead of their owner's other jobs in the same partition,
    /// through their nice values. The list travels as typed, so the controller reports a bad item as Slurm does.
    Top {
        job_list: String,
    },
    /// `scancel -s SIG JOB.STEP`, `slurm_signal_job_step`: the tasks of one running srun step.
    SignalStep {
        job_id: u32,
        step_id: u32,
        signal: i32,
    },
    /// `scontrol create reservation` (administrators only); the reply names the reservation made.
    CreateReservation {
        request: crate::model::reservation::ReservationRequest,
    },
    /// `scontrol update ReservationName=...` (administrators only).
    UpdateReservation {
        request: crate::model::reservation::ReservationRequest,
    },
    /// `scontrol delete ReservationName=...` (administrators only).
    DeleteReservation {
        name: String,
    },
    /// `scontrol create PartitionName=...`, `slurm_create_partition` (administrators only).
    CreatePartition {
        spec: crate::model::partition_spec::PartitionSpec,
    },
    /// `scontrol update PartitionName=...`, `slurm_update_partition`: any field (administrators only).
    ModifyPartition {
        spec: crate::model::partition_spec::PartitionSpec,
    },
    /// `scontrol delete PartitionName=...`, `slurm_delete_partition` (administrators only).
    DeletePartition {
        name: String,
    },
    /// `scontrol update StepId=J[.S] TimeLimit=...`, `slurm_update_step`: `step_id` `None` is every step of the job;
    /// `time_limit_min` `None` is UNLIMITED.
    UpdateStep {
        job_id: u32,
        #[serde(default)]
        step_id: Option<u32>,
        #[serde(default)]
        time_limit_min: Option<u32>,
    },
    /// `scontrol notify`, `slurm_notify_job`: a message for the job's user, written to a running batch job's
    /// stderr.
    NotifyJob {
        job_id: u32,
        message: String,
    },
    /// `scontrol create NodeName=...`, `slurm_create_node`: the node line as given (administrators only).
    CreateNode {
        definition: String,
    },
    /// `scontrol delete NodeName=LIST`, `slurm_delete_node` (administrators only).
    DeleteNode {
        nodes: String,
    },
    /// `sacctmgr add|modify|delete`: a change of the accounting entities (administrators only); the reply's
    /// `acct` says what changed or why nothing did.
    Accounting {
        request: crate::model::assoc::AcctRequest,
    },
    /// `sacctmgr modify job`, `slurmdb_job_modify` once committed: an edit of jobs' accounting records (their
    /// owner may set the comment, derived exit code and WCKey; operators also the admin and system comments).
    /// The reply's `edited_jobs` lists the jobs changed.
    ModifyJobRecords {
        request: crate::model::job_edit::JobEditRequest,
    },
    /// `scontrol reconfigure` (administrators only): the controller reads slurm.conf again and applies it as it
    /// does at start; what only a restart changes (its own address, state directory, authentication) waits.
    Reconfigure,
    /// `strigger --set`: a trigger owned by the caller (SlurmUser and root only, unless
    /// `SlurmctldParameters=allow_user_triggers`); `group_id` is the caller's, filled in by the controller from
    /// the credential, whatever the client sent.
    SetTrigger {
        trigger: crate::model::trigger::TriggerSpec,
        #[serde(default)]
        group_id: u32,
        /// Whether the program is a regular file the caller may execute, as the controller found it when the
        /// request came (slurmctld refuses others with `Access/permission denied`); set by the controller.
        #[serde(default)]
        executable: bool,
    },
    /// `strigger --clear`: the caller's triggers (root: anyone's) with this id, of this job, of this user; 0 and
    /// `None` match any.
    ClearTrigger {
        #[serde(default)]
        trig_id: u32,
        #[serde(default)]
        job_id: u32,
        #[serde(default)]
        user_id: Option<u32>,
    },
    /// `spur migrate import-jobs` (administrators only): finished jobs' records read from a real Slurm's sacct
    /// output, added to the job history store. Records whose (job id, submit time) is already known are skipped,
    /// so importing twice adds nothing; the job id counter moves past the largest id imported. The reply's
    /// `edited_jobs` lists the records added.
    ImportJobs {
        records: Vec<crate::model::accounting::JobAccounting>,
    },
}

/// A node's features as `scontrol update NodeName= Features=` gives them (comma-separated, as slurm.conf's
/// `Features=`); an empty text is none.
pub fn feature_list(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    text.split(',').map(str::to_string).collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeUpdateState {
    Drain,
    Resume,
    Down,
    Idle,
    Undrain,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlReply {
    /// Per addressed job: its display id and the error, if that job failed (scancel reports each).
    #[serde(default)]
    pub failures: Vec<(String, ApiError)>,
    /// The id of the step a `CreateStep` made.
    #[serde(default)]
    pub step_id: Option<u32>,
    /// The name of the reservation a `CreateReservation` made.
    #[serde(default)]
    pub reservation: Option<String>,
    /// What an `Accounting` request changed, or why it changed nothing.
    #[serde(default)]
    pub acct: Option<crate::model::assoc::AcctResult>,
    /// The jobs a `ModifyJobRecords` changed, in job id order.
    #[serde(default)]
    pub edited_jobs: Vec<crate::model::job_edit::EditedJob>,
    /// The ports a `CreateStep` reserved (`MpiParams=ports=`), as `SLURM_STEP_RESV_PORTS` shows them.
    #[serde(default)]
    pub resv_ports: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant but Spur's own `NotLeader` against libslurm's numbers and texts.
    #[test]
    fn an_unlimited_time_limit_survives_the_trip_to_the_controller() {
        // `scontrol update TimeLimit=UNLIMITED` is `Some(None)`; plain serde would send it as "leave alone".
        let update = JobUpdate {
            time_limit_min: Some(None),
            ..Default::default()
        };
        let json = serde_json::to_string(&update).unwrap();
        let back: JobUpdate = serde_json::from_str(&json).unwrap();
        assert_eq!(back.time_limit_min, Some(None));
    }

    #[test]
    fn errno_codes_and_texts_match_libslurm() {
        let table = include_str!("../../tests/vectors/slurm_errno.tsv");
        let rows: Vec<&str> = table
            .lines()
            .filter(|l| !l.starts_with('#'))
            .skip(1)
            .collect();
        assert_eq!(rows.len(), ALL_ERRNOS.len() - 1);
        for row in rows {
            let cells: Vec<&str> = row.split('\t').collect();
            let errno = ALL_ERRNOS
                .iter()
                .copied()
                .find(|e| format!("{e:?}") == cells[0])
                .unwrap_or_else(|| panic!("no variant {}", cells[0]));
            assert_eq!(errno.code().to_string(), cells[1], "{errno:?}");
            assert_eq!(errno.text(), cells[2], "{errno:?}");
            assert_eq!(SlurmErrno::from_code(errno.code()), Some(errno));
        }
    }

    /// Numbers checked against libslurm 22.05.8 (`slurm_errno.h`); each must map back to one errno.
    #[test]
    fn errno_numbers_are_slurms_and_unique() {
        for errno in ALL_ERRNOS {
            assert_eq!(
                SlurmErrno::from_code(errno.code()),
                Some(errno),
                "{errno:?}"
            );
        }
        assert_eq!(SlurmErrno::NodesBusy.code(), 2016);
        assert_eq!(SlurmErrno::NotTopPriority.code(), 2013);
        assert_eq!(SlurmErrno::JobPending.code(), 2024);
        assert_eq!(
            SlurmErrno::NotTopPriority.text(),
            "Immediate execution impossible, insufficient priority"
        );
    }
}
