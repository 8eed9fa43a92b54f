//! Idempotent submission: a client that lost its answer (the controller it spoke to died mid-call) sends the same
//! request id again, possibly to another controller, and gets the job the first attempt created instead of a
//! second one. The table lives in the replicated state, so every controller and every replay agrees on it.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

/// Request ids remembered. A client retries within seconds; this many covers far more than the submissions a
/// cluster takes during any retry window, and bounds the snapshot's growth.
pub const REMEMBERED_REQUESTS: usize = 65_536;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubmitRequests {
    jobs: BTreeMap<String, u32>,
    /// Oldest first: the one forgotten when the table is full.
    order: VecDeque<String>,
}

impl SubmitRequests {
    /// The job an earlier submission with this id created.
    pub fn job_for(&self, request_id: &str) -> Option<u32> {
        self.jobs.get(request_id).copied()
    }

    pub fn remember(&mut self, request_id: String, job_id: u32) {
        if self.jobs.insert(request_id.clone(), job_id).is_some() {
            return;
        }
        self.order.push_back(request_id);
        while self.order.len() > REMEMBERED_REQUESTS {
            if let Some(oldest) = self.order.pop_front() {
                self.jobs.remove(&oldest);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
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
