//! Safety checks after every commit and every scheduling plan, and the final audit once the cluster has settled.
//! Each failure panics with what broke; the runner adds the seed.

use std::collections::{BTreeMap, BTreeSet};

use spur_controller::scheduler::Plan;
use spur_controller::state::ClusterState;
use spur_core::model::job::{Allocation, JobRecord};
use spur_core::model::records::NodeBaseState;
use spur_core::model::states::JobBaseState;

use super::workload::{declared_exit, Client};

/// Who a job is across its life: an array task by its array and index (it has no job id of its own until it
/// starts, and moves to one then), any other job by its id.
pub type Ident = u64;

const ARRAY_TASK: u64 = 1 << 63;

fn ident_of(job_id: u32, array: Option<u32>, task: Option<u32>) -> Ident {
    match (array, task) {
        (Some(array), Some(task)) => ARRAY_TASK | (u64::from(array) << 32) | u64::from(task),
        _ => u64::from(job_id),
    }
}

pub fn ident(job: &JobRecord) -> Ident {
    ident_of(job.job_id, job.array_job_id, job.array_task_id)
}

/// The array an identity belongs to, if it is an array task's.
fn array_of(ident: Ident) -> Option<u32> {
    (ident & ARRAY_TASK != 0).then_some(((ident & !ARRAY_TASK) >> 32) as u32)
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Final {
    state: JobBaseState,
    exit_code: u32,
    signal: u32,
}

#[derive(Default)]
pub struct Checker {
    /// Every job ever seen, with its request name and submit time: an identity never names another job.
    identity: BTreeMap<Ident, (String, i64)>,
    /// Every job id ever given, with the job it names: a job id never names another job.
    ids: BTreeMap<u32, Ident>,
    /// The final state each finished job reached (kept after the job is purged).
    finals: BTreeMap<Ident, Final>,
    /// Final jobs last seen, so a purged one keeps its record (and its allocation, for NODE_FAIL's audit).
    records: BTreeMap<Ident, JobRecord>,
    /// Jobs a user cancelled or requeued (a requeue may take a finished job back to the queue once).
    pub cancelled: BTreeSet<Ident>,
    pub requeued: BTreeSet<Ident>,
    /// Nodes the controller declared not responding at some point.
    pub failed_nodes: BTreeSet<String>,
}

fn is_final(job: &JobRecord) -> bool {
    job.is_finished() && !job.completing
}

pub fn holds_resources(job: &JobRecord) -> bool {
    matches!(job.state, JobBaseState::Running | JobBaseState::Suspended) || job.completing
}

impl Checker {
    pub fn new() -> Self {
        Checker::default()
    }

    pub fn after_commit(&mut self, state: &ClusterState) {
        for job in state.jobs.values() {
            self.check_identity(job, state.next_job_id);
            let me = ident(job);
            let now_final = is_final(job).then_some(Final {
                state: job.state,
                exit_code: job.exit_code,
                signal: job.exit_signal,
            });
            match (self.finals.get(&me).copied(), now_final) {
                (None, Some(f)) => {
                    self.finals.insert(me, f);
                }
                (Some(before), Some(f)) => {
                    assert_eq!(
                        before,
                        f,
                        "job {} changed its final state",
                        job.display_id()
                    )
                }
                (Some(before), None) => {
                    assert!(
                        self.requeued.remove(&me),
                        "job {} left its final state {before:?} for {:?} without a requeue",
                        job.display_id(),
                        job.state
                    );
                    self.finals.remove(&me);
                }
                (None, None) => {}
            }
            if is_final(job) {
                self.records.insert(me, job.clone());
            }
        }
        check_capacity(state);
    }

    fn check_identity(&mut self, job: &JobRecord, next_job_id: u32) {
        let me = ident(job);
        let identity = (job.spec.name.clone(), job.submit_time);
        match self.identity.get(&me) {
            Some(known) => assert_eq!(known, &identity, "{} names two jobs", job.display_id()),
            None => {
                self.identity.insert(me, identity);
            }
        }
        if job.is_unstarted_array_task() {
            assert!(
                job.alloc.is_none()
                    && matches!(job.state, JobBaseState::Pending | JobBaseState::Cancelled),
                "array task {} ran without a job id",
                job.display_id()
            );
            return;
        }
        assert!(
            job.job_id < next_job_id,
            "job {} at or above next_job_id",
            job.job_id
        );
        let named = *self.ids.entry(job.job_id).or_insert(me);
        assert_eq!(named, me, "job id {} names two jobs", job.job_id);
    }

    /// The scheduler places only on nodes that are up, not draining and responding.
    pub fn check_plan(&self, state: &ClusterState, plan: &Plan) {
        for (job_id, alloc) in &plan.starts {
            for name in &alloc.node_names {
                let node = state.nodes.get(name);
                let usable = node.is_some_and(|n| {
                    !n.drain && !n.not_responding && !matches!(n.base_state, NodeBaseState::Down)
                });
                assert!(
                    usable,
                    "the plan starts job {job_id} on unusable node {name}: {node:?}"
                );
            }
        }
    }

    pub fn check_started(&self, state: &ClusterState, starts: &[(u32, Allocation)]) {
        for (job_id, alloc) in starts {
            // An array task that had not started moved to its new job id as it started.
            let job = state.jobs.get(job_id).or_else(|| {
                (*job_id >= spur_core::model::job::UNSTARTED_TASK_KEYS).then(|| {
                    state.jobs.values().find(|j| {
                        j.state == JobBaseState::Running && j.alloc.as_ref() == Some(alloc)
                    })
                })?
            });
            assert!(
                job.is_some_and(
                    |j| j.state == JobBaseState::Running && j.alloc.as_ref() == Some(alloc)
                ),
                "planned start of job {job_id} on {alloc:?} was refused by the state machine: {:?}",
                job.map(|j| (j.state, &j.alloc))
            );
        }
    }

    /// Once everything settled: every acknowledged submission made exactly its jobs, and every job ended once,
    /// the way its run or its fault says it must.
    pub fn audit(&mut self, state: &ClusterState, client: &Client) {
        let mut by_name: BTreeMap<&str, Vec<Ident>> = BTreeMap::new();
        for (id, (name, _)) in &self.identity {
            by_name.entry(name.as_str()).or_default().push(*id);
        }
        for (name, &(first, tasks)) in &client.acked {
            let ids = by_name.get(name.as_str()).cloned().unwrap_or_default();
            // A job has its id; an array's tasks, however many, are all of the array the submission named.
            let made = ids.len() == tasks as usize
                && ids
                    .iter()
                    .all(|&id| id == u64::from(first) || array_of(id) == Some(first));
            assert!(
                made,
                "acknowledged submission {name} (job {first}, {tasks} jobs) made jobs {ids:?}"
            );
        }
        assert!(client.pending.is_empty(), "submissions never acknowledged");
        let accounting: BTreeMap<Ident, spur_core::model::accounting::JobAccounting> = state
            .accounting_records(None, None, None, i64::MAX)
            .into_iter()
            .map(|record| {
                let id = ident_of(record.job_id, record.array_job_id, record.array_task_id);
                (id, record)
            })
            .collect();
        let ids: Vec<Ident> = self.identity.keys().copied().collect();
        let live: BTreeMap<Ident, &JobRecord> =
            state.jobs.values().map(|j| (ident(j), j)).collect();
        // Tasks cancelled before they ever started are all recorded under their array's id, as slurmdbd records
        // the array's one pending record: once purged, the history store keeps one of them per array.
        let never_started = |id: &Ident| {
            live.get(id)
                .copied()
                .or_else(|| self.records.get(id))
                .is_some_and(|j| j.is_unstarted_array_task())
        };
        let arrays_recorded: BTreeSet<u32> = accounting
            .values()
            .filter(|r| r.array_job_id == Some(r.job_id))
            .map(|r| r.job_id)
            .collect();
        let expected: Vec<Ident> = ids
            .iter()
            .copied()
            .filter(|id| {
                accounting.contains_key(id)
                    || !(never_started(id)
                        && array_of(*id).is_some_and(|a| arrays_recorded.contains(&a)))
            })
            .collect();
        assert_eq!(
            accounting.keys().copied().collect::<Vec<Ident>>(),
            expected,
            "accounting holds one record per job, live or purged"
        );
        for id in ids {
            if let Some(job) = live.get(&id) {
                assert!(
                    is_final(job),
                    "job {id} never ended: {:?} completing={}",
                    job.state,
                    job.completing
                );
            }
            let Some(end) = self.finals.get(&id) else {
                panic!("job {id} vanished without a final state");
            };
            let Some(job) = live
                .get(&id)
                .copied()
                .or_else(|| self.records.get(&id))
                .cloned()
            else {
                panic!("job {id}: no record");
            };
            let end = *end;
            self.audit_outcome(&job, end);
            if let Some(record) = accounting.get(&id) {
                audit_accounting(record, end);
            }
        }
    }

    fn audit_outcome(&mut self, job: &JobRecord, end: Final) {
        let id = ident(job);
        let declared = declared_exit(&job.spec);
        let ok = match end.state {
            JobBaseState::Completed => declared == 0 && end.exit_code == 0 && end.signal == 0,
            JobBaseState::Failed => declared != 0 && end.exit_code == declared && end.signal == 0,
            JobBaseState::Cancelled => self.cancelled.contains(&id),
            JobBaseState::Timeout => job.time_limit_min.is_some(),
            JobBaseState::NodeFail => job
                .alloc
                .as_ref()
                .is_some_and(|a| a.node_names.iter().any(|n| self.failed_nodes.contains(n))),
            _ => false,
        };
        assert!(
            ok,
            "job {id} ended {end:?}, but its script exits {declared} (cancelled: {}, time limit {:?}, nodes {:?})",
            self.cancelled.contains(&id),
            job.time_limit_min,
            job.alloc.as_ref().map(|a| &a.node_names)
        );
    }

    pub fn jobs_seen(&self) -> usize {
        self.identity.len()
    }
}

/// A job's accounting record, live or kept after its purge, says how it ended, as the live job did.
fn audit_accounting(record: &spur_core::model::accounting::JobAccounting, end: Final) {
    let id = record.job_id;
    assert_eq!(
        (record.state, record.exit_code, record.exit_signal),
        (end.state, end.exit_code, end.signal),
        "job {id}: accounting disagrees with how the job ended"
    );
    assert!(record.end.is_some(), "job {id}: accounting has no end");
    if end.state == JobBaseState::Cancelled {
        assert!(
            record.cancelled_by.is_some(),
            "job {id}: cancelled by nobody"
        );
    }
}

/// Computed from the jobs alone (not the nodes' ledgers, which `check_invariants` compares): no node gives more
/// CPUs or memory than it has, and no GPU to two jobs. CPUs shared under `OverSubscribe=` count as their share
/// (`1/N` of a core each), and a job shares cores only as its partition lets it.
fn check_capacity(state: &ClusterState) {
    use spur_core::policy::oversubscribe::{node_slots, share_slots, JobSharing, PartitionSharing};
    let mut cpus: BTreeMap<&str, u64> = BTreeMap::new();
    let mut mem: BTreeMap<&str, u64> = BTreeMap::new();
    let mut gpus: BTreeMap<&str, Vec<(u32, u32)>> = BTreeMap::new();
    for job in state.jobs.values().filter(|j| holds_resources(j)) {
        let Some(alloc) = &job.alloc else {
            panic!("job {} holds resources without an allocation", job.job_id);
        };
        let partition = state
            .partition(&job.partition)
            .map_or(PartitionSharing::No, |p| {
                PartitionSharing::parse(&p.oversubscribe)
            });
        let allowed = JobSharing::resolve(partition, &job.spec);
        let booked = if allowed.shares() {
            allowed.per_core
        } else {
            0
        };
        assert_eq!(
            alloc.oversubscribe, booked,
            "job {} in {}: shares cores with {} jobs, its partition allows {booked}",
            job.job_id, job.partition, alloc.oversubscribe
        );
        for (at, node) in alloc.node_names.iter().enumerate() {
            *cpus.entry(node).or_default() += if alloc.shares_cores() {
                share_slots(alloc.cpus, alloc.oversubscribe)
            } else {
                node_slots(alloc.cpus)
            };
            *mem.entry(node).or_default() += alloc.mem_mb;
            for idx in alloc
                .units_on(at)
                .0
                .iter()
                .filter(|(g, _)| g.as_str() == "gpu")
                .flat_map(|(_, i)| i)
            {
                gpus.entry(node).or_default().push((*idx, job.job_id));
            }
        }
    }
    for node in state.nodes.values() {
        let name = node.name.as_str();
        let used = cpus.get(name).copied().unwrap_or(0);
        assert!(
            used <= node_slots(node.cpus),
            "node {name}: {used} share units of CPUs allocated of {}",
            node_slots(node.cpus)
        );
        let used = mem.get(name).copied().unwrap_or(0);
        assert!(
            used <= node.real_memory_mb,
            "node {name}: {used} MB allocated of {}",
            node.real_memory_mb
        );
        let count: u64 = node
            .gres
            .iter()
            .filter(|g| g.name == "gpu")
            .map(|g| g.count)
            .sum();
        let mut held = gpus.remove(name).unwrap_or_default();
        held.sort_unstable();
        for pair in held.windows(2) {
            assert!(
                pair[0].0 != pair[1].0,
                "node {name}: GPU {} held by jobs {} and {}",
                pair[0].0,
                pair[0].1,
                pair[1].1
            );
        }
        if let Some((idx, job)) = held.iter().find(|(i, _)| u64::from(*i) >= count) {
            panic!("node {name}: job {job} holds GPU {idx} of {count}");
        }
    }
}
