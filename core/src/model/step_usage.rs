//! What a running step uses, as `sstat` and `slurm_job_step_stat`/`slurm_job_step_get_pids` show it: each node's
//! agent measures the step's tasks there ([`NodeUsage`]); the controller gathers the nodes' answers into a
//! [`StepUsage`]; [`StepTotals`] reduces the tasks to Slurm's Max/Min/Ave figures with the node and task where
//! each maximum or minimum occurred.

use serde::{Deserialize, Serialize};

/// A step of a job as sstat names it: `J.batch` or `J.N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StepRef {
    Batch,
    Numbered(u32),
}

impl StepRef {
    /// `batch` or the number.
    pub fn suffix(&self) -> String {
        match self {
            StepRef::Batch => "batch".to_string(),
            StepRef::Numbered(n) => n.to_string(),
        }
    }
}

/// Which steps of a job to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepPick {
    /// One step.
    Step(StepRef),
    /// The lowest-numbered running step (sstat's `-j J`).
    LowestRunning,
    /// The batch step and every running step (`-a -j J`).
    AllRunning,
}

/// The steps of `job` that `pick` names and are running, each with the nodes to measure it on: the batch step
/// runs on the job's first node, a numbered step on its own nodes. Empty when the job is not running.
pub fn plan(job: &crate::model::job::JobRecord, pick: StepPick) -> Vec<(StepRef, Vec<String>)> {
    if job.state != crate::model::states::JobBaseState::Running {
        return Vec::new();
    }
    let job_nodes = job
        .alloc
        .as_ref()
        .map(|a| a.node_names.clone())
        .unwrap_or_default();
    let batch = || {
        job.spec
            .script
            .is_some()
            .then(|| (StepRef::Batch, job_nodes.iter().take(1).cloned().collect()))
    };
    let mut running: Vec<(StepRef, Vec<String>)> = job
        .steps
        .iter()
        .filter(|s| s.is_running())
        .map(|s| {
            let nodes = crate::grammar::hostlist::expand(&s.node_list)
                .unwrap_or_else(|_| job_nodes.clone());
            (StepRef::Numbered(s.step_id), nodes)
        })
        .collect();
    running.sort_by_key(|(step, _)| *step);
    match pick {
        StepPick::Step(StepRef::Batch) => batch().into_iter().collect(),
        StepPick::Step(wanted) => running.into_iter().filter(|(s, _)| *s == wanted).collect(),
        StepPick::LowestRunning => running.into_iter().take(1).collect(),
        StepPick::AllRunning => batch().into_iter().chain(running).collect(),
    }
}

/// One task's consumption so far, summed over its processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TaskUsage {
    /// The task's rank in the step (`SLURM_PROCID`; 0 for the batch step).
    pub task: u32,
    /// User and system CPU time, reaped children included, in milliseconds.
    pub cpu_ms: u64,
    pub rss_kib: u64,
    pub vmem_kib: u64,
    /// Major page faults.
    pub pages: u64,
    /// Bytes read and written through system calls (`/proc/PID/io` `rchar`, `wchar`).
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// The current frequency of the CPU the task last ran on, in kHz (0 when the node does not say).
    pub cpu_freq_khz: u64,
}

/// A step's tasks on one node.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeUsage {
    pub node: String,
    /// Every process of the step on the node, in the order the node listed them.
    pub pids: Vec<u32>,
    pub tasks: Vec<TaskUsage>,
}

/// One step's usage on all of its nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepUsage {
    pub job_id: u32,
    pub step: StepRef,
    pub nodes: Vec<NodeUsage>,
}

impl StepUsage {
    /// `J.batch`, `J.N`.
    pub fn id_text(&self) -> String {
        format!("{}.{}", self.job_id, self.step.suffix())
    }

    pub fn totals(&self) -> StepTotals {
        StepTotals::of(&self.nodes)
    }
}

/// The largest or smallest value of one figure and where it occurred.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Extreme {
    pub value: u64,
    pub node: String,
    pub task: u32,
}

/// One figure over all tasks of a step.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Figure {
    pub max: Extreme,
    pub min: Extreme,
    pub total: u64,
}

impl Figure {
    /// The average over `tasks` tasks (integer division, as Slurm's averages of counters are whole numbers).
    pub fn average(&self, tasks: u32) -> u64 {
        if tasks == 0 {
            0
        } else {
            self.total / u64::from(tasks)
        }
    }
}

/// A step's figures as sstat reports them (and, kept with a finished step, as sacct does: persisted, so fields
/// added later must be `#[serde(default)]`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StepTotals {
    pub tasks: u32,
    pub cpu_ms: Figure,
    pub rss_kib: Figure,
    pub vmem_kib: Figure,
    pub pages: Figure,
    pub read_bytes: Figure,
    pub write_bytes: Figure,
    pub cpu_freq_khz: Figure,
    /// The node of the first task (where node-wide figures such as energy are taken).
    pub first_node: String,
}

impl StepTotals {
    pub fn of(nodes: &[NodeUsage]) -> StepTotals {
        let mut totals = StepTotals::default();
        let mut first = true;
        for node in nodes {
            for task in &node.tasks {
                let at = |value: u64| Extreme {
                    value,
                    node: node.node.clone(),
                    task: task.task,
                };
                let figures: [(&mut Figure, u64); 7] = [
                    (&mut totals.cpu_ms, task.cpu_ms),
                    (&mut totals.rss_kib, task.rss_kib),
                    (&mut totals.vmem_kib, task.vmem_kib),
                    (&mut totals.pages, task.pages),
                    (&mut totals.read_bytes, task.read_bytes),
                    (&mut totals.write_bytes, task.write_bytes),
                    (&mut totals.cpu_freq_khz, task.cpu_freq_khz),
                ];
                for (figure, value) in figures {
                    if first || value > figure.max.value {
                        figure.max = at(value);
                    }
                    if first || value < figure.min.value {
                        figure.min = at(value);
                    }
                    figure.total = figure.total.saturating_add(value);
                }
                if first {
                    totals.first_node = node.node.clone();
                }
                first = false;
                totals.tasks += 1;
            }
        }
        totals
    }
}

/// Reads the fields of one process that usage is made of, from the text of `/proc/PID/stat`, `/proc/PID/io` and
/// the node's clock tick and page size. Pure so it can be tested on captured text.
pub fn process_usage(
    stat: &str,
    io: Option<&str>,
    ticks_per_sec: u64,
    page_kib: u64,
) -> Option<ProcessUsage> {
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `fields[0]` is field 3 of proc(5) (state).
    let field = |n: usize| fields.get(n - 3).and_then(|v| v.parse::<u64>().ok());
    let ticks = field(14)? + field(15)? + field(16)? + field(17)?;
    let ticks_per_sec = ticks_per_sec.max(1);
    let io_value = |key: &str| {
        io.and_then(|text| {
            text.lines()
                .filter_map(|line| line.split_once(':'))
                .find(|(k, _)| k.trim() == key)
                .and_then(|(_, v)| v.trim().parse::<u64>().ok())
        })
        .unwrap_or(0)
    };
    Some(ProcessUsage {
        cpu_ms: ticks * 1000 / ticks_per_sec,
        pages: field(12)?,
        vmem_kib: field(23)? / 1024,
        rss_kib: field(24)? * page_kib,
        processor: field(39).and_then(|p| u32::try_from(p).ok()),
        read_bytes: io_value("rchar"),
        write_bytes: io_value("wchar"),
    })
}

/// One process's share of a task's usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcessUsage {
    pub cpu_ms: u64,
    pub pages: u64,
    pub vmem_kib: u64,
    pub rss_kib: u64,
    /// The CPU it last ran on.
    pub processor: Option<u32>,
    pub read_bytes: u64,
    pub write_bytes: u64,
}

impl TaskUsage {
    /// Adds one more process of the task (its figures are sums over the processes; the frequency is the first
    /// known one).
    pub fn add(&mut self, process: &ProcessUsage, cpu_freq_khz: u64) {
        self.cpu_ms += process.cpu_ms;
        self.rss_kib += process.rss_kib;
        self.vmem_kib += process.vmem_kib;
        self.pages += process.pages;
        self.read_bytes += process.read_bytes;
        self.write_bytes += process.write_bytes;
        if self.cpu_freq_khz == 0 {
            self.cpu_freq_khz = cpu_freq_khz;
        }
    }
}

/// Which step a process belongs to, from its environment (`SLURM_JOB_ID`, `SLURM_STEP_ID`, `SLURM_PROCID`): the
/// batch script and what it starts outside srun have no step id; srun's tasks carry theirs. `None` for
/// processes of other jobs, and for those of another node (`SLURMD_NODENAME`) when several nodes share a host.
pub fn process_step(environ: &[u8], job_id: u32, node: &str) -> Option<(StepRef, u32)> {
    let mut job = None;
    let mut other_node = false;
    let mut step = None;
    let mut rank = None;
    for entry in environ.split(|&b| b == 0) {
        let Ok(text) = std::str::from_utf8(entry) else {
            continue;
        };
        match text.split_once('=') {
            Some(("SLURM_JOB_ID", v)) => job = v.parse::<u32>().ok(),
            Some(("SLURM_STEP_ID", v)) => step = v.parse::<u32>().ok(),
            Some(("SLURM_PROCID", v)) => rank = v.parse::<u32>().ok(),
            Some(("SLURMD_NODENAME", v)) => other_node = v != node,
            _ => {}
        }
    }
    if job != Some(job_id) || other_node {
        return None;
    }
    Some(match step {
        Some(n) => (StepRef::Numbered(n), rank.unwrap_or(0)),
        None => (StepRef::Batch, 0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(task: u32, cpu_ms: u64, rss_kib: u64) -> TaskUsage {
        TaskUsage {
            task,
            cpu_ms,
            rss_kib,
            ..TaskUsage::default()
        }
    }

    #[test]
    fn extremes_name_their_node_and_task() {
        let nodes = vec![
            NodeUsage {
                node: "n1".into(),
                pids: vec![10, 11],
                tasks: vec![task(0, 2000, 300), task(1, 500, 900)],
            },
            NodeUsage {
                node: "n2".into(),
                pids: vec![12],
                tasks: vec![task(2, 100, 100)],
            },
        ];
        let t = StepTotals::of(&nodes);
        assert_eq!(t.tasks, 3);
        assert_eq!(
            (
                t.rss_kib.max.value,
                t.rss_kib.max.node.as_str(),
                t.rss_kib.max.task
            ),
            (900, "n1", 1)
        );
        assert_eq!(
            (
                t.cpu_ms.min.value,
                t.cpu_ms.min.node.as_str(),
                t.cpu_ms.min.task
            ),
            (100, "n2", 2)
        );
        assert_eq!(t.cpu_ms.total, 2600);
        assert_eq!(t.rss_kib.average(t.tasks), 433);
        assert_eq!(t.first_node, "n1");
        assert_eq!(StepTotals::of(&[]).tasks, 0);
    }

    #[test]
    fn proc_stat_fields() {
        // A real line of /proc/PID/stat, command name with a space and a parenthesis.
        let stat = "4242 (my (prog) x) S 4200 4242 4200 0 -1 4194304 1200 0 7 0 150 50 30 20 20 0 1 0 \
                    123456 231251968 4783 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        let io = "rchar: 61525\nwchar: 1613\nsyscr: 10\n";
        let u = process_usage(stat, Some(io), 100, 4).unwrap();
        assert_eq!(u.cpu_ms, 2500);
        assert_eq!(u.pages, 7);
        assert_eq!(u.vmem_kib, 225_832);
        assert_eq!(u.rss_kib, 4783 * 4);
        assert_eq!(u.processor, Some(1));
        assert_eq!((u.read_bytes, u.write_bytes), (61525, 1613));
        assert_eq!(process_usage("garbage", None, 100, 4), None);
    }

    #[test]
    fn environment_names_the_step() {
        let env =
            b"HOME=/root\0SLURM_JOB_ID=12\0SLURM_STEP_ID=3\0SLURM_PROCID=5\0SLURMD_NODENAME=n1\0";
        assert_eq!(process_step(env, 12, "n1"), Some((StepRef::Numbered(3), 5)));
        assert_eq!(process_step(env, 12, "n2"), None);
        assert_eq!(process_step(env, 13, "n1"), None);
        assert_eq!(
            process_step(b"SLURM_JOB_ID=12\0", 12, "n1"),
            Some((StepRef::Batch, 0))
        );
        assert_eq!(process_step(b"PATH=/bin\0", 12, "n1"), None);
    }
}
