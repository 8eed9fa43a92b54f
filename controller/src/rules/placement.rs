//! Where a job fits: CPUs, memory and GRES per node, with a scratch ledger so one pass never double-books.

use std::collections::BTreeMap;
use std::ops::Range;

use spur_core::model::job::{Allocation, JobRecord, NodeUnits};
use spur_core::model::records::{NodeRecord, PartitionRecord, GPU_GRES};
use spur_core::policy::gpu_shard::{ShardLayout, SHARD_GRES};
use spur_core::policy::oversubscribe::{self, JobSharing, PartitionSharing};

use super::gpu_choice;
use super::shards;
use super::unit_bits::StepsUse;

use crate::state::ClusterState;

/// Free resources per node during one scheduling pass.
#[derive(Debug, Clone)]
pub struct Ledger {
    used: BTreeMap<String, Usage>,
    /// Probing whether a request could ever fit ignores current allocations and node health.
    ignore_availability: bool,
}

/// What is taken on one node: CPUs, memory and GRES unit indices per GRES name.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Usage {
    /// CPUs of jobs whose cores are their own.
    pub(crate) cpus: u32,
    /// What jobs sharing cores book ([`oversubscribe::SLOTS_PER_CORE`] a core).
    pub(crate) share_slots: u64,
    pub(crate) mem_mb: u64,
    pub(crate) gres: BTreeMap<String, Vec<u32>>,
}

impl Usage {
    pub(crate) fn of_node(node: &NodeRecord) -> Usage {
        Usage {
            cpus: node.alloc_cpus,
            share_slots: node.alloc_share_slots,
            mem_mb: node.alloc_mem_mb,
            gres: node.alloc_gres.clone(),
        }
    }

    /// Adds what `alloc` takes on its `at`-th node.
    pub(crate) fn add(&mut self, alloc: &Allocation, at: usize) {
        self.add_cpus(alloc);
        self.mem_mb += alloc.mem_mb;
        for (gres, idx) in alloc.units_on(at).0 {
            self.gres.entry(gres.clone()).or_default().extend(idx);
        }
    }

    /// Takes back what `alloc` took on its `at`-th node.
    pub(crate) fn remove(&mut self, alloc: &Allocation, at: usize) {
        self.remove_cpus(alloc);
        self.mem_mb = self.mem_mb.saturating_sub(alloc.mem_mb);
        for (gres, idx) in alloc.units_on(at).0 {
            if let Some(used) = self.gres.get_mut(gres) {
                used.retain(|i| !idx.contains(i));
                if used.is_empty() {
                    self.gres.remove(gres);
                }
            }
        }
    }
}

impl Usage {
    fn add_cpus(&mut self, alloc: &Allocation) {
        if alloc.shares_cores() {
            self.share_slots += alloc.share_slots();
        } else {
            self.cpus += alloc.cpus;
        }
    }

    fn remove_cpus(&mut self, alloc: &Allocation) {
        if alloc.shares_cores() {
            self.share_slots = self.share_slots.saturating_sub(alloc.share_slots());
        } else {
            self.cpus = self.cpus.saturating_sub(alloc.cpus);
        }
    }
}

impl Ledger {
    pub fn from_state(state: &ClusterState) -> Self {
        let used = state
            .nodes
            .values()
            .map(|n| (n.name.clone(), Usage::of_node(n)))
            .collect();
        Ledger {
            used,
            ignore_availability: false,
        }
    }

    pub fn empty() -> Self {
        Ledger {
            used: BTreeMap::new(),
            ignore_availability: true,
        }
    }

    pub fn book(&mut self, alloc: &Allocation) {
        for (at, name) in alloc.node_names.iter().enumerate() {
            self.used.entry(name.clone()).or_default().add(alloc, at);
        }
    }

    /// Gives back what `alloc` took (a job that is leaving or would be preempted).
    pub fn release(&mut self, alloc: &Allocation) {
        for (at, name) in alloc.node_names.iter().enumerate() {
            if let Some(usage) = self.used.get_mut(name) {
                usage.remove(alloc, at);
            }
        }
    }

    /// Gives back the CPUs of `alloc` only (a job that would be suspended keeps its memory and GRES).
    pub fn release_cpus(&mut self, alloc: &Allocation) {
        for name in &alloc.node_names {
            if let Some(usage) = self.used.get_mut(name) {
                usage.remove_cpus(alloc);
            }
        }
    }

    /// Books the CPUs of `alloc` where every one of its nodes has them free; `false` (nothing booked) otherwise.
    pub fn take_cpus(&mut self, state: &ClusterState, alloc: &Allocation) -> bool {
        let sharing = JobSharing {
            whole_node: false,
            per_core: alloc.oversubscribe.max(1),
        };
        let fits = alloc.node_names.iter().all(|name| {
            let (own, slots) = self
                .used
                .get(name)
                .map_or((0, 0), |u| (u.cpus, u.share_slots));
            state
                .nodes
                .get(name)
                .is_some_and(|n| oversubscribe::cpus_fit(own, slots, n.cpus, alloc.cpus, sharing))
        });
        if fits {
            for name in &alloc.node_names {
                self.used.entry(name.clone()).or_default().add_cpus(alloc);
            }
        }
        fits
    }
}

/// CPUs the job needs on each of its nodes, sharing as `sharing` says (see [`sharing_of`]).
pub fn job_cpus(job: &JobRecord, node: &NodeRecord, sharing: JobSharing) -> u32 {
    if sharing.whole_node {
        return node.cpus;
    }
    shared_cpus_per_node(job)
}

/// How the job shares nodes in its partition (`OverSubscribe=`, `--exclusive`, `--oversubscribe`).
pub fn sharing_of(state: &ClusterState, job: &JobRecord) -> JobSharing {
    let partition = state
        .partition(&job.partition)
        .map_or(PartitionSharing::No, |p| {
            PartitionSharing::parse(&p.oversubscribe)
        });
    JobSharing::resolve(partition, &job.spec)
}

/// CPUs per node of a job that does not take whole nodes.
pub(crate) fn shared_cpus_per_node(job: &JobRecord) -> u32 {
    let nodes = job.spec.nodes_min.max(1);
    let per_node_tasks = match (job.spec.ntasks_per_node, job.spec.ntasks) {
        // Overcommitted, a node holds one task's CPUs whatever number of tasks it runs (cons_tres allocates it
        // `min_cpus`, the node count, raised to `pn_min_cpus`, one task's CPUs).
        _ if job.spec.overcommit() => 1,
        (Some(per_node), _) => per_node,
        (None, Some(total)) => total.div_ceil(nodes),
        (None, None) => 1,
    };
    let by_tasks = per_node_tasks
        .max(1)
        .saturating_mul(job.spec.cpus_per_task.max(1));
    // `--cpus-per-gpu` (or `DefCpuPerGPU`): at least that many for each GPU the job gets on the node.
    let by_gpus = job.spec.cpus_per_gpu_in_effect().map_or(0, |per_gpu| {
        u32::try_from(gpus_per_node(job))
            .unwrap_or(u32::MAX)
            .saturating_mul(per_gpu)
    });
    by_tasks
        .max(by_gpus)
        .max(job.spec.min_cpus_per_node.unwrap_or(0))
}

/// The whole GPUs the job gets on each of its nodes.
pub(crate) fn gpus_per_node(job: &JobRecord) -> u64 {
    job.spec
        .gres
        .iter()
        .filter(|g| g.name == GPU_GRES)
        .map(|g| g.count)
        .sum()
}

/// Memory the job needs on each node, in MB, following cons_tres: explicit `--mem`, else `--mem-per-cpu`, else
/// `--mem-per-gpu` times its GPUs on the node, else the partition's or cluster's DefMemPerCPU, else (memory being
/// consumable) the whole node.
pub fn job_mem_mb(state: &ClusterState, job: &JobRecord, node: &NodeRecord, cpus: u32) -> u64 {
    if !state.settings.memory_is_consumable {
        return 0;
    }
    let per_gpu = job
        .spec
        .mem_per_gpu_in_effect()
        .map(|per_gpu| per_gpu.saturating_mul(gpus_per_node(job)))
        .filter(|mem| *mem > 0);
    if job.spec.exclusive
        && job.spec.mem_per_node_mb.is_none()
        && job.spec.mem_per_cpu_mb.is_none()
        && per_gpu.is_none()
    {
        return node.real_memory_mb;
    }
    match (job.spec.mem_per_node_mb, job.spec.mem_per_cpu_mb, per_gpu) {
        (Some(0), _, _) => node.real_memory_mb,
        (Some(mem), _, _) => mem,
        (None, Some(per_cpu), _) => per_cpu.saturating_mul(u64::from(cpus)),
        (None, None, Some(per_gpu)) => per_gpu,
        (None, None, None) => {
            let default = state
                .partition(&job.partition)
                .and_then(|p| p.def_mem_per_cpu_mb)
                .or(state.settings.def_mem_per_cpu_mb);
            match default {
                Some(per_cpu) => per_cpu.saturating_mul(u64::from(cpus)),
                None => node.real_memory_mb,
            }
        }
    }
}

/// Picks nodes for the job, or `None` when it does not fit now (or, with an empty ledger, ever).
pub fn place(state: &ClusterState, ledger: &Ledger, job: &JobRecord) -> Option<Allocation> {
    let partition = state.partition(&job.partition)?;
    let candidates = candidates(state, partition, |_| Some(0));
    place_among(state, &candidates, 0, ledger, job).map(|(alloc, _)| alloc)
}

/// Like [`place`], over any availability (the ledger as reservations let the job see it).
pub(crate) fn place_with(
    state: &ClusterState,
    avail: &impl Availability,
    job: &JobRecord,
) -> Option<Allocation> {
    let partition = state.partition(&job.partition)?;
    let candidates = candidates(state, partition, |_| Some(0));
    place_among(state, &candidates, 0, avail, job).map(|(alloc, _)| alloc)
}

/// A node a placement may choose, with its position in the pass's per-node tables.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate<'s> {
    pub(crate) idx: usize,
    pub(crate) node: &'s NodeRecord,
}

/// The partition's nodes in Slurm's order of preference: lower weight first, then configuration order.
pub(crate) fn candidates<'s>(
    state: &'s ClusterState,
    partition: &'s PartitionRecord,
    index_of: impl Fn(&str) -> Option<usize>,
) -> Vec<Candidate<'s>> {
    let mut nodes: Vec<Candidate<'s>> = state
        .nodes_named(&partition.nodes)
        .filter_map(|(name, node)| {
            Some(Candidate {
                idx: index_of(name)?,
                node,
            })
        })
        .collect();
    nodes.sort_by_key(|c| c.node.weight);
    nodes
}

/// What a placement may use of each node: now (a [`Ledger`]) or over a future time window (the backfill profile).
pub(crate) trait Availability {
    /// What is already taken on the node, or `None` when the node takes no work.
    fn node_use(&self, candidate: Candidate<'_>) -> Option<NodeUse<'_>>;
}

/// What is taken on one node over the time a placement looks at.
#[derive(Debug, Clone, Copy)]
pub(crate) enum NodeUse<'a> {
    Idle,
    One(&'a Usage),
    /// Consecutive periods of the backfill profile.
    Steps(StepsUse<'a>),
}

impl NodeUse<'_> {
    fn cpus(&self) -> u32 {
        match self {
            NodeUse::Idle => 0,
            NodeUse::One(u) => u.cpus,
            NodeUse::Steps(s) => s.cpus(),
        }
    }

    fn share_slots(&self) -> u64 {
        match self {
            NodeUse::Idle => 0,
            NodeUse::One(u) => u.share_slots,
            NodeUse::Steps(s) => s.share_slots(),
        }
    }

    /// Whether `cpus` more CPUs of a job sharing as `sharing` fit.
    fn cpus_fit(&self, node: &NodeRecord, cpus: u32, sharing: JobSharing) -> bool {
        let own = self.cpus();
        // Most placements share nothing and fail on their own CPUs: look at the sharing load only after.
        if !sharing.shares() && own + cpus > node.cpus {
            return false;
        }
        oversubscribe::cpus_fit(own, self.share_slots(), node.cpus, cpus, sharing)
    }

    fn mem_mb(&self) -> u64 {
        match self {
            NodeUse::Idle => 0,
            NodeUse::One(u) => u.mem_mb,
            NodeUse::Steps(s) => s.mem_mb(),
        }
    }

    /// How many units of `name` in `range` are free.
    pub(crate) fn free_in(&self, name: &str, range: Range<u32>) -> u64 {
        match self {
            NodeUse::Idle => u64::from(range.end - range.start),
            NodeUse::One(u) => {
                let Some(taken) = u.gres.get(name) else {
                    return u64::from(range.end - range.start);
                };
                // As a bit set when every index fits in one.
                let bits = taken
                    .iter()
                    .try_fold(0u128, |acc, &i| (i < 128).then(|| acc | (1u128 << i)));
                match bits {
                    Some(bits) if range.end <= 128 => {
                        let count = range.end - range.start;
                        let span = if count >= 128 {
                            u128::MAX
                        } else {
                            ((1u128 << count) - 1) << range.start
                        };
                        u64::from(count - (bits & span).count_ones())
                    }
                    _ => range.filter(|i| !taken.contains(i)).count() as u64,
                }
            }
            NodeUse::Steps(s) => s.free_in(name, range),
        }
    }

    pub(crate) fn gres_taken(&self, name: &str, index: u32) -> bool {
        match self {
            NodeUse::Idle => false,
            NodeUse::One(u) => u.gres.get(name).is_some_and(|v| v.contains(&index)),
            NodeUse::Steps(s) => s.is_taken(name, index),
        }
    }
}

impl Availability for Ledger {
    fn node_use(&self, candidate: Candidate<'_>) -> Option<NodeUse<'_>> {
        let node = candidate.node;
        if self.ignore_availability {
            return Some(NodeUse::Idle);
        }
        if !node.accepts_work() {
            return None;
        }
        Some(
            self.used
                .get(&node.name)
                .map_or(NodeUse::Idle, NodeUse::One),
        )
    }
}

/// The node-level filters of a request (`-w`, `-x`, `--constraint`), resolved once per placement.
pub(crate) struct NodeFilter {
    required: Vec<String>,
    excluded: Vec<String>,
    constraint: Option<spur_core::grammar::values::constraint::Constraint>,
}

impl NodeFilter {
    /// `None` when the request's node lists or constraint do not parse (the job can never be placed).
    pub(crate) fn of(job: &JobRecord) -> Option<NodeFilter> {
        let constraint = match job.spec.constraint.as_deref() {
            Some(text) => {
                Some(spur_core::grammar::values::constraint::parse_constraint(text).ok()?)
            }
            None => None,
        };
        Some(NodeFilter {
            required: expand_opt(job.spec.required_nodes.as_deref())?,
            excluded: expand_opt(job.spec.excluded_nodes.as_deref())?,
            constraint,
        })
    }

    pub(crate) fn admits(&self, node: &NodeRecord) -> bool {
        !self.excluded.contains(&node.name)
            && self
                .constraint
                .as_ref()
                .is_none_or(|c| c.matches(&|f: &str| node.features.iter().any(|x| x == f)))
    }

    pub(crate) fn requires(&self, node: &NodeRecord) -> bool {
        self.required.contains(&node.name)
    }

    pub(crate) fn required_count(&self) -> usize {
        self.required.len()
    }
}

/// Places the job on `candidates` (already in preference order) given what `avail` says is taken, starting the
/// search at `skip` (the nodes before it are known not to fit) unless nodes are required. Returns the allocation
/// and the position of its first node. Under `topology/tree` the nodes come from one switch
/// ([`super::switches`]).
pub(crate) fn place_among(
    state: &ClusterState,
    candidates: &[Candidate<'_>],
    skip: usize,
    avail: &impl Availability,
    job: &JobRecord,
) -> Option<(Allocation, usize)> {
    let tree = &state.settings.switch_tree;
    if tree.is_empty() {
        place_greedy(state, candidates, skip, avail, job)
    } else {
        super::switches::place(state, tree, candidates, skip, avail, job)
    }
}

/// [`place_among`] without topology: the first nodes in preference order that fit.
pub(crate) fn place_greedy(
    state: &ClusterState,
    candidates: &[Candidate<'_>],
    skip: usize,
    avail: &impl Availability,
    job: &JobRecord,
) -> Option<(Allocation, usize)> {
    let filter = NodeFilter::of(job)?;
    let wanted = job.spec.nodes_min.max(1) as usize;
    if filter.required_count() > wanted {
        return None;
    }
    let sharing = sharing_of(state, job);
    let skip = if filter.required_count() > 0 { 0 } else { skip };
    let mut chosen: Vec<&NodeRecord> = Vec::new();
    let mut first_at = 0;
    // Each node's own GRES units, as slurmctld picks a multi-node job's GPUs node by node.
    let mut node_units: Vec<NodeUnits> = Vec::new();
    let mut cpus_per_node = 0;
    let mut mem_per_node = 0;
    // Required nodes first, so `-w` is always honoured, then the rest in preference order.
    let ordered = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| filter.required_count() > 0 && filter.requires(c.node))
        .chain(
            candidates
                .iter()
                .enumerate()
                .skip(skip)
                .filter(|(_, c)| !filter.requires(c.node)),
        );
    for (at, candidate) in ordered {
        if chosen.len() == wanted {
            break;
        }
        let node = candidate.node;
        if !filter.admits(node) {
            continue;
        }
        let Some(used) = avail.node_use(*candidate) else {
            continue;
        };
        let cpus = job_cpus(job, node, sharing);
        let mem = job_mem_mb(state, job, node, cpus);
        if !fits_quickly(used, job, node, cpus, mem, sharing) {
            continue;
        }
        // An allocation books the same CPUs and memory on each of its nodes, so a job whose share depends on the
        // node (whole nodes, or a whole node's memory) takes only nodes where its share equals the first node's:
        // otherwise the plan books a small node beyond its size and the state machine refuses it at every pass.
        if !chosen.is_empty() && (cpus != cpus_per_node || mem != mem_per_node) {
            continue;
        }
        let Some(picks) = fits_node(used, job, node, cpus, mem, sharing) else {
            continue;
        };
        if chosen.is_empty() {
            cpus_per_node = cpus;
            mem_per_node = mem;
            first_at = at;
        }
        let shard_gpus = match (shards::layout(node), picks.get(SHARD_GRES)) {
            (Some(layout), Some(shards)) => layout.gpus_of(shards),
            _ => Vec::new(),
        };
        node_units.push(NodeUnits {
            gres_indices: picks,
            shard_gpus,
        });
        chosen.push(node);
    }
    let all_required = filter
        .required
        .iter()
        .all(|r| chosen.iter().any(|n| &n.name == r));
    if chosen.len() < wanted || !all_required {
        return None;
    }
    let mut alloc = Allocation {
        node_names: chosen.iter().map(|n| n.name.clone()).collect(),
        cpus: cpus_per_node,
        mem_mb: mem_per_node,
        core_ids: Vec::new(),
        oversubscribe: if sharing.shares() {
            sharing.per_core
        } else {
            0
        },
        ..Allocation::default()
    };
    alloc.set_node_units(node_units);
    Some((alloc, first_at))
}

/// [`fits_node`] without choosing GRES units (nothing allocated): whether there is room at all.
pub(crate) fn fits_quickly(
    used: NodeUse<'_>,
    job: &JobRecord,
    node: &NodeRecord,
    cpus: u32,
    mem: u64,
    sharing: JobSharing,
) -> bool {
    if !used.cpus_fit(node, cpus, sharing)
        || used.mem_mb() + mem > node.real_memory_mb
        || job.spec.tmp_disk_mb > node.tmp_disk_mb
    {
        return false;
    }
    let shards = shards::layout(node);
    job.spec.gres.iter().all(|request| {
        if let Some(layout) = &shards {
            if request.name == SHARD_GRES {
                return shards::choose(used, node, layout, request).is_some();
            }
            if request.name == GPU_GRES {
                return free_whole_gpus(used, node, layout, request).len() as u64 >= request.count;
            }
        }
        if let (NodeUse::Steps(steps), None) = (used, &request.gres_type) {
            // Any type will do: the units of every offer of the name, which the layout holds as one run.
            return steps.free_in(&request.name, 0..u32::MAX) >= request.count;
        }
        let mut base = 0u32;
        let mut free = 0u64;
        for offer in node.gres.iter().filter(|g| g.name == request.name) {
            let count = u32::try_from(offer.count).unwrap_or(u32::MAX);
            let end = base.saturating_add(count);
            if request.gres_type.is_none() || request.gres_type == offer.gres_type {
                free += used.free_in(&request.name, base..end);
            }
            base = end;
        }
        free >= request.count
    })
}

/// The GPU units of the requested type that are free and have none of their shards taken.
fn free_whole_gpus(
    used: NodeUse<'_>,
    node: &NodeRecord,
    layout: &ShardLayout,
    request: &spur_core::model::job::GresRequest,
) -> Vec<u32> {
    let mut base = 0u32;
    let mut free = Vec::new();
    for offer in node.gres.iter().filter(|g| g.name == GPU_GRES) {
        let count = u32::try_from(offer.count).unwrap_or(u32::MAX);
        let end = base.saturating_add(count);
        if request.gres_type.is_none() || request.gres_type == offer.gres_type {
            free.extend((base..end).filter(|&gpu| {
                !used.gres_taken(GPU_GRES, gpu) && shards::gpu_whole_free(used, layout, gpu)
            }));
        }
        base = end;
    }
    free
}

fn expand_opt(list: Option<&str>) -> Option<Vec<String>> {
    match list {
        None => Some(Vec::new()),
        Some(text) => spur_core::grammar::hostlist::expand_at_most(
            text,
            spur_core::grammar::hostlist::MAX_JOB_NODE_LIST,
        )
        .ok(),
    }
}

/// Whether the job's share fits on the node given what is taken, with the GRES units it would get.
pub(crate) fn fits_node(
    used: NodeUse<'_>,
    job: &JobRecord,
    node: &NodeRecord,
    cpus: u32,
    mem: u64,
    sharing: JobSharing,
) -> Option<BTreeMap<String, Vec<u32>>> {
    if !used.cpus_fit(node, cpus, sharing) || used.mem_mb() + mem > node.real_memory_mb {
        return None;
    }
    if job.spec.tmp_disk_mb > node.tmp_disk_mb {
        return None;
    }
    let shards = shards::layout(node);
    let mut picks: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for request in &job.spec.gres {
        if let (Some(layout), true) = (&shards, request.name == SHARD_GRES) {
            let (_, chosen) = shards::choose(used, node, layout, request)?;
            picks
                .entry(request.name.clone())
                .or_default()
                .extend(chosen);
            continue;
        }
        let mut base = 0u32;
        let mut free: Vec<u32> = Vec::new();
        for offer in node.gres.iter().filter(|g| g.name == request.name) {
            let count = u32::try_from(offer.count).unwrap_or(u32::MAX);
            let type_matches = request.gres_type.is_none() || request.gres_type == offer.gres_type;
            if type_matches {
                free.extend(
                    (base..base.saturating_add(count))
                        .filter(|i| !used.gres_taken(&request.name, *i))
                        .filter(|i| !picks.get(&request.name).is_some_and(|p| p.contains(i)))
                        .filter(|i| {
                            request.name != GPU_GRES
                                || shards
                                    .as_ref()
                                    .is_none_or(|l| shards::gpu_whole_free(used, l, *i))
                        }),
                );
            }
            base = base.saturating_add(count);
        }
        let need = usize::try_from(request.count).unwrap_or(usize::MAX);
        if free.len() < need {
            return None;
        }
        let chosen = picks.entry(request.name.clone()).or_default();
        match node.gpu_topology.gpu.as_ref() {
            Some(topology) if request.name == GPU_GRES => {
                chosen.extend(gpu_choice::choose(topology, &free, need));
            }
            // Without links, Slurm's choice: the lowest free units.
            _ => chosen.extend(free.iter().take(need)),
        }
    }
    // A job given whole nodes to itself gets their GPUs too, as in Slurm (its tasks see every GPU of the node);
    // a job of shards keeps to its shards.
    let asks_gpus = picks.contains_key(GPU_GRES) || picks.contains_key(SHARD_GRES);
    if sharing.whole_node && !sharing.shares() && !asks_gpus {
        let gpus = u32::try_from(node.gpu_unit_count()).unwrap_or(u32::MAX);
        let all: Vec<u32> = (0..gpus).collect();
        if all.iter().any(|&gpu| used.gres_taken(GPU_GRES, gpu)) {
            return None;
        }
        if !all.is_empty() {
            picks.insert(GPU_GRES.to_string(), all);
        }
    }
    Some(picks)
}

/// The plan-apply check: every node of the allocation still has room for it.
pub fn allocation_fits(state: &ClusterState, alloc: &Allocation) -> bool {
    let units_recorded =
        alloc.node_units.is_empty() || alloc.node_units.len() == alloc.node_names.len();
    units_recorded
        && alloc.node_names.iter().enumerate().all(|(at, name)| {
            let Some(node) = state.nodes.get(name) else {
                return false;
            };
            let (units, shard_gpus) = alloc.units_on(at);
            let gres_free = units.iter().all(|(gres, idx)| {
                let used = node.alloc_gres.get(gres);
                idx.iter().all(|i| !used.is_some_and(|u| u.contains(i)))
            });
            node.accepts_work()
                && node.cpus_fit(alloc)
                && node.alloc_mem_mb + alloc.mem_mb <= node.real_memory_mb
                && gres_free
                && shards::allocation_compatible(node, units, shard_gpus)
        })
}
