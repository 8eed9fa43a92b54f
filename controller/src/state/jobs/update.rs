//! `scontrol update job`: what a user may change on their own job, what only an operator may, and what only a
//! pending job accepts.

use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, JobUpdate, SlurmErrno};

use crate::state::{ClusterState, Effect};

impl ClusterState {
    pub(super) fn update_job(
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
        // The throttle is the array's: every task record carries it in its `%N`, finished ones too, as Slurm
        // shows it on each.
        if let (Some(throttle), Some(_)) = (update.array_throttle, job.array_job_id) {
            if let Some(spec) = job.spec.array.as_mut() {
                let tasks = spec.split_once('%').map_or(spec.as_str(), |(t, _)| t);
                *spec = match throttle {
                    0 => tasks.to_string(),
                    n => format!("{tasks}%{n}"),
                };
            }
        }
        if job.is_finished() {
            if update.array_throttle.is_some() && job.array_job_id.is_some() {
                return Ok(Vec::new());
            }
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
            if !(1..spur_core::grammar::values::NO_VAL).contains(&tasks) {
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
            job.eligible_time = Some(begin);
        }
        if hold_now {
            return self.hold(job_id, true);
        }
        Ok(Vec::new())
    }
}
