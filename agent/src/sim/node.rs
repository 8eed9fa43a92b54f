//! One simulated node: controller messages and the passing of time go in, reports for the controller come out.
//! What each message does is decided by the agent's own state machine (crate::machine, the one spurd runs); this
//! file only performs its effects on simulated jobs. No process is ever started; a job "runs" until its declared
//! run time has passed (or until the controller ends it), then reports exit code 0. The clock is injected
//! (milliseconds since the epoch), so tests drive it directly and the session layer only performs what comes out.

use std::collections::BTreeMap;
use std::time::Duration;

use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::wire::agent_proto::{AgentToController, ControllerToAgent, JobOutcome};
use spur_core::wire::api::SignalScope;

use crate::machine::{Effect, NodeError, NodeMachine, NodeView};

/// The job environment variable that declares how long a job runs on a simulated node, in seconds (fractions
/// allowed, e.g. `0.5`).
pub const RUNTIME_ENV: &str = "SPUR_SIM_RUNTIME";

/// An unacknowledged result is sent again after this long (as the real agent does).
pub const RESULT_RESEND_AFTER: Duration = Duration::from_secs(3);

/// The longest run time a job may declare (a year): keeps deadline arithmetic far from overflow.
const RUNTIME_MAX: Duration = Duration::from_secs(366 * 24 * 3600);

/// Milliseconds since the Unix epoch: the simulated node's only notion of time.
pub type Millis = u64;

const SIGKILL: i32 = 9;
const SIGTERM: i32 = 15;
const SIGCONT: i32 = 18;

#[derive(Debug, Clone, PartialEq)]
enum Clock {
    /// Ends at this instant (`None`: runs until the controller ends it, i.e. until its time limit).
    Running { ends_at: Option<Millis> },
    /// Stopped (SIGSTOP, `scontrol suspend`): the run time left when it stopped.
    Stopped { left_ms: Option<u64> },
}

#[derive(Debug, Clone, PartialEq)]
struct SimJob {
    clock: Clock,
    cpus: u32,
    /// Which run of the job this is (its `restarts` at launch), reported with its result.
    run: u32,
}

#[derive(Debug, Clone, PartialEq)]
struct Unacked {
    outcome: JobOutcome,
    /// When it was last sent (`None`: not yet, or a new session since).
    sent_at: Option<Millis>,
}

/// A simulated node's jobs and the results the controller has not acknowledged yet.
#[derive(Debug, Clone, Default)]
pub struct SimNode {
    /// Run time of a job that declares none (`None`: until the controller ends it at its time limit).
    default_runtime: Option<Duration>,
    jobs: BTreeMap<u32, SimJob>,
    unacked: BTreeMap<u32, Unacked>,
    /// Answers to the controller's questions, sent with the next poll.
    answers: Vec<AgentToController>,
    /// What every message does here: the agent's own decisions, shared with spurd.
    machine: NodeMachine,
}

impl SimNode {
    pub fn new(default_runtime: Option<Duration>) -> Self {
        SimNode {
            default_runtime,
            ..Default::default()
        }
    }

    /// Jobs the controller should consider running here (sent in the Hello of every session).
    pub fn running_jobs(&self) -> Vec<u32> {
        self.jobs.keys().copied().collect()
    }

    /// Which run of each running job runs here (sent in the Hello with [`SimNode::running_jobs`]).
    pub fn running_runs(&self) -> Vec<(u32, u32)> {
        self.jobs.iter().map(|(&id, j)| (id, j.run)).collect()
    }

    /// CPUs held by running jobs: the load the node reports in its heartbeats.
    pub fn busy_cpus(&self) -> u32 {
        self.jobs.values().map(|j| j.cpus).sum()
    }

    /// A new session begins: every unacknowledged result goes out again at the next poll.
    pub fn reconnected(&mut self) {
        for unacked in self.unacked.values_mut() {
            unacked.sent_at = None;
        }
    }

    /// The agent's own state machine, which decides what every message does here as it does in spurd.
    pub fn machine(&self) -> &NodeMachine {
        &self.machine
    }

    /// Carries out one controller message: the agent's [`NodeMachine`] decides, and the effects it returns are
    /// performed on the simulated jobs. `Err` ends the session (the controller refused this node).
    pub fn handle(&mut self, message: ControllerToAgent, now: Millis) -> Result<(), NodeError> {
        for effect in self.machine.handle(message, &*self)? {
            self.perform(effect, now);
        }
        Ok(())
    }

    /// One effect of the machine, as a simulated node carries it out: nothing is executed.
    fn perform(&mut self, effect: Effect, now: Millis) {
        match effect {
            Effect::Registered { .. } => {}
            Effect::StartJob { job, .. } => self.launch(&job, now),
            // No supervisor to wait for: the earlier run's simulated process ends at once (in launch).
            Effect::StartAfterEarlierRun { job, .. } => self.launch(&job, now),
            Effect::Signal {
                job_id,
                signal,
                scope,
                ..
            } => self.signal(job_id, signal, scope, now),
            // A simulated job has no steps, so a signal for their tasks reaches nothing (as on a real node).
            Effect::SignalSteps { .. } => {}
            // Simulated launches never wait (see StartAfterEarlierRun), so there is none to cancel.
            Effect::CancelWaitingRun { .. } => {}
            Effect::RetireOlderRun { job_id, run } => self.retire_older_run(job_id, run),
            Effect::EndAfterEarlierRun { job_id, run, .. } => {
                // The earlier run stops at once; the named run never started here and is owed a result.
                self.jobs.remove(&job_id);
                self.record(job_id, 0, SIGKILL, now, Some(run));
            }
            Effect::ReportNeverLaunched { job_id, run } => {
                self.record(job_id, 0, SIGKILL, now, run)
            }
            // A result already waiting for its acknowledgement stays as it is.
            Effect::Terminate { job_id, .. } => {
                if self.jobs.contains_key(&job_id) {
                    self.finish(job_id, 0, SIGTERM, now);
                }
            }
            Effect::Forget { job_id, run } => {
                // An acknowledgement of an earlier run leaves a newer run's result alone.
                let other_run = self.unacked.get(&job_id).is_some_and(|u| {
                    run.is_some() && u.outcome.run.is_some() && u.outcome.run != run
                });
                if !other_run {
                    self.unacked.remove(&job_id);
                }
            }
            // Simulated jobs have no processes: sstat finds none here at once rather than waiting for a node
            // that never answers.
            Effect::MeasureSteps { request_id, .. } => {
                self.answers.push(AgentToController::StepUsage {
                    request_id,
                    usage: Vec::new(),
                });
            }
            // Simulated nodes have no prolog to run: it succeeds at once.
            Effect::RunProlog { job, .. } => {
                self.answers.push(AgentToController::PrologFinished {
                    job_id: job.job_id,
                    run: job.restarts,
                    failed: false,
                });
            }
            // Nor an epilog: the node is free again at once.
            Effect::RunEpilog { job, .. } => {
                self.answers
                    .push(AgentToController::EpilogFinished { job_id: job.job_id });
            }
            // Simulated nodes run no tasks (the step's srun sees no supervisor call and gives up on the step)
            // and have no stderr to write to.
            Effect::StartStep { .. }
            | Effect::Notify { .. }
            | Effect::AttachStep(_)
            | Effect::FileBcast(_) => {}
        }
    }

    /// As the real agent: the result of an earlier run than the one the controller speaks of was committed (its
    /// acknowledgement was lost), so it goes.
    fn retire_older_run(&mut self, job_id: u32, run: u32) {
        if self
            .unacked
            .get(&job_id)
            .is_some_and(|u| u.outcome.run.is_some_and(|held| held < run))
        {
            self.unacked.remove(&job_id);
        }
    }

    fn launch(&mut self, job: &JobRecord, now: Millis) {
        self.retire_older_run(job.job_id, job.restarts);
        // An earlier run still running here is obsolete and makes way for the new one (its result would be stale),
        // as the real agent does once the earlier run's supervisor is gone.
        if self
            .jobs
            .get(&job.job_id)
            .is_some_and(|j| j.run < job.restarts)
        {
            self.jobs.remove(&job.job_id);
        }
        // A launch resent after a reconnect must not start the job twice.
        if self.jobs.contains_key(&job.job_id) || self.unacked.contains_key(&job.job_id) {
            return;
        }
        let ends_at = declared_runtime(job, self.default_runtime).map(|d| now + millis(d));
        let cpus = job.alloc.as_ref().map_or(1, |a| a.cpus);
        self.jobs.insert(
            job.job_id,
            SimJob {
                clock: Clock::Running { ends_at },
                cpus,
                run: job.restarts,
            },
        );
    }

    fn signal(&mut self, job_id: u32, signal: i32, scope: SignalScope, now: Millis) {
        // A simulated job has no steps, so a signal for their tasks reaches nothing (as on a real node).
        if scope == SignalScope::Steps {
            return;
        }
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return;
        };
        match SignalEffect::of(signal) {
            SignalEffect::None => {}
            SignalEffect::Stop => {
                if let Clock::Running { ends_at } = job.clock {
                    job.clock = Clock::Stopped {
                        left_ms: ends_at.map(|t| t.saturating_sub(now)),
                    };
                }
            }
            SignalEffect::Continue => {
                if let Clock::Stopped { left_ms } = job.clock {
                    job.clock = Clock::Running {
                        ends_at: left_ms.map(|left| now + left),
                    };
                }
            }
            SignalEffect::Kill => self.finish(job_id, 0, signal, now),
        }
    }

    /// Ends the jobs whose run time is over and returns the reports due now: new results, and results not
    /// acknowledged within [`RESULT_RESEND_AFTER`].
    pub fn poll(&mut self, now: Millis) -> Vec<AgentToController> {
        let over: Vec<u32> = self
            .jobs
            .iter()
            .filter(|(_, j)| matches!(j.clock, Clock::Running { ends_at: Some(t) } if t <= now))
            .map(|(&id, _)| id)
            .collect();
        for job_id in over {
            self.finish(job_id, 0, 0, now);
        }
        let resend_ms = millis(RESULT_RESEND_AFTER);
        let mut reports = std::mem::take(&mut self.answers);
        for unacked in self.unacked.values_mut() {
            if unacked.sent_at.is_none_or(|t| now >= t + resend_ms) {
                unacked.sent_at = Some(now);
                reports.push(AgentToController::Finished(unacked.outcome.clone()));
            }
        }
        reports
    }

    /// When [`SimNode::poll`] next has something to do (`None`: only a message can change anything).
    pub fn next_due(&self) -> Option<Millis> {
        let ends = self.jobs.values().filter_map(|j| match j.clock {
            Clock::Running { ends_at } => ends_at,
            Clock::Stopped { .. } => None,
        });
        let resends = self
            .unacked
            .values()
            .map(|u| u.sent_at.map_or(0, |t| t + millis(RESULT_RESEND_AFTER)));
        ends.chain(resends).min()
    }

    fn finish(&mut self, job_id: u32, exit_code: u32, signal: i32, now: Millis) {
        let run = self.jobs.remove(&job_id).map(|j| j.run);
        self.record(job_id, exit_code, signal, now, run);
    }

    fn record(&mut self, job_id: u32, exit_code: u32, signal: i32, now: Millis, run: Option<u32>) {
        let outcome = JobOutcome {
            job_id,
            exit_code: Some(exit_code),
            signal: u32::try_from(signal).unwrap_or(0),
            end_time: epoch_secs(now),
            message: None,
            out_of_memory: false,
            prolog_failed: false,
            epilog_failed: false,
            run,
            usage: None,
        };
        self.unacked.insert(
            job_id,
            Unacked {
                outcome,
                sent_at: None,
            },
        );
    }
}

/// What the machine sees of a simulated node: its simulated jobs and unacknowledged results, as spurd's spool.
impl NodeView for SimNode {
    fn run_of(&self, job_id: u32) -> Option<u32> {
        match self.jobs.get(&job_id) {
            Some(job) => Some(job.run),
            None => self.unacked.get(&job_id).and_then(|u| u.outcome.run),
        }
    }

    fn holds(&self, job_id: u32) -> bool {
        self.jobs.contains_key(&job_id) || self.unacked.contains_key(&job_id)
    }

    fn alive(&self, job_id: u32) -> bool {
        self.jobs.contains_key(&job_id)
    }

    fn waiting_run(&self, _job_id: u32) -> Option<u32> {
        None
    }
}

/// What a signal does to a simulated job: what its default action would do to a real batch script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SignalEffect {
    None,
    Stop,
    Continue,
    Kill,
}

impl SignalEffect {
    fn of(signal: i32) -> SignalEffect {
        use nix::sys::signal::Signal;
        if signal == SIGCONT {
            return SignalEffect::Continue;
        }
        match Signal::try_from(signal) {
            Ok(Signal::SIGSTOP | Signal::SIGTSTP | Signal::SIGTTIN | Signal::SIGTTOU) => {
                SignalEffect::Stop
            }
            Ok(Signal::SIGCHLD | Signal::SIGURG | Signal::SIGWINCH) => SignalEffect::None,
            Ok(_) => SignalEffect::Kill,
            // 0 only probes; real-time and unknown numbers are ignored rather than guessed at.
            Err(_) => SignalEffect::None,
        }
    }
}

/// How long `job` runs: its `SPUR_SIM_RUNTIME` (seconds), else the node's default, else until its time limit
/// (`None`: the controller ends it). An unreadable value counts as not declared.
pub fn declared_runtime(job: &JobRecord, default: Option<Duration>) -> Option<Duration> {
    job.spec
        .environment
        .iter()
        .rev()
        .find(|(k, _)| k == RUNTIME_ENV)
        .and_then(|(_, v)| parse_runtime(v))
        .or(default)
}

/// Seconds as a non-negative decimal (`30`, `0.25`), at most a year.
pub fn parse_runtime(text: &str) -> Option<Duration> {
    let secs: f64 = text.trim().parse().ok()?;
    if !secs.is_finite() || secs < 0.0 {
        return None;
    }
    Some(Duration::from_secs_f64(secs.min(RUNTIME_MAX.as_secs_f64())))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn epoch_secs(now: Millis) -> EpochSecs {
    i64::try_from(now / 1000).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::wire::agent_proto::{LaunchContext, TerminateReason};

    const T0: Millis = 1_800_000_000_000;

    fn job(id: u32, runtime: Option<&str>) -> Box<JobRecord> {
        let mut job = JobRecord::pending(id, Default::default(), "sim".to_string(), 0, 0);
        if let Some(r) = runtime {
            job.spec
                .environment
                .push((RUNTIME_ENV.to_string(), r.to_string()));
        }
        Box::new(job)
    }

    fn launch(node: &mut SimNode, id: u32, runtime: Option<&str>, now: Millis) {
        let message = ControllerToAgent::Launch {
            job: job(id, runtime),
            context: LaunchContext::default(),
        };
        node.handle(message, now).unwrap();
    }

    fn finished(reports: &[AgentToController]) -> Vec<(u32, Option<u32>, u32)> {
        reports
            .iter()
            .filter_map(|r| match r {
                AgentToController::Finished(o) => Some((o.job_id, o.exit_code, o.signal)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn runtimes_parse_as_seconds() {
        assert_eq!(parse_runtime("30"), Some(Duration::from_secs(30)));
        assert_eq!(parse_runtime(" 0.25 "), Some(Duration::from_millis(250)));
        assert_eq!(parse_runtime("0"), Some(Duration::ZERO));
        assert_eq!(parse_runtime("-1"), None);
        assert_eq!(parse_runtime("1:00"), None);
        assert_eq!(parse_runtime("NaN"), None);
        assert_eq!(parse_runtime("1e30"), Some(RUNTIME_MAX));
    }

    #[test]
    fn the_job_declaration_wins_over_the_default() {
        let default = Some(Duration::from_secs(7));
        assert_eq!(
            declared_runtime(&job(1, Some("2")), default),
            Some(Duration::from_secs(2))
        );
        assert_eq!(declared_runtime(&job(1, None), default), default);
        assert_eq!(declared_runtime(&job(1, Some("soon")), default), default);
        assert_eq!(declared_runtime(&job(1, None), None), None);
    }

    #[test]
    fn a_job_runs_for_its_declared_time_then_reports_success_until_acknowledged() {
        let mut node = SimNode::new(None);
        launch(&mut node, 5, Some("2"), T0);
        assert_eq!(node.running_jobs(), vec![5]);
        assert_eq!(node.next_due(), Some(T0 + 2000));
        assert!(finished(&node.poll(T0 + 1999)).is_empty());
        assert_eq!(finished(&node.poll(T0 + 2000)), vec![(5, Some(0), 0)]);
        assert!(node.running_jobs().is_empty());
        // Not acknowledged: sent again after the resend delay, not before.
        assert!(node.poll(T0 + 2001).is_empty());
        assert_eq!(node.next_due(), Some(T0 + 5000));
        assert_eq!(finished(&node.poll(T0 + 5000)), vec![(5, Some(0), 0)]);
        node.handle(
            ControllerToAgent::FinishedAck {
                job_id: 5,
                run: None,
            },
            T0 + 5001,
        )
        .unwrap();
        assert!(node.poll(T0 + 60_000).is_empty());
        assert_eq!(node.next_due(), None);
    }

    #[test]
    fn a_requeued_run_replaces_the_unacknowledged_result_of_the_previous_one() {
        let mut node = SimNode::new(None);
        launch(&mut node, 5, Some("1"), T0);
        assert_eq!(finished(&node.poll(T0 + 1000)), vec![(5, Some(0), 0)]);
        // The acknowledgement was lost; the controller requeued the job and starts it here again.
        let mut second = job(5, Some("1"));
        second.restarts = 1;
        let message = ControllerToAgent::Launch {
            job: second,
            context: LaunchContext::default(),
        };
        node.handle(message, T0 + 1100).unwrap();
        assert_eq!(node.running_jobs(), vec![5]);
        assert!(finished(&node.poll(T0 + 1200)).is_empty());
        let reports = node.poll(T0 + 2100);
        let runs: Vec<_> = reports
            .iter()
            .filter_map(|r| match r {
                AgentToController::Finished(o) => Some(o.run),
                _ => None,
            })
            .collect();
        assert_eq!(runs, vec![Some(1)]);
        // A late acknowledgement of the first run keeps the second's result.
        node.handle(
            ControllerToAgent::FinishedAck {
                job_id: 5,
                run: Some(0),
            },
            T0 + 2200,
        )
        .unwrap();
        assert_eq!(finished(&node.poll(T0 + 6000)), vec![(5, Some(0), 0)]);
        node.handle(
            ControllerToAgent::FinishedAck {
                job_id: 5,
                run: Some(1),
            },
            T0 + 6100,
        )
        .unwrap();
        assert!(node.poll(T0 + 60_000).is_empty());
    }

    #[test]
    fn a_resent_launch_does_not_restart_the_job() {
        let mut node = SimNode::new(None);
        launch(&mut node, 5, Some("2"), T0);
        launch(&mut node, 5, Some("2"), T0 + 1500);
        assert_eq!(node.next_due(), Some(T0 + 2000));
        node.poll(T0 + 2000);
        launch(&mut node, 5, Some("2"), T0 + 2100);
        assert!(node.running_jobs().is_empty());
    }

    #[test]
    fn without_a_declaration_a_job_runs_until_the_controller_ends_it() {
        let mut node = SimNode::new(None);
        launch(&mut node, 8, None, T0);
        assert_eq!(node.next_due(), None);
        assert!(node.poll(T0 + 86_400_000).is_empty());
        let terminate = ControllerToAgent::Terminate {
            job_id: 8,
            reason: TerminateReason::TimeLimit,
            at: 0,
            kill_wait_secs: 30,
            run: None,
        };
        node.handle(terminate, T0 + 86_400_001).unwrap();
        assert_eq!(
            finished(&node.poll(T0 + 86_400_001)),
            vec![(8, Some(0), 15)]
        );
    }

    #[test]
    fn terminating_an_unknown_job_still_answers() {
        let mut node = SimNode::new(None);
        let terminate = ControllerToAgent::Terminate {
            job_id: 3,
            reason: TerminateReason::Cancelled,
            at: 0,
            kill_wait_secs: 30,
            run: None,
        };
        node.handle(terminate, T0).unwrap();
        assert_eq!(finished(&node.poll(T0)), vec![(3, Some(0), 9)]);
    }

    fn signal(node: &mut SimNode, id: u32, signal: i32, scope: SignalScope, now: Millis) {
        let message = ControllerToAgent::Signal {
            job_id: id,
            signal,
            scope,
            step_pids: Vec::new(),
            step_ids: Vec::new(),
        };
        node.handle(message, now).unwrap();
    }

    #[test]
    fn signals_act_as_their_default_action_would() {
        let mut node = SimNode::new(Some(Duration::from_secs(10)));
        launch(&mut node, 1, None, T0);
        launch(&mut node, 2, None, T0);
        launch(&mut node, 3, None, T0);
        // Steps only: a simulated job has none.
        signal(&mut node, 1, 10, SignalScope::Steps, T0);
        // Ignored by default, and the probe.
        signal(&mut node, 1, 17, SignalScope::All, T0);
        signal(&mut node, 1, 0, SignalScope::All, T0);
        // Fatal by default.
        signal(&mut node, 2, 10, SignalScope::BatchShell, T0 + 100);
        assert_eq!(node.running_jobs(), vec![1, 3]);
        assert_eq!(finished(&node.poll(T0 + 100)), vec![(2, Some(0), 10)]);
        node.handle(
            ControllerToAgent::FinishedAck {
                job_id: 2,
                run: None,
            },
            T0 + 200,
        )
        .unwrap();
        // Stopped for 5 s: the run time left waits.
        signal(&mut node, 3, 19, SignalScope::All, T0 + 4000);
        signal(&mut node, 3, 18, SignalScope::All, T0 + 9000);
        assert_eq!(finished(&node.poll(T0 + 10_000)), vec![(1, Some(0), 0)]);
        assert!(node.running_jobs().contains(&3));
        node.handle(
            ControllerToAgent::FinishedAck {
                job_id: 1,
                run: None,
            },
            T0 + 10_001,
        )
        .unwrap();
        assert!(node.poll(T0 + 14_999).is_empty());
        assert_eq!(finished(&node.poll(T0 + 15_000)), vec![(3, Some(0), 0)]);
    }

    #[test]
    fn a_new_session_resends_every_unacknowledged_result_and_a_rejection_ends_it() {
        let mut node = SimNode::new(Some(Duration::ZERO));
        launch(&mut node, 1, None, T0);
        assert_eq!(node.poll(T0).len(), 1);
        assert!(node.poll(T0 + 10).is_empty());
        node.reconnected();
        assert_eq!(node.poll(T0 + 20).len(), 1);
        let refused = node.handle(
            ControllerToAgent::Rejected {
                message: "unknown node".into(),
            },
            T0,
        );
        assert_eq!(refused, Err(NodeError::Rejected("unknown node".into())));
    }

    #[test]
    fn a_measurement_is_answered_at_once_with_nothing_measured() {
        let mut node = SimNode::new(None);
        let ask = ControllerToAgent::MeasureSteps {
            request_id: 9,
            job_id: 1,
            uid: 0,
            steps: vec![spur_core::model::step_usage::StepRef::Batch],
        };
        node.handle(ask, T0).unwrap();
        assert_eq!(
            node.poll(T0),
            vec![AgentToController::StepUsage {
                request_id: 9,
                usage: Vec::new()
            }]
        );
        assert!(node.poll(T0 + 1).is_empty());
    }

    #[test]
    fn busy_cpus_follow_the_allocations() {
        let mut node = SimNode::new(None);
        let mut big = job(4, None);
        big.alloc = Some(spur_core::model::job::Allocation {
            cpus: 6,
            ..Default::default()
        });
        node.handle(
            ControllerToAgent::Launch {
                job: big,
                context: LaunchContext::default(),
            },
            T0,
        )
        .unwrap();
        launch(&mut node, 5, None, T0);
        assert_eq!(node.busy_cpus(), 7);
    }
}
