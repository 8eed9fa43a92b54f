//! Applying the scheduler's preemptions (`preempt/partition_prio`). A victim of a `CANCEL` partition ends
//! `PREEMPTED` (its processes terminated, exit `0:15` once they are gone); one of a `REQUEUE` partition goes back
//! to the queue as `scontrol requeue` would send it, or ends `PREEMPTED` when it may not be requeued
//! (`--no-requeue`). With a `GraceTime`, either first keeps running for that long: its steps get SIGCONT and
//! SIGTERM, its end time becomes the end of the grace period, and the scheduler names it again once that has
//! passed. A victim of a `SUSPEND` partition (with `GANG` in the cluster's mode) is stopped and lends its CPUs to
//! the preemptor until the scheduler resumes it. A victim that ended or is already leaving by the time the plan
//! applies is left alone.

use spur_core::model::job::{Allocation, EpochSecs, JobRecord};
use spur_core::model::records::PreemptMode;
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::SignalScope;

use super::{ClusterState, Effect, TerminateReason};

/// What a job holds on its nodes: its allocation, less the CPUs it lent to a preemptor while suspended.
pub(super) fn held_allocation(job: &JobRecord) -> Option<Allocation> {
    let mut alloc = job.alloc.clone()?;
    if job.preempt_suspended {
        alloc.cpus = 0;
    }
    Some(alloc)
}

/// A job's end once resumed: as in Slurm, it moves out by the time spent suspended (what is left of the limit
/// counts from now); `None` without a limit.
pub(super) fn end_after_resume(job: &JobRecord, now: EpochSecs) -> Option<EpochSecs> {
    job.time_limit_min
        .map(|m| now + i64::from(m) * 60 - job.pre_suspend_secs)
}

/// Chosen for preemption and still running out its `GraceTime`.
pub(crate) fn in_grace(job: &JobRecord) -> bool {
    job.state == JobBaseState::Running && !job.completing && job.preempt_time.is_some()
}

impl ClusterState {
    pub(super) fn apply_preemptions(
        &mut self,
        victims: &[(u32, PreemptMode)],
        now: EpochSecs,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        for &(job_id, mode) in victims {
            let Some(job) = self.jobs.get(&job_id) else {
                continue;
            };
            if job.state != JobBaseState::Running || job.completing {
                continue;
            }
            if mode == PreemptMode::Suspend {
                effects.extend(self.suspend_preempted(job_id, now));
                continue;
            }
            if in_grace(job) {
                if job.end_time.is_some_and(|end| end > now) {
                    continue;
                }
            } else if let Some(grace) = self.grace_secs(job) {
                effects.extend(self.start_grace(job_id, grace, now));
                continue;
            }
            if let Some(job) = self.jobs.get_mut(&job_id) {
                job.preempt_time = Some(now);
            }
            if mode == PreemptMode::Requeue
                && self.jobs.get(&job_id).is_some_and(|j| j.spec.requeue)
            {
                if let Ok(more) = self.requeue(job_id, false, now) {
                    effects.extend(more);
                    continue;
                }
            }
            effects.extend(self.end_preempted(job_id, now));
        }
        effects
    }

    /// Resumes jobs suspended by preemption, taking their CPUs back where they are free (the scheduler checked;
    /// a stale plan is re-checked here so a node is never over-booked).
    pub(super) fn apply_resumes(&mut self, job_ids: &[u32], now: EpochSecs) -> Vec<Effect> {
        let mut effects = Vec::new();
        for &job_id in job_ids {
            let Some(job) = self.jobs.get(&job_id) else {
                continue;
            };
            if !(job.preempt_suspended && job.state == JobBaseState::Suspended) || job.completing {
                continue;
            }
            let Some(alloc) = job.alloc.clone() else {
                continue;
            };
            let fits = alloc
                .node_names
                .iter()
                .all(|name| self.nodes.get(name).is_some_and(|n| n.cpus_fit(&alloc)));
            if !fits {
                continue;
            }
            for name in &alloc.node_names {
                if let Some(node) = self.nodes.get_mut(name) {
                    node.book_cpus(&alloc);
                }
            }
            for name in &alloc.node_names {
                self.refresh_node_state(name);
            }
            let Some(job) = self.jobs.get_mut(&job_id) else {
                continue;
            };
            job.preempt_suspended = false;
            job.state = JobBaseState::Running;
            job.end_time = end_after_resume(job, now);
            job.suspend_time = Some(now);
            effects.push(Effect::Signal {
                node: first_node(job),
                job_id,
                signal: libc::SIGCONT,
                scope: SignalScope::All,
                step_pids: Vec::new(),
            });
        }
        effects
    }

    /// Whether a job of this partition could be preempted once started: Slurm's test is that neither the
    /// cluster's mode nor the partition's is OFF.
    pub(super) fn preemptable(&self, job_id: &u32) -> bool {
        let Some(cluster) = self.settings.preempt else {
            return false;
        };
        let Some(job) = self.jobs.get(job_id) else {
            return false;
        };
        cluster != PreemptMode::Off
            && self.own_preempt_mode(job).unwrap_or(cluster) != PreemptMode::Off
    }

    /// The job's QOS: the one it runs under, else `normal`.
    pub(crate) fn job_qos(&self, job: &JobRecord) -> Option<&spur_core::model::assoc::Qos> {
        self.acct.qos(
            job.spec
                .qos
                .as_deref()
                .unwrap_or(spur_core::model::assoc::DEFAULT_QOS),
        )
    }

    /// Whether `job` may take `victim`'s resources: with `preempt/qos`, its QOS lists the victim's in
    /// `Preempt=`; with `preempt/partition_prio`, the victim's partition has a lower `PriorityTier`.
    pub(crate) fn outranks(&self, job: &JobRecord, victim: &JobRecord) -> bool {
        if self.settings.preempt_by_qos {
            let victim_qos = self.job_qos(victim).map(|q| q.name.as_str());
            return self
                .job_qos(job)
                .zip(victim_qos)
                .is_some_and(|(q, v)| q.preempt.iter().any(|p| p == v));
        }
        self.preempt_rank(victim) < self.preempt_rank(job)
    }

    /// The victim's own `PreemptMode`: its QOS's (`preempt/qos`) or its partition's; `None`: the cluster's.
    pub(crate) fn own_preempt_mode(&self, victim: &JobRecord) -> Option<PreemptMode> {
        if self.settings.preempt_by_qos {
            return self.job_qos(victim).and_then(|q| q.preempt_mode);
        }
        self.partition(&victim.partition)
            .and_then(|p| p.preempt_mode)
    }

    /// Which victims go first (lowest first): their QOS's priority (`preempt/qos`) or partition's tier.
    pub(crate) fn preempt_rank(&self, job: &JobRecord) -> u32 {
        if self.settings.preempt_by_qos {
            return self.job_qos(job).map_or(0, |q| q.priority);
        }
        self.partition(&job.partition)
            .map_or(1, |p| p.priority_tier)
    }

    /// The victim's partition's `GraceTime`, when it has one that applies: Slurm 22.05's gang scheduler, which
    /// preempts when the cluster's mode has `GANG`, ends victims at once.
    fn grace_secs(&self, job: &JobRecord) -> Option<u32> {
        if self.settings.preempt_gang {
            return None;
        }
        if self.settings.preempt_by_qos {
            return self
                .job_qos(job)
                .map(|q| q.grace_time_secs)
                .filter(|g| *g > 0);
        }
        self.partition(&job.partition)
            .map(|p| p.grace_time_secs)
            .filter(|g| *g > 0)
    }

    /// The grace period begins: the job keeps its resources until `now + grace` (or its own end, if sooner), and
    /// its steps are told to wrap up (SIGCONT first, in case they were stopped). As in Slurm, the batch script
    /// itself is not signalled.
    fn start_grace(&mut self, job_id: u32, grace: u32, now: EpochSecs) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        let deadline = now + i64::from(grace);
        // A job resumed after a suspension already has its (extended) end.
        let own_end = job.end_time.or_else(|| {
            job.time_limit_min
                .zip(job.start_time)
                .map(|(m, start)| start + i64::from(m) * 60)
        });
        job.preempt_time = Some(now);
        job.end_time = Some(own_end.map_or(deadline, |end| end.min(deadline)));
        let mut effects = Vec::new();
        for signal in [libc::SIGCONT, libc::SIGTERM] {
            if let Ok(more) = self.signal(job_id, signal, SignalScope::Steps) {
                effects.extend(more);
            }
        }
        effects
    }

    /// Stops the job and lends its CPUs to the preemptor; its memory and GRES stay booked (as in Slurm, where a
    /// gang-suspended job keeps them).
    fn suspend_preempted(&mut self, job_id: u32, now: EpochSecs) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        let Some(alloc) = job.alloc.clone() else {
            return Vec::new();
        };
        job.pre_suspend_secs = job.run_secs(now);
        job.suspend_time = Some(now);
        job.state = JobBaseState::Suspended;
        job.preempt_suspended = true;
        let effect = Effect::Signal {
            node: first_node(job),
            job_id,
            signal: libc::SIGSTOP,
            scope: SignalScope::All,
            step_pids: Vec::new(),
        };
        for name in &alloc.node_names {
            if let Some(node) = self.nodes.get_mut(name) {
                node.release_cpus(&alloc);
            }
        }
        for name in &alloc.node_names {
            self.refresh_node_state(name);
        }
        vec![effect]
    }

    fn end_preempted(&mut self, job_id: u32, now: EpochSecs) -> Vec<Effect> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Vec::new();
        };
        job.state = JobBaseState::Preempted;
        job.reason = JobReason::NoReason;
        job.completing = true;
        job.end_time = Some(now);
        vec![Effect::Terminate {
            node: first_node(job),
            job_id,
            reason: TerminateReason::Cancelled,
            at: now,
            run: None,
        }]
    }
}

fn first_node(job: &JobRecord) -> String {
    job.alloc
        .as_ref()
        .and_then(|a| a.node_names.first().cloned())
        .unwrap_or_default()
}
