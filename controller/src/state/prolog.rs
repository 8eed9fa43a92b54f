//! `PrologFlags=Alloc` (and `Contain`, which implies it): slurm.conf's `Prolog` runs on every node of a job as
//! soon as it is allocated, and the job waits in RUNNING with reason `Prolog` until every node has answered. Only
//! then does its batch script start (salloc and srun wait for the same record). A node whose prolog fails is
//! drained (`Prolog error`); a batch job goes back to the queue held, an allocation is cancelled.

use spur_core::model::job::{EpochSecs, HoldKind};
use spur_core::model::states::{JobBaseState, JobReason};

use super::{Applied, ClusterState, Effect, Outcome};

impl ClusterState {
    /// A job just allocated: with `PrologFlags=Alloc`, every node runs its prolog first; otherwise the batch script
    /// starts at once. Returns the effects that start the job.
    pub(super) fn start_effects(&mut self, job_id: u32) -> Vec<Effect> {
        let (alloc_prolog, contain) = (
            self.settings.prolog_alloc || self.settings.prolog_contain,
            self.settings.prolog_contain,
        );
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        let nodes = job
            .alloc
            .as_ref()
            .map(|a| a.node_names.clone())
            .unwrap_or_default();
        job.prolog_failed_node = None;
        job.extern_step = contain;
        if !alloc_prolog || nodes.is_empty() {
            job.prolog_pending.clear();
            let node = nodes.into_iter().next().unwrap_or_default();
            return vec![Effect::Launch { node, job_id }];
        }
        job.reason = JobReason::Prolog;
        job.prolog_pending = nodes.clone();
        nodes
            .into_iter()
            .map(|node| Effect::AllocProlog { node, job_id })
            .collect()
    }

    /// A node's prolog for run `run` of the job ended. Reports of another run, of a node that already answered
    /// or of a job no longer running are stale (an agent resending after a reconnect) and change nothing.
    pub(super) fn prolog_finished(
        &mut self,
        job_id: u32,
        run: u32,
        node: &str,
        failed: bool,
        now: EpochSecs,
    ) -> Applied {
        let mut applied = Applied::default();
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return applied;
        };
        let current = job.restarts == run
            && job.state == JobBaseState::Running
            && !job.completing
            && job.prolog_pending.iter().any(|n| n == node);
        if !current {
            return applied;
        }
        job.prolog_pending.retain(|n| n != node);
        if failed {
            job.prolog_pending.clear();
            job.prolog_failed_node = Some(node.to_string());
            let batch = job.spec.script.is_some();
            applied.effects.extend(self.drain_for_prolog(node, now));
            applied.effects.extend(if batch {
                self.requeue_held_after_prolog(job_id, run, now)
            } else {
                self.cancel_after_prolog(job_id, now)
            });
            return applied;
        }
        if job.prolog_pending.is_empty() {
            job.reason = JobReason::NoReason;
            if job.spec.script.is_some() {
                let node = job
                    .alloc
                    .as_ref()
                    .and_then(|a| a.node_names.first().cloned())
                    .unwrap_or_default();
                applied.effects.push(Effect::Launch { node, job_id });
            }
        }
        applied
    }

    /// The prolog requests an agent that (re)registers still owes: those it may have lost with a restart.
    pub(super) fn prologs_owed(&self, node: &str) -> Vec<Effect> {
        self.jobs
            .values()
            .filter(|j| j.state == JobBaseState::Running && !j.completing)
            .filter(|j| j.prolog_pending.iter().any(|n| n == node))
            .map(|j| Effect::AllocProlog {
                node: node.to_string(),
                job_id: j.job_id,
            })
            .collect()
    }

    fn drain_for_prolog(&mut self, node: &str, now: EpochSecs) -> Vec<Effect> {
        self.update_nodes(
            &[node.to_string()],
            crate::state::nodes::NodeChanges::drain("Prolog error"),
            0,
            now,
        )
        .map(|a| a.effects)
        .unwrap_or_default()
    }

    /// As slurmctld after a failed prolog: the batch job goes back to the queue held by the administrator
    /// (`launch failed requeued held`), whatever its `--requeue`. Its script never started, so the run ends here
    /// rather than with a result from the node.
    fn requeue_held_after_prolog(&mut self, job_id: u32, run: u32, now: EpochSecs) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        job.hold = Some(HoldKind::Admin);
        job.state_desc = Some("launch failed requeued held".to_string());
        job.requeue_pending = true;
        // No supervisor ran on the first node to run the epilog and clean up (the extern cgroup, the prolog's
        // record): that node is sent the epilog as the others are.
        let ended = Box::new(job.clone());
        let first = job
            .alloc
            .as_ref()
            .and_then(|a| a.node_names.first().cloned());
        let outcome = Outcome::Exited { code: 0, signal: 0 };
        let mut effects: Vec<Effect> = self
            .finish(job_id, outcome, now, Some(run))
            .effects
            .into_iter()
            // Nothing of the job was launched on its first node: no result there to acknowledge.
            .filter(|e| !matches!(e, Effect::AckFinished { .. }))
            .collect();
        if let Some(node) = first {
            effects.push(Effect::NodeEpilog { node, job: ended });
        }
        effects
    }

    /// An allocation (salloc, srun) whose prolog failed is cancelled; its client says why.
    fn cancel_after_prolog(&mut self, job_id: u32, now: EpochSecs) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        job.state = JobBaseState::Cancelled;
        job.reason = JobReason::NoReason;
        job.end_time = Some(now);
        // Still holding its resources until `finish` gives them back.
        job.completing = true;
        self.finish(job_id, Outcome::Exited { code: 0, signal: 0 }, now, None)
            .effects
            .into_iter()
            .filter(|e| !matches!(e, Effect::AckFinished { .. }))
            .collect()
    }
}
