//! Slurm's `jobacct_gather` on a node: every process of the job's owner whose environment names the job (and this
//! node) is counted to its step and task, as `jobacct_gather/linux` counts a task's processes. A process that
//! cleared its environment is not seen; the batch step is everything of the job without a step id (the script,
//! its commands, srun itself). The agent measures running steps with [`measure`] for `sstat`; a supervisor samples
//! its own step with a [`Gather`] every `JobAcctGatherFrequency` and reports the result with the step's end.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use std::time::{Duration, Instant};

use spur_core::model::step_acct::{AcctGather, Peaks, StepAcct};
use spur_core::model::step_usage::{process_step, process_usage, NodeUsage, StepRef, TaskUsage};

/// The usage of `steps` of job `job_id` (owned by `uid`) on node `node`, read from `proc_root` (`/proc`).
/// Steps with no process here are left out.
pub fn measure(
    proc_root: &Path,
    node: &str,
    job_id: u32,
    uid: u32,
    steps: &[StepRef],
) -> Vec<(StepRef, NodeUsage)> {
    let ticks = clock_ticks();
    let page_kib = page_kib();
    let mut found: BTreeMap<StepRef, (Vec<u32>, BTreeMap<u32, TaskUsage>)> = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(proc_root) else {
        return Vec::new();
    };
    for entry in entries.filter_map(Result::ok) {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        let dir = entry.path();
        // Only the job owner's processes: anyone can put SLURM_JOB_ID into an environment.
        if std::fs::metadata(&dir).map(|m| m.uid()).ok() != Some(uid) {
            continue;
        }
        let Ok(environ) = std::fs::read(dir.join("environ")) else {
            continue;
        };
        let Some((step, task)) = process_step(&environ, job_id, node) else {
            continue;
        };
        if !steps.contains(&step) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else {
            continue;
        };
        let io = std::fs::read_to_string(dir.join("io")).ok();
        let Some(process) = process_usage(&stat, io.as_deref(), ticks, page_kib) else {
            continue;
        };
        let freq = process.processor.map_or(0, cpu_frequency_khz);
        let (pids, tasks) = found.entry(step).or_default();
        pids.push(pid);
        tasks
            .entry(task)
            .or_insert_with(|| TaskUsage {
                task,
                ..TaskUsage::default()
            })
            .add(&process, freq);
    }
    found
        .into_iter()
        .map(|(step, (pids, tasks))| {
            (
                step,
                NodeUsage {
                    node: node.to_string(),
                    pids,
                    tasks: tasks.into_values().collect(),
                },
            )
        })
        .collect()
}

/// Whether any process of job `job_id` runs on node `node` (whoever owns it).
pub fn job_has_processes(proc_root: &Path, node: &str, job_id: u32) -> bool {
    let Ok(entries) = std::fs::read_dir(proc_root) else {
        return false;
    };
    entries.filter_map(Result::ok).any(|entry| {
        entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.bytes().all(|b| b.is_ascii_digit()))
            && std::fs::read(entry.path().join("environ"))
                .ok()
                .and_then(|environ| process_step(&environ, job_id, node))
                .is_some()
    })
}

/// One step's sampling on this node, for its supervisor: samples when asked ([`Gather::due`] says when), keeps
/// each task's peaks, and turns them into the step's record at its end.
#[derive(Debug)]
pub struct Gather {
    proc_root: std::path::PathBuf,
    node: String,
    job_id: u32,
    uid: u32,
    step: StepRef,
    every: Option<Duration>,
    next: Option<Instant>,
    peaks: Peaks,
    /// The supervisor's children's usage before the step's tasks started (a prolog run by the supervisor is
    /// not the step's).
    before: ChildUsage,
}

impl Gather {
    /// Starts gathering step `step` of job `job_id` (owned by `uid`) on `node` with slurm.conf's settings. The
    /// first sample is due one interval after the start: slurmstepd's sample at a task's start sees it before its
    /// program runs, so in Slurm a step shorter than the interval keeps no figures but its CPU times, and so here.
    pub fn new(settings: AcctGather, node: &str, job_id: u32, uid: u32, step: StepRef) -> Gather {
        let every = (settings.frequency_secs > 0)
            .then(|| Duration::from_secs(u64::from(settings.frequency_secs)));
        Gather {
            proc_root: "/proc".into(),
            node: node.to_string(),
            job_id,
            uid,
            step,
            every,
            next: every.map(|every| Instant::now() + every),
            peaks: Peaks::default(),
            before: ChildUsage::now(),
        }
    }

    /// When the next sample is due (`None`: no more until the end).
    pub fn next_at(&self) -> Option<Instant> {
        self.next
    }

    /// Samples when one is due at `now`.
    pub fn due(&mut self, now: Instant) {
        if self.next.is_some_and(|at| at <= now) {
            self.sample();
            self.next = self.every.map(|every| now + every);
        }
    }

    /// Samples the step's tasks now.
    pub fn sample(&mut self) {
        let found = measure(
            &self.proc_root,
            &self.node,
            self.job_id,
            self.uid,
            &[self.step],
        );
        for (_, usage) in found {
            self.peaks.sample(&usage.tasks);
        }
    }

    /// A numbered step's task `task` was reaped with `cpu_ms` of CPU time and a peak of `max_rss_kib`: a task
    /// some sample saw gets both (sampling misses what happens between ticks); one no sample saw keeps no figures.
    pub fn task_reaped(&mut self, task: u32, cpu_ms: u64, max_rss_kib: u64) {
        if self.peaks.has(task) {
            self.peaks.reaped(task, cpu_ms, max_rss_kib);
        }
    }

    /// This node's tasks as sampled so far.
    pub fn node_usage(&self) -> spur_core::model::step_usage::NodeUsage {
        self.peaks.node(&self.node)
    }

    /// The step's record once every task was reaped: `tasks` are the ranks that ran here. The CPU times are what
    /// the kernel counted for the supervisor's reaped children since the step began (its tasks and whatever they
    /// started and waited for); a step of one task (the batch step) gets them all as that task's.
    pub fn finish(mut self, tasks: &[u32]) -> StepAcct {
        let after = ChildUsage::now();
        let user = after.user_us.saturating_sub(self.before.user_us);
        let sys = after.sys_us.saturating_sub(self.before.sys_us);
        // A task no sample saw keeps no figures, as in Slurm (sacct then shows only the CPU times).
        if let [only] = tasks {
            if self.peaks.has(*only) {
                self.peaks.reaped(*only, user.saturating_add(sys) / 1000, 0);
            }
        }
        let mut acct = StepAcct::of(&[self.peaks.node(&self.node)], user, sys);
        // The largest process's own peak, which sampling can miss between ticks: the controller raises the peak
        // to it unless it belongs to an srun step the script ran (`StepAcct::raise_batch_peak`).
        acct.reaped_max_rss_kib = after.max_rss_kib;
        acct
    }
}

/// What this process's reaped children used, from `getrusage(RUSAGE_CHILDREN)`.
#[derive(Debug, Clone, Copy, Default)]
struct ChildUsage {
    user_us: u64,
    sys_us: u64,
    max_rss_kib: u64,
}

impl ChildUsage {
    fn now() -> ChildUsage {
        let Ok(usage) =
            nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        else {
            return ChildUsage::default();
        };
        let micros = |t: nix::sys::time::TimeVal| {
            u64::try_from(t.tv_sec())
                .unwrap_or(0)
                .saturating_mul(1_000_000)
                .saturating_add(u64::try_from(t.tv_usec()).unwrap_or(0))
        };
        ChildUsage {
            user_us: micros(usage.user_time()),
            sys_us: micros(usage.system_time()),
            max_rss_kib: u64::try_from(usage.max_rss()).unwrap_or(0),
        }
    }
}

fn clock_ticks() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .and_then(|t| u64::try_from(t).ok())
        .unwrap_or(100)
}

fn page_kib() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|t| u64::try_from(t).ok())
        .map_or(4, |bytes| bytes / 1024)
}

/// The CPU's current frequency (cpufreq's `scaling_cur_freq`, else `/proc/cpuinfo`'s MHz), in kHz; 0 unknown.
fn cpu_frequency_khz(cpu: u32) -> u64 {
    let scaling = format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_cur_freq");
    if let Some(khz) = std::fs::read_to_string(scaling)
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok())
    {
        return khz;
    }
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return 0;
    };
    let mut current = None;
    for line in info.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key.trim() {
            "processor" => current = value.trim().parse::<u32>().ok(),
            "cpu MHz" if current == Some(cpu) => {
                return value
                    .trim()
                    .parse::<f64>()
                    .map_or(0, |mhz| (mhz * 1000.0) as u64);
            }
            _ => {}
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn counts_a_process_of_the_job_to_its_step_and_task() {
        let uid = nix::unistd::getuid().as_raw();
        let node = nix::unistd::gethostname()
            .map(|h| h.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut child = Command::new("sleep")
            .arg("30")
            .env("SLURM_JOB_ID", "987654")
            .env("SLURM_STEP_ID", "3")
            .env("SLURM_PROCID", "2")
            .env("SLURMD_NODENAME", &node)
            .spawn()
            .unwrap();
        let steps = [StepRef::Numbered(3), StepRef::Batch];
        // Until the child has exec'd, /proc shows the environment it inherited from this test.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut found = measure(Path::new("/proc"), &node, 987_654, uid, &steps);
        while found.is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            found = measure(Path::new("/proc"), &node, 987_654, uid, &steps);
        }
        let other_node = measure(Path::new("/proc"), "elsewhere", 987_654, uid, &steps);
        let other_uid = measure(Path::new("/proc"), &node, 987_654, uid + 1, &steps);
        assert!(job_has_processes(Path::new("/proc"), &node, 987_654));
        assert!(!job_has_processes(Path::new("/proc"), "elsewhere", 987_654));
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        let (step, usage) = &found[0];
        assert_eq!(*step, StepRef::Numbered(3));
        assert_eq!(usage.pids, vec![child.id()]);
        assert_eq!(usage.tasks.len(), 1);
        assert_eq!(usage.tasks[0].task, 2);
        assert!(usage.tasks[0].rss_kib > 0 && usage.tasks[0].vmem_kib > 0);
        assert!(other_node.is_empty());
        assert!(other_uid.is_empty());
    }
}
