//! Whether a request could run here at all, checked when it is submitted (and by `--immediate`, `--test-only`
//! and the API before a submission is committed): the partition, dependency syntax, named nodes, features, and
//! whether any of the partition's nodes could ever hold it.

use spur_core::model::job::{EpochSecs, JobRecord, JobSpec};
use spur_core::model::records::NodeRecord;
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, SlurmErrno, TrialPlacement};

use super::gate::{gate, ArrayCounts};
use super::placement::{self, place};
use super::{dependency, reservations};
use crate::state::ClusterState;

/// Expands `--array` into task ids, refusing what Slurm refuses (`MaxArraySize`).
pub fn array_task_ids(text: &str, max_array_size: u32) -> Result<Vec<u32>, String> {
    let spec = spur_core::grammar::values::array::parse_array_spec(text, max_array_size)
        .map_err(|e| e.to_string())?;
    Ok(spec.task_ids().collect())
}

/// Refuses at submit time what slurmctld refuses: an unknown partition, dependency, node or feature, and a request
/// no node of the partition could hold (memory, GRES, CPUs per node). A request beyond the partition's limits
/// (more CPUs than all its nodes have, more nodes than it has) is accepted and pends with reason
/// `PartitionConfig` or `PartitionNodeLimit` ([`partition_limit`]), as in Slurm, unless `EnforcePartLimits` (Slurm's
/// errors) or `SchedulerParameters=spur_refuse_unrunnable` (the node configuration error) says to refuse it. Like
/// Slurm, a job submitted held skips the checks against the nodes (`sbatch -H -x <the only node>` is accepted).
pub fn validate_request(
    state: &ClusterState,
    spec: &JobSpec,
    partition: &str,
) -> Result<(), ApiError> {
    let Some(part) = state.partition(partition) else {
        return Err(ApiError::new(SlurmErrno::InvalidPartitionName));
    };
    if let Some(dep) = &spec.dependency {
        dependency::validate(state, dep)?;
    }
    for list in [&spec.required_nodes, &spec.excluded_nodes]
        .into_iter()
        .flatten()
    {
        let known = spur_core::grammar::hostlist::expand_at_most(
            list,
            spur_core::grammar::hostlist::MAX_JOB_NODE_LIST,
        )
        .is_ok_and(|names| names.iter().all(|n| state.nodes.contains_key(n)));
        if !known {
            return Err(ApiError::new(SlurmErrno::InvalidNodeName));
        }
    }
    if let Some(text) = spec.constraint.as_deref() {
        let known = |feature: &str| {
            state
                .nodes
                .values()
                .any(|n| n.features.iter().any(|f| f == feature))
        };
        spur_core::grammar::values::constraint::parse_constraint_known(text, &known)
            .map_err(|_| ApiError::new(SlurmErrno::InvalidFeature))?;
    }
    // Like slurmctld, a held job is judged only when it is released.
    if spec.hold {
        return Ok(());
    }
    if spec.nodes_min == 0 {
        return Err(ApiError::new(SlurmErrno::InvalidNodeCount));
    }
    enforce_part_limits(state, spec, partition)?;
    // slurmctld judges the nodes only for a job within its partition's limits.
    if partition_limit(state, spec, part).is_some() && !state.settings.refuse_unrunnable {
        return Ok(());
    }
    // Lazily: with thousands of nodes, looking every one up by name for each submission was nearly all of its
    // cost, while the checks below stop at the first node that qualifies.
    let nodes = || state.nodes_named(&part.nodes).map(|(_, node)| node);
    let nodes_min = spec.nodes_min as usize;
    if nodes_min > part.nodes.len() || (nodes_min > 1 && nodes().nth(nodes_min - 1).is_none()) {
        return Err(ApiError::new(SlurmErrno::RequestedNodeConfigUnavailable));
    }
    if let Some(detail) = per_node_shortfall(spec, nodes) {
        return Err(ApiError::with_detail(
            SlurmErrno::RequestedNodeConfigUnavailable,
            detail,
        ));
    }
    let probe = probe_record(spec, partition);
    let empty = placement::Ledger::empty();
    if place(state, &empty, &probe).is_none() {
        return Err(ApiError::new(SlurmErrno::RequestedNodeConfigUnavailable));
    }
    Ok(())
}

/// Whether a submission refused with `error` uses up a job id: slurmctld creates the job record before it judges
/// the request against the nodes.
pub fn refusal_uses_job_id(error: &ApiError) -> bool {
    matches!(
        error.errno,
        SlurmErrno::RequestedNodeConfigUnavailable
            | SlurmErrno::InvalidNodeCount
            | SlurmErrno::RequestedPartConfigUnavailable
            | SlurmErrno::NotTopPriority
            | SlurmErrno::NodesBusy
    )
}

/// Which of its partition's limits a job is beyond, as slurmctld's `job_limits_check` finds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionLimit {
    /// More CPUs than the partition's nodes have together: pends with `PartitionConfig`.
    Cpus,
    /// More nodes than the partition has, or outside its `MinNodes`/`MaxNodes`: pends with `PartitionNodeLimit`.
    Nodes,
}

impl PartitionLimit {
    pub fn reason(self) -> spur_core::model::states::JobReason {
        match self {
            PartitionLimit::Cpus => spur_core::model::states::JobReason::PartConfig,
            PartitionLimit::Nodes => spur_core::model::states::JobReason::PartNodeLimit,
        }
    }
}

/// The CPUs slurmctld counts for a job against its partition (`min_cpus`): every task's CPUs, with one task per
/// node when no task count was given.
fn requested_cpus(spec: &JobSpec) -> u32 {
    let nodes = spec.nodes_min.max(1);
    // Overcommitted, `min_cpus` is the node count (sbatch/srun send that instead of the tasks' CPUs).
    if spec.overcommit() {
        return nodes;
    }
    let tasks = spec.ntasks.unwrap_or_else(|| {
        spec.ntasks_per_node
            .map_or(nodes, |n| n.saturating_mul(nodes))
    });
    // Slurm multiplies tasks by CPUs per task in 32 bits and keeps the wrapped product (`sbatch -n 1073741824 -c 4`
    // asks for 0 CPUs, so its partition check passes and the per-node check refuses it): the same arithmetic gives
    // the same answer. The product only decides which limit a job is held or refused by; nothing is sized from it.
    tasks.wrapping_mul(spec.cpus_per_task.max(1)).max(nodes)
}

/// Whether `spec` is beyond partition `part`'s limits: its CPUs beyond all the partition's nodes', then its node
/// count beyond the partition's nodes, `MinNodes` or `MaxNodes` (the order slurmctld checks them in). The
/// scheduler's gate keeps such a job pending with the limit's reason.
pub fn partition_limit(
    state: &ClusterState,
    spec: &JobSpec,
    part: &spur_core::model::records::PartitionRecord,
) -> Option<PartitionLimit> {
    let cpus = requested_cpus(spec);
    // Every node has a CPU at least, so most jobs are judged without summing the partition's nodes (which the
    // scheduler's pass would otherwise do for every pending job).
    if cpus as usize > part.nodes.len() {
        let total = state
            .nodes_named(&part.nodes)
            .fold(0u32, |sum, (_, n)| sum.saturating_add(n.cpus));
        if cpus > total {
            return Some(PartitionLimit::Cpus);
        }
    }
    let too_many = spec.nodes_min as usize > part.nodes.len();
    // slurmctld raises a smaller node count to the partition's `MinNodes` where the job's maximum allows it.
    let below_min =
        spec.nodes_min < part.min_nodes && spec.nodes_max.is_some_and(|max| max < part.min_nodes);
    let above_max = part
        .max_nodes
        .is_some_and(|max| spec.nodes_max.unwrap_or(spec.nodes_min) > max);
    (too_many || below_min || above_max).then_some(PartitionLimit::Nodes)
}

/// `EnforcePartLimits`: slurmctld refuses a job beyond its partition's limits as it validates the request, before
/// the job exists (so, unlike the node checks, without using up a job id). Held jobs are not exempt.
pub fn enforce_part_limits(
    state: &ClusterState,
    spec: &JobSpec,
    partition: &str,
) -> Result<(), ApiError> {
    if !state.settings.enforce_part_limits {
        return Ok(());
    }
    let Some(part) = state.partition(partition) else {
        return Ok(());
    };
    match partition_limit(state, spec, part) {
        Some(PartitionLimit::Cpus) => Err(ApiError::new(SlurmErrno::TooManyRequestedCpus)),
        Some(PartitionLimit::Nodes) => Err(ApiError::new(SlurmErrno::InvalidNodeCount)),
        None => Ok(()),
    }
}

/// Slurm's estimate of the nodes a job pending without an allocation needs (`NumNodes=`, squeue `%D`), made from
/// its tasks and the most CPUs a node of its partition has.
pub fn pending_node_estimate(state: &ClusterState, spec: &JobSpec, partition: &str) -> Option<u32> {
    let part = state.partition(partition)?;
    let max_cpus = state
        .nodes_named(&part.nodes)
        .map(|(_, n)| n.cpus)
        .max()
        .filter(|c| *c > 0)?;
    let nodes_min = spec.nodes_min.max(1);
    let tasks = spec.ntasks.unwrap_or_else(|| {
        spec.ntasks_per_node
            .map_or(0, |n| n.saturating_mul(nodes_min))
    });
    // Overcommitted, tasks do not add nodes.
    if spec.overcommit() {
        return Some(nodes_min);
    }
    let cpt = spec.cpus_per_task.max(1);
    let estimate = match spec.ntasks_per_node.filter(|n| *n > 0) {
        Some(per_node) => (tasks / per_node).max(nodes_min),
        None if cpt > 1 => {
            let per_node = (max_cpus / cpt).max(1);
            // slurmctld adds the partly filled node after taking the larger of the two.
            (tasks / per_node).max(nodes_min) + u32::from(!tasks.is_multiple_of(per_node))
        }
        None => tasks.div_ceil(max_cpus).max(nodes_min),
    };
    Some(estimate)
}

/// More nodes or CPUs than the whole partition has: slurmctld queues such a job with reason `PartitionConfig`
/// (an `--immediate` one is refused with that), where other impossible requests fail its node selection.
fn beyond_partition(state: &ClusterState, spec: &JobSpec, partition: &str) -> bool {
    let Some(part) = state.partition(partition) else {
        return false;
    };
    let nodes: Vec<&NodeRecord> = state
        .nodes_named(&part.nodes)
        .map(|(_, node)| node)
        .collect();
    let probe = probe_record(spec, partition);
    let nodes_min = spec.nodes_min.max(1);
    let per_node = placement::shared_cpus_per_node(&probe);
    let by_tasks = if spec.overcommit() {
        0
    } else {
        spec.ntasks
            .unwrap_or(0)
            .saturating_mul(spec.cpus_per_task.max(1))
    };
    let cpus = by_tasks.max(per_node.saturating_mul(nodes_min));
    let total: u32 = nodes.iter().fold(0, |sum, n| sum.saturating_add(n.cpus));
    nodes_min as usize > nodes.len() || cpus > total || nodes.iter().all(|n| n.cpus < per_node)
}

/// slurmctld first keeps the partition's nodes that have the CPUs (`--mincpus`), memory and temporary disk the
/// job asks for on each node; when none is left it says which of these, in that order, no node has.
fn per_node_shortfall<'s, I>(spec: &JobSpec, nodes: impl Fn() -> I) -> Option<&'static str>
where
    I: Iterator<Item = &'s NodeRecord>,
{
    // What slurmctld keeps as the job's CPUs per node: `--mincpus`, or a task's CPUs times the tasks each node
    // must run (`-N2 --ntasks-per-node=3`, `-c3`), whichever is larger.
    let per_task = spec.cpus_per_task.max(1);
    // Overcommitted, slurmctld does not raise the per-node CPUs to the tasks per node.
    let tasks_per_node = match spec.ntasks_per_node {
        Some(n) if !spec.overcommit() => n.max(1),
        _ => 1,
    };
    let min_cpus = spec
        .min_cpus_per_node
        .unwrap_or(0)
        .max(per_task.saturating_mul(tasks_per_node));
    if !nodes().any(|n| n.cpus >= min_cpus) {
        return Some("CPU count per node can not be satisfied");
    }
    let mem_mb = match (spec.mem_per_node_mb, spec.mem_per_cpu_mb) {
        (Some(per_node), _) => per_node,
        // The filter counts one task's CPUs (or --mincpus), not every task's: `--mem-per-cpu=20G -n2` on a 23 GB
        // node passes it and is refused later without a detail.
        (None, Some(per_cpu)) => per_cpu.saturating_mul(u64::from(min_cpus.max(1))),
        (None, None) => 0,
    };
    if !nodes().any(|n| n.real_memory_mb >= mem_mb) {
        return Some("Memory specification can not be satisfied");
    }
    if !nodes().any(|n| n.tmp_disk_mb >= spec.tmp_disk_mb) {
        return Some("Temporary disk specification can not be satisfied");
    }
    None
}

/// The partition a job not yet submitted would go to.
fn probe_partition(state: &ClusterState, spec: &JobSpec) -> Result<String, ApiError> {
    match &spec.partition {
        Some(p) => p
            .split(',')
            .find(|c| state.partition(c).is_some())
            .map(str::to_string),
        None => state.default_partition().map(|p| p.name.clone()),
    }
    .ok_or_else(|| ApiError::new(SlurmErrno::InvalidPartitionName))
}

/// `--immediate` without a wait: whether the job could start right now. Like Slurm, a job that an eligible
/// pending job of its partition would have to overtake is refused with `NotTopPriority`, one whose resources are
/// taken with `NodesBusy`; what could never run gets the usual submit error.
pub fn immediate_check(
    state: &ClusterState,
    spec: &JobSpec,
    now: EpochSecs,
) -> Result<(), ApiError> {
    let partition = validate_immediate(state, spec)?;
    // A job that is not yet eligible (held, or beginning later) cannot start now: slurmctld fails it as not
    // independent, which it reports as a dependency problem (`srun --immediate --hold`).
    if spec.hold || spec.begin_time.is_some_and(|begin| begin > now) {
        return Err(ApiError::new(SlurmErrno::InvalidDependency));
    }
    let mut running_per_array = ArrayCounts::new(state);
    let waiting_ahead = state.jobs.values().any(|job| {
        job.state == JobBaseState::Pending
            && job.partition == partition
            && gate(state, job, now, &mut running_per_array).is_none()
    });
    if waiting_ahead {
        return Err(ApiError::new(SlurmErrno::NotTopPriority));
    }
    let probe = probe_record(spec, &partition);
    let ledger = placement::Ledger::from_state(state);
    let book = reservations::Book::new(state, now);
    let end = probe
        .time_limit_min
        .map_or(EpochSecs::MAX, |m| now.saturating_add(i64::from(m) * 60));
    let avail = book.filter(&ledger, &probe, now, end);
    let startable = gate(state, &probe, now, &mut running_per_array).is_none()
        && placement::place_with(state, &avail, &probe).is_some();
    if startable {
        Ok(())
    } else {
        Err(ApiError::new(SlurmErrno::NodesBusy))
    }
}

/// The checks slurmctld makes of any `--immediate` request (srun's and salloc's `--immediate=N` too): a request
/// the partition can never satisfy would pend with reason `PartitionConfig`; asked to start at once, it is
/// refused with that reason's error. Returns the partition the job would go to.
pub fn validate_immediate(state: &ClusterState, spec: &JobSpec) -> Result<String, ApiError> {
    let partition = probe_partition(state, spec)?;
    validate_request(state, spec, &partition).map_err(|e| match e.errno {
        SlurmErrno::RequestedNodeConfigUnavailable
            if e.detail.is_none() && beyond_partition(state, spec, &partition) =>
        {
            ApiError::new(SlurmErrno::RequestedPartConfigUnavailable)
        }
        _ => e,
    })?;
    // Accepted to pend beyond the partition's limits, but not now.
    let beyond_limits = !spec.hold
        && state
            .partition(&partition)
            .and_then(|part| partition_limit(state, spec, part))
            .is_some();
    if beyond_limits {
        return Err(ApiError::new(SlurmErrno::RequestedPartConfigUnavailable));
    }
    Ok(partition)
}

fn probe_record(spec: &JobSpec, partition: &str) -> JobRecord {
    JobRecord::pending(0, spec.clone(), partition.to_string(), 0, 0)
}

/// `--test-only`: where the job would run if submitted now. A job that must wait is reported at the earliest end
/// of a running job that would free room, as Slurm estimates it from time limits.
pub fn trial_placement(
    state: &ClusterState,
    spec: &JobSpec,
    now: EpochSecs,
) -> Result<TrialPlacement, ApiError> {
    let partition = probe_partition(state, spec)?;
    validate_request(state, spec, &partition)?;
    // slurmctld's will-run test finds no nodes for a job beyond its partition (`sbatch --test-only -n 64`).
    let beyond_limits = state
        .partition(&partition)
        .and_then(|part| partition_limit(state, spec, part))
        .is_some();
    if beyond_limits {
        return Err(ApiError::new(SlurmErrno::RequestedNodeConfigUnavailable));
    }
    let probe = probe_record(spec, &partition);
    let ledger = placement::Ledger::from_state(state);
    let (alloc, start_time) = match place(state, &ledger, &probe) {
        Some(alloc) => (alloc, now),
        None => {
            let empty = placement::Ledger::empty();
            let alloc = place(state, &empty, &probe)
                .ok_or_else(|| ApiError::new(SlurmErrno::RequestedNodeConfigUnavailable))?;
            let end = state
                .jobs
                .values()
                .filter(|j| j.state == JobBaseState::Running)
                .filter_map(|j| Some(j.start_time? + i64::from(j.time_limit_min?) * 60))
                .min()
                .unwrap_or(now);
            (alloc, end.max(now))
        }
    };
    Ok(TrialPlacement {
        start_time,
        processors: alloc.cpus * u32::try_from(alloc.node_names.len()).unwrap_or(1),
        nodes: alloc.node_names,
        partition,
    })
}
