//! Purging: finished jobs older than `MinJobAge` leave the job table for the accounting archive.

use spur_core::model::job::EpochSecs;

use crate::state::ClusterState;

impl ClusterState {
    pub(in crate::state) fn purge(&mut self, now: EpochSecs) {
        let age = EpochSecs::from(self.settings.min_job_age_secs);
        let expired: Vec<u32> = self
            .jobs
            .values()
            .filter(|job| {
                job.is_finished()
                    && !job.is_completing()
                    && job.end_time.is_some_and(|end| now - end >= age)
            })
            .map(|job| job.job_id)
            .collect();
        for job_id in expired {
            if let Some(job) = self.jobs.remove(&job_id) {
                self.archive_job(&job, now);
            }
        }
    }
}
