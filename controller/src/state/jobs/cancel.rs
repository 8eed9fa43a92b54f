//! Stopping and signalling jobs: cancel (a pending job ends at once, a running one is terminated on its nodes),
//! suspend and resume (SIGSTOP/SIGCONT, the run time frozen meanwhile), and signals to a job or its steps.

use spur_core::model::job::EpochSecs;
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, JobSelector, SignalScope, SlurmErrno};

use super::first_node;
use crate::state::{ApplyResult, ClusterState, Effect, TerminateReason};

impl ClusterState {
    pub(super) fn cancel(&mut self, job_id: u32, now: EpochSecs) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        if job.is_het_follower()
            && matches!(job.state, JobBaseState::Running | JobBaseState::Suspended)
            && !job.completing
        {
            return Ok(self.cancel_het_follower(job_id, now));
        }
        match job.state {
            JobBaseState::Pending => {
                // Slurm keeps the pending reason a cancelled job had (`JobHeldUser`, `Dependency`, ...).
                job.state = JobBaseState::Cancelled;
                job.end_time = Some(now);
                job.start_time.get_or_insert(now);
                // A het job waiting as a whole goes as a whole.
                Ok(self.end_het_followers(job_id, now))
            }
            JobBaseState::Running | JobBaseState::Suspended if !job.completing => {
                job.state = JobBaseState::Cancelled;
                job.completing = true;
                job.end_time = Some(now);
                let node = first_node(job);
                Ok(vec![Effect::Terminate {
                    node,
                    job_id,
                    reason: TerminateReason::Cancelled,
                    at: now,
                    run: None,
                }])
            }
            _ => Err(ApiError::new(SlurmErrno::AlreadyDone)),
        }
    }

    /// `scontrol suspend|resume`: operators only, as in Slurm. Suspending stops every process of the job
    /// (SIGSTOP) and freezes its run time; resuming continues them (SIGCONT) and the clock.
    pub(super) fn suspend_or_resume(
        &mut self,
        selector: &JobSelector,
        caller_uid: u32,
        now: EpochSecs,
        suspend: bool,
    ) -> ApplyResult {
        if self.select_jobs(selector).is_empty() {
            return Err(ApiError::new(SlurmErrno::UnexpectedMessage));
        }
        if !self.is_admin(caller_uid) {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        self.for_each_job(selector, caller_uid, |s, id| {
            let Some(job) = s.jobs.get_mut(&id) else {
                return Err(ApiError::new(SlurmErrno::InvalidJobId));
            };
            let (signal, next) = match (job.state, suspend) {
                (JobBaseState::Pending, _) => return Err(ApiError::new(SlurmErrno::JobPending)),
                (_, _) if job.completing || job.state.is_finished() => {
                    return Err(ApiError::new(SlurmErrno::AlreadyDone))
                }
                // Its CPUs are lent to a preemptor: only the scheduler resumes it, once they are free.
                (JobBaseState::Suspended, false) if job.preempt_suspended => {
                    return Err(ApiError::new(SlurmErrno::TransitionStateNoUpdate))
                }
                // Suspending a suspended job is no error in Slurm, and changes nothing.
                (JobBaseState::Suspended, true) => return Ok(Vec::new()),
                (JobBaseState::Running, false) => {
                    return Err(ApiError::new(SlurmErrno::JobNotSuspended))
                }
                (_, true) => (libc::SIGSTOP, JobBaseState::Suspended),
                (_, false) => (libc::SIGCONT, JobBaseState::Running),
            };
            if suspend {
                job.pre_suspend_secs = job.run_secs(now);
            } else {
                job.end_time = crate::state::preempt::end_after_resume(job, now);
            }
            job.suspend_time = Some(now);
            job.state = next;
            Ok(vec![Effect::Signal {
                node: first_node(job),
                job_id: id,
                signal,
                scope: SignalScope::All,
                step_pids: Vec::new(),
            }])
        })
    }

    pub(in crate::state) fn signal(
        &mut self,
        job_id: u32,
        signal: i32,
        scope: SignalScope,
    ) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        match job.state {
            // As in Slurm, signalling the steps of a job that has none running succeeds and changes nothing.
            JobBaseState::Running if !job.completing && scope == SignalScope::Steps => {
                let step_pids: Vec<u32> = job
                    .steps
                    .iter()
                    .filter(|s| s.is_running() && s.srun_pid != 0)
                    .map(|s| s.srun_pid)
                    .collect();
                if step_pids.is_empty() {
                    return Ok(Vec::new());
                }
                let mut effects = vec![Effect::Signal {
                    node: first_node(job),
                    job_id,
                    signal,
                    scope,
                    step_pids,
                }];
                effects.extend(crate::state::steps::signal_step_tasks(
                    job,
                    signal,
                    job.steps.iter().filter(|s| s.is_running()),
                ));
                Ok(effects)
            }
            JobBaseState::Running if !job.completing => Ok(vec![Effect::Signal {
                node: first_node(job),
                job_id,
                signal,
                scope,
                step_pids: Vec::new(),
            }]),
            // slurmctld's job_signal answers a job not running yet with "try again later"; scancel retries.
            JobBaseState::Pending => Err(ApiError::new(SlurmErrno::TransitionStateNoUpdate)),
            _ => Err(ApiError::new(SlurmErrno::AlreadyDone)),
        }
    }
}
