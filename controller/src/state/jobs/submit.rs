//! Submission: a request checked (partition, GPU and memory defaults, reservation, licenses, array size, the
//! rules every request must satisfy, association, time limit) and turned into pending records, one per array
//! task. A refusal found by checking the request against the nodes uses up a job id, as in slurmctld.
//!
//! An array uses up one job id, as in slurmctld: its tasks are keyed above every job id
//! ([`UNSTARTED_TASK_KEYS`]) until each starts and gets a job id of its own (`start.rs`).

use spur_core::model::job::{EpochSecs, HoldKind, JobRecord, JobSpec, UNSTARTED_TASK_KEYS};
use spur_core::model::states::JobReason;
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::start::resolved_sharing;
use super::BASIC_PRIORITY_TOP;
use crate::state::{Applied, ApplyResult, ClusterState};

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
    pub(in crate::state) fn submit(&mut self, spec: JobSpec, now: EpochSecs) -> ApplyResult {
        let prepared = match self.prepare_submission(spec, now) {
            Ok(prepared) => prepared,
            Err(Refusal::Checked(mut refusal)) => {
                // slurmctld creates the job record before it checks the request against the nodes, so a refusal
                // there uses up a job id (salloc names it as revoked).
                if crate::rules::refusal_uses_job_id(&refusal) {
                    refusal.job_id = Some(self.next_job_id);
                    self.next_job_id += 1;
                }
                return Err(refusal);
            }
            Err(Refusal::Before(refusal)) => return Err(refusal),
        };
        let first_id = self.next_job_id;
        self.next_job_id += 1;
        // What the factors are relative to does not change as the tasks are added: once per submission, not per
        // task (the fair-share table walks every association).
        let totals = (self.settings.priority.is_some() && !prepared.spec.hold)
            .then(|| crate::rules::priority::Totals::of(self));
        let tasks: Vec<Option<u32>> = if prepared.tasks.is_empty() {
            vec![None]
        } else {
            prepared.tasks.iter().copied().map(Some).collect()
        };
        for array_task in tasks {
            let job_id = match array_task {
                Some(_) => self.unstarted_task_key(),
                None => first_id,
            };
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

    /// A free key for a never-started array task: the keys go round above `UNSTARTED_TASK_KEYS`, skipping those
    /// still in use (two billion tasks pending at once cannot be submitted: `MaxArraySize` caps each array).
    fn unstarted_task_key(&mut self) -> u32 {
        loop {
            let key = UNSTARTED_TASK_KEYS | (self.unstarted_task_keys & !UNSTARTED_TASK_KEYS);
            self.unstarted_task_keys = self.unstarted_task_keys.wrapping_add(1);
            if !self.jobs.contains_key(&key) {
                return key;
            }
        }
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
            .then(|| crate::rules::priority::Totals::of(self));
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
            Some(text) => crate::rules::array_task_ids(text, self.settings.max_array_size)
                .map_err(|detail| {
                    Refusal::Before(ApiError::with_detail(SlurmErrno::InvalidArray, detail))
                })?,
            None => Vec::new(),
        };
        crate::rules::enforce_part_limits(self, &spec, &partition).map_err(Refusal::Before)?;
        let checked = if spec.immediate {
            crate::rules::immediate_check(self, &spec, now)
        } else {
            crate::rules::validate_request(self, &spec, &partition)
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
        totals: Option<&crate::rules::priority::Totals>,
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
        // slurmctld shows such a job's node count as estimated from its tasks, where the scheduler never gets to
        // pick its nodes.
        let beyond_limits = self
            .partition(&prepared.partition)
            .and_then(|part| crate::rules::partition_limit(self, spec, part))
            .is_some();
        if beyond_limits {
            record.node_estimate =
                crate::rules::pending_node_estimate(self, spec, &prepared.partition);
        }
        // slurmctld marks a job of an `OverSubscribe=EXCLUSIVE` partition whole-node as it queues it; an
        // `--oversubscribe` request still shows until the scheduler turns it down.
        record.sharing = resolved_sharing(self, &record).filter(|r| {
            *r == spur_core::policy::oversubscribe::ResolvedSharing::WholeNode
                && !spur_core::policy::oversubscribe::asks_oversubscribe(&record.spec)
        });
        if hold.is_some() {
            record.reason = JobReason::HeldUser;
            // slurmctld evaluates every job once as it is submitted, so a held job shows LastSchedEval from
            // then on; the scheduler, which skips unchanged held jobs, would leave it Unknown.
            record.last_sched_eval = Some(now);
        }
        if let (Some(weights), None, Some(totals)) = (&self.settings.priority, hold, totals) {
            if let Some(p) = crate::rules::priority::recomputed(self, weights, totals, &record, now)
            {
                record.priority = p;
            }
        }
        record
    }

    /// The `TRESBillingWeights` of partition `name`.
    pub(super) fn billing_weights_of(&self, name: &str) -> Option<String> {
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
            .any(|g| g.name == spur_core::model::records::GPU_GRES && g.count > 0)
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
}

/// Whether the commit that creates a job of `spec` may also start it: arrays, held jobs and `--immediate` ones are
/// left to the scheduler's pass.
pub fn startable_at_submission(spec: &JobSpec) -> bool {
    spec.array.is_none() && !spec.hold && !spec.immediate
}
