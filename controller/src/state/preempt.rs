//! Applying the scheduler's preemptions (`preempt/partition_prio`): a victim of a `CANCEL` partition ends
//! `PREEMPTED` (its processes terminated, exit `0:15` once they are gone); one of a `REQUEUE` partition goes back
//! to the queue as `scontrol requeue` would send it, or ends `PREEMPTED` when it may not be requeued
//! (`--no-requeue`). A victim that ended or is already leaving by the time the plan applies is left alone.

use spur_core::job::EpochSecs;
use spur_core::records::PreemptMode;
use spur_core::states::{JobBaseState, JobReason};

use super::jobs::started_and_live;
use super::{ClusterState, Effect, TerminateReason};

impl ClusterState {
    pub(super) fn apply_preemptions(
        &mut self,
        victims: &[(u32, PreemptMode)],
        now: EpochSecs,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        for &(job_id, mode) in victims {
            let Some(job) = self.jobs.get(&job_id) else {
                continue;
            };
            if !started_and_live(job) || job.completing {
                continue;
            }
            if let Some(job) = self.jobs.get_mut(&job_id) {
                job.preempt_time = Some(now);
            }
            if mode == PreemptMode::Requeue
                && self.jobs.get(&job_id).is_some_and(|j| j.spec.requeue)
            {
                if let Ok(more) = self.requeue(job_id, false, now) {
                    effects.extend(more);
                    continue;
                }
            }
            effects.extend(self.end_preempted(job_id, now));
        }
        effects
    }

    /// Whether a job of this partition could be preempted once started: Slurm's test is that neither the
    /// cluster's mode nor the partition's is OFF.
    pub(super) fn preemptable(&self, job_id: &u32) -> bool {
        let Some(cluster) = self.settings.preempt else {
            return false;
        };
        let Some(job) = self.jobs.get(job_id) else {
            return false;
        };
        let partition = self.partition(&job.partition).and_then(|p| p.preempt_mode);
        cluster != PreemptMode::Off && partition.unwrap_or(cluster) != PreemptMode::Off
    }

    fn end_preempted(&mut self, job_id: u32, now: EpochSecs) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        job.state = JobBaseState::Preempted;
        job.reason = JobReason::NoReason;
        job.completing = true;
        job.end_time = Some(now);
        let node = job
            .alloc
            .as_ref()
            .and_then(|a| a.node_names.first().cloned())
            .unwrap_or_default();
        vec![Effect::Terminate {
            node,
            job_id,
            reason: TerminateReason::Cancelled,
            at: now,
        }]
    }
}
