//! What a finished step used, as Slurm's `jobacct_gather` records it for sacct: the step's supervisor samples its
//! tasks every `JobAcctGatherFrequency` seconds ([`Peaks`] keeps each task's largest figures), takes the CPU times
//! the kernel reports when the tasks are reaped, and sends one [`StepAcct`] with the step's end. A job's row sums
//! its steps' CPU times ([`job_cpu`]), as slurmdbd does; its memory and disk figures stay a step's own.
//!
//! Persisted in the job history and the Raft log: fields added later must be `#[serde(default)]`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::step_usage::{NodeUsage, StepTotals, TaskUsage};

/// A finished step's usage.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StepAcct {
    /// Every figure over the step's tasks: largest and smallest (with node and task) and total. `cpu_ms` is each
    /// task's user plus system time; memory figures are each task's peak over the samples.
    pub totals: StepTotals,
    /// User and system CPU time of all the step's tasks, their reaped children included, in microseconds.
    pub user_cpu_us: u64,
    pub sys_cpu_us: u64,
    /// srun ran the step's tasks itself as a descendant of the batch script, so the kernel counted their CPU
    /// time in the batch step's too; the batch step's record leaves it out again, as Slurm's batch step never
    /// holds its srun steps' tasks.
    #[serde(default)]
    pub counted_in_batch: bool,
    /// The largest peak resident size (KiB) the kernel reported for a reaped task and what it waited for
    /// (`ru_maxrss`). For the batch step it is kept apart from the sampled peaks, because it may be a peak of one
    /// of the srun steps the script ran ([`StepAcct::raise_batch_peak`] decides).
    #[serde(default)]
    pub reaped_max_rss_kib: u64,
}

impl StepAcct {
    /// Raises this (the batch step's) sampled peak memory to the largest peak the kernel reported for what the
    /// script reaped, which sampling can miss between ticks, unless one of `inner` (the steps srun ran itself
    /// inside the script, whose tasks the script's descendants reaped) reached that peak: then it is theirs.
    /// A batch step no sample saw keeps no figures, as in Slurm.
    pub fn raise_batch_peak<'a>(&mut self, inner: impl IntoIterator<Item = &'a StepAcct>) {
        let reaped = self.reaped_max_rss_kib;
        let theirs = inner
            .into_iter()
            .any(|step| step.reaped_max_rss_kib >= reaped);
        let rss = &mut self.totals.rss_kib;
        if self.totals.tasks != 1 || theirs || reaped <= rss.max.value {
            return;
        }
        rss.max.value = reaped;
        rss.min.value = reaped;
        rss.total = reaped;
    }

    /// Takes `step`'s CPU times out of this (the batch step's) record: its user and system time and its task's
    /// CPU figures.
    pub fn without_cpu_of(&mut self, step: &StepAcct) {
        self.user_cpu_us = self.user_cpu_us.saturating_sub(step.user_cpu_us);
        self.sys_cpu_us = self.sys_cpu_us.saturating_sub(step.sys_cpu_us);
        let ms = step.total_cpu_us() / 1000;
        let cpu = &mut self.totals.cpu_ms;
        cpu.max.value = cpu.max.value.saturating_sub(ms);
        cpu.min.value = cpu.min.value.saturating_sub(ms);
        cpu.total = cpu.total.saturating_sub(ms);
    }

    /// The step's usage from each node's tasks (their peaks, with CPU time as reaped) and the CPU times summed over
    /// all of its tasks.
    pub fn of(nodes: &[NodeUsage], user_cpu_us: u64, sys_cpu_us: u64) -> StepAcct {
        StepAcct {
            totals: StepTotals::of(nodes),
            user_cpu_us,
            sys_cpu_us,
            counted_in_batch: false,
            reaped_max_rss_kib: 0,
        }
    }

    /// `TotalCPU` in microseconds: user plus system.
    pub fn total_cpu_us(&self) -> u64 {
        self.user_cpu_us.saturating_add(self.sys_cpu_us)
    }
}

/// What one node's tasks of a step used, as its supervisor (or srun, for the tasks it runs itself) reports it at
/// the step's end: each task's peaks with the CPU time it was reaped with, and the node's user and system CPU.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeAcct {
    pub usage: NodeUsage,
    pub user_cpu_us: u64,
    pub sys_cpu_us: u64,
    /// The largest `ru_maxrss` of the node's reaped tasks, in KiB.
    #[serde(default)]
    pub reaped_max_rss_kib: u64,
}

impl StepAcct {
    /// A step's record from its nodes' reports: extremes over every task of every node (each naming its node and
    /// task, as Slurm's `Max*Node`/`Max*Task`), totals and averages over all the tasks, CPU times summed.
    pub fn merge(nodes: &[NodeAcct]) -> StepAcct {
        let usages: Vec<NodeUsage> = nodes.iter().map(|n| n.usage.clone()).collect();
        let (user, sys) = nodes.iter().fold((0u64, 0u64), |(user, sys), n| {
            (
                user.saturating_add(n.user_cpu_us),
                sys.saturating_add(n.sys_cpu_us),
            )
        });
        let mut step = StepAcct::of(&usages, user, sys);
        step.reaped_max_rss_kib = nodes
            .iter()
            .map(|n| n.reaped_max_rss_kib)
            .max()
            .unwrap_or(0);
        step
    }
}

/// The CPU times (user, system) of a job's row: the sum over its steps, as slurmdbd fills the job's record.
pub fn job_cpu<'a>(steps: impl IntoIterator<Item = &'a StepAcct>) -> (u64, u64) {
    steps.into_iter().fold((0u64, 0u64), |(user, sys), step| {
        (
            user.saturating_add(step.user_cpu_us),
            sys.saturating_add(step.sys_cpu_us),
        )
    })
}

/// Each task's largest figures over the samples taken so far on one node: memory and virtual size are peaks,
/// counters (CPU, pages, I/O) the latest, which are also the largest while the task's processes live (a process
/// that ended takes its counters along; the largest seen is kept).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Peaks {
    tasks: BTreeMap<u32, TaskUsage>,
}

impl Peaks {
    /// Takes one sample of the tasks (each summed over its processes, as `step_usage` measures them).
    pub fn sample(&mut self, tasks: &[TaskUsage]) {
        for now in tasks {
            let kept = self.tasks.entry(now.task).or_insert(TaskUsage {
                task: now.task,
                ..TaskUsage::default()
            });
            kept.cpu_ms = kept.cpu_ms.max(now.cpu_ms);
            kept.rss_kib = kept.rss_kib.max(now.rss_kib);
            kept.vmem_kib = kept.vmem_kib.max(now.vmem_kib);
            kept.pages = kept.pages.max(now.pages);
            kept.read_bytes = kept.read_bytes.max(now.read_bytes);
            kept.write_bytes = kept.write_bytes.max(now.write_bytes);
            if now.cpu_freq_khz != 0 {
                kept.cpu_freq_khz = now.cpu_freq_khz;
            }
        }
    }

    /// Whether some sample saw `task`.
    pub fn has(&self, task: u32) -> bool {
        self.tasks.contains_key(&task)
    }

    /// Raises a task's CPU time to what the kernel reported when it was reaped (`cpu_ms`) and its peak memory to
    /// at least `max_rss_kib` (the largest of its processes' own peaks), which sampling can miss between ticks.
    pub fn reaped(&mut self, task: u32, cpu_ms: u64, max_rss_kib: u64) {
        let kept = self.tasks.entry(task).or_insert(TaskUsage {
            task,
            ..TaskUsage::default()
        });
        kept.cpu_ms = kept.cpu_ms.max(cpu_ms);
        kept.rss_kib = kept.rss_kib.max(max_rss_kib);
    }

    /// The node's tasks as measured.
    pub fn node(&self, node: &str) -> NodeUsage {
        NodeUsage {
            node: node.to_string(),
            pids: Vec::new(),
            tasks: self.tasks.values().copied().collect(),
        }
    }
}

/// slurm.conf's `JobAcctGatherType` and `JobAcctGatherFrequency`, as the node's supervisors use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcctGather {
    /// Seconds between samples of a step's tasks (`task=`); 0 samples only when tasks start and end.
    pub frequency_secs: u32,
    /// `jobacct_gather/cgroup` (else `linux`): both read the tasks' processes here; see docs/accounting.md.
    #[serde(default)]
    pub cgroup: bool,
}

/// Slurm's default `JobAcctGatherFrequency` for tasks.
pub const DEFAULT_FREQUENCY_SECS: u32 = 30;

impl AcctGather {
    /// From slurm.conf's values: `None` when nothing is gathered (`jobacct_gather/none` or no type). The frequency
    /// is a bare number or a list of `type=seconds` items of which `task=` counts (`task=10,energy=0`); anything
    /// unreadable leaves the default, as slurmd falls back to it.
    pub fn from_conf(gather_type: Option<&str>, frequency: Option<&str>) -> Option<AcctGather> {
        let kind = gather_type?.trim().to_ascii_lowercase();
        let cgroup = match kind.as_str() {
            "jobacct_gather/linux" => false,
            "jobacct_gather/cgroup" => true,
            _ => return None,
        };
        let frequency_secs = frequency
            .and_then(task_frequency)
            .unwrap_or(DEFAULT_FREQUENCY_SECS);
        Some(AcctGather {
            frequency_secs,
            cgroup,
        })
    }
}

/// The task sampling interval of a `JobAcctGatherFrequency`/`--acctg-freq` value.
pub fn task_frequency(value: &str) -> Option<u32> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u32>() {
        return Some(secs);
    }
    value
        .split(',')
        .filter_map(|item| item.split_once('='))
        .find(|(kind, _)| kind.trim().eq_ignore_ascii_case("task"))
        .and_then(|(_, secs)| secs.trim().parse::<u32>().ok())
}

/// `TotalCPU`/`UserCPU`/`SystemCPU` as sacct prints a time in microseconds: `MM:SS.mmm` under an hour when there
/// are milliseconds, else `00:MM:SS`, `HH:MM:SS`, `D-HH:MM:SS`.
pub fn cpu_time_text(micros: u64) -> String {
    let secs = micros / 1_000_000;
    let millis = (micros % 1_000_000) / 1000;
    let (days, hours, minutes, seconds) = (
        secs / 86_400,
        (secs / 3600) % 24,
        (secs / 60) % 60,
        secs % 60,
    );
    if days > 0 {
        format!("{days}-{hours:02}:{minutes:02}:{seconds:02}")
    } else if hours > 0 {
        format!("{hours:02}:{minutes:02}:{seconds:02}")
    } else if millis > 0 {
        format!("{minutes:02}:{seconds:02}.{millis:03}")
    } else {
        format!("00:{minutes:02}:{seconds:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(task: u32, cpu_ms: u64, rss_kib: u64) -> TaskUsage {
        TaskUsage {
            task,
            cpu_ms,
            rss_kib,
            vmem_kib: rss_kib * 2,
            ..TaskUsage::default()
        }
    }

    #[test]
    fn peaks_keep_the_largest_sample_and_the_reaped_cpu() {
        let mut peaks = Peaks::default();
        peaks.sample(&[usage(0, 100, 1000), usage(1, 50, 300)]);
        peaks.sample(&[usage(0, 900, 200)]);
        peaks.reaped(0, 2000, 500);
        peaks.reaped(1, 10, 4000);
        peaks.reaped(2, 5, 0);
        assert!(peaks.has(2) && !peaks.has(3));
        let node = peaks.node("n1");
        let by_task: Vec<(u32, u64, u64, u64)> = node
            .tasks
            .iter()
            .map(|t| (t.task, t.cpu_ms, t.rss_kib, t.vmem_kib))
            .collect();
        assert_eq!(
            by_task,
            vec![(0, 2000, 1000, 2000), (1, 50, 4000, 600), (2, 5, 0, 0)]
        );
    }

    #[test]
    fn a_step_on_two_nodes_names_its_extremes() {
        let n1 = Peaks {
            tasks: [(0, usage(0, 2000, 1000)), (1, usage(1, 1000, 5000))].into(),
        }
        .node("n1");
        let n2 = Peaks {
            tasks: [(2, usage(2, 3000, 200))].into(),
        }
        .node("n2");
        let acct = StepAcct::of(&[n1, n2], 5_500_000, 500_000);
        let t = &acct.totals;
        assert_eq!(t.tasks, 3);
        assert_eq!(
            (
                t.rss_kib.max.value,
                t.rss_kib.max.node.as_str(),
                t.rss_kib.max.task
            ),
            (5000, "n1", 1)
        );
        assert_eq!(
            (
                t.rss_kib.min.value,
                t.rss_kib.min.node.as_str(),
                t.rss_kib.min.task
            ),
            (200, "n2", 2)
        );
        assert_eq!(t.cpu_ms.max.node, "n2");
        assert_eq!(t.cpu_ms.total, 6000);
        assert_eq!(t.rss_kib.average(t.tasks), 2066);
        assert_eq!(acct.total_cpu_us(), 6_000_000);
        let batch = StepAcct::of(&[], 1_000, 2_000);
        assert_eq!(job_cpu([&acct, &batch]), (5_501_000, 502_000));
    }

    #[test]
    fn gather_settings_from_slurm_conf() {
        let linux = |f: Option<&str>| AcctGather::from_conf(Some("jobacct_gather/linux"), f);
        assert_eq!(
            linux(None),
            Some(AcctGather {
                frequency_secs: 30,
                cgroup: false
            })
        );
        assert_eq!(linux(Some("10")).map(|g| g.frequency_secs), Some(10));
        assert_eq!(
            linux(Some("energy=5,task=2,network=0")).map(|g| g.frequency_secs),
            Some(2)
        );
        assert_eq!(linux(Some("task=0")).map(|g| g.frequency_secs), Some(0));
        assert_eq!(linux(Some("garbage")).map(|g| g.frequency_secs), Some(30));
        assert_eq!(
            AcctGather::from_conf(Some("JobAcct_Gather/Cgroup"), None).map(|g| g.cgroup),
            Some(true)
        );
        assert_eq!(
            AcctGather::from_conf(Some("jobacct_gather/none"), None),
            None
        );
        assert_eq!(AcctGather::from_conf(None, Some("5")), None);
    }

    #[test]
    fn cpu_times_as_sacct_prints_them() {
        assert_eq!(cpu_time_text(0), "00:00:00");
        assert_eq!(cpu_time_text(2_003_000), "00:02.003");
        assert_eq!(cpu_time_text(2_000_000), "00:00:02");
        assert_eq!(cpu_time_text(61_500_999), "01:01.500");
        assert_eq!(cpu_time_text(3_601_250_000), "01:00:01");
        assert_eq!(cpu_time_text(90_061_000_000), "1-01:01:01");
        assert_eq!(cpu_time_text(999), "00:00:00");
    }
}
