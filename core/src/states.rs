//! PROVISIONAL (replaced by the full Slurm state/reason tables): job states and pending reasons.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JobState {
    Pending,
    Running,
    Suspended,
    Completed,
    Cancelled,
    Failed,
    Timeout,
    NodeFail,
    Preempted,
    BootFail,
    Deadline,
    OutOfMemory,
    Requeued,
}

impl JobState {
    pub fn is_finished(self) -> bool {
        !matches!(
            self,
            JobState::Pending | JobState::Running | JobState::Suspended | JobState::Requeued
        )
    }
    /// `PENDING`, `RUNNING`, ... as scontrol and `squeue -l` print them.
    pub fn long_name(self) -> &'static str {
        match self {
            JobState::Pending => "PENDING",
            JobState::Running => "RUNNING",
            JobState::Suspended => "SUSPENDED",
            JobState::Completed => "COMPLETED",
            JobState::Cancelled => "CANCELLED",
            JobState::Failed => "FAILED",
            JobState::Timeout => "TIMEOUT",
            JobState::NodeFail => "NODE_FAIL",
            JobState::Preempted => "PREEMPTED",
            JobState::BootFail => "BOOT_FAIL",
            JobState::Deadline => "DEADLINE",
            JobState::OutOfMemory => "OUT_OF_MEMORY",
            JobState::Requeued => "REQUEUED",
        }
    }
    /// `PD`, `R`, ... as squeue's ST column prints them.
    pub fn short_name(self) -> &'static str {
        match self {
            JobState::Pending => "PD",
            JobState::Running => "R",
            JobState::Suspended => "S",
            JobState::Completed => "CD",
            JobState::Cancelled => "CA",
            JobState::Failed => "F",
            JobState::Timeout => "TO",
            JobState::NodeFail => "NF",
            JobState::Preempted => "PR",
            JobState::BootFail => "BF",
            JobState::Deadline => "DL",
            JobState::OutOfMemory => "OOM",
            JobState::Requeued => "RQ",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JobReason {
    None,
    Priority,
    Resources,
    Dependency,
    DependencyNeverSatisfied,
    BeginTime,
    JobHeldUser,
    JobHeldAdmin,
    PartitionDown,
    PartitionTimeLimit,
    PartitionConfig,
    PartitionNodeLimit,
    JobArrayTaskLimit,
    NonZeroExitCode,
    RaisedSignal,
    TimeLimit,
    NodeDown,
    JobLaunchFailure,
    BadConstraints,
}

impl JobReason {
    /// The name squeue and scontrol print (`Reason=Resources`).
    pub fn as_str(self) -> &'static str {
        match self {
            JobReason::None => "None",
            JobReason::Priority => "Priority",
            JobReason::Resources => "Resources",
            JobReason::Dependency => "Dependency",
            JobReason::DependencyNeverSatisfied => "DependencyNeverSatisfied",
            JobReason::BeginTime => "BeginTime",
            JobReason::JobHeldUser => "JobHeldUser",
            JobReason::JobHeldAdmin => "JobHeldAdmin",
            JobReason::PartitionDown => "PartitionDown",
            JobReason::PartitionTimeLimit => "PartitionTimeLimit",
            JobReason::PartitionConfig => "PartitionConfig",
            JobReason::PartitionNodeLimit => "PartitionNodeLimit",
            JobReason::JobArrayTaskLimit => "JobArrayTaskLimit",
            JobReason::NonZeroExitCode => "NonZeroExitCode",
            JobReason::RaisedSignal => "RaisedSignal",
            JobReason::TimeLimit => "TimeLimit",
            JobReason::NodeDown => "NodeDown",
            JobReason::JobLaunchFailure => "JobLaunchFailure",
            JobReason::BadConstraints => "BadConstraints",
        }
    }
}
