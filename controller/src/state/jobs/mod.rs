//! The job lifecycle in the state machine, one file per phase (docs/architecture.md, "The job lifecycle", follows
//! a job through them from `sbatch` to its record in accounting):
//!
//! - [`submit`]: a request checked, given its defaults, and queued as pending records (one per array task).
//! - [`start`]: a scheduling pass applied: priorities, forecasts, pending reasons, and starts (re-checked).
//! - [`ledger`]: the CPUs, memory and GRES an allocation holds on its nodes, booked and released.
//! - [`finish`]: the agent's report of a run's end: the job's final state, or back to the queue.
//! - [`control`]: `scancel`/`scontrol` requests dispatched, and the jobs a request names and who may act on them.
//! - [`cancel`]: cancel, suspend/resume and signals.
//! - [`hold`]: hold and release.
//! - [`requeue`]: a job sent back to the queue, by request or after its run ended.
//! - [`update`]: `scontrol update job`.
//! - [`time_limits`]: the `--signal` warning and TIMEOUT.
//! - [`node_failure`]: NODE_FAIL, `--no-kill` shrinking, and requeue after a node failed.
//! - [`purge`]: finished jobs past `MinJobAge` archived and dropped.
//!
//! Resource ledgers on nodes change in [`ledger`], together with the job that holds them. Steps, prolog/epilog
//! holds, heterogeneous jobs and preemption have their own files beside this folder. The checks a submission and a
//! start must pass live in [`crate::rules`], shared with the scheduler; nothing here imports the scheduler.

mod cancel;
mod control;
mod finish;
mod hold;
mod ledger;
mod node_failure;
mod purge;
mod requeue;
mod start;
mod submit;
mod time_limits;
mod update;

use spur_core::model::job::JobRecord;
use spur_core::model::states::JobBaseState;

pub use submit::startable_at_submission;

/// priority/basic's starting point: each submission gets one less, so older jobs sort first.
const BASIC_PRIORITY_TOP: u32 = 0xFFFF_0000;

/// A job occupies CPUs, memory and GRES while it runs and until its processes are confirmed gone.
pub(super) fn holds_resources(job: &JobRecord) -> bool {
    started_and_live(job) || job.completing
}

/// Running or suspended: the job has processes on its nodes and keeps its resources.
pub(crate) fn started_and_live(job: &JobRecord) -> bool {
    matches!(job.state, JobBaseState::Running | JobBaseState::Suspended)
}

/// The job's first node, where its batch script runs (empty for a job without an allocation).
fn first_node(job: &JobRecord) -> String {
    job.alloc
        .as_ref()
        .and_then(|a| a.node_names.first().cloned())
        .unwrap_or_default()
}
