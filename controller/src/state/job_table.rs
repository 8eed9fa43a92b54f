//! The job table and, beside it, the ids of the jobs a scheduling pass must look at: pending, running or
//! suspended, or still completing. Finished jobs stay in the table for `MinJobAge` (at high-throughput rates,
//! tens of thousands of them), and a pass that walked them all would cost what was recently run rather than
//! what is waiting.
//!
//! The table hands records out mutably only through its own methods, which note the ids they hand out; the
//! state machine settles the index at the end of every `apply`, so the index can never disagree with the
//! records it was made from (`ClusterState::check_invariants` checks that it does not).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use spur_core::job::JobRecord;

#[derive(Debug, Clone, Default)]
pub struct JobTable {
    jobs: BTreeMap<u32, JobRecord>,
    /// Jobs for which [`is_live`] held when the table was last settled.
    live: BTreeSet<u32>,
    /// Records handed out mutably since the last settle.
    touched: Vec<u32>,
    /// Every record was handed out mutably (`values_mut`).
    all_touched: bool,
}

/// Whether a scheduling pass must see the job: it waits, runs, is suspended, or still holds its resources.
pub fn is_live(job: &JobRecord) -> bool {
    !job.state.is_finished() || job.completing || job.preempt_suspended
}

impl JobTable {
    pub fn get_mut(&mut self, job_id: &u32) -> Option<&mut JobRecord> {
        let job = self.jobs.get_mut(job_id)?;
        self.touched.push(*job_id);
        Some(job)
    }

    pub fn insert(&mut self, job_id: u32, job: JobRecord) -> Option<JobRecord> {
        self.touched.push(job_id);
        self.jobs.insert(job_id, job)
    }

    pub fn remove(&mut self, job_id: &u32) -> Option<JobRecord> {
        self.live.remove(job_id);
        self.jobs.remove(job_id)
    }

    pub fn values_mut(&mut self) -> std::collections::btree_map::ValuesMut<'_, u32, JobRecord> {
        self.all_touched = true;
        self.jobs.values_mut()
    }

    /// Brings the index up to date with every record handed out since the last call.
    pub fn settle(&mut self) {
        if self.all_touched {
            self.live = live_ids(&self.jobs);
            self.all_touched = false;
            self.touched.clear();
            return;
        }
        for job_id in self.touched.drain(..) {
            match self.jobs.get(&job_id) {
                Some(job) if is_live(job) => self.live.insert(job_id),
                _ => self.live.remove(&job_id),
            };
        }
    }

    /// The jobs a pass must look at, in job id order. The table must be settled (`apply` settles it).
    pub fn live(&self) -> impl DoubleEndedIterator<Item = &JobRecord> + '_ {
        debug_assert!(
            self.touched.is_empty() && !self.all_touched,
            "the job table was changed outside ClusterState::apply and not settled"
        );
        self.live.iter().filter_map(|id| self.jobs.get(id))
    }

    /// How many jobs a pass must look at.
    pub fn live_count(&self) -> usize {
        self.live.len()
    }

    /// Whether the index says exactly what the records say (for `check_invariants`).
    pub fn index_matches(&self) -> Result<(), String> {
        let expected = live_ids(&self.jobs);
        if self.touched.is_empty() && !self.all_touched && expected == self.live {
            return Ok(());
        }
        Err(format!(
            "live job index {:?} (unsettled: {:?}, all: {}) but the records say {:?}",
            self.live, self.touched, self.all_touched, expected
        ))
    }
}

fn live_ids(jobs: &BTreeMap<u32, JobRecord>) -> BTreeSet<u32> {
    jobs.iter()
        .filter(|(_, job)| is_live(job))
        .map(|(id, _)| *id)
        .collect()
}

impl Deref for JobTable {
    type Target = BTreeMap<u32, JobRecord>;

    fn deref(&self) -> &Self::Target {
        &self.jobs
    }
}

impl From<BTreeMap<u32, JobRecord>> for JobTable {
    fn from(jobs: BTreeMap<u32, JobRecord>) -> Self {
        let live = live_ids(&jobs);
        JobTable {
            jobs,
            live,
            touched: Vec::new(),
            all_touched: false,
        }
    }
}

/// The index is derived: two tables are equal when their records are.
impl PartialEq for JobTable {
    fn eq(&self, other: &Self) -> bool {
        self.jobs == other.jobs
    }
}

/// Persisted as the map alone (the snapshot format is unchanged); the index is rebuilt when read.
impl Serialize for JobTable {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.jobs.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for JobTable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BTreeMap::deserialize(deserializer).map(JobTable::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::job::JobSpec;
    use spur_core::states::JobBaseState;

    fn pending(job_id: u32) -> JobRecord {
        JobRecord::pending(job_id, JobSpec::default(), "p".to_string(), 0, 1)
    }

    fn live_ids(table: &JobTable) -> Vec<u32> {
        table.live().map(|j| j.job_id).collect()
    }

    #[test]
    fn the_index_follows_every_change_once_settled() {
        let mut table = JobTable::default();
        for id in 1..=4 {
            table.insert(id, pending(id));
        }
        table.settle();
        assert_eq!(live_ids(&table), [1, 2, 3, 4]);
        // Finished jobs leave the index; a finished job still completing stays until its nodes are clean.
        if let Some(job) = table.get_mut(&1) {
            job.state = JobBaseState::Completed;
        }
        if let Some(job) = table.get_mut(&2) {
            job.state = JobBaseState::Cancelled;
            job.completing = true;
        }
        table.remove(&3);
        table.settle();
        assert_eq!(live_ids(&table), [2, 4]);
        assert_eq!(table.index_matches(), Ok(()));
        // A requeued job comes back.
        if let Some(job) = table.get_mut(&1) {
            job.state = JobBaseState::Pending;
        }
        assert!(
            table.index_matches().is_err(),
            "unsettled changes are reported"
        );
        table.settle();
        assert_eq!(live_ids(&table), [1, 2, 4]);
        for job in table.values_mut() {
            job.state = JobBaseState::Completed;
            job.completing = false;
        }
        table.settle();
        assert_eq!(live_ids(&table), Vec::<u32>::new());
        assert_eq!(table.len(), 3);
    }

    #[test]
    fn the_index_is_rebuilt_when_read_and_not_persisted() {
        let mut table = JobTable::default();
        table.insert(7, pending(7));
        let mut done = pending(8);
        done.state = JobBaseState::Completed;
        table.insert(8, done);
        table.settle();
        let text = serde_json::to_string(&table).unwrap();
        let plain: BTreeMap<u32, JobRecord> = serde_json::from_str(&text).unwrap();
        assert_eq!(plain.len(), 2, "persisted as the plain map");
        let read: JobTable = serde_json::from_str(&text).unwrap();
        assert_eq!(read, table);
        assert_eq!(live_ids(&read), [7]);
    }
}
