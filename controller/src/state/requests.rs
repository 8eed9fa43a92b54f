//! Idempotent requests: a client that lost its answer (the controller it spoke to died mid-call) sends the same
//! request id again, possibly to another controller, and gets what the first attempt produced (the job it created,
//! the answer to its control request) instead of a second one. The table lives in the replicated state, so every controller and every replay agrees on it.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

/// Request ids remembered. A client retries within seconds; this many covers far more than the submissions a
/// cluster takes during any retry window, and bounds the snapshot's growth.
pub const REMEMBERED_REQUESTS: usize = 65_536;

/// Request ids with what their first attempt produced, the oldest forgotten first once
/// [`REMEMBERED_REQUESTS`] are held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(serialize = "V: Serialize", deserialize = "V: Deserialize<'de>"))]
pub struct RequestTable<V> {
    /// Named `jobs` since the submissions' table was the first (snapshots keep the name).
    #[serde(rename = "jobs")]
    entries: BTreeMap<String, V>,
    /// Oldest first: the one forgotten when the table is full.
    order: VecDeque<String>,
}

impl<V> Default for RequestTable<V> {
    fn default() -> Self {
        RequestTable {
            entries: BTreeMap::new(),
            order: VecDeque::new(),
        }
    }
}

/// The table's key for `request_id` sent by `uid`. Request ids are the client's (host, pid, counter), so two
/// users could send the same one, by chance or to get another's answer: each user's ids are their own. Entries
/// remembered before keys named the caller (a bare id) are never matched again, which costs at most a retry in
/// flight during the upgrade. The commands themselves are unchanged (the uid was in them already).
pub fn caller_key(uid: u32, request_id: &str) -> String {
    format!("{uid}:{request_id}")
}

/// Submissions: the job each created.
pub type SubmitRequests = RequestTable<u32>;

/// Control requests (cancel, requeue, step creation, updates, ...): the answer each got, without the effects
/// (those were carried out by the first attempt). A retried `scontrol requeue` requeues once, a retried srun step
/// creation launches its tasks once.
pub type ControlRequests = RequestTable<Result<super::Applied, spur_core::wire::api::ApiError>>;

impl<V> RequestTable<V> {
    pub fn get(&self, request_id: &str) -> Option<&V> {
        self.entries.get(request_id)
    }

    pub fn remember(&mut self, request_id: String, value: V) {
        if self.entries.insert(request_id.clone(), value).is_some() {
            return;
        }
        self.order.push_back(request_id);
        while self.order.len() > REMEMBERED_REQUESTS {
            if let Some(oldest) = self.order.pop_front() {
                self.entries.remove(&oldest);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl SubmitRequests {
    /// The job an earlier submission with this id created.
    pub fn job_for(&self, request_id: &str) -> Option<u32> {
        self.get(request_id).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_request_is_forgotten_first() {
        let mut table = SubmitRequests::default();
        for i in 0..=REMEMBERED_REQUESTS {
            table.remember(format!("r{i}"), u32::try_from(i).unwrap_or(u32::MAX));
        }
        assert_eq!(table.len(), REMEMBERED_REQUESTS);
        assert_eq!(table.job_for("r0"), None);
        assert_eq!(table.job_for("r1"), Some(1));
        table.remember("r1".into(), 99);
        assert_eq!(
            table.job_for("r1"),
            Some(99),
            "a repeated id keeps one slot"
        );
        assert_eq!(table.len(), REMEMBERED_REQUESTS);
    }
}
