//! A simulated node agent, modelled on `agent/src/sim/node.rs`: a launched job "runs" for the time its environment
//! declares and then exits with the code it declares; results stay in the agent's spool until the controller
//! acknowledges them, and go out again after every reconnect and every `RESEND_AFTER_MS`. The spool (running jobs
//! and unacknowledged results) survives an agent restart; messages in flight do not.

use std::collections::BTreeMap;

use spur_core::model::job::{EpochSecs, JobRecord};

use super::net::Millis;

/// The job's run time in seconds (absent: it runs until the controller ends it).
pub const RUNTIME_ENV: &str = "SPUR_SIM_RUNTIME";
/// The exit code its batch script ends with.
pub const EXIT_ENV: &str = "SPUR_SIM_EXIT";

const RESEND_AFTER_MS: Millis = 3_000;
const HELLO_RETRY_MS: Millis = 2_000;
const HEARTBEAT_EVERY_MS: Millis = 5_000;
const SIGKILL: u32 = 9;
const SIGTERM: u32 = 15;

#[derive(Debug, Clone)]
pub enum ToAgent {
    /// The controller registered this session's hello.
    Welcome {
        incarnation: u64,
    },
    Launch {
        job: Box<JobRecord>,
    },
    Terminate {
        job_id: u32,
        run: Option<u32>,
    },
    FinishedAck {
        job_id: u32,
        run: Option<u32>,
    },
    /// Run slurm.conf's `Epilog` for an ended job (simulated nodes have none: they answer at once).
    RunEpilog {
        job_id: u32,
    },
}

#[derive(Debug, Clone)]
pub enum ToController {
    Hello {
        running_jobs: Vec<u32>,
        running_runs: Vec<(u32, u32)>,
    },
    Heartbeat,
    Finished {
        job_id: u32,
        code: u32,
        signal: u32,
        end: EpochSecs,
        run: Option<u32>,
    },
    EpilogFinished {
        job_id: u32,
    },
}

#[derive(Debug, Clone, Copy)]
struct Report {
    code: u32,
    signal: u32,
    end: EpochSecs,
    run: Option<u32>,
    sent_at: Option<Millis>,
}

pub struct Agent {
    pub name: String,
    /// Running jobs, when they end by themselves (with what exit code), and which run of the job each is.
    running: BTreeMap<u32, (Option<Millis>, u32, u32)>,
    unacked: BTreeMap<u32, Report>,
    /// Silent: the node is dead or cut off; it neither hears nor speaks.
    pub alive: bool,
    /// The controller incarnation whose welcome this session got (`None`: saying hello).
    welcomed: Option<u64>,
    hello_sent_at: Option<Millis>,
    heartbeat_at: Millis,
    /// Epilogs run and not yet reported; as the real agent, one not sent before the session ends is lost (the
    /// controller stops waiting for it when the node registers).
    epilogs_done: Vec<u32>,
}

impl Agent {
    pub fn new(name: String) -> Self {
        Agent {
            name,
            running: BTreeMap::new(),
            unacked: BTreeMap::new(),
            alive: true,
            welcomed: None,
            hello_sent_at: None,
            heartbeat_at: 0,
            epilogs_done: Vec::new(),
        }
    }

    /// The session ended (agent restart, controller crash, node back from the dead): say hello again, then send
    /// every unacknowledged result again.
    pub fn disconnected(&mut self) {
        self.welcomed = None;
        self.hello_sent_at = None;
        self.epilogs_done.clear();
        for report in self.unacked.values_mut() {
            report.sent_at = None;
        }
    }

    /// A reboot: the spool is gone too.
    pub fn wipe(&mut self) {
        self.running.clear();
        self.unacked.clear();
        self.disconnected();
    }

    pub fn is_quiet(&self) -> bool {
        self.running.is_empty() && self.unacked.is_empty()
    }

    pub fn describe(&self) -> String {
        format!(
            "{} (alive {}, welcomed {:?}): running {:?}, unacked {:?}",
            self.name,
            self.alive,
            self.welcomed,
            self.running_jobs(),
            self.unacked.keys().collect::<Vec<_>>()
        )
    }

    pub fn running_jobs(&self) -> Vec<u32> {
        self.running.keys().copied().collect()
    }

    pub fn handle(&mut self, message: ToAgent, now: Millis, epoch: impl Fn(Millis) -> EpochSecs) {
        match message {
            ToAgent::Welcome { incarnation } => self.welcomed = Some(incarnation),
            ToAgent::Launch { job } => self.launch(&job, now),
            ToAgent::Terminate { job_id, run } => {
                if let Some(run) = run {
                    self.retire_older_run(job_id, run);
                }
                let held = self.running.get(&job_id).map(|r| r.2);
                if held.is_some_and(|held| run.is_some_and(|run| held > run)) {
                    // A terminate of a run since replaced here.
                } else if held.is_some_and(|held| run.is_some_and(|run| held < run)) {
                    // As the real agent: an earlier run is stopped, and the named run, which never started here, is
                    // owed a result.
                    self.running.remove(&job_id);
                    self.record(job_id, 0, SIGKILL, epoch(now), run);
                } else if let Some((_, _, running)) = self.running.remove(&job_id) {
                    self.record(job_id, 0, SIGTERM, epoch(now), Some(running));
                } else if !self.unacked.contains_key(&job_id) {
                    // Never launched here (as the real agent answers): the controller waits for a result.
                    self.record(job_id, 0, SIGKILL, epoch(now), run);
                }
            }
            ToAgent::FinishedAck { job_id, run } => {
                // As the real agent: an acknowledgement of another run leaves this run's result alone.
                let other_run = self
                    .unacked
                    .get(&job_id)
                    .is_some_and(|r| run.is_some() && r.run.is_some() && r.run != run);
                if !other_run {
                    self.unacked.remove(&job_id);
                }
            }
            ToAgent::RunEpilog { job_id } => self.epilogs_done.push(job_id),
        }
    }

    /// The controller speaks of a later run: the result of an earlier one was committed (its acknowledgement
    /// was lost) and goes.
    fn retire_older_run(&mut self, job_id: u32, run: u32) {
        if self
            .unacked
            .get(&job_id)
            .is_some_and(|r| r.run.is_some_and(|held| held < run))
        {
            self.unacked.remove(&job_id);
        }
    }

    fn launch(&mut self, job: &JobRecord, now: Millis) {
        self.retire_older_run(job.job_id, job.restarts);
        // As the real agent (once the earlier run's supervisor is gone): an earlier run still running here is
        // obsolete and makes way for the new one.
        if self
            .running
            .get(&job.job_id)
            .is_some_and(|r| r.2 < job.restarts)
        {
            self.running.remove(&job.job_id);
        }
        // A launch resent after a reconnect must not start the job twice.
        if self.running.contains_key(&job.job_id) || self.unacked.contains_key(&job.job_id) {
            return;
        }
        let env = |key: &str| {
            job.spec
                .environment
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.parse::<u64>().ok())
        };
        let ends_at = env(RUNTIME_ENV).map(|secs| now + secs * 1000);
        let code = env(EXIT_ENV)
            .and_then(|c| u32::try_from(c).ok())
            .unwrap_or(0);
        self.running
            .insert(job.job_id, (ends_at, code, job.restarts));
    }

    fn record(&mut self, job_id: u32, code: u32, signal: u32, end: EpochSecs, run: Option<u32>) {
        self.unacked.insert(
            job_id,
            Report {
                code,
                signal,
                end,
                run,
                sent_at: None,
            },
        );
    }

    /// Time passes: jobs end, and whatever is due goes out.
    pub fn tick(
        &mut self,
        now: Millis,
        epoch: impl Fn(Millis) -> EpochSecs,
        send: &mut impl FnMut(ToController),
    ) {
        if !self.alive {
            return;
        }
        let ended: Vec<(u32, Millis, u32, u32)> = self
            .running
            .iter()
            .filter_map(|(&id, &(ends_at, code, run))| {
                ends_at.filter(|&t| t <= now).map(|t| (id, t, code, run))
            })
            .collect();
        for (job_id, at, code, run) in ended {
            self.running.remove(&job_id);
            self.record(job_id, code, 0, epoch(at), Some(run));
        }
        if self.welcomed.is_none() {
            if self.hello_sent_at.is_none_or(|t| now - t >= HELLO_RETRY_MS) {
                self.hello_sent_at = Some(now);
                send(ToController::Hello {
                    running_jobs: self.running_jobs(),
                    running_runs: self.running.iter().map(|(&id, r)| (id, r.2)).collect(),
                });
            }
            return;
        }
        for (&job_id, report) in self.unacked.iter_mut() {
            if report.sent_at.is_none_or(|t| now - t >= RESEND_AFTER_MS) {
                report.sent_at = Some(now);
                send(ToController::Finished {
                    job_id,
                    code: report.code,
                    signal: report.signal,
                    end: report.end,
                    run: report.run,
                });
            }
        }
        for job_id in self.epilogs_done.drain(..) {
            send(ToController::EpilogFinished { job_id });
        }
        if now >= self.heartbeat_at {
            self.heartbeat_at = now + HEARTBEAT_EVERY_MS;
            send(ToController::Heartbeat);
        }
    }
}
