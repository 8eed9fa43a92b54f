//! slurm.conf's `Epilog` on the nodes of an ended job other than its batch node (whose supervisor runs it before
//! it reports the job's end): as in Slurm, the job stays COMPLETING and each of those nodes takes no new job until
//! its epilog has finished there, so a site's clean-up (GPU resets, scratch wipes) never runs under the next job.
//!
//! Only when slurm.conf names an `Epilog`: without one Slurm's nodes pass through COMPLETING in a moment, and
//! Spur frees them at once.
//!
//! A node's share of the job's resources is released when the job ends, as before; the node is held by
//! [`NodeRecord::epilogs_running`](spur_core::model::records::NodeRecord) (which `accepts_work` reads) and the job by
//! [`JobRecord::epilog_pending`](spur_core::model::job::JobRecord). Both change only here, together.

use spur_core::model::job::EpochSecs;
use spur_core::model::states::NodeBaseState;

use super::ClusterState;

impl ClusterState {
    /// The job just ended: it waits for the epilog of each of `nodes` whose agent can answer. A node that is down
    /// or not responding cannot run it now; it is not waited for (its agent drops what it owed when it registers).
    pub(super) fn hold_for_epilogs(&mut self, job_id: u32, nodes: &[String]) {
        if !self.settings.node_epilog {
            return;
        }
        let answering: Vec<String> = nodes
            .iter()
            .filter(|name| {
                self.nodes.get(*name).is_some_and(|n| {
                    !n.not_responding
                        && !matches!(n.base_state, NodeBaseState::Down | NodeBaseState::Unknown)
                })
            })
            .cloned()
            .collect();
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return;
        };
        for name in &answering {
            if job.epilog_pending.contains(name) {
                continue;
            }
            job.epilog_pending.push(name.clone());
            if let Some(node) = self.nodes.get_mut(name) {
                node.epilogs_running += 1;
            }
        }
        for name in &answering {
            self.refresh_node_state(name);
        }
    }

    /// `node` finished the job's epilog. A report for a job or node not waited for (a resend, or one the agent's
    /// registration already gave up) changes nothing.
    pub(super) fn epilog_finished(&mut self, job_id: u32, node: &str, _now: EpochSecs) {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return;
        };
        let before = job.epilog_pending.len();
        job.epilog_pending.retain(|n| n != node);
        if job.epilog_pending.len() != before {
            self.release_epilog_hold(node, 1);
        }
    }

    /// The node's agent registered: whatever epilog it ran before is over (a restarted agent lost it), so the
    /// jobs stop waiting for this node.
    pub(super) fn drop_epilog_holds(&mut self, node: &str) {
        let mut dropped = 0;
        for job in self.jobs.values_mut() {
            let before = job.epilog_pending.len();
            job.epilog_pending.retain(|n| n != node);
            dropped += u32::try_from(before - job.epilog_pending.len()).unwrap_or(u32::MAX);
        }
        if dropped > 0 {
            self.release_epilog_hold(node, dropped);
        }
    }

    /// The job leaves its ended state (requeued) or the state forgets it: it waits for no epilog any more.
    pub(super) fn end_epilog_holds(&mut self, job_id: u32) {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return;
        };
        for node in std::mem::take(&mut job.epilog_pending) {
            self.release_epilog_hold(&node, 1);
        }
    }

    fn release_epilog_hold(&mut self, node: &str, count: u32) {
        if let Some(record) = self.nodes.get_mut(node) {
            record.epilogs_running = record.epilogs_running.saturating_sub(count);
        }
        self.refresh_node_state(node);
    }
}
