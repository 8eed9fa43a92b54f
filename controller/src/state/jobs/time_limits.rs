//! Time limits, as the runtime's clock finds them due: the `--signal` warning before the end, and TIMEOUT at the
//! limit, which terminates the job on its nodes.

use spur_core::model::job::EpochSecs;
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::SignalScope;

use super::first_node;
use crate::state::{Applied, ClusterState, Effect, TerminateReason};

impl ClusterState {
    pub(in crate::state) fn warning_signal_due(&mut self, job_ids: &[u32]) -> Applied {
        let mut applied = Applied::default();
        for &job_id in job_ids {
            let Some(job) = self.jobs.get_mut(&job_id) else {
                continue;
            };
            let Some((signal, _, batch_only)) = job.spec.signal else {
                continue;
            };
            if job.state != JobBaseState::Running || job.completing || job.warning_signal_sent {
                continue;
            }
            job.warning_signal_sent = true;
            let scope = if batch_only {
                SignalScope::BatchShell
            } else {
                SignalScope::All
            };
            applied.effects.push(Effect::Signal {
                node: first_node(job),
                job_id,
                signal,
                scope,
                step_pids: Vec::new(),
            });
        }
        applied
    }

    pub(in crate::state) fn time_limit_reached(
        &mut self,
        job_ids: &[u32],
        now: EpochSecs,
    ) -> Applied {
        let mut applied = Applied::default();
        for &job_id in job_ids {
            let Some(job) = self.jobs.get_mut(&job_id) else {
                continue;
            };
            if job.state != JobBaseState::Running || job.completing {
                continue;
            }
            job.state = JobBaseState::Timeout;
            job.reason = JobReason::FailTimeout;
            job.completing = true;
            job.end_time = Some(now);
            applied.effects.push(Effect::Terminate {
                node: first_node(job),
                job_id,
                reason: TerminateReason::TimeLimit,
                at: now,
                run: None,
            });
        }
        applied
    }
}
