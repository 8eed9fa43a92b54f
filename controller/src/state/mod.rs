//! The controller's deterministic state machine: jobs, nodes and partitions, changed only by [`Command`]s applied
//! in Raft log order. Time, ids and choices travel inside commands (or derive from the log), so every replica and
//! every replay reaches the same state. Applying a command returns [`Effect`]s (launch, signal, terminate) that the
//! leader's runtime performs; followers and replays drop them, and agents reconcile on reconnect.

mod accounting;
mod assoc;
mod config;
mod epilog;
mod fairshare;
mod het;
mod import_jobs;
mod job_edit;
mod job_table;
mod jobs;
mod licenses;
mod node_admin;
mod nodes;
mod partitions;
mod ports;
mod preempt;
mod prolog;
mod requests;
mod reservations;
mod steps;
mod top;
mod triggers;
mod usage_record;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use accounting::{AccountingRead, HANDOFF_SECS};
use spur_core::model::job::{Allocation, EpochSecs, JobRecord, JobSpec};
use spur_core::model::records::{ClusterConfig, NodeRecord, PartitionRecord};
use spur_core::model::states::JobReason;
pub use spur_core::wire::agent_proto::TerminateReason;
use spur_core::wire::api::{ApiError, ControlRequest, SignalScope};

pub use config::{
    BackfillSettings, ConfigSnapshot, NodeDefinition, Settings, DEFAULT_MAX_SWITCH_WAIT_SECS,
};
pub use job_table::{in_play, is_live, settled_while_held, JobTable};
pub(crate) use jobs::{startable_at_submission, started_and_live};
pub(crate) use licenses::job_licenses;
pub use nodes::NodeRegistration;
pub(crate) use preempt::in_grace;
pub use requests::{SubmitRequests, REMEMBERED_REQUESTS};
pub use triggers::{Triggers, TRIGGERS_VERSION};

/// When and where the backfill scheduler expects a pending job to start (`squeue --start`), as a pass's plan
/// records it on the job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forecast {
    pub start: EpochSecs,
    /// The planned nodes as a hostlist expression (`SchedNodeList=`).
    pub nodes: String,
}

/// The version of the snapshot layout below; bump it with a migration when a field changes meaning.
pub const SNAPSHOT_VERSION: u32 = 1;

/// How a job ended on its node, as the agent reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The batch script exited; code and signal as in `wait(2)`.
    Exited { code: u32, signal: u32 },
    /// The node could not start the job at all (bad work dir for a non-root user, unwritable output, ...).
    LaunchFailed,
    /// The batch script ended (code and signal as in `Exited`) after the job's memory cgroup killed one of its
    /// processes: Slurm's OUT_OF_MEMORY.
    OutOfMemory { code: u32, signal: u32 },
    /// The node's Prolog failed before the script started: Slurm drains the node and requeues the job held.
    PrologFailed,
}

/// Every state change. Append-only: new variants go at the end, fields added later are `#[serde(default)]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// The controller (re)started with this configuration; node runtime state is kept where the node survives.
    ApplyConfig(Box<ConfigSnapshot>),
    Submit {
        spec: Box<JobSpec>,
        now: EpochSecs,
    },
    /// A scheduling plan: jobs to start where placed, and the pending reasons of the jobs left waiting.
    Schedule {
        starts: Vec<(u32, Allocation)>,
        reasons: Vec<(u32, JobReason)>,
        now: EpochSecs,
        /// Expected starts of waiting jobs that changed (`None` clears one).
        #[serde(default)]
        forecasts: Vec<(u32, Option<Forecast>)>,
        /// priority/multifactor: recomputed priorities of pending jobs.
        #[serde(default)]
        priorities: Vec<(u32, u32)>,
        /// preempt/partition_prio: running jobs to end (`CANCEL`) or requeue (`REQUEUE`).
        #[serde(default)]
        preemptions: Vec<(u32, spur_core::model::records::PreemptMode)>,
        /// Free text shown instead of the reason of some of `reasons` (reservations keeping a job off).
        #[serde(default)]
        reason_descs: Vec<(u32, String)>,
        /// preempt/partition_prio with `SUSPEND,GANG`: jobs suspended by preemption to resume.
        #[serde(default)]
        resumes: Vec<u32>,
    },
    Finished {
        job_id: u32,
        outcome: Outcome,
        now: EpochSecs,
        /// The run the result is of (see `JobOutcome::run`); `None`: the current one.
        #[serde(default)]
        run: Option<u32>,
    },
    Control {
        caller_uid: u32,
        request: ControlRequest,
        now: EpochSecs,
    },
    TimeLimitReached {
        job_ids: Vec<u32>,
        now: EpochSecs,
    },
    RegisterNode {
        registration: Box<NodeRegistration>,
        now: EpochSecs,
    },
    NodeResponding {
        name: String,
        responding: bool,
        now: EpochSecs,
    },
    /// Forget finished jobs older than MinJobAge.
    Purge {
        now: EpochSecs,
    },
    /// `--signal=[B:]SIG@SECS`: the warning signal is due for these running jobs (sent once each).
    WarningSignalDue {
        job_ids: Vec<u32>,
        now: EpochSecs,
    },
    /// A submission carrying the client's request id: applied once however often the client retries it.
    SubmitOnce {
        request_id: String,
        spec: Box<JobSpec>,
        now: EpochSecs,
    },
    /// Running steps (job id, step id) past their own time limit: they end TIMEOUT and their srun stops the tasks.
    StepTimeLimitReached {
        steps: Vec<(u32, u32)>,
        now: EpochSecs,
    },
    /// A control request carrying the client's request id: applied once however often the client retries it; a
    /// retry gets the first attempt's answer.
    ControlOnce {
        request_id: String,
        caller_uid: u32,
        request: ControlRequest,
        now: EpochSecs,
    },
    /// `PrologFlags=Alloc`: a node's prolog for run `run` (the job's `restarts`) of the job ended; `failed`: it
    /// failed, and the node drains.
    PrologFinished {
        job_id: u32,
        run: u32,
        node: String,
        failed: bool,
        now: EpochSecs,
    },
    /// A heterogeneous job: every component (the leader first), submitted together or not at all; the request id
    /// (when the client sent one) makes it idempotent as `SubmitOnce` is.
    SubmitHet {
        #[serde(default)]
        request_id: Option<String>,
        specs: Vec<JobSpec>,
        now: EpochSecs,
    },
    /// A node other than the batch node finished the epilog of an ended job (or had none to run): the job is no
    /// longer COMPLETING there and the node takes new jobs again.
    EpilogFinished {
        job_id: u32,
        node: String,
        now: EpochSecs,
    },
    /// priority/multifactor: count the usage of running and recently ended jobs up to `now` and decay the rest
    /// (state/fairshare.rs).
    AccrueUsage {
        now: EpochSecs,
    },
    /// A submission the leader placed before committing it, because nothing else waited for the resources: the
    /// job is created and started in one entry, as slurmctld starts a job that is the top priority when it is
    /// submitted. `start` is re-checked like a `Schedule` start; one that no longer fits leaves the job pending
    /// for the next pass. The request id (when the client sent one) makes it idempotent as `SubmitOnce` is.
    SubmitAndStart {
        #[serde(default)]
        request_id: Option<String>,
        spec: Box<JobSpec>,
        now: EpochSecs,
        start: Allocation,
    },
    /// A step's supervisor measured what the step used (`jobacct_gather`): kept with the step for sacct. Sent
    /// before the step's end; `run` is the job's run it belongs to (a report of an earlier run is dropped).
    RecordUsage {
        job_id: u32,
        run: Option<u32>,
        step: spur_core::model::step_usage::StepRef,
        usage: Box<spur_core::model::step_acct::StepAcct>,
    },
    /// `strigger`: the leader's clock pass over the triggers (state/triggers.rs): jobs' end and time limit, idle
    /// nodes; fired triggers that are due run (`Effect::RunTrigger`). Committed only when it changes something.
    RunTriggers {
        now: EpochSecs,
    },
}

impl Command {
    /// The command that submits `spec` at `now`: created and started in one entry where the leader placed it
    /// (`start`, see `scheduler::placed_at_submission`), else queued; applied once per request id when the
    /// client sent one.
    pub fn submission(
        spec: JobSpec,
        now: EpochSecs,
        request_id: Option<String>,
        start: Option<Allocation>,
    ) -> Command {
        let spec = Box::new(spec);
        match (start, request_id) {
            (Some(start), request_id) => Command::SubmitAndStart {
                request_id,
                spec,
                now,
                start,
            },
            (None, Some(request_id)) => Command::SubmitOnce {
                request_id,
                spec,
                now,
            },
            (None, None) => Command::Submit { spec, now },
        }
    }

    /// Whether applying this can change a node's state (DOWN, DRAINED, ...), which node triggers watch.
    pub fn may_change_nodes(&self) -> bool {
        !matches!(
            self,
            Command::Submit { .. }
                | Command::SubmitOnce { .. }
                | Command::SubmitHet { .. }
                | Command::RecordUsage { .. }
                | Command::AccrueUsage { .. }
                | Command::WarningSignalDue { .. }
                | Command::RunTriggers { .. }
        )
    }

    /// Whether applying this can change what a scheduling pass decides. A job submitted held can neither start
    /// nor change another job's chances (its hold reason is recorded at submission), so a burst of held
    /// submissions (workflow tools stage whole graphs that way) asks for no passes over the queue.
    pub fn may_change_schedule(&self) -> bool {
        match self {
            Command::Submit { spec, .. }
            | Command::SubmitOnce { spec, .. }
            | Command::SubmitAndStart { spec, .. } => !spec.hold,
            Command::SubmitHet { specs, .. } => specs.iter().any(|s| !s.hold),
            _ => true,
        }
    }
}

/// What the leader must do after a command took effect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Effect {
    Launch {
        node: String,
        job_id: u32,
    },
    Signal {
        node: String,
        job_id: u32,
        signal: i32,
        scope: SignalScope,
        /// For [`SignalScope::Steps`]: the running steps' `srun` processes.
        step_pids: Vec<u32>,
    },
    Terminate {
        node: String,
        job_id: u32,
        reason: TerminateReason,
        at: EpochSecs,
        /// The run to end when it is not the job's current one (an earlier run a failed or returning node may
        /// still hold); `None`: the current run.
        run: Option<u32>,
    },
    /// The job's result is committed: the agent may forget it.
    AckFinished {
        node: String,
        job_id: u32,
        /// The run whose result this acknowledges, as the agent reported it.
        run: Option<u32>,
    },
    /// Signal the tasks of these running steps that the node's step supervisors run (every step of an allocation,
    /// and a batch job's steps under task/cgroup or on nodes other than the first).
    SignalStepTasks {
        node: String,
        job_id: u32,
        signal: i32,
        step_ids: Vec<u32>,
    },
    /// Start a step's tasks on one of the job's nodes.
    LaunchStep {
        node: String,
        launch: Box<spur_core::model::step_launch::NodeStepLaunch>,
    },
    /// A multi-node job ended: its nodes other than the first run slurm.conf's `Epilog` (the first node's
    /// supervisor runs it there). Carries the job as it ended.
    NodeEpilog {
        node: String,
        job: Box<JobRecord>,
    },
    /// `PrologFlags=Alloc`: run slurm.conf's `Prolog` for the newly allocated job on this node of it (with
    /// `Contain`, make its extern cgroup there too); the agent answers with the prolog's result.
    AllocProlog {
        node: String,
        job_id: u32,
    },
    /// `scontrol notify`: the message for a batch job's stderr, on its batch node.
    Notify {
        node: String,
        job_id: u32,
        message: String,
    },
    /// A trigger fired (`strigger`): the leader runs `program` with `arg` as its last argument, as the
    /// trigger's owner (`user_id`, `group_id`), never as the controller's own user for someone else's trigger.
    RunTrigger {
        trig_id: u32,
        user_id: u32,
        group_id: u32,
        program: String,
        arg: String,
    },
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Applied {
    /// The job id created (an array's one id).
    pub job_id: Option<u32>,
    /// Per-job errors of a multi-job request (scancel of an array).
    pub failures: Vec<(String, ApiError)>,
    pub effects: Vec<Effect>,
    /// The step a `CreateStep` made.
    pub step_id: Option<u32>,
    /// The reservation a `CreateReservation` made.
    #[serde(default)]
    pub reservation: Option<String>,
    /// What an accounting request (`sacctmgr`) changed, or why it changed nothing.
    #[serde(default)]
    pub acct: Option<spur_core::model::assoc::AcctResult>,
    /// The jobs a `ModifyJobRecords` changed.
    #[serde(default)]
    pub edited_jobs: Vec<spur_core::model::job_edit::EditedJob>,
    /// The ports a `CreateStep` reserved.
    #[serde(default)]
    pub resv_ports: Option<String>,
}

pub type ApplyResult = Result<Applied, ApiError>;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClusterState {
    pub version: u32,
    pub config: ClusterConfig,
    pub settings: Settings,
    pub nodes: BTreeMap<String, NodeRecord>,
    /// Partitions in configuration order (sinfo lists them so).
    pub partitions: Vec<PartitionRecord>,
    pub jobs: JobTable,
    pub next_job_id: u32,
    /// priority/basic hands out decreasing priorities in submission order.
    pub submissions: u64,
    /// Ids of jobs whose result was committed, per node, until the agent confirms it forgot them.
    #[serde(default)]
    pub last_applied_index: u64,
    /// Request ids of recent submissions and the jobs they created (see `requests`).
    #[serde(default)]
    pub submit_requests: SubmitRequests,
    /// Control requests already applied, by request id (see [`requests::ControlRequests`]).
    #[serde(default)]
    pub control_requests: requests::ControlRequests,
    /// Advance reservations by name (`scontrol create reservation`).
    #[serde(default)]
    pub reservations: BTreeMap<String, spur_core::model::reservation::ReservationRecord>,
    /// Reservations created so far: the counter in the names Slurm gives anonymous ones.
    #[serde(default)]
    pub reservations_made: u32,
    /// Partitions made by `scontrol create partition`: kept when a restart applies slurm.conf again.
    #[serde(default)]
    pub runtime_partitions: std::collections::BTreeSet<String>,
    /// The handoff buffer: accounting records of jobs purged from `jobs` (live jobs' records are made from
    /// `jobs`), by job id, for [`accounting::HANDOFF_SECS`] after MinJobAge; the history store keeps them after
    /// that (state/accounting.rs).
    #[serde(default)]
    pub accounting: BTreeMap<u32, spur_core::model::accounting::JobAccounting>,
    /// QOS, accounts, users and associations (`sacctmgr`), seeded as slurmdbd seeds a new cluster.
    #[serde(default)]
    pub acct: spur_core::model::assoc::AcctDb,
    /// Each association's decayed usage, for fair-share (priority/multifactor).
    #[serde(default)]
    pub usage: spur_core::policy::fairshare::FairShareUsage,
    /// Edits of live jobs' accounting records (`sacctmgr modify job`), by job id, until the job is archived
    /// with them (state/job_edit.rs).
    #[serde(default)]
    pub job_edits: BTreeMap<u32, spur_core::model::job_edit::JobEdits>,
    /// Ports reserved by running steps (`MpiParams=ports=`, state/ports.rs).
    #[serde(default)]
    pub step_ports: ports::PortReservations,
    /// Never-started array tasks keyed so far (above `UNSTARTED_TASK_KEYS`): the next such task's key is the
    /// base plus this, or the next free one after it (see `jobs::submit`). Absent from older snapshots, whose
    /// array tasks all have job ids of their own.
    #[serde(default)]
    pub unstarted_task_keys: u32,
    /// Event triggers (`strigger`, state/triggers.rs), versioned on their own; absent from older snapshots.
    #[serde(default)]
    pub triggers: Triggers,
    /// This controller's job history store and the writes queued for it by the batch being applied; not
    /// replicated (history/mod.rs).
    #[serde(skip)]
    pub history: crate::history::HistoryLink,
}

impl ClusterState {
    pub fn new() -> Self {
        ClusterState {
            version: SNAPSHOT_VERSION,
            next_job_id: 1,
            ..Default::default()
        }
    }

    /// The only mutation entry point.
    pub fn apply(&mut self, log_index: u64, command: Command) -> ApplyResult {
        // Node triggers fire on transitions, so the nodes are compared around the command while one waits (only
        // around commands that can change a node: a submission or a usage report cannot).
        let before = command
            .may_change_nodes()
            .then(|| self.node_marks_if_watched())
            .flatten();
        let reconfigured = matches!(command, Command::ApplyConfig(_));
        let result = self.apply_command(log_index, command);
        self.jobs.settle();
        if let Some(before) = before {
            self.node_events(&before, reconfigured);
        }
        result
    }

    /// A submission carrying the client's request id is applied once: a retry (after a lost answer or a
    /// failover) gets the job the first attempt created, and nothing is submitted again.
    /// The id is the caller's own (`uid`, the submitter the credential proved): another user sending the same
    /// id gets a job of their own, never the first caller's.
    fn submit_once(
        &mut self,
        uid: u32,
        request_id: Option<String>,
        submit: impl FnOnce(&mut Self) -> ApplyResult,
    ) -> ApplyResult {
        let request_id = request_id.map(|r| requests::caller_key(uid, &r));
        if let Some(job_id) = request_id
            .as_deref()
            .and_then(|r| self.submit_requests.job_for(r))
        {
            return Ok(Applied {
                job_id: Some(job_id),
                ..Default::default()
            });
        }
        let applied = submit(self)?;
        if let (Some(request_id), Some(job_id)) = (request_id, applied.job_id) {
            self.submit_requests.remember(request_id, job_id);
        }
        Ok(applied)
    }

    fn apply_command(&mut self, log_index: u64, command: Command) -> ApplyResult {
        self.last_applied_index = log_index;
        match command {
            Command::ApplyConfig(snapshot) => {
                self.apply_config(*snapshot);
                Ok(Applied::default())
            }
            Command::Submit { spec, now } => self.submit(*spec, now),
            Command::SubmitOnce {
                request_id,
                spec,
                now,
            } => self.submit_once(spec.user_id, Some(request_id), |s| s.submit(*spec, now)),
            Command::Schedule {
                starts,
                reasons,
                now,
                forecasts,
                priorities,
                preemptions,
                reason_descs,
                resumes,
            } => {
                self.expire_reservations(now);
                self.apply_priorities(&priorities);
                self.apply_forecasts(forecasts);
                let mut preempted = self.apply_resumes(&resumes, now);
                preempted.extend(self.apply_preemptions(&preemptions, now));
                let mut applied = self.apply_schedule(starts, reasons, now);
                self.apply_reason_descs(reason_descs);
                applied.effects.extend(preempted);
                Ok(applied)
            }
            Command::Finished {
                job_id,
                outcome,
                now,
                run,
            } => Ok(self.finish_run(job_id, outcome, now, run)),
            Command::Control {
                caller_uid,
                request,
                now,
            } => self.control(caller_uid, request, now),
            Command::ControlOnce {
                request_id,
                caller_uid,
                request,
                now,
            } => {
                // The caller's own id: another user's retry of it is a request of its own.
                let request_id = requests::caller_key(caller_uid, &request_id);
                if let Some(first) = self.control_requests.get(&request_id) {
                    return first.clone();
                }
                let result = self.control(caller_uid, request, now);
                let answer = result.clone().map(|applied| Applied {
                    effects: Vec::new(),
                    ..applied
                });
                self.control_requests.remember(request_id, answer);
                result
            }
            Command::TimeLimitReached { job_ids, now } => {
                Ok(self.time_limit_reached(&job_ids, now))
            }
            Command::RegisterNode { registration, now } => self.register_node(*registration, now),
            Command::NodeResponding {
                name,
                responding,
                now,
            } => Ok(self.node_responding(&name, responding, now)),
            Command::Purge { now } => {
                self.accrue_usage(now);
                self.purge(now);
                self.expire_accounting(now);
                self.release_handed_off(now);
                self.expire_reservations(now);
                Ok(Applied::default())
            }
            Command::WarningSignalDue { job_ids, now: _ } => Ok(self.warning_signal_due(&job_ids)),
            Command::PrologFinished {
                job_id,
                run,
                node,
                failed,
                now,
            } => Ok(self.prolog_finished(job_id, run, &node, failed, now)),
            Command::StepTimeLimitReached { steps, now } => {
                self.step_time_limit_reached(&steps, now);
                Ok(Applied::default())
            }
            Command::SubmitHet {
                request_id,
                specs,
                now,
            } => {
                let uid = specs.first().map_or(0, |spec| spec.user_id);
                self.submit_once(uid, request_id, |s| s.submit_het(specs, now))
            }
            Command::EpilogFinished { job_id, node, now } => {
                self.epilog_finished(job_id, &node, now);
                Ok(Applied::default())
            }
            Command::SubmitAndStart {
                request_id,
                spec,
                now,
                start,
            } => self.submit_once(spec.user_id, request_id, |s| {
                let mut applied = s.submit(*spec, now)?;
                if let Some(job_id) = applied.job_id {
                    let started = s.apply_schedule(vec![(job_id, start)], Vec::new(), now);
                    applied.effects.extend(started.effects);
                }
                Ok(applied)
            }),
            Command::AccrueUsage { now } => {
                self.accrue_usage(now);
                Ok(Applied::default())
            }
            Command::RecordUsage {
                job_id,
                run,
                step,
                usage,
            } => {
                self.record_usage(job_id, run, step, usage);
                Ok(Applied::default())
            }
            Command::RunTriggers { now } => Ok(self.run_triggers(now)),
        }
    }

    pub fn default_partition(&self) -> Option<&PartitionRecord> {
        self.partitions.iter().find(|p| p.default)
    }

    pub fn partition(&self, name: &str) -> Option<&PartitionRecord> {
        self.partitions.iter().find(|p| p.name == name)
    }

    /// The records of the nodes `names` lists, in that order (unknown names skipped). Partitions list their
    /// nodes mostly in the map's own order, so each name is first tried as the map's next key after the previous
    /// one and looked up only when it is not: a partition of 10,000 nodes costs 10,000 steps instead of as many
    /// lookups (each a dozen name comparisons), which was most of a submission's cost at that size.
    pub fn nodes_named<'s>(
        &'s self,
        names: &'s [String],
    ) -> impl Iterator<Item = (&'s String, &'s NodeRecord)> + 's {
        use std::ops::Bound;
        let mut after: Option<std::collections::btree_map::Range<'s, String, NodeRecord>> = None;
        names.iter().filter_map(move |name| {
            if let Some((key, node)) = after.as_mut().and_then(Iterator::next) {
                if key == name {
                    return Some((key, node));
                }
            }
            let mut from = self
                .nodes
                .range::<str, _>((Bound::Included(name.as_str()), Bound::Unbounded));
            match from.next() {
                Some((key, node)) if key == name => {
                    after = Some(from);
                    Some((key, node))
                }
                _ => {
                    after = None;
                    None
                }
            }
        })
    }

    /// Invariants every reachable state keeps; tests and the simulator call this after each apply.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.jobs.index_matches()?;
        // Per node: CPUs of jobs with cores of their own, CPUs of jobs sharing cores, and what those book.
        let mut cpus: BTreeMap<&str, (u32, u32, u64)> = BTreeMap::new();
        let mut mem: BTreeMap<&str, u64> = BTreeMap::new();
        let mut gres: BTreeMap<(&str, &str), Vec<u32>> = BTreeMap::new();
        let mut epilogs: BTreeMap<&str, u32> = BTreeMap::new();
        for job in self.jobs.values() {
            for node in &job.epilog_pending {
                *epilogs.entry(node).or_default() += 1;
            }
            if job.is_unstarted_array_task() {
                // Keyed above every job id until it starts: such a task never ran (it may have been cancelled,
                // or killed for its dependency, while it waited).
                if job.alloc.is_some()
                    || !matches!(
                        job.state,
                        spur_core::model::states::JobBaseState::Pending
                            | spur_core::model::states::JobBaseState::Cancelled
                    )
                {
                    return Err(format!(
                        "array task {} keyed {} has run",
                        job.display_id(),
                        job.job_id
                    ));
                }
            } else if job.job_id >= self.next_job_id {
                return Err(format!(
                    "job {} is not below next_job_id {}",
                    job.job_id, self.next_job_id
                ));
            }
            let holds_resources = jobs::holds_resources(job);
            match (&job.alloc, holds_resources) {
                (Some(alloc), true) => {
                    // A job suspended by preemption lent its CPUs to the preemptor.
                    let held_cpus = if job.preempt_suspended { 0 } else { alloc.cpus };
                    if !alloc.node_units.is_empty()
                        && alloc.node_units.len() != alloc.node_names.len()
                    {
                        return Err(format!(
                            "job {} has GRES units for {} of its {} nodes",
                            job.job_id,
                            alloc.node_units.len(),
                            alloc.node_names.len()
                        ));
                    }
                    for (at, node) in alloc.node_names.iter().enumerate() {
                        let booked = cpus.entry(node).or_default();
                        if alloc.shares_cores() {
                            if self.nodes.get(node).is_some_and(|n| alloc.cpus > n.cpus) {
                                return Err(format!(
                                    "job {} shares {} CPUs of node {node}, more than it has",
                                    job.job_id, alloc.cpus
                                ));
                            }
                            if held_cpus > 0 {
                                booked.1 += alloc.cpus;
                                booked.2 += alloc.share_slots();
                            }
                        } else {
                            booked.0 += held_cpus;
                        }
                        *mem.entry(node).or_default() += alloc.mem_mb;
                        for (name, idx) in alloc.units_on(at).0 {
                            gres.entry((node, name)).or_default().extend(idx);
                        }
                    }
                }
                (None, true) => {
                    return Err(format!(
                        "job {} holds resources but has no allocation",
                        job.job_id
                    ))
                }
                _ => {}
            }
        }
        for node in self.nodes.values() {
            let waited = epilogs.get(node.name.as_str()).copied().unwrap_or(0);
            if waited != node.epilogs_running {
                return Err(format!(
                    "node {}: {} jobs wait for its epilog, node says {}",
                    node.name, waited, node.epilogs_running
                ));
            }
            let (used_cpus, shared_cpus, slots) =
                cpus.get(node.name.as_str()).copied().unwrap_or_default();
            if used_cpus != node.alloc_cpus || used_cpus > node.cpus {
                return Err(format!(
                    "node {}: {} CPUs allocated to jobs, node says {} of {}",
                    node.name, used_cpus, node.alloc_cpus, node.cpus
                ));
            }
            if shared_cpus != node.alloc_shared_cpus || slots != node.alloc_share_slots {
                return Err(format!(
                    "node {}: jobs share {} CPUs ({} units), node says {} ({} units)",
                    node.name, shared_cpus, slots, node.alloc_shared_cpus, node.alloc_share_slots
                ));
            }
            // Cores of one's own are never shared, and shared ones hold no more jobs than their partitions allow.
            let shared_cores = slots.div_ceil(spur_core::policy::oversubscribe::SLOTS_PER_CORE);
            if u64::from(used_cpus) + shared_cores > u64::from(node.cpus) {
                return Err(format!(
                    "node {}: {} CPUs of jobs' own and {} cores' worth of shared CPUs on {} CPUs",
                    node.name, used_cpus, shared_cores, node.cpus
                ));
            }
            let used_mem = mem.get(node.name.as_str()).copied().unwrap_or(0);
            if used_mem != node.alloc_mem_mb {
                return Err(format!(
                    "node {}: memory ledger {} != {}",
                    node.name, used_mem, node.alloc_mem_mb
                ));
            }
            // A name offered more than once (`gpu:a100:2,gpu:h100:2`) is one ledger: check it once.
            let names: std::collections::BTreeSet<&str> =
                node.gres.iter().map(|g| g.name.as_str()).collect();
            for name in names {
                let mut used = gres.remove(&(node.name.as_str(), name)).unwrap_or_default();
                used.sort_unstable();
                let before = used.len();
                used.dedup();
                if used.len() != before {
                    return Err(format!(
                        "node {}: a {name} unit is allocated twice",
                        node.name
                    ));
                }
                let mut ledger = node.alloc_gres.get(name).cloned().unwrap_or_default();
                ledger.sort_unstable();
                if ledger != used {
                    return Err(format!(
                        "node {}: {name} ledger {ledger:?} != jobs {used:?}",
                        node.name
                    ));
                }
            }
            // A GPU is either held whole or shared out in shards, never both.
            if let Some(layout) = spur_core::policy::gpu_shard::ShardLayout::of(&node.gres) {
                let shards = node
                    .alloc_gres
                    .get(spur_core::policy::gpu_shard::SHARD_GRES);
                let sharded = layout.gpus_of(shards.map_or(&[], Vec::as_slice));
                let whole = node.alloc_gres.get(spur_core::model::records::GPU_GRES);
                if let Some(gpu) = sharded
                    .iter()
                    .find(|g| whole.is_some_and(|w| w.contains(g)))
                {
                    return Err(format!(
                        "node {}: GPU {gpu} is held whole and in shards ({:?})",
                        node.name, node.alloc_gres
                    ));
                }
            }
        }
        if let Some(((node, name), _)) = gres.into_iter().next() {
            return Err(format!("job holds {name} on {node}, which offers none"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod accounting_tests;
#[cfg(test)]
mod array_ids_tests;
#[cfg(test)]
mod history_tests;
#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod job_edit_tests;
#[cfg(test)]
mod node_update_tests;
#[cfg(test)]
mod part_limit_tests;
#[cfg(test)]
mod ports_tests;
#[cfg(test)]
mod prolog_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod triggers_tests;
