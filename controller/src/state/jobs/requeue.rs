//! Requeueing: a running job is terminated and goes back to the queue when its run's end is reported; a finished
//! one goes back at once. The next run is a new one (`restarts`), so reports of the old one are recognised.

use spur_core::model::job::{EpochSecs, HoldKind};
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::first_node;
use crate::state::{ClusterState, Effect, TerminateReason};

impl ClusterState {
    pub(in crate::state) fn requeue(
        &mut self,
        job_id: u32,
        hold: bool,
        now: EpochSecs,
    ) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        if !job.spec.requeue {
            return Err(ApiError::new(SlurmErrno::DisabledRequeue));
        }
        if hold {
            job.hold = Some(HoldKind::User);
            job.state_desc = Some("job requeued in held state".to_string());
        }
        match job.state {
            JobBaseState::Running | JobBaseState::Suspended if !job.completing => {
                job.requeue_pending = true;
                job.completing = true;
                let node = first_node(job);
                Ok(vec![Effect::Terminate {
                    node,
                    job_id,
                    reason: TerminateReason::Requeued,
                    at: now,
                    run: None,
                }])
            }
            JobBaseState::Completed
            | JobBaseState::Failed
            | JobBaseState::Cancelled
            | JobBaseState::Timeout
            | JobBaseState::NodeFail
            | JobBaseState::OutOfMemory
                if !job.completing =>
            {
                self.return_to_queue(job_id, now);
                Ok(Vec::new())
            }
            JobBaseState::Pending => Err(ApiError::new(SlurmErrno::JobPending)),
            _ => Err(ApiError::new(SlurmErrno::TransitionStateNoUpdate)),
        }
    }

    pub(super) fn return_to_queue(&mut self, job_id: u32, now: EpochSecs) {
        self.end_epilog_holds(job_id);
        if let Some(job) = self.jobs.get_mut(&job_id) {
            job.state = JobBaseState::Pending;
            job.completing = false;
            job.requeue_pending = false;
            job.restarts += 1;
            job.warning_signal_sent = false;
            job.alloc = None;
            job.start_time = None;
            job.end_time = None;
            job.exit_code = 0;
            job.exit_signal = 0;
            // A new run numbers its steps from 0 again.
            job.steps.clear();
            job.next_step_id = 0;
            job.preemptable_time = None;
            job.preempt_suspended = false;
            job.prolog_pending.clear();
            job.extern_step = false;
            // As slurmctld: the job may not start again before the old run's launch credential has expired
            // (`Reason=BeginTime` until then), unless its own begin time is later anyway.
            let delay = self.settings.requeue_delay_secs;
            if delay > 0 {
                let not_before = now + EpochSecs::from(delay);
                if job.spec.begin_time.is_none_or(|begin| begin <= now) {
                    job.spec.begin_time = Some(not_before);
                }
                // slurmctld moves the begin time, which `EligibleTime` shows.
                job.eligible_time = job.spec.begin_time;
            } else {
                job.eligible_time = Some(now);
            }
            job.reason = match job.hold {
                Some(HoldKind::Admin) => JobReason::Held,
                Some(HoldKind::User) => JobReason::HeldUser,
                None => JobReason::NoReason,
            };
        }
    }
}
