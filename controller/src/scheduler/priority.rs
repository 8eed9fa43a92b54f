//! `priority/multifactor` in the pass: every pending job's priority recomputed for the current
//! `PriorityCalcPeriod` from the injected clock (spur_core::priority has the formula). Held jobs keep 0 and a
//! priority an administrator set is left alone.

use spur_core::job::{EpochSecs, JobRecord};
use spur_core::priority::{self, ClusterTotals, JobSize, PriorityWeights};

use crate::state::ClusterState;

/// What the factors are relative to: all nodes, CPUs, memory and GRES units of the cluster.
pub fn cluster_totals(state: &ClusterState) -> ClusterTotals {
    let mut gres: Vec<(String, u64)> = Vec::new();
    for g in state.nodes.values().flat_map(|n| &n.gres) {
        match gres.iter_mut().find(|(name, _)| name == &g.name) {
            Some((_, count)) => *count += g.count,
            None => gres.push((g.name.clone(), g.count)),
        }
    }
    ClusterTotals {
        nodes: u32::try_from(state.nodes.len()).unwrap_or(u32::MAX),
        cpus: state.nodes.values().map(|n| n.cpus).sum(),
        mem_mb: state.nodes.values().map(|n| n.real_memory_mb).sum(),
        gres,
        max_partition_job_factor: state
            .partitions
            .iter()
            .map(|p| p.priority_job_factor)
            .max()
            .unwrap_or(1),
    }
}

/// The job's multifactor priority at `now`, or `None` where it must not change (held, set by an administrator).
pub fn recomputed(
    state: &ClusterState,
    weights: &PriorityWeights,
    totals: &ClusterTotals,
    job: &JobRecord,
    now: EpochSecs,
) -> Option<u32> {
    if job.hold.is_some() || job.priority_fixed {
        return None;
    }
    let job_factor = state
        .partition(&job.partition)
        .map_or(1, |p| p.priority_job_factor);
    let size = JobSize::of(job, job_factor);
    let factors = priority::factors(weights, job, &size, totals, weights.calc_time(now));
    Some(priority::priority(weights, &factors))
}
