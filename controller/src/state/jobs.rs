//! Job lifecycle in the state machine: submit, start, finish, cancel, hold/release, requeue, update, time limits
//! and purging. Resource ledgers on nodes change only here, together with the job that holds them.

use spur_core::api::{
    ApiError, ControlRequest, JobSelector, JobUpdate, NodeUpdateState, SignalScope, SlurmErrno,
};
use spur_core::job::{Allocation, EpochSecs, HoldKind, JobRecord, JobSpec};
use spur_core::states::{JobBaseState, JobReason};
use spur_core::step_exit::OUT_OF_MEMORY_SIGNAL;

use super::{Applied, ApplyResult, ClusterState, Effect, Outcome, TerminateReason};

/// priority/basic's starting point: each submission gets one less, so older jobs sort first.
const BASIC_PRIORITY_TOP: u32 = 0xFFFF_0000;

/// The signal number Slurm records for a batch step that failed to launch.
const LAUNCH_FAILURE_SIGNAL: u32 = 53;

/// A job occupies CPUs, memory and GRES while it runs and until its processes are confirmed gone.
pub(super) fn holds_resources(job: &JobRecord) -> bool {
    started_and_live(job) || job.completing
}

/// Running or suspended: the job has processes on its nodes and keeps its resources.
pub(crate) fn started_and_live(job: &JobRecord) -> bool {
    matches!(job.state, JobBaseState::Running | JobBaseState::Suspended)
}

/// Why a submission is refused: `Checked` refusals come from checking the request against the nodes, which
/// slurmctld does after creating the job record (so they use up a job id).
enum Refusal {
    Before(ApiError),
    Checked(ApiError),
}

/// A submission checked and resolved (partition, default memory, association, time limit), before it gets ids.
struct PreparedSubmission {
    spec: JobSpec,
    partition: String,
    tasks: Vec<u32>,
    time_limit_min: Option<u32>,
}

impl ClusterState {
    pub(super) fn submit(&mut self, spec: JobSpec, now: EpochSecs) -> ApplyResult {
        let prepared = match self.prepare_submission(spec, now) {
            Ok(prepared) => prepared,
            Err(Refusal::Checked(mut refusal)) => {
                // slurmctld creates the job record before it checks the request against the nodes, so a refusal
                // there uses up a job id (salloc names it as revoked).
                if crate::scheduler::refusal_uses_job_id(&refusal) {
                    refusal.job_id = Some(self.next_job_id);
                    self.next_job_id += 1;
                }
                return Err(refusal);
            }
            Err(Refusal::Before(refusal)) => return Err(refusal),
        };
        let first_id = self.next_job_id;
        // What the factors are relative to does not change as the tasks are added: once per submission, not per
        // task (the fair-share table walks every association).
        let totals = (self.settings.priority.is_some() && !prepared.spec.hold)
            .then(|| crate::scheduler::priority::Totals::of(self));
        let tasks: Vec<Option<u32>> = if prepared.tasks.is_empty() {
            vec![None]
        } else {
            prepared.tasks.iter().copied().map(Some).collect()
        };
        for array_task in tasks {
            let job_id = self.next_job_id;
            self.next_job_id += 1;
            self.submissions += 1;
            let record = self.pending_record(
                &prepared,
                job_id,
                self.submissions,
                array_task.map(|task| (first_id, task)),
                totals.as_ref(),
                now,
            );
            self.jobs.insert(job_id, record);
        }
        Ok(Applied {
            job_id: Some(first_id),
            ..Default::default()
        })
    }

    /// The record a submission of `spec` at `now` would create, as `submit` would make it, without changing the
    /// state: what the leader places before it commits the submission (see `Command::SubmitAndStart`). `None` for
    /// what would be refused, and for arrays and held jobs, which are never started as they are submitted.
    pub fn submission_preview(&self, spec: &JobSpec, now: EpochSecs) -> Option<JobRecord> {
        if !startable_at_submission(spec) {
            return None;
        }
        let prepared = self.prepare_submission(spec.clone(), now).ok()?;
        let totals = self
            .settings
            .priority
            .is_some()
            .then(|| crate::scheduler::priority::Totals::of(self));
        Some(self.pending_record(
            &prepared,
            self.next_job_id,
            self.submissions + 1,
            None,
            totals.as_ref(),
            now,
        ))
    }

    /// Everything a submission is checked for and resolved to before it gets a job id.
    fn prepare_submission(
        &self,
        spec: JobSpec,
        now: EpochSecs,
    ) -> Result<PreparedSubmission, Refusal> {
        // As slurmctld checks before anything else: only operators may raise a job's priority with a negative nice.
        if spec.nice < 0 && !self.is_admin(spec.user_id) {
            return Err(Refusal::Before(ApiError::new(SlurmErrno::InvalidNice)));
        }
        let partition = self.resolve_partition(&spec).map_err(Refusal::Before)?;
        // The GPU defaults size the job, so the size checks below see them.
        let spec = self.with_gpu_defaults(spec, &partition);
        self.check_job_reservation(&spec).map_err(Refusal::Before)?;
        self.check_licenses(&spec).map_err(Refusal::Before)?;
        let tasks = match &spec.array {
            Some(text) => crate::scheduler::array_task_ids(text, self.settings.max_array_size)
                .map_err(|detail| {
                    Refusal::Before(ApiError::with_detail(SlurmErrno::InvalidArray, detail))
                })?,
            None => Vec::new(),
        };
        let checked = if spec.immediate {
            crate::scheduler::immediate_check(self, &spec, now)
        } else {
            crate::scheduler::validate_request(self, &spec, &partition)
        };
        checked.map_err(Refusal::Checked)?;
        let mut spec = self.with_default_memory(spec, &partition);
        self.resolve_job_assoc(&mut spec, &partition)
            .map_err(Refusal::Before)?;
        // Slurm caps the wait at max_switch_wait, which is also the wait of a request without one.
        if let Some(sw) = spec.switches.as_mut() {
            let cap = self.settings.max_switch_wait_secs;
            sw.wait_secs = Some(sw.wait_secs.map_or(cap, |w| w.min(cap)));
        }
        let max_wall = self.max_wall_for(&spec, &partition);
        let time_limit_min = spec.time_limit_min.or_else(|| {
            let part = self.partition(&partition);
            match max_wall {
                // slurmctld gives a job without a time limit its QOS's or association's MaxWall (within the
                // partition's MaxTime) before the partition's DefaultTime is looked at.
                Some(wall) => Some(
                    part.and_then(|p| p.max_time_min)
                        .map_or(wall, |m| m.min(wall)),
                ),
                None => part.and_then(|p| p.default_time_min.or(p.max_time_min)),
            }
        });
        Ok(PreparedSubmission {
            spec,
            partition,
            tasks,
            time_limit_min,
        })
    }

    /// A pending job's record as its submission (the `submission`th since the cluster began) creates it.
    fn pending_record(
        &self,
        prepared: &PreparedSubmission,
        job_id: u32,
        submission: u64,
        array: Option<(u32, u32)>,
        totals: Option<&crate::scheduler::priority::Totals>,
        now: EpochSecs,
    ) -> JobRecord {
        let spec = &prepared.spec;
        let priority = BASIC_PRIORITY_TOP
            .saturating_sub(u32::try_from(submission).unwrap_or(u32::MAX))
            .saturating_add_signed(-spec.nice);
        let hold = spec.hold.then_some(HoldKind::User);
        let mut record = JobRecord::pending(
            job_id,
            spec.clone(),
            prepared.partition.clone(),
            now,
            if spec.hold { 0 } else { priority },
        );
        record.array_job_id = array.map(|(first_id, _)| first_id);
        record.array_task_id = array.map(|(_, task)| task);
        record.time_limit_min = prepared.time_limit_min;
        record.alloc_sid = spec.submit_sid;
        record.hold = hold;
        record.billing_weights = self.billing_weights_of(&prepared.partition);
        // slurmctld marks a job of an `OverSubscribe=EXCLUSIVE` partition whole-node as it queues it; an
        // `--oversubscribe` request still shows until the scheduler turns it down.
        record.sharing = resolved_sharing(self, &record).filter(|r| {
            *r == spur_core::oversubscribe::ResolvedSharing::WholeNode
                && !spur_core::oversubscribe::asks_oversubscribe(&record.spec)
        });
        if hold.is_some() {
            record.reason = JobReason::HeldUser;
            // slurmctld evaluates every job once as it is submitted, so a held job shows LastSchedEval from
            // then on; the scheduler, which skips unchanged held jobs, would leave it Unknown.
            record.last_sched_eval = Some(now);
        }
        if let (Some(weights), None, Some(totals)) = (&self.settings.priority, hold, totals) {
            if let Some(p) =
                crate::scheduler::priority::recomputed(self, weights, totals, &record, now)
            {
                record.priority = p;
            }
        }
        record
    }

    /// The `TRESBillingWeights` of partition `name`.
    fn billing_weights_of(&self, name: &str) -> Option<String> {
        self.partition(name)
            .and_then(|p| p.tres_billing_weights.clone())
    }

    /// `DefCpuPerGPU` and `DefMemPerGPU` (the partition's, else the cluster's) for a job that asks for GPUs:
    /// CPUs per GPU unless it gave `-c` or `--cpus-per-gpu`, memory per GPU unless it gave `--mem-per-gpu` (it
    /// sizes the job only without `--mem` and `--mem-per-cpu`, see `JobSpec::mem_per_gpu_in_effect`).
    fn with_gpu_defaults(&self, mut spec: JobSpec, partition: &str) -> JobSpec {
        let asks_gpus = spec
            .gres
            .iter()
            .any(|g| g.name == spur_core::records::GPU_GRES && g.count > 0)
            || spec.options.contains_key("gpus");
        if !asks_gpus {
            return spec;
        }
        let part = self.partition(partition);
        let cpus_given = spec.cpus_per_gpu.is_some() || spec.options.contains_key("cpus-per-task");
        if !cpus_given {
            spec.def_cpus_per_gpu = part
                .and_then(|p| p.def_cpus_per_gpu)
                .or(self.settings.def_cpus_per_gpu);
        }
        if spec.mem_per_gpu_mb.is_none() {
            spec.def_mem_per_gpu_mb = part
                .and_then(|p| p.def_mem_per_gpu_mb)
                .or(self.settings.def_mem_per_gpu_mb);
        }
        spec
    }

    /// slurmctld records the DefMemPerCPU that applies (the partition's, else the cluster's) in a job that asked
    /// for no memory, so `scontrol show job` says `MinMemoryCPU=` and the TRES include the memory from the
    /// start. So does Slurm 22.05 for `--exclusive` jobs: they get the memory per CPU for each CPU of the node,
    /// not the node's memory (`TRES=cpu=2,mem=2G` on the reference node), and sharing nodes with them stays possible.
    fn with_default_memory(&self, mut spec: JobSpec, partition: &str) -> JobSpec {
        if spec.mem_per_node_mb.is_none()
            && spec.mem_per_cpu_mb.is_none()
            && spec.mem_per_gpu_in_effect().is_none()
            && self.settings.memory_is_consumable
        {
            spec.mem_per_cpu_mb = self
                .partition(partition)
                .and_then(|p| p.def_mem_per_cpu_mb)
                .or(self.settings.def_mem_per_cpu_mb);
        }
        spec
    }

    pub(crate) fn resolve_partition(&self, spec: &JobSpec) -> Result<String, ApiError> {
        match &spec.partition {
            Some(name) => {
                // `-p a,b` names candidates; Spur places the job in the first one that exists.
                let chosen = name
                    .split(',')
                    .find(|candidate| self.partition(candidate).is_some());
                chosen.map(str::to_string).ok_or_else(|| {
                    // slurmctld prints an empty partition name (`-p ''`) as C's "(null)".
                    let shown = if name.is_empty() { "(null)" } else { name };
                    ApiError::with_detail(
                        SlurmErrno::InvalidPartitionName,
                        format!("invalid partition specified: {shown}"),
                    )
                })
            }
            None => self
                .default_partition()
                .map(|p| p.name.clone())
                .ok_or_else(|| {
                    ApiError::with_detail(
                        SlurmErrno::DefaultPartitionNotSet,
                        "No partition specified or system default partition",
                    )
                }),
        }
    }

    /// priority/multifactor's recomputed priorities; only pending jobs change.
    pub(super) fn apply_priorities(&mut self, priorities: &[(u32, u32)]) {
        for &(job_id, priority) in priorities {
            if let Some(job) = self.jobs.get_mut(&job_id) {
                if job.state == JobBaseState::Pending && job.hold.is_none() && !job.priority_fixed {
                    job.priority = priority;
                }
            }
        }
    }

    /// Records the backfill scheduler's expected starts; only pending jobs carry one.
    pub(super) fn apply_forecasts(
        &mut self,
        forecasts: Vec<(u32, Option<crate::scheduler::Forecast>)>,
    ) {
        for (job_id, forecast) in forecasts {
            let Some(job) = self.jobs.get_mut(&job_id) else {
                continue;
            };
            if job.state != JobBaseState::Pending {
                continue;
            }
            // Slurm marks a job the backfill scheduler planned (`Scheduler=Backfill:*`) and keeps the mark.
            job.backfill_scheduled |= forecast.is_some();
            job.expected_start = forecast.as_ref().map(|f| f.start);
            job.sched_nodes = forecast.map(|f| f.nodes);
        }
    }

    /// Texts that replace pending reasons; set after the reasons, which clear any earlier text when they change.
    pub(super) fn apply_reason_descs(&mut self, descs: Vec<(u32, String)>) {
        for (job_id, desc) in descs {
            if let Some(job) = self.jobs.get_mut(&job_id) {
                if job.state == JobBaseState::Pending {
                    job.state_desc = Some(desc);
                }
            }
        }
    }

    pub(super) fn apply_schedule(
        &mut self,
        starts: Vec<(u32, Allocation)>,
        reasons: Vec<(u32, JobReason)>,
        now: EpochSecs,
    ) -> Applied {
        let mut applied = Applied::default();
        for (job_id, reason) in reasons {
            // Slurm resolves a job's sharing against its partition whenever it tries to place it.
            if matches!(reason, JobReason::Resources | JobReason::NodeNotAvail) {
                self.note_sharing(job_id);
            }
            let kill = reason == JobReason::DepInvalid
                && self
                    .jobs
                    .get(&job_id)
                    .is_some_and(|job| self.kills_on_invalid_dependency(job));
            if let Some(job) = self.jobs.get_mut(&job_id) {
                if kill && job.state == JobBaseState::Pending {
                    // Slurm cancels it with the reason it had just found (`DependencyNeverSatisfied`).
                    job.reason = reason;
                    job.state = JobBaseState::Cancelled;
                    job.last_sched_eval = Some(now);
                    job.end_time = Some(now);
                    job.start_time.get_or_insert(now);
                    continue;
                }
                if job.state == JobBaseState::Pending {
                    if job.reason != reason {
                        job.state_desc = None;
                    }
                    job.reason = reason;
                    job.last_sched_eval = Some(now);
                    if job.eligible_time.is_none() && reason_is_eligible(reason) {
                        job.eligible_time = Some(now);
                    }
                    // Slurm starts accruing age priority once the job is eligible.
                    if job.accrue_time.is_none() && reason_is_eligible(reason) {
                        job.accrue_time = Some(now);
                    }
                }
            }
        }
        let partial = self.het_starts_whole(&starts);
        for (job_id, _) in &starts {
            self.note_sharing(*job_id);
        }
        for (job_id, alloc) in starts {
            if partial.contains(&job_id) {
                continue;
            }
            // The plan was made from an older state; re-check so a stale plan never double-books.
            let fits = self
                .jobs
                .get(&job_id)
                .is_some_and(|j| j.state == JobBaseState::Pending && j.hold.is_none())
                && crate::scheduler::allocation_fits(self, &alloc);
            if !fits {
                continue;
            }
            self.book(&alloc);
            let preemptable = self.preemptable(&job_id);
            let exempt = self.settings.preempt_exempt_secs;
            // A job is billed by its partition's weights as they are when it starts.
            let billing_weights = self
                .jobs
                .get(&job_id)
                .and_then(|j| self.billing_weights_of(&j.partition));
            let Some(job) = self.jobs.get_mut(&job_id) else {
                continue;
            };
            // Slurm's PreemptEligibleTime: the start plus PreemptExemptTime.
            job.preemptable_time = preemptable.then_some(now + i64::from(exempt));
            job.preempt_time = None;
            job.state = JobBaseState::Running;
            job.reason = JobReason::NoReason;
            job.state_desc = None;
            job.start_time = Some(now);
            job.expected_start = None;
            job.sched_nodes = None;
            job.backfill_scheduled = false;
            job.eligible_time.get_or_insert(now);
            job.accrue_time.get_or_insert(now);
            job.last_sched_eval = Some(now);
            job.alloc = Some(alloc);
            job.billing_weights = billing_weights;
            let start = self.start_effects(job_id);
            applied.effects.extend(start);
        }
        applied
    }

    fn book(&mut self, alloc: &Allocation) {
        for (at, name) in alloc.node_names.iter().enumerate() {
            if let Some(node) = self.nodes.get_mut(name) {
                node.book_cpus(alloc);
                node.alloc_mem_mb += alloc.mem_mb;
                for (gres, idx) in alloc.units_on(at).0 {
                    node.alloc_gres.entry(gres.clone()).or_default().extend(idx);
                }
            }
        }
        for name in &alloc.node_names {
            self.refresh_node_state(name);
        }
    }

    pub(super) fn release(&mut self, alloc: &Allocation, now: EpochSecs) {
        for (at, name) in alloc.node_names.iter().enumerate() {
            if let Some(node) = self.nodes.get_mut(name) {
                node.release_cpus(alloc);
                node.alloc_mem_mb = node.alloc_mem_mb.saturating_sub(alloc.mem_mb);
                for (gres, idx) in alloc.units_on(at).0 {
                    if let Some(used) = node.alloc_gres.get_mut(gres) {
                        used.retain(|i| !idx.contains(i));
                        if used.is_empty() {
                            node.alloc_gres.remove(gres);
                        }
                    }
                }
                node.last_busy_time = Some(now);
            }
        }
        for name in &alloc.node_names {
            self.refresh_node_state(name);
        }
    }

    /// The agent reports how run `run` of the job ended. A result of an earlier run (its acknowledgement was
    /// lost, and the job was requeued meanwhile) is acknowledged and otherwise ignored: it must not end the run
    /// now in progress.
    pub(super) fn finish_run(
        &mut self,
        job_id: u32,
        outcome: Outcome,
        now: EpochSecs,
        run: Option<u32>,
    ) -> Applied {
        let Some(job) = self.jobs.get(&job_id) else {
            return Applied::default();
        };
        match run {
            Some(run) if run != job.restarts => {
                let mut applied = Applied::default();
                if let Some(node) = job.alloc.as_ref().and_then(|a| a.node_names.first()) {
                    applied.effects.push(Effect::AckFinished {
                        node: node.clone(),
                        job_id,
                        run: Some(run),
                    });
                }
                applied
            }
            _ => self.finish(job_id, outcome, now, run),
        }
    }

    /// The agent reports the batch script of the current run ended (or never started).
    pub(super) fn finish(
        &mut self,
        job_id: u32,
        outcome: Outcome,
        now: EpochSecs,
        run: Option<u32>,
    ) -> Applied {
        let mut applied = Applied::default();
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return applied;
        };
        if !holds_resources(job) {
            // A duplicate report (agent retry after failover): already final.
            if let Some(node) = job.alloc.as_ref().and_then(|a| a.node_names.first()) {
                applied.effects.push(Effect::AckFinished {
                    node: node.clone(),
                    job_id,
                    run,
                });
            }
            return applied;
        }
        // Slurm shows a batch step that could not start as `ExitCode=0:53` (its launch-failure status).
        // Slurm 22.05 shows a job whose memory cgroup killed a process as `ExitCode=0:125`, whatever the script
        // returned afterwards.
        let (code, signal, oom) = match outcome {
            Outcome::Exited { code, signal } => (code, signal, false),
            Outcome::LaunchFailed => (0, LAUNCH_FAILURE_SIGNAL, false),
            Outcome::OutOfMemory { .. } => (0, OUT_OF_MEMORY_SIGNAL, true),
            Outcome::PrologFailed => (0, 0, false),
        };
        let prolog_failed = outcome == Outcome::PrologFailed;
        if prolog_failed && !job.requeue_pending {
            // As slurmctld: the job goes back to the queue held by the administrator, whatever its --requeue.
            job.hold = Some(HoldKind::Admin);
            job.state_desc = Some("launch failed requeued held".to_string());
            job.requeue_pending = true;
        }
        if started_and_live(job) && !job.requeue_pending && oom {
            job.state = JobBaseState::OutOfMemory;
            job.reason = JobReason::FailOom;
            job.end_time = Some(now);
        } else if started_and_live(job) && !job.requeue_pending {
            job.state = if signal == 0 && code == 0 {
                JobBaseState::Completed
            } else {
                JobBaseState::Failed
            };
            // Slurm 22.05 reports a batch script killed by a signal, like one that never started, as a launch
            // failure; a non-zero exit is NonZeroExitCode.
            job.reason = if job.state == JobBaseState::Failed {
                if signal != 0 {
                    JobReason::FailLaunch
                } else {
                    JobReason::FailExitCode
                }
            } else {
                JobReason::NoReason
            };
            job.end_time = Some(now);
        }
        // Slurm's ExitCode is `code:signal`; a job killed by a signal shows code 0.
        job.exit_code = if signal != 0 { 0 } else { code };
        job.exit_signal = signal;
        job.completing = false;
        let alloc = super::preempt::held_allocation(job);
        job.preempt_suspended = false;
        job.prolog_pending.clear();
        // The other nodes of a multi-node job run their epilog with the job as it ended (its first node's
        // supervisor runs it there); an allocation has no supervisor, so all of its nodes do.
        let skipped = usize::from(job.spec.script.is_some());
        let epilog_nodes: Vec<String> = alloc
            .as_ref()
            .map(|a| a.node_names.iter().skip(skipped).cloned().collect())
            .unwrap_or_default();
        if !epilog_nodes.is_empty() {
            let ended = Box::new(job.clone());
            applied
                .effects
                .extend(epilog_nodes.iter().map(|node| Effect::NodeEpilog {
                    node: node.clone(),
                    job: ended.clone(),
                }));
        }
        let alloc_first_node = alloc.as_ref().and_then(|a| a.node_names.first().cloned());
        let requeue_pending = job.requeue_pending;
        if let Some(alloc) = alloc {
            if let Some(node) = alloc.node_names.first() {
                applied.effects.push(Effect::AckFinished {
                    node: node.clone(),
                    job_id,
                    run,
                });
            }
            self.release(&alloc, now);
        }
        // A requeued job goes back to the queue at once and is not held for its epilogs.
        if !requeue_pending {
            self.hold_for_epilogs(job_id, &epilog_nodes);
        }
        self.end_running_steps(job_id, now);
        // A requeued leader's components are requeued on their own (a requeue names them all).
        if !requeue_pending {
            applied.effects.extend(self.end_het_followers(job_id, now));
        }
        if requeue_pending {
            self.return_to_queue(job_id, now);
        }
        if prolog_failed {
            if let Some(node) = alloc_first_node {
                let drained = self.update_nodes(
                    &[node],
                    NodeUpdateState::Drain,
                    Some("Prolog error".to_string()),
                    0,
                    now,
                );
                if let Ok(more) = drained {
                    applied.effects.extend(more.effects);
                }
            }
        }
        applied
    }

    pub(super) fn control(
        &mut self,
        caller_uid: u32,
        request: ControlRequest,
        now: EpochSecs,
    ) -> ApplyResult {
        match request {
            ControlRequest::UpdateNode {
                nodes,
                state,
                reason,
            } => {
                if !self.is_admin(caller_uid) {
                    return Err(ApiError::new(SlurmErrno::UserIdMissing));
                }
                self.update_nodes(&nodes, state, reason, caller_uid, now)
            }
            ControlRequest::UpdatePartition { name, state } => {
                if !self.is_admin(caller_uid) {
                    return Err(ApiError::new(SlurmErrno::AccessDenied));
                }
                self.update_partition(&name, state)
            }
            ControlRequest::CreatePartition { spec } => self.create_partition(caller_uid, spec),
            ControlRequest::ModifyPartition { spec } => self.modify_partition(caller_uid, spec),
            ControlRequest::DeletePartition { name } => self.delete_partition(caller_uid, &name),
            ControlRequest::UpdateStep {
                job_id,
                step_id,
                time_limit_min,
            } => self.update_step(caller_uid, job_id, step_id, time_limit_min),
            ControlRequest::NotifyJob { job_id, message } => {
                self.notify_job(caller_uid, job_id, message)
            }
            ControlRequest::CreateNode { definition } => self.create_node(caller_uid, &definition),
            ControlRequest::DeleteNode { nodes } => self.delete_nodes(caller_uid, &nodes),
            ControlRequest::Cancel { job } => {
                let forget_task = job.array_task.is_some();
                self.for_each_job(&job, caller_uid, |s, id| {
                    if forget_task && s.is_unsplit_array_task(id) {
                        s.jobs.remove(&id);
                        return Ok(Vec::new());
                    }
                    let effects = s.cancel(id, now)?;
                    if let Some(job) = s.jobs.get_mut(&id) {
                        job.cancelled_by = Some(caller_uid);
                    }
                    Ok(effects)
                })
            }
            ControlRequest::Signal { job, signal, scope } => {
                self.for_each_job(&job, caller_uid, |s, id| s.signal(id, signal, scope))
            }
            // Slurm holds and releases through its job update, which answers another user with "Invalid user id".
            ControlRequest::Hold { job, by_user } => {
                let admin = self.is_admin(caller_uid) && !by_user;
                self.for_each_owned_job(&job, caller_uid, SlurmErrno::UserIdMissing, |s, id| {
                    s.hold(id, admin)
                })
            }
            ControlRequest::Release { job } => {
                let admin = self.is_admin(caller_uid);
                self.for_each_owned_job(&job, caller_uid, SlurmErrno::UserIdMissing, |s, id| {
                    s.release_hold(id, admin)
                })
            }
            ControlRequest::Requeue { job, hold } => {
                self.for_each_job(&job, caller_uid, |s, id| s.requeue(id, hold, now))
            }
            ControlRequest::Complete {
                job,
                exit_code,
                signal,
            } => self.for_each_job(&job, caller_uid, |s, id| {
                let outcome = Outcome::Exited {
                    code: exit_code,
                    signal,
                };
                match s.jobs.get(&id) {
                    // A het job's other components ended with its leader just before.
                    Some(j)
                        if j.is_het_follower()
                            && !holds_resources(j)
                            && j.state != JobBaseState::Pending =>
                    {
                        Ok(Vec::new())
                    }
                    Some(j) if j.state == JobBaseState::Pending => s.cancel(id, now),
                    Some(j) if holds_resources(j) => Ok(s.finish(id, outcome, now, None).effects),
                    _ => Err(ApiError::new(SlurmErrno::AlreadyDone)),
                }
            }),
            ControlRequest::UpdateJob { job, update } => {
                let admin = self.is_admin(caller_uid);
                self.for_each_owned_job(&job, caller_uid, SlurmErrno::UserIdMissing, |s, id| {
                    s.update_job(id, &update, admin)
                })
            }
            ControlRequest::CreateStep {
                job_id,
                name,
                num_tasks,
                num_cpus,
                time_limit_min,
                srun_host,
                srun_pid,
                launch,
            } => self.create_step(
                caller_uid,
                super::steps::NewStep {
                    job_id,
                    name,
                    num_tasks,
                    num_cpus,
                    time_limit_min,
                    srun_host,
                    srun_pid,
                    launch,
                },
                now,
            ),
            ControlRequest::Suspend { job } => self.suspend_or_resume(&job, caller_uid, now, true),
            ControlRequest::Resume { job } => self.suspend_or_resume(&job, caller_uid, now, false),
            ControlRequest::CancelStep { job_id, step_id } => {
                self.cancel_step(caller_uid, job_id, step_id, now)
            }
            ControlRequest::SignalStep {
                job_id,
                step_id,
                signal,
            } => self.signal_step(caller_uid, job_id, step_id, signal),
            ControlRequest::CompleteStep {
                job_id,
                step_id,
                exit_code,
                signal,
            } => self.complete_step(caller_uid, job_id, step_id, exit_code, signal, now),
            ControlRequest::Top { job_list } => self.top(caller_uid, &job_list),
            ControlRequest::CreateReservation { request } => {
                self.create_reservation(caller_uid, request, now)
            }
            ControlRequest::UpdateReservation { request } => {
                self.update_reservation(caller_uid, request, now)
            }
            ControlRequest::DeleteReservation { name } => {
                self.delete_reservation(caller_uid, &name, now)
            }
            ControlRequest::Accounting { request } => self.accounting_request(caller_uid, &request),
        }
    }

    pub fn is_admin(&self, uid: u32) -> bool {
        uid == 0 || self.settings.admin_uids.contains(&uid)
    }

    /// Resolves `12` (a job, or every task of array 12) and `12_3`, checks ownership (another user's job is
    /// `Access/permission denied`, as Slurm's kill and requeue answer), and applies `op` to each.
    fn for_each_job(
        &mut self,
        selector: &JobSelector,
        caller_uid: u32,
        op: impl FnMut(&mut ClusterState, u32) -> Result<Vec<Effect>, ApiError>,
    ) -> ApplyResult {
        self.for_each_owned_job(selector, caller_uid, SlurmErrno::AccessDenied, op)
    }

    /// `for_each_job` with the errno a non-owner gets.
    fn for_each_owned_job(
        &mut self,
        selector: &JobSelector,
        caller_uid: u32,
        denied: SlurmErrno,
        mut op: impl FnMut(&mut ClusterState, u32) -> Result<Vec<Effect>, ApiError>,
    ) -> ApplyResult {
        let ids = self.select_jobs(selector);
        if ids.is_empty() {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        }
        let mut applied = Applied::default();
        let single = ids.len() == 1;
        for id in ids {
            let Some(job) = self.jobs.get(&id) else {
                continue;
            };
            let display = job.display_id();
            let result = if job.spec.user_id != caller_uid && !self.is_admin(caller_uid) {
                Err(ApiError::new(denied))
            } else {
                op(self, id)
            };
            match result {
                Ok(effects) => applied.effects.extend(effects),
                Err(e) if single => return Err(e),
                Err(e) => applied.failures.push((display, e)),
            }
        }
        Ok(applied)
    }

    pub fn select_jobs(&self, selector: &JobSelector) -> Vec<u32> {
        let id = selector.job_id;
        match selector.array_task {
            Some(task) => self
                .array_from(id)
                .filter(|j| j.array_task_id == Some(task))
                .map(|j| j.job_id)
                .take(1)
                .collect(),
            None => {
                let array: Vec<u32> = self
                    .array_from(id)
                    .filter(|j| j.array_job_id == Some(id))
                    .map(|j| j.job_id)
                    .collect();
                if !array.is_empty() {
                    array
                } else if self.jobs.contains_key(&id) {
                    self.het_expand(id)
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// Job `id` (when it is still kept) followed by the tasks of the array whose first id is `id`, if it is one.
    /// A submission gives an array's tasks consecutive ids from the first, and job ids are never reused, so the
    /// tasks of array `id` are the records from `id` on that name it as their array: no walk over the whole table
    /// per request (a `scancel -u` over 100,000 jobs made one per job).
    fn array_from(&self, id: u32) -> impl Iterator<Item = &JobRecord> + '_ {
        self.jobs
            .range(id..)
            .map(|(_, job)| job)
            .take_while(move |job| job.job_id == id || job.array_job_id == Some(id))
    }

    /// `--kill-on-invalid-dep`, else slurm.conf's `SchedulerParameters=kill_invalid_depend`.
    pub fn kills_on_invalid_dependency(&self, job: &JobRecord) -> bool {
        job.spec
            .kill_on_invalid_dep
            .unwrap_or(self.settings.kill_invalid_depend)
    }

    /// Slurm keeps an array's never-started tasks as bits of one pending record; cancelling one of them by
    /// `ID_TASK` clears its bit, so the task leaves no record at all (`squeue -j ID_TASK` finds nothing). The
    /// array's last remaining task stays a record, as Slurm's array record does.
    fn is_unsplit_array_task(&self, job_id: u32) -> bool {
        let Some(job) = self.jobs.get(&job_id) else {
            return false;
        };
        let Some(array_id) = job.array_job_id else {
            return false;
        };
        let never_ran =
            job.state == JobBaseState::Pending && job.start_time.is_none() && job.restarts == 0;
        never_ran
            && self
                .array_from(array_id)
                .any(|j| j.job_id != job_id && j.array_job_id == Some(array_id))
    }

    fn cancel(&mut self, job_id: u32, now: EpochSecs) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        if job.is_het_follower()
            && matches!(job.state, JobBaseState::Running | JobBaseState::Suspended)
            && !job.completing
        {
            return Ok(self.cancel_het_follower(job_id, now));
        }
        match job.state {
            JobBaseState::Pending => {
                // Slurm keeps the pending reason a cancelled job had (`JobHeldUser`, `Dependency`, ...).
                job.state = JobBaseState::Cancelled;
                job.end_time = Some(now);
                job.start_time.get_or_insert(now);
                // A het job waiting as a whole goes as a whole.
                Ok(self.end_het_followers(job_id, now))
            }
            JobBaseState::Running | JobBaseState::Suspended if !job.completing => {
                job.state = JobBaseState::Cancelled;
                job.completing = true;
                job.end_time = Some(now);
                let node = first_node(job);
                Ok(vec![Effect::Terminate {
                    node,
                    job_id,
                    reason: TerminateReason::Cancelled,
                    at: now,
                    run: None,
                }])
            }
            _ => Err(ApiError::new(SlurmErrno::AlreadyDone)),
        }
    }

    /// `scontrol suspend|resume`: operators only, as in Slurm. Suspending stops every process of the job
    /// (SIGSTOP) and freezes its run time; resuming continues them (SIGCONT) and the clock.
    fn suspend_or_resume(
        &mut self,
        selector: &JobSelector,
        caller_uid: u32,
        now: EpochSecs,
        suspend: bool,
    ) -> ApplyResult {
        if self.select_jobs(selector).is_empty() {
            return Err(ApiError::new(SlurmErrno::UnexpectedMessage));
        }
        if !self.is_admin(caller_uid) {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        self.for_each_job(selector, caller_uid, |s, id| {
            let Some(job) = s.jobs.get_mut(&id) else {
                return Err(ApiError::new(SlurmErrno::InvalidJobId));
            };
            let (signal, next) = match (job.state, suspend) {
                (JobBaseState::Pending, _) => return Err(ApiError::new(SlurmErrno::JobPending)),
                (_, _) if job.completing || job.state.is_finished() => {
                    return Err(ApiError::new(SlurmErrno::AlreadyDone))
                }
                // Its CPUs are lent to a preemptor: only the scheduler resumes it, once they are free.
                (JobBaseState::Suspended, false) if job.preempt_suspended => {
                    return Err(ApiError::new(SlurmErrno::TransitionStateNoUpdate))
                }
                // Suspending a suspended job is no error in Slurm, and changes nothing.
                (JobBaseState::Suspended, true) => return Ok(Vec::new()),
                (JobBaseState::Running, false) => {
                    return Err(ApiError::new(SlurmErrno::JobNotSuspended))
                }
                (_, true) => (libc::SIGSTOP, JobBaseState::Suspended),
                (_, false) => (libc::SIGCONT, JobBaseState::Running),
            };
            if suspend {
                job.pre_suspend_secs = job.run_secs(now);
            } else {
                job.end_time = super::preempt::end_after_resume(job, now);
            }
            job.suspend_time = Some(now);
            job.state = next;
            Ok(vec![Effect::Signal {
                node: first_node(job),
                job_id: id,
                signal,
                scope: SignalScope::All,
                step_pids: Vec::new(),
            }])
        })
    }

    pub(super) fn signal(
        &mut self,
        job_id: u32,
        signal: i32,
        scope: SignalScope,
    ) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        match job.state {
            // As in Slurm, signalling the steps of a job that has none running succeeds and changes nothing.
            JobBaseState::Running if !job.completing && scope == SignalScope::Steps => {
                let step_pids: Vec<u32> = job
                    .steps
                    .iter()
                    .filter(|s| s.is_running() && s.srun_pid != 0)
                    .map(|s| s.srun_pid)
                    .collect();
                if step_pids.is_empty() {
                    return Ok(Vec::new());
                }
                let mut effects = vec![Effect::Signal {
                    node: first_node(job),
                    job_id,
                    signal,
                    scope,
                    step_pids,
                }];
                effects.extend(super::steps::signal_step_tasks(
                    job,
                    signal,
                    job.steps.iter().filter(|s| s.is_running()),
                ));
                Ok(effects)
            }
            JobBaseState::Running if !job.completing => Ok(vec![Effect::Signal {
                node: first_node(job),
                job_id,
                signal,
                scope,
                step_pids: Vec::new(),
            }]),
            JobBaseState::Pending => Err(ApiError::new(SlurmErrno::JobPending)),
            _ => Err(ApiError::new(SlurmErrno::AlreadyDone)),
        }
    }

    fn hold(&mut self, job_id: u32, admin: bool) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        // Slurm also accepts holding a running job: it keeps running, and a requeue brings it back held.
        let holdable = job.state == JobBaseState::Pending
            || (job.state == JobBaseState::Running && !job.completing);
        if !holdable {
            return Err(ApiError::new(SlurmErrno::JobNotPending));
        }
        let kind = if admin {
            HoldKind::Admin
        } else {
            HoldKind::User
        };
        job.hold = Some(kind);
        job.priority = 0;
        // A held job is not eligible: Slurm shows EligibleTime=Unknown until a scheduling pass after the release.
        if job.state == JobBaseState::Pending {
            job.eligible_time = None;
        }
        job.reason = match kind {
            HoldKind::Admin => JobReason::Held,
            HoldKind::User => JobReason::HeldUser,
        };
        Ok(Vec::new())
    }

    fn release_hold(&mut self, job_id: u32, admin: bool) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        if job.state != JobBaseState::Pending {
            return Err(ApiError::new(SlurmErrno::JobNotPending));
        }
        if job.hold == Some(HoldKind::Admin) && !admin {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        if job.hold.is_none() {
            return Ok(Vec::new());
        }
        // Slurm gives a released job a fresh basic priority, below every job submitted or released before.
        self.submissions += 1;
        let fresh =
            BASIC_PRIORITY_TOP.saturating_sub(u32::try_from(self.submissions).unwrap_or(u32::MAX));
        if let Some(job) = self.jobs.get_mut(&job_id) {
            job.hold = None;
            job.state_desc = None;
            job.priority = fresh.saturating_add_signed(-job.spec.nice);
            job.reason = JobReason::NoReason;
        }
        Ok(Vec::new())
    }

    pub(super) fn requeue(
        &mut self,
        job_id: u32,
        hold: bool,
        now: EpochSecs,
    ) -> Result<Vec<Effect>, ApiError> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        if !job.spec.requeue {
            return Err(ApiError::new(SlurmErrno::DisabledRequeue));
        }
        if hold {
            job.hold = Some(HoldKind::User);
            job.state_desc = Some("job requeued in held state".to_string());
        }
        match job.state {
            JobBaseState::Running | JobBaseState::Suspended if !job.completing => {
                job.requeue_pending = true;
                job.completing = true;
                let node = first_node(job);
                Ok(vec![Effect::Terminate {
                    node,
                    job_id,
                    reason: TerminateReason::Requeued,
                    at: now,
                    run: None,
                }])
            }
            JobBaseState::Completed
            | JobBaseState::Failed
            | JobBaseState::Cancelled
            | JobBaseState::Timeout
            | JobBaseState::NodeFail
            | JobBaseState::OutOfMemory
                if !job.completing =>
            {
                self.return_to_queue(job_id, now);
                Ok(Vec::new())
            }
            JobBaseState::Pending => Err(ApiError::new(SlurmErrno::JobPending)),
            _ => Err(ApiError::new(SlurmErrno::TransitionStateNoUpdate)),
        }
    }

    fn return_to_queue(&mut self, job_id: u32, now: EpochSecs) {
        self.end_epilog_holds(job_id);
        if let Some(job) = self.jobs.get_mut(&job_id) {
            job.state = JobBaseState::Pending;
            job.completing = false;
            job.requeue_pending = false;
            job.restarts += 1;
            job.warning_signal_sent = false;
            job.alloc = None;
            job.start_time = None;
            job.end_time = None;
            job.exit_code = 0;
            job.exit_signal = 0;
            // A new run numbers its steps from 0 again.
            job.steps.clear();
            job.next_step_id = 0;
            job.preemptable_time = None;
            job.preempt_suspended = false;
            job.prolog_pending.clear();
            job.extern_step = false;
            // Slurm delays a requeued job's eligibility a little; Spur makes it eligible at once.
            job.eligible_time = Some(now);
            job.reason = match job.hold {
                Some(HoldKind::Admin) => JobReason::Held,
                Some(HoldKind::User) => JobReason::HeldUser,
                None => JobReason::NoReason,
            };
        }
    }

    fn update_job(
        &mut self,
        job_id: u32,
        update: &JobUpdate,
        admin: bool,
    ) -> Result<Vec<Effect>, ApiError> {
        let partition_exists = update
            .partition
            .as_ref()
            .map(|p| self.partition(p).is_some());
        let reservation = match (&update.reservation, self.jobs.get(&job_id)) {
            (Some(name), Some(job)) if !name.is_empty() => {
                self.check_reservation_for(name, job.spec.user_id, job.spec.account.as_deref())?;
                Some(Some(name.clone()))
            }
            (Some(_), _) => Some(None),
            (None, _) => None,
        };
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        if job.is_finished() {
            return Err(ApiError::new(SlurmErrno::AlreadyDone));
        }
        if let Some(limit) = update.time_limit_min {
            let raising = match (limit, job.time_limit_min) {
                (None, Some(_)) => true,
                (Some(new), Some(old)) => new > old,
                _ => false,
            };
            if raising && !admin {
                return Err(ApiError::new(SlurmErrno::AccessDenied));
            }
            job.time_limit_min = limit;
            job.spec.time_limit_min = limit;
        }
        if let Some(name) = &update.name {
            job.spec.name = name.clone();
        }
        // As in Slurm, a started job keeps the reservation it runs in.
        if let (Some(reservation), JobBaseState::Pending) = (reservation, job.state) {
            job.spec.reservation = reservation;
        }
        if let Some(comment) = &update.comment {
            job.spec.comment = Some(comment.clone());
        }
        if let Some(nice) = update.nice {
            if nice < 0 && !admin {
                return Err(ApiError::new(SlurmErrno::AccessDenied));
            }
            // Slurm leaves nice alone on a job whose priority an administrator set; a held job keeps its 0.
            if !job.priority_fixed {
                if job.priority != 0 {
                    job.priority = job.priority.saturating_add_signed(job.spec.nice - nice);
                }
                job.spec.nice = nice;
            }
        }
        let mut hold_now = false;
        if let Some(priority) = update.priority {
            // Users may not set priorities at all: raising is denied, lowering is pointed to nice (Slurm's
            // ESLURM_PRIO_RESET).
            if !admin && priority > job.priority {
                return Err(ApiError::new(SlurmErrno::AccessDenied));
            }
            if !admin {
                return Err(ApiError::new(SlurmErrno::PrioReset));
            }
            // Priority 0 is how Slurm holds a job.
            hold_now = priority == 0;
            job.priority = priority;
            job.priority_fixed = priority != 0;
        }
        let pending = job.state == JobBaseState::Pending;
        if let Some(partition) = &update.partition {
            if !pending {
                return Err(ApiError::new(SlurmErrno::JobNotPending));
            }
            if partition_exists != Some(true) {
                return Err(ApiError::new(SlurmErrno::InvalidPartitionName));
            }
            job.partition = partition.clone();
            job.spec.partition = Some(partition.clone());
        }
        if let Some(tasks) = update.num_tasks {
            if !pending {
                return Err(ApiError::new(SlurmErrno::JobNotPending));
            }
            // What scontrol sends is below NO_VAL; other clients (the C API, REST) are held to the same rule.
            if !(1..spur_core::values::NO_VAL).contains(&tasks) {
                return Err(ApiError::new(SlurmErrno::BadTaskCount));
            }
            job.spec.ntasks = Some(tasks);
        }
        if let Some(dependency) = &update.dependency {
            if !pending {
                return Err(ApiError::new(SlurmErrno::JobNotPending));
            }
            job.spec.dependency = if dependency.is_empty() {
                None
            } else {
                Some(dependency.clone())
            };
        }
        if let Some(begin) = update.begin_time {
            if !pending {
                return Err(ApiError::new(SlurmErrno::JobNotPending));
            }
            job.spec.begin_time = Some(begin);
        }
        if hold_now {
            return self.hold(job_id, true);
        }
        Ok(Vec::new())
    }

    pub(super) fn warning_signal_due(&mut self, job_ids: &[u32]) -> Applied {
        let mut applied = Applied::default();
        for &job_id in job_ids {
            let Some(job) = self.jobs.get_mut(&job_id) else {
                continue;
            };
            let Some((signal, _, batch_only)) = job.spec.signal else {
                continue;
            };
            if job.state != JobBaseState::Running || job.completing || job.warning_signal_sent {
                continue;
            }
            job.warning_signal_sent = true;
            let scope = if batch_only {
                SignalScope::BatchShell
            } else {
                SignalScope::All
            };
            applied.effects.push(Effect::Signal {
                node: first_node(job),
                job_id,
                signal,
                scope,
                step_pids: Vec::new(),
            });
        }
        applied
    }

    pub(super) fn time_limit_reached(&mut self, job_ids: &[u32], now: EpochSecs) -> Applied {
        let mut applied = Applied::default();
        for &job_id in job_ids {
            let Some(job) = self.jobs.get_mut(&job_id) else {
                continue;
            };
            if job.state != JobBaseState::Running || job.completing {
                continue;
            }
            job.state = JobBaseState::Timeout;
            job.reason = JobReason::FailTimeout;
            job.completing = true;
            job.end_time = Some(now);
            applied.effects.push(Effect::Terminate {
                node: first_node(job),
                job_id,
                reason: TerminateReason::TimeLimit,
                at: now,
                run: None,
            });
        }
        applied
    }

    /// The node under a running job failed: NODE_FAIL, resources released (requeue comes with the steps issue).
    pub(super) fn node_failed(&mut self, job_id: u32, node: &str, now: EpochSecs) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        job.state = JobBaseState::NodeFail;
        job.reason = JobReason::FailDownNode;
        job.completing = false;
        job.end_time = Some(now);
        let batch_host = first_node(job);
        let alloc = super::preempt::held_allocation(job);
        job.preempt_suspended = false;
        if let Some(alloc) = alloc {
            self.release(&alloc, now);
        }
        let mut nodes = vec![node.to_string()];
        // The batch script runs on the first node: when another node of the job failed, that is where the job
        // must stop, or it runs on with its resources already handed to other jobs.
        if !batch_host.is_empty() && batch_host != node {
            nodes.push(batch_host);
        }
        nodes
            .into_iter()
            .map(|node| Effect::Terminate {
                node,
                job_id,
                reason: TerminateReason::NodeFail,
                at: now,
                run: None,
            })
            .collect()
    }

    /// `--no-kill`: a running job loses a failed node other than its first and runs on (slurmctld's
    /// `excise_node_from_job`); the first node runs the batch script, so its failure ends the job as always.
    pub(super) fn shrinks_on_node_failure(&self, job_id: u32, node: &str) -> bool {
        self.jobs.get(&job_id).is_some_and(|job| {
            job.spec.no_kill
                && started_and_live(job)
                && !job.completing
                && first_node(job) != node
                && job.alloc.as_ref().is_some_and(|a| {
                    a.node_names.len() > 1 && a.node_names.iter().any(|n| n == node)
                })
        })
    }

    /// Takes the failed node out of a `--no-kill` job's allocation (its resources there are freed, the job shows
    /// the smaller node list and a `ResizeTime`), and cancels the running steps that had tasks there: their srun
    /// kills the rest of their tasks, as Slurm's does (`Force Terminated StepId=...`).
    pub(super) fn node_failed_no_kill(
        &mut self,
        job_id: u32,
        node: &str,
        now: EpochSecs,
    ) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        let Some(alloc) = job.alloc.as_mut() else {
            return Vec::new();
        };
        let Some(at) = alloc.node_names.iter().position(|n| n == node) else {
            return Vec::new();
        };
        let (units, shard_gpus) = alloc.units_on(at);
        let lost = Allocation {
            node_names: vec![node.to_string()],
            gres_indices: units.clone(),
            shard_gpus: shard_gpus.to_vec(),
            node_units: Vec::new(),
            ..alloc.clone()
        };
        alloc.node_names.remove(at);
        if !alloc.node_units.is_empty() {
            let mut units = std::mem::take(&mut alloc.node_units);
            units.remove(at);
            alloc.set_node_units(units);
        }
        job.resize_time = Some(now);
        for step in job.steps.iter_mut().filter(|s| s.is_running()) {
            let on_lost_node = spur_core::hostlist::expand(&step.node_list)
                .is_ok_and(|nodes| nodes.iter().any(|n| n == node));
            if on_lost_node {
                step.state = JobBaseState::Cancelled;
                step.end_time = Some(now);
            }
        }
        self.release(&lost, now);
        // Nothing to tell the failed node: it holds no batch script of the job (a terminate would have it
        // answer for one), and its step supervisors end with their srun.
        Vec::new()
    }

    /// slurmctld requeues a batch job whose node failed unless it may not be requeued (`--no-requeue`,
    /// `JobRequeue=0`); a job already ending (cancelled, timed out) ends as before, and one already going back
    /// to the queue goes on doing so when its batch host fails before reporting.
    pub(super) fn requeues_on_node_failure(&self, job_id: u32, node: &str) -> bool {
        self.jobs.get(&job_id).is_some_and(|job| {
            let ending = job.completing && !(job.requeue_pending && first_node(job) == node);
            job.spec.requeue && job.spec.script.is_some() && !ending
        })
    }

    /// A node of a requeueable batch job failed. When it was the batch host, nothing will report the run's end:
    /// the job goes back to the queue at once. Otherwise the batch host stops the script (its stderr says the job
    /// was cancelled due to node failure) and the job goes back to the queue when that run's result arrives, as
    /// after `scontrol requeue`. Either way the run that follows is a new one (`restarts`), so whatever the
    /// failed node reports of the old run if it returns is recognised as stale.
    pub(super) fn node_failed_requeue(
        &mut self,
        job_id: u32,
        node: &str,
        now: EpochSecs,
    ) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        let batch_host = first_node(job);
        // Named explicitly: by the time they are sent, the job may be on its next run.
        let run = Some(job.restarts);
        let mut effects = vec![Effect::Terminate {
            node: node.to_string(),
            job_id,
            reason: TerminateReason::NodeFail,
            at: now,
            run,
        }];
        if !batch_host.is_empty() && batch_host != node {
            job.requeue_pending = true;
            job.completing = true;
            effects.push(Effect::Terminate {
                node: batch_host,
                job_id,
                reason: TerminateReason::NodeFail,
                at: now,
                run,
            });
            return effects;
        }
        let alloc = super::preempt::held_allocation(job);
        job.preempt_suspended = false;
        if let Some(alloc) = alloc {
            self.release(&alloc, now);
        }
        self.end_running_steps(job_id, now);
        self.return_to_queue(job_id, now);
        effects
    }

    pub(super) fn purge(&mut self, now: EpochSecs) {
        let age = EpochSecs::from(self.settings.min_job_age_secs);
        let expired: Vec<u32> = self
            .jobs
            .values()
            .filter(|job| {
                job.is_finished()
                    && !job.is_completing()
                    && job.end_time.is_some_and(|end| now - end >= age)
            })
            .map(|job| job.job_id)
            .collect();
        for job_id in expired {
            if let Some(job) = self.jobs.remove(&job_id) {
                self.archive_job(&job, now);
            }
        }
    }
}

/// Whether the commit that creates a job of `spec` may also start it: arrays, held jobs and `--immediate` ones are
/// left to the scheduler's pass.
pub fn startable_at_submission(spec: &JobSpec) -> bool {
    spec.array.is_none() && !spec.hold && !spec.immediate
}

fn first_node(job: &JobRecord) -> String {
    job.alloc
        .as_ref()
        .and_then(|a| a.node_names.first().cloned())
        .unwrap_or_default()
}

/// Reasons under which a job is eligible to run (it waits only for resources or its turn).
fn reason_is_eligible(reason: JobReason) -> bool {
    matches!(
        reason,
        JobReason::NoReason | JobReason::Resources | JobReason::Priority
    )
}

/// What the job's partition makes of its sharing, as slurmctld records it on the job (squeue `%h`).
fn resolved_sharing(
    state: &ClusterState,
    job: &JobRecord,
) -> Option<spur_core::oversubscribe::ResolvedSharing> {
    use spur_core::oversubscribe::{PartitionSharing, ResolvedSharing};
    let partition = PartitionSharing::parse(&state.partition(&job.partition)?.oversubscribe);
    let sharing = crate::scheduler::sharing_of(state, job);
    ResolvedSharing::of(partition, sharing)
}

impl ClusterState {
    /// Records [`resolved_sharing`] on a job the scheduler tried to place; an earlier outcome stays otherwise,
    /// as in Slurm.
    fn note_sharing(&mut self, job_id: u32) {
        let resolved = self
            .jobs
            .get(&job_id)
            .and_then(|job| resolved_sharing(self, job));
        if let (Some(resolved), Some(job)) = (resolved, self.jobs.get_mut(&job_id)) {
            job.sharing = Some(resolved);
        }
    }
}
