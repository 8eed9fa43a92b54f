//! `spur migrate import-jobs`: finished jobs' records read from a real Slurm's `sacct` output join the job history
//! store (docs/accounting.md, "Migrating job history"). Applied from the Raft log like every change, so every
//! controller's store gets the same records; the client sends them in batches, one log entry each.
//!
//! The rules, checked twice: by the server before the batch enters the log, against everything this controller
//! knows (its history store included), and again in `apply` against the replicated state alone (live jobs and the
//! handoff buffer), so every replica decides the same even where their stores differ (a controller that caught up
//! from a snapshot lacks the records stored before it):
//! - administrators only (root, SlurmUser, `AdminUids`);
//! - a record whose (job id, submit time) is already known (live, in the handoff buffer or in the store, or earlier
//!   in the same batch) is skipped, so importing the same file twice adds nothing; imported records may share an
//!   id among themselves (sacct -D's duplicates, a slurmdbd whose ids restarted), as in slurmdbd;
//! - a record whose job id Spur already uses for a job it ran (another submit time) refuses the whole batch:
//!   sacct and every tool that names jobs by id would mix the two up. Import before Spur runs jobs, or start Spur's
//!   ids past the imported ones (`FirstJobId`);
//! - the job id counter moves past the largest id imported, so Spur's next jobs never take an imported id;
//! - the imported usage counts for fair-share, decayed from each job's end as slurmdbd's usage would have been.

use std::collections::HashSet;

use spur_core::model::accounting::JobAccounting;
use spur_core::model::assoc::DEFAULT_QOS;
use spur_core::model::job::EpochSecs;
use spur_core::model::job_edit::EditedJob;
use spur_core::policy::fairshare::assoc_chain;
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::{Applied, ApplyResult, ClusterState};
use crate::history::HistoryOp;

/// Records one `ImportJobs` request may carry: a log entry stays well under the request size limit.
pub const IMPORT_BATCH_MAX: usize = 1_000;

impl ClusterState {
    pub(super) fn import_jobs(
        &mut self,
        caller_uid: u32,
        records: Vec<JobAccounting>,
        now: EpochSecs,
    ) -> ApplyResult {
        if !self.is_admin(caller_uid) {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        if records.len() > IMPORT_BATCH_MAX {
            return Err(ApiError::with_detail(
                SlurmErrno::Error,
                format!("at most {IMPORT_BATCH_MAX} job records per request"),
            ));
        }
        // The replicated setting decides, never whether this controller has a store, so replicas agree.
        if !self.settings.accounting {
            return Err(ApiError::with_detail(
                SlurmErrno::Error,
                "no job history store: set AccountingStorageType to accounting_storage/slurmdbd or \
                 accounting_storage/postgresql",
            ));
        }
        if let Some(bad) = records
            .iter()
            .find(|r| !r.state.is_finished() || r.end.is_none())
        {
            return Err(ApiError::with_detail(
                SlurmErrno::Error,
                format!(
                    "job {} has not ended ({}): only finished jobs are imported",
                    bad.job_id,
                    bad.state.long_name()
                ),
            ));
        }
        let added = self.import_selection(records, now, false)?;
        if let Some(max) = added.iter().map(|r| r.job_id).max() {
            self.next_job_id = self.next_job_id.max(max.saturating_add(1));
        }
        self.count_imported_usage(&added);
        let edited_jobs = added
            .iter()
            .map(|r| EditedJob {
                job_id: r.job_id,
                submit: r.submit,
            })
            .collect();
        for mut record in added {
            record.imported = true;
            self.history.queue(HistoryOp::Upsert(Box::new(record)));
        }
        Ok(Applied {
            edited_jobs,
            ..Default::default()
        })
    }

    /// The records of an import batch that are new, or why the batch is refused. `with_store`: also against this
    /// controller's history store (the server, before the batch enters the log); `apply` asks without it.
    pub fn import_selection(
        &self,
        records: Vec<JobAccounting>,
        now: EpochSecs,
        with_store: bool,
    ) -> Result<Vec<JobAccounting>, ApiError> {
        let known = self.known_job_keys(&records, now, with_store);
        let mut added: Vec<JobAccounting> = Vec::new();
        let mut seen: HashSet<(u32, EpochSecs)> = HashSet::new();
        for record in records {
            let key = (record.job_id, record.submit);
            if known.iter().any(|k| (k.0, k.1) == key) || !seen.insert(key) {
                continue;
            }
            if let Some((_, submit, _)) = known.iter().find(|k| k.0 == record.job_id && k.2) {
                return Err(ApiError::with_detail(
                    SlurmErrno::Error,
                    format!(
                        "job id {} is already used by a Spur job submitted at {submit} (the imported one was \
                         submitted at {}): import before Spur runs jobs, or set FirstJobId past the imported ids",
                        record.job_id, record.submit
                    ),
                ));
            }
            added.push(record);
        }
        Ok(added)
    }

    /// The (job id, submit time, run by Spur) of every job Spur knows by one of the ids in `records`: live, in
    /// the buffer and, `with_store`, in the store.
    fn known_job_keys(
        &self,
        records: &[JobAccounting],
        now: EpochSecs,
        with_store: bool,
    ) -> Vec<(u32, EpochSecs, bool)> {
        let ids: Vec<u32> = records.iter().map(|r| r.job_id).collect();
        let recorded = if with_store {
            self.accounting_records(Some(&ids), None, None, now)
        } else {
            self.accounting_in_state(Some(&ids), None, None, now)
                .finish(Vec::new(), None)
        };
        let mut known: Vec<(u32, EpochSecs, bool)> = recorded
            .iter()
            .filter(|r| ids.contains(&r.job_id))
            .map(|r| (r.job_id, r.submit, !r.imported))
            .collect();
        // A live job's id is taken even before it has a record sacct would show.
        known.extend(
            ids.iter()
                .filter_map(|id| self.jobs.get(id))
                .map(|j| (j.job_id, j.submit_time, true)),
        );
        known
    }

    /// Adds the imported jobs' usage to fair-share, as accrual would have counted it: billing (AllocTRES's
    /// `billing=`, else the CPUs) times the QOS's `UsageFactor` times the seconds run, decayed from the job's end
    /// to the last accrual. Nothing when usage is not counted (see `counts_usage`).
    fn count_imported_usage(&mut self, records: &[JobAccounting]) {
        if !self.counts_usage() {
            return;
        }
        let Some(last) = self.usage.last_calc else {
            // The first accrual only starts the clock and keeps what is there: count as of the end.
            return self.add_imported_usage(records, None);
        };
        self.add_imported_usage(records, Some(last));
    }

    fn add_imported_usage(&mut self, records: &[JobAccounting], as_of: Option<EpochSecs>) {
        for record in records {
            let secs = record.elapsed_secs.max(0);
            if secs == 0 {
                continue;
            }
            let qos = record.qos.as_deref().unwrap_or(DEFAULT_QOS);
            let factor = self.acct.qos(qos).map_or(1.0, |q| q.usage_factor);
            let rate = billing_of(record) * factor;
            let age = match (as_of, record.end) {
                (Some(as_of), Some(end)) => as_of - end,
                _ => 0,
            };
            let added = rate
                * secs as f64
                * self.settings.fairshare.decay(secs)
                * self.settings.fairshare.decay(age);
            if added <= 0.0 {
                continue;
            }
            let chain = assoc_chain(
                &self.acct,
                &record.user_name,
                record.account.as_deref(),
                &record.partition,
            );
            for key in chain {
                *self.usage.raw.entry(key).or_default() += added;
            }
        }
    }
}

/// What one second of an imported job counts: its `billing=` TRES when Slurm recorded one, else its CPUs.
fn billing_of(record: &JobAccounting) -> f64 {
    record
        .alloc_tres
        .split(',')
        .find_map(|item| item.strip_prefix("billing="))
        .and_then(|n| n.parse::<f64>().ok())
        .unwrap_or(f64::from(record.cpus))
}

#[cfg(test)]
#[path = "import_jobs_tests.rs"]
mod tests;
