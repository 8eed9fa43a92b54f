//! Steps of running jobs: srun registers one (`CreateStep`), reports its end (`CompleteStep`); a job that ends
//! takes its still-running steps with it, as CANCELLED.

use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::model::states::JobBaseState;
use spur_core::model::step::StepRecord;
use spur_core::model::step_launch::StepLaunch;
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::{Applied, ApplyResult, ClusterState, Effect};

/// How many `scontrol notify` messages an interactive allocation keeps for its client.
const KEPT_NOTICES: usize = 8;

/// What srun asks for when it registers a step.
pub(super) struct NewStep {
    pub job_id: u32,
    pub name: String,
    pub num_tasks: u32,
    pub num_cpus: u32,
    pub time_limit_min: Option<u32>,
    pub srun_host: String,
    pub srun_pid: u32,
    pub launch: Option<Box<StepLaunch>>,
    /// `srun --resv-ports` ([`spur_core::wire::api::ControlRequest::CreateStep`]).
    pub resv_port_cnt: Option<u16>,
}

impl ClusterState {
    /// The job, if the caller owns it or administers the cluster.
    fn own_job_mut(&mut self, caller_uid: u32, job_id: u32) -> Result<&mut JobRecord, ApiError> {
        self.owned_job_mut(caller_uid, job_id, SlurmErrno::AccessDenied)
    }

    /// The job, if the caller owns it or administers the cluster; else `denied`, the errno slurmctld answers
    /// that request with.
    fn owned_job_mut(
        &mut self,
        caller_uid: u32,
        job_id: u32,
        denied: SlurmErrno,
    ) -> Result<&mut JobRecord, ApiError> {
        let admin = self.is_admin(caller_uid);
        let job = self
            .jobs
            .get_mut(&job_id)
            .ok_or_else(|| ApiError::new(SlurmErrno::InvalidJobId))?;
        if job.spec.user_id != caller_uid && !admin {
            return Err(ApiError::new(denied));
        }
        Ok(job)
    }

    pub(super) fn create_step(
        &mut self,
        caller_uid: u32,
        new: NewStep,
        now: EpochSecs,
    ) -> ApplyResult {
        // A heterogeneous job's steps are numbered by its leader and may run on any running component's nodes.
        let sibling_nodes = self.het_sibling_nodes(new.job_id);
        let job = self.own_job_mut(caller_uid, new.job_id)?;
        if job.state != JobBaseState::Running || job.completing {
            return Err(ApiError::new(SlurmErrno::AlreadyDone));
        }
        let mut job_nodes = job
            .alloc
            .as_ref()
            .map(|a| a.node_names.clone())
            .unwrap_or_default();
        job_nodes.extend(sibling_nodes);
        let nodes = match &new.launch {
            Some(launch) => launch_nodes(launch, &job_nodes)?,
            None => job_nodes,
        };
        let node_list = spur_core::grammar::hostlist::compress(&nodes);
        let node_ranks = new
            .launch
            .as_ref()
            .map(|launch| ranks_by_node(launch, &node_list))
            .unwrap_or_default();
        let step_id = job.next_step_id;
        job.next_step_id += 1;
        // slurmctld numbers the step before it reserves ports, so a step refused for want of ports uses up its id.
        let tasks_per_node = node_ranks
            .iter()
            .map(Vec::len)
            .max()
            .map_or(new.num_tasks, |n| u32::try_from(n).unwrap_or(u32::MAX));
        let mpi_params = self.settings.mpi_params.clone();
        // srun runs a step without a launch itself, on its own node: the ports are held there only.
        let port_nodes = match &new.launch {
            None if nodes.contains(&new.srun_host) => vec![new.srun_host.clone()],
            _ => nodes.clone(),
        };
        let resv_ports = self.reserve_step_ports(
            (new.job_id, step_id),
            &port_nodes,
            port_count(new.resv_port_cnt, mpi_params.as_deref(), tasks_per_node),
            mpi_params.as_deref(),
        )?;
        let job = self.own_job_mut(caller_uid, new.job_id)?;
        job.steps.push(StepRecord {
            step_id,
            name: new.name,
            state: JobBaseState::Running,
            start_time: now,
            end_time: None,
            node_list,
            num_nodes: u32::try_from(nodes.len()).unwrap_or(u32::MAX),
            num_tasks: new.num_tasks,
            num_cpus: new.num_cpus,
            time_limit_min: new.time_limit_min,
            exit_code: 0,
            exit_signal: 0,
            srun_host: new.srun_host,
            srun_pid: new.srun_pid,
            node_ranks,
            usage: None,
        });
        // The tasks run as the job's owner, whoever (root, the owner) asked for the step.
        let effects = new.launch.map_or_else(Vec::new, |launch| {
            launch
                .per_node(new.job_id, step_id, job.spec.user_id, job.spec.group_id)
                .into_iter()
                .map(|mut node_launch| {
                    // The tasks see the step's ports as srun's own tasks do (Slurm's srun puts them in the
                    // step's environment from the controller's answer).
                    if let Some(ports) = &resv_ports {
                        set_env(&mut node_launch.tasks.env, "SLURM_STEP_RESV_PORTS", ports);
                    }
                    Effect::LaunchStep {
                        node: node_launch.tasks.node.clone(),
                        launch: Box::new(node_launch),
                    }
                })
                .collect()
        });
        Ok(Applied {
            job_id: Some(new.job_id),
            step_id: Some(step_id),
            effects,
            resv_ports,
            ..Applied::default()
        })
    }

    /// Reserves `count` ports (none: no reservation) on the step's nodes from `MpiParams`' range.
    fn reserve_step_ports(
        &mut self,
        step: (u32, u32),
        nodes: &[String],
        count: Option<u32>,
        mpi_params: Option<&str>,
    ) -> Result<Option<String>, ApiError> {
        let Some(count) = count else {
            return Ok(None);
        };
        let range = mpi_params.and_then(super::ports::port_range);
        let jobs = &self.jobs;
        let running = |job_id: u32, step_id: u32| {
            jobs.get(&job_id).is_some_and(|j| {
                j.steps
                    .iter()
                    .any(|s| s.step_id == step_id && s.is_running())
            })
        };
        self.step_ports
            .reserve(range, step, nodes, count, running)
            .map(Some)
            .map_err(ApiError::new)
    }

    pub(super) fn complete_step(
        &mut self,
        caller_uid: u32,
        job_id: u32,
        step_id: u32,
        (exit_code, signal): (u32, u32),
        usage: Option<Box<spur_core::model::step_acct::StepAcct>>,
        now: EpochSecs,
    ) -> ApplyResult {
        let job = self.own_job_mut(caller_uid, job_id)?;
        let Some(step) = job.steps.iter_mut().find(|s| s.step_id == step_id) else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        // The step's first report is its usage: a retried or later one (the owner's own srun, or anything else
        // the owner sends) cannot rewrite what sacct already shows.
        if step.usage.is_none() {
            step.usage = usage;
        }
        // A report after the job ended its steps (or a retried one) changes nothing.
        if step.is_running() {
            step.state = StepRecord::end_state(exit_code, signal);
            step.end_time = Some(now);
        }
        // A cancelled step still reports how its tasks ended, for DerivedExitCode.
        if step.exit_code == 0 && step.exit_signal == 0 {
            step.exit_code = exit_code;
            step.exit_signal = signal;
        }
        Ok(Applied::default())
    }

    pub(super) fn cancel_step(
        &mut self,
        caller_uid: u32,
        job_id: u32,
        step_id: u32,
        now: EpochSecs,
    ) -> ApplyResult {
        let job = self.own_job_mut(caller_uid, job_id)?;
        // Slurm knows only the steps still running: any other is an invalid id to scancel.
        let Some(step) = job
            .steps
            .iter_mut()
            .find(|s| s.step_id == step_id && s.is_running())
        else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        step.state = JobBaseState::Cancelled;
        step.end_time = Some(now);
        // srun reports the killed tasks afterwards; the step keeps this state.
        Ok(Applied::default())
    }

    /// Signals one running srun step's tasks (the descendants of its srun on the job's first node).
    pub(super) fn signal_step(
        &mut self,
        caller_uid: u32,
        job_id: u32,
        step_id: u32,
        signal: i32,
    ) -> ApplyResult {
        let job = self.own_job_mut(caller_uid, job_id)?;
        if job.completing {
            return Err(ApiError::new(SlurmErrno::AlreadyDone));
        }
        let Some(step) = job
            .steps
            .iter()
            .find(|s| s.step_id == step_id && s.is_running())
        else {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        };
        let node = job
            .alloc
            .as_ref()
            .and_then(|a| a.node_names.first().cloned())
            .unwrap_or_default();
        let mut effects = if step.srun_pid == 0 {
            Vec::new()
        } else {
            vec![Effect::Signal {
                node,
                job_id,
                signal,
                scope: spur_core::wire::api::SignalScope::Steps,
                step_pids: vec![step.srun_pid],
            }]
        };
        effects.extend(signal_step_tasks(job, signal, std::iter::once(step)));
        Ok(Applied {
            effects,
            ..Applied::default()
        })
    }

    /// `scontrol update StepId=`: a new time limit for one running step or (`step_id` `None`) each of them. Like
    /// slurmctld, another user's job is `Invalid user id` and a job without such a running step an invalid job id.
    pub(super) fn update_step(
        &mut self,
        caller_uid: u32,
        job_id: u32,
        step_id: Option<u32>,
        time_limit_min: Option<u32>,
    ) -> ApplyResult {
        let job = self.owned_job_mut(caller_uid, job_id, SlurmErrno::UserIdMissing)?;
        if job.is_finished() {
            return Err(ApiError::new(SlurmErrno::AlreadyDone));
        }
        let mut updated = 0;
        for step in job
            .steps
            .iter_mut()
            .filter(|s| s.is_running() && step_id.is_none_or(|id| id == s.step_id))
        {
            step.time_limit_min = time_limit_min;
            updated += 1;
        }
        if updated == 0 && (step_id.is_some() || job.state == JobBaseState::Pending) {
            return Err(ApiError::new(SlurmErrno::InvalidJobId));
        }
        Ok(Applied::default())
    }

    /// `scontrol notify`: only a running job can be told anything (a pending one is `ESLURM_DISABLED`, as in
    /// slurmctld); the owner or an administrator may send it. A batch job's supervisor writes it into the job's
    /// stderr; salloc (or srun holding its own allocation) prints it.
    pub(super) fn notify_job(
        &mut self,
        caller_uid: u32,
        job_id: u32,
        message: String,
    ) -> ApplyResult {
        let job = self.owned_job_mut(caller_uid, job_id, SlurmErrno::UserIdMissing)?;
        if job.is_finished() {
            return Err(ApiError::new(SlurmErrno::AlreadyDone));
        }
        if job.state != JobBaseState::Running {
            return Err(ApiError::new(SlurmErrno::DisabledRequeue));
        }
        let batch_node = match (&job.spec.script, &job.alloc) {
            (None, _) => return Ok(self.notice_for_allocation(job_id, message)),
            (Some(_), Some(alloc)) => alloc.node_names.first().cloned(),
            (Some(_), None) => None,
        };
        let effects = batch_node.map_or_else(Vec::new, |node| {
            vec![Effect::Notify {
                node,
                job_id,
                message,
            }]
        });
        Ok(Applied {
            effects,
            ..Applied::default()
        })
    }

    /// Steps past their time limit end TIMEOUT; srun sees it in the job's record and stops the tasks, as
    /// slurmstepd does for Slurm (`*** STEP J.S ON node CANCELLED AT ... DUE TO TIME LIMIT ***`).
    pub(super) fn step_time_limit_reached(&mut self, steps: &[(u32, u32)], now: EpochSecs) {
        for &(job_id, step_id) in steps {
            let Some(job) = self.jobs.get_mut(&job_id) else {
                continue;
            };
            if let Some(step) = job
                .steps
                .iter_mut()
                .find(|s| s.step_id == step_id && s.is_running())
            {
                step.state = JobBaseState::Timeout;
                step.end_time = Some(now);
            }
        }
    }

    /// An interactive allocation's client (salloc, or srun holding its own) polls the job record and prints the
    /// notices it has not printed yet; only the last few are kept.
    fn notice_for_allocation(&mut self, job_id: u32, message: String) -> Applied {
        if let Some(job) = self.jobs.get_mut(&job_id) {
            let next = job.notices.last().map_or(1, |(n, _)| n + 1);
            job.notices.push((next, message));
            let excess = job.notices.len().saturating_sub(KEPT_NOTICES);
            job.notices.drain(..excess);
        }
        Applied::default()
    }

    /// The job ended: steps still running end with it.
    pub(super) fn end_running_steps(&mut self, job_id: u32, now: EpochSecs) {
        if let Some(job) = self.jobs.get_mut(&job_id) {
            for step in job.steps.iter_mut().filter(|s| s.is_running()) {
                step.state = JobBaseState::Cancelled;
                step.end_time = Some(now);
            }
        }
    }
}

/// The step's nodes, in the job's order; a step may use only the job's nodes, each once, and must run a task.
/// How many ports a step reserves, as slurmctld decides: srun's `--resv-ports=N` (0: none), else with any
/// `MpiParams` the most tasks on one of its nodes plus one, else none.
fn port_count(
    requested: Option<u16>,
    mpi_params: Option<&str>,
    tasks_per_node: u32,
) -> Option<u32> {
    match requested {
        Some(0) => None,
        Some(n) => Some(u32::from(n)),
        None => mpi_params.map(|_| tasks_per_node.saturating_add(1)),
    }
}

fn set_env(env: &mut Vec<(String, String)>, key: &str, value: &str) {
    match env.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value.to_string(),
        None => env.push((key.to_string(), value.to_string())),
    }
}

fn launch_nodes(launch: &StepLaunch, job_nodes: &[String]) -> Result<Vec<String>, ApiError> {
    let invalid = || ApiError::new(SlurmErrno::InvalidNodeName);
    let mut nodes = Vec::with_capacity(launch.nodes.len());
    for tasks in &launch.nodes {
        if !job_nodes.contains(&tasks.node) || nodes.contains(&tasks.node) {
            return Err(invalid());
        }
        nodes.push(tasks.node.clone());
    }
    if nodes.is_empty() || launch.num_tasks() == 0 {
        return Err(invalid());
    }
    nodes.sort_by_key(|n| job_nodes.iter().position(|j| j == n));
    Ok(nodes)
}

/// The ranks of each node of `node_list` (in its expanded order), as the launch lays them out.
fn ranks_by_node(launch: &StepLaunch, node_list: &str) -> Vec<Vec<u32>> {
    spur_core::grammar::hostlist::expand(node_list)
        .unwrap_or_default()
        .iter()
        .map(|node| {
            launch
                .nodes
                .iter()
                .filter(|tasks| &tasks.node == node)
                .flat_map(|tasks| tasks.ranks.iter().copied())
                .collect()
        })
        .collect()
}

/// For each node of `steps`, the signal its step supervisors deliver to those steps' tasks there. Steps srun runs
/// itself are reached through srun's process instead ([`Effect::Signal`]); a node without such a supervisor
/// ignores it.
pub(super) fn signal_step_tasks<'a>(
    job: &JobRecord,
    signal: i32,
    steps: impl Iterator<Item = &'a StepRecord>,
) -> Vec<Effect> {
    let mut per_node: std::collections::BTreeMap<String, Vec<u32>> = Default::default();
    for step in steps {
        for node in spur_core::grammar::hostlist::expand(&step.node_list).unwrap_or_default() {
            per_node.entry(node).or_default().push(step.step_id);
        }
    }
    per_node
        .into_iter()
        .map(|(node, step_ids)| Effect::SignalStepTasks {
            node,
            job_id: job.job_id,
            signal,
            step_ids,
        })
        .collect()
}
