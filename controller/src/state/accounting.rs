//! Accounting kept by the state machine: a job's record is made from its live entry while it is in the jobs table
//! (so it is always current), and moved to `ClusterState::accounting` when `Purge` removes the job after
//! MinJobAge. That map is only a handoff buffer: the same apply queues the record for this controller's history
//! store (history/), and a `Purge` at least [`HANDOFF_SECS`] later drops it from the replicated state, so the
//! state and its snapshots hold the live jobs and a few minutes of purged ones, however long the history
//! (docs/accounting.md). Everything here runs in `apply`, with the command's clock, so every replica and replay
//! holds the same buffer; the store is written after the batch.

use std::collections::HashSet;
use std::sync::Arc;

use spur_core::model::accounting::{Filter, JobAccounting};
use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::model::states::JobBaseState;

use super::ClusterState;
use crate::history::{HistoryOp, HistoryQuery, HistoryStore};

/// How long a purged job's record stays in the replicated state after MinJobAge (counted from its end), so the
/// state holds at most the jobs that ended in the last MinJobAge + 10 minutes. A controller that catches up by a
/// snapshot after missing more than that lacks the records that left the buffer meanwhile in its own store.
pub const HANDOFF_SECS: i64 = 600;

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
            self.history
                .queue(HistoryOp::Upsert(Box::new(record.clone())));
            self.accounting.insert(job.job_id, record);
        }
    }

    /// Drops from the buffer the records whose handoff period is over: they are in the history store.
    pub(super) fn release_handed_off(&mut self, now: EpochSecs) {
        let keep = self.handoff_age();
        self.accounting
            .retain(|_, record| now - record.end.unwrap_or(record.submit) < keep);
    }

    /// Seconds after its end a purged job's record leaves the buffer.
    fn handoff_age(&self) -> EpochSecs {
        EpochSecs::from(self.settings.min_job_age_secs).saturating_add(HANDOFF_SECS)
    }

    /// Queues every record of the buffer for the history store and writes it: after a snapshot is installed or
    /// restored at start-up, so records this controller did not apply itself (a follower catching up, an upgrade
    /// from snapshots that kept every record) reach its store. Upserts, so records already there are unchanged.
    pub fn hand_buffer_to_history(&mut self) {
        if self.history.store().is_none() {
            return;
        }
        let records: Vec<JobAccounting> = self.accounting.values().cloned().collect();
        for record in records {
            self.history.queue(HistoryOp::Upsert(Box::new(record)));
        }
        self.history.flush(self.last_applied_index);
    }

    /// Drops archived records of jobs that ended more than the retention period before `now` (none without one).
    pub(super) fn expire_accounting(&mut self, now: EpochSecs) {
        let Some(keep_secs) = self.settings.accounting_keep_secs else {
            return;
        };
        let keep = EpochSecs::from(keep_secs);
        self.accounting
            .retain(|_, record| record.end.is_none_or(|end| now - end < keep));
        self.history
            .queue(HistoryOp::DeleteEndedBefore(now.saturating_sub(keep)));
    }

    /// Whether a `Purge` would drop archived records: checked on the lowest job id only (jobs mostly end in id
    /// order), so the leader's frequent check stays cheap however many records there are; the purge itself
    /// sweeps them all.
    pub fn accounting_expiry_due(&self, now: EpochSecs) -> bool {
        let Some(oldest) = self.accounting.values().next() else {
            return false;
        };
        let age = now - oldest.end.unwrap_or(oldest.submit);
        age >= self.handoff_age()
            || self
                .settings
                .accounting_keep_secs
                .is_some_and(|keep_secs| age >= EpochSecs::from(keep_secs))
    }

    /// The records `sacct` reads, live jobs, the handoff buffer and the history store together (a job in more
    /// than one is shown once, live first, then the buffer's), in sacct's order
    /// ([`JobAccounting::listing_key`]), narrowed to `job_ids` (an array's id brings its tasks) and `user_ids` when
    /// given, and to the jobs `select` picks (its window, states and names), before anything is copied.
    /// Reads the store through the link, so a lookup inside `apply` sees what this batch queued.
    pub fn accounting_records(
        &self,
        job_ids: Option<&[u32]>,
        user_ids: Option<&[u32]>,
        select: Option<&Filter>,
        now: EpochSecs,
    ) -> Vec<JobAccounting> {
        let read = self.accounting_in_state(job_ids, user_ids, select, now);
        let stored = match read.store {
            Some(_) => self.history.query(&read.query),
            None => Vec::new(),
        };
        read.finish(stored, select)
    }

    /// The state's part of [`accounting_records`](Self::accounting_records) (live jobs and the buffer), with the
    /// store and the query to ask it: the server asks the store after letting go of the state's lock, so a long
    /// sacct does not hold up `apply`.
    pub fn accounting_in_state(
        &self,
        job_ids: Option<&[u32]>,
        user_ids: Option<&[u32]>,
        select: Option<&Filter>,
        now: EpochSecs,
    ) -> AccountingRead {
        let wanted = |job_id: u32, array_id: Option<u32>, user_id: u32| {
            job_ids.is_none_or(|ids| ids.iter().any(|&id| id == job_id || array_id == Some(id)))
                && user_ids.is_none_or(|uids| uids.contains(&user_id))
        };
        let picked = |record: &JobAccounting| select.is_none_or(|f| f.selects(record));
        let live = self
            .jobs
            .values()
            .filter(|j| wanted(j.shown_job_id(), j.array_job_id, j.spec.user_id))
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
        AccountingRead {
            records: archived.chain(live).collect(),
            store: self.history.store().cloned(),
            query: HistoryQuery {
                job_ids: job_ids.map(<[u32]>::to_vec),
                user_ids: user_ids.map(<[u32]>::to_vec),
                window: select.and_then(store_window),
            },
        }
    }
}

/// The state's records for a sacct query, and what to ask the history store for the rest.
pub struct AccountingRead {
    pub records: Vec<JobAccounting>,
    pub store: Option<Arc<dyn HistoryStore>>,
    pub query: HistoryQuery,
}

impl AccountingRead {
    /// Asks the store (outside any lock) and finishes the listing; a store that cannot be read is logged and the
    /// state's records are shown alone.
    pub fn read_store(self, select: Option<&Filter>) -> Vec<JobAccounting> {
        let stored = match &self.store {
            Some(store) => store.query(&self.query).unwrap_or_else(|e| {
                tracing::error!("cannot read the job history: {e}");
                Vec::new()
            }),
            None => Vec::new(),
        };
        self.finish(stored, select)
    }

    /// Adds the store's records the state does not hold (by job id and submit time) and `select` picks, in sacct's
    /// order.
    pub(super) fn finish(
        self,
        stored: Vec<JobAccounting>,
        select: Option<&Filter>,
    ) -> Vec<JobAccounting> {
        let mut records = self.records;
        let seen: HashSet<(u32, EpochSecs)> =
            records.iter().map(|r| (r.job_id, r.submit)).collect();
        records.extend(stored.into_iter().filter(|r| {
            !seen.contains(&(r.job_id, r.submit)) && select.is_none_or(|f| f.selects(r))
        }));
        records.sort_by_key(JobAccounting::listing_key);
        records
    }
}

/// The window the store may narrow by: sacct's, when every state asked for (if any) is one a job is in only
/// within its lifetime (`in_state_during` of an ended state implies `active_during`); a pending or running state
/// asked for over a window is checked on every record instead.
fn store_window(filter: &Filter) -> Option<(EpochSecs, EpochSecs)> {
    let bounded = filter.states.iter().all(|s| {
        !matches!(
            s,
            JobBaseState::Pending | JobBaseState::Running | JobBaseState::Suspended
        )
    });
    filter.window.filter(|_| bounded)
}
