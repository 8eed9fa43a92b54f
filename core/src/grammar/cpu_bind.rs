//! `--cpu-bind` with `TaskPlugin=task/affinity`: which CPUs each task of a step is bound to.
//!
//! As slurmstepd does (checked on Slurm 22.05 with task/affinity): without `--cpu-bind`, or with `cores` or
//! `threads`, a node's task `LOCALID` gets `cpus_per_task` CPUs of those the step may use on the node (its cgroup's
//! cpuset, else every CPU), in order, starting at `LOCALID * cpus_per_task` and wrapping when there are more
//! tasks than CPUs; `none` leaves tasks unbound; `map_cpu:` and `mask_cpu:` bind task `LOCALID` to the list's
//! entry at `LOCALID` modulo its length. Without task/affinity nothing is bound, whatever `--cpu-bind` says.

/// How a step's tasks are bound, from `--cpu-bind` (carried to each node's supervisor as its text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpuBindPolicy {
    /// `none`/`no`: every task may use what the step may.
    Unbound,
    /// The default, `cores`, `threads`, `sockets`, `ldoms`, `rank`: consecutive CPUs per task.
    Consecutive,
    /// `map_cpu:0,2,...`: one CPU per task.
    MapCpu(Vec<u32>),
    /// `mask_cpu:0x3,0xc,...`: a mask of CPUs (0-63) per task.
    MaskCpu(Vec<u64>),
}

/// One task's binding, applied between fork and exec (no allocation there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskBinding {
    /// `count` CPUs of those allowed, starting at the `start`-th (both counted in allowed CPUs, wrapping).
    Slice { start: u32, count: u32 },
    /// Exactly these CPUs (bit N is CPU N).
    Mask(u64),
}

impl CpuBindPolicy {
    /// Parses `--cpu-bind`'s value; `verbose`/`quiet` and the other types leave the default. `Err` is srun's
    /// complaint about a bad CPU list.
    pub fn parse(text: &str) -> Result<CpuBindPolicy, String> {
        let lower = bind_type(text).to_ascii_lowercase();
        if lower == "none" || lower == "no" {
            Ok(CpuBindPolicy::Unbound)
        } else if let Some(list) = lower.strip_prefix("map_cpu:") {
            Ok(CpuBindPolicy::MapCpu(parse_list(list, |v| v.parse().ok())?))
        } else if let Some(list) = lower.strip_prefix("mask_cpu:") {
            Ok(CpuBindPolicy::MaskCpu(parse_list(list, parse_mask)?))
        } else {
            Ok(CpuBindPolicy::Consecutive)
        }
    }

    /// The binding of the task with node-local id `localid`; `None` leaves it unbound.
    pub fn task_binding(&self, localid: u32, cpus_per_task: u32) -> Option<TaskBinding> {
        match self {
            CpuBindPolicy::Unbound => None,
            CpuBindPolicy::Consecutive => {
                let count = cpus_per_task.max(1);
                Some(TaskBinding::Slice {
                    start: localid.saturating_mul(count),
                    count,
                })
            }
            CpuBindPolicy::MapCpu(cpus) => {
                let cpu = *cpus.get(localid as usize % cpus.len().max(1))?;
                (cpu < 64).then(|| TaskBinding::Mask(1u64 << cpu))
            }
            CpuBindPolicy::MaskCpu(masks) => masks
                .get(localid as usize % masks.len().max(1))
                .map(|m| TaskBinding::Mask(*m)),
        }
    }
}

/// The type of a `--cpu-bind`/`--gpu-bind` value `[{quiet,verbose},]type`: it comes last, and its list may hold
/// commas.
pub fn bind_type(text: &str) -> &str {
    let mut rest = text;
    while let Some((word, tail)) = rest.split_once(',') {
        if !matches!(
            word.to_ascii_lowercase().as_str(),
            "verbose" | "v" | "quiet" | "q"
        ) {
            break;
        }
        rest = tail;
    }
    rest
}

/// Whether `--cpu-bind` asks each task to report its binding (`verbose`/`v` before the type).
pub fn is_verbose(text: &str) -> bool {
    text.split(',')
        .any(|w| w.eq_ignore_ascii_case("verbose") || w.eq_ignore_ascii_case("v"))
}

/// The start of the line a task of a `--cpu-bind=verbose` step prints on its stderr before it runs, up to its pid:
/// `cpu-bind=MASK - n1, task  0  0 [`. The task adds `PID]: mask 0x3 set` (an unbound one `PID]: mask 0x0`).
pub fn verbose_line_start(policy_text: &str, node: &str, rank: u32, localid: u32) -> String {
    let lower = bind_type(policy_text).to_ascii_lowercase();
    let label = if lower == "none" || lower == "no" {
        "NONE"
    } else if lower.starts_with("map_cpu") {
        "MAP"
    } else if lower == "rank" {
        "RANK"
    } else {
        "MASK"
    };
    format!("cpu-bind={label:<4} - {node}, task {rank:2} {localid:2} [")
}

/// Writes `mask` (a bit per CPU) as Slurm prints it after `0x` (hex, no leading zeros, `0` when empty) into `out`;
/// returns the length. Without allocation, for the forked child.
pub fn mask_hex(mask: &[u64; 16], out: &mut [u8; 256]) -> usize {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut len = 0;
    for word in mask.iter().rev() {
        for shift in (0..16).rev() {
            let digit = ((word >> (shift * 4)) & 0xf) as usize;
            if len == 0 && digit == 0 {
                continue;
            }
            out[len] = DIGITS[digit];
            len += 1;
        }
    }
    if len == 0 {
        out[0] = b'0';
        len = 1;
    }
    len
}

/// Whether slurm.conf's `TaskPlugin` binds tasks (task/affinity).
pub fn affinity_plugin(task_plugin: Option<&str>) -> bool {
    task_plugin.is_some_and(|v| {
        v.split(',')
            .any(|p| matches!(p.trim(), "task/affinity" | "affinity"))
    })
}

/// The step's policy on a cluster: `None` when nothing is bound (no task/affinity, or `--cpu-bind=none`).
pub fn step_policy(
    task_plugin: Option<&str>,
    cpu_bind: Option<&str>,
) -> Result<Option<CpuBindPolicy>, String> {
    if !affinity_plugin(task_plugin) {
        return Ok(None);
    }
    let policy = match cpu_bind {
        Some(text) => CpuBindPolicy::parse(text)?,
        None => CpuBindPolicy::Consecutive,
    };
    Ok((policy != CpuBindPolicy::Unbound).then_some(policy))
}

fn parse_list<T>(list: &str, one: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, String> {
    let items: Option<Vec<T>> = list.split(',').map(|v| one(v.trim())).collect();
    match items {
        Some(items) if !items.is_empty() => Ok(items),
        _ => Err(format!("Failed to parse CPU list: {list}")),
    }
}

fn parse_mask(text: &str) -> Option<u64> {
    let hex = text.strip_prefix("0x").unwrap_or(text);
    u64::from_str_radix(hex, 16).ok().filter(|m| *m != 0)
}

/// The CPUs a binding keeps of `allowed` (a bit per CPU, 1024 CPUs at most), into `out`: pure and without
/// allocation, so the forked child can call it. Returns false (leave the task as it is) when nothing would remain.
pub fn apply(binding: TaskBinding, allowed: &[u64; 16], out: &mut [u64; 16]) -> bool {
    *out = [0; 16];
    match binding {
        TaskBinding::Mask(mask) => {
            out[0] = mask & allowed[0];
        }
        TaskBinding::Slice { start, count } => {
            let total: u32 = allowed.iter().map(|w| w.count_ones()).sum();
            if total == 0 {
                return false;
            }
            for k in 0..count.min(total) {
                let wanted = (start + k) % total;
                if let Some(cpu) = nth_set_bit(allowed, wanted) {
                    out[(cpu / 64) as usize] |= 1u64 << (cpu % 64);
                }
            }
        }
    }
    out.iter().any(|w| *w != 0)
}

fn nth_set_bit(bits: &[u64; 16], n: u32) -> Option<u32> {
    let mut seen = 0;
    for (word_index, word) in bits.iter().enumerate() {
        let ones = word.count_ones();
        if seen + ones > n {
            let mut w = *word;
            for _ in 0..(n - seen) {
                w &= w - 1;
            }
            return Some(word_index as u32 * 64 + w.trailing_zeros());
        }
        seen += ones;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpus(list: &[u32]) -> [u64; 16] {
        let mut bits = [0u64; 16];
        for &c in list {
            bits[(c / 64) as usize] |= 1 << (c % 64);
        }
        bits
    }

    fn bound(binding: TaskBinding, allowed: &[u32]) -> Vec<u32> {
        let mut out = [0u64; 16];
        if !apply(binding, &cpus(allowed), &mut out) {
            return Vec::new();
        }
        (0..1024)
            .filter(|c| out[c / 64] & (1 << (c % 64)) != 0)
            .map(|c| c as u32)
            .collect()
    }

    #[test]
    fn without_task_affinity_nothing_is_bound() {
        assert_eq!(step_policy(Some("task/none"), Some("cores")), Ok(None));
        assert_eq!(step_policy(None, None), Ok(None));
        assert_eq!(
            step_policy(Some("task/cgroup,task/affinity"), Some("none")),
            Ok(None)
        );
        assert_eq!(
            step_policy(Some("task/cgroup,task/affinity"), None),
            Ok(Some(CpuBindPolicy::Consecutive))
        );
    }

    /// What Slurm 22.05 showed on a 2-CPU node with task/affinity: `-n2` gives 0 and 1, `-c2` both.
    #[test]
    fn tasks_take_consecutive_allowed_cpus_in_local_order() {
        let p = CpuBindPolicy::Consecutive;
        let t0 = p.task_binding(0, 1).unwrap();
        let t1 = p.task_binding(1, 1).unwrap();
        assert_eq!(bound(t0, &[0, 1]), vec![0]);
        assert_eq!(bound(t1, &[0, 1]), vec![1]);
        assert_eq!(bound(p.task_binding(0, 2).unwrap(), &[0, 1]), vec![0, 1]);
        // Within a cpuset of the job's cores, and wrapping past its end.
        assert_eq!(bound(t1, &[4, 6]), vec![6]);
        assert_eq!(bound(p.task_binding(2, 1).unwrap(), &[4, 6]), vec![4]);
        assert_eq!(bound(p.task_binding(1, 1).unwrap(), &[63, 64]), vec![64]);
    }

    #[test]
    fn map_and_mask_lists_cycle_over_local_ids() {
        let p = CpuBindPolicy::parse("map_cpu:1,0").unwrap();
        assert_eq!(bound(p.task_binding(0, 1).unwrap(), &[0, 1]), vec![1]);
        assert_eq!(bound(p.task_binding(1, 1).unwrap(), &[0, 1]), vec![0]);
        assert_eq!(bound(p.task_binding(2, 1).unwrap(), &[0, 1]), vec![1]);
        let m = CpuBindPolicy::parse("verbose,mask_cpu:0x3").unwrap();
        assert_eq!(bound(m.task_binding(5, 1).unwrap(), &[0, 1, 2]), vec![0, 1]);
        assert!(CpuBindPolicy::parse("map_cpu:a").is_err());
        assert_eq!(
            CpuBindPolicy::parse("verbose").unwrap(),
            CpuBindPolicy::Consecutive
        );
        assert_eq!(
            CpuBindPolicy::parse("none").unwrap(),
            CpuBindPolicy::Unbound
        );
    }

    /// The lines Slurm 22.05's task/affinity printed for `--cpu-bind=verbose,...` on a 2-CPU node.
    #[test]
    fn verbose_lines_name_the_type_the_task_and_its_mask() {
        assert!(is_verbose("verbose"));
        assert!(is_verbose("v,map_cpu:1,0"));
        assert!(!is_verbose("quiet,cores"));
        assert_eq!(
            verbose_line_start("verbose", "vm", 0, 0),
            "cpu-bind=MASK - vm, task  0  0 ["
        );
        assert_eq!(
            verbose_line_start("verbose,map_cpu:1,0", "n1", 12, 3),
            "cpu-bind=MAP  - n1, task 12  3 ["
        );
        assert_eq!(
            verbose_line_start("v,none", "vm", 1, 1),
            "cpu-bind=NONE - vm, task  1  1 ["
        );
        assert_eq!(
            verbose_line_start("verbose,rank", "vm", 1, 1),
            "cpu-bind=RANK - vm, task  1  1 ["
        );
        let mut out = [0u8; 256];
        let hex = |bits: &[u32], out: &mut [u8; 256]| {
            let len = mask_hex(&cpus(bits), out);
            String::from_utf8(out[..len].to_vec()).unwrap()
        };
        assert_eq!(hex(&[], &mut out), "0");
        assert_eq!(hex(&[0, 1], &mut out), "3");
        assert_eq!(hex(&[4], &mut out), "10");
        assert_eq!(hex(&[64], &mut out), "10000000000000000");
    }

    #[test]
    fn a_binding_outside_the_allowed_cpus_leaves_the_task_as_it_is() {
        let p = CpuBindPolicy::parse("map_cpu:5").unwrap();
        assert!(bound(p.task_binding(0, 1).unwrap(), &[0, 1]).is_empty());
    }
}
