//! The job table and, beside it, the ids of the jobs that are not over (pending, running or suspended, or still
//! completing) and of those among them a scheduling pass must look at. Finished jobs stay in the table for
//! `MinJobAge` (at high-throughput rates, tens of thousands of them), and a pass that walked them all would cost
//! what was recently run rather than what is waiting. Held jobs a pass has already given their reason are left
//! out of the pass's walk too: a queue of 100,000 held jobs made every pass (one per cancellation of a job, say)
//! walk them all, for nothing.
//!
//! The table hands records out mutably only through its own methods, which note the ids they hand out; the
//! state machine settles the index at the end of every `apply`, so the index can never disagree with the
//! records it was made from (`ClusterState::check_invariants` checks that it does not).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use spur_core::model::job::{HoldKind, JobRecord};
use spur_core::model::states::{JobBaseState, JobReason};

#[derive(Debug, Clone, Default)]
pub struct JobTable {
    jobs: BTreeMap<u32, JobRecord>,
    /// Jobs for which [`is_live`] held when the table was last settled.
    live: BTreeSet<u32>,
    /// The live jobs a pass must look at ([`in_play`]), as of the last settle.
    in_play: BTreeSet<u32>,
    /// Records handed out mutably since the last settle.
    touched: Vec<u32>,
    /// Every record was handed out mutably (`values_mut`).
    all_touched: bool,
    /// The records of each array, by the array's id: a task started after others were submitted gets the next
    /// free job id then, so an array's records are not neighbours in the table. A record's array never changes
    /// while it is in the table, so the index follows `insert` and `remove`.
    arrays: BTreeMap<u32, BTreeSet<u32>>,
}

/// Whether the job is not over: it waits, runs, is suspended, or still holds its resources.
pub fn is_live(job: &JobRecord) -> bool {
    !job.state.is_finished() || job.completing || job.preempt_suspended
}

/// Whether a scheduling pass must see the job: it is live, and not a held job that a pass already gave its
/// reason to (nothing about it changes until it is released, which changes its record).
pub fn in_play(job: &JobRecord) -> bool {
    is_live(job) && !parked(job)
}

/// A held job waiting on its hold alone: pending, holding no nodes, its hold recorded by a pass.
fn parked(job: &JobRecord) -> bool {
    job.state == JobBaseState::Pending
        && !job.completing
        && !job.preempt_suspended
        && settled_while_held(job)
}

/// A held job whose hold a pass has already recorded: its reason says so, and it has no forecast start or
/// planned nodes left from before the hold. A pass would only find the same reason again (the hold is the first
/// thing the scheduler's gate checks, and held jobs keep their priority).
pub fn settled_while_held(job: &JobRecord) -> bool {
    let reason = match job.hold {
        Some(HoldKind::Admin) => JobReason::Held,
        Some(HoldKind::User) => JobReason::HeldUser,
        None => return false,
    };
    job.reason == reason
        && job.last_sched_eval.is_some()
        && job.expected_start.is_none()
        && job.sched_nodes.is_none()
}

impl JobTable {
    pub fn get_mut(&mut self, job_id: &u32) -> Option<&mut JobRecord> {
        let job = self.jobs.get_mut(job_id)?;
        self.touched.push(*job_id);
        Some(job)
    }

    pub fn insert(&mut self, job_id: u32, job: JobRecord) -> Option<JobRecord> {
        self.touched.push(job_id);
        if let Some(array) = job.array_job_id {
            self.arrays.entry(array).or_default().insert(job_id);
        }
        let replaced = self.jobs.insert(job_id, job);
        if let Some(old_array) = replaced.as_ref().and_then(|j| j.array_job_id) {
            let still = self.jobs.get(&job_id).and_then(|j| j.array_job_id) == Some(old_array);
            if !still {
                self.forget_task(old_array, job_id);
            }
        }
        replaced
    }

    pub fn remove(&mut self, job_id: &u32) -> Option<JobRecord> {
        self.live.remove(job_id);
        self.in_play.remove(job_id);
        let removed = self.jobs.remove(job_id);
        if let Some(array) = removed.as_ref().and_then(|j| j.array_job_id) {
            self.forget_task(array, *job_id);
        }
        removed
    }

    fn forget_task(&mut self, array: u32, job_id: u32) {
        if let Some(tasks) = self.arrays.get_mut(&array) {
            tasks.remove(&job_id);
            if tasks.is_empty() {
                self.arrays.remove(&array);
            }
        }
    }

    /// The keys of array `array`'s tasks that have not started yet, in key order.
    pub fn unstarted_tasks(&self, array: u32) -> impl Iterator<Item = u32> + '_ {
        self.arrays
            .get(&array)
            .into_iter()
            .flat_map(|keys| keys.range(spur_core::model::job::UNSTARTED_TASK_KEYS..))
            .copied()
    }

    /// The records of array `array` (its tasks, started or not), in key order.
    pub fn array_tasks(&self, array: u32) -> impl Iterator<Item = &JobRecord> + '_ {
        self.arrays
            .get(&array)
            .into_iter()
            .flatten()
            .filter_map(|id| self.jobs.get(id))
    }

    pub fn values_mut(&mut self) -> std::collections::btree_map::ValuesMut<'_, u32, JobRecord> {
        self.all_touched = true;
        self.jobs.values_mut()
    }

    /// Brings the index up to date with every record handed out since the last call.
    pub fn settle(&mut self) {
        if self.all_touched {
            (self.live, self.in_play) = indexes(&self.jobs);
            self.arrays = array_index(&self.jobs);
            self.all_touched = false;
            self.touched.clear();
            return;
        }
        for job_id in self.touched.drain(..) {
            let job = self.jobs.get(&job_id);
            match job {
                Some(job) if is_live(job) => self.live.insert(job_id),
                _ => self.live.remove(&job_id),
            };
            match job {
                Some(job) if in_play(job) => self.in_play.insert(job_id),
                _ => self.in_play.remove(&job_id),
            };
        }
    }

    /// The jobs not over ([`is_live`]), in job id order. The table must be settled (`apply` settles it).
    pub fn live(&self) -> impl DoubleEndedIterator<Item = &JobRecord> + '_ {
        self.records_of(&self.live)
    }

    /// How many jobs are not over.
    pub fn live_count(&self) -> usize {
        self.live.len()
    }

    /// The jobs a scheduling pass must look at ([`in_play`]), in job id order. The table must be settled.
    pub fn in_play(&self) -> impl DoubleEndedIterator<Item = &JobRecord> + '_ {
        self.records_of(&self.in_play)
    }

    fn records_of<'a>(
        &'a self,
        index: &'a BTreeSet<u32>,
    ) -> impl DoubleEndedIterator<Item = &'a JobRecord> + 'a {
        debug_assert!(
            self.touched.is_empty() && !self.all_touched,
            "the job table was changed outside ClusterState::apply and not settled"
        );
        index.iter().filter_map(|id| self.jobs.get(id))
    }

    /// How many jobs a pass must look at.
    pub fn in_play_count(&self) -> usize {
        self.in_play.len()
    }

    /// Whether the indexes say exactly what the records say (for `check_invariants`).
    pub fn index_matches(&self) -> Result<(), String> {
        let (live, in_play) = indexes(&self.jobs);
        if self.touched.is_empty()
            && !self.all_touched
            && live == self.live
            && in_play == self.in_play
            && array_index(&self.jobs) == self.arrays
        {
            return Ok(());
        }
        Err(format!(
            "job indexes live {:?}, in play {:?} (unsettled: {:?}, all: {}) but the records say {:?}, {:?}",
            self.live, self.in_play, self.touched, self.all_touched, live, in_play
        ))
    }
}

/// The live jobs and those of them in play, from the records.
fn indexes(jobs: &BTreeMap<u32, JobRecord>) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let mut live = BTreeSet::new();
    let mut in_play_ids = BTreeSet::new();
    for (id, job) in jobs {
        if is_live(job) {
            live.insert(*id);
        }
        if in_play(job) {
            in_play_ids.insert(*id);
        }
    }
    (live, in_play_ids)
}

/// The records of each array, from the records.
fn array_index(jobs: &BTreeMap<u32, JobRecord>) -> BTreeMap<u32, BTreeSet<u32>> {
    let mut arrays: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for (id, job) in jobs {
        if let Some(array) = job.array_job_id {
            arrays.entry(array).or_default().insert(*id);
        }
    }
    arrays
}

impl Deref for JobTable {
    type Target = BTreeMap<u32, JobRecord>;

    fn deref(&self) -> &Self::Target {
        &self.jobs
    }
}

impl From<BTreeMap<u32, JobRecord>> for JobTable {
    fn from(jobs: BTreeMap<u32, JobRecord>) -> Self {
        let (live, in_play) = indexes(&jobs);
        let arrays = array_index(&jobs);
        JobTable {
            jobs,
            live,
            in_play,
            touched: Vec::new(),
            all_touched: false,
            arrays,
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
    use spur_core::model::job::JobSpec;
    use spur_core::model::states::JobBaseState;

    fn pending(job_id: u32) -> JobRecord {
        JobRecord::pending(job_id, JobSpec::default(), "p".to_string(), 0, 1)
    }

    fn live_ids(table: &JobTable) -> Vec<u32> {
        table.live().map(|j| j.job_id).collect()
    }

    fn in_play_ids(table: &JobTable) -> Vec<u32> {
        table.in_play().map(|j| j.job_id).collect()
    }

    /// What a pass records on a held job: its reason and the time it looked.
    fn settle_hold(job: &mut JobRecord) {
        job.reason = JobReason::HeldUser;
        job.last_sched_eval = Some(100);
    }

    #[test]
    fn held_jobs_leave_the_pass_once_their_reason_is_recorded() {
        let mut table = JobTable::default();
        for id in 1..=3 {
            let mut job = pending(id);
            job.hold = Some(HoldKind::User);
            table.insert(id, job);
        }
        table.settle();
        assert_eq!(in_play_ids(&table), [1, 2, 3], "no pass has seen them yet");
        for id in [1, 2] {
            if let Some(job) = table.get_mut(&id) {
                settle_hold(job);
            }
        }
        table.settle();
        assert_eq!(in_play_ids(&table), [3]);
        assert_eq!(live_ids(&table), [1, 2, 3], "listings still show them");
        assert_eq!((table.in_play_count(), table.live_count()), (1, 3));
        // Released, job 1 waits again; job 2, requeued while still completing elsewhere, holds nodes.
        if let Some(job) = table.get_mut(&1) {
            job.hold = None;
        }
        if let Some(job) = table.get_mut(&2) {
            job.completing = true;
        }
        table.settle();
        assert_eq!(in_play_ids(&table), [1, 2, 3]);
        assert_eq!(table.index_matches(), Ok(()));
        // Rebuilt from the records alone (a snapshot read, `values_mut`), the indexes say the same.
        for job in table.values_mut() {
            settle_hold(job);
            job.hold = Some(HoldKind::User);
            job.completing = false;
        }
        table.settle();
        assert_eq!(in_play_ids(&table), Vec::<u32>::new());
        let read = JobTable::from(table.jobs.clone());
        assert_eq!((read.in_play_count(), read.live_count()), (0, 3));
        table.remove(&3);
        assert_eq!(table.index_matches(), Ok(()));
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
