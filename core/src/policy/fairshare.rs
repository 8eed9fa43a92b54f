//! Fair-share usage for `priority/multifactor`: what each association has used, decayed over time, as Slurm 22.05
//! keeps it. The controller keeps a [`FairShareUsage`] in its replicated state and changes it only by applying a
//! log command that carries the leader's clock ([`FairShareUsage::accrue`] is pure), so every replica and replay
//! holds the same numbers. The fair-share factor made from them is in [`crate::policy::fair_tree`].

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::grammar::conf::SlurmConf;
use crate::grammar::values::begin::civil_from_days;
use crate::grammar::values::time::{parse_time_limit, TimeLimit};
use crate::model::assoc::{AcctDb, Association};
use crate::model::job::EpochSecs;

/// Slurm's default `PriorityDecayHalfLife` (7 days).
pub const DEFAULT_HALF_LIFE_SECS: i64 = 7 * 86_400;

/// `PriorityUsageResetPeriod`: when all usage is cleared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum UsageReset {
    #[default]
    None,
    /// Once, when the controller starts.
    Now,
    Daily,
    Weekly,
    Monthly,
    Quarterly,
    Yearly,
}

impl UsageReset {
    pub fn parse(text: &str) -> Option<UsageReset> {
        Some(match text.trim().to_ascii_uppercase().as_str() {
            "NONE" => UsageReset::None,
            "NOW" => UsageReset::Now,
            "DAILY" => UsageReset::Daily,
            "WEEKLY" => UsageReset::Weekly,
            "MONTHLY" => UsageReset::Monthly,
            "QUARTERLY" => UsageReset::Quarterly,
            "YEARLY" => UsageReset::Yearly,
            _ => return None,
        })
    }

    /// Which period `t` falls in (UTC; weeks start on Sunday); `None` when usage is never reset by time. Usage
    /// is cleared when two accruals fall in different periods.
    pub fn period(self, t: EpochSecs) -> Option<i64> {
        let days = t.div_euclid(86_400);
        let (year, month, _) = civil_from_days(days);
        let month0 = i64::from(month) - 1;
        match self {
            UsageReset::None | UsageReset::Now => None,
            UsageReset::Daily => Some(days),
            // 1970-01-01 was a Thursday: day 3 is the first Sunday.
            UsageReset::Weekly => Some((days + 4).div_euclid(7)),
            UsageReset::Monthly => Some(year * 12 + month0),
            UsageReset::Quarterly => Some(year * 4 + month0 / 3),
            UsageReset::Yearly => Some(year),
        }
    }
}

/// The fair-share settings of slurm.conf.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FairShareSettings {
    /// `PriorityDecayHalfLife` in seconds; 0: usage never decays.
    pub half_life_secs: i64,
    /// `PriorityUsageResetPeriod`.
    pub reset: UsageReset,
    /// Slurm 22.05's default Fair Tree algorithm; `PriorityFlags=NO_FAIR_TREE` turns it off for the classic one.
    pub fair_tree: bool,
    /// `AccountingStorageType=accounting_storage/slurmdbd`: Slurm's multifactor plugin counts usage and computes
    /// fair-share only then (otherwise the factor is 0, as without associations).
    pub with_slurmdbd: bool,
}

impl Default for FairShareSettings {
    fn default() -> Self {
        FairShareSettings {
            half_life_secs: DEFAULT_HALF_LIFE_SECS,
            reset: UsageReset::None,
            fair_tree: true,
            with_slurmdbd: true,
        }
    }
}

impl FairShareSettings {
    pub fn from_conf(conf: &SlurmConf) -> FairShareSettings {
        // Slurm reads the half-life as minutes (`time_str2mins`).
        let half_life_secs = match conf.get_str("PriorityDecayHalfLife").map(parse_time_limit) {
            Some(Ok(TimeLimit::Minutes(m))) => i64::from(m) * 60,
            _ => DEFAULT_HALF_LIFE_SECS,
        };
        let flags = conf.get_str("PriorityFlags").unwrap_or("");
        FairShareSettings {
            half_life_secs,
            reset: conf
                .get_str("PriorityUsageResetPeriod")
                .and_then(UsageReset::parse)
                .unwrap_or_default(),
            fair_tree: !flags
                .split(',')
                .any(|f| f.trim().eq_ignore_ascii_case("NO_FAIR_TREE")),
            with_slurmdbd: conf.accounting_storage_type() == "accounting_storage/slurmdbd",
        }
    }

    /// What usage of `secs` ago is worth now: 2^(-secs / half-life).
    pub fn decay(&self, secs: i64) -> f64 {
        if self.half_life_secs <= 0 || secs <= 0 {
            return 1.0;
        }
        (-(secs as f64) / self.half_life_secs as f64).exp2()
    }
}

/// The key an association's usage is kept under: `account` for an account, `account|user[|partition]` for a user.
pub fn assoc_key(assoc: &Association) -> String {
    match (&assoc.user, &assoc.partition) {
        (None, _) => assoc.account.clone(),
        (Some(user), None) => format!("{}|{user}", assoc.account),
        (Some(user), Some(partition)) => format!("{}|{user}|{partition}", assoc.account),
    }
}

/// One job's use of the cluster since it started, as accrual sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobUse<'a> {
    pub user: &'a str,
    /// The job's account; `None`: the user's default account.
    pub account: Option<&'a str>,
    pub partition: &'a str,
    /// What one second of the job counts: its billing TRES (CPUs allocated) times its QOS's `UsageFactor`.
    pub rate: f64,
    pub start: EpochSecs,
    /// When it ended; `None` while it runs.
    pub end: Option<EpochSecs>,
}

/// Every association's raw usage (billing-seconds, decayed), by [`assoc_key`]. An account's usage is what its
/// whole subtree used: a job's usage is added to its user's association and to every account above it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FairShareUsage {
    /// The time of the last accrual: usage up to then is counted. `None` until the first one.
    pub last_calc: Option<EpochSecs>,
    pub raw: BTreeMap<String, f64>,
}

impl FairShareUsage {
    pub fn raw_of(&self, key: &str) -> f64 {
        self.raw.get(key).copied().unwrap_or(0.0)
    }

    /// Counts usage up to `now`: the usage already counted decays by the time since the last accrual, and each
    /// job adds its rate times the seconds it ran since then (themselves decayed over that stretch, as in Slurm).
    /// Jobs' associations are found as slurmctld finds them; a job without one counts nothing. Usage of
    /// associations that no longer exist is dropped, so one added again starts afresh, as in slurmdbd.
    pub fn accrue<'a>(
        &mut self,
        acct: &AcctDb,
        settings: &FairShareSettings,
        jobs: impl IntoIterator<Item = JobUse<'a>>,
        now: EpochSecs,
    ) {
        let Some(last) = self.last_calc else {
            self.last_calc = Some(now);
            return;
        };
        if now <= last {
            return;
        }
        if settings.reset.period(last) != settings.reset.period(now) {
            self.raw.clear();
        }
        let decay = settings.decay(now - last);
        let live: BTreeSet<String> = acct.assocs.iter().map(assoc_key).collect();
        self.raw.retain(|key, _| live.contains(key));
        for value in self.raw.values_mut() {
            *value *= decay;
        }
        let chains = Chains::new(acct);
        for job in jobs {
            let from = job.start.max(last);
            let to = job.end.map_or(now, |end| end.min(now));
            if to <= from || job.rate <= 0.0 {
                continue;
            }
            let secs = to - from;
            let added = job.rate * secs as f64 * settings.decay(secs);
            for key in chains.of(acct, job.user, job.account, job.partition) {
                *self.raw.entry(key).or_default() += added;
            }
        }
        self.last_calc = Some(now);
    }

    /// `PriorityUsageResetPeriod=NOW`: forget all usage (the controller starting).
    pub fn reset(&mut self) {
        self.raw.clear();
    }
}

/// The association keys a job's usage goes to: its user association and every account above it (empty when it
/// has none).
pub fn assoc_chain(
    acct: &AcctDb,
    user: &str,
    account: Option<&str>,
    partition: &str,
) -> Vec<String> {
    Chains::new(acct).of(acct, user, account, partition)
}

/// `sshare`'s `TRESRunMins`: what the running jobs of an association (and its subtree) hold times the minutes
/// they have left of their time limit (no limit: Slurm's `INFINITE`, 4294967295 minutes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TresRunMins {
    pub cpu: u64,
    pub mem_mb: u64,
    pub node: u64,
}

impl TresRunMins {
    /// `cpu=N,mem=N,...` in Slurm's TRES order; billing is the CPUs (no `TRESBillingWeights`).
    pub fn text(&self) -> String {
        format!(
            "cpu={},mem={},energy=0,node={},billing={},fs/disk=0,vmem=0,pages=0",
            self.cpu, self.mem_mb, self.node, self.cpu
        )
    }

    /// A job holding `cpus`, `mem_mb` and `nodes` with `minutes_left`.
    pub fn of(cpus: u64, mem_mb: u64, nodes: u64, minutes_left: u64) -> TresRunMins {
        TresRunMins {
            cpu: cpus.saturating_mul(minutes_left),
            mem_mb: mem_mb.saturating_mul(minutes_left),
            node: nodes.saturating_mul(minutes_left),
        }
    }

    pub fn add(&mut self, other: &TresRunMins) {
        self.cpu = self.cpu.saturating_add(other.cpu);
        self.mem_mb = self.mem_mb.saturating_add(other.mem_mb);
        self.node = self.node.saturating_add(other.node);
    }
}

/// Each account's chain of keys up to root, built once per accrual so jobs find theirs without walking the tree.
struct Chains<'a> {
    parents: HashMap<&'a str, Option<&'a str>>,
}

impl<'a> Chains<'a> {
    fn new(acct: &'a AcctDb) -> Self {
        Chains {
            parents: acct
                .assocs
                .iter()
                .filter(|a| a.user.is_none())
                .map(|a| (a.account.as_str(), a.parent.as_deref()))
                .collect(),
        }
    }

    /// The user's association and the accounts above it, or nothing when the job has no association.
    fn of(&self, acct: &AcctDb, user: &str, account: Option<&str>, partition: &str) -> Vec<String> {
        let account = match account {
            Some(a) => a,
            None => match acct.users.get(user) {
                Some(u) => u.default_account.as_str(),
                None => return Vec::new(),
            },
        };
        let Some(assoc) = acct.user_assoc(user, account, Some(partition)) else {
            return Vec::new();
        };
        let mut keys = vec![assoc_key(assoc)];
        let mut next = Some(assoc.account.as_str());
        // An account tree has no cycles, but a bound costs nothing.
        while let Some(name) = next.filter(|_| keys.len() <= self.parents.len() + 1) {
            keys.push(name.to_string());
            next = self.parents.get(name).copied().flatten();
        }
        keys
    }
}

#[cfg(test)]
#[path = "fairshare_tests.rs"]
mod tests;
