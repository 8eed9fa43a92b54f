//! The thin layer around the pure parts: commits commands through the log (forwarding them to the leader when
//! this controller follows), performs the effects they return, and runs the scheduling and housekeeping loops,
//! which do work only while this controller leads.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Mutex, Notify};

use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::model::states::JobBaseState;
use spur_core::wire::agent_proto::{
    ArraySummary, ControllerToAgent, LaunchContext, ARRAY_IDS_SENT_MAX,
};
use spur_core::wire::api::{ApiError, SlurmErrno};

use crate::app::ApplyResponse;
use crate::raft::{PeerError, PeerTransport, ReplicatedState};
use crate::scheduler;
use crate::state::{Applied, ClusterState, Command, Effect};

mod attach;
#[cfg(test)]
mod launch_tests;
mod storage;
pub(crate) mod triggers;
mod usage;

pub use storage::EXIT_STORAGE_FAULT;

pub use attach::{AttachRequest, NodeOrders, KIND_ATTACH, KIND_NODE_ORDERS};
pub use usage::{MeasureRequest, KIND_MEASURE};

/// How often the periodic pass runs even without events (time limits, purges, liveness).
pub const HOUSEKEEPING_INTERVAL: Duration = Duration::from_millis(500);
/// Scheduling passes shorter than this run again on the next event without resting (see `run_scheduler`).
const PASS_REST_THRESHOLD: Duration = Duration::from_millis(1);
/// How long a write waits for a leader to be elected (or to become reachable) before failing.
pub const LEADER_WAIT: Duration = Duration::from_secs(5);
/// How long a forwarded write may take on the leader.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);
/// A follower answers a forwarded write once its own state shows it, waiting at most this long.
const FORWARD_APPLY_WAIT: Duration = Duration::from_secs(2);
/// The peer message that carries a forwarded write.
pub const KIND_FORWARD: &str = "raft.forward";

/// The leader's answer to a forwarded write.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum ForwardReply {
    /// The command's result and the log index that carried it.
    Applied(crate::state::ApplyResult, u64),
    /// Leadership moved: ask again.
    NotLeader,
}

/// Messages queued per agent before the session is considered stuck.
pub const AGENT_QUEUE_MAX: usize = 4096;

/// Free memory (MB) and load average a node's agent last reported.
type NodeTelemetry = (Option<u64>, Option<f64>);

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> EpochSecs;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> EpochSecs {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

pub struct Controller {
    pub state: ReplicatedState<ClusterState>,
    agents: Mutex<HashMap<String, AgentHandle>>,
    schedule_wanted: Notify,
    pub clock: Arc<dyn Clock>,
    pub launch_context: LaunchContext,
    /// Monotonic counter so a stale session's cleanup never removes its successor.
    session_counter: std::sync::atomic::AtomicU64,
    /// When each node's agent was last heard from (in memory: liveness is leader-local knowledge).
    last_seen: std::sync::Mutex<HashMap<String, EpochSecs>>,
    /// Free memory and load each agent last reported: shown by `scontrol show node`, never logged.
    telemetry: std::sync::Mutex<HashMap<String, NodeTelemetry>>,
    /// When this controller last became leader: a node never heard from since is given NodeTimeout from then,
    /// so a new leader does not declare nodes down for silence it did not witness.
    leader_since: std::sync::atomic::AtomicI64,
    /// Reaches the other controllers (None: a single controller).
    peers: Option<PeerTransport>,
    /// This controller's SlurmctldHost name in a group of several.
    member_name: Option<String>,
    /// sstat measurements waiting for agents' answers.
    usage: usage::UsageWaiters,
    /// Signalled once this controller has been removed from the group (`spur admin controller remove`).
    pub removed: Notify,
}

struct AgentHandle {
    session: u64,
    sender: mpsc::Sender<ControllerToAgent>,
}

impl Controller {
    pub fn new(
        state: ReplicatedState<ClusterState>,
        clock: Arc<dyn Clock>,
        launch_context: LaunchContext,
    ) -> Arc<Self> {
        Self::build(state, clock, launch_context, None, None)
    }

    /// A controller in a group of several, reaching the others through `peers`.
    pub fn new_member(
        state: ReplicatedState<ClusterState>,
        clock: Arc<dyn Clock>,
        launch_context: LaunchContext,
        peers: PeerTransport,
        member_name: String,
    ) -> Arc<Self> {
        Self::build(state, clock, launch_context, Some(peers), Some(member_name))
    }

    fn build(
        state: ReplicatedState<ClusterState>,
        clock: Arc<dyn Clock>,
        launch_context: LaunchContext,
        peers: Option<PeerTransport>,
        member_name: Option<String>,
    ) -> Arc<Self> {
        Arc::new(Controller {
            state,
            agents: Mutex::new(HashMap::new()),
            schedule_wanted: Notify::new(),
            launch_context,
            session_counter: Default::default(),
            last_seen: Default::default(),
            telemetry: Default::default(),
            leader_since: std::sync::atomic::AtomicI64::new(clock.now()),
            clock,
            peers,
            member_name,
            usage: Default::default(),
            removed: Notify::new(),
        })
    }

    pub fn member_name(&self) -> Option<&str> {
        self.member_name.as_deref()
    }

    /// Reaches the other controllers (None: a single controller).
    pub fn peers(&self) -> Option<&PeerTransport> {
        self.peers.as_ref()
    }

    pub fn is_leader(&self) -> bool {
        self.state.is_leader()
    }

    pub fn now(&self) -> EpochSecs {
        self.clock.now()
    }

    /// Commits a command, performs its effects, and asks for a scheduling pass (state changed). A follower
    /// forwards the command to the leader, which commits it and performs its effects, and answers once its own
    /// state shows the result.
    pub async fn commit(&self, command: Command) -> Result<Applied, ApiError> {
        if let Some(reason) = self.storage_fault() {
            return Err(storage_fault_error(&reason));
        }
        let Some(peers) = &self.peers else {
            return self.commit_here(command).await.map(|(applied, _)| applied);
        };
        let deadline = tokio::time::Instant::now() + LEADER_WAIT;
        loop {
            match self.state.leader() {
                Some((id, _)) if id == self.state.node_id() => {
                    match self.commit_here(command.clone()).await {
                        Err(e) if is_not_leader(&e) => {}
                        other => return other.map(|(applied, _)| applied),
                    }
                }
                Some((_, addr)) => {
                    let reply: Result<ForwardReply, PeerError> = peers
                        .call(&addr, KIND_FORWARD, &command, FORWARD_TIMEOUT)
                        .await;
                    match reply {
                        Ok(ForwardReply::Applied(result, index)) => {
                            let applied = result?;
                            self.state.wait_applied(index, FORWARD_APPLY_WAIT).await;
                            return Ok(applied);
                        }
                        Ok(ForwardReply::NotLeader) => {}
                        Err(e) => tracing::debug!("forwarding to the leader failed: {e}"),
                    }
                }
                None => {}
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(ApiError::with_detail(
                    SlurmErrno::Error,
                    "no controller leads the cluster (no majority of controllers reachable)",
                ));
            }
            tokio::time::sleep(LEADER_POLL).await;
        }
    }

    /// A write forwarded by another controller: committed here only while this controller leads.
    pub async fn commit_forwarded(&self, command: Command) -> ForwardReply {
        if !self.is_leader() {
            return ForwardReply::NotLeader;
        }
        match self.commit_here(command).await {
            Ok((applied, index)) => ForwardReply::Applied(Ok(applied), index),
            Err(e) if is_not_leader(&e) => ForwardReply::NotLeader,
            Err(e) => ForwardReply::Applied(Err(e), 0),
        }
    }

    async fn commit_here(&self, command: Command) -> Result<(Applied, u64), ApiError> {
        let wants_pass = command.may_change_schedule();
        let (response, index): (ApplyResponse, u64) =
            self.state.write_indexed(command).await.map_err(|e| {
                if matches!(e, crate::raft::ReplicationError::NotLeader { .. }) {
                    return ApiError::with_detail(SlurmErrno::Error, NOT_LEADER);
                }
                // A write in flight when the store failed is told why, like every later one.
                if let Some(reason) = self.storage_fault() {
                    return storage_fault_error(&reason);
                }
                tracing::error!("commit failed: {e}");
                ApiError::with_detail(SlurmErrno::Error, e.to_string())
            })?;
        let applied = response.0?;
        self.perform(&applied.effects).await;
        if wants_pass {
            self.schedule_wanted.notify_one();
        }
        Ok((applied, index))
    }

    async fn perform(&self, effects: &[Effect]) {
        // The tasks of an array usually start together: their array is expanded once per batch of effects.
        let mut arrays: HashMap<String, (Vec<u32>, Option<ArraySummary>)> = HashMap::new();
        for effect in effects {
            match effect {
                Effect::Launch { node, job_id } => {
                    let job = self.state.read(|s| s.jobs.get(job_id).cloned());
                    if let Some(job) = job {
                        if job.spec.script.is_none() || job.is_het_follower() {
                            // Allocations (salloc, srun) run their work from the client; a heterogeneous
                            // job's script runs once, on its leader's first node.
                            continue;
                        }
                        let mut context = self.launch_context.clone();
                        if let Some(het) = &job.het {
                            context.het_components = self.state.read(|s| het_components(s, het));
                        }
                        if let Some(text) = &job.spec.array {
                            let (ids, summary) = arrays.entry(text.clone()).or_insert_with(|| {
                                let max = self.state.read(|s| s.settings.max_array_size);
                                let ids =
                                    crate::rules::array_task_ids(text, max).unwrap_or_default();
                                let summary = ArraySummary::of(&ids);
                                (ids, summary)
                            });
                            context.array_summary = *summary;
                            if ids.len() <= ARRAY_IDS_SENT_MAX {
                                context.array_task_ids = ids.clone();
                            }
                        }
                        context.gres_files = self.state.read(|s| node_gres_files(s, node));
                        context.topology_addr =
                            self.state.read(|s| s.settings.switch_tree.address_of(node));
                        let message = ControllerToAgent::Launch {
                            job: Box::new(job),
                            context,
                        };
                        self.send_launch(node, *job_id, message).await;
                    }
                }
                Effect::Signal {
                    node,
                    job_id,
                    signal,
                    scope,
                    step_pids,
                } => {
                    let message = ControllerToAgent::Signal {
                        job_id: *job_id,
                        signal: *signal,
                        scope: *scope,
                        step_pids: step_pids.clone(),
                        step_ids: Vec::new(),
                    };
                    self.send(node, message).await;
                }
                Effect::SignalStepTasks {
                    node,
                    job_id,
                    signal,
                    step_ids,
                } => {
                    let message = ControllerToAgent::Signal {
                        job_id: *job_id,
                        signal: *signal,
                        scope: spur_core::wire::api::SignalScope::Steps,
                        step_pids: Vec::new(),
                        step_ids: step_ids.clone(),
                    };
                    self.send(node, message).await;
                }
                Effect::Terminate {
                    node,
                    job_id,
                    reason,
                    at,
                    run,
                } => {
                    let (kill_wait_secs, run) = self.state.read(|s| {
                        let current = s.jobs.get(job_id).map(|j| j.restarts);
                        (s.settings.kill_wait_secs, run.or(current))
                    });
                    let message = ControllerToAgent::Terminate {
                        job_id: *job_id,
                        reason: *reason,
                        at: *at,
                        kill_wait_secs,
                        run,
                    };
                    self.send(node, message).await;
                }
                Effect::LaunchStep { node, launch } => {
                    // A node runs its prolog before the job's first step there: any node of an allocation
                    // (salloc, srun), a batch job's nodes other than its first (whose supervisor ran it).
                    let job = self.state.read(|s| {
                        s.jobs
                            .get(&launch.job_id)
                            .filter(|j| {
                                j.spec.script.is_none()
                                    || j.alloc
                                        .as_ref()
                                        .is_some_and(|a| a.node_names.first() != Some(node))
                            })
                            .map(|j| Box::new(node_script_record(j)))
                    });
                    // ... and confines the step with the job's limits there (its GRES files for the devices).
                    let context = job.as_ref().map(|_| {
                        let mut context = self.launch_context.clone();
                        context.gres_files = self.state.read(|s| node_gres_files(s, node));
                        context
                    });
                    let message = ControllerToAgent::LaunchStep {
                        launch: launch.clone(),
                        context,
                        job,
                    };
                    self.send(node, message).await;
                }
                Effect::NodeEpilog { node, job } => {
                    let message = ControllerToAgent::RunEpilog {
                        job: Box::new(node_script_record(job)),
                        context: self.launch_context.clone(),
                    };
                    self.send(node, message).await;
                }
                Effect::AllocProlog { node, job_id } => {
                    let found = self.state.read(|s| {
                        let job = s.jobs.get(job_id).map(node_script_record)?;
                        Some((job, s.settings.prolog_contain))
                    });
                    if let Some((job, contain)) = found {
                        let message = ControllerToAgent::RunProlog {
                            job: Box::new(job),
                            context: self.launch_context.clone(),
                            contain,
                        };
                        self.send(node, message).await;
                    }
                }
                Effect::Notify {
                    node,
                    job_id,
                    message,
                } => {
                    let message = ControllerToAgent::Notify {
                        job_id: *job_id,
                        message: message.clone(),
                    };
                    self.send(node, message).await;
                }
                Effect::RunTrigger {
                    trig_id,
                    user_id,
                    group_id,
                    program,
                    arg,
                } => triggers::run(*trig_id, *user_id, *group_id, program, arg),
                Effect::AckFinished { node, job_id, run } => {
                    let ack = ControllerToAgent::FinishedAck {
                        job_id: *job_id,
                        run: *run,
                    };
                    self.send(node, ack).await;
                }
            }
        }
    }

    /// A launch goes out only while the log still runs the job on `node`. The effect was decided when its command
    /// applied, and the job's result may have been committed since: a node's registration launches the jobs it does
    /// not run, among them one that has just ended there and whose result, resent by the agent (through another
    /// controller, or an earlier session), commits beside the registration. Its acknowledgement makes the agent
    /// forget the job, and a launch behind it would start the job a second time. The check and the queueing are
    /// done under the agents lock, under which every message to an agent is queued: an acknowledgement queued
    /// before this launch comes from a result this check sees.
    async fn send_launch(&self, node: &str, job_id: u32, message: ControllerToAgent) {
        let agents = self.agents.lock().await;
        if !self.state.read(|s| s.runs_on(job_id, node)) {
            tracing::info!(
                node,
                job_id,
                "launch not sent: the job no longer runs there (it ended or moved since the launch was decided)"
            );
            return;
        }
        match agents.get(node) {
            Some(handle) => {
                if handle.sender.try_send(message).is_err() {
                    tracing::warn!(
                        node,
                        "agent queue full or closed; the node will resync on reconnect"
                    );
                }
            }
            None => tracing::debug!(
                node,
                "agent not connected; message deferred to its registration"
            ),
        }
    }

    /// A message to a node that is not connected is dropped: the node's registration reconciles it.
    pub(crate) async fn send(&self, node: &str, message: ControllerToAgent) {
        let sender = self.agents.lock().await.get(node).map(|h| h.sender.clone());
        match sender {
            Some(sender) => {
                if sender.try_send(message).is_err() {
                    tracing::warn!(
                        node,
                        "agent queue full or closed; the node will resync on reconnect"
                    );
                }
            }
            None => tracing::debug!(
                node,
                "agent not connected; message deferred to its registration"
            ),
        }
    }

    pub async fn attach_agent(&self, node: &str, sender: mpsc::Sender<ControllerToAgent>) -> u64 {
        let session = self
            .session_counter
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        self.agents
            .lock()
            .await
            .insert(node.to_string(), AgentHandle { session, sender });
        session
    }

    pub async fn detach_agent(&self, node: &str, session: u64) {
        let mut agents = self.agents.lock().await;
        if agents.get(node).is_some_and(|h| h.session == session) {
            agents.remove(node);
        }
    }

    pub fn agent_seen(&self, node: &str) {
        let now = self.now();
        if let Ok(mut seen) = self.last_seen.lock() {
            seen.insert(node.to_string(), now);
        }
    }

    pub fn record_telemetry(&self, node: &str, free_mem_mb: Option<u64>, cpu_load: Option<f64>) {
        if let Ok(mut telemetry) = self.telemetry.lock() {
            telemetry.insert(node.to_string(), (free_mem_mb, cpu_load));
        }
    }

    /// The node's GPU units, and where the links placement uses on them came from with a one-line summary
    /// (`None` when it places them lowest index first).
    pub fn gpu_links_in_use(
        &self,
        node: &str,
    ) -> (
        usize,
        Option<(spur_core::policy::gpu_topology::TopologySource, String)>,
    ) {
        self.state.read(|s| {
            let Some(record) = s.nodes.get(node) else {
                return (0, None);
            };
            let topology = &record.gpu_topology;
            let in_use = topology
                .source
                .zip(topology.gpu.as_ref().map(|t| t.summary()));
            (record.gpu_unit_count(), in_use)
        })
    }

    /// Node records with the latest telemetry filled in.
    pub fn nodes_with_telemetry(
        &self,
        mut nodes: Vec<spur_core::model::records::NodeRecord>,
    ) -> Vec<spur_core::model::records::NodeRecord> {
        if let Ok(telemetry) = self.telemetry.lock() {
            for node in &mut nodes {
                if let Some((free, load)) = telemetry.get(&node.name) {
                    node.free_mem_mb = *free;
                    node.cpu_load = *load;
                }
            }
        }
        nodes
    }

    fn last_seen(&self, node: &str) -> EpochSecs {
        self.last_seen
            .lock()
            .ok()
            .and_then(|seen| seen.get(node).copied())
            .unwrap_or_else(|| self.leader_since.load(std::sync::atomic::Ordering::Relaxed))
    }

    pub async fn agent_connected(&self, node: &str) -> bool {
        self.agents.lock().await.contains_key(node)
    }

    pub fn request_schedule(&self) {
        self.schedule_wanted.notify_one();
    }

    /// Runs scheduling passes on demand (coalesced: many events, one pass) and on every housekeeping tick.
    pub async fn run_scheduler(self: Arc<Self>) {
        loop {
            tokio::select! {
                _ = self.schedule_wanted.notified() => {}
                _ = tokio::time::sleep(HOUSEKEEPING_INTERVAL) => {}
            }
            if !self.is_leader() {
                continue;
            }
            let now = self.now();
            let started = std::time::Instant::now();
            let plan = self.state.read(|s| scheduler::schedule(s, now));
            let spent = started.elapsed();
            log_pass(self.as_ref(), spent, plan.starts.len());
            // A pass walks the whole queue. Under a stream of submissions (thousands a second, each commit
            // batch asking for a pass) back-to-back passes over a long queue would take all the CPU that
            // accepting submissions needs; resting as long as the pass took bounds scheduling to half of it,
            // while on an idle cluster (passes of microseconds) a job still starts right after its submission.
            let rest = (spent >= PASS_REST_THRESHOLD).then_some(spent);
            if !plan.is_empty() {
                let command = Command::Schedule {
                    starts: plan.starts,
                    reasons: plan.reasons,
                    now,
                    forecasts: plan.forecasts,
                    priorities: plan.priorities,
                    preemptions: plan.preemptions,
                    reason_descs: plan.reason_descs,
                    resumes: plan.resumes,
                };
                if let Err(e) = self.commit(command).await {
                    tracing::error!("scheduling pass failed to commit: {e}");
                }
            }
            if let Some(rest) = rest {
                tokio::time::sleep(rest).await;
            }
        }
    }

    /// Follows leadership changes. On gaining it: every node gets a fresh NodeTimeout of grace (agents are
    /// reconnecting to this controller). On losing it (a newer term, a majority unheard of for too long, or this
    /// controller's removal from the group): agent sessions are closed, so agents move to the new leader and
    /// register there (reporting what runs on them, which the new leader reconciles with the log).
    pub async fn run_leadership(self: Arc<Self>) {
        let mut metrics = self.state.raft().metrics();
        let mut leading = false;
        let mut was_member = false;
        loop {
            // Leadership is also lost to silence, which changes no metric: look again on a short period too.
            let now_leading = self.state.is_leader();
            if now_leading && !leading {
                tracing::info!("this controller now leads the cluster");
                self.leader_since
                    .store(self.now(), std::sync::atomic::Ordering::Relaxed);
                if let Ok(mut seen) = self.last_seen.lock() {
                    seen.clear();
                }
                self.schedule_wanted.notify_one();
            } else if leading && !now_leading {
                tracing::info!("this controller no longer leads; closing agent sessions");
                self.agents.lock().await.clear();
            }
            leading = now_leading;
            if self.peers.is_some() {
                let member = {
                    let m = metrics.borrow();
                    m.membership_config
                        .membership()
                        .get_node(&self.state.node_id())
                        .is_some()
                };
                if was_member && !member {
                    tracing::warn!("this controller was removed from the group; stopping");
                    self.removed.notify_one();
                }
                was_member |= member;
            }
            tokio::select! {
                changed = metrics.changed() => if changed.is_err() { return },
                _ = tokio::time::sleep(LEADERSHIP_POLL) => {}
            }
        }
    }

    /// Time limits, liveness of nodes, fair-share usage and purging of old jobs.
    pub async fn run_housekeeping(self: Arc<Self>) {
        loop {
            tokio::time::sleep(HOUSEKEEPING_INTERVAL).await;
            if !self.is_leader() {
                continue;
            }
            let now = self.now();
            let expired = self.state.read(|s| expired_jobs(s, now));
            if !expired.is_empty() {
                if let Err(e) = self
                    .commit(Command::TimeLimitReached {
                        job_ids: expired,
                        now,
                    })
                    .await
                {
                    tracing::error!("time limit commit failed: {e}");
                }
            }
            let steps = self.state.read(|s| expired_steps(s, now));
            if !steps.is_empty() {
                if let Err(e) = self
                    .commit(Command::StepTimeLimitReached { steps, now })
                    .await
                {
                    tracing::error!("step time limit commit failed: {e}");
                }
            }
            let warnings = self.state.read(|s| warning_signals_due(s, now));
            if !warnings.is_empty() {
                if let Err(e) = self
                    .commit(Command::WarningSignalDue {
                        job_ids: warnings,
                        now,
                    })
                    .await
                {
                    tracing::error!("warning signal commit failed: {e}");
                }
            }
            self.check_liveness(now).await;
            if self.state.read(|s| s.triggers_due(now)) {
                if let Err(e) = self.commit(Command::RunTriggers { now }).await {
                    tracing::error!("trigger pass commit failed: {e}");
                }
            }
            if self.state.read(|s| s.usage_accrual_due(now)) {
                if let Err(e) = self.commit(Command::AccrueUsage { now }).await {
                    tracing::error!("usage accrual commit failed: {e}");
                }
            }
            let purge_due = self.state.read(|s| {
                let age = i64::from(s.settings.min_job_age_secs);
                s.jobs.values().any(|j| {
                    j.is_finished() && !j.completing && j.end_time.is_some_and(|e| now - e >= age)
                }) || s.accounting_expiry_due(now)
            });
            if purge_due {
                if let Err(e) = self.commit(Command::Purge { now }).await {
                    tracing::error!("purge commit failed: {e}");
                }
            }
        }
    }

    async fn check_liveness(&self, now: EpochSecs) {
        let (timeout, candidates) = self.state.read(|s| {
            let responding = s
                .nodes
                .values()
                .filter(|n| !n.not_responding)
                .map(|n| n.name.clone());
            (
                i64::from(s.settings.node_timeout_secs),
                responding.collect::<Vec<_>>(),
            )
        });
        for name in candidates {
            if self.agent_connected(&name).await || now - self.last_seen(&name) <= timeout {
                continue;
            }
            let command = Command::NodeResponding {
                name,
                responding: false,
                now,
            };
            if let Err(e) = self.commit(command).await {
                tracing::error!("liveness commit failed: {e}");
            }
        }
    }
}

/// One debug line per scheduling pass (`SPUR_LOG=info,spur_controller::runtime=debug`): how long it took over how
/// many pending jobs, which the scale benchmark reads (docs/simulation.md). Counting the queue costs a walk of it,
/// so it happens only when the line is wanted.
fn log_pass(controller: &Controller, spent: Duration, starts: usize) {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return;
    }
    let pending = controller.state.read(|s| {
        s.jobs
            .values()
            .filter(|j| j.state == JobBaseState::Pending)
            .count()
    });
    tracing::debug!(
        pass_us = u64::try_from(spent.as_micros()).unwrap_or(u64::MAX),
        pending,
        starts,
        "scheduling pass"
    );
}

/// The node's GRES device files per GRES name, in the order the scheduler numbers the units.
fn node_gres_files(
    state: &ClusterState,
    node: &str,
) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut files: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for gres in state
        .nodes
        .get(node)
        .map(|n| n.gres.as_slice())
        .unwrap_or(&[])
    {
        let entry = files.entry(gres.name.clone()).or_default();
        if u64::try_from(gres.files.len()).is_ok_and(|n| n == gres.count) {
            entry.extend(gres.files.iter().cloned());
        } else {
            // Count-only units (or a file list that does not match the count) have no device to deny; empty
            // names keep the later units' indices aligned.
            let count = usize::try_from(gres.count).unwrap_or(0).min(1 << 16);
            entry.extend(std::iter::repeat_n(String::new(), count));
        }
    }
    files
}

/// Running jobs whose `--signal` warning is due: `secs` before the end of their time limit.
pub fn warning_signals_due(state: &ClusterState, now: EpochSecs) -> Vec<u32> {
    state
        .jobs
        .live()
        .filter(|j| j.state == JobBaseState::Running && !j.completing && !j.warning_signal_sent)
        .filter(|j| match (j.spec.signal, j.time_limit_min) {
            (Some((_, before, _)), Some(limit)) => {
                j.start_time.is_some()
                    && j.run_secs(now) >= i64::from(limit) * 60 - i64::from(before)
            }
            _ => false,
        })
        .map(|j| j.job_id)
        .collect()
}

/// Running jobs past their time limit (Slurm's OverTimeLimit is 0 by default), and jobs of a reservation that has
/// ended (Slurm's ResvOverRun is 0 by default; a reservation in use cannot be deleted, so one that is gone ended).
pub fn expired_jobs(state: &ClusterState, now: EpochSecs) -> Vec<u32> {
    state
        .jobs
        .live()
        .filter(|j| j.state == JobBaseState::Running && !j.completing)
        // Suspended time does not count, as in Slurm (the time limit moves with each resume).
        .filter(|j| {
            let over_limit = match (j.start_time, j.time_limit_min) {
                (Some(_), Some(limit)) => j.run_secs(now) >= i64::from(limit) * 60,
                _ => false,
            };
            let reservation_over = j
                .spec
                .reservation
                .as_ref()
                .is_some_and(|name| state.reservations.get(name).is_none_or(|r| r.end <= now));
            over_limit || reservation_over
        })
        .map(|j| j.job_id)
        .collect()
}

/// How often leadership is looked at even when no raft metric changed.
const LEADERSHIP_POLL: Duration = Duration::from_millis(100);
/// Running steps of running jobs past their own time limit (`srun --time`, `scontrol update StepId=`); a step of a
/// suspended job waits, as its job's limit does.
pub fn expired_steps(state: &ClusterState, now: EpochSecs) -> Vec<(u32, u32)> {
    state
        .jobs
        .live()
        .filter(|j| j.state == JobBaseState::Running && !j.completing)
        .flat_map(|j| {
            j.steps
                .iter()
                .filter(move |s| {
                    s.is_running()
                        && s.time_limit_min
                            .is_some_and(|limit| now - s.start_time >= i64::from(limit) * 60)
                })
                .map(move |s| (j.job_id, s.step_id))
        })
        .collect()
}

/// How often a write waiting for a leader looks again.
const LEADER_POLL: Duration = Duration::from_millis(20);
const NOT_LEADER: &str = "this controller is not the leader";

fn is_not_leader(e: &ApiError) -> bool {
    e.detail.as_deref() == Some(NOT_LEADER)
}

/// What a client is told when this controller's storage failed: it is not the leader any more, and why.
pub fn storage_fault_error(reason: &str) -> ApiError {
    ApiError::with_detail(
        SlurmErrno::NotLeader,
        format!("Controller is not the leader: its state storage failed ({reason})"),
    )
}

/// What a node's prolog and epilog need of a job: everything but its script and environment (the bulk of a
/// record), which the node scripts never see.
fn node_script_record(job: &spur_core::model::job::JobRecord) -> spur_core::model::job::JobRecord {
    let mut record = job.clone();
    record.spec.script = None;
    record.spec.environment = Vec::new();
    record
}

/// A heterogeneous job's components as its batch script describes them, leader first, without their scripts and
/// environments (which the launch does not need).
fn het_components(
    state: &crate::state::ClusterState,
    het: &spur_core::model::job::HetMembership,
) -> Vec<JobRecord> {
    het.component_ids()
        .filter_map(|id| state.jobs.get(&id))
        .map(|job| {
            let mut job = job.clone();
            job.spec.script = None;
            job.spec.environment.clear();
            job
        })
        .collect()
}
