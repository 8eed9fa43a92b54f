//! `AccountingStorageEnforce=limits`: the QOS and association limits that keep a job waiting, counted over the
//! running (and suspended) jobs and the starts this pass already decided. A QOS's `MaxWall`
//! (`QOSMaxWallDurationPerJobLimit`), `GrpJobs` (`QOSGrpJobsLimit`), `MaxJobsPerUser` (`QOSMaxJobsPerUserLimit`),
//! `GrpTRES` (`QOSGrpCpuLimit`, `QOSGrpNodeLimit`, `QOSGrpGRES`), `MaxTRESPerJob` (`QOSMaxCpuPerJobLimit`,
//! `QOSMaxNodePerJobLimit`, `QOSMaxGRESPerJob`) and `MaxTRESPerUser` (`QOSMaxCpuPerUserLimit`,
//! `QOSMaxNodePerUserLimit`, `QOSMaxGRESPerUser`), each for `cpu`, `node` and `gres/<name>`; a user association's
//! `MaxJobs` (`AssocMaxJobsLimit`).

use std::collections::BTreeMap;

use spur_core::job::JobRecord;
use spur_core::states::{JobBaseState, JobReason};

use crate::state::ClusterState;

/// Running jobs per user and QOS, per QOS and per association, and the TRES they hold per QOS and per user and
/// QOS; empty (and never in the way) without `limits` enforcement.
pub struct QosLimits<'s> {
    enforced: bool,
    running: BTreeMap<(u32, &'s str), u32>,
    running_in_qos: BTreeMap<&'s str, u32>,
    /// By user name and account (the job's own, `""` when it has none).
    running_in_assoc: BTreeMap<(&'s str, &'s str), u32>,
    held_in_qos: BTreeMap<&'s str, Held>,
    held_by_user: BTreeMap<(u32, &'s str), Held>,
}

/// TRES counted against `GrpTRES` and `MaxTRESPerUser`: CPUs, nodes and GRES units, over all of a job's nodes.
#[derive(Debug, Clone, Default, PartialEq)]
struct Held {
    cpus: u64,
    nodes: u64,
    gres: BTreeMap<String, u64>,
}

impl Held {
    /// What a running job holds; for one not started yet (a start this pass decided, or a job being judged),
    /// what it asks for.
    fn of(job: &JobRecord) -> Held {
        match job.alloc.as_ref().filter(|a| !a.node_names.is_empty()) {
            Some(alloc) => {
                let nodes = alloc.node_names.len() as u64;
                Held {
                    cpus: u64::from(alloc.cpus) * nodes,
                    nodes,
                    gres: alloc.gres_counts(),
                }
            }
            None => {
                let nodes = u64::from(job.spec.nodes_min.max(1));
                Held {
                    cpus: u64::from(super::placement::shared_cpus_per_node(job)) * nodes,
                    nodes,
                    gres: job.spec.gres_totals(nodes),
                }
            }
        }
    }

    fn add(&mut self, other: &Held) {
        self.cpus += other.cpus;
        self.nodes += other.nodes;
        for (name, count) in &other.gres {
            *self.gres.entry(name.clone()).or_insert(0) += count;
        }
    }

    /// The TRES of `limit` (a TRES list, `cpu=4,gres/gpu=2`) that this much would go over, by kind: `cpu`,
    /// `node` or `gres`. GRES limits name a type (`gres/gpu:a100`) only to count the job's requests of that type.
    fn over(&self, limit: &str, job: &JobRecord) -> Option<&'static str> {
        let limits = spur_core::values::gres::parse_tres_list(limit).ok()?;
        for limit in limits {
            let (have, kind) = match (limit.kind.as_str(), limit.name.as_deref()) {
                ("cpu", None) => (self.cpus, "cpu"),
                ("node", None) => (self.nodes, "node"),
                ("gres", Some(name)) => match name.split_once(':') {
                    Some((gres, wanted_type)) => {
                        // Only the job's own typed request can be told apart; held units count whole.
                        let typed: u64 = job
                            .spec
                            .gres
                            .iter()
                            .filter(|g| {
                                g.name == gres && g.gres_type.as_deref() == Some(wanted_type)
                            })
                            .map(|g| g.count)
                            .sum();
                        if typed == 0 {
                            continue;
                        }
                        (self.gres.get(gres).copied().unwrap_or(0), "gres")
                    }
                    None => (self.gres.get(name).copied().unwrap_or(0), "gres"),
                },
                _ => continue,
            };
            if have > limit.count {
                return Some(kind);
            }
        }
        None
    }
}

fn assoc_key(job: &JobRecord) -> (&str, &str) {
    (
        job.spec.user_name.as_str(),
        job.spec.account.as_deref().unwrap_or(""),
    )
}

fn qos_name(job: &JobRecord) -> &str {
    job.spec
        .qos
        .as_deref()
        .unwrap_or(spur_core::assoc::DEFAULT_QOS)
}

impl<'s> QosLimits<'s> {
    pub fn new(state: &'s ClusterState) -> Self {
        let enforced = state.settings.enforce_limits;
        let mut limits = QosLimits {
            enforced,
            running: BTreeMap::new(),
            running_in_qos: BTreeMap::new(),
            running_in_assoc: BTreeMap::new(),
            held_in_qos: BTreeMap::new(),
            held_by_user: BTreeMap::new(),
        };
        if enforced {
            for job in state.jobs.live() {
                if matches!(job.state, JobBaseState::Running | JobBaseState::Suspended) {
                    limits.count(job);
                }
            }
        }
        limits
    }

    fn count(&mut self, job: &'s JobRecord) {
        *self
            .running
            .entry((job.spec.user_id, qos_name(job)))
            .or_insert(0) += 1;
        *self.running_in_qos.entry(qos_name(job)).or_insert(0) += 1;
        *self.running_in_assoc.entry(assoc_key(job)).or_insert(0) += 1;
        let held = Held::of(job);
        self.held_in_qos
            .entry(qos_name(job))
            .or_default()
            .add(&held);
        self.held_by_user
            .entry((job.spec.user_id, qos_name(job)))
            .or_default()
            .add(&held);
    }

    /// The QOS limit that keeps `job` waiting now, if any.
    pub fn gate(&self, state: &ClusterState, job: &JobRecord) -> Option<JobReason> {
        if !self.enforced {
            return None;
        }
        let qos = state.job_qos(job)?;
        let limits = &qos.limits;
        if let (Some(max), Some(limit)) = (limits.max_wall_min, job.time_limit_min) {
            if limit > max {
                return Some(JobReason::QosMaxWallPerJob);
            }
        }
        let in_qos = self.running_in_qos.get(qos_name(job)).copied().unwrap_or(0);
        if limits.grp_jobs.is_some_and(|max| in_qos >= max) {
            return Some(JobReason::QosGrpJob);
        }
        let running = self
            .running
            .get(&(job.spec.user_id, qos_name(job)))
            .copied()
            .unwrap_or(0);
        if limits.max_jobs_per_user.is_some_and(|max| running >= max) {
            return Some(JobReason::QosMaxJobPerUser);
        }
        let asked = Held::of(job);
        let with = |held: Option<&Held>| {
            let mut total = held.cloned().unwrap_or_default();
            total.add(&asked);
            total
        };
        if let Some(kind) = limits
            .grp_tres
            .as_deref()
            .and_then(|text| with(self.held_in_qos.get(qos_name(job))).over(text, job))
        {
            return Some(match kind {
                "cpu" => JobReason::QosGrpCpu,
                "node" => JobReason::QosGrpNode,
                _ => JobReason::QosGrpGres,
            });
        }
        if let Some(kind) = limits
            .max_tres_per_job
            .as_deref()
            .and_then(|text| asked.over(text, job))
        {
            return Some(match kind {
                "cpu" => JobReason::QosMaxCpuPerJob,
                "node" => JobReason::QosMaxNodePerJob,
                _ => JobReason::QosMaxGresPerJob,
            });
        }
        if let Some(kind) = limits.max_tres_per_user.as_deref().and_then(|text| {
            with(self.held_by_user.get(&(job.spec.user_id, qos_name(job)))).over(text, job)
        }) {
            return Some(match kind {
                "cpu" => JobReason::QosMaxCpuPerUser,
                "node" => JobReason::QosMaxNodePerUser,
                _ => JobReason::QosMaxGresPerUser,
            });
        }
        let (user, account) = assoc_key(job);
        let assoc_max = state
            .acct
            .user_assoc(user, account, Some(&job.partition))
            .and_then(|a| state.acct.inherited_max(a, |l| l.max_jobs));
        let in_assoc = self
            .running_in_assoc
            .get(&(user, account))
            .copied()
            .unwrap_or(0);
        if assoc_max.is_some_and(|max| in_assoc >= max) {
            return Some(JobReason::AssocMaxJobs);
        }
        None
    }

    /// A job of this pass starts: it counts against its user's QOS limits from now on.
    pub fn started(&mut self, job: &'s JobRecord) {
        if self.enforced {
            self.count(job);
        }
    }
}
