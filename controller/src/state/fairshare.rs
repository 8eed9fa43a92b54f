//! Fair-share usage in the state machine: the leader commits `AccrueUsage` with its clock once a
//! `PriorityCalcPeriod` has passed or a job has ended since the last accrual, and `Purge` accrues before it forgets
//! jobs, so no job's last seconds are lost. Applying it is the pure `FairShareUsage::accrue` over the jobs that ran,
//! so every replica holds the same usage (docs/scheduling.md, Fair-share).

use spur_core::model::assoc::DEFAULT_QOS;
use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::model::states::JobBaseState;
use spur_core::policy::fairshare::{assoc_chain, JobUse, TresRunMins};

use super::ClusterState;

impl ClusterState {
    /// Usage is counted under `priority/multifactor` with `accounting_storage/slurmdbd`, as Slurm's multifactor
    /// plugin counts it (without slurmdbd it has no associations; Spur keeps them all the same, but the factor
    /// stays Slurm's 0).
    pub fn counts_usage(&self) -> bool {
        self.settings.priority.is_some()
            && self.settings.accounting
            && self.settings.fairshare.with_slurmdbd
    }

    /// Whether the leader should commit an accrual at `now`: never yet, a `PriorityCalcPeriod` since the last, or
    /// a job ended since then (so a short job's usage shows at once, not a period later).
    pub fn usage_accrual_due(&self, now: EpochSecs) -> bool {
        let Some(weights) = self
            .settings
            .priority
            .as_ref()
            .filter(|_| self.counts_usage())
        else {
            return false;
        };
        let Some(last) = self.usage.last_calc else {
            return true;
        };
        now > last
            && (now - last >= weights.calc_period_secs
                || self
                    .jobs
                    .values()
                    .any(|j| j.start_time.is_some() && j.end_time.is_some_and(|end| end > last)))
    }

    /// `sshare`'s `TRESRunMins` of every association with running jobs (and the accounts above them).
    pub fn tres_run_mins(&self, now: EpochSecs) -> std::collections::BTreeMap<String, TresRunMins> {
        let mut out: std::collections::BTreeMap<String, TresRunMins> = Default::default();
        for job in self.jobs.values() {
            let (Some(start), Some(alloc)) = (job.start_time, job.alloc.as_ref()) else {
                continue;
            };
            if job.end_time.is_some() {
                continue;
            }
            let minutes_left = match job.time_limit_min {
                Some(limit) => (i64::from(limit) * 60 - (now - start)).max(0) as u64 / 60,
                None => u64::from(u32::MAX),
            };
            let nodes = alloc.node_names.len().max(1) as u64;
            let held = TresRunMins::of(
                u64::from(alloc.cpus) * nodes,
                alloc.mem_mb * nodes,
                nodes,
                minutes_left,
            );
            let chain = assoc_chain(
                &self.acct,
                &job.spec.user_name,
                job.spec.account.as_deref(),
                &job.partition,
            );
            for key in chain {
                out.entry(key).or_default().add(&held);
            }
        }
        out
    }

    pub(super) fn accrue_usage(&mut self, now: EpochSecs) {
        if !self.counts_usage() {
            return;
        }
        let acct = &self.acct;
        let jobs = self.jobs.values().filter_map(|job| job_use(acct, job));
        self.usage
            .accrue(&self.acct, &self.settings.fairshare, jobs, now);
    }
}

/// What a job that ran counts: its billing TRES (its CPUs without its partition's `TRESBillingWeights`, unrounded
/// with them) times its QOS's `UsageFactor` per second. A suspended job counts nothing while it is suspended.
fn job_use<'a>(acct: &spur_core::model::assoc::AcctDb, job: &'a JobRecord) -> Option<JobUse<'a>> {
    let start = job.start_time?;
    let alloc = job.alloc.as_ref()?;
    if job.state == JobBaseState::Suspended || job.preempt_suspended {
        return None;
    }
    let nodes = alloc.node_names.len().max(1) as u64;
    let billing = spur_core::policy::billing::usage_billing(
        job.billing_weights.as_deref(),
        &spur_core::policy::billing::TresCounts {
            cpus: u64::from(alloc.cpus) * nodes,
            mem_mb: alloc.mem_mb * nodes,
            nodes,
            gres: alloc.gres_counts(),
        },
    );
    let qos = job.spec.qos.as_deref().unwrap_or(DEFAULT_QOS);
    let factor = acct.qos(qos).map_or(1.0, |q| q.usage_factor);
    Some(JobUse {
        user: &job.spec.user_name,
        account: job.spec.account.as_deref(),
        partition: &job.partition,
        rate: billing * factor,
        start,
        end: job.end_time,
    })
}

#[cfg(test)]
#[path = "fairshare_tests.rs"]
mod tests;
