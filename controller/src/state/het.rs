//! Heterogeneous jobs (`sbatch ... : ...`, `#SBATCH hetjob`) as Slurm 22.05 keeps them: one job record per
//! component with consecutive ids, the leader's id naming the whole job. The components start together (the
//! scheduler places them as a group, `apply_schedule` starts all or none), the batch script runs on the leader,
//! and the job's end is the leader's: when its script ends or it is cancelled, every component ends with it.
//! A component other than the leader can be cancelled on its own; the rest keep running, as in Slurm.

use spur_core::model::job::{Allocation, EpochSecs, HetMembership, JobSpec};
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::jobs::started_and_live;
use super::{Applied, ApplyResult, ClusterState, Effect};

impl ClusterState {
    /// Submits every component, or none: each is checked as a job of its own first, so a refusal of any leaves
    /// the state (ids included) untouched.
    pub(super) fn submit_het(&mut self, specs: Vec<JobSpec>, now: EpochSecs) -> ApplyResult {
        if specs.len() < 2 {
            let spec = specs
                .into_iter()
                .next()
                .ok_or_else(|| ApiError::new(SlurmErrno::Error))?;
            return self.submit(spec, now);
        }
        if specs.iter().any(|s| s.array.is_some()) {
            return Err(ApiError::with_detail(
                SlurmErrno::InvalidArray,
                "Job arrays of heterogeneous jobs are not supported",
            ));
        }
        for spec in &specs {
            let partition = self.resolve_partition(spec)?;
            self.check_job_reservation(spec)?;
            self.check_licenses(spec)?;
            crate::rules::validate_request(self, spec, &partition)?;
        }
        let first_id = self.next_job_id;
        let size = u32::try_from(specs.len()).map_err(|_| ApiError::new(SlurmErrno::Error))?;
        let (saved_next, saved_submissions) = (self.next_job_id, self.submissions);
        for spec in specs {
            if let Err(e) = self.submit(spec, now) {
                // Checked above, so not expected; undone all the same so no component is left alone.
                for id in saved_next..self.next_job_id {
                    self.jobs.remove(&id);
                }
                self.next_job_id = saved_next;
                self.submissions = saved_submissions;
                return Err(e);
            }
        }
        for (offset, id) in (first_id..first_id + size).enumerate() {
            if let Some(job) = self.jobs.get_mut(&id) {
                job.het = Some(HetMembership {
                    job_id: first_id,
                    offset: u32::try_from(offset).unwrap_or(u32::MAX),
                    size,
                });
            }
        }
        Ok(Applied {
            job_id: Some(first_id),
            ..Default::default()
        })
    }

    /// The ids a request naming `job_id` acts on: a leader stands for every component (scancel, hold, ...), any
    /// other id for itself.
    pub(super) fn het_expand(&self, job_id: u32) -> Vec<u32> {
        match self.jobs.get(&job_id).and_then(|j| j.het.as_ref()) {
            Some(het) if het.is_leader() => het
                .component_ids()
                .filter(|id| self.jobs.contains_key(id))
                .collect(),
            _ => vec![job_id],
        }
    }

    /// The leader ended (its script finished, or it was cancelled or timed out): the other components still
    /// holding resources end now with its state, reason and exit code, and those still pending are cancelled.
    pub(super) fn end_het_followers(&mut self, leader_id: u32, now: EpochSecs) -> Vec<Effect> {
        let Some(leader) = self.jobs.get(&leader_id) else {
            return Vec::new();
        };
        let Some(het) = leader.het.clone().filter(|h| h.is_leader()) else {
            return Vec::new();
        };
        let (state, reason, code, signal) = (
            leader.state,
            leader.reason,
            leader.exit_code,
            leader.exit_signal,
        );
        let mut effects = Vec::new();
        for id in het.component_ids().skip(1) {
            let Some(job) = self.jobs.get_mut(&id) else {
                continue;
            };
            // Slurm gives every component the leader's exit code, those that ended before it included.
            job.exit_code = code;
            job.exit_signal = signal;
            if job.state == JobBaseState::Pending {
                job.state = JobBaseState::Cancelled;
                job.end_time = Some(now);
                job.start_time.get_or_insert(now);
                continue;
            }
            if !started_and_live(job) {
                continue;
            }
            job.state = state;
            job.reason = reason;
            effects.extend(self.release_follower(id, now));
        }
        effects
    }

    /// Cancels one running component other than the leader: it holds no script, so it ends at once (with
    /// `ExitCode=0:0`, as in Slurm, until the leader's end gives it the leader's).
    pub(super) fn cancel_het_follower(&mut self, job_id: u32, now: EpochSecs) -> Vec<Effect> {
        if let Some(job) = self.jobs.get_mut(&job_id) {
            job.state = JobBaseState::Cancelled;
        }
        self.release_follower(job_id, now)
    }

    /// A follower's resources go back and its steps end; all its nodes run the epilog (no supervisor of a
    /// script runs it on the first).
    fn release_follower(&mut self, job_id: u32, now: EpochSecs) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        job.end_time = Some(now);
        job.completing = false;
        let alloc: Option<Allocation> = super::preempt::held_allocation(job);
        job.preempt_suspended = false;
        let ended = Box::new(job.clone());
        let mut effects = Vec::new();
        if let Some(alloc) = alloc {
            effects.extend(alloc.node_names.iter().map(|node| Effect::NodeEpilog {
                node: node.clone(),
                job: ended.clone(),
            }));
            self.release(&alloc, now);
        }
        self.end_running_steps(job_id, now);
        effects
    }

    /// The nodes of a heterogeneous job's running components other than the leader, for steps created in the
    /// leader (`srun --het-group`); nothing for any other job.
    pub(super) fn het_sibling_nodes(&self, job_id: u32) -> Vec<String> {
        let Some(het) = self
            .jobs
            .get(&job_id)
            .and_then(|j| j.het.as_ref())
            .filter(|h| h.is_leader())
        else {
            return Vec::new();
        };
        het.component_ids()
            .skip(1)
            .filter_map(|id| self.jobs.get(&id))
            .filter(|j| started_and_live(j) && !j.completing)
            .filter_map(|j| j.alloc.as_ref())
            .flat_map(|a| a.node_names.iter().cloned())
            .collect()
    }

    /// Whether the starts of a plan leave every heterogeneous job whole: for each component started, all of its
    /// components are started by the same plan. A plan that would start only part of one starts none of it.
    pub(super) fn het_starts_whole(&self, starts: &[(u32, Allocation)]) -> Vec<u32> {
        let mut refused = Vec::new();
        for (id, _) in starts {
            let Some(het) = self.jobs.get(id).and_then(|j| j.het.as_ref()) else {
                continue;
            };
            let whole = het
                .component_ids()
                .all(|c| starts.iter().any(|(started, _)| *started == c));
            if !whole {
                refused.push(*id);
            }
        }
        refused
    }
}
