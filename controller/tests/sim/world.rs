//! One simulated cluster run: the controller, its agents, the network between them and the users, advanced in
//! ticks of simulated time with faults injected by the seed; then a calm phase in which every job must end.

use std::collections::BTreeSet;

use spur_controller::scheduler::scenario;
use spur_controller::state::{Applied, Command, ConfigSnapshot, Effect, NodeDefinition, Settings};
use spur_core::model::job::EpochSecs;
use spur_core::model::records::ClusterConfig;
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, ControlRequest, JobSelector, NodeUpdateState};

use super::agent::{Agent, ToAgent, ToController};
use super::checks::Checker;
use super::controller::{Controller, Recovery};
use super::net::{Faults, Millis, Network, Peer};
use super::rng::Rng;
use super::workload::Client;

const TICK_MS: Millis = 100;
const HOUSEKEEPING_MS: Millis = 500;
/// The periodic pass that runs even when nothing asked for one.
const PASS_EVERY_MS: Millis = 5_000;
const EPOCH_BASE: EpochSecs = 1_700_000_000;
const NODE_TIMEOUT_SECS: u32 = 30;
/// The calm phase must settle within this much simulated time.
const SETTLE_MAX_MS: Millis = 2 * 3600 * 1000;

#[derive(Debug, Clone)]
enum Msg {
    ToAgent(ToAgent),
    ToController(ToController),
}

/// What happened in a run, for the runner's summary.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub jobs: usize,
    pub commits: u64,
    pub crashes: u64,
    pub recovered_by_full_replay: u64,
    pub recovered_from_snapshot: u64,
    pub agent_restarts: u64,
    pub node_deaths: u64,
    pub clock_jumps: u64,
    pub dropped: u64,
    pub duplicated: u64,
    pub simulated_secs: u64,
    /// Results of an earlier run of a requeued job, resent after their acknowledgement was lost, that reached
    /// the controller while a later run was on (they must be acknowledged and ignored).
    pub stale_results: u64,
}

impl Stats {
    pub fn add(&mut self, other: &Stats) {
        self.jobs += other.jobs;
        self.commits += other.commits;
        self.crashes += other.crashes;
        self.recovered_by_full_replay += other.recovered_by_full_replay;
        self.recovered_from_snapshot += other.recovered_from_snapshot;
        self.agent_restarts += other.agent_restarts;
        self.node_deaths += other.node_deaths;
        self.clock_jumps += other.clock_jumps;
        self.dropped += other.dropped;
        self.duplicated += other.duplicated;
        self.simulated_secs += other.simulated_secs;
        self.stale_results += other.stale_results;
    }
}

pub struct World {
    rng: Rng,
    now: Millis,
    net: Network<Msg>,
    faults: Faults,
    controller: Controller,
    controller_back_at: Option<Millis>,
    agents: Vec<Agent>,
    /// When a dead node comes back, and whether it rebooted (losing its spool).
    revive_at: Vec<Option<(Millis, bool)>>,
    defs: Vec<NodeDefinition>,
    client: Client,
    checker: Checker,
    drained: BTreeSet<String>,
    next_housekeeping: Millis,
    next_pass: Millis,
    stats: Stats,
    /// `SPUR_SIM_TRACE=1`: every commit on stderr, to follow a failing seed.
    trace: bool,
}

/// A command or effects in one line, job specs left out.
fn summarize(value: &impl std::fmt::Debug) -> String {
    const MARK: &str = "spec: JobSpec {";
    let text = format!("{value:?}");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        out.push_str("spec: ..");
        let mut depth = 1;
        let body = &rest[at + MARK.len()..];
        let end = body
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map_or(body.len(), |(i, _)| i + 1);
        rest = &body[end..];
    }
    out.push_str(rest);
    out.chars().take(400).collect()
}

fn epoch(ms: Millis) -> EpochSecs {
    EPOCH_BASE + i64::try_from(ms / 1000).unwrap_or(i64::MAX / 2)
}

impl World {
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let node_count = rng.between(2, 5);
        let defs: Vec<NodeDefinition> = (0..node_count)
            .map(|i| {
                let cpus = u32::try_from(rng.between(2, 8) * 2).unwrap_or(4);
                let gpus = if rng.chance(500) {
                    rng.between(1, 4)
                } else {
                    0
                };
                let mut def =
                    scenario::node(&format!("n{i}"), cpus, rng.between(2, 16) * 1024, gpus);
                // Two shards on each GPU (gres/shard): jobs of shards and whole-GPU jobs share the node.
                if gpus > 0 {
                    def.gres.push(spur_core::model::records::NodeGres {
                        name: "shard".to_string(),
                        gres_type: Some("a100".to_string()),
                        count: gpus * 2,
                        files: Vec::new(),
                    });
                }
                def
            })
            .collect();
        let names: Vec<String> = defs.iter().map(|d| d.name.clone()).collect();
        let config = ConfigSnapshot {
            cluster: ClusterConfig::default(),
            settings: Settings {
                memory_is_consumable: true,
                node_timeout_secs: NODE_TIMEOUT_SECS,
                min_job_age_secs: 120,
                kill_wait_secs: 5,
                ..Settings::default()
            },
            nodes: defs.clone(),
            partitions: vec![
                scenario::partition("main", &names, true),
                shared_partition("force", &names, "FORCE:2"),
                shared_partition("yes", &names, "YES:3"),
                shared_partition("whole", &names, "EXCLUSIVE"),
            ],
        };
        // Some seeds run on a calm network, the others on a hostile one.
        let faults = if rng.chance(200) {
            Faults::NONE
        } else {
            Faults {
                drop_per_mille: u32::try_from(rng.between(0, 100)).unwrap_or(0),
                duplicate_per_mille: u32::try_from(rng.between(0, 100)).unwrap_or(0),
                delay_max_ms: rng.between(5, 3_000),
            }
        };
        let net = Network::new(rng.fork(), faults);
        let agents = defs.iter().map(|d| Agent::new(d.name.clone())).collect();
        let mut world = World {
            rng,
            now: 0,
            net,
            faults,
            controller: Controller::new(config),
            controller_back_at: None,
            agents,
            revive_at: vec![None; defs.len()],
            defs,
            client: Client::default(),
            checker: Checker::new(),
            drained: BTreeSet::new(),
            next_housekeeping: 0,
            next_pass: 0,
            stats: Stats::default(),
            trace: std::env::var_os("SPUR_SIM_TRACE").is_some(),
        };
        world.start_controller();
        world
    }

    /// The workload and its faults for `busy_ms`, then calm until every job has ended; then the audit.
    pub fn run(mut self, busy_ms: Millis) -> Stats {
        self.run_and_audit(busy_ms);
        self.stats
    }

    /// The same run, answering the final state in the snapshot encoding.
    pub fn run_to_state(mut self, busy_ms: Millis) -> Vec<u8> {
        self.run_and_audit(busy_ms);
        super::controller::encode(&self.controller.state)
    }

    fn run_and_audit(&mut self, busy_ms: Millis) {
        // Counted in ticks: a clock jump must not cut the busy phase short.
        for _ in 0..busy_ms / TICK_MS {
            self.step(true);
        }
        self.calm_down();
        let settle_until = self.now + SETTLE_MAX_MS;
        while !self.settled() {
            assert!(
                self.now < settle_until,
                "the cluster did not settle: {}",
                self.unsettled()
            );
            self.step(false);
        }
        self.checker.audit(&self.controller.state, &self.client);
        self.stats.jobs = self.checker.jobs_seen();
        self.stats.commits = self.controller.commits;
        self.stats.dropped = self.net.dropped;
        self.stats.duplicated = self.net.duplicated;
        self.stats.simulated_secs = self.now / 1000;
    }

    fn step(&mut self, busy: bool) {
        self.deliver();
        self.tick_agents();
        if self.controller.up && self.now >= self.next_housekeeping {
            self.next_housekeeping = self.now + HOUSEKEEPING_MS;
            self.housekeeping();
        }
        self.submit_pending();
        if busy {
            self.users();
            self.inject_faults();
        }
        self.wake_up();
        self.now += TICK_MS;
    }

    /// Commits through the controller, checks the result, and sends the effects' messages.
    fn commit(&mut self, command: Command) -> Result<Applied, ApiError> {
        let summary = self.trace.then(|| summarize(&command));
        let result = self.controller.commit(command);
        if let Some(summary) = summary {
            let effects = result.as_ref().map(|a| summarize(&a.effects));
            eprintln!(
                "{:>9} commit {summary} -> {effects}",
                self.now,
                effects = match effects {
                    Ok(e) => e,
                    Err(e) => format!("{e:?}"),
                }
            );
        }
        self.checker.after_commit(&self.controller.state);
        if let Ok(applied) = &result {
            for (node, message) in self.controller.messages(&applied.effects) {
                self.send_to_agent(node, message);
            }
        }
        result
    }

    fn send_to_agent(&mut self, node: usize, message: ToAgent) {
        let message = Msg::ToAgent(message);
        if !self
            .net
            .send(self.now, Peer::Controller, Peer::Agent(node), message)
        {
            self.reset_session(node);
        }
    }

    /// The session between the controller and a node broke: what was in flight is lost, the controller forgets
    /// the session, and the agent says hello again.
    fn reset_session(&mut self, node: usize) {
        if self.trace {
            eprintln!("{:>9} session of node {node} reset", self.now);
        }
        self.net.cut(Peer::Agent(node));
        self.controller.connected.remove(&node);
        self.agents[node].disconnected();
    }

    fn start_controller(&mut self) {
        if let Err(e) = self.controller.start(self.now) {
            panic!("the configuration was refused: {e:?}");
        }
        self.checker.after_commit(&self.controller.state);
    }

    fn deliver(&mut self) {
        while let Some((from, to, message)) = self.net.next_due(self.now) {
            match (to, message, from) {
                (Peer::Controller, Msg::ToController(report), Peer::Agent(node))
                    if self.controller.up =>
                {
                    self.report(node, report);
                }
                (Peer::Agent(node), Msg::ToAgent(message), _) => {
                    if self.trace && matches!(message, ToAgent::Welcome { .. }) {
                        eprintln!(
                            "{:>9} node {node} welcomed (alive {})",
                            self.now, self.agents[node].alive
                        );
                    }
                    if let Some(agent) = self.agents.get_mut(node).filter(|a| a.alive) {
                        agent.handle(message, self.now, epoch);
                    }
                }
                _ => {}
            }
        }
    }

    /// An agent's message at the controller (`server/agent_link.rs`).
    fn report(&mut self, node: usize, report: ToController) {
        match report {
            ToController::Hello {
                running_jobs,
                running_runs,
            } => {
                self.controller.connected.insert(node);
                self.controller.seen(node, self.now);
                let mut registration = scenario::registration(&self.defs[node], epoch(self.now));
                registration.running_jobs = running_jobs;
                registration.running_runs = running_runs;
                let command = Command::RegisterNode {
                    registration: Box::new(registration),
                    now: epoch(self.now),
                };
                // The registration's own effects may have broken the session already.
                if self.commit(command).is_ok() && self.controller.connected.contains(&node) {
                    let welcome = ToAgent::Welcome {
                        incarnation: self.controller.incarnation,
                    };
                    self.send_to_agent(node, welcome);
                }
            }
            // Reports come only over a session; one from before the controller restarted died with it.
            _ if !self.controller.connected.contains(&node) => {}
            ToController::Heartbeat => self.controller.seen(node, self.now),
            ToController::Finished {
                job_id,
                code,
                signal,
                end,
                run,
            } => {
                self.controller.seen(node, self.now);
                let of_earlier_run = self.controller.state.jobs.get(&job_id).is_some_and(|j| {
                    super::checks::holds_resources(j) && run.is_some_and(|r| r < j.restarts)
                });
                self.stats.stale_results += u64::from(of_earlier_run);
                let outcome = spur_controller::state::Outcome::Exited { code, signal };
                let committed = self.commit(Command::Finished {
                    job_id,
                    outcome,
                    now: end,
                    run,
                });
                // As `serve_reports`: once the report is committed its sender may forget it; acknowledged here
                // when the state machine did not acknowledge it to the sender.
                let name = &self.defs[node].name;
                let acknowledged = committed.as_ref().is_ok_and(|applied| {
                    applied.effects.iter().any(|e| {
                        matches!(e, Effect::AckFinished { node: n, job_id: j, .. } if n == name && *j == job_id)
                    })
                });
                if committed.is_ok() && !acknowledged && self.controller.connected.contains(&node) {
                    self.send_to_agent(node, ToAgent::FinishedAck { job_id, run });
                }
            }
            ToController::EpilogFinished { job_id } => {
                self.controller.seen(node, self.now);
                let command = Command::EpilogFinished {
                    job_id,
                    node: self.defs[node].name.clone(),
                    now: epoch(self.now),
                };
                // A failed commit (the controller crashed meanwhile) loses the report, as the real link does.
                let _ = self.commit(command);
            }
        }
    }

    fn tick_agents(&mut self) {
        let (now, net) = (self.now, &mut self.net);
        let mut broken = Vec::new();
        for (i, agent) in self.agents.iter_mut().enumerate() {
            agent.tick(now, epoch, &mut |m| {
                if !net.send(now, Peer::Agent(i), Peer::Controller, Msg::ToController(m)) {
                    broken.push(i);
                }
            });
        }
        for node in broken {
            self.reset_session(node);
        }
    }

    /// `run_housekeeping` and `run_scheduler` of the runtime.
    fn housekeeping(&mut self) {
        let now = epoch(self.now);
        let expired = self.controller.expired(now);
        if !expired.is_empty() {
            let _ = self.commit(Command::TimeLimitReached {
                job_ids: expired,
                now,
            });
        }
        for name in self.controller.silent_nodes(self.now) {
            self.checker.failed_nodes.insert(name.clone());
            let _ = self.commit(Command::NodeResponding {
                name,
                responding: false,
                now,
            });
        }
        if self.controller.state.usage_accrual_due(now) {
            let _ = self.commit(Command::AccrueUsage { now });
        }
        if self.controller.purge_due(now) {
            let _ = self.commit(Command::Purge { now });
        }
        let forced = self.now >= self.next_pass;
        if forced {
            self.next_pass = self.now + PASS_EVERY_MS;
        }
        if let Some(plan) = self.controller.plan(now, forced) {
            self.checker.check_plan(&self.controller.state, &plan);
            if !plan.is_empty() {
                let starts = plan.starts.clone();
                let _ = self.commit(Command::Schedule {
                    starts: plan.starts,
                    reasons: plan.reasons,
                    now,
                    forecasts: plan.forecasts,
                    priorities: plan.priorities,
                    preemptions: plan.preemptions,
                    reason_descs: plan.reason_descs,
                    resumes: plan.resumes,
                });
                // Planned and committed on the same state, every start must take effect: a start the state
                // machine refuses would be planned again at every pass.
                self.checker.check_started(&self.controller.state, &starts);
            }
        }
    }

    /// Submissions go out (again) while the controller serves; some answers are lost, so the client retries.
    fn submit_pending(&mut self) {
        if !self.controller.up {
            return;
        }
        let due: Vec<usize> = (0..self.client.pending.len())
            .filter(|&i| self.client.pending[i].retry_at <= self.now)
            .collect();
        for i in due.into_iter().rev() {
            let request = &self.client.pending[i];
            let now = epoch(self.now);
            // As the API does: a job nothing waits ahead of is placed before its submission is committed.
            let start = spur_controller::scheduler::placed_at_submission(
                &self.controller.state,
                &request.spec,
                now,
            );
            let command =
                Command::submission(request.spec.clone(), now, Some(request.name.clone()), start);
            let result = self.commit(command);
            let answer_lost = self.rng.chance(self.faults.drop_per_mille * 2);
            if answer_lost {
                self.client.retries += 1;
                let wait = self.rng.between(500, 5_000);
                self.client.pending[i].retry_at = self.now + wait;
                continue;
            }
            let request = self.client.pending.remove(i);
            match result {
                Ok(applied) => {
                    let first = applied.job_id.unwrap_or(0);
                    let tasks = request.tasks;
                    self.client.acked.insert(request.name, (first, tasks));
                }
                Err(_) => self.client.rejected += 1,
            }
        }
    }

    /// Users submit, cancel and requeue.
    fn users(&mut self) {
        if self.rng.chance(12) {
            self.client.new_request(&mut self.rng, &self.defs, self.now);
        }
        if !self.controller.up {
            return;
        }
        if self.rng.chance(4) {
            let live =
                self.live_jobs(|s| matches!(s, JobBaseState::Pending | JobBaseState::Running));
            if let Some(&job_id) = self.rng.pick(&live) {
                let request = ControlRequest::Cancel {
                    job: JobSelector {
                        job_id,
                        array_task: None,
                    },
                };
                // Recorded before the commit, whose checks already see the jobs cancelled.
                let addressed = self.addressed(job_id);
                self.checker.cancelled.extend(addressed.iter().copied());
                if self.control(1000, request).is_err() {
                    for id in addressed {
                        self.checker.cancelled.remove(&id);
                    }
                }
            }
        }
        if self.rng.chance(4) {
            let running = self.live_jobs(|s| s == JobBaseState::Running);
            if let Some(&job_id) = self.rng.pick(&running) {
                let request = ControlRequest::Requeue {
                    job: JobSelector {
                        job_id,
                        array_task: None,
                    },
                    hold: false,
                };
                // Recorded before the commit, whose checks see finished tasks of an array go back to the queue.
                let addressed = self.addressed(job_id);
                self.checker.requeued.extend(addressed.iter().copied());
                if self.control(1000, request).is_err() {
                    for id in addressed {
                        self.checker.requeued.remove(&id);
                    }
                }
            }
        }
    }

    /// The jobs a request for `job_id` addresses: an array's id stands for all its tasks.
    fn addressed(&self, job_id: u32) -> Vec<super::checks::Ident> {
        let state = &self.controller.state;
        let selector = JobSelector {
            job_id,
            array_task: None,
        };
        state
            .select_jobs(&selector)
            .iter()
            .filter_map(|key| state.jobs.get(key))
            .map(super::checks::ident)
            .collect()
    }

    /// The ids users see: an array task that has not started is named by its array's id.
    fn live_jobs(&self, wanted: impl Fn(JobBaseState) -> bool) -> Vec<u32> {
        let mut ids: Vec<u32> = self
            .controller
            .state
            .jobs
            .values()
            .filter(|j| wanted(j.state) && !j.completing)
            .map(|j| j.shown_job_id())
            .collect();
        ids.dedup();
        ids
    }

    /// A control request; an array's request applies to the tasks it can even when others fail.
    fn control(&mut self, caller_uid: u32, request: ControlRequest) -> Result<Applied, ApiError> {
        let now = epoch(self.now);
        self.commit(Command::Control {
            caller_uid,
            request,
            now,
        })
    }

    fn inject_faults(&mut self) {
        if self.controller.up && self.rng.chance(2) {
            self.controller.crash();
            self.net.cut(Peer::Controller);
            for agent in &mut self.agents {
                agent.disconnected();
            }
            self.controller_back_at = Some(self.now + self.rng.between(100, 30_000));
            self.stats.crashes += 1;
        }
        if self.controller.up && self.rng.chance(5) {
            self.controller.take_snapshot();
        }
        let node = self.rng.between(0, self.agents.len() as u64 - 1) as usize;
        if self.agents[node].alive && self.rng.chance(3) {
            self.reset_session(node);
            self.stats.agent_restarts += 1;
        }
        if self.agents[node].alive && self.rng.chance(1) {
            self.agents[node].alive = false;
            self.net.cut(Peer::Agent(node));
            self.controller.connected.remove(&node);
            let timeout_ms = u64::from(NODE_TIMEOUT_SECS) * 1000;
            let away = self.rng.between(1_000, timeout_ms * 4);
            let reboot = self.rng.chance(500);
            self.revive_at[node] = Some((self.now + away, reboot));
            self.stats.node_deaths += 1;
        }
        if self.controller.up && self.rng.chance(2) {
            let name = self.defs[node].name.clone();
            let (state, drained) = if self.drained.contains(&name) {
                (NodeUpdateState::Resume, false)
            } else {
                (NodeUpdateState::Drain, true)
            };
            let request = ControlRequest::UpdateNode {
                nodes: vec![name.clone()],
                state: Some(state),
                reason: drained.then(|| "sim".to_string()),
                weight: None,
                features: None,
                active_features: None,
            };
            if self.control(0, request).is_ok() {
                if drained {
                    self.drained.insert(name);
                } else {
                    self.drained.remove(&name);
                }
            }
        }
        if self.rng.chance(1) {
            self.now += self.rng.between(10_000, 600_000);
            self.stats.clock_jumps += 1;
        }
    }

    /// The controller and dead nodes come back when their time is up.
    fn wake_up(&mut self) {
        if self.controller_back_at.is_some_and(|t| t <= self.now) {
            self.controller_back_at = None;
            self.recover_controller();
        }
        for node in 0..self.agents.len() {
            if let Some((_, reboot)) = self.revive_at[node].filter(|(t, _)| *t <= self.now) {
                self.revive_at[node] = None;
                self.revive(node, reboot);
            }
        }
    }

    fn recover_controller(&mut self) {
        let how = if self.rng.chance(500) {
            Recovery::FullReplay
        } else {
            Recovery::SnapshotAndTail
        };
        if self.controller.recover(how) {
            self.stats.recovered_from_snapshot += 1;
        } else {
            self.stats.recovered_by_full_replay += 1;
        }
        self.start_controller();
    }

    fn revive(&mut self, node: usize, reboot: bool) {
        let agent = &mut self.agents[node];
        agent.alive = true;
        if reboot {
            agent.wipe();
        } else {
            agent.disconnected();
        }
    }

    /// No more faults or users: the network heals, everything comes back, drained nodes resume.
    fn calm_down(&mut self) {
        self.net.faults = Faults::NONE;
        self.faults = Faults::NONE;
        if !self.controller.up {
            self.controller_back_at = None;
            self.recover_controller();
        }
        for node in 0..self.agents.len() {
            if let Some((_, reboot)) = self.revive_at[node].take() {
                self.revive(node, reboot);
            }
        }
        let drained: Vec<String> = std::mem::take(&mut self.drained).into_iter().collect();
        if !drained.is_empty() {
            let request = ControlRequest::UpdateNode {
                nodes: drained,
                state: Some(NodeUpdateState::Resume),
                reason: None,
                weight: None,
                features: None,
                active_features: None,
            };
            if let Err(e) = self.control(0, request) {
                panic!("resume refused: {e:?}");
            }
        }
    }

    fn settled(&self) -> bool {
        self.client.pending.is_empty()
            && self.net.is_idle()
            && self.agents.iter().all(Agent::is_quiet)
            && self
                .controller
                .state
                .jobs
                .values()
                .all(|j| j.is_finished() && !j.completing)
    }

    fn unsettled(&self) -> String {
        let jobs: Vec<String> = self
            .controller
            .state
            .jobs
            .values()
            .filter(|j| !j.is_finished() || j.completing)
            .map(|j| format!("{}:{:?}/{:?}", j.job_id, j.state, j.reason))
            .collect();
        let busy: Vec<String> = self
            .agents
            .iter()
            .filter(|a| !a.is_quiet())
            .map(|a| a.describe())
            .collect();
        let nodes: Vec<String> = self
            .controller
            .state
            .nodes
            .values()
            .map(|n| {
                format!(
                    "{}:{:?}{}{}",
                    n.name,
                    n.base_state,
                    if n.drain { "+drain" } else { "" },
                    if n.not_responding { "+silent" } else { "" }
                )
            })
            .collect();
        format!(
            "jobs {jobs:?}, nodes {nodes:?}, busy agents {busy:?}, pending submissions {}",
            self.client.pending.len()
        )
    }
}

/// A partition over the same nodes with this `OverSubscribe=`.
fn shared_partition(
    name: &str,
    nodes: &[String],
    oversubscribe: &str,
) -> spur_core::model::records::PartitionRecord {
    spur_core::model::records::PartitionRecord {
        oversubscribe: oversubscribe.to_string(),
        ..scenario::partition(name, nodes, false)
    }
}
