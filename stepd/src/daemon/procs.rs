//! Finding, signalling and reaping the job's processes. The job is the script's process group (the script
//! is its session leader) plus any orphan that escaped it: stepd is a child subreaper, so such orphans
//! become its own children and are found in `/proc/self/task/<tid>/children`.

use std::fs;

use nix::errno::Errno;
use nix::unistd::Pid;

/// Reaps one exited child without blocking; `(pid, raw wait status)`.
pub(crate) fn reap_any() -> Option<(Pid, i32)> {
    let mut status = 0;
    // SAFETY: waitpid only writes the status integer we pass.
    let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
    (pid > 0).then(|| (Pid::from_raw(pid), status))
}

/// Sends `signo` to one process.
pub(crate) fn signal_pid(pid: Pid, signo: i32) -> Result<(), Errno> {
    // SAFETY: kill has no memory-safety preconditions. Raw numbers allow real-time signals.
    Errno::result(unsafe { libc::kill(pid.as_raw(), signo) }).map(drop)
}

/// Sends `signo` to the job's process group and to every child of stepd outside it. Succeeds when at least
/// one process got the signal, or when there was none left to signal.
pub(crate) fn signal_all(pgid: Pid, signo: i32) -> Result<(), Errno> {
    // SAFETY: as in signal_pid; a negative pid addresses the process group.
    let group = Errno::result(unsafe { libc::kill(-pgid.as_raw(), signo) }).map(drop);
    let mut escaped = Ok(());
    for child in children() {
        if nix::unistd::getpgid(Some(child)).ok() != Some(pgid) {
            escaped = escaped.and(signal_pid(child, signo));
        }
    }
    match group {
        Err(Errno::ESRCH) => escaped.or_else(|e| if e == Errno::ESRCH { Ok(()) } else { Err(e) }),
        other => other,
    }
}

/// Sends `signo` to the children of `parent` (a step supervisor's tasks), not to their own children.
pub fn signal_children(parent: u32, signo: i32) -> Result<(), Errno> {
    let Ok(threads) = fs::read_dir(format!("/proc/{parent}/task")) else {
        return Err(Errno::ESRCH);
    };
    let mut children: Vec<u32> = threads
        .filter_map(|t| fs::read_to_string(t.ok()?.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect();
    children.sort_unstable();
    children.dedup();
    for pid in children {
        match signal_pid(Pid::from_raw(pid as i32), signo) {
            Ok(()) | Err(Errno::ESRCH) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Sends `signo` to every descendant of the processes `roots` (not to the roots themselves): the tasks an
/// `srun` started, with their own children, as Slurm signals every process of a step. Processes that exit
/// meanwhile are skipped. The caller vouches for the roots (the agent's own step supervisors); a root named
/// by anyone else goes through [`signal_job_step_tasks`].
pub fn signal_descendants(roots: &[u32], signo: i32) -> Result<(), Errno> {
    let table = ProcessTable::read()?;
    signal_each(&table.descendants_of(roots), signo)
}

/// [`signal_descendants`] for roots named by a request (the job's `srun` processes, as the job's owner or the
/// controller says): every root must be a process of the job, i.e. a descendant of `supervisor`, which as a
/// child subreaper inherits every orphan of the job. Anything else is refused with `EPERM` and nothing is
/// signalled, so a job's owner cannot aim the root-run supervisor at another process on the node. A root that
/// no longer exists (the step just ended) is skipped, as an exited task is.
pub(crate) fn signal_job_step_tasks(
    supervisor: u32,
    roots: &[u32],
    signo: i32,
) -> Result<(), Errno> {
    let table = ProcessTable::read()?;
    let live: Vec<u32> = roots
        .iter()
        .copied()
        .filter(|root| table.parents.contains_key(root))
        .collect();
    if !live
        .iter()
        .all(|&root| table.descends_from(root, supervisor))
    {
        return Err(Errno::EPERM);
    }
    signal_each(&table.descendants_of(&live), signo)
}

fn signal_each(targets: &[u32], signo: i32) -> Result<(), Errno> {
    for &pid in targets {
        let Ok(raw) = i32::try_from(pid) else {
            continue;
        };
        match signal_pid(Pid::from_raw(raw), signo) {
            Ok(()) | Err(Errno::ESRCH) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Every process's parent, read from `/proc` at one moment.
struct ProcessTable {
    parents: std::collections::HashMap<u32, u32>,
}

impl ProcessTable {
    fn read() -> Result<ProcessTable, Errno> {
        let entries = fs::read_dir("/proc").map_err(|_| Errno::ENOENT)?;
        let parents = entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter_map(|pid| Some((pid, parent_of(pid)?)))
            .collect();
        Ok(ProcessTable { parents })
    }

    /// True when `ancestor` is among `pid`'s ancestors (not `pid` itself). Parent chains end at pid 0 and are
    /// at most as long as the table, so a chain that loops (a snapshot torn by exits and pid reuse) still ends.
    fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        let mut current = pid;
        for _ in 0..=self.parents.len() {
            match self.parents.get(&current) {
                Some(&parent) if parent == ancestor => return true,
                Some(&parent) if parent != 0 && parent != current => current = parent,
                _ => return false,
            }
        }
        false
    }

    /// The descendants of `roots`, roots excluded, parents before children.
    fn descendants_of(&self, roots: &[u32]) -> Vec<u32> {
        let mut children: std::collections::HashMap<u32, Vec<u32>> = Default::default();
        for (&pid, &ppid) in &self.parents {
            children.entry(ppid).or_default().push(pid);
        }
        let mut seen: std::collections::HashSet<u32> = roots.iter().copied().collect();
        let mut queue: Vec<u32> = roots.to_vec();
        let mut targets = Vec::new();
        while let Some(parent) = queue.pop() {
            for &child in children.get(&parent).map(Vec::as_slice).unwrap_or_default() {
                if seen.insert(child) {
                    targets.push(child);
                    queue.push(child);
                }
            }
        }
        targets
    }
}

/// The parent pid from `/proc/PID/stat`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    crate::files::proc_stat_field(&stat, 4)?.parse().ok()
}

/// True while any process of the job exists (including stepd children that escaped the group).
pub(crate) fn anything_left(pgid: Pid) -> bool {
    // SAFETY: signal 0 only checks for existence.
    let group = unsafe { libc::kill(-pgid.as_raw(), 0) } == 0 || Errno::last() == Errno::EPERM;
    group || !children().is_empty()
}

/// stepd's direct children, per the kernel. Empty when the kernel does not offer the list.
pub(crate) fn children() -> Vec<Pid> {
    let me = std::process::id();
    fs::read_to_string(format!("/proc/{me}/task/{me}/children"))
        .map(|text| parse_children(&text))
        .unwrap_or_default()
}

fn parse_children(text: &str) -> Vec<Pid> {
    text.split_whitespace()
        .filter_map(|w| w.parse().ok())
        .map(Pid::from_raw)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_list_parsing() {
        assert_eq!(
            parse_children("12 34 \n"),
            vec![Pid::from_raw(12), Pid::from_raw(34)]
        );
        assert!(parse_children("").is_empty());
    }

    #[test]
    fn signalling_a_missing_group_is_not_an_error() {
        // Pid 2^22-ish is above the default pid_max, so no such group exists.
        let ghost = Pid::from_raw(4_194_000);
        assert_eq!(signal_all(ghost, 0), Ok(()));
        assert_eq!(signal_pid(ghost, 0), Err(Errno::ESRCH));
    }

    /// A stand-in for srun with a task that has a child of its own: both descendants die, the root lives.
    #[test]
    fn descendants_are_signalled_and_the_root_is_not() {
        use std::process::{Command, Stdio};
        use std::time::{Duration, Instant};
        let mut root = Command::new("sh")
            .args(["-c", "sh -c 'sleep 30 & wait' & wait"])
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn sh");
        let root_pid = root.id();
        let deadline = Instant::now() + Duration::from_secs(10);
        let sleeper = loop {
            let sleeping = fs::read_dir("/proc")
                .expect("proc")
                .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
                .find(|&pid| {
                    fs::read_to_string(format!("/proc/{pid}/cmdline"))
                        .is_ok_and(|c| c.starts_with("sleep\0"))
                        && parent_of(pid).and_then(parent_of) == Some(root_pid)
                });
            if let Some(pid) = sleeping {
                break pid;
            }
            assert!(Instant::now() < deadline, "the task's child never started");
            std::thread::sleep(Duration::from_millis(20));
        };
        let signalled = Instant::now();
        signal_descendants(&[root_pid], libc::SIGTERM).expect("signal");
        // The root's `wait` returns once its task (the inner sh) died; the root itself was not signalled, so it
        // exits on its own with wait's status 0.
        let status = root.wait().expect("wait");
        assert_eq!(status.code(), Some(0), "{status:?}");
        assert!(
            signalled.elapsed() < Duration::from_secs(20),
            "the tasks were not signalled: the root waited for sleep 30"
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while fs::metadata(format!("/proc/{sleeper}")).is_ok()
            && fs::read_to_string(format!("/proc/{sleeper}/stat"))
                .is_ok_and(|s| !s.contains(") Z "))
        {
            assert!(Instant::now() < deadline, "the task's child survived");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
