//! Holding and releasing: a held job keeps priority 0 and its hold reason; a released one gets a fresh basic
//! priority, below every job submitted or released before.

use spur_core::model::job::HoldKind;
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::BASIC_PRIORITY_TOP;
use crate::state::{ClusterState, Effect};

impl ClusterState {
    pub(super) fn hold(&mut self, job_id: u32, admin: bool) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        // Slurm also accepts holding a running job: it keeps running, and a requeue brings it back held.
        let holdable = job.state == JobBaseState::Pending
            || (job.state == JobBaseState::Running && !job.completing);
        if !holdable {
            return Err(ApiError::new(SlurmErrno::JobNotPending));
        }
        let kind = if admin {
            HoldKind::Admin
        } else {
            HoldKind::User
        };
        job.hold = Some(kind);
        job.priority = 0;
        // A held job is not eligible: Slurm shows EligibleTime=Unknown until a scheduling pass after the release.
        if job.state == JobBaseState::Pending {
            job.eligible_time = None;
        }
        job.reason = match kind {
            HoldKind::Admin => JobReason::Held,
            HoldKind::User => JobReason::HeldUser,
        };
        Ok(Vec::new())
    }

    pub(super) fn release_hold(
        &mut self,
        job_id: u32,
        admin: bool,
    ) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        // Releasing a job that has ended (a held job cancelled, say) is Slurm's "Job has already finished".
        if job.is_finished() {
            return Err(ApiError::new(SlurmErrno::JobFinished));
        }
        if job.state != JobBaseState::Pending {
            return Err(ApiError::new(SlurmErrno::JobNotPending));
        }
        if job.hold == Some(HoldKind::Admin) && !admin {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        if job.hold.is_none() {
            return Ok(Vec::new());
        }
        // Slurm gives a released job a fresh basic priority, below every job submitted or released before.
        self.submissions += 1;
        let fresh =
            BASIC_PRIORITY_TOP.saturating_sub(u32::try_from(self.submissions).unwrap_or(u32::MAX));
        if let Some(job) = self.jobs.get_mut(&job_id) {
            job.hold = None;
            job.state_desc = None;
            job.priority = fresh.saturating_add_signed(-job.spec.nice);
            job.reason = JobReason::NoReason;
        }
        Ok(Vec::new())
    }
}
