//! What a job is confined to on its node, decided from `cgroup.conf`, `slurm.conf` and the job's allocation: the
//! cores of its cpuset, its memory limits and the GRES device files it may not open. Pure arithmetic; the node
//! agent turns the answer into a launch request and spurstepd writes it into cgroups.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::grammar::conf::CgroupConf;

const MB: u64 = 1024 * 1024;

/// Whether slurm.conf's `TaskPlugin` enables cgroup confinement (Slurm's task/cgroup; without it cgroup.conf's
/// `Constrain*` keys have no effect).
pub fn task_cgroup_enabled(task_plugin: &str) -> bool {
    task_plugin
        .split(',')
        .any(|p| p.trim().eq_ignore_ascii_case("task/cgroup"))
}

/// A job's memory limits in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryLimits {
    /// Hard RAM limit (v1 `memory.limit_in_bytes`, v2 `memory.max`).
    pub ram_bytes: u64,
    /// Soft limit: the job's own request, at most the hard limit (v1 `memory.soft_limit_in_bytes`; v2 has no
    /// counterpart that Spur writes).
    pub soft_bytes: u64,
    /// RAM plus swap (v1 `memory.memsw.limit_in_bytes`; v2 `memory.swap.max` gets the difference); `None`
    /// leaves swap unconstrained.
    pub ram_swap_bytes: Option<u64>,
}

/// Slurm's task/cgroup memory arithmetic. `job_mem_mb` 0 means the job asked for no memory limit (it then gets
/// the node's memory); `node_mem_mb` is the node's memory as the agent knows it.
pub fn memory_limits(conf: &CgroupConf, job_mem_mb: u64, node_mem_mb: u64) -> Option<MemoryLimits> {
    if !conf.constrain_ram_space && !conf.constrain_swap_space {
        return None;
    }
    let total = node_mem_mb.max(1);
    let job = if job_mem_mb == 0 { total } else { job_mem_mb };
    let min = conf.min_ram_space_mb.saturating_mul(MB);
    let max_ram = percent_bytes(total, conf.max_ram_percent);
    let max_swap = percent_bytes(total, conf.max_swap_percent).saturating_add(max_ram);
    let ram = percent_bytes(job, conf.allowed_ram_space).clamp(min.min(max_ram), max_ram);
    let ram_swap = conf.constrain_swap_space.then(|| {
        percent_bytes(job, conf.allowed_swap_space)
            .saturating_add(ram)
            .clamp(min.min(max_swap), max_swap)
    });
    let ram_bytes = match ram_swap {
        Some(swap) if !conf.constrain_ram_space => swap,
        _ => ram,
    };
    Some(MemoryLimits {
        ram_bytes,
        soft_bytes: job.saturating_mul(MB).min(ram_bytes),
        ram_swap_bytes: ram_swap,
    })
}

fn percent_bytes(mb: u64, percent: f64) -> u64 {
    // f64 holds every byte count below 2^53 exactly, far beyond any node's memory.
    let bytes = mb.saturating_mul(MB) as f64 * percent / 100.0;
    if bytes >= u64::MAX as f64 {
        u64::MAX
    } else {
        bytes as u64
    }
}

/// Concrete cores for a job that needs `count` of the node's `node_cpus`: the lowest ids no other job holds,
/// so that two agents (or one agent after a restart) given the same jobs choose the same cores. When the busy
/// set leaves too few (jobs sharing cores, or a bookkeeping mismatch, which must never refuse a job), the free
/// ones are completed with the lowest busy ids.
pub fn pick_cores(count: u32, node_cpus: u32, busy: &BTreeSet<u32>) -> Vec<u32> {
    pick_cores_near(count, node_cpus, busy, &BTreeSet::new())
}

/// [`pick_cores`], taking free cores from `near` first (the cores of the NUMA nodes of the job's GPUs), so a GPU
/// job's CPUs sit next to its GPUs when there is room there. Returned in ascending order.
pub fn pick_cores_near(
    count: u32,
    node_cpus: u32,
    busy: &BTreeSet<u32>,
    near: &BTreeSet<u32>,
) -> Vec<u32> {
    let want = count.clamp(1, node_cpus.max(1)) as usize;
    let free = (0..node_cpus).filter(|c| !busy.contains(c));
    let mut ordered: Vec<u32> = free.clone().filter(|c| near.contains(c)).collect();
    ordered.extend(free.filter(|c| !near.contains(c)));
    // Too few free: the job shares cores (`OverSubscribe=`), or the books disagree, which must not refuse it. It
    // gets every free core and then the lowest busy ones.
    ordered.truncate(want);
    let short = want - ordered.len();
    ordered.extend(
        (0..node_cpus.max(1))
            .filter(|c| busy.contains(c))
            .take(short),
    );
    ordered.sort_unstable();
    ordered
}

/// The kernel's list syntax for cpusets: `0-3,8,10-11`.
pub fn cpu_list(ids: &[u32]) -> String {
    let sorted: BTreeSet<u32> = ids.iter().copied().collect();
    let mut parts: Vec<String> = Vec::new();
    let mut run: Option<(u32, u32)> = None;
    for id in sorted {
        run = match run {
            Some((start, end)) if end + 1 == id => Some((start, id)),
            Some((start, end)) => {
                parts.push(range_text(start, end));
                Some((id, id))
            }
            None => Some((id, id)),
        };
    }
    if let Some((start, end)) = run {
        parts.push(range_text(start, end));
    }
    parts.join(",")
}

fn range_text(start: u32, end: u32) -> String {
    if start == end {
        start.to_string()
    } else {
        format!("{start}-{end}")
    }
}

/// Parses the kernel's list syntax back (as found in `cpuset.cpus` or a launch request).
pub fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut ids = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                if b < a || b - a > 65_536 {
                    return None;
                }
                ids.extend(a..=b);
            }
            None => ids.push(part.parse().ok()?),
        }
    }
    Some(ids)
}

/// The node's GRES device files the job was not given: `node_files` lists each GRES's files in index order
/// (the order the scheduler numbers them), `allocated` the job's indices per GRES. A file shared by an
/// allocated unit stays allowed; empty names (count-only units) are skipped.
pub fn denied_devices(
    node_files: &BTreeMap<String, Vec<String>>,
    allocated: &BTreeMap<String, Vec<u32>>,
) -> Vec<String> {
    let mut allowed: BTreeSet<&str> = BTreeSet::new();
    for (name, files) in node_files {
        for &i in allocated.get(name).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(f) = usize::try_from(i).ok().and_then(|i| files.get(i)) {
                allowed.insert(f);
            }
        }
    }
    let denied: BTreeSet<&str> = node_files
        .values()
        .flatten()
        .map(String::as_str)
        .filter(|f| !f.is_empty() && !allowed.contains(f))
        .collect();
    denied.into_iter().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(ram: bool, swap: bool) -> CgroupConf {
        CgroupConf {
            constrain_ram_space: ram,
            constrain_swap_space: swap,
            ..CgroupConf::default()
        }
    }

    #[test]
    fn task_plugin_lists() {
        assert!(task_cgroup_enabled("task/affinity,task/cgroup"));
        assert!(task_cgroup_enabled("task/cgroup"));
        assert!(!task_cgroup_enabled("task/none"));
        assert!(!task_cgroup_enabled("task/affinity"));
    }

    #[test]
    fn memory_follows_slurm_arithmetic() {
        assert_eq!(memory_limits(&conf(false, false), 100, 24_000), None);
        // What real Slurm 22.05 wrote for --mem=100M with ConstrainRAMSpace=yes and nothing else.
        assert_eq!(
            memory_limits(&conf(true, false), 100, 24_105),
            Some(MemoryLimits {
                ram_bytes: 100 * MB,
                soft_bytes: 100 * MB,
                ram_swap_bytes: None
            })
        );
        // Floor (MinRAMSpace=30) and cap (MaxRAMPercent of the node).
        assert_eq!(
            memory_limits(&conf(true, false), 10, 1000)
                .unwrap()
                .ram_bytes,
            30 * MB
        );
        let capped = CgroupConf {
            max_ram_percent: 50.0,
            ..conf(true, false)
        };
        assert_eq!(
            memory_limits(&capped, 900, 1000).unwrap().ram_bytes,
            500 * MB
        );
        // No --mem: the node's memory.
        assert_eq!(
            memory_limits(&conf(true, false), 0, 1000)
                .unwrap()
                .ram_bytes,
            1000 * MB
        );
        let swap = CgroupConf {
            allowed_swap_space: 50.0,
            allowed_ram_space: 90.0,
            ..conf(true, true)
        };
        let l = memory_limits(&swap, 200, 10_000).unwrap();
        assert_eq!(l.ram_bytes, 180 * MB);
        assert_eq!(l.ram_swap_bytes, Some(280 * MB));
        assert_eq!(l.soft_bytes, 180 * MB);
    }

    #[test]
    fn cores_are_lowest_free_and_deterministic() {
        let busy: BTreeSet<u32> = [0, 2].into();
        assert_eq!(pick_cores(2, 4, &busy), vec![1, 3]);
        assert_eq!(pick_cores(1, 4, &BTreeSet::new()), vec![0]);
        // Too few free (cores shared under OverSubscribe=): both free ones, then the lowest busy one.
        assert_eq!(pick_cores(3, 4, &busy), vec![0, 1, 3]);
        let all: BTreeSet<u32> = [0, 1].into();
        assert_eq!(pick_cores(1, 2, &all), vec![0]);
        assert_eq!(pick_cores(9, 2, &BTreeSet::new()), vec![0, 1]);
        // Cores near the job's GPUs first, then the lowest others.
        let near: BTreeSet<u32> = [4, 5, 6, 7].into();
        let busy: BTreeSet<u32> = [5].into();
        assert_eq!(pick_cores_near(2, 8, &busy, &near), vec![4, 6]);
        assert_eq!(pick_cores_near(5, 8, &busy, &near), vec![0, 1, 4, 6, 7]);
        assert_eq!(pick_cores_near(9, 8, &busy, &near).len(), 8);
    }

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(cpu_list(&[3, 0, 1, 2, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(
            parse_cpu_list("0-3,8,10-11\n").unwrap(),
            vec![0, 1, 2, 3, 8, 10, 11]
        );
        assert_eq!(parse_cpu_list("").unwrap(), Vec::<u32>::new());
        assert!(parse_cpu_list("3-1").is_none() && parse_cpu_list("x").is_none());
    }

    #[test]
    fn devices_not_allocated_are_denied() {
        let files: BTreeMap<String, Vec<String>> = [(
            "gpu".to_string(),
            (0..4).map(|i| format!("/dev/nvidia{i}")).collect(),
        )]
        .into();
        let alloc: BTreeMap<String, Vec<u32>> = [("gpu".to_string(), vec![1])].into();
        assert_eq!(
            denied_devices(&files, &alloc),
            vec!["/dev/nvidia0", "/dev/nvidia2", "/dev/nvidia3"]
        );
        assert_eq!(denied_devices(&files, &BTreeMap::new()).len(), 4);
    }
}
