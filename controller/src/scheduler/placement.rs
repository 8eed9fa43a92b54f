//! Where a job fits: CPUs, memory and GRES per node, with a scratch ledger so one pass never double-books.

use std::collections::BTreeMap;

use spur_core::job::{Allocation, JobRecord};
use spur_core::records::NodeRecord;

use crate::state::ClusterState;

/// Free resources per node during one scheduling pass.
#[derive(Debug, Clone)]
pub struct Ledger {
    used: BTreeMap<String, Usage>,
    /// Probing whether a request could ever fit ignores current allocations and node health.
    ignore_availability: bool,
}

#[derive(Debug, Clone, Default)]
struct Usage {
    cpus: u32,
    mem_mb: u64,
    gres: BTreeMap<String, Vec<u32>>,
}

impl Ledger {
    pub fn from_state(state: &ClusterState) -> Self {
        let used = state
            .nodes
            .values()
            .map(|n| {
                let usage = Usage {
                    cpus: n.alloc_cpus,
                    mem_mb: n.alloc_mem_mb,
                    gres: n.alloc_gres.clone(),
                };
                (n.name.clone(), usage)
            })
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
        for name in &alloc.node_names {
            let usage = self.used.entry(name.clone()).or_default();
            usage.cpus += alloc.cpus;
            usage.mem_mb += alloc.mem_mb;
            for (gres, idx) in &alloc.gres_indices {
                usage.gres.entry(gres.clone()).or_default().extend(idx);
            }
        }
    }
}

/// CPUs the job needs on each of its nodes.
pub fn job_cpus(job: &JobRecord, node: &NodeRecord) -> u32 {
    if job.spec.exclusive {
        return node.cpus;
    }
    let nodes = job.spec.nodes_min.max(1);
    let per_node_tasks = match (job.spec.ntasks_per_node, job.spec.ntasks) {
        (Some(per_node), _) => per_node,
        (None, Some(total)) => total.div_ceil(nodes),
        (None, None) => 1,
    };
    per_node_tasks.max(1) * job.spec.cpus_per_task.max(1)
}

/// Memory the job needs on each node, in MB, following cons_tres: explicit `--mem`, else `--mem-per-cpu`, else the
/// partition's or cluster's DefMemPerCPU, else (memory being consumable) the whole node.
pub fn job_mem_mb(state: &ClusterState, job: &JobRecord, node: &NodeRecord, cpus: u32) -> u64 {
    if !state.settings.memory_is_consumable {
        return 0;
    }
    if job.spec.exclusive && job.spec.mem_per_node_mb.is_none() && job.spec.mem_per_cpu_mb.is_none()
    {
        return node.real_memory_mb;
    }
    match (job.spec.mem_per_node_mb, job.spec.mem_per_cpu_mb) {
        (Some(0), _) => node.real_memory_mb,
        (Some(mem), _) => mem,
        (None, Some(per_cpu)) => per_cpu * u64::from(cpus),
        (None, None) => {
            let default = state
                .partition(&job.partition)
                .and_then(|p| p.def_mem_per_cpu_mb)
                .or(state.settings.def_mem_per_cpu_mb);
            match default {
                Some(per_cpu) => per_cpu * u64::from(cpus),
                None => node.real_memory_mb,
            }
        }
    }
}

/// Picks nodes for the job, or `None` when it does not fit now (or, with an empty ledger, ever).
pub fn place(state: &ClusterState, ledger: &Ledger, job: &JobRecord) -> Option<Allocation> {
    let partition = state.partition(&job.partition)?;
    let required = expand_opt(job.spec.required_nodes.as_deref())?;
    let excluded = expand_opt(job.spec.excluded_nodes.as_deref())?;
    let constraint = match job.spec.constraint.as_deref() {
        Some(text) => Some(spur_core::values::constraint::parse_constraint(text).ok()?),
        None => None,
    };
    let mut candidates: Vec<&NodeRecord> = partition
        .nodes
        .iter()
        .filter_map(|n| state.nodes.get(n))
        .filter(|n| !excluded.contains(&n.name))
        .filter(|n| {
            constraint
                .as_ref()
                .is_none_or(|c| c.matches(&|f: &str| n.features.iter().any(|x| x == f)))
        })
        .collect();
    // Lower weight first, then configuration order: Slurm's node preference.
    candidates.sort_by_key(|n| n.weight);
    let wanted = job.spec.nodes_min.max(1) as usize;
    if required.len() > wanted {
        return None;
    }
    let mut chosen: Vec<&NodeRecord> = Vec::new();
    let mut gres_picks: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut cpus_per_node = 0;
    let mut mem_per_node = 0;
    // Required nodes first, so `-w` is always honoured, then the rest in preference order.
    let ordered = candidates
        .iter()
        .filter(|n| required.contains(&n.name))
        .chain(candidates.iter().filter(|n| !required.contains(&n.name)));
    for node in ordered {
        if chosen.len() == wanted {
            break;
        }
        if !ledger.ignore_availability && !node.accepts_work() {
            continue;
        }
        let cpus = job_cpus(job, node);
        let mem = job_mem_mb(state, job, node, cpus);
        let Some(picks) = fits_node(ledger, job, node, cpus, mem) else {
            continue;
        };
        if chosen.is_empty() {
            gres_picks = picks;
            cpus_per_node = cpus;
            mem_per_node = mem;
        }
        chosen.push(node);
    }
    let all_required = required.iter().all(|r| chosen.iter().any(|n| &n.name == r));
    if chosen.len() < wanted || !all_required {
        return None;
    }
    Some(Allocation {
        node_names: chosen.iter().map(|n| n.name.clone()).collect(),
        cpus: cpus_per_node,
        mem_mb: mem_per_node,
        gres_indices: gres_picks,
        core_ids: Vec::new(),
    })
}

fn expand_opt(list: Option<&str>) -> Option<Vec<String>> {
    match list {
        None => Some(Vec::new()),
        Some(text) => spur_core::hostlist::expand(text).ok(),
    }
}

fn fits_node(
    ledger: &Ledger,
    job: &JobRecord,
    node: &NodeRecord,
    cpus: u32,
    mem: u64,
) -> Option<BTreeMap<String, Vec<u32>>> {
    let empty = Usage::default();
    let usage = if ledger.ignore_availability {
        &empty
    } else {
        ledger.used.get(&node.name).unwrap_or(&empty)
    };
    if usage.cpus + cpus > node.cpus || usage.mem_mb + mem > node.real_memory_mb {
        return None;
    }
    if job.spec.exclusive && usage.cpus > 0 {
        return None;
    }
    if job.spec.tmp_disk_mb > node.tmp_disk_mb {
        return None;
    }
    let mut picks: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for request in &job.spec.gres {
        let used = usage.gres.get(&request.name);
        let mut base = 0u32;
        let mut free: Vec<u32> = Vec::new();
        for offer in node.gres.iter().filter(|g| g.name == request.name) {
            let count = u32::try_from(offer.count).unwrap_or(u32::MAX);
            let type_matches = request.gres_type.is_none() || request.gres_type == offer.gres_type;
            if type_matches {
                free.extend(
                    (base..base.saturating_add(count))
                        .filter(|i| !used.is_some_and(|u| u.contains(i)))
                        .filter(|i| !picks.get(&request.name).is_some_and(|p| p.contains(i))),
                );
            }
            base = base.saturating_add(count);
        }
        let need = usize::try_from(request.count).unwrap_or(usize::MAX);
        if free.len() < need {
            return None;
        }
        picks
            .entry(request.name.clone())
            .or_default()
            .extend(&free[..need]);
    }
    Some(picks)
}

/// The plan-apply check: every node of the allocation still has room for it.
pub fn allocation_fits(state: &ClusterState, alloc: &Allocation) -> bool {
    alloc.node_names.iter().all(|name| {
        let Some(node) = state.nodes.get(name) else {
            return false;
        };
        let gres_free = alloc.gres_indices.iter().all(|(gres, idx)| {
            let used = node.alloc_gres.get(gres);
            idx.iter().all(|i| !used.is_some_and(|u| u.contains(i)))
        });
        node.accepts_work()
            && node.alloc_cpus + alloc.cpus <= node.cpus
            && node.alloc_mem_mb + alloc.mem_mb <= node.real_memory_mb
            && gres_free
    })
}
