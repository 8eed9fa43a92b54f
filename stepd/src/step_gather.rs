//! `jobacct_gather` for a numbered (srun) step on one node: whoever runs the node's tasks (a `spurstepd --step`
//! supervisor, or srun for the tasks it runs itself) samples them every `JobAcctGatherFrequency` on a thread of its
//! own, reaps each task with `wait4` to get the CPU time and peak memory the kernel counted for it and its waited-for
//! descendants, and at the end turns both into the node's [`NodeAcct`], as slurmstepd does for its tasks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use spur_core::model::step_acct::{AcctGather, NodeAcct};
use spur_core::model::step_usage::StepRef;

use crate::gather::Gather;

/// How often the sampling thread looks whether it was told to stop.
const STOP_POLL: Duration = Duration::from_millis(100);

/// What the kernel counted for one reaped task (`wait4`'s `rusage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskRusage {
    pub user_us: u64,
    pub sys_us: u64,
    /// The largest resident size of the task's process or of any descendant it waited for, in KiB.
    pub max_rss_kib: u64,
}

/// Waits for child `pid` (blocking unless `nohang`), returning its raw wait status and rusage; `None` when no such
/// child ended (with `nohang`) or it cannot be waited for.
pub fn wait4(pid: i32, nohang: bool) -> Option<(i32, TaskRusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data the kernel fills; an all-zero value is a valid one to pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let flags = if nohang { libc::WNOHANG } else { 0 };
    loop {
        // SAFETY: both pointers are to live locals of the right types for the call's duration.
        let got = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if got == pid {
            return Some((status, rusage_of(&usage)));
        }
        if got < 0 && nix::errno::Errno::last() == nix::errno::Errno::EINTR {
            continue;
        }
        return None;
    }
}

/// Waits for any child: its pid, raw wait status and rusage; `None` when there are none left.
pub fn wait4_any() -> Option<(i32, i32, TaskRusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: as in `wait4`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: as in `wait4`.
        let got = unsafe { libc::wait4(-1, &mut status, 0, &mut usage) };
        if got > 0 {
            return Some((got, status, rusage_of(&usage)));
        }
        if got < 0 && nix::errno::Errno::last() == nix::errno::Errno::EINTR {
            continue;
        }
        return None;
    }
}

fn rusage_of(usage: &libc::rusage) -> TaskRusage {
    let micros = |t: libc::timeval| {
        u64::try_from(t.tv_sec)
            .unwrap_or(0)
            .saturating_mul(1_000_000)
            .saturating_add(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    TaskRusage {
        user_us: micros(usage.ru_utime),
        sys_us: micros(usage.ru_stime),
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
    }
}

/// A step's sampling on this node while its tasks run.
pub struct StepSampler {
    gather: Arc<Mutex<Gather>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    reaped: Vec<(u32, TaskRusage)>,
}

impl StepSampler {
    /// Starts sampling step `step_id` of job `job_id` (owned by `uid`) on `node`, the first sample one interval
    /// from now (as [`Gather::new`]).
    pub fn start(
        settings: AcctGather,
        node: &str,
        job_id: u32,
        uid: u32,
        step_id: u32,
    ) -> StepSampler {
        let gather = Arc::new(Mutex::new(Gather::new(
            settings,
            node,
            job_id,
            uid,
            StepRef::Numbered(step_id),
        )));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (gather, stop) = (gather.clone(), stop.clone());
            std::thread::Builder::new()
                .name("acct-gather".into())
                .spawn(move || sample_until(&gather, &stop))
                .ok()
        };
        StepSampler {
            gather,
            stop,
            thread,
            reaped: Vec::new(),
        }
    }

    /// Keeps what the kernel counted for task `rank`, once reaped.
    pub fn reaped(&mut self, rank: u32, usage: TaskRusage) {
        self.reaped.push((rank, usage));
    }

    /// Stops sampling and makes the node's report: each task's peaks (a task no sample saw keeps none but is
    /// still counted in the CPU times, as in Slurm), raised to its reaped CPU time and peak memory.
    pub fn finish(mut self) -> NodeAcct {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let (user, sys) = self.reaped.iter().fold((0u64, 0u64), |(u, s), (_, r)| {
            (u.saturating_add(r.user_us), s.saturating_add(r.sys_us))
        });
        let usage = match self.gather.lock() {
            Ok(mut gather) => {
                for (rank, r) in &self.reaped {
                    gather.task_reaped(
                        *rank,
                        r.user_us.saturating_add(r.sys_us) / 1000,
                        r.max_rss_kib,
                    );
                }
                gather.node_usage()
            }
            Err(_) => Default::default(),
        };
        NodeAcct {
            usage,
            user_cpu_us: user,
            sys_cpu_us: sys,
            reaped_max_rss_kib: self
                .reaped
                .iter()
                .map(|(_, r)| r.max_rss_kib)
                .max()
                .unwrap_or(0),
        }
    }
}

impl Drop for StepSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn sample_until(gather: &Mutex<Gather>, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        let next = gather.lock().ok().and_then(|g| g.next_at());
        let Some(next) = next else {
            // No periodic samples (`JobAcctGatherFrequency=0`): only the end counts.
            return;
        };
        let now = Instant::now();
        if now < next {
            std::thread::sleep(next.saturating_duration_since(now).min(STOP_POLL));
            continue;
        }
        if let Ok(mut gather) = gather.lock() {
            gather.due(Instant::now());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    // The child is reaped by `wait4`, the function under test, which clippy does not know of.
    #[allow(clippy::zombie_processes)]
    fn a_task_is_sampled_and_reaped_with_its_cpu_time() {
        let uid = nix::unistd::getuid().as_raw();
        let node = "gathernode";
        let settings = AcctGather {
            frequency_secs: 1,
            cgroup: false,
        };
        let mut sampler = StepSampler::start(settings, node, 876_543, uid, 4);
        // A task that burns 1.5 s of CPU (however busy the machine) and holds 30 MB meanwhile.
        let child = Command::new("/usr/bin/python3")
            .args([
                "-c",
                "import time\nb = b'x' * (30 << 20)\nwhile time.process_time() < 1.5: pass",
            ])
            .env("SLURM_JOB_ID", "876543")
            .env("SLURM_STEP_ID", "4")
            .env("SLURM_PROCID", "1")
            .env("SLURMD_NODENAME", node)
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let (status, usage) = wait4(pid, false).expect("reaped");
        assert_eq!(status, 0);
        assert!(usage.user_us + usage.sys_us >= 1_000_000, "{usage:?}");
        assert!(usage.max_rss_kib >= 30 * 1024, "{usage:?}");
        sampler.reaped(1, usage);
        let report = sampler.finish();
        assert_eq!(report.usage.node, node);
        assert_eq!(report.user_cpu_us, usage.user_us);
        let task = report.usage.tasks.first().expect("a sample saw the task");
        assert_eq!(task.task, 1);
        assert!(
            task.rss_kib >= 30 * 1024 && task.vmem_kib >= task.rss_kib,
            "{task:?}"
        );
        assert!(task.cpu_ms >= 1000, "{task:?}");
        assert_eq!(wait4(pid, true), None, "reaped once");
    }
}
