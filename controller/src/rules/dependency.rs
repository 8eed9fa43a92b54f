//! Job dependencies (`--dependency`) evaluated against the current state, with Slurm's meanings: `after` (started),
//! `afterany` (ended), `afterok` (completed), `afternotok` (ended otherwise), `aftercorr` (the same array index
//! completed), `singleton` (no other job of this name and user ahead), joined by `,` (all) or `?` (any).

use spur_core::grammar::values::dependency::{
    format_dependency, parse_dependency, ArraySel, DepKind, DepState, Dependency, DependencySpec,
};
use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, SlurmErrno};

use crate::state::ClusterState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DependencyStatus {
    Satisfied,
    Waiting,
    /// A dependency failed: Slurm keeps the job pending with `DependencyNeverSatisfied`.
    Never,
}

/// Refuses, at submit time, a malformed dependency. Like slurmctld, a job id not (yet) in the system is accepted:
/// the dependency then waits (`unfulfilled`).
pub fn validate(_state: &ClusterState, text: &str) -> Result<(), ApiError> {
    parse_dependency(text)
        .map_err(|e| ApiError::with_detail(SlurmErrno::InvalidDependency, e.to_string()))?;
    Ok(())
}

pub fn dependency_status(
    state: &ClusterState,
    job: &JobRecord,
    text: &str,
    now: EpochSecs,
) -> DependencyStatus {
    let Ok(spec) = parse_dependency(text) else {
        return DependencyStatus::Never;
    };
    combine(&spec, &states_of(state, job, &spec, now))
}

/// What scontrol prints as `Dependency=`: the entries not yet fulfilled with their state, `(null)` when none.
pub fn describe(state: &ClusterState, job: &JobRecord, text: &str, now: EpochSecs) -> String {
    let Ok(spec) = parse_dependency(text) else {
        return text.to_string();
    };
    let states = states_of(state, job, &spec, now);
    if combine(&spec, &states) == DependencyStatus::Satisfied {
        return "(null)".to_string();
    }
    let open: Vec<(Dependency, DepState)> = spec
        .deps
        .iter()
        .map(|dep| shown_as_array(state, *dep))
        .zip(states)
        .filter(|(_, s)| *s != DepState::Fulfilled)
        .collect();
    format_dependency(&open, spec.any)
}

/// slurmctld shows a dependency on a whole array by its plain id as `12_*`.
fn shown_as_array(state: &ClusterState, mut dep: Dependency) -> Dependency {
    if let Some(job) = dep.job.as_mut() {
        let is_array = state
            .jobs
            .values()
            .any(|j| j.array_job_id == Some(job.job_id));
        if job.array.is_none() && is_array {
            job.array = Some(ArraySel::All);
        }
    }
    dep
}

fn states_of(
    state: &ClusterState,
    job: &JobRecord,
    spec: &DependencySpec,
    now: EpochSecs,
) -> Vec<DepState> {
    spec.deps
        .iter()
        .map(|dep| dependency_state(state, job, dep, now))
        .collect()
}

fn combine(spec: &DependencySpec, states: &[DepState]) -> DependencyStatus {
    let fulfilled = |s: &DepState| *s == DepState::Fulfilled;
    let failed = |s: &DepState| *s == DepState::Failed;
    let done = if spec.any {
        states.iter().any(fulfilled)
    } else {
        states.iter().all(fulfilled)
    };
    let never = if spec.any {
        !states.is_empty() && states.iter().all(failed)
    } else {
        states.iter().any(failed)
    };
    if done {
        DependencyStatus::Satisfied
    } else if never {
        DependencyStatus::Never
    } else {
        DependencyStatus::Waiting
    }
}

/// The jobs a dependency names: one job, one array task, or every task of an array.
fn targets(state: &ClusterState, job_id: u32, array: Option<ArraySel>) -> Vec<&JobRecord> {
    let tasks_of = |array_id: u32| {
        state
            .jobs
            .values()
            .filter(move |j| j.array_job_id == Some(array_id))
    };
    match array {
        Some(ArraySel::Task(task)) => tasks_of(job_id)
            .filter(|j| j.array_task_id == Some(task))
            .collect(),
        Some(ArraySel::All) => tasks_of(job_id).collect(),
        None => {
            let tasks: Vec<&JobRecord> = tasks_of(job_id).collect();
            if tasks.is_empty() {
                state.jobs.get(&job_id).into_iter().collect()
            } else {
                tasks
            }
        }
    }
}

fn ended(job: &JobRecord) -> bool {
    job.is_finished() && !job.completing
}

fn dependency_state(
    state: &ClusterState,
    job: &JobRecord,
    dep: &Dependency,
    now: EpochSecs,
) -> DepState {
    if dep.kind == DepKind::Singleton {
        return singleton_state(state, job);
    }
    let Some(target) = dep.job else {
        return DepState::Fulfilled;
    };
    let jobs = match dep.kind {
        DepKind::AfterCorr => match job.array_task_id {
            Some(task) => targets(state, target.job_id, Some(ArraySel::Task(task))),
            None => targets(state, target.job_id, target.array),
        },
        _ => targets(state, target.job_id, target.array),
    };
    // A job that was purged after it ended no longer holds anyone back; an id never handed out yet is waited for.
    if jobs.is_empty() {
        return if target.job_id >= state.next_job_id {
            DepState::Unfulfilled
        } else {
            DepState::Fulfilled
        };
    }
    let delay = i64::from(dep.minutes.unwrap_or(0)) * 60;
    match dep.kind {
        DepKind::After => {
            let started = jobs.iter().all(|j| {
                j.state != JobBaseState::Pending && j.start_time.is_some_and(|s| now >= s + delay)
                    || j.is_finished()
            });
            if started {
                DepState::Fulfilled
            } else {
                DepState::Unfulfilled
            }
        }
        DepKind::AfterAny | DepKind::AfterBurstBuffer => {
            if jobs
                .iter()
                .all(|j| ended(j) && j.end_time.is_some_and(|e| now >= e + delay))
            {
                DepState::Fulfilled
            } else {
                DepState::Unfulfilled
            }
        }
        DepKind::AfterOk | DepKind::AfterCorr => {
            if jobs
                .iter()
                .any(|j| ended(j) && j.state != JobBaseState::Completed)
            {
                DepState::Failed
            } else if jobs
                .iter()
                .all(|j| ended(j) && j.end_time.is_some_and(|e| now >= e + delay))
            {
                DepState::Fulfilled
            } else {
                DepState::Unfulfilled
            }
        }
        DepKind::AfterNotOk => {
            if !jobs.iter().all(|j| ended(j)) {
                DepState::Unfulfilled
            } else if jobs.iter().all(|j| j.state == JobBaseState::Completed) {
                DepState::Failed
            } else {
                DepState::Fulfilled
            }
        }
        DepKind::Singleton => DepState::Fulfilled,
    }
}

/// `singleton`: blocked while another job of the same name and user runs, or waits ahead of this one.
fn singleton_state(state: &ClusterState, job: &JobRecord) -> DepState {
    let blocked = state.jobs.values().any(|other| {
        other.job_id != job.job_id
            && other.spec.name == job.spec.name
            && other.spec.user_id == job.spec.user_id
            && (crate::state::started_and_live(other)
                || other.completing
                || (other.state == JobBaseState::Pending && other.job_id < job.job_id))
    });
    if blocked {
        DepState::Unfulfilled
    } else {
        DepState::Fulfilled
    }
}
