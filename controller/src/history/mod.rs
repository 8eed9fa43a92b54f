//! The job history store: every purged job's accounting record, kept on each controller outside the replicated
//! state so the Raft state and its snapshots stay bounded by the live jobs (docs/accounting.md, "History store").
//!
//! The state machine stays pure: `apply` only queues [`HistoryOp`]s in [`HistoryLink`] (records archived by
//! `Purge`, edits of archived records, retention deletes); the raft layer calls
//! `AppStateMachine::batch_applied` after each batch of entries, which writes the queue to the store in one
//! transaction. Writes are upserts keyed by (job id, submit time), so replaying entries after a restart is
//! harmless. [`sqlite::SqliteHistory`] is the embedded implementation.

pub mod postgres;
pub mod sqlite;

use std::fmt;
use std::sync::Arc;

use spur_core::model::accounting::JobAccounting;
use spur_core::model::job::EpochSecs;

/// A change to the store, queued by `apply` and written after the batch.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryOp {
    /// Insert or replace the record of (job id, submit time).
    Upsert(Box<JobAccounting>),
    /// `PurgeJobAfter`: drop the records of jobs that ended before this time.
    DeleteEndedBefore(EpochSecs),
}

/// Which records a query wants; every part left `None` selects everything. The store narrows by these with its
/// indexes; the caller applies sacct's full filter afterwards.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistoryQuery {
    /// Job ids; an array's id also selects its tasks.
    pub job_ids: Option<Vec<u32>>,
    pub user_ids: Option<Vec<u32>>,
    /// Jobs known during `[from, to]`: submitted by `to` and not ended before `from`.
    pub window: Option<(EpochSecs, EpochSecs)>,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("job history store {path}: {source}")]
    Sqlite {
        path: String,
        source: rusqlite::Error,
    },
    #[error("job history store {path}: {reason}")]
    Server { path: String, reason: String },
    #[error(
        "job history store {path} has schema version {found}, newer than this controller understands ({supported})"
    )]
    TooNew {
        path: String,
        found: i64,
        supported: i64,
    },
    #[error("job history store {path}: record of job {job_id} has format {format}, newer than this controller understands")]
    RecordTooNew {
        path: String,
        job_id: u32,
        format: i64,
    },
    #[error("job history store {path}: cannot decode the record of job {job_id}: {reason}")]
    Decode {
        path: String,
        job_id: u32,
        reason: String,
    },
}

/// Decodes a stored record of `format` (1: `JobAccounting`'s serde JSON); a format this build does not know is an
/// error, never a guess.
pub(crate) fn decode_record(
    path: &str,
    job_id: u32,
    format: i64,
    blob: &[u8],
) -> Result<JobAccounting, HistoryError> {
    if format != sqlite::RECORD_FORMAT {
        return Err(HistoryError::RecordTooNew {
            path: path.to_string(),
            job_id,
            format,
        });
    }
    serde_json::from_slice(blob).map_err(|e| HistoryError::Decode {
        path: path.to_string(),
        job_id,
        reason: e.to_string(),
    })
}

/// Keeps the records that meet every part of `query` (a store narrows by one part with its indexes).
pub(crate) fn narrow(query: &HistoryQuery, mut records: Vec<JobAccounting>) -> Vec<JobAccounting> {
    records.retain(|r| {
        query.job_ids.as_ref().is_none_or(|ids| {
            ids.iter()
                .any(|&id| id == r.job_id || r.array_job_id == Some(id))
        }) && query
            .user_ids
            .as_ref()
            .is_none_or(|uids| uids.contains(&r.user_id))
            && query
                .window
                .is_none_or(|(from, to)| r.active_during(from, to))
    });
    records
}

/// A history store: written only by the state machine's batch hook, read by queries.
pub trait HistoryStore: Send + Sync {
    /// Applies `ops` in order, in one transaction, and records `last_applied` (the state machine's last applied
    /// sequence number) with them.
    fn write(&self, ops: &[HistoryOp], last_applied: u64) -> Result<(), HistoryError>;
    /// The records `query` selects, in no particular order.
    fn query(&self, query: &HistoryQuery) -> Result<Vec<JobAccounting>, HistoryError>;
    /// The sequence number the last write recorded (0 for a new store).
    fn last_applied(&self) -> Result<u64, HistoryError>;
}

/// The state's link to its history store (none with `accounting_storage/none` and in pure state tests) and the
/// operations queued since the last batch. Not part of the replicated state: skipped by serde, equal to any other
/// link, and kept across a snapshot restore.
#[derive(Clone, Default)]
pub struct HistoryLink {
    store: Option<Arc<dyn HistoryStore>>,
    pending: Vec<HistoryOp>,
}

impl fmt::Debug for HistoryLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HistoryLink")
            .field("store", &self.store.is_some())
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl PartialEq for HistoryLink {
    /// The link is this controller's own plumbing: two states holding the same replicated data are equal.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Pending operations kept for a retry after failed writes before the oldest are dropped (logged): a store that
/// cannot be written for long must not grow the controller's memory without bound.
const MAX_PENDING: usize = 1_000_000;

impl HistoryLink {
    pub fn new(store: Arc<dyn HistoryStore>) -> Self {
        HistoryLink {
            store: Some(store),
            pending: Vec::new(),
        }
    }

    pub fn store(&self) -> Option<&Arc<dyn HistoryStore>> {
        self.store.as_ref()
    }

    /// Queues `op` for the end of the batch; nothing without a store.
    pub fn queue(&mut self, op: HistoryOp) {
        if self.store.is_some() {
            self.pending.push(op);
        }
    }

    /// Writes the queued operations. On failure they stay queued for the next batch (bounded by
    /// [`MAX_PENDING`]) and the error is logged: the records are still in the state's handoff buffer meanwhile.
    pub fn flush(&mut self, last_applied: u64) {
        let Some(store) = &self.store else {
            return;
        };
        if self.pending.is_empty() {
            return;
        }
        match store.write(&self.pending, last_applied) {
            Ok(()) => self.pending.clear(),
            Err(e) => {
                tracing::error!("cannot write the job history: {e}; retrying after the next batch");
                if self.pending.len() > MAX_PENDING {
                    let excess = self.pending.len() - MAX_PENDING;
                    tracing::error!("dropping {excess} unwritten job history operations");
                    self.pending.drain(..excess);
                }
            }
        }
    }

    /// The store's records for `query`; empty (logged) when it cannot be read, so a damaged store still lets
    /// sacct show the live jobs and the handoff buffer.
    pub fn query(&self, query: &HistoryQuery) -> Vec<JobAccounting> {
        let Some(store) = &self.store else {
            return Vec::new();
        };
        match store.query(query) {
            Ok(mut records) => {
                // Edits queued by this batch are newer than what the store holds.
                for record in &mut records {
                    if let Some(newer) = self.pending_record(record.job_id, record.submit) {
                        *record = newer.clone();
                    }
                }
                records
            }
            Err(e) => {
                tracing::error!("cannot read the job history: {e}");
                Vec::new()
            }
        }
    }

    /// The record of (job id, submit time) as the store will hold it after this batch.
    pub fn record(&self, job_id: u32, submit: EpochSecs) -> Option<JobAccounting> {
        if let Some(newer) = self.pending_record(job_id, submit) {
            return Some(newer.clone());
        }
        self.query(&HistoryQuery {
            job_ids: Some(vec![job_id]),
            ..HistoryQuery::default()
        })
        .into_iter()
        .find(|r| r.job_id == job_id && r.submit == submit)
    }

    fn pending_record(&self, job_id: u32, submit: EpochSecs) -> Option<&JobAccounting> {
        self.pending.iter().rev().find_map(|op| match op {
            HistoryOp::Upsert(r) if r.job_id == job_id && r.submit == submit => Some(&**r),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests;
