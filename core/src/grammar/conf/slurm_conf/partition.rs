//! `PartitionName=` lines: one record per line, with `PartitionName=DEFAULT` values inherited by later lines.

use serde::{Deserialize, Serialize};

use crate::grammar::conf::error::{ConfError, ConfErrorKind, Location};
use crate::grammar::conf::value::{Fields, INFINITE, INFINITE16};

/// Whether a partition accepts and runs jobs (`State=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PartitionState {
    #[serde(rename = "UP")]
    Up,
    #[serde(rename = "DOWN")]
    Down,
    #[serde(rename = "DRAIN")]
    Drain,
    #[serde(rename = "INACTIVE")]
    Inactive,
}

impl PartitionState {
    /// Slurm matches on the leading letters only (`UPPER` is `UP`), case-insensitively.
    pub fn parse(value: &str) -> Option<Self> {
        let starts = |p: &str| {
            value
                .get(..p.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(p))
        };
        [
            ("DOWN", Self::Down),
            ("UP", Self::Up),
            ("DRAIN", Self::Drain),
            ("INACTIVE", Self::Inactive),
        ]
        .iter()
        .find(|(p, _)| starts(p))
        .map(|(_, s)| *s)
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Up => "UP",
            Self::Down => "DOWN",
            Self::Drain => "DRAIN",
            Self::Inactive => "INACTIVE",
        }
    }
}

/// `OverSubscribe=` (or its old name `Shared=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OverSubscribe {
    /// `EXCLUSIVE`: whole nodes per job.
    Exclusive,
    /// `NO` (the default).
    No,
    /// `YES[:N]`: up to N jobs per resource when the job asks (N defaults to 4).
    Yes(u16),
    /// `FORCE[:N]`: always up to N jobs per resource (N defaults to 4).
    Force(u16),
}

/// A memory default or limit, per allocated CPU or per node (MiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MemPer {
    Cpu(u64),
    Node(u64),
}

/// One `PartitionName=` line after `DEFAULT` values were applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionConf {
    pub name: String,
    /// `Nodes=` as written with blanks turned into commas (`ALL` and node sets are resolved by callers).
    pub nodes: Option<String>,
    pub default: bool,
    pub state: PartitionState,
    /// `MaxTime=` as written (`INFINITE`, `1-00:00:00`, ...); parse with the time-string grammar.
    pub max_time: Option<String>,
    /// `DefaultTime=` as written.
    pub default_time: Option<String>,
    pub max_nodes: u32,
    pub min_nodes: u32,
    pub max_cpus_per_node: u32,
    pub priority_tier: u16,
    pub priority_job_factor: u16,
    /// Lower-cased; `None` means all (`ALL` is dropped like Slurm drops it).
    pub allow_accounts: Option<String>,
    pub allow_groups: Option<String>,
    pub allow_qos: Option<String>,
    pub deny_accounts: Option<String>,
    pub deny_qos: Option<String>,
    pub alloc_nodes: Option<String>,
    pub alternate: Option<String>,
    pub over_subscribe: OverSubscribe,
    pub def_mem: Option<MemPer>,
    pub max_mem: Option<MemPer>,
    pub def_cpu_per_gpu: Option<u64>,
    pub def_mem_per_gpu: Option<u64>,
    pub hidden: bool,
    pub root_only: bool,
    pub req_resv: bool,
    pub lln: bool,
    /// Only from the line itself, never from `DEFAULT` (as in Slurm).
    pub disable_root_jobs: Option<bool>,
    /// Only from the line itself, never from `DEFAULT` (as in Slurm).
    pub exclusive_user: bool,
    pub grace_time: u32,
    /// Minutes; `INFINITE16` for `UNLIMITED`.
    pub over_time_limit: Option<u16>,
    pub preempt_mode: Option<String>,
    pub qos: Option<String>,
    pub resume_timeout: Option<u16>,
    pub suspend_time: Option<u32>,
    pub suspend_timeout: Option<u16>,
    /// Only from the line itself (as in Slurm); one of `CR_Core`, `CR_Core_Memory`, `CR_Socket`,
    /// `CR_Socket_Memory`.
    pub select_type_parameters: Option<String>,
    pub tres_billing_weights: Option<String>,
    pub cpu_bind: Option<String>,
    pub location: Location,
}

/// Looks a key up on the line, then in the defaults.
struct Lookup<'a> {
    line: &'a Fields,
    dflt: &'a Fields,
}

impl Lookup<'_> {
    fn str(&self, k: &str) -> Option<String> {
        self.line
            .str(k)
            .or_else(|| self.dflt.str(k))
            .map(str::to_string)
    }
    fn u16(&self, k: &str) -> Option<u16> {
        self.line.u16(k).or_else(|| self.dflt.u16(k))
    }
    fn u32(&self, k: &str) -> Option<u32> {
        self.line.u32(k).or_else(|| self.dflt.u32(k))
    }
    fn u64(&self, k: &str) -> Option<u64> {
        self.line.u64(k).or_else(|| self.dflt.u64(k))
    }
    fn bool(&self, k: &str) -> bool {
        self.line
            .bool(k)
            .or_else(|| self.dflt.bool(k))
            .unwrap_or(false)
    }
}

/// Builds a partition record. Values Slurm rejects are errors; ones it repairs are warnings.
pub(crate) fn build(
    name: &str,
    line: &Fields,
    dflt: &Fields,
    at: &Location,
    errors: &mut Vec<ConfError>,
    warnings: &mut Vec<ConfError>,
) -> PartitionConf {
    let l = Lookup { line, dflt };
    let mut warn =
        |msg: &str| warnings.push(ConfError::at(at, ConfErrorKind::Other(msg.to_string())));
    let mut bad = |key: &str, value: &str| {
        errors.push(ConfError::at(
            at,
            ConfErrorKind::BadValue {
                key: key.to_string(),
                value: value.to_string(),
            },
        ));
    };
    let not_all = |v: Option<String>| v.filter(|s| !s.eq_ignore_ascii_case("ALL"));
    let lower = |v: Option<String>| v.map(|s| s.to_lowercase());
    let allow_accounts = not_all(lower(l.str("AllowAccounts")));
    let allow_qos = not_all(lower(l.str("AllowQos")));
    let mut deny_accounts = lower(l.str("DenyAccounts"));
    if allow_accounts.is_some() && deny_accounts.is_some() {
        warn("Both AllowAccounts and DenyAccounts are defined, DenyAccounts will be ignored");
        deny_accounts = None;
    }
    let mut deny_qos = lower(l.str("DenyQos"));
    if allow_qos.is_some() && deny_qos.is_some() {
        warn("Both AllowQos and DenyQos are defined, DenyQos will be ignored");
        deny_qos = None;
    }
    let alloc_nodes = match line.str("AllocNodes") {
        Some(v) => Some(v.to_string()),
        None => not_all(dflt.str("AllocNodes").map(str::to_string)),
    };
    let def_mem = mem_per(&l, "DefMemPerNode", "DefMemPerCPU", &mut warn);
    let max_mem = mem_per(&l, "MaxMemPerNode", "MaxMemPerCPU", &mut warn);
    let over_subscribe = l
        .str("OverSubscribe")
        .or_else(|| l.str("Shared"))
        .map_or(Some(OverSubscribe::No), |v| {
            over_subscribe(&v, &mut warn).or_else(|| {
                bad("OverSubscribe", &v);
                None
            })
        })
        .unwrap_or(OverSubscribe::No);
    let state = l.str("State").map_or(PartitionState::Up, |v| {
        PartitionState::parse(&v).unwrap_or_else(|| {
            bad("State", &v);
            PartitionState::Up
        })
    });
    let select_type_parameters = line.str("SelectTypeParameters").map(str::to_string);
    if let Some(v) = &select_type_parameters {
        if !valid_part_cr_type(v) {
            errors.push(ConfError::at(
                at,
                ConfErrorKind::Other(format!("Bad value for SelectTypeParameters: {v}")),
            ));
        }
    }
    let priority = l.u16("Priority");
    PartitionConf {
        name: name.to_string(),
        nodes: l.str("Nodes").map(|n| {
            n.chars()
                .map(|c| if c.is_ascii_whitespace() { ',' } else { c })
                .collect()
        }),
        default: l.bool("Default"),
        state,
        max_time: l.str("MaxTime"),
        default_time: l.str("DefaultTime"),
        max_nodes: l.u32("MaxNodes").unwrap_or(INFINITE),
        min_nodes: l.u32("MinNodes").unwrap_or(0),
        max_cpus_per_node: l.u32("MaxCPUsPerNode").unwrap_or(INFINITE),
        priority_tier: priority.or_else(|| l.u16("PriorityTier")).unwrap_or(1),
        priority_job_factor: priority.or_else(|| l.u16("PriorityJobFactor")).unwrap_or(1),
        allow_accounts,
        allow_groups: not_all(l.str("AllowGroups")),
        allow_qos,
        deny_accounts,
        deny_qos,
        alloc_nodes,
        alternate: l.str("Alternate"),
        over_subscribe,
        def_mem,
        max_mem,
        def_cpu_per_gpu: l.u64("DefCPUPerGPU"),
        def_mem_per_gpu: l.u64("DefMemPerGPU"),
        hidden: l.bool("Hidden"),
        root_only: l.bool("RootOnly"),
        req_resv: l.bool("ReqResv"),
        lln: l.bool("LLN"),
        disable_root_jobs: line.bool("DisableRootJobs"),
        exclusive_user: line.bool("ExclusiveUser").unwrap_or(false),
        grace_time: l.u32("GraceTime").unwrap_or(0),
        over_time_limit: l
            .str("OverTimeLimit")
            .and_then(|v| over_time_limit(&v, &mut warn)),
        preempt_mode: l.str("PreemptMode"),
        qos: l.str("QOS"),
        resume_timeout: l.u16("ResumeTimeout"),
        suspend_time: l.u32("SuspendTime"),
        suspend_timeout: l.u16("SuspendTimeout"),
        select_type_parameters,
        tres_billing_weights: l.str("TRESBillingWeights"),
        cpu_bind: l.str("CpuBind"),
        location: at.clone(),
    }
}

/// The per-node key wins over the per-CPU one; having both is only worth a warning.
fn mem_per(
    l: &Lookup<'_>,
    per_node: &str,
    per_cpu: &str,
    warn: &mut dyn FnMut(&str),
) -> Option<MemPer> {
    match (l.u64(per_node), l.u64(per_cpu)) {
        (Some(node), Some(_)) => {
            warn(&format!(
                "{per_cpu} ignored, since it's mutually exclusive with {per_node}"
            ));
            Some(MemPer::Node(node))
        }
        (Some(node), None) => Some(MemPer::Node(node)),
        (None, Some(cpu)) => Some(MemPer::Cpu(cpu)),
        (None, None) => None,
    }
}

/// C's `strtol(s, NULL, 10)`: leading blanks, a sign, then digits; anything else ends the number.
fn leading_long(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |acc, d| {
            acc.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    if neg {
        -n
    } else {
        n
    }
}

fn over_subscribe(v: &str, warn: &mut dyn FnMut(&str)) -> Option<OverSubscribe> {
    let starts = |p: &str| v.get(..p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p));
    let count = |n: i64| u16::try_from(n).unwrap_or(u16::MAX);
    let bad = |warn: &mut dyn FnMut(&str)| {
        warn(&format!("Ignoring bad OverSubscribe value: {v}"));
        OverSubscribe::No
    };
    Some(if v.eq_ignore_ascii_case("NO") {
        OverSubscribe::No
    } else if v.eq_ignore_ascii_case("EXCLUSIVE") {
        OverSubscribe::Exclusive
    } else if starts("YES:") {
        match leading_long(&v[4..]) {
            n if n <= 1 => bad(warn),
            n => OverSubscribe::Yes(count(n)),
        }
    } else if v.eq_ignore_ascii_case("YES") {
        OverSubscribe::Yes(4)
    } else if starts("FORCE:") {
        match leading_long(&v[6..]) {
            n if n < 1 => bad(warn),
            n => OverSubscribe::Force(count(n)),
        }
    } else if v.eq_ignore_ascii_case("FORCE") {
        OverSubscribe::Force(4)
    } else {
        return None;
    })
}

fn over_time_limit(v: &str, warn: &mut dyn FnMut(&str)) -> Option<u16> {
    if v.eq_ignore_ascii_case("INFINITE") || v.eq_ignore_ascii_case("UNLIMITED") {
        return Some(INFINITE16);
    }
    match leading_long(v) {
        n if n < 0 => {
            warn(&format!("Ignoring bad OverTimeLimit value: {v}"));
            None
        }
        n => Some(
            u16::try_from(n)
                .ok()
                .filter(|n| *n <= 0xfffe)
                .unwrap_or(INFINITE16),
        ),
    }
}

/// Slurm accepts these prefixes (so `CR_Core_Memory` and anything starting with `CR_Core` pass).
fn valid_part_cr_type(v: &str) -> bool {
    ["CR_Core_Memory", "CR_Core", "CR_Socket_Memory", "CR_Socket"]
        .iter()
        .any(|p| v.get(..p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_state_prefixes() {
        assert_eq!(PartitionState::parse("up"), Some(PartitionState::Up));
        assert_eq!(
            PartitionState::parse("drainXYZ"),
            Some(PartitionState::Drain)
        );
        assert_eq!(PartitionState::parse("WEIRD"), None);
    }

    #[test]
    fn over_subscribe_forms() {
        let mut warnings = Vec::new();
        let mut warn = |m: &str| warnings.push(m.to_string());
        assert_eq!(
            over_subscribe("yes", &mut warn),
            Some(OverSubscribe::Yes(4))
        );
        assert_eq!(
            over_subscribe("FORCE:2", &mut warn),
            Some(OverSubscribe::Force(2))
        );
        assert_eq!(over_subscribe("YES:1", &mut warn), Some(OverSubscribe::No));
        assert_eq!(over_subscribe("bogus", &mut warn), None);
        assert_eq!(warnings, ["Ignoring bad OverSubscribe value: YES:1"]);
    }

    #[test]
    fn over_time_limits() {
        let mut warn = |_: &str| {};
        assert_eq!(over_time_limit("UNLIMITED", &mut warn), Some(INFINITE16));
        assert_eq!(over_time_limit("10", &mut warn), Some(10));
        assert_eq!(over_time_limit("70000", &mut warn), Some(INFINITE16));
        assert_eq!(over_time_limit("-1", &mut warn), None);
    }
}
