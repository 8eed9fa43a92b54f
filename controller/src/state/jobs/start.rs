//! Applying a scheduling pass: recomputed priorities, forecasts, pending reasons, and the starts, each re-checked
//! against the state as it is now (the plan was made from an older one), so a stale plan never double-books.

use spur_core::model::job::{Allocation, EpochSecs, JobRecord};
use spur_core::model::states::{JobBaseState, JobReason};

use crate::state::{Applied, ClusterState};

impl ClusterState {
    /// priority/multifactor's recomputed priorities; only pending jobs change.
    pub(in crate::state) fn apply_priorities(&mut self, priorities: &[(u32, u32)]) {
        for &(job_id, priority) in priorities {
            if let Some(job) = self.jobs.get_mut(&job_id) {
                if job.state == JobBaseState::Pending && job.hold.is_none() && !job.priority_fixed {
                    job.priority = priority;
                }
            }
        }
    }

    /// Records the backfill scheduler's expected starts; only pending jobs carry one.
    pub(in crate::state) fn apply_forecasts(
        &mut self,
        forecasts: Vec<(u32, Option<crate::state::Forecast>)>,
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
    pub(in crate::state) fn apply_reason_descs(&mut self, descs: Vec<(u32, String)>) {
        for (job_id, desc) in descs {
            if let Some(job) = self.jobs.get_mut(&job_id) {
                if job.state == JobBaseState::Pending {
                    job.state_desc = Some(desc);
                }
            }
        }
    }

    pub(in crate::state) fn apply_schedule(
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
                    // A begin time that passed while the job still waits on a dependency is forgotten, as
                    // slurmctld forgets it: the job becomes eligible when the dependency is met.
                    if reason == JobReason::Dependency && job.eligible_time.is_some_and(|t| t < now)
                    {
                        job.eligible_time = None;
                    }
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
                && crate::rules::allocation_fits(self, &alloc);
            if !fits {
                continue;
            }
            let job_id = self.give_started_task_its_id(job_id);
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

    /// The job id a job keyed `key` starts under: its own, or for an array task that has not started yet a new
    /// one, as slurmctld splits a task off its array's record as the task starts. The task gets the next free job
    /// id, unless it is the array's last task waiting to start, which keeps the array's id. The record moves to
    /// its new key here, inside the replicated state, so every controller gives it the same id.
    pub(in crate::state) fn give_started_task_its_id(&mut self, key: u32) -> u32 {
        let array = match self.jobs.get(&key) {
            Some(job) if job.is_unstarted_array_task() => job.array_job_id,
            _ => None,
        };
        let Some(array) = array else {
            return key;
        };
        // The array's id is free until its last task takes it (it is never given to another job).
        let job_id = if self.other_unstarted_tasks(array, key) || self.jobs.contains_key(&array) {
            let id = self.next_job_id;
            self.next_job_id += 1;
            id
        } else {
            array
        };
        self.rekey(key, job_id);
        job_id
    }

    /// Whether array `array` has tasks other than `key` that have not started yet.
    pub(in crate::state) fn other_unstarted_tasks(&self, array: u32, key: u32) -> bool {
        self.jobs.unstarted_tasks(array).any(|other| other != key)
    }

    /// Moves record `key` to `job_id`.
    pub(in crate::state) fn rekey(&mut self, key: u32, job_id: u32) {
        if let Some(mut job) = self.jobs.remove(&key) {
            job.job_id = job_id;
            self.jobs.insert(job_id, job);
        }
    }

    /// `--kill-on-invalid-dep`, else slurm.conf's `SchedulerParameters=kill_invalid_depend`.
    pub fn kills_on_invalid_dependency(&self, job: &JobRecord) -> bool {
        job.spec
            .kill_on_invalid_dep
            .unwrap_or(self.settings.kill_invalid_depend)
    }

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

/// Reasons under which a job is eligible to run (it waits only for resources or its turn).
fn reason_is_eligible(reason: JobReason) -> bool {
    matches!(
        reason,
        JobReason::NoReason | JobReason::Resources | JobReason::Priority
    )
}

/// What the job's partition makes of its sharing, as slurmctld records it on the job (squeue `%h`).
pub(super) fn resolved_sharing(
    state: &ClusterState,
    job: &JobRecord,
) -> Option<spur_core::policy::oversubscribe::ResolvedSharing> {
    use spur_core::policy::oversubscribe::{PartitionSharing, ResolvedSharing};
    let partition = PartitionSharing::parse(&state.partition(&job.partition)?.oversubscribe);
    let sharing = crate::rules::sharing_of(state, job);
    ResolvedSharing::of(partition, sharing)
}
