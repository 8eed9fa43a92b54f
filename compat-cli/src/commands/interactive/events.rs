//! One queue for everything srun and salloc wait on: signals (taken by a thread with `sigwait`, so no handler runs
//! at an arbitrary point), the end of task processes, and the allocation ending under them (scancel, time limit).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::{SigSet, SigmaskHow, Signal};
use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use spur_core::model::job::JobRecord;
use spur_core::model::step_exit::TaskEnd;

use crate::client::Client;

/// How often a running srun or salloc asks whether its allocation still exists.
pub const JOB_POLL: Duration = Duration::from_secs(1);

/// Signals srun and salloc act on; SIGTTOU and SIGTTIN are only kept from stopping salloc when it hands the
/// terminal to its command.
const WATCHED: [Signal; 9] = [
    Signal::SIGINT,
    Signal::SIGTERM,
    Signal::SIGHUP,
    Signal::SIGQUIT,
    Signal::SIGUSR1,
    Signal::SIGUSR2,
    Signal::SIGALRM,
    Signal::SIGTTOU,
    Signal::SIGTTIN,
];

#[derive(Debug)]
pub enum Event {
    Signal(Signal),
    TaskExited {
        pid: i32,
        end: TaskEnd,
    },
    /// The allocation is no longer running: its record, or `None` when the controller no longer knows it.
    JobEnded(Option<Box<JobRecord>>),
    /// `scancel JOB.STEP` cancelled the step srun is running.
    StepCancelled,
    /// The controller ended the step for passing its own time limit.
    StepTimedOut,
    /// An `scontrol notify` message for the allocation's holder.
    Notice(String),
    /// A task on another node ended, as its node's step supervisor reported.
    RankExited {
        rank: u32,
        end: TaskEnd,
    },
    /// The connection to a node's step supervisor closed (by index in the step's nodes); `finished` when it
    /// said every task there had ended.
    NodeClosed {
        node: usize,
        finished: bool,
    },
}

pub struct Events {
    tx: Sender<Event>,
    rx: Receiver<Event>,
}

impl Events {
    /// Blocks the watched signals in the calling thread (and so in every thread started later) and starts the
    /// thread that receives them. Call it before any other thread exists.
    pub fn start() -> Result<Events, nix::Error> {
        let mut set = SigSet::empty();
        for signal in WATCHED {
            set.add(signal);
        }
        nix::sys::signal::pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None)?;
        let (tx, rx) = channel();
        let signals = tx.clone();
        std::thread::spawn(move || loop {
            match set.wait() {
                Ok(Signal::SIGTTOU | Signal::SIGTTIN) => {}
                Ok(signal) => {
                    if signals.send(Event::Signal(signal)).is_err() {
                        return;
                    }
                }
                Err(_) => return,
            }
        });
        Ok(Events { tx, rx })
    }

    pub fn sender(&self) -> Sender<Event> {
        self.tx.clone()
    }

    /// The next event, or `None` after `timeout`.
    pub fn next(&self, timeout: Duration) -> Option<Event> {
        self.rx.recv_timeout(timeout).ok()
    }
}

/// Reports when child `pid` ends, without reaping it: until [`reap`], the zombie keeps its PID (and so its process
/// group id) from being reused, so signalling what the task left behind stays safe.
pub fn spawn_exit_watch(tx: Sender<Event>, pid: i32) {
    std::thread::spawn(move || loop {
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT;
        let end = match waitid(Id::Pid(Pid::from_raw(pid)), flags) {
            Ok(WaitStatus::Exited(_, code)) => TaskEnd::Exited(code),
            Ok(WaitStatus::Signaled(_, signal, core_dumped)) => TaskEnd::Signaled {
                signal: signal as i32,
                core_dumped,
            },
            Err(nix::errno::Errno::EINTR) | Ok(_) => continue,
            Err(_) => return,
        };
        let _ = tx.send(Event::TaskExited { pid, end });
        return;
    });
}

/// Collects an ended child reported by [`spawn_exit_watch`], with what the kernel counted for it (CPU time and
/// peak memory, its waited-for descendants included) for the step's usage.
pub fn reap(pid: i32) -> Option<spur_stepd::step_gather::TaskRusage> {
    spur_stepd::step_gather::wait4(pid, false).map(|(_, usage)| usage)
}

/// Watches the allocation until `stop` is set, reporting once when it stops running; with `notices` (the client
/// that holds the allocation) also each `scontrol notify` message not reported yet.
pub fn spawn_job_watch(
    tx: Sender<Event>,
    job_id: u32,
    step_id: Option<u32>,
    notices: bool,
    stop: Arc<AtomicBool>,
) {
    std::thread::spawn(move || {
        let Ok(client) = Client::from_environment() else {
            return;
        };
        let mut notices_seen = 0;
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(JOB_POLL);
            let only = spur_core::wire::api::JobListing::job(job_id);
            let Ok(spur_core::wire::api::JobList { jobs, .. }) = client.job_list(only) else {
                // A controller that does not answer has not ended the job; ask again later.
                continue;
            };
            let job = jobs.into_iter().find(|j| j.job_id == job_id);
            if let Some(j) = job.as_ref().filter(|_| notices) {
                let seen = notices_seen;
                for (number, text) in j.notices.iter().filter(|(n, _)| *n > seen) {
                    notices_seen = *number;
                    let _ = tx.send(Event::Notice(text.clone()));
                }
            }
            let running = job.as_ref().is_some_and(|j| {
                j.state == spur_core::model::states::JobBaseState::Running && !j.completing
            });
            if !running {
                let _ = tx.send(Event::JobEnded(job.map(Box::new)));
                return;
            }
            let step_cancelled = job.as_ref().is_some_and(|j| {
                j.steps.iter().any(|s| {
                    Some(s.step_id) == step_id
                        && s.state == spur_core::model::states::JobBaseState::Cancelled
                })
            });
            if step_cancelled {
                let _ = tx.send(Event::StepCancelled);
                return;
            }
            let step_timed_out = job.as_ref().is_some_and(|j| {
                j.steps.iter().any(|s| {
                    Some(s.step_id) == step_id
                        && s.state == spur_core::model::states::JobBaseState::Timeout
                })
            });
            if step_timed_out {
                let _ = tx.send(Event::StepTimedOut);
                return;
            }
        }
    });
}
