//! Control requests (`scancel`, `scontrol ...`): the dispatch to each request's handler, and how a request names
//! its jobs (a job, an array, an array task, a het job) and who may act on them.

use spur_core::model::job::{EpochSecs, JobRecord, UNSTARTED_TASK_KEYS};
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, ControlRequest, JobSelector, SlurmErrno};

use super::holds_resources;
use crate::state::{Applied, ApplyResult, ClusterState, Effect, Outcome};

impl ClusterState {
    pub(in crate::state) fn control(
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
                weight,
                features,
                active_features,
            } => {
                if !self.is_admin(caller_uid) {
                    return Err(ApiError::new(SlurmErrno::UserIdMissing));
                }
                let changes = crate::state::nodes::NodeChanges {
                    state,
                    reason,
                    weight,
                    features,
                    active_features,
                };
                self.update_nodes(&nodes, changes, caller_uid, now)
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
                    let id = if forget_task {
                        match s.forget_unstarted_task(id) {
                            Some(id) => id,
                            None => return Ok(Vec::new()),
                        }
                    } else {
                        id
                    };
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
                resv_port_cnt,
            } => self.create_step(
                caller_uid,
                crate::state::steps::NewStep {
                    job_id,
                    name,
                    num_tasks,
                    num_cpus,
                    time_limit_min,
                    srun_host,
                    srun_pid,
                    launch,
                    resv_port_cnt,
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
                usage,
            } => self.complete_step(caller_uid, job_id, step_id, (exit_code, signal), usage, now),
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
            ControlRequest::ModifyJobRecords { request } => {
                self.modify_job_records(caller_uid, &request, now)
            }
            // The server reads slurm.conf and commits `ApplyConfig` instead; as a log entry it changes nothing.
            ControlRequest::Reconfigure => Ok(Applied::default()),
            // The server fills in the caller's group and whether the program is theirs to run.
            ControlRequest::SetTrigger {
                trigger,
                group_id,
                executable,
            } => self.set_trigger(caller_uid, group_id, trigger, executable),
            ControlRequest::ClearTrigger {
                trig_id,
                job_id,
                user_id,
            } => self.clear_trigger(caller_uid, trig_id, job_id, user_id),
            ControlRequest::ImportJobs { records } => self.import_jobs(caller_uid, records, now),
        }
    }

    pub fn is_admin(&self, uid: u32) -> bool {
        uid == 0 || self.settings.admin_uids.contains(&uid)
    }

    /// Resolves `12` (a job, or every task of array 12) and `12_3`, checks ownership (another user's job is
    /// `Access/permission denied`, as Slurm's kill and requeue answer), and applies `op` to each.
    pub(super) fn for_each_job(
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
        // The keys of never-started array tasks are no job ids: such a task is named by its array's id.
        if id >= UNSTARTED_TASK_KEYS {
            return Vec::new();
        }
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

    /// Job `id` (when it is still kept) followed by the other records of the array `id` is the id of, if it is
    /// one (from the table's index of arrays: no walk over the whole table per request).
    fn array_from(&self, id: u32) -> impl Iterator<Item = &JobRecord> + '_ {
        self.jobs
            .get(&id)
            .into_iter()
            .chain(self.jobs.array_tasks(id).filter(move |j| j.job_id != id))
    }

    /// Slurm keeps an array's never-started tasks as bits of one pending record; cancelling one of them by
    /// `ID_TASK` clears its bit, so the task leaves no record at all (`squeue -j ID_TASK` finds nothing): the
    /// record keyed `key` is dropped and `None` returned. The last such task is that record itself, so it stays,
    /// under the array's id, which is returned (as is `key` for any other job).
    fn forget_unstarted_task(&mut self, key: u32) -> Option<u32> {
        let array = match self.jobs.get(&key) {
            Some(job) if job.is_unstarted_array_task() && job.state == JobBaseState::Pending => {
                job.array_job_id
            }
            _ => None,
        };
        let Some(array) = array else {
            return Some(key);
        };
        if self.other_unstarted_tasks(array, key) {
            self.jobs.remove(&key);
            return None;
        }
        if self.jobs.contains_key(&array) {
            return Some(key);
        }
        self.rekey(key, array);
        Some(array)
    }
}
