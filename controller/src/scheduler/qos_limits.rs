//! `AccountingStorageEnforce=limits`: the QOS limits that keep a job waiting (`MaxWall` as
//! `QOSMaxWallDurationPerJobLimit`, `MaxJobsPerUser` as `QOSMaxJobsPerUserLimit`), counted over the running jobs
//! and the starts this pass already decided.

use std::collections::BTreeMap;

use spur_core::job::JobRecord;
use spur_core::states::{JobBaseState, JobReason};

use crate::state::ClusterState;

/// Running jobs per user and QOS; empty (and never in the way) without `limits` enforcement.
pub struct QosLimits<'s> {
    enforced: bool,
    running: BTreeMap<(u32, &'s str), u32>,
}

fn qos_name(job: &JobRecord) -> &str {
    job.spec
        .qos
        .as_deref()
        .unwrap_or(spur_core::assoc::DEFAULT_QOS)
}

impl<'s> QosLimits<'s> {
    pub fn new(state: &'s ClusterState) -> Self {
        let enforced = state.settings.enforce_limits;
        let mut running = BTreeMap::new();
        if enforced {
            for job in state.jobs.live() {
                if matches!(job.state, JobBaseState::Running | JobBaseState::Suspended) {
                    *running
                        .entry((job.spec.user_id, qos_name(job)))
                        .or_insert(0) += 1;
                }
            }
        }
        QosLimits { enforced, running }
    }

    /// The QOS limit that keeps `job` waiting now, if any.
    pub fn gate(&self, state: &ClusterState, job: &JobRecord) -> Option<JobReason> {
        if !self.enforced {
            return None;
        }
        let qos = state.job_qos(job)?;
        let limits = &qos.limits;
        if let (Some(max), Some(limit)) = (limits.max_wall_min, job.time_limit_min) {
            if limit > max {
                return Some(JobReason::QosMaxWallPerJob);
            }
        }
        let running = self
            .running
            .get(&(job.spec.user_id, qos_name(job)))
            .copied()
            .unwrap_or(0);
        if limits.max_jobs_per_user.is_some_and(|max| running >= max) {
            return Some(JobReason::QosMaxJobPerUser);
        }
        None
    }

    /// A job of this pass starts: it counts against its user's QOS limits from now on.
    pub fn started(&mut self, job: &'s JobRecord) {
        if self.enforced {
            *self
                .running
                .entry((job.spec.user_id, qos_name(job)))
                .or_insert(0) += 1;
        }
    }
}
