//! Heterogeneous jobs in a pass: all components start together or none does. The group is decided when its
//! leader's turn comes in priority order: every component must pass its gates (hold, dependency, begin time,
//! partition, licenses) and fit now; only then does each take its resources.
//!
//! Each component goes on nodes none of the earlier components of its job got. Slurm 22.05's backfill scheduler,
//! the only one of its schedulers that starts heterogeneous jobs, plans each component on distinct nodes before
//! it starts any, so a job whose components would have to share a node never starts there (it stays pending
//! with reason `Resources`, e.g. a two-component job on a one-node cluster); Spur keeps that rule, so the same
//! job waits or runs on both, on the same nodes.

use spur_core::model::job::{Allocation, EpochSecs, HetMembership, JobRecord};
use spur_core::model::states::JobReason;

use super::{Engine, LicensePool, Plan};
use crate::rules::{gate, ArrayCounts};
use crate::state::ClusterState;

/// A heterogeneous job's components as the state holds them, leader first.
pub(super) struct Group<'s> {
    pub(super) components: Vec<&'s JobRecord>,
    /// Every component is known and pending (one cancelled on its own leaves the rest unable to start).
    complete: bool,
}

impl<'s> Group<'s> {
    pub(super) fn of(state: &'s ClusterState, membership: &HetMembership) -> Self {
        let components: Vec<&JobRecord> = membership
            .component_ids()
            .filter_map(|id| state.jobs.get(&id))
            .collect();
        let complete = components.len() == membership.size as usize
            && components
                .iter()
                .all(|j| j.state == spur_core::model::states::JobBaseState::Pending);
        Group {
            components,
            complete,
        }
    }

    /// Starts the whole group into `plan`, or finds the reason each component waits.
    pub(super) fn decide(
        &self,
        state: &ClusterState,
        now: EpochSecs,
        engine: &mut Engine<'_>,
        licenses: &mut LicensePool,
        plan: &mut Plan,
    ) -> Vec<JobReason> {
        let mut arrays = ArrayCounts::new(state);
        let gated: Vec<Option<JobReason>> = self
            .components
            .iter()
            .map(|job| {
                gate(state, job, now, &mut arrays)
                    .or_else(|| (!licenses.covers(job)).then_some(JobReason::Licenses))
            })
            .collect();
        // A component free to go waits for the first one that is not.
        let first_gate = gated.iter().flatten().next().copied();
        if let Some(reason) = first_gate {
            return gated.into_iter().map(|g| g.unwrap_or(reason)).collect();
        }
        if !self.complete {
            return vec![JobReason::Resources; self.components.len()];
        }
        match self.place(state, engine) {
            Some(allocs) => {
                for (job, alloc) in self.components.iter().zip(allocs) {
                    engine.take_now(&alloc, job);
                    licenses.take(job);
                    plan.starts.push((job.job_id, alloc));
                }
                Vec::new()
            }
            None => vec![JobReason::Resources; self.components.len()],
        }
    }

    /// Where every component would start now, each on nodes the earlier ones did not get; `None` unless all fit.
    fn place(&self, state: &ClusterState, engine: &Engine<'_>) -> Option<Vec<Allocation>> {
        let mut taken: Vec<String> = Vec::new();
        let mut allocs = Vec::with_capacity(self.components.len());
        for job in &self.components {
            let alloc = if taken.is_empty() {
                engine.try_now(state, job)?
            } else {
                engine.try_now(state, &excluding(job, &taken))?
            };
            taken.extend(alloc.node_names.iter().cloned());
            allocs.push(alloc);
        }
        Some(allocs)
    }
}

/// The component with `nodes` added to its `--exclude` list.
fn excluding(job: &JobRecord, nodes: &[String]) -> JobRecord {
    let mut job = job.clone();
    let mut excluded: Vec<String> = job
        .spec
        .excluded_nodes
        .as_deref()
        .and_then(|text| {
            spur_core::grammar::hostlist::expand_at_most(
                text,
                spur_core::grammar::hostlist::MAX_JOB_NODE_LIST,
            )
            .ok()
        })
        .unwrap_or_default();
    excluded.extend(nodes.iter().cloned());
    job.spec.excluded_nodes = Some(spur_core::grammar::hostlist::compress(&excluded));
    job
}

/// Records the reasons of a group that waits (nothing for one that starts), as a plain job's are: only those
/// that changed, and a forecast dropped (the group is planned as a whole, not per component).
pub(super) fn record_reasons(group: &Group<'_>, reasons: Vec<JobReason>, plan: &mut Plan) {
    for (job, reason) in group.components.iter().zip(reasons) {
        if reason != job.reason || job.last_sched_eval.is_none() {
            plan.reasons.push((job.job_id, reason));
        }
        if job.expected_start.is_some() || job.sched_nodes.is_some() {
            plan.forecasts.push((job.job_id, None));
        }
    }
}
