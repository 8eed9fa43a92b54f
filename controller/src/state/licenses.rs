//! Licenses (slurm.conf `Licenses=`, `-L`): a submission naming one the cluster lacks, or more than it has, is
//! refused as slurmctld refuses it; the scheduler counts what running jobs hold.

use std::collections::BTreeMap;

use spur_core::grammar::values::licenses;
use spur_core::model::job::{JobRecord, JobSpec};
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::jobs::holds_resources;
use super::ClusterState;

impl ClusterState {
    pub(super) fn check_licenses(&self, spec: &JobSpec) -> Result<(), ApiError> {
        let Some(text) = &spec.licenses else {
            return Ok(());
        };
        match licenses::parse(text) {
            Ok(wanted) if licenses::satisfiable(&wanted, &self.settings.licenses) => Ok(()),
            _ => Err(ApiError::new(SlurmErrno::InvalidLicenses)),
        }
    }

    /// How many of each license the jobs holding resources use.
    pub fn licenses_in_use(&self) -> BTreeMap<String, u32> {
        let mut used: BTreeMap<String, u32> = BTreeMap::new();
        for job in self.jobs.values().filter(|j| holds_resources(j)) {
            for (name, count) in job_licenses(job) {
                *used.entry(name).or_default() += count;
            }
        }
        used
    }
}

/// The licenses a job asked for (none when it asked for none, or its text no longer parses).
pub fn job_licenses(job: &JobRecord) -> Vec<(String, u32)> {
    job.spec
        .licenses
        .as_deref()
        .and_then(|t| licenses::parse(t).ok())
        .unwrap_or_default()
}
