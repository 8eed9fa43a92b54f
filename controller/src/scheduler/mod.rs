//! The scheduler as a function: `schedule(&ClusterState, now) -> Plan`. No I/O, no clock, no randomness; the
//! leader commits the plan through the log, where `apply` re-checks every start with
//! [`allocation_fits`](crate::rules::allocation_fits). The checks the state machine makes too (placement, the
//! pending gate, request validation, priority) live in [`crate::rules`]; this module orders the queue and decides.
//!
//! Pending jobs are taken in priority order (ties: lower job id first). Dependencies, holds, begin times and
//! partition limits are checked first, each with Slurm's pending reason. What resources decide depends on
//! `SchedulerType`: `sched/backfill` (the default, [`backfill`]) reserves resources for blocked jobs at their
//! expected start and lets lower-priority jobs start only where they delay none of them; `sched/builtin` is
//! strict first-come-first-served by priority within each partition: the first job that cannot start blocks the
//! jobs behind it (reason `Resources` for it, `Priority` for them). Both keep jobs off reserved nodes during
//! advance reservations and run `--reservation` jobs only inside theirs ([`reservations`](crate::rules::reservations)).
//! See docs/scheduling.md.

mod backfill;
mod het;
#[cfg(test)]
mod het_tests;
#[cfg(test)]
mod node_units_tests;
#[cfg(test)]
mod oversubscribe_tests;
#[cfg(test)]
mod per_gpu_tests;
#[cfg(test)]
mod plan_digest_tests;
mod preempt;
mod profile;
mod qos_limits;
#[cfg(test)]
mod reservation_tests;
pub mod scenario;
#[cfg(test)]
mod shard_tests;
#[cfg(test)]
mod submit_start_tests;
#[cfg(test)]
mod switch_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod topology_tests;

use spur_core::model::job::{Allocation, EpochSecs, JobRecord, JobSpec};
use spur_core::model::records::{PreemptMode, GPU_GRES};
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::policy::gpu_shard::SHARD_GRES;

use crate::rules::{gate, place, placement, priority, reservations, switches, ArrayCounts};
use crate::state::{settled_while_held, ClusterState, Forecast};

/// Bound on how many pending jobs one pass looks at, so a huge queue cannot stall the leader.
pub const JOBS_PER_PASS_MAX: usize = 10_000;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub starts: Vec<(u32, Allocation)>,
    /// Only reasons that changed, so an idle pass commits nothing.
    pub reasons: Vec<(u32, JobReason)>,
    /// Only forecasts that changed (`None`: the job no longer has one).
    pub forecasts: Vec<(u32, Option<Forecast>)>,
    /// priority/multifactor: priorities that changed.
    pub priorities: Vec<(u32, u32)>,
    /// preempt/partition_prio: running jobs to end or requeue so that higher-tier jobs can start.
    pub preemptions: Vec<(u32, PreemptMode)>,
    /// Free text shown instead of a changed reason (`ReqNodeNotAvail, May be reserved for other job`).
    pub reason_descs: Vec<(u32, String)>,
    /// preempt/partition_prio with `SUSPEND,GANG`: suspended victims whose CPUs are free again.
    pub resumes: Vec<u32>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
            && self.reasons.is_empty()
            && self.forecasts.is_empty()
            && self.priorities.is_empty()
            && self.preemptions.is_empty()
            && self.reason_descs.is_empty()
            && self.resumes.is_empty()
    }
}

/// How resources decide, per `SchedulerType`.
enum Engine<'s> {
    Builtin {
        ledger: placement::Ledger,
        blocked_partitions: Vec<&'s str>,
        book: reservations::Book<'s>,
        now: EpochSecs,
    },
    Backfill(Box<backfill::Backfill<'s>>),
}

impl<'s> Engine<'s> {
    fn new(
        state: &'s ClusterState,
        now: EpochSecs,
        holding: &[&'s JobRecord],
        asked_gres: &[&str],
    ) -> Self {
        if state.settings.backfill.enabled {
            Engine::Backfill(Box::new(backfill::Backfill::new(
                state, now, holding, asked_gres,
            )))
        } else {
            Engine::Builtin {
                ledger: placement::Ledger::from_state(state),
                blocked_partitions: Vec::new(),
                book: reservations::Book::new(state, now),
                now,
            }
        }
    }

    /// Where the job could start now, taking nothing (see [`het`]).
    fn try_now(&self, state: &ClusterState, job: &JobRecord) -> Option<Allocation> {
        match self {
            Engine::Backfill(planner) => planner.try_now(job),
            Engine::Builtin {
                ledger, book, now, ..
            } => {
                let end = job
                    .time_limit_min
                    .map_or(EpochSecs::MAX, |m| now.saturating_add(i64::from(m) * 60));
                let avail = book.filter(ledger, job, *now, end);
                placement::place_with(state, &avail, job)
            }
        }
    }

    /// Takes what [`Self::try_now`] found.
    fn take_now(&mut self, alloc: &Allocation, job: &JobRecord) {
        match self {
            Engine::Backfill(planner) => planner.take_now(alloc, job),
            Engine::Builtin { ledger, .. } => ledger.book(alloc),
        }
    }

    fn decide(&mut self, state: &ClusterState, job: &'s JobRecord) -> backfill::Decision {
        match self {
            Engine::Backfill(planner) => planner.decide(job),
            Engine::Builtin {
                ledger,
                blocked_partitions,
                book,
                now,
            } => {
                let end = job
                    .time_limit_min
                    .map_or(EpochSecs::MAX, |m| now.saturating_add(i64::from(m) * 60));
                let avail = book.filter(&*ledger, job, *now, end);
                let mut desc = None;
                let reason = if blocked_partitions.contains(&job.partition.as_str()) {
                    JobReason::Priority
                } else if let Some(alloc) = placement::place_with(state, &avail, job) {
                    if switches::within_request(state, job, &alloc, *now) {
                        ledger.book(&alloc);
                        return backfill::Decision::Start(alloc);
                    }
                    // Waiting for its `--switches` count: Slurm 22.05 has no reason of its own for that.
                    JobReason::Resources
                } else if job.spec.reservation.is_some() {
                    JobReason::Resources
                } else if !book.is_empty() && place(state, ledger, job).is_some() {
                    let nodes = state
                        .partition(&job.partition)
                        .map(|p| p.nodes.as_slice())
                        .unwrap_or_default();
                    desc = Some(book.description(nodes.iter().map(String::as_str), *now, end));
                    JobReason::NodeNotAvail
                } else {
                    blocked_partitions.push(job.partition.as_str());
                    JobReason::Resources
                };
                backfill::Decision::Wait {
                    reason,
                    forecast: None,
                    desc,
                }
            }
        }
    }
}

pub fn schedule(state: &ClusterState, now: EpochSecs) -> Plan {
    schedule_with(state, now, None)
}

/// The most jobs in play (running or waiting, settled held ones aside) for which [`placed_at_submission`] runs a
/// pass of its own: beyond that a pass costs enough that one per submission would cost more than the coalesced
/// passes after a burst of them.
const SUBMISSION_PASS_LIVE_MAX: usize = 4096;

/// Where a job submitted now as `spec` would start right away, decided before the submission is committed so
/// that one log entry creates and starts it (`Command::SubmitAndStart`; one commit less between sbatch and the
/// job's start), as slurmctld starts a job that is the top priority when it arrives. `None` leaves the job to the
/// pass that follows every submission: another job waits (and may come first), the submission would be refused,
/// the start needs preemption, or the job cannot start now. What the queue says is checked before the job's record
/// is made, so a submission to a busy cluster pays for nothing here.
pub fn placed_at_submission(
    state: &ClusterState,
    spec: &JobSpec,
    now: EpochSecs,
) -> Option<Allocation> {
    // The spec's own flags first: a held job would otherwise walk every live job (held ones included) per submit.
    if !crate::state::startable_at_submission(spec) || !nothing_waits(state) {
        return None;
    }
    let job = state.submission_preview(spec, now)?;
    start_on_submission(state, &job, now)
}

/// No job waits for a pass (held ones it settled do not count), and few enough run that a pass of its own per
/// submission stays cheap; `SchedulerParameters=defer` says never to start jobs at submission.
fn nothing_waits(state: &ClusterState) -> bool {
    // The newest jobs are the likeliest to wait, so a busy queue is found at once.
    !state.settings.defer
        && state.jobs.in_play_count() <= SUBMISSION_PASS_LIVE_MAX
        && !state
            .jobs
            .in_play()
            .rev()
            .any(|j| j.state == JobBaseState::Pending && !settled_while_held(j))
}

/// The start of `job` (its record as `ClusterState::submission_preview` makes it) in the pass that would follow
/// its submission, when that pass starts it without preempting anything.
fn start_on_submission(
    state: &ClusterState,
    job: &JobRecord,
    now: EpochSecs,
) -> Option<Allocation> {
    if job.het.is_some() || job.array_job_id.is_some() || job.hold.is_some() {
        return None;
    }
    let plan = schedule_with(state, now, Some(job));
    if !plan.preemptions.is_empty() || !plan.resumes.is_empty() {
        return None;
    }
    plan.starts
        .into_iter()
        .find(|(id, _)| *id == job.job_id)
        .map(|(_, alloc)| alloc)
}

/// A pass over the state's queue and, when given, one job not in the state yet (see [`placed_at_submission`]).
fn schedule_with(state: &ClusterState, now: EpochSecs, extra: Option<&JobRecord>) -> Plan {
    // One walk over the jobs in play (finished ones, and held ones already given their reason, are not indexed)
    // finds what to consider, what holds resources (for the backfill profile) and what preemption left to finish:
    // with 100,000 jobs the walk itself is most of a pass.
    let mut pending: Vec<&JobRecord> = Vec::new();
    let mut holding: Vec<&JobRecord> = Vec::new();
    let mut grace_over: Vec<&JobRecord> = Vec::new();
    let mut suspended: Vec<&JobRecord> = Vec::new();
    // The GRES names pending jobs ask for: the only ones placement looks at (and so the backfill profile keeps).
    // Every job this pass can place is among them, heterogeneous components included (a settled held one stops
    // at its hold).
    let mut asked_gres: Vec<&str> = Vec::new();
    for job in state.jobs.in_play().chain(extra) {
        if job.state == JobBaseState::Pending && !settled_while_held(job) {
            pending.push(job);
            for request in &job.spec.gres {
                if !asked_gres.contains(&request.name.as_str()) {
                    asked_gres.push(&request.name);
                }
            }
        }
        // A requeued job can be pending and still completing on its old nodes.
        if job.alloc.is_some() && (job.completing || job.state == JobBaseState::Running) {
            holding.push(job);
        }
        if preempt::grace_is_over(job, now) {
            grace_over.push(job);
        }
        if job.preempt_suspended && !job.completing {
            suspended.push(job);
        }
    }
    // A job given whole nodes takes their GPUs, so GPUs are always looked at; shards and whole GPUs of a node
    // exclude each other, so placing either looks at both.
    if !asked_gres.contains(&GPU_GRES) {
        asked_gres.push(GPU_GRES);
    }
    if !asked_gres.contains(&SHARD_GRES) {
        asked_gres.push(SHARD_GRES);
    }
    let mut plan = Plan {
        preemptions: preempt::ends_after_grace(state, &grace_over),
        resumes: preempt::resumable(state, suspended),
        ..Plan::default()
    };
    // Suspended victims take their CPUs back before anything else may: this pass does only that, and the next
    // one places the waiting jobs around them.
    if !plan.resumes.is_empty() {
        return plan;
    }
    let pending: Vec<(u32, &JobRecord)> = match &state.settings.priority {
        Some(weights) => {
            let totals = priority::Totals::of(state);
            pending
                .into_iter()
                .map(
                    |job| match priority::recomputed(state, weights, &totals, job, now) {
                        Some(p) if p != job.priority => {
                            plan.priorities.push((job.job_id, p));
                            (p, job)
                        }
                        _ => (job.priority, job),
                    },
                )
                .collect()
        }
        None => pending.into_iter().map(|job| (job.priority, job)).collect(),
    };
    // As in Slurm, partitions with a higher PriorityTier go first; then higher priority; ties go to the older job
    // id (FIFO).
    // Each job's tier is looked up once, not at every comparison of the sort.
    let mut pending: Vec<(u32, u32, &JobRecord)> = pending
        .into_iter()
        .map(|(priority, job)| {
            // With preempt/qos the QOS priority takes the tier's place, so a preemptor is not overtaken by the
            // job it requeued.
            let tier = state.preempt_rank(job);
            (tier, priority, job)
        })
        .collect();
    pending.sort_by(|(ta, pa, a), (tb, pb, b)| {
        // An array's tasks that have not started sit in the queue at their array's id, in task order.
        tb.cmp(ta)
            .then(pb.cmp(pa))
            .then(a.shown_job_id().cmp(&b.shown_job_id()))
            .then(a.job_id.cmp(&b.job_id))
    });
    pending.truncate(JOBS_PER_PASS_MAX);
    // Nothing to place: the backfill profile (every node's timeline) would be built for nothing, which on
    // 10,000 nodes is most of an idle pass.
    if pending.is_empty() {
        return plan;
    }

    let mut engine = Engine::new(state, now, &holding, &asked_gres);
    let mut running_per_array = ArrayCounts::new(state);
    let mut licenses = LicensePool::new(state);
    let mut qos_limits = qos_limits::QosLimits::new(state);

    for (_, _, job) in pending {
        if let Some(membership) = &job.het {
            // A heterogeneous job is decided as a whole when its leader's turn comes.
            if membership.is_leader() {
                let group = het::Group::of(state, membership);
                let reasons = group.decide(state, now, &mut engine, &mut licenses, &mut plan);
                het::record_reasons(&group, reasons, &mut plan);
            }
            continue;
        }
        let gated = gate(state, job, now, &mut running_per_array)
            .or_else(|| qos_limits.gate(state, job))
            .or_else(|| (!licenses.covers(job)).then_some(JobReason::Licenses));
        let (reason, forecast, desc) = match gated {
            Some(reason) => (reason, None, None),
            None => match engine.decide(state, job) {
                backfill::Decision::Start(alloc) => {
                    if let Some(array) = job.array_job_id {
                        running_per_array.started(array);
                    }
                    qos_limits.started(job);
                    licenses.take(job);
                    plan.starts.push((job.job_id, alloc));
                    continue;
                }
                backfill::Decision::Wait {
                    reason,
                    forecast,
                    desc,
                } => (reason, forecast, desc),
            },
        };
        if reason == JobReason::Resources {
            if let Some(taken) = preempt::victims(state, job, &plan.starts, &plan.preemptions, now)
            {
                plan.preemptions.extend(taken.victims);
                if let Some(alloc) = taken.start {
                    if let Some(array) = job.array_job_id {
                        running_per_array.started(array);
                    }
                    qos_limits.started(job);
                    licenses.take(job);
                    plan.starts.push((job.job_id, alloc));
                    continue;
                }
            }
        }
        let to_cancel = reason == JobReason::DepInvalid && state.kills_on_invalid_dependency(job);
        let desc_changed = desc.is_some() && job.state_desc.as_deref() != desc;
        if reason != job.reason || job.last_sched_eval.is_none() || to_cancel || desc_changed {
            plan.reasons.push((job.job_id, reason));
            if let Some(desc) = desc {
                plan.reason_descs.push((job.job_id, desc.to_string()));
            }
        }
        let unchanged = match &forecast {
            Some(f) => {
                job.expected_start == Some(f.start) && job.sched_nodes.as_deref() == Some(&f.nodes)
            }
            None => job.expected_start.is_none() && job.sched_nodes.is_none(),
        };
        if !unchanged {
            plan.forecasts.push((job.job_id, forecast));
        }
    }
    plan
}

/// The licenses still free during a pass: the configured totals less what running jobs hold and what the pass
/// has started. A job waiting for licenses gets no forecast (Slurm's backfill plans licenses too; Spur does not).
struct LicensePool {
    free: std::collections::BTreeMap<String, u32>,
}

impl LicensePool {
    fn new(state: &ClusterState) -> LicensePool {
        if state.settings.licenses.is_empty() {
            return LicensePool {
                free: std::collections::BTreeMap::new(),
            };
        }
        let used = state.licenses_in_use();
        let free = state
            .settings
            .licenses
            .iter()
            .map(|(name, total)| {
                let taken = used.get(name).copied().unwrap_or(0);
                (name.clone(), total.saturating_sub(taken))
            })
            .collect();
        LicensePool { free }
    }

    fn covers(&self, job: &JobRecord) -> bool {
        crate::state::job_licenses(job)
            .iter()
            .all(|(name, count)| self.free.get(name).is_some_and(|free| free >= count))
    }

    fn take(&mut self, job: &JobRecord) {
        for (name, count) in crate::state::job_licenses(job) {
            if let Some(free) = self.free.get_mut(&name) {
                *free = free.saturating_sub(count);
            }
        }
    }
}
