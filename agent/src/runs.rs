//! A job's runs on this node. The controller requeues a job whose node it declared failed; when that node comes
//! back, the old run may still be ending there (its supervisor honours KillWait) as the controller launches the
//! new run on the same node. Both would share the job's spool directory, so the new run waits until the old
//! run's supervisor is gone, off the session's task; a terminate of the waiting run cancels it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use spur_core::model::job::JobRecord;
use spur_core::wire::agent_proto::{LaunchContext, TerminateReason};
use spur_core::wire::supervisor::Outcome;

use crate::session::{launch_job, write_failed_result, Agent};

/// How often a waiting launch looks whether the earlier run is gone.
const POLL: Duration = Duration::from_millis(200);
/// Beyond the earlier run's KillWait: how long a launch waits for its supervisor before giving up (the
/// controller launches the run again at the node's next registration).
const GRACE_BEYOND_KILL_WAIT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Waiting {
    run: u32,
    cancelled: bool,
}

/// Launches waiting for an earlier run of their job, by job id.
#[derive(Debug, Default)]
pub struct DeferredLaunches(Mutex<BTreeMap<u32, Waiting>>);

impl DeferredLaunches {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<u32, Waiting>> {
        // A panic elsewhere while holding the lock leaves a map that is still consistent.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Registers a waiting launch of `run` (`cancelled`: only its result is owed); false when one is already
    /// waiting (a resent launch).
    fn register(&self, job_id: u32, run: u32, cancelled: bool) -> bool {
        let mut waiting = self.lock();
        if waiting.contains_key(&job_id) {
            return false;
        }
        waiting.insert(job_id, Waiting { run, cancelled });
        true
    }

    /// The controller ends run `run` of the job: true when that run is a waiting launch, now cancelled.
    pub fn cancel(&self, job_id: u32, run: u32) -> bool {
        match self.lock().get_mut(&job_id) {
            Some(waiting) if waiting.run == run => {
                waiting.cancelled = true;
                true
            }
            _ => false,
        }
    }

    /// The run whose launch waits, if one does (cancelled or not).
    pub fn waiting_run(&self, job_id: u32) -> Option<u32> {
        self.lock().get(&job_id).map(|w| w.run)
    }

    /// The wait is over: whether the launch was cancelled meanwhile.
    fn finish(&self, job_id: u32) -> bool {
        self.lock().remove(&job_id).is_some_and(|w| w.cancelled)
    }
}

/// Starts `job`'s run once the earlier run's supervisor has gone.
pub fn defer_launch(agent: Arc<Agent>, job: Box<JobRecord>, context: LaunchContext) {
    let (job_id, run) = (job.job_id, job.restarts);
    let kill_wait = context.kill_wait_secs;
    wait_out_earlier_run(agent, job_id, run, kill_wait, Some((job, context)));
}

/// The controller ends run `run`, which never started here while an earlier run is still ending: that run is
/// stopped, and once it is gone the result of `run` (killed before it started) is reported, as for a run never
/// launched here.
pub fn answer_after_earlier_run(agent: Arc<Agent>, job_id: u32, run: u32, kill_wait_secs: u32) {
    wait_out_earlier_run(agent, job_id, run, kill_wait_secs, None);
}

fn wait_out_earlier_run(
    agent: Arc<Agent>,
    job_id: u32,
    run: u32,
    kill_wait_secs: u32,
    launch: Option<(Box<JobRecord>, LaunchContext)>,
) {
    if !agent.deferred.register(job_id, run, launch.is_none()) {
        return;
    }
    tracing::info!(
        job_id,
        run,
        "an earlier run of the job is still ending here; this run waits"
    );
    tokio::spawn(async move {
        let dir = agent.spool.job_dir(job_id);
        // The controller has already told the earlier run to stop; telling it again costs nothing and covers a
        // terminate lost with a session.
        let worker = agent.clone();
        let at = crate::session::now();
        let _ = tokio::task::spawn_blocking(move || {
            worker
                .spool
                .terminate(job_id, TerminateReason::NodeFail, at)
        })
        .await;
        let deadline = Instant::now()
            + Duration::from_secs(u64::from(kill_wait_secs))
            + GRACE_BEYOND_KILL_WAIT;
        while spur_stepd::is_alive(&dir) && Instant::now() < deadline {
            tokio::time::sleep(POLL).await;
        }
        let cancelled = agent.deferred.finish(job_id);
        if spur_stepd::is_alive(&dir) {
            tracing::error!(
                job_id,
                run,
                "the earlier run of the job did not end; run dropped"
            );
            return;
        }
        agent.spool.retire_older_run(job_id, run);
        match launch {
            Some((job, context)) if !cancelled => {
                if let Err(e) = launch_job(&agent, job, context).await {
                    tracing::warn!(job_id, run, "launch failed: {e}");
                }
            }
            _ => write_failed_result(&agent.spool, job_id, Outcome::Failed, Some(9), Some(run)),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiting_launch_is_registered_once_and_cancelled_only_by_its_own_run() {
        let deferred = DeferredLaunches::default();
        assert!(deferred.register(4, 2, false));
        assert!(
            !deferred.register(4, 2, false),
            "a resent launch waits once"
        );
        assert!(!deferred.cancel(4, 1), "a terminate of the earlier run");
        assert!(!deferred.cancel(5, 2));
        assert_eq!(deferred.waiting_run(4), Some(2));
        assert_eq!(deferred.waiting_run(5), None);
        assert!(deferred.cancel(4, 2));
        assert!(deferred.finish(4));
        assert!(!deferred.finish(4));
        assert!(deferred.register(4, 3, false));
        assert!(!deferred.finish(4));
        assert!(deferred.register(5, 1, true));
        assert!(deferred.finish(5), "a run that only owes its result");
    }
}
