//! The gate before placement: what keeps a pending job waiting whatever the nodes have (holds, dependencies, begin
//! time, reservation, partition state and time limit, array throttle), each with Slurm's pending reason. The
//! scheduler's pass asks it of every pending job, and `--immediate` asks it at submission.

use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::model::states::JobReason;

use super::dependency::{dependency_status, DependencyStatus};
use crate::state::ClusterState;

/// Why a job may not start yet regardless of resources, or `None` when only resources decide.
pub(crate) fn gate(
    state: &ClusterState,
    job: &JobRecord,
    now: EpochSecs,
    running_per_array: &mut ArrayCounts<'_>,
) -> Option<JobReason> {
    match job.hold {
        Some(spur_core::model::job::HoldKind::Admin) => return Some(JobReason::Held),
        Some(spur_core::model::job::HoldKind::User) => return Some(JobReason::HeldUser),
        None => {}
    }
    if let Some(dep) = &job.spec.dependency {
        match dependency_status(state, job, dep, now) {
            DependencyStatus::Satisfied => {}
            DependencyStatus::Waiting => return Some(JobReason::Dependency),
            DependencyStatus::Never => return Some(JobReason::DepInvalid),
        }
    }
    if job.spec.begin_time.is_some_and(|begin| begin > now) {
        return Some(JobReason::Time);
    }
    if let Some(name) = &job.spec.reservation {
        match state.reservations.get(name) {
            Some(r) if r.end <= now => return Some(JobReason::ResvDeleted),
            Some(r) if !r.is_active(now) => return Some(JobReason::Reservation),
            Some(_) => {}
            None => return Some(JobReason::ResvDeleted),
        }
    }
    let partition = state.partition(&job.partition)?;
    // slurmctld checks its partition's limits before the partition's state.
    if let Some(limit) = super::request::partition_limit(state, &job.spec, partition) {
        return Some(limit.reason());
    }
    if partition.state != spur_core::model::records::PartitionState::Up {
        return Some(JobReason::PartDown);
    }
    if let (Some(limit), Some(max)) = (job.time_limit_min, partition.max_time_min) {
        if limit > max {
            return Some(JobReason::PartTimeLimit);
        }
    }
    if job.time_limit_min.is_none() && partition.max_time_min.is_some() {
        return Some(JobReason::PartTimeLimit);
    }
    if let (Some(array), Some(throttle)) = (job.array_job_id, array_throttle(job)) {
        if running_per_array.running(array) >= throttle {
            return Some(JobReason::ArrayTaskLimit);
        }
    }
    None
}

fn array_throttle(job: &JobRecord) -> Option<u32> {
    spur_core::grammar::values::array::throttle(job.spec.array.as_deref()?)
        .ok()
        .flatten()
}

/// Running tasks per array, counted on first use: only arrays with a `%` throttle need them, and counting walks
/// every job of the queue.
pub(crate) struct ArrayCounts<'s> {
    state: &'s ClusterState,
    counted: Option<std::collections::BTreeMap<u32, u32>>,
    /// Tasks this pass starts, which the state does not show yet.
    started_here: std::collections::BTreeMap<u32, u32>,
}

impl<'s> ArrayCounts<'s> {
    pub(crate) fn new(state: &'s ClusterState) -> Self {
        ArrayCounts {
            state,
            counted: None,
            started_here: std::collections::BTreeMap::new(),
        }
    }

    pub(crate) fn running(&mut self, array: u32) -> u32 {
        let state = self.state;
        let counted = self
            .counted
            .get_or_insert_with(|| running_tasks_per_array(state));
        counted.get(&array).copied().unwrap_or(0)
            + self.started_here.get(&array).copied().unwrap_or(0)
    }

    /// A task of `array` starts in this pass.
    pub(crate) fn started(&mut self, array: u32) {
        *self.started_here.entry(array).or_default() += 1;
    }
}

fn running_tasks_per_array(state: &ClusterState) -> std::collections::BTreeMap<u32, u32> {
    let mut counts = std::collections::BTreeMap::new();
    for job in state.jobs.values() {
        if let (Some(array), true) = (
            job.array_job_id,
            crate::state::started_and_live(job) || job.completing,
        ) {
            *counts.entry(array).or_default() += 1;
        }
    }
    counts
}
