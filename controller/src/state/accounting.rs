//! Accounting kept by the state machine: a job's record is made from its live entry while it is in the jobs table
//! (so it is always current), and moved to `ClusterState::accounting` when `Purge` removes the job after
//! MinJobAge, where it stays (docs/accounting.md). Both happen in `apply`, with the command's clock, so every
//! replica and replay holds the same records, and snapshots carry them.

use spur_core::model::accounting::{Filter, JobAccounting};
use spur_core::model::job::{EpochSecs, JobRecord};

use super::ClusterState;

impl ClusterState {
    /// Keeps the accounting record of a job leaving the live table.
    pub(super) fn archive_job(&mut self, job: &JobRecord, now: EpochSecs) {
        let edits = self.job_edits.remove(&job.job_id);
        if self.settings.accounting {
            let mut record = JobAccounting::of_job(job, now);
            if let Some(edits) = edits {
                record.edits = if job.is_finished() {
                    edits.as_ended()
                } else {
                    edits
                };
            }
            self.accounting.insert(job.job_id, record);
        }
    }

    /// Drops archived records of jobs that ended more than the retention period before `now` (none without one).
    pub(super) fn expire_accounting(&mut self, now: EpochSecs) {
        let Some(keep_secs) = self.settings.accounting_keep_secs else {
            return;
        };
        let keep = EpochSecs::from(keep_secs);
        self.accounting
            .retain(|_, record| record.end.is_none_or(|end| now - end < keep));
    }

    /// Whether a `Purge` would drop archived records: checked on the lowest job id only (jobs mostly end in id
    /// order), so the leader's frequent check stays cheap however many records there are; the purge itself
    /// sweeps them all.
    pub fn accounting_expiry_due(&self, now: EpochSecs) -> bool {
        let Some(keep_secs) = self.settings.accounting_keep_secs else {
            return false;
        };
        self.accounting
            .values()
            .next()
            .and_then(|record| record.end)
            .is_some_and(|end| now - end >= EpochSecs::from(keep_secs))
    }

    /// The records `sacct` reads, live jobs and archived ones together, in sacct's order
    /// ([`JobAccounting::listing_key`]), narrowed to `job_ids` (an array's id brings its tasks) and `user_ids` when
    /// given, and to the jobs `select` picks (its window, states and names), before anything is copied.
    pub fn accounting_records(
        &self,
        job_ids: Option<&[u32]>,
        user_ids: Option<&[u32]>,
        select: Option<&Filter>,
        now: EpochSecs,
    ) -> Vec<JobAccounting> {
        let wanted = |job_id: u32, array_id: Option<u32>, user_id: u32| {
            job_ids.is_none_or(|ids| ids.iter().any(|&id| id == job_id || array_id == Some(id)))
                && user_ids.is_none_or(|uids| uids.contains(&user_id))
        };
        let picked = |record: &JobAccounting| select.is_none_or(|f| f.selects(record));
        let live = self
            .jobs
            .values()
            .filter(|j| wanted(j.job_id, j.array_job_id, j.spec.user_id))
            .map(|j| {
                let mut record = JobAccounting::of_job(j, now);
                record.edits = self.live_job_edits(j.job_id, j.is_finished());
                record
            })
            .filter(|r| picked(r));
        let archived = self
            .accounting
            .values()
            .filter(|r| !self.jobs.contains_key(&r.job_id))
            .filter(|r| wanted(r.job_id, r.array_job_id, r.user_id) && picked(r))
            .cloned();
        let mut records: Vec<JobAccounting> = archived.chain(live).collect();
        records.sort_by_key(JobAccounting::listing_key);
        records
    }
}
