//! How `srun` reports the end of its tasks, as Slurm 22.05 does: one `srun: error:` line per group of tasks that
//! ended together the same abnormal way (`srun: error: vm: tasks 0-1: Exited with exit code 1`), and srun's own
//! exit code. Pure: the launcher passes in the wait statuses it collected.

use crate::grammar::values::bitmap::{bit_fmt, Bitmap};

/// How one task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskEnd {
    Exited(i32),
    Signaled {
        signal: i32,
        core_dumped: bool,
    },
    /// The step's memory cgroup killed processes while the task ran (slurmstepd reports it so, whatever the
    /// task's own status).
    OutOfMemory,
}

/// Slurm's `SIG_OOM`: the signal half of an exit code for a step or job ended by its memory cgroup.
pub const OUT_OF_MEMORY_SIGNAL: u32 = 125;

impl TaskEnd {
    /// Decodes a `wait(2)` status (the Linux layout: exit code in bits 8-15, signal in bits 0-6, core flag 0x80).
    pub fn from_wait_status(status: i32) -> TaskEnd {
        let signal = status & 0x7f;
        if signal == 0 {
            TaskEnd::Exited((status >> 8) & 0xff)
        } else {
            TaskEnd::Signaled {
                signal,
                core_dumped: status & 0x80 != 0,
            }
        }
    }

    /// The exit code a shell would report: the code, or 128 plus the signal.
    pub fn shell_code(self) -> i32 {
        match self {
            TaskEnd::Exited(code) => code,
            TaskEnd::Signaled { signal, .. } => 128 + signal,
            // srun exits 1 for a task that ran out of memory.
            TaskEnd::OutOfMemory => 1,
        }
    }

    /// The exit code and signal recorded for the step or job this task decided (`ExitCode=code:signal`).
    pub fn exit_and_signal(self) -> (u32, u32) {
        match self {
            TaskEnd::Exited(code) => (u32::try_from(code).unwrap_or(1), 0),
            TaskEnd::Signaled { signal, .. } => (0, u32::try_from(signal).unwrap_or(0)),
            TaskEnd::OutOfMemory => (0, OUT_OF_MEMORY_SIGNAL),
        }
    }

    fn is_success(self) -> bool {
        self == TaskEnd::Exited(0)
    }

    /// The part after the task list: `Exited with exit code 3`, `Killed`, `Segmentation fault (core dumped)`.
    pub fn describe(self) -> String {
        match self {
            TaskEnd::Exited(code) => format!("Exited with exit code {code}"),
            TaskEnd::Signaled {
                signal,
                core_dumped,
            } => {
                let core = if core_dumped { " (core dumped)" } else { "" };
                format!("{}{core}", signal_description(signal))
            }
            TaskEnd::OutOfMemory => "Out Of Memory".to_string(),
        }
    }
}

/// Tasks that ended together (reported by one wait), grouped by how they ended, in order of their lowest rank.
pub fn group_ends(ends: &[(u32, TaskEnd)]) -> Vec<(Vec<u32>, TaskEnd)> {
    let mut groups: Vec<(Vec<u32>, TaskEnd)> = Vec::new();
    for &(rank, end) in ends {
        match groups.iter_mut().find(|(_, e)| *e == end) {
            Some((ranks, _)) => ranks.push(rank),
            None => groups.push((vec![rank], end)),
        }
    }
    for (ranks, _) in &mut groups {
        ranks.sort_unstable();
    }
    groups.sort_by_key(|(ranks, _)| ranks.first().copied());
    groups
}

/// srun's error line for a group of tasks, or `None` when they succeeded.
pub fn report_line(node: &str, ranks: &[u32], end: TaskEnd) -> Option<String> {
    if end.is_success() || ranks.is_empty() {
        return None;
    }
    let word = if ranks.len() == 1 { "task" } else { "tasks" };
    Some(format!(
        "srun: error: {node}: {word} {}: {}",
        rank_list(ranks),
        end.describe()
    ))
}

/// `0-3,5`: ranks as Slurm's bitmap formatting writes them.
pub fn rank_list(ranks: &[u32]) -> String {
    let size = ranks.iter().max().map_or(0, |&m| m as usize + 1);
    match Bitmap::from_bits(size, ranks.iter().map(|&r| r as usize)) {
        Some(map) => bit_fmt(&map),
        None => String::new(),
    }
}

/// srun's exit code: the highest of the tasks' shell codes (a signal counts as 128 plus its number).
pub fn srun_exit_code(ends: &[TaskEnd]) -> i32 {
    ends.iter().map(|e| e.shell_code()).max().unwrap_or(0)
}

/// Whether srun ends with `srun: Force Terminated StepId=...`: Slurm prints it when a task was killed by SIGKILL
/// or SIGTERM, unless the whole job was ended from outside (scancel, time limit).
pub fn force_terminated(ends: &[TaskEnd], job_ended_outside: bool) -> bool {
    !job_ended_outside
        && ends
            .iter()
            .any(|e| matches!(e, TaskEnd::Signaled { signal: 9 | 15, .. }))
}

/// glibc's `strsignal()` texts for Linux signal numbers, which Slurm prints.
pub fn signal_description(signal: i32) -> String {
    let text = match signal {
        1 => "Hangup",
        2 => "Interrupt",
        3 => "Quit",
        4 => "Illegal instruction",
        5 => "Trace/breakpoint trap",
        6 => "Aborted",
        7 => "Bus error",
        8 => "Floating point exception",
        9 => "Killed",
        10 => "User defined signal 1",
        11 => "Segmentation fault",
        12 => "User defined signal 2",
        13 => "Broken pipe",
        14 => "Alarm clock",
        15 => "Terminated",
        16 => "Stack fault",
        17 => "Child exited",
        18 => "Continued",
        19 => "Stopped (signal)",
        20 => "Stopped",
        21 => "Stopped (tty input)",
        22 => "Stopped (tty output)",
        23 => "Urgent I/O condition",
        24 => "CPU time limit exceeded",
        25 => "File size limit exceeded",
        26 => "Virtual timer expired",
        27 => "Profiling timer expired",
        28 => "Window changed",
        29 => "I/O possible",
        30 => "Power failure",
        31 => "Bad system call",
        34..=64 => return format!("Real-time signal {}", signal - 34),
        _ => return format!("Unknown signal {signal}"),
    };
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_statuses_decode() {
        assert_eq!(TaskEnd::from_wait_status(0), TaskEnd::Exited(0));
        assert_eq!(TaskEnd::from_wait_status(5 << 8), TaskEnd::Exited(5));
        assert_eq!(
            TaskEnd::from_wait_status(9),
            TaskEnd::Signaled {
                signal: 9,
                core_dumped: false
            }
        );
        assert_eq!(
            TaskEnd::from_wait_status(11 | 0x80),
            TaskEnd::Signaled {
                signal: 11,
                core_dumped: true
            }
        );
    }

    /// Lines from the reference captures (26, 27, 29) and runs of Slurm 22.05.8.
    #[test]
    fn lines_match_slurm() {
        let killed = TaskEnd::Signaled {
            signal: 9,
            core_dumped: false,
        };
        assert_eq!(
            report_line("vm", &[0], TaskEnd::Exited(1)).as_deref(),
            Some("srun: error: vm: task 0: Exited with exit code 1")
        );
        assert_eq!(
            report_line("vm", &[0, 1], TaskEnd::Exited(1)).as_deref(),
            Some("srun: error: vm: tasks 0-1: Exited with exit code 1")
        );
        assert_eq!(
            report_line("vm", &[0], killed).as_deref(),
            Some("srun: error: vm: task 0: Killed")
        );
        let segv = TaskEnd::Signaled {
            signal: 11,
            core_dumped: false,
        };
        assert_eq!(
            report_line("vm", &[0, 1], segv).as_deref(),
            Some("srun: error: vm: tasks 0-1: Segmentation fault")
        );
        let core = TaskEnd::Signaled {
            signal: 11,
            core_dumped: true,
        };
        assert!(report_line("n1", &[3], core)
            .is_some_and(|l| l.ends_with("task 3: Segmentation fault (core dumped)")));
        assert_eq!(report_line("vm", &[0, 1], TaskEnd::Exited(0)), None);
    }

    #[test]
    fn grouping_and_ranks() {
        let ends = [
            (2, TaskEnd::Exited(1)),
            (0, TaskEnd::Exited(1)),
            (1, TaskEnd::Exited(0)),
            (3, TaskEnd::Exited(1)),
        ];
        let groups = group_ends(&ends);
        assert_eq!(
            groups,
            vec![
                (vec![0, 2, 3], TaskEnd::Exited(1)),
                (vec![1], TaskEnd::Exited(0))
            ]
        );
        assert_eq!(rank_list(&[0, 2, 3]), "0,2-3");
        assert_eq!(rank_list(&[5]), "5");
    }

    #[test]
    fn exit_codes_take_the_highest() {
        let term = TaskEnd::Signaled {
            signal: 15,
            core_dumped: false,
        };
        assert_eq!(srun_exit_code(&[TaskEnd::Exited(5), TaskEnd::Exited(6)]), 6);
        assert_eq!(srun_exit_code(&[term, TaskEnd::Exited(2)]), 143);
        assert_eq!(srun_exit_code(&[]), 0);
        assert!(force_terminated(&[term, TaskEnd::Exited(2)], false));
        assert!(!force_terminated(&[term], true));
        let int = TaskEnd::Signaled {
            signal: 2,
            core_dumped: false,
        };
        assert!(!force_terminated(&[int, TaskEnd::Exited(5)], false));
    }

    #[test]
    fn signal_texts() {
        assert_eq!(signal_description(15), "Terminated");
        assert_eq!(signal_description(35), "Real-time signal 1");
        assert_eq!(signal_description(99), "Unknown signal 99");
    }
}
