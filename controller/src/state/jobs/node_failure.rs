//! A node under a running job failed: the job ends NODE_FAIL, loses the node and runs on (`--no-kill`), or goes
//! back to the queue (a requeueable batch job).

use spur_core::model::job::{Allocation, EpochSecs};
use spur_core::model::states::{JobBaseState, JobReason};

use super::{first_node, started_and_live};
use crate::state::{ClusterState, Effect, TerminateReason};

impl ClusterState {
    /// The node under a running job failed: NODE_FAIL, resources released (requeue comes with the steps issue).
    pub(in crate::state) fn node_failed(
        &mut self,
        job_id: u32,
        node: &str,
        now: EpochSecs,
    ) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        job.state = JobBaseState::NodeFail;
        job.reason = JobReason::FailDownNode;
        job.completing = false;
        job.end_time = Some(now);
        let batch_host = first_node(job);
        let alloc = crate::state::preempt::held_allocation(job);
        job.preempt_suspended = false;
        if let Some(alloc) = alloc {
            self.release(&alloc, now);
        }
        let mut nodes = vec![node.to_string()];
        // The batch script runs on the first node: when another node of the job failed, that is where the job
        // must stop, or it runs on with its resources already handed to other jobs.
        if !batch_host.is_empty() && batch_host != node {
            nodes.push(batch_host);
        }
        nodes
            .into_iter()
            .map(|node| Effect::Terminate {
                node,
                job_id,
                reason: TerminateReason::NodeFail,
                at: now,
                run: None,
            })
            .collect()
    }

    /// `--no-kill`: a running job loses a failed node other than its first and runs on (slurmctld's
    /// `excise_node_from_job`); the first node runs the batch script, so its failure ends the job as always.
    pub(in crate::state) fn shrinks_on_node_failure(&self, job_id: u32, node: &str) -> bool {
        self.jobs.get(&job_id).is_some_and(|job| {
            job.spec.no_kill
                && started_and_live(job)
                && !job.completing
                && first_node(job) != node
                && job.alloc.as_ref().is_some_and(|a| {
                    a.node_names.len() > 1 && a.node_names.iter().any(|n| n == node)
                })
        })
    }

    /// Takes the failed node out of a `--no-kill` job's allocation (its resources there are freed, the job shows
    /// the smaller node list and a `ResizeTime`), and cancels the running steps that had tasks there: their srun
    /// kills the rest of their tasks, as Slurm's does (`Force Terminated StepId=...`).
    pub(in crate::state) fn node_failed_no_kill(
        &mut self,
        job_id: u32,
        node: &str,
        now: EpochSecs,
    ) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        let Some(alloc) = job.alloc.as_mut() else {
            return Vec::new();
        };
        let Some(at) = alloc.node_names.iter().position(|n| n == node) else {
            return Vec::new();
        };
        let (units, shard_gpus) = alloc.units_on(at);
        let lost = Allocation {
            node_names: vec![node.to_string()],
            gres_indices: units.clone(),
            shard_gpus: shard_gpus.to_vec(),
            node_units: Vec::new(),
            ..alloc.clone()
        };
        alloc.node_names.remove(at);
        if !alloc.node_units.is_empty() {
            let mut units = std::mem::take(&mut alloc.node_units);
            units.remove(at);
            alloc.set_node_units(units);
        }
        job.resize_time = Some(now);
        for step in job.steps.iter_mut().filter(|s| s.is_running()) {
            let on_lost_node = spur_core::grammar::hostlist::expand(&step.node_list)
                .is_ok_and(|nodes| nodes.iter().any(|n| n == node));
            if on_lost_node {
                step.state = JobBaseState::Cancelled;
                step.end_time = Some(now);
            }
        }
        self.release(&lost, now);
        // Nothing to tell the failed node: it holds no batch script of the job (a terminate would have it
        // answer for one), and its step supervisors end with their srun.
        Vec::new()
    }

    /// slurmctld requeues a batch job whose node failed unless it may not be requeued (`--no-requeue`,
    /// `JobRequeue=0`); a job already ending (cancelled, timed out) ends as before, and one already going back
    /// to the queue goes on doing so when its batch host fails before reporting.
    pub(in crate::state) fn requeues_on_node_failure(&self, job_id: u32, node: &str) -> bool {
        self.jobs.get(&job_id).is_some_and(|job| {
            let ending = job.completing && !(job.requeue_pending && first_node(job) == node);
            job.spec.requeue && job.spec.script.is_some() && !ending
        })
    }

    /// A node of a requeueable batch job failed. When it was the batch host, nothing will report the run's end:
    /// the job goes back to the queue at once. Otherwise the batch host stops the script (its stderr says the job
    /// was cancelled due to node failure) and the job goes back to the queue when that run's result arrives, as
    /// after `scontrol requeue`. Either way the run that follows is a new one (`restarts`), so whatever the
    /// failed node reports of the old run if it returns is recognised as stale.
    pub(in crate::state) fn node_failed_requeue(
        &mut self,
        job_id: u32,
        node: &str,
        now: EpochSecs,
    ) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        let batch_host = first_node(job);
        // Named explicitly: by the time they are sent, the job may be on its next run.
        let run = Some(job.restarts);
        let mut effects = vec![Effect::Terminate {
            node: node.to_string(),
            job_id,
            reason: TerminateReason::NodeFail,
            at: now,
            run,
        }];
        if !batch_host.is_empty() && batch_host != node {
            job.requeue_pending = true;
            job.completing = true;
            effects.push(Effect::Terminate {
                node: batch_host,
                job_id,
                reason: TerminateReason::NodeFail,
                at: now,
                run,
            });
            return effects;
        }
        let alloc = crate::state::preempt::held_allocation(job);
        job.preempt_suspended = false;
        if let Some(alloc) = alloc {
            self.release(&alloc, now);
        }
        self.end_running_steps(job_id, now);
        self.return_to_queue(job_id, now);
        effects
    }
}
