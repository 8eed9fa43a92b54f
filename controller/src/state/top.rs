//! `scontrol top LIST`: the listed pending jobs move ahead of their owner's other pending jobs in the same
//! partition, as in Slurm 22.05. Priorities are exchanged, not created: the listed jobs take the highest
//! priorities of the group in list order, and what they gained is taken back evenly from the group's other jobs;
//! every change is made through the job's nice value too, so priority/multifactor recomputes the same priority.
//! Users may do this only with `SchedulerParameters=enable_user_top`; administrators always can.

use std::collections::BTreeMap;

use spur_core::model::job::JobRecord;
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::{Applied, ApplyResult, ClusterState};

/// A job's new priority and how much it moved (its nice moves the other way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Change {
    pub job_id: u32,
    pub priority: u32,
    pub delta: i64,
}

impl ClusterState {
    pub(super) fn top(&mut self, caller_uid: u32, job_list: &str) -> ApplyResult {
        let admin = self.is_admin(caller_uid);
        if !admin && !self.settings.enable_user_top {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        let mut ids: Vec<u32> = Vec::new();
        for item in job_list.split(',').filter(|i| !i.is_empty()) {
            let id: u32 = item
                .trim()
                .parse()
                .map_err(|_| ApiError::new(SlurmErrno::InvalidJobId))?;
            // An array's id names its record, or while none of it has taken that id, its first task waiting to
            // start; where a task waits is no job id.
            let id = match self.jobs.contains_key(&id) {
                true if id < spur_core::model::job::UNSTARTED_TASK_KEYS => id,
                true => return Err(ApiError::new(SlurmErrno::InvalidJobId)),
                false => self.jobs.unstarted_tasks(id).next().unwrap_or(id),
            };
            let job = self
                .jobs
                .get(&id)
                .ok_or_else(|| ApiError::new(SlurmErrno::InvalidJobId))?;
            if !admin && job.spec.user_id != caller_uid {
                return Err(ApiError::new(SlurmErrno::AccessDenied));
            }
            if job.state != JobBaseState::Pending {
                return Err(ApiError::new(SlurmErrno::JobNotPending));
            }
            if job.hold.is_some() || job.priority == 0 {
                return Err(ApiError::new(SlurmErrno::JobHeld));
            }
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        if ids.is_empty() {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        }
        for change in plan(&self.jobs, &ids) {
            if let Some(job) = self.jobs.get_mut(&change.job_id) {
                job.priority = change.priority;
                let nice = i64::from(job.spec.nice) - change.delta;
                job.spec.nice = i32::try_from(nice).unwrap_or(job.spec.nice);
            }
        }
        Ok(Applied::default())
    }
}

/// The priority changes of `top LIST` (validated: pending, not held). The group is the first listed job's owner
/// and partition; every listed job counts as one to move up, as in Slurm.
pub(super) fn plan(jobs: &BTreeMap<u32, JobRecord>, top: &[u32]) -> Vec<Change> {
    let Some(first) = top.first().and_then(|id| jobs.get(id)) else {
        return Vec::new();
    };
    // Jobs at priority 1 are left alone: lowering them further would hold them.
    let others: Vec<&JobRecord> = jobs
        .values()
        .filter(|j| {
            !top.contains(&j.job_id)
                && j.state == JobBaseState::Pending
                && j.hold.is_none()
                && j.priority > 1
                && j.spec.user_id == first.spec.user_id
                && j.partition == first.partition
        })
        .collect();
    let listed: Vec<&JobRecord> = top.iter().filter_map(|id| jobs.get(id)).collect();
    let mut pool: Vec<u32> = listed.iter().chain(&others).map(|j| j.priority).collect();
    pool.sort_unstable_by(|a, b| b.cmp(a));

    let mut changes = Vec::new();
    let mut gained: i64 = 0;
    let mut last: Option<u32> = None;
    for (job, mut next) in listed.iter().zip(pool) {
        // Two listed jobs never share a priority: the later one goes just below.
        if last == Some(next) && next > 2 {
            next -= 1;
        }
        last = Some(next);
        let delta = i64::from(next) - i64::from(job.priority);
        gained += delta;
        changes.push(Change {
            job_id: job.job_id,
            priority: next,
            delta,
        });
    }
    let lowest_listed = last.unwrap_or(u32::MAX);
    let mut left = others.len() as i64;
    for job in others {
        let share = gained / left;
        let mut next = (i64::from(job.priority) - share).max(1);
        // None of the others may stay level with or ahead of the listed jobs.
        if next >= i64::from(lowest_listed) {
            next = i64::from(lowest_listed.saturating_sub(1).max(1));
        }
        let delta = next - i64::from(job.priority);
        gained += delta;
        left -= 1;
        changes.push(Change {
            job_id: job.job_id,
            priority: u32::try_from(next).unwrap_or(1),
            delta,
        });
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::job::JobSpec;

    fn jobs(list: &[(u32, u32, &str, u32)]) -> BTreeMap<u32, JobRecord> {
        list.iter()
            .map(|&(id, uid, partition, priority)| {
                let spec = JobSpec {
                    user_id: uid,
                    ..JobSpec::default()
                };
                (
                    id,
                    JobRecord::pending(id, spec, partition.to_string(), 0, priority),
                )
            })
            .collect()
    }

    fn priorities(changes: &[Change]) -> Vec<(u32, u32)> {
        let mut list: Vec<(u32, u32)> = changes.iter().map(|c| (c.job_id, c.priority)).collect();
        list.sort_unstable();
        list
    }

    // The expected numbers are what Slurm 22.05.8 did to the same queues.
    #[test]
    fn one_job_takes_the_top_and_the_others_share_the_cost() {
        let queue = jobs(&[
            (7, 1, "debug", 3800),
            (8, 1, "debug", 2800),
            (9, 1, "debug", 2600),
            (10, 1, "debug", 2300),
            (11, 1, "debug", 1800),
            (12, 1, "high", 5500),
            (13, 2, "debug", 9000),
        ]);
        let changes = plan(&queue, &[10]);
        assert_eq!(
            priorities(&changes),
            vec![(7, 3425), (8, 2425), (9, 2225), (10, 3800), (11, 1425)]
        );
        assert_eq!(changes.iter().map(|c| c.delta).sum::<i64>(), 0);
    }

    #[test]
    fn several_jobs_take_the_top_priorities_in_list_order() {
        let queue = jobs(&[
            (7, 1, "debug", 3425),
            (8, 1, "debug", 2425),
            (9, 1, "debug", 2225),
            (10, 1, "debug", 3800),
            (11, 1, "debug", 1425),
        ]);
        assert_eq!(
            priorities(&plan(&queue, &[11, 9])),
            vec![(7, 2234), (8, 1233), (9, 3425), (10, 2608), (11, 3800)]
        );
    }

    #[test]
    fn the_others_stay_below_the_listed_jobs() {
        // Slurm counted a listed job of another user as one to move up; the others of the first job's group
        // end below the lowest listed priority.
        let queue = jobs(&[
            (12, 1, "debug", 3800),
            (13, 1, "debug", 2800),
            (14, 1, "debug", 2600),
            (17, 2, "debug", 2500),
        ]);
        assert_eq!(
            priorities(&plan(&queue, &[14, 17])),
            vec![(12, 2799), (13, 2301), (14, 3800), (17, 2800)]
        );
    }

    #[test]
    fn top_is_for_administrators_unless_enabled() {
        let mut state = ClusterState::new();
        state.jobs = jobs(&[(1, 1000, "debug", 100), (2, 1000, "debug", 50)]).into();
        let denied = state.top(1000, "2").unwrap_err();
        assert_eq!(denied.errno, SlurmErrno::AccessDenied);
        state.settings.enable_user_top = true;
        assert_eq!(
            state.top(1001, "2").unwrap_err().errno,
            SlurmErrno::AccessDenied
        );
        assert_eq!(
            state.top(1000, "2,x").unwrap_err().errno,
            SlurmErrno::InvalidJobId
        );
        state.top(1000, "2").unwrap();
        assert_eq!(
            (state.jobs[&2].priority, state.jobs[&2].spec.nice),
            (100, -50)
        );
        assert_eq!(
            (state.jobs[&1].priority, state.jobs[&1].spec.nice),
            (50, 50)
        );
        if let Some(j) = state.jobs.get_mut(&1) {
            j.state = JobBaseState::Running;
        }
        assert_eq!(
            state.top(0, "1").unwrap_err().errno,
            SlurmErrno::JobNotPending
        );
    }

    /// `scontrol update Priority=/Nice=`, the other way priorities change by hand, beside `top`.
    #[test]
    fn updates_of_priority_and_nice_follow_slurm() {
        use spur_core::wire::api::{ControlRequest, JobSelector, JobUpdate};
        let mut state = ClusterState::new();
        state.jobs = jobs(&[(1, 1000, "debug", 2800), (2, 1000, "debug", 2800)]).into();
        let update = |job_id: u32, update: JobUpdate| ControlRequest::UpdateJob {
            job: JobSelector {
                job_id,
                array_task: None,
            },
            update,
        };
        let priority = |p: u32| JobUpdate {
            priority: Some(p),
            ..JobUpdate::default()
        };
        let nice = |n: i32| JobUpdate {
            nice: Some(n),
            ..JobUpdate::default()
        };
        let errno = |state: &mut ClusterState, uid: u32, request: ControlRequest| {
            state.control(uid, request, 0).err().map(|e| e.errno)
        };
        assert_eq!(
            errno(&mut state, 1000, update(1, priority(9999))),
            Some(SlurmErrno::AccessDenied)
        );
        assert_eq!(
            errno(&mut state, 1000, update(1, priority(100))),
            Some(SlurmErrno::PrioReset)
        );
        assert_eq!(
            errno(&mut state, 1000, update(1, nice(-10))),
            Some(SlurmErrno::AccessDenied)
        );
        assert_eq!(errno(&mut state, 1000, update(1, nice(10))), None);
        assert_eq!(state.jobs[&1].priority, 2790);
        // An administrator's priority is fixed: nice no longer moves it, and 0 holds the job.
        assert_eq!(errno(&mut state, 0, update(2, priority(7777))), None);
        assert_eq!(errno(&mut state, 0, update(2, nice(5))), None);
        assert_eq!(
            (state.jobs[&2].priority, state.jobs[&2].spec.nice),
            (7777, 0)
        );
        assert_eq!(errno(&mut state, 0, update(2, priority(0))), None);
        assert_eq!(
            state.jobs[&2].hold,
            Some(spur_core::model::job::HoldKind::Admin)
        );
        assert_eq!(state.jobs[&2].priority, 0);
    }
}
