//! `AccountingStorageEnforce=limits`: the QOS and association limits that keep a job waiting, counted over the
//! running (and suspended) jobs and the starts this pass already decided, in slurmctld's order: the job's QOS's
//! count limits, then its associations' (the user's, then each account above), then the QOS's TRES limits, then
//! the associations'.
//!
//! A QOS's `MaxWall` (`QOSMaxWallDurationPerJobLimit`), `GrpJobs` (`QOSGrpJobsLimit`), `MaxJobsPerUser`
//! (`QOSMaxJobsPerUserLimit`), `GrpTRES` (`QOSGrpCpuLimit`, `QOSGrpNodeLimit`, `QOSGrpGRES`), `MaxTRESPerJob`
//! (`QOSMaxCpuPerJobLimit`, `QOSMaxNodePerJobLimit`, `QOSMaxGRESPerJob`) and `MaxTRESPerUser`
//! (`QOSMaxCpuPerUserLimit`, `QOSMaxNodePerUserLimit`, `QOSMaxGRESPerUser`), `MaxJobsPerAccount`
//! (`MaxJobsPerAccount`) and `MaxTRESPerAccount` (`MaxCpuPerAccount`, `MaxNodePerAccount`, `MaxGRESPerAccount`),
//! each for `cpu`, `mem`, `node` and `gres/<name>`. An association's `GrpJobs` (`AssocGrpJobsLimit`) and `GrpTRES` (`AssocGrpCpuLimit`,
//! `AssocGrpNodeLimit`, `AssocGrpGRES`) count every job under it: the user's association its own jobs in that
//! account, an account's association the jobs of its users and of every account below it. A user association's
//! `MaxJobs` (`AssocMaxJobsLimit`), `MaxWall` (`AssocMaxWallDurationPerJobLimit`) and `MaxTRES`
//! (`AssocMaxCpuPerJobLimit`, `AssocMaxNodePerJobLimit`, `AssocMaxGRESPerJob`) are its own or the nearest
//! account's above it. As in slurmctld, an association limit is not looked at where the job's QOS sets the same
//! limit (for TRES limits, the same TRES).

use std::collections::BTreeMap;

use spur_core::grammar::values::gres::{parse_tres_list, Tres};
use spur_core::model::assoc::{AccountTree, AcctIndex, Association, QosLimits as QosLimitSet};
use spur_core::model::job::JobRecord;
use spur_core::model::states::{JobBaseState, JobReason};

use crate::state::ClusterState;

/// Running jobs per user and QOS, per QOS and per association, and the TRES they hold per QOS, per user and
/// QOS and per association; empty (and never in the way) without `limits` enforcement.
pub struct QosLimits<'s> {
    enforced: bool,
    /// The associations, looked up for every job; built only where limits are enforced.
    acct: Option<AcctIndex<'s>>,
    running: BTreeMap<(u32, &'s str), u32>,
    running_in_qos: BTreeMap<&'s str, u32>,
    held_in_qos: BTreeMap<&'s str, Held>,
    held_by_user: BTreeMap<(u32, &'s str), Held>,
    /// By QOS and account (the job's own), for the QOS's `PerAccount` limits.
    in_qos_account: BTreeMap<(&'s str, &'s str), Usage>,
    /// By user name and account (the job's own, `""` when it has none).
    in_user_assoc: BTreeMap<(&'s str, &'s str), Usage>,
    /// By account: the jobs of its users and of every account below it.
    in_account: BTreeMap<&'s str, Usage>,
}

/// What the running jobs under one association hold.
#[derive(Debug, Clone, Default)]
struct Usage {
    jobs: u32,
    held: Held,
}

impl Usage {
    fn add(&mut self, held: &Held) {
        self.jobs += 1;
        self.held.add(held);
    }
}

/// TRES counted against the TRES limits: CPUs, memory (MB), nodes and GRES units, over all of a job's nodes.
#[derive(Debug, Clone, Default, PartialEq)]
struct Held {
    cpus: u64,
    mem_mb: u64,
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
                    mem_mb: alloc.mem_mb * nodes,
                    nodes,
                    gres: alloc.gres_counts(),
                }
            }
            None => {
                let nodes = u64::from(job.spec.nodes_min.max(1));
                let cpus = crate::rules::placement::shared_cpus_per_node(job);
                Held {
                    cpus: u64::from(cpus) * nodes,
                    mem_mb: asked_mem_per_node(job, cpus) * nodes,
                    nodes,
                    gres: job.spec.gres_totals(nodes),
                }
            }
        }
    }

    fn add(&mut self, other: &Held) {
        self.cpus += other.cpus;
        self.mem_mb += other.mem_mb;
        self.nodes += other.nodes;
        for (name, count) in &other.gres {
            *self.gres.entry(name.clone()).or_insert(0) += count;
        }
    }

    /// What `held` and this would hold together, against `limits`: see [`Held::over`].
    fn over_with(
        &self,
        held: Option<&Held>,
        limits: &[Tres],
        job: &JobRecord,
    ) -> Option<&'static str> {
        if limits.is_empty() {
            return None;
        }
        let mut total = held.cloned().unwrap_or_default();
        total.add(self);
        total.over(limits, job)
    }

    /// The TRES of `limits` (a parsed TRES list, `cpu=4,gres/gpu=2`) that this much would go over, by kind: `cpu`,
    /// `node` or `gres`. GRES limits name a type (`gres/gpu:a100`) only to count the job's requests of that type.
    fn over(&self, limits: &[Tres], job: &JobRecord) -> Option<&'static str> {
        for limit in limits {
            let (have, kind) = match (limit.kind.as_str(), limit.name.as_deref()) {
                ("cpu", None) => (self.cpus, "cpu"),
                ("mem", None) => (self.mem_mb, "mem"),
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

/// The memory a job not placed yet asks for on each node, as cons_tres sizes it: `--mem`, else `--mem-per-cpu`
/// (or the DefMemPerCPU the submission filled in) times its CPUs there, else `--mem-per-gpu` times its GPUs
/// there; nothing where it asks for none (a whole node's memory, known only once it has one).
fn asked_mem_per_node(job: &JobRecord, cpus: u32) -> u64 {
    let spec = &job.spec;
    spec.mem_per_node_mb
        .or_else(|| {
            spec.mem_per_cpu_mb
                .map(|per_cpu| per_cpu.saturating_mul(u64::from(cpus)))
        })
        .or_else(|| {
            spec.mem_per_gpu_in_effect()
                .map(|per_gpu| per_gpu.saturating_mul(crate::rules::placement::gpus_per_node(job)))
        })
        .unwrap_or(0)
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
        .unwrap_or(spur_core::model::assoc::DEFAULT_QOS)
}

fn tres_list(text: Option<&str>) -> Vec<Tres> {
    text.and_then(|t| parse_tres_list(t).ok())
        .unwrap_or_default()
}

/// The TRES of an association's limit that the QOS's same limit does not set (the QOS's wins where both do).
fn not_set_by_qos(assoc: Option<&str>, qos: &[Tres]) -> Vec<Tres> {
    let mut list = tres_list(assoc);
    list.retain(|t| !qos.iter().any(|q| q.kind == t.kind && q.name == t.name));
    list
}

fn held(usage: Option<&Usage>) -> Option<&Held> {
    usage.map(|u| &u.held)
}

fn grp_reason(kind: &str, assoc: bool) -> JobReason {
    match (kind, assoc) {
        ("cpu", false) => JobReason::QosGrpCpu,
        ("mem", false) => JobReason::QosGrpMem,
        ("node", false) => JobReason::QosGrpNode,
        (_, false) => JobReason::QosGrpGres,
        ("cpu", true) => JobReason::AssocGrpCpu,
        ("mem", true) => JobReason::AssocGrpMem,
        ("node", true) => JobReason::AssocGrpNode,
        (_, true) => JobReason::AssocGrpGres,
    }
}

impl<'s> QosLimits<'s> {
    pub fn new(state: &'s ClusterState) -> Self {
        let enforced = state.settings.enforce_limits;
        let mut limits = QosLimits {
            enforced,
            acct: enforced.then(|| AcctIndex::new(&state.acct)),
            running: BTreeMap::new(),
            running_in_qos: BTreeMap::new(),
            held_in_qos: BTreeMap::new(),
            held_by_user: BTreeMap::new(),
            in_qos_account: BTreeMap::new(),
            in_user_assoc: BTreeMap::new(),
            in_account: BTreeMap::new(),
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
        let held = Held::of(job);
        self.held_in_qos
            .entry(qos_name(job))
            .or_default()
            .add(&held);
        self.held_by_user
            .entry((job.spec.user_id, qos_name(job)))
            .or_default()
            .add(&held);
        let (user, account) = assoc_key(job);
        self.in_qos_account
            .entry((qos_name(job), account))
            .or_default()
            .add(&held);
        self.in_user_assoc
            .entry((user, account))
            .or_default()
            .add(&held);
        if let Some(acct) = &self.acct {
            for node in acct.chain(account) {
                self.in_account
                    .entry(node.account.as_str())
                    .or_default()
                    .add(&held);
            }
        }
    }

    /// The QOS or association limit that keeps `job` waiting now, if any.
    pub fn gate(&self, state: &ClusterState, job: &JobRecord) -> Option<JobReason> {
        // Built only where limits are enforced.
        let acct = self.acct.as_ref()?;
        let qos = state.job_qos(job).map(|q| &q.limits);
        let none = QosLimitSet::default();
        let qos = qos.unwrap_or(&none);
        let (user, account) = assoc_key(job);
        let assoc = acct.user_assoc(user, account, Some(&job.partition));
        self.qos_counts(qos, job)
            .or_else(|| assoc.and_then(|a| self.assoc_counts(acct, qos, a, job)))
            .or_else(|| self.qos_tres(qos, job))
            .or_else(|| assoc.and_then(|a| self.assoc_tres(acct, qos, a, job)))
    }

    /// The QOS's limits on time and job counts (slurmctld's checks before it picks nodes).
    fn qos_counts(&self, limits: &QosLimitSet, job: &JobRecord) -> Option<JobReason> {
        if let (Some(max), Some(limit)) = (limits.max_wall_min, job.time_limit_min) {
            if limit > max {
                return Some(JobReason::QosMaxWallPerJob);
            }
        }
        let in_qos = self.running_in_qos.get(qos_name(job)).copied().unwrap_or(0);
        if limits.grp_jobs.is_some_and(|max| in_qos >= max) {
            return Some(JobReason::QosGrpJob);
        }
        let in_account = self.in_qos_account.get(&(qos_name(job), assoc_key(job).1));
        let jobs_in_account = in_account.map_or(0, |u| u.jobs);
        if limits
            .max_jobs_per_account
            .is_some_and(|max| jobs_in_account >= max)
        {
            return Some(JobReason::QosMaxJobPerAcct);
        }
        let running = self
            .running
            .get(&(job.spec.user_id, qos_name(job)))
            .copied()
            .unwrap_or(0);
        if limits.max_jobs_per_user.is_some_and(|max| running >= max) {
            return Some(JobReason::QosMaxJobPerUser);
        }
        None
    }

    /// The associations' limits on time and job counts: the user's association (its `GrpJobs`, then its own or
    /// inherited `MaxJobs` and `MaxWall`), then each account's `GrpJobs` upwards.
    fn assoc_counts(
        &self,
        acct: &AcctIndex<'s>,
        qos: &QosLimitSet,
        assoc: &Association,
        job: &JobRecord,
    ) -> Option<JobReason> {
        let (user, account) = assoc_key(job);
        let mine = self.in_user_assoc.get(&(user, account));
        let jobs = mine.map_or(0, |u| u.jobs);
        if qos.grp_jobs.is_none() && assoc.limits.grp_jobs.is_some_and(|max| jobs >= max) {
            return Some(JobReason::AssocGrpJob);
        }
        let max_jobs = acct.inherited_max(assoc, |l| l.max_jobs);
        if qos.max_jobs_per_user.is_none() && max_jobs.is_some_and(|max| jobs >= max) {
            return Some(JobReason::AssocMaxJobs);
        }
        let max_wall = acct.inherited_max(assoc, |l| l.max_wall_min);
        if let (None, Some(max), Some(limit)) = (qos.max_wall_min, max_wall, job.time_limit_min) {
            if limit > max {
                return Some(JobReason::AssocMaxWallPerJob);
            }
        }
        if qos.grp_jobs.is_none() {
            for node in acct.account_chain(account) {
                let jobs = self
                    .in_account
                    .get(node.account.as_str())
                    .map_or(0, |u| u.jobs);
                if node.limits.grp_jobs.is_some_and(|max| jobs >= max) {
                    return Some(JobReason::AssocGrpJob);
                }
            }
        }
        None
    }

    /// The QOS's TRES limits (slurmctld's checks once it has picked nodes).
    fn qos_tres(&self, limits: &QosLimitSet, job: &JobRecord) -> Option<JobReason> {
        let asked = Held::of(job);
        let grp = tres_list(limits.grp_tres.as_deref());
        if let Some(kind) = asked.over_with(self.held_in_qos.get(qos_name(job)), &grp, job) {
            return Some(grp_reason(kind, false));
        }
        let per_job = tres_list(limits.max_tres_per_job.as_deref());
        if let Some(kind) = asked.over(&per_job, job) {
            return Some(match kind {
                "cpu" => JobReason::QosMaxCpuPerJob,
                "mem" => JobReason::QosMaxMemPerJob,
                "node" => JobReason::QosMaxNodePerJob,
                _ => JobReason::QosMaxGresPerJob,
            });
        }
        let per_user = tres_list(limits.max_tres_per_user.as_deref());
        let by_user = self.held_by_user.get(&(job.spec.user_id, qos_name(job)));
        if let Some(kind) = asked.over_with(by_user, &per_user, job) {
            return Some(match kind {
                "cpu" => JobReason::QosMaxCpuPerUser,
                "mem" => JobReason::QosMaxMemPerUser,
                "node" => JobReason::QosMaxNodePerUser,
                _ => JobReason::QosMaxGresPerUser,
            });
        }
        let per_account = tres_list(limits.max_tres_per_account.as_deref());
        let in_account = held(self.in_qos_account.get(&(qos_name(job), assoc_key(job).1)));
        if let Some(kind) = asked.over_with(in_account, &per_account, job) {
            return Some(match kind {
                "cpu" => JobReason::QosMaxCpuPerAcct,
                "mem" => JobReason::QosMaxMemPerAcct,
                "node" => JobReason::QosMaxNodePerAcct,
                _ => JobReason::QosMaxGresPerAcct,
            });
        }
        None
    }

    /// The associations' TRES limits: the user's association's `GrpTRES` and its own or inherited `MaxTRES`,
    /// then each account's `GrpTRES` upwards.
    fn assoc_tres(
        &self,
        acct: &AcctIndex<'s>,
        qos: &QosLimitSet,
        assoc: &Association,
        job: &JobRecord,
    ) -> Option<JobReason> {
        let asked = Held::of(job);
        let qos_grp = tres_list(qos.grp_tres.as_deref());
        let (user, account) = assoc_key(job);
        let grp = not_set_by_qos(assoc.limits.grp_tres.as_deref(), &qos_grp);
        if let Some(kind) =
            asked.over_with(held(self.in_user_assoc.get(&(user, account))), &grp, job)
        {
            return Some(grp_reason(kind, true));
        }
        let max = acct.inherited_max_tres(assoc, |l| l.max_tres.as_deref());
        let per_job = not_set_by_qos(max.as_deref(), &tres_list(qos.max_tres_per_job.as_deref()));
        if let Some(kind) = asked.over(&per_job, job) {
            return Some(match kind {
                "cpu" => JobReason::AssocMaxCpuPerJob,
                "mem" => JobReason::AssocMaxMemPerJob,
                "node" => JobReason::AssocMaxNodePerJob,
                _ => JobReason::AssocMaxGresPerJob,
            });
        }
        for node in acct.account_chain(account) {
            let grp = not_set_by_qos(node.limits.grp_tres.as_deref(), &qos_grp);
            let usage = held(self.in_account.get(node.account.as_str()));
            if let Some(kind) = asked.over_with(usage, &grp, job) {
                return Some(grp_reason(kind, true));
            }
        }
        None
    }

    /// A job of this pass starts: it counts against its QOS's and associations' limits from now on.
    pub fn started(&mut self, job: &'s JobRecord) {
        if self.enforced {
            self.count(job);
        }
    }
}
