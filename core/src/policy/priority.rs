//! `priority/multifactor`: a job's priority as Slurm 22.05 computes it, as a pure function of the weights from
//! slurm.conf, the job, the cluster's size and the time. The controller orders its queue with it and `sprio` shows
//! its factors, so both use this one implementation.
//!
//! priority = Σ weight × factor (age, fair-share, job size, partition, QOS, each TRES) − nice, at least 1. Factors
//! lie in [0, 1]. Without accounting there are no associations or QOS records, so fair-share and QOS are 0.

use serde::{Deserialize, Serialize};

use crate::grammar::conf::SlurmConf;
use crate::grammar::values::time::{parse_time_limit, TimeLimit};
use crate::model::job::{EpochSecs, JobRecord};

/// The multifactor weights and parameters of slurm.conf.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriorityWeights {
    pub age: u32,
    pub assoc: u32,
    pub fairshare: u32,
    pub job_size: u32,
    pub partition: u32,
    pub qos: u32,
    /// `PriorityWeightTRES` as `(tres, weight)`: `cpu`, `mem`, `node`, `gres/gpu`, ...
    pub tres: Vec<(String, f64)>,
    /// `PriorityMaxAge` in seconds: age at which the age factor reaches 1 (default 7 days).
    pub max_age_secs: i64,
    /// `PriorityFavorSmall`: smaller jobs get the larger job-size factor.
    pub favor_small: bool,
    /// `PriorityCalcPeriod` in seconds (default 5 minutes): priorities change in steps of this period.
    pub calc_period_secs: i64,
    /// `PriorityWeightTRES` as written in slurm.conf: `sprio -w` shows it so.
    #[serde(default)]
    pub tres_text: Option<String>,
    /// Slurm applies `PriorityWeightAge` only with `AccountingStorageType=accounting_storage/slurmdbd` (else it
    /// logs "PriorityWeightAge can only be used with SlurmDBD, ignoring"); sprio still shows the weight.
    #[serde(default)]
    pub age_ignored: bool,
}

impl PriorityWeights {
    /// The weights when `PriorityType=priority/multifactor`, else `None` (`priority/basic`).
    pub fn from_conf(conf: &SlurmConf) -> Option<PriorityWeights> {
        if conf.priority_type() != "priority/multifactor" {
            return None;
        }
        let minutes_secs =
            |key: &str, default_min: i64| match conf.get_str(key).map(parse_time_limit) {
                Some(Ok(TimeLimit::Minutes(m))) => i64::from(m) * 60,
                _ => default_min * 60,
            };
        let mut tres: Vec<(String, f64)> = conf
            .priority_weight_tres()
            .into_iter()
            .filter_map(|(name, weight)| Some((name.to_ascii_lowercase(), weight?.parse().ok()?)))
            .collect();
        // Slurm keeps TRES in its own order (cpu, mem, energy, node, billing, ..., then GRES), whatever the order
        // of the weights; sprio lists them so.
        tres.sort_by_key(|(name, _)| tres_rank(name));
        Some(PriorityWeights {
            age: conf.priority_weight_age(),
            assoc: conf.priority_weight_assoc(),
            fairshare: conf.priority_weight_fairshare(),
            job_size: conf.priority_weight_job_size(),
            partition: conf.priority_weight_partition(),
            qos: conf.priority_weight_qos(),
            tres,
            max_age_secs: minutes_secs("PriorityMaxAge", 7 * 24 * 60),
            favor_small: conf.get_bool("PriorityFavorSmall").unwrap_or(false),
            calc_period_secs: minutes_secs("PriorityCalcPeriod", 5).max(1),
            tres_text: conf.get_str("PriorityWeightTRES").map(str::to_string),
            age_ignored: conf.accounting_storage_type() != "accounting_storage/slurmdbd",
        })
    }

    /// The time priorities are computed for at `now`: the start of the current `PriorityCalcPeriod`, so they
    /// change once a period, as in Slurm, and not on every pass.
    pub fn calc_time(&self, now: EpochSecs) -> EpochSecs {
        now - now.rem_euclid(self.calc_period_secs)
    }
}

/// Where a TRES stands in Slurm's TRES table: the built-in ones by their ids, the rest (GRES, licenses) after them.
fn tres_rank(name: &str) -> usize {
    const BUILT_IN: [&str; 8] = [
        "cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
    ];
    BUILT_IN
        .iter()
        .position(|b| *b == name)
        .unwrap_or(BUILT_IN.len())
}

/// What the job-size, partition and TRES factors are relative to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClusterTotals {
    pub nodes: u32,
    pub cpus: u32,
    pub mem_mb: u64,
    /// Total units per GRES name (`gpu`).
    pub gres: Vec<(String, u64)>,
    /// The highest `PriorityJobFactor` of any partition.
    pub max_partition_job_factor: u32,
}

/// A job's requests as the factors see them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobSize {
    pub nodes: u32,
    pub cpus: u32,
    pub mem_mb: u64,
    pub gres: Vec<(String, u64)>,
    /// Its partition's `PriorityJobFactor`.
    pub partition_job_factor: u32,
}

impl JobSize {
    /// What a pending job asks for: nodes, CPUs (tasks × CPUs per task, or what it holds), memory and GRES.
    pub fn of(job: &JobRecord, partition_job_factor: u32) -> JobSize {
        let spec = &job.spec;
        let nodes = spec.nodes_min.max(1);
        let tasks = spec
            .ntasks
            .or_else(|| spec.ntasks_per_node.map(|n| n.saturating_mul(nodes)))
            .unwrap_or(nodes);
        let cpus = match &job.alloc {
            Some(a) if a.cpus > 0 => a
                .cpus
                .saturating_mul(u32::try_from(a.node_names.len().max(1)).unwrap_or(u32::MAX)),
            _ => tasks.max(1).saturating_mul(spec.cpus_per_task.max(1)),
        };
        let mem_mb = match (spec.mem_per_node_mb, spec.mem_per_cpu_mb) {
            (Some(per_node), _) => per_node.saturating_mul(u64::from(nodes)),
            (None, Some(per_cpu)) => per_cpu.saturating_mul(u64::from(cpus)),
            (None, None) => 0,
        };
        JobSize {
            nodes,
            cpus,
            mem_mb,
            gres: spec
                .gres
                .iter()
                .map(|g| (g.name.clone(), g.count * u64::from(nodes)))
                .collect(),
            partition_job_factor,
        }
    }
}

/// The normalised factors of one job, as `sprio -n` shows them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Factors {
    pub age: f64,
    pub fairshare: f64,
    pub job_size: f64,
    pub partition: f64,
    pub qos: f64,
    /// Per weighted TRES, in the order of `PriorityWeightTRES`.
    pub tres: Vec<(String, f64)>,
    pub nice: i32,
}

/// The factors of a job at time `at` (see [`PriorityWeights::calc_time`]). Job size is relative to the whole
/// cluster, the TRES factors to the job's partition (`tres_totals`), as in Slurm.
pub fn factors(
    weights: &PriorityWeights,
    job: &JobRecord,
    size: &JobSize,
    totals: &ClusterTotals,
    tres_totals: &ClusterTotals,
    at: EpochSecs,
) -> Factors {
    let ratio = |part: f64, whole: f64| {
        if whole > 0.0 {
            (part / whole).min(1.0)
        } else {
            0.0
        }
    };
    let age = match job.accrue_time {
        Some(since) if weights.max_age_secs > 0 && !weights.age_ignored => {
            ratio((at - since).max(0) as f64, weights.max_age_secs as f64)
        }
        _ => 0.0,
    };
    let mut job_size = (ratio(f64::from(size.nodes), f64::from(totals.nodes))
        + ratio(f64::from(size.cpus), f64::from(totals.cpus)))
        / 2.0;
    if weights.favor_small {
        job_size = 1.0 - job_size;
    }
    let tres = weights
        .tres
        .iter()
        .map(|(name, _)| {
            let totals = tres_totals;
            let (asked, total) = match name.as_str() {
                "cpu" => (f64::from(size.cpus), f64::from(totals.cpus)),
                "mem" => (size.mem_mb as f64, totals.mem_mb as f64),
                "node" => (f64::from(size.nodes), f64::from(totals.nodes)),
                other => {
                    let gres = other.strip_prefix("gres/").unwrap_or(other);
                    let count = |list: &[(String, u64)]| {
                        list.iter()
                            .filter(|(n, _)| n == gres)
                            .map(|(_, c)| *c as f64)
                            .sum::<f64>()
                    };
                    (count(&size.gres), count(&totals.gres))
                }
            };
            (name.clone(), ratio(asked, total))
        })
        .collect();
    Factors {
        age,
        fairshare: 0.0,
        job_size,
        partition: ratio(
            f64::from(size.partition_job_factor),
            f64::from(totals.max_partition_job_factor),
        ),
        qos: 0.0,
        tres,
        nice: job.spec.nice,
    }
}

/// Each factor times its weight, as `sprio` shows them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Weighted {
    pub age: f64,
    pub fairshare: f64,
    pub job_size: f64,
    pub partition: f64,
    pub qos: f64,
    pub tres: Vec<(String, f64)>,
}

pub fn weighted(weights: &PriorityWeights, f: &Factors) -> Weighted {
    Weighted {
        age: f.age * f64::from(weights.age),
        fairshare: f.fairshare * f64::from(weights.fairshare),
        job_size: f.job_size * f64::from(weights.job_size),
        partition: f.partition * f64::from(weights.partition),
        qos: f.qos * f64::from(weights.qos),
        tres: f
            .tres
            .iter()
            .zip(&weights.tres)
            .map(|((name, factor), (_, w))| (name.clone(), factor * w))
            .collect(),
    }
}

/// One row of `sprio`: a pending job's weighted factors, as the controller reports them. sprio derives the rest
/// from these, as Slurm's does: a normalised factor is the weighted one over its weight, the priority their sum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobFactors {
    pub job_id: u32,
    pub user_id: u32,
    pub partition: String,
    pub age: f64,
    pub assoc: f64,
    pub fairshare: f64,
    pub job_size: f64,
    /// The partition factor, weighted (`partition` is the partition's name).
    pub partition_factor: f64,
    pub qos: f64,
    /// The site factor (no site factor plugin: 0).
    pub site: i64,
    pub nice: i32,
    /// `(tres, weighted factor, weight)` for each weighted TRES whose factor is not 0, in Slurm's TRES order.
    pub tres: Vec<(String, f64, f64)>,
    /// A priority an administrator set (`scontrol update Priority=`): it replaces the factors, which are all 0.
    #[serde(default)]
    pub direct_priority: Option<u32>,
}

impl JobFactors {
    pub fn of(job: &JobRecord, weights: &PriorityWeights, f: &Factors) -> JobFactors {
        let w = weighted(weights, f);
        JobFactors {
            job_id: job.job_id,
            user_id: job.spec.user_id,
            partition: job.partition.clone(),
            age: w.age,
            assoc: 0.0,
            fairshare: w.fairshare,
            job_size: w.job_size,
            partition_factor: w.partition,
            qos: w.qos,
            site: 0,
            nice: f.nice,
            tres: w
                .tres
                .into_iter()
                .zip(&weights.tres)
                .filter(|((_, value), _)| *value != 0.0)
                .map(|((name, value), (_, weight))| (name, value, *weight))
                .collect(),
            direct_priority: None,
        }
    }

    /// The row of a job whose priority an administrator set: that priority, no factors, no nice.
    pub fn direct(job: &JobRecord) -> JobFactors {
        JobFactors {
            job_id: job.job_id,
            user_id: job.spec.user_id,
            partition: job.partition.clone(),
            age: 0.0,
            assoc: 0.0,
            fairshare: 0.0,
            job_size: 0.0,
            partition_factor: 0.0,
            qos: 0.0,
            site: 0,
            nice: 0,
            tres: Vec::new(),
            direct_priority: Some(job.priority),
        }
    }

    /// The priority these factors make (before truncation to an integer), at least 1; or the one set directly.
    pub fn priority(&self) -> f64 {
        if let Some(direct) = self.direct_priority {
            return f64::from(direct);
        }
        let sum = self.age
            + self.assoc
            + self.fairshare
            + self.job_size
            + self.partition_factor
            + self.qos
            + self.site as f64
            - f64::from(self.nice)
            + self.tres.iter().map(|(_, v, _)| v).sum::<f64>();
        sum.max(1.0)
    }
}

/// The job's priority: the weighted factors summed, less its nice value; never below 1, so a job that is not
/// held can always run.
pub fn priority(weights: &PriorityWeights, f: &Factors) -> u32 {
    let w = weighted(weights, f);
    let sum = w.age
        + w.fairshare
        + w.job_size
        + w.partition
        + w.qos
        + w.tres.iter().map(|(_, v)| v).sum::<f64>()
        - f64::from(f.nice);
    if sum < 1.0 {
        1
    } else if sum >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        sum as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::job::JobSpec;

    fn weights() -> PriorityWeights {
        PriorityWeights {
            age: 1000,
            assoc: 0,
            fairshare: 0,
            job_size: 1000,
            partition: 1000,
            qos: 0,
            tres: vec![("cpu".into(), 500.0), ("gres/gpu".into(), 2000.0)],
            max_age_secs: 3600,
            favor_small: false,
            calc_period_secs: 300,
            tres_text: None,
            age_ignored: false,
        }
    }

    fn totals() -> ClusterTotals {
        ClusterTotals {
            nodes: 4,
            cpus: 32,
            mem_mb: 4000,
            gres: vec![("gpu".into(), 8)],
            max_partition_job_factor: 2,
        }
    }

    fn job(nodes: u32, tasks: u32, gpus: u64, nice: i32) -> JobRecord {
        let spec = JobSpec {
            nodes_min: nodes,
            ntasks: Some(tasks),
            cpus_per_task: 1,
            nice,
            gres: if gpus > 0 {
                vec![crate::model::job::GresRequest {
                    name: "gpu".into(),
                    gres_type: None,
                    count: gpus,
                }]
            } else {
                Vec::new()
            },
            ..Default::default()
        };
        let mut record = JobRecord::pending(1, spec, "p".into(), 0, 0);
        record.accrue_time = Some(1000);
        record
    }

    #[test]
    fn factors_and_priority() {
        let w = weights();
        let j = job(2, 8, 1, 0);
        let size = JobSize::of(&j, 1);
        let f = factors(&w, &j, &size, &totals(), &totals(), 1000 + 1800);
        assert_eq!(f.age, 0.5);
        // (2 of 4 nodes + 8 of 32 CPUs) / 2
        assert_eq!(f.job_size, 0.375);
        assert_eq!(f.partition, 0.5);
        assert_eq!(
            f.tres,
            vec![("cpu".to_string(), 0.25), ("gres/gpu".to_string(), 0.25)]
        );
        assert_eq!(priority(&w, &f), 500 + 375 + 500 + 125 + 500);
    }

    #[test]
    fn age_saturates_favor_small_inverts_and_nice_subtracts() {
        let mut w = weights();
        w.favor_small = true;
        let j = job(4, 32, 0, 100);
        let f = factors(&w, &j, &JobSize::of(&j, 2), &totals(), &totals(), 1_000_000);
        assert_eq!((f.age, f.job_size, f.partition), (1.0, 0.0, 1.0));
        assert_eq!(priority(&w, &f), 1000 + 1000 + 500 - 100);
        let nothing = PriorityWeights {
            age: 0,
            job_size: 0,
            partition: 0,
            tres: Vec::new(),
            ..w
        };
        assert_eq!(priority(&nothing, &f), 1);
    }

    #[test]
    fn an_ignored_age_weight_counts_nothing() {
        let w = PriorityWeights {
            age_ignored: true,
            ..weights()
        };
        let j = job(2, 8, 1, 0);
        let f = factors(&w, &j, &JobSize::of(&j, 1), &totals(), &totals(), 1_000_000);
        assert_eq!(f.age, 0.0);
    }

    #[test]
    fn calc_period_steps() {
        assert_eq!(weights().calc_time(1234), 1200);
    }

    #[test]
    fn read_from_slurm_conf() {
        let conf = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=h\nPriorityType=priority/multifactor\nPriorityWeightAge=100\nPriorityMaxAge=1-0\n\
             PriorityWeightTRES=GRES/gpu=20,Node=5,CPU=10\nPriorityFavorSmall=YES\nPriorityCalcPeriod=1\n",
            "slurm.conf",
        )
        .unwrap();
        let w = PriorityWeights::from_conf(&conf).unwrap();
        assert_eq!(w.age, 100);
        assert_eq!(w.max_age_secs, 86_400);
        assert_eq!(w.calc_period_secs, 60);
        assert!(w.favor_small);
        assert_eq!(
            w.tres,
            vec![
                ("cpu".to_string(), 10.0),
                ("node".to_string(), 5.0),
                ("gres/gpu".to_string(), 20.0)
            ],
            "in Slurm's TRES order"
        );
        assert_eq!(w.tres_text.as_deref(), Some("GRES/gpu=20,Node=5,CPU=10"));
        assert!(w.age_ignored, "no slurmdbd: Slurm ignores the age weight");
        let with_dbd = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=h\nPriorityType=priority/multifactor\nPriorityWeightAge=100\n\
             AccountingStorageType=accounting_storage/slurmdbd\n",
            "slurm.conf",
        )
        .unwrap();
        assert!(!PriorityWeights::from_conf(&with_dbd).unwrap().age_ignored);
        let basic = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=h\nPriorityWeightAge=100\n",
            "slurm.conf",
        )
        .unwrap();
        assert_eq!(PriorityWeights::from_conf(&basic), None);
    }
}
