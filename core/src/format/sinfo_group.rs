//! How sinfo turns nodes into lines: per partition, nodes join the first existing line they "match" (same state,
//! features, GRES, reason ... but only for fields the format shows), or start a new one. With `-N` every node (per
//! partition) is its own line. Sizes that differ within a line print as `min+`.

use crate::format::node_view;
use crate::model::records::{NodeRecord, PartitionRecord};

/// Which node and partition attributes the format shows, and so must agree within one line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct MatchFlags {
    pub state: bool,
    pub features: bool,
    pub features_act: bool,
    pub gres: bool,
    pub gres_used: bool,
    pub reason: bool,
    pub reason_time: bool,
    pub reason_user: bool,
    pub cpu_load: bool,
    pub free_mem: bool,
    pub alloc_mem: bool,
    pub version: bool,
    pub port: bool,
    pub cpus: bool,
    pub sockets: bool,
    pub cores: bool,
    pub threads: bool,
    pub sct: bool,
    pub disk: bool,
    pub memory: bool,
    pub weight: bool,
    pub partition: bool,
    pub avail: bool,
    pub groups: bool,
    pub job_size: bool,
    pub max_time: bool,
    pub default_time: bool,
    pub root: bool,
    pub oversubscribe: bool,
    pub priority_tier: bool,
    pub priority_job_factor: bool,
}

/// One sinfo output line: a partition (or none) and its nodes.
#[derive(Debug, Clone)]
pub(crate) struct SinfoRecord<'a> {
    pub part: Option<&'a PartitionRecord>,
    /// Index of the partition in configuration order (for `#P` sorting).
    pub part_index: usize,
    pub nodes: Vec<&'a NodeRecord>,
}

impl<'a> SinfoRecord<'a> {
    /// The first node decides the line's state, features and reason, as in Slurm.
    pub fn first(&self) -> Option<&'a NodeRecord> {
        self.nodes.first().copied()
    }

    pub fn min_max<T: Ord + Copy>(&self, value: impl Fn(&NodeRecord) -> T) -> Option<(T, T)> {
        let min = self.nodes.iter().map(|n| value(n)).min()?;
        let max = self.nodes.iter().map(|n| value(n)).max()?;
        Some((min, max))
    }

    /// Allocated / idle / other / total node counts.
    pub fn node_counts(&self) -> (usize, usize, usize, usize) {
        let alloc = self
            .nodes
            .iter()
            .filter(|n| node_view::counts_allocated(n))
            .count();
        let idle = self
            .nodes
            .iter()
            .filter(|n| node_view::counts_idle(n))
            .count();
        let total = self.nodes.len();
        (alloc, idle, total - alloc - idle, total)
    }

    /// Allocated / idle / other / total CPU counts.
    pub fn cpu_counts(&self) -> (u64, u64, u64, u64) {
        let (mut alloc, mut idle, mut other, mut total) = (0u64, 0u64, 0u64, 0u64);
        for node in &self.nodes {
            let cpus = u64::from(node.cpus);
            let used = u64::from(node.cpus_in_use()).min(cpus);
            alloc += used;
            total += cpus;
            if node_view::cpus_unavailable(node) {
                other += cpus - used;
            } else {
                idle += cpus - used;
            }
        }
        (alloc, idle, other, total)
    }
}

/// How nodes share lines: `-N` gives each node its own, `-e` also requires equal sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grouping {
    Matching,
    Exact,
    PerNode,
}

/// Builds the lines: partitions in configuration order, nodes in node-table order; nodes in no partition go on
/// lines without one.
pub(crate) fn group<'a>(
    nodes: &[&'a NodeRecord],
    partitions: &[&'a PartitionRecord],
    flags: &MatchFlags,
    grouping: Grouping,
) -> Vec<SinfoRecord<'a>> {
    let mut records: Vec<SinfoRecord<'a>> = Vec::new();
    for (index, part) in partitions.iter().enumerate() {
        for node in nodes.iter().copied().filter(|n| in_partition(n, part)) {
            insert(&mut records, Some(part), index, node, flags, grouping);
        }
    }
    for node in nodes.iter().copied() {
        if !partitions.iter().any(|p| in_partition(node, p)) {
            insert(&mut records, None, partitions.len(), node, flags, grouping);
        }
    }
    records
}

fn in_partition(node: &NodeRecord, part: &PartitionRecord) -> bool {
    part.nodes.contains(&node.name) || node.partitions.contains(&part.name)
}

fn insert<'a>(
    records: &mut Vec<SinfoRecord<'a>>,
    part: Option<&'a PartitionRecord>,
    part_index: usize,
    node: &'a NodeRecord,
    flags: &MatchFlags,
    grouping: Grouping,
) {
    if grouping != Grouping::PerNode {
        let found = records.iter_mut().find(|r| {
            part_matches(r, part, flags)
                && node_matches(r, node, flags)
                && (grouping != Grouping::Exact || exact_matches(r, node, flags))
        });
        if let Some(record) = found {
            if !record.nodes.iter().any(|n| n.name == node.name) {
                record.nodes.push(node);
            }
            return;
        }
    }
    records.push(SinfoRecord {
        part,
        part_index,
        nodes: vec![node],
    });
}

fn part_matches(record: &SinfoRecord<'_>, part: Option<&PartitionRecord>, f: &MatchFlags) -> bool {
    let (a, b) = match (record.part, part) {
        (Some(a), Some(b)) if std::ptr::eq(a, b) => return true,
        (Some(a), Some(b)) => (a, b),
        (None, None) => return true,
        _ => return false,
    };
    !(f.partition && a.name != b.name
        || f.avail && a.state != b.state
        || f.groups && a.allow_groups != b.allow_groups
        || f.job_size && (a.min_nodes != b.min_nodes || a.max_nodes != b.max_nodes)
        || f.max_time && a.max_time_min != b.max_time_min
        || f.default_time && a.default_time_min != b.default_time_min
        || f.root && a.root_only != b.root_only
        || f.oversubscribe && a.oversubscribe != b.oversubscribe
        || f.priority_tier && a.priority_tier != b.priority_tier
        || f.priority_job_factor && a.priority_job_factor != b.priority_job_factor)
}

fn node_matches(record: &SinfoRecord<'_>, node: &NodeRecord, f: &MatchFlags) -> bool {
    let Some(first) = record.first() else {
        return true;
    };
    let differs = f.state && node_view::state_long(first) != node_view::state_long(node)
        || f.features && first.features != node.features
        || f.features_act && first.features != node.features
        || f.gres && node_view::gres(first) != node_view::gres(node)
        || f.gres_used && node_view::gres_used(first) != node_view::gres_used(node)
        || f.reason && first.reason != node.reason
        || f.reason_time && first.reason_time != node.reason_time
        || f.reason_user && first.reason_uid != node.reason_uid
        || f.cpu_load && first.cpu_load.map(load_hundredths) != node.cpu_load.map(load_hundredths)
        || f.free_mem && first.free_mem_mb != node.free_mem_mb
        || f.alloc_mem && first.alloc_mem_mb != node.alloc_mem_mb
        || f.version && first.version != node.version
        || f.port && first.port != node.port;
    !differs
}

/// CPU load as Slurm carries it: hundredths.
pub(crate) fn load_hundredths(load: f64) -> u64 {
    (load * 100.0).round().max(0.0) as u64
}

/// With `-e`, sizes must also be equal for nodes to share a line.
fn exact_matches(record: &SinfoRecord<'_>, node: &NodeRecord, f: &MatchFlags) -> bool {
    let Some(first) = record.first() else {
        return true;
    };
    !(f.cpus && first.cpus != node.cpus
        || (f.sockets || f.sct) && first.sockets != node.sockets
        || (f.cores || f.sct) && first.cores_per_socket != node.cores_per_socket
        || (f.threads || f.sct) && first.threads_per_core != node.threads_per_core
        || f.disk && first.tmp_disk_mb != node.tmp_disk_mb
        || f.memory && first.real_memory_mb != node.real_memory_mb
        || f.weight && first.weight != node.weight)
}
