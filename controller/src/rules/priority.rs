//! `priority/multifactor` in the pass: every pending job's priority recomputed for the current
//! `PriorityCalcPeriod` from the injected clock (spur_core::policy::priority has the formula). Held jobs keep 0 and a
//! priority an administrator set is left alone. `sprio`'s rows come from the same computation.

use std::collections::BTreeMap;

use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::model::records::NodeRecord;
use spur_core::model::states::JobBaseState;
use spur_core::policy::fair_tree::FactorTable;
use spur_core::policy::priority::{
    self, ClusterTotals, Factors, JobFactors, JobSize, PriorityWeights,
};

use crate::state::ClusterState;

/// What the factors are relative to, computed once per pass: the whole cluster (job size) and each partition
/// (TRES, which Slurm measures against the job's partition).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Totals {
    pub cluster: ClusterTotals,
    pub partitions: BTreeMap<String, ClusterTotals>,
    /// Each user association's fair-share factor, when `PriorityWeightFairshare` weighs it.
    pub fairshare: Option<FactorTable>,
}

impl Totals {
    pub fn of(state: &ClusterState) -> Totals {
        let max_partition_job_factor = state
            .partitions
            .iter()
            .map(|p| p.priority_job_factor)
            .max()
            .unwrap_or(1);
        let cluster = sum_nodes(state.nodes.values(), max_partition_job_factor);
        let partitions = state
            .partitions
            .iter()
            .map(|p| {
                let nodes = state.nodes_named(&p.nodes).map(|(_, node)| node);
                (p.name.clone(), sum_nodes(nodes, max_partition_job_factor))
            })
            .collect();
        let fairshare = state
            .settings
            .priority
            .as_ref()
            .filter(|w| w.fairshare > 0 && state.counts_usage())
            .map(|_| {
                FactorTable::new(
                    &state.acct,
                    &state.usage,
                    state.settings.fairshare.fair_tree,
                )
            });
        Totals {
            cluster,
            partitions,
            fairshare,
        }
    }

    fn for_partition(&self, name: &str) -> &ClusterTotals {
        self.partitions.get(name).unwrap_or(&self.cluster)
    }
}

fn sum_nodes<'a>(
    nodes: impl Iterator<Item = &'a NodeRecord>,
    max_partition_job_factor: u32,
) -> ClusterTotals {
    let mut totals = ClusterTotals {
        max_partition_job_factor,
        ..ClusterTotals::default()
    };
    for node in nodes {
        totals.nodes = totals.nodes.saturating_add(1);
        totals.cpus = totals.cpus.saturating_add(node.cpus);
        totals.mem_mb = totals.mem_mb.saturating_add(node.real_memory_mb);
        for g in &node.gres {
            match totals.gres.iter_mut().find(|(name, _)| name == &g.name) {
                Some((_, count)) => *count += g.count,
                None => totals.gres.push((g.name.clone(), g.count)),
            }
        }
    }
    totals
}

/// The job's factors at the start of the `PriorityCalcPeriod` that holds `now`.
fn factors_of(
    state: &ClusterState,
    weights: &PriorityWeights,
    totals: &Totals,
    job: &JobRecord,
    now: EpochSecs,
) -> Factors {
    let job_factor = state
        .partition(&job.partition)
        .map_or(1, |p| p.priority_job_factor);
    let size = JobSize::of(job, job_factor);
    let mut factors = priority::factors(
        weights,
        job,
        &size,
        &totals.cluster,
        totals.for_partition(&job.partition),
        weights.calc_time(now),
    );
    factors.qos = qos_factor(&state.acct, job);
    if let Some(table) = &totals.fairshare {
        factors.fairshare = table.factor(
            &state.acct,
            &job.spec.user_name,
            job.spec.account.as_deref(),
            &job.partition,
        );
    }
    factors
}

/// The job's QOS priority over the highest QOS priority (Slurm's normalisation); a job without a QOS has
/// `normal`'s, and a QOS that does not exist counts nothing.
pub fn qos_factor(acct: &spur_core::model::assoc::AcctDb, job: &JobRecord) -> f64 {
    let max = acct.max_qos_priority();
    if max == 0 {
        return 0.0;
    }
    let name = job
        .spec
        .qos
        .as_deref()
        .unwrap_or(spur_core::model::assoc::DEFAULT_QOS);
    acct.qos(name)
        .map_or(0.0, |q| f64::from(q.priority) / f64::from(max))
}

/// The job's multifactor priority at `now`, or `None` where it must not change (held, set by an administrator).
pub fn recomputed(
    state: &ClusterState,
    weights: &PriorityWeights,
    totals: &Totals,
    job: &JobRecord,
    now: EpochSecs,
) -> Option<u32> {
    if job.hold.is_some() || job.priority_fixed {
        return None;
    }
    let factors = factors_of(state, weights, totals, job, now);
    Some(priority::priority(weights, &factors))
}

/// `sprio`'s rows: the pending jobs in job id order. As in Slurm 22.05, held jobs (priority 0) and jobs whose
/// begin time is still ahead are left out, and a job whose priority an administrator set shows that priority
/// without factors.
pub fn factor_rows(
    state: &ClusterState,
    weights: &PriorityWeights,
    now: EpochSecs,
) -> Vec<JobFactors> {
    let totals = Totals::of(state);
    state
        .jobs
        .values()
        .filter(|job| {
            job.state == JobBaseState::Pending
                && job.hold.is_none()
                && job.priority != 0
                && job.spec.begin_time.is_none_or(|begin| begin <= now)
        })
        .map(|job| {
            if job.priority_fixed {
                return JobFactors::direct(job);
            }
            let factors = factors_of(state, weights, &totals, job, now);
            JobFactors::of(job, weights, &factors)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::scenario::{job, node, partition, Scenario};
    use crate::state::Settings;

    fn weights() -> PriorityWeights {
        PriorityWeights {
            age: 0,
            assoc: 0,
            fairshare: 0,
            job_size: 2000,
            partition: 3000,
            qos: 0,
            tres: vec![("cpu".into(), 1000.0), ("mem".into(), 2000.0)],
            max_age_secs: 7 * 86_400,
            favor_small: false,
            calc_period_secs: 300,
            tres_text: Some("CPU=1000,Mem=2000".into()),
            age_ignored: false,
        }
    }

    fn scenario() -> Scenario {
        let settings = Settings {
            priority: Some(weights()),
            ..Settings::default()
        };
        let nodes = vec!["n1".to_string()];
        Scenario::new(
            vec![node("n1", 2, 4000, 0)],
            vec![partition("p", &nodes, true)],
            settings,
            1_000,
        )
        .unwrap()
    }

    #[test]
    fn rows_leave_out_held_and_future_jobs() {
        let mut s = scenario();
        let ids: Vec<u32> = (0..4)
            .map(|_| s.submit(job(1, 1000, 0, None)).unwrap())
            .collect();
        let [plain, held, later, fixed] = ids[..] else {
            unreachable!()
        };
        let jobs = &mut s.state.jobs;
        if let Some(j) = jobs.get_mut(&held) {
            j.hold = Some(spur_core::model::job::HoldKind::User);
            j.priority = 0;
        }
        if let Some(j) = jobs.get_mut(&later) {
            j.spec.begin_time = Some(10_000);
        }
        if let Some(j) = jobs.get_mut(&fixed) {
            j.priority_fixed = true;
        }
        let ids_of = |rows: &[JobFactors]| rows.iter().map(|r| r.job_id).collect::<Vec<_>>();
        let rows = factor_rows(&s.state, &weights(), 1_000);
        assert_eq!(ids_of(&rows), vec![plain, fixed]);
        let direct = &rows[1];
        assert_eq!(direct.direct_priority, Some(s.state.jobs[&fixed].priority));
        assert_eq!((direct.job_size, direct.nice), (0.0, 0), "no factors");
        assert_eq!(
            ids_of(&factor_rows(&s.state, &weights(), 10_000)),
            vec![plain, later, fixed],
            "a begin time that has come counts"
        );
    }

    #[test]
    fn rows_add_up_to_the_priority_the_pass_computes() {
        let mut s = scenario();
        let id = s.submit(job(1, 1000, 0, None)).unwrap();
        let w = weights();
        let rows = factor_rows(&s.state, &w, 1_000);
        // 1 of 1 node and 1 of 2 CPUs: (1 + 0.5) / 2; the only partition: factor 1; 1000 of 4000 MB.
        assert_eq!(rows[0].job_size, 1500.0);
        assert_eq!(rows[0].partition_factor, 3000.0);
        assert_eq!(
            rows[0].tres,
            vec![
                ("cpu".to_string(), 500.0, 1000.0),
                ("mem".to_string(), 500.0, 2000.0)
            ]
        );
        let totals = Totals::of(&s.state);
        let expected = recomputed(&s.state, &w, &totals, &s.state.jobs[&id], 1_000);
        assert_eq!(expected, Some(rows[0].priority() as u32));
        assert_eq!(s.state.jobs[&id].priority, 1500 + 3000 + 500 + 500);
    }

    #[test]
    fn tres_are_relative_to_the_partition() {
        let settings = Settings {
            priority: Some(weights()),
            ..Settings::default()
        };
        let both = vec!["n1".to_string(), "n2".to_string()];
        let one = vec!["n1".to_string()];
        let mut s = Scenario::new(
            vec![node("n1", 2, 4000, 0), node("n2", 2, 4000, 0)],
            vec![
                partition("all", &both, true),
                partition("half", &one, false),
            ],
            settings,
            1_000,
        )
        .unwrap();
        let mut spec = job(2, 1000, 0, None);
        spec.partition = Some("half".into());
        s.submit(spec).unwrap();
        let rows = factor_rows(&s.state, &weights(), 1_000);
        // Job size against the cluster: (1 of 2 nodes + 2 of 4 CPUs) / 2; CPUs against the partition: 2 of 2.
        assert_eq!(rows[0].job_size, 1000.0);
        assert_eq!(rows[0].tres[0], ("cpu".to_string(), 1000.0, 1000.0));
    }
}
