//! The end of a run as the agent reports it: the final state (COMPLETED, FAILED, OUT_OF_MEMORY, or back to the
//! queue for a requeue or a failed prolog), the resources released, epilogs and acknowledgements sent.

use spur_core::model::job::{EpochSecs, HoldKind};
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::model::step_exit::OUT_OF_MEMORY_SIGNAL;

use super::{holds_resources, started_and_live};
use crate::state::{Applied, ClusterState, Effect, Outcome};

/// The signal number Slurm records for a batch step that failed to launch.
const LAUNCH_FAILURE_SIGNAL: u32 = 53;

impl ClusterState {
    /// The agent reports how run `run` of the job ended. A result of an earlier run (its acknowledgement was
    /// lost, and the job was requeued meanwhile) is acknowledged and otherwise ignored: it must not end the run
    /// now in progress.
    pub(in crate::state) fn finish_run(
        &mut self,
        job_id: u32,
        outcome: Outcome,
        now: EpochSecs,
        run: Option<u32>,
    ) -> Applied {
        let Some(job) = self.jobs.get(&job_id) else {
            return Applied::default();
        };
        match run {
            Some(run) if run != job.restarts => {
                let mut applied = Applied::default();
                if let Some(node) = job.alloc.as_ref().and_then(|a| a.node_names.first()) {
                    applied.effects.push(Effect::AckFinished {
                        node: node.clone(),
                        job_id,
                        run: Some(run),
                    });
                }
                applied
            }
            _ => self.finish(job_id, outcome, now, run),
        }
    }

    /// The agent reports the batch script of the current run ended (or never started).
    pub(in crate::state) fn finish(
        &mut self,
        job_id: u32,
        outcome: Outcome,
        now: EpochSecs,
        run: Option<u32>,
    ) -> Applied {
        let mut applied = Applied::default();
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return applied;
        };
        if !holds_resources(job) {
            // A duplicate report (agent retry after failover): already final.
            if let Some(node) = job.alloc.as_ref().and_then(|a| a.node_names.first()) {
                applied.effects.push(Effect::AckFinished {
                    node: node.clone(),
                    job_id,
                    run,
                });
            }
            return applied;
        }
        // Slurm shows a batch step that could not start as `ExitCode=0:53` (its launch-failure status).
        // Slurm 22.05 shows a job whose memory cgroup killed a process as `ExitCode=0:125`, whatever the script
        // returned afterwards.
        let (code, signal, oom) = match outcome {
            Outcome::Exited { code, signal } => (code, signal, false),
            Outcome::LaunchFailed => (0, LAUNCH_FAILURE_SIGNAL, false),
            Outcome::OutOfMemory { .. } => (0, OUT_OF_MEMORY_SIGNAL, true),
            Outcome::PrologFailed => (0, 0, false),
        };
        let prolog_failed = outcome == Outcome::PrologFailed;
        if prolog_failed && !job.requeue_pending {
            // As slurmctld: the job goes back to the queue held by the administrator, whatever its --requeue.
            job.hold = Some(HoldKind::Admin);
            job.state_desc = Some("launch failed requeued held".to_string());
            job.requeue_pending = true;
        }
        if started_and_live(job) && !job.requeue_pending && oom {
            job.state = JobBaseState::OutOfMemory;
            job.reason = JobReason::FailOom;
            job.end_time = Some(now);
        } else if started_and_live(job) && !job.requeue_pending {
            job.state = if signal == 0 && code == 0 {
                JobBaseState::Completed
            } else {
                JobBaseState::Failed
            };
            // Slurm 22.05 reports a batch script killed by a signal, like one that never started, as a launch
            // failure; a non-zero exit is NonZeroExitCode.
            job.reason = if job.state == JobBaseState::Failed {
                if signal != 0 {
                    JobReason::FailLaunch
                } else {
                    JobReason::FailExitCode
                }
            } else {
                JobReason::NoReason
            };
            job.end_time = Some(now);
        }
        // Slurm's ExitCode is `code:signal`; a job killed by a signal shows code 0.
        job.exit_code = if signal != 0 { 0 } else { code };
        job.exit_signal = signal;
        job.completing = false;
        let alloc = crate::state::preempt::held_allocation(job);
        job.preempt_suspended = false;
        job.prolog_pending.clear();
        // The other nodes of a multi-node job run their epilog with the job as it ended (its first node's
        // supervisor runs it there); an allocation has no supervisor, so all of its nodes do.
        let skipped = usize::from(job.spec.script.is_some());
        let epilog_nodes: Vec<String> = alloc
            .as_ref()
            .map(|a| a.node_names.iter().skip(skipped).cloned().collect())
            .unwrap_or_default();
        if !epilog_nodes.is_empty() {
            let ended = Box::new(job.clone());
            applied
                .effects
                .extend(epilog_nodes.iter().map(|node| Effect::NodeEpilog {
                    node: node.clone(),
                    job: ended.clone(),
                }));
        }
        let alloc_first_node = alloc.as_ref().and_then(|a| a.node_names.first().cloned());
        let requeue_pending = job.requeue_pending;
        if let Some(alloc) = alloc {
            if let Some(node) = alloc.node_names.first() {
                applied.effects.push(Effect::AckFinished {
                    node: node.clone(),
                    job_id,
                    run,
                });
            }
            self.release(&alloc, now);
        }
        // A requeued job goes back to the queue at once and is not held for its epilogs.
        if !requeue_pending {
            self.hold_for_epilogs(job_id, &epilog_nodes);
        }
        self.end_running_steps(job_id, now);
        // A requeued leader's components are requeued on their own (a requeue names them all).
        if !requeue_pending {
            applied.effects.extend(self.end_het_followers(job_id, now));
        }
        if requeue_pending {
            self.return_to_queue(job_id, now);
        }
        if prolog_failed {
            if let Some(node) = alloc_first_node {
                let drained = self.update_nodes(
                    &[node],
                    crate::state::nodes::NodeChanges::drain("Prolog error"),
                    0,
                    now,
                );
                if let Ok(more) = drained {
                    applied.effects.extend(more.effects);
                }
            }
        }
        applied
    }
}
