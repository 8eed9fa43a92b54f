//! Edits of jobs' accounting records (`sacctmgr modify job`, `slurmdb_job_modify`), with slurmdbd 22.05's rules:
//! the admin and system comments are for operators and administrators only; anyone else may edit only their own
//! jobs, and one foreign job among those selected refuses the whole edit; an edit that sets nothing or selects no
//! record changes nothing (`SLURM_NO_CHANGE_IN_DATA`). A live job's edits wait in `ClusterState::job_edits`
//! until the job is archived with them; an archived record carries its own. Both checking (a query, before the
//! caller commits) and applying (from the Raft log) run [`ClusterState::job_edit_targets`], so they agree.

use spur_core::model::accounting::JobAccounting;
use spur_core::model::job::EpochSecs;
use spur_core::model::job_edit::{EditedJob, JobEditRequest, JobEdits};
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::{Applied, ApplyResult, ClusterState};
use crate::history::HistoryOp;

impl ClusterState {
    /// The jobs `request` would change for `caller_uid`, in job id order, or why it may not be made.
    pub fn job_edit_targets(
        &self,
        caller_uid: u32,
        request: &JobEditRequest,
        now: EpochSecs,
    ) -> Result<Vec<EditedJob>, ApiError> {
        let operator = self.is_admin(caller_uid);
        if request.set.needs_operator() && !operator {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        if request.set.is_empty() || !self.settings.accounting {
            return Err(ApiError::new(SlurmErrno::NoChangeInData));
        }
        let cond = &request.cond;
        let job_ids = (!cond.job_ids.is_empty()).then_some(cond.job_ids.as_slice());
        let user_ids = (!cond.user_ids.is_empty()).then_some(cond.user_ids.as_slice());
        let mut records: Vec<JobAccounting> = self
            .accounting_records(job_ids, user_ids, None, now)
            .into_iter()
            .filter(|r| {
                cond.accounts.is_empty()
                    || cond
                        .accounts
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case(r.account_shown()))
            })
            .collect();
        if records.is_empty() {
            return Err(ApiError::new(SlurmErrno::NoChangeInData));
        }
        // slurmdbd walks the jobs in id order and stops at the first it may not change.
        records.sort_by_key(|r| r.job_id);
        if !operator && records.iter().any(|r| r.user_id != caller_uid) {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        if request.set.wckey.is_some() && !self.settings.track_wckey {
            // slurmdbd finds no WCKey id to give the jobs without TrackWCKey and fails the edit without setting
            // errno, so its answer is a success with no jobs and the comment `No error`.
            return Err(ApiError::with_detail(
                SlurmErrno::NoChangeInData,
                "No error",
            ));
        }
        Ok(records
            .iter()
            .map(|r| EditedJob {
                job_id: r.job_id,
                submit: r.submit,
            })
            .collect())
    }

    /// Applies a committed edit: a live job's waits for its archiving, an archived record takes it at once.
    pub(super) fn modify_job_records(
        &mut self,
        caller_uid: u32,
        request: &JobEditRequest,
        now: EpochSecs,
    ) -> ApplyResult {
        let edited = self.job_edit_targets(caller_uid, request, now)?;
        for job in &edited {
            if let Some(live) = self.jobs.get(&job.job_id) {
                let ended = live.is_finished();
                self.job_edits
                    .entry(job.job_id)
                    .or_default()
                    .merge(&request.set, ended);
            } else if let Some(record) = self.accounting.get_mut(&job.job_id) {
                record.edits.merge(&request.set, true);
                let record = Box::new(record.clone());
                self.history.queue(HistoryOp::Upsert(record));
            } else if let Some(mut record) = self.history.record(job.job_id, job.submit) {
                // Only in the history store: the edited record goes back there after this batch.
                record.edits.merge(&request.set, true);
                self.history.queue(HistoryOp::Upsert(Box::new(record)));
            }
        }
        Ok(Applied {
            edited_jobs: edited,
            ..Default::default()
        })
    }

    /// The edits a live job's record shows now (a derived exit code set while it ran gives way at its end).
    pub(super) fn live_job_edits(&self, job_id: u32, ended: bool) -> JobEdits {
        match self.job_edits.get(&job_id) {
            Some(edits) if ended => edits.as_ended(),
            Some(edits) => edits.clone(),
            None => JobEdits::default(),
        }
    }
}
