//! Keeps what a step's supervisor measured (`jobacct_gather`) with the step, where sacct reads it: the batch step's
//! with the job, a numbered step's with its step record. The job's own CPU times are summed from these when sacct
//! prints it, so nothing else changes here.

use spur_core::model::step_acct::StepAcct;
use spur_core::model::step_usage::StepRef;

use crate::state::ClusterState;

impl ClusterState {
    /// Records `usage` for `step` of run `run` of the job; a report for an earlier run, an unknown job or step is
    /// dropped (nothing to attach it to).
    pub(in crate::state) fn record_usage(
        &mut self,
        job_id: u32,
        run: Option<u32>,
        step: StepRef,
        usage: Box<StepAcct>,
    ) {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return;
        };
        if run.is_some_and(|run| run != job.restarts) {
            return;
        }
        match step {
            StepRef::Batch => {
                let mut usage = usage;
                // Steps srun ran itself inside the script were reaped by srun, so the kernel counted their tasks'
                // CPU time and peaks in the script's too; Slurm's batch step holds none of them.
                let inner: Vec<&StepAcct> = job
                    .steps
                    .iter()
                    .filter_map(|s| s.usage.as_deref())
                    .filter(|u| u.counted_in_batch)
                    .collect();
                for step in &inner {
                    usage.without_cpu_of(step);
                }
                usage.raise_batch_peak(inner.iter().copied());
                job.batch_usage = Some(usage);
            }
            StepRef::Numbered(id) => {
                if let Some(record) = job.steps.iter_mut().find(|s| s.step_id == id) {
                    record.usage = Some(usage);
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "usage_record_tests.rs"]
mod tests;
