//! Safety checks after every commit and every scheduling plan, and the final audit once the cluster has settled.
//! Each failure panics with what broke; the runner adds the seed.

use std::collections::{BTreeMap, BTreeSet};

use spur_controller::scheduler::Plan;
use spur_controller::state::ClusterState;
use spur_core::model::job::{Allocation, JobRecord};
use spur_core::model::records::NodeBaseState;
use spur_core::model::states::JobBaseState;

use super::workload::{declared_exit, Client};

#[derive(Debug, Clone, Copy, PartialEq)]
struct Final {
    state: JobBaseState,
    exit_code: u32,
    signal: u32,
}

#[derive(Default)]
pub struct Checker {
    /// Every job id ever seen, with its request name and submit time: an id never names another job.
    identity: BTreeMap<u32, (String, i64)>,
    /// The final state each finished job reached (kept after the job is purged).
    finals: BTreeMap<u32, Final>,
    /// Final jobs last seen, so a purged one keeps its record (and its allocation, for NODE_FAIL's audit).
    records: BTreeMap<u32, JobRecord>,
    /// Jobs a user cancelled or requeued (a requeue may take a finished job back to the queue once).
    pub cancelled: BTreeSet<u32>,
    pub requeued: BTreeSet<u32>,
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
            let now_final = is_final(job).then_some(Final {
                state: job.state,
                exit_code: job.exit_code,
                signal: job.exit_signal,
            });
            match (self.finals.get(&job.job_id).copied(), now_final) {
                (None, Some(f)) => {
                    self.finals.insert(job.job_id, f);
                }
                (Some(before), Some(f)) => {
                    assert_eq!(before, f, "job {} changed its final state", job.job_id)
                }
                (Some(before), None) => {
                    assert!(
                        self.requeued.remove(&job.job_id),
                        "job {} left its final state {before:?} for {:?} without a requeue",
                        job.job_id,
                        job.state
                    );
                    self.finals.remove(&job.job_id);
                }
                (None, None) => {}
            }
            if is_final(job) {
                self.records.insert(job.job_id, job.clone());
            }
        }
        check_capacity(state);
    }

    fn check_identity(&mut self, job: &JobRecord, next_job_id: u32) {
        assert!(
            job.job_id < next_job_id,
            "job {} at or above next_job_id",
            job.job_id
        );
        let identity = (job.spec.name.clone(), job.submit_time);
        match self.identity.get(&job.job_id) {
            Some(known) => assert_eq!(known, &identity, "job id {} names two jobs", job.job_id),
            None => {
                if let Some((&last, _)) = self.identity.last_key_value() {
                    assert!(
                        job.job_id > last,
                        "new job {} reuses an old id (last {last})",
                        job.job_id
                    );
                }
                self.identity.insert(job.job_id, identity);
            }
        }
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
            let job = state.jobs.get(job_id);
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
        let mut by_name: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for (id, (name, _)) in &self.identity {
            by_name.entry(name.as_str()).or_default().push(*id);
        }
        for (name, &(first, tasks)) in &client.acked {
            let ids = by_name.get(name.as_str()).cloned().unwrap_or_default();
            let expected: Vec<u32> = (first..first + tasks).collect();
            assert_eq!(
                ids, expected,
                "acknowledged submission {name} made jobs {ids:?}"
            );
        }
        assert!(client.pending.is_empty(), "submissions never acknowledged");
        let accounting: BTreeMap<u32, spur_core::model::accounting::JobAccounting> = state
            .accounting_records(None, None, None, i64::MAX)
            .into_iter()
            .map(|record| (record.job_id, record))
            .collect();
        let ids: Vec<u32> = self.identity.keys().copied().collect();
        assert_eq!(
            accounting.keys().copied().collect::<Vec<u32>>(),
            ids,
            "accounting holds one record per job, live or purged"
        );
        for id in ids {
            if let Some(job) = state.jobs.get(&id) {
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
            let Some(job) = state
                .jobs
                .get(&id)
                .or_else(|| self.records.get(&id))
                .cloned()
            else {
                panic!("job {id}: no record");
            };
            let end = *end;
            self.audit_outcome(&job, end);
            audit_accounting(&accounting[&id], end);
        }
    }

    fn audit_outcome(&mut self, job: &JobRecord, end: Final) {
        let id = job.job_id;
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
