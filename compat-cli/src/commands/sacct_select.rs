//! sacct's selection options beyond the record filter the controller applies ([`Filter`]): `-N`, `-q`, `-g`,
//! `-i`/`-I`, `-k`/`-K`, `-M`/`-L`, `-W`, `-x`, read and checked as Slurm 22.05's sacct reads them, and applied to
//! the records the controller returned. Kept on the client so the query on the wire stays as it is.
//!
//! [`Filter`]: spur_core::model::accounting::Filter

use spur_core::grammar::hostlist::{self, Hostlist};
use spur_core::grammar::options::query::Parsed;
use spur_core::grammar::values::size::SizeUnit;
use spur_core::grammar::values::time::{parse_time_limit, TimeLimit};
use spur_core::model::accounting::JobAccounting;

/// Slurm's INFINITE minutes (`UNLIMITED` time limits, as slurmdbd stores them).
const INFINITE: u32 = u32::MAX;

/// The narrowing asked for; empty lists and `None` narrow nothing.
#[derive(Debug, Default, Clone)]
pub struct Narrowing {
    /// `-N`: jobs that ran on any of these nodes (never expanded: `n[0-60000]` is a short argument); `None`
    /// inside when the list does not parse, which selects nothing, as slurmdbd finds no hosts to look for.
    pub nodes: Option<Option<Hostlist>>,
    /// `-q`: QOS names, lower case.
    pub qos: Vec<String>,
    /// `-g`/`--gid`/`--group`.
    pub groups: Vec<u32>,
    /// `-I`: allocated CPUs, `(min, max)`; a max of 0 asks for exactly min.
    pub cpus: Option<(u32, u32)>,
    /// `-i`: allocated nodes, the same way.
    pub node_counts: Option<(u32, u32)>,
    /// `-k`/`-K`: the time limit in minutes, the same way; only `-k` turns it on, as in Slurm.
    pub time_limit: Option<(u32, u32)>,
    /// `-M`: only these clusters' jobs (`None`: this cluster's, or every cluster's with `-L`/`-M all`).
    pub clusters: Option<Vec<String>>,
    /// `-W` or `-x` given: Spur records neither wckeys nor association ids with a job, so no job matches.
    pub unrecorded_keys: bool,
}

/// `--units` and `--noconvert`: how memory sizes print.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MemUnits {
    pub unit: Option<SizeUnit>,
    pub no_convert: bool,
}

impl Narrowing {
    /// Reads the options; an error is sacct's message (to print as is), after which it exits 1.
    pub fn from_options(parsed: &Parsed) -> Result<Narrowing, String> {
        let mut out = Narrowing::default();
        // -N given twice: the first list stays and each later one is refused with an error line (not fatal).
        let mut node_lists = parsed.values(&["nodelist"]);
        if let Some(first) = node_lists.next() {
            for _ in node_lists {
                eprintln!("sacct: error: Already asked for nodes '{first}'");
            }
            out.nodes = Some(Hostlist::parse(first).ok());
        }
        for list in parsed.values(&["gid", "group"]) {
            for group in list.split(',').filter(|g| !g.is_empty()) {
                out.groups.push(
                    gid_of(group)
                        .ok_or_else(|| format!("sacct: error: Invalid group id: {group}"))?,
                );
            }
        }
        if let Some(text) = parsed.value("ncpus") {
            out.cpus = Some(resource_range(text, "requested cpu range")?);
        }
        if let Some(text) = parsed.value("nnodes") {
            out.node_counts = Some(resource_range(text, "requested node range")?);
        }
        let min = parsed
            .value("timelimit-min")
            .map(limit_minutes)
            .transpose()?;
        let max = parsed
            .value("timelimit-max")
            .map(limit_minutes)
            .transpose()?;
        out.time_limit = min.map(|min| (min, max.unwrap_or(0)));
        out.qos = parsed
            .values(&["qos"])
            .flat_map(|l| l.split(','))
            .filter(|q| !q.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        out.clusters = clusters(parsed);
        out.unrecorded_keys = parsed.has("wckeys") || parsed.has("associations");
        // Spur records no heterogeneous jobs, so the answer changes nothing; the value is still checked.
        for value in parsed.values(&["whole-hetjob"]) {
            if !["yes", "y", "no", "n"]
                .iter()
                .any(|v| v.eq_ignore_ascii_case(value))
            {
                return Err(format!(
                    "sacct: error: Invalid --whole-hetjob value \"{value}\". Valid values: [yes|no]."
                ));
            }
        }
        Ok(out)
    }

    /// Whether `job`, of cluster `cluster`, is selected.
    pub fn selects(&self, job: &JobAccounting, cluster: &str) -> bool {
        if self.unrecorded_keys {
            return false;
        }
        if let Some(clusters) = &self.clusters {
            if !clusters.iter().any(|c| c.eq_ignore_ascii_case(cluster)) {
                return false;
            }
        }
        if let Some(nodes) = &self.nodes {
            if !nodes
                .as_ref()
                .is_some_and(|nodes| ran_on_any(nodes, &job.node_list))
            {
                return false;
            }
        }
        if !self.qos.is_empty() {
            let qos = job.qos.as_deref().unwrap_or("normal").to_ascii_lowercase();
            if !self.qos.contains(&qos) {
                return false;
            }
        }
        if !self.groups.is_empty() && !self.groups.contains(&job.group_id) {
            return false;
        }
        let started = job.start.is_some();
        // slurmdbd compares the allocated counts: a job that never ran had none.
        if !in_range(self.cpus, if started { job.cpus } else { 0 }) {
            return false;
        }
        if !in_range(self.node_counts, if started { job.nodes } else { 0 }) {
            return false;
        }
        in_range(self.time_limit, job.time_limit_min.unwrap_or(INFINITE))
    }

    /// Every QOS name asked for must exist: the first that does not is refused with the names that do.
    pub fn check_qos(&self, known: &[String]) -> Result<(), String> {
        match self
            .qos
            .iter()
            .find(|q| !known.iter().any(|k| k.eq_ignore_ascii_case(q)))
        {
            None => Ok(()),
            Some(bad) => Err(format!(
                "sacct: error: You gave a bad qos '{bad}'. Valid QOS's are {}\n\
                 sacct: fatal: problem processing qos list",
                known.join(",")
            )),
        }
    }
}

impl MemUnits {
    pub fn from_options(parsed: &Parsed) -> Result<MemUnits, String> {
        let unit = match parsed.value("units") {
            None => None,
            Some(text) => Some(unit_type(text)?),
        };
        Ok(MemUnits {
            unit,
            no_convert: parsed.has("noconvert"),
        })
    }

    /// Rewrites a printed value of a memory field: `ReqMem`'s `100M`, or `mem=` inside a TRES string.
    pub fn apply(&self, field: &str, value: &str) -> String {
        if self.unit.is_none() && !self.no_convert {
            return value.to_string();
        }
        match field {
            "ReqMem" => self.size(value).unwrap_or_else(|| value.to_string()),
            "ReqTRES" | "AllocTRES" => value
                .split(',')
                .map(
                    |part| match part.strip_prefix("mem=").and_then(|v| self.size(v)) {
                        Some(size) => format!("mem={size}"),
                        None => part.to_string(),
                    },
                )
                .collect::<Vec<_>>()
                .join(","),
            _ => value.to_string(),
        }
    }

    /// A size as printed (`100M`, `2G`, `0`) in the unit asked for, as Slurm's `convert_num_unit2` prints it: a
    /// fixed unit wins over `--noconvert`, which leaves the stored megabytes.
    fn size(&self, printed: &str) -> Option<String> {
        let digits = printed.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let suffix = &printed[digits.len()..];
        let number: f64 = digits.parse().ok()?;
        let from = match suffix {
            "" => return Some(printed.to_string()),
            "K" => 1,
            "M" => 2,
            "G" => 3,
            "T" => 4,
            "P" => 5,
            _ => return None,
        };
        if number == 0.0 {
            return Some("0".to_string());
        }
        let mb = number * 1024f64.powi(from - 2);
        let (value, power) = match self.unit {
            Some(unit) => {
                let to = unit as i32;
                (mb * 1024f64.powi(2 - to), to)
            }
            None => (mb, 2),
        };
        let suffix = ["", "K", "M", "G", "T", "P"]
            .get(usize::try_from(power).ok()?)
            .copied()
            .unwrap_or("?");
        Some(if value.fract() == 0.0 {
            format!("{value:.0}{suffix}")
        } else {
            format!("{value:.2}{suffix}")
        })
    }
}

/// `-M` (`--cluster`, `--clusters`) and `-L`, in order: `all`/`-1` and `-L` ask for every cluster, a list adds
/// to the clusters asked for, `--local`/`--federation` drop "every cluster" again.
fn clusters(parsed: &Parsed) -> Option<Vec<String>> {
    let mut all = false;
    let mut named: Vec<String> = Vec::new();
    for (name, value) in &parsed.options {
        match (*name, value.as_deref()) {
            ("cluster" | "clusters", Some(v)) if v.eq_ignore_ascii_case("all") || v == "-1" => {
                all = true
            }
            ("cluster" | "clusters", Some(v)) => {
                all = false;
                named.extend(v.split(',').filter(|c| !c.is_empty()).map(str::to_string));
            }
            ("allclusters", _) => all = true,
            ("local" | "federation", _) => all = false,
            _ => {}
        }
    }
    (!all && !named.is_empty()).then_some(named)
}

/// Whether a job that ran on `node_list` ran on any of `nodes`. The job's own list names nodes of the cluster, so
/// expanding it is bounded by the cluster's size; `nodes` is looked up without expanding it.
fn ran_on_any(nodes: &Hostlist, node_list: &str) -> bool {
    hostlist::expand(node_list)
        .unwrap_or_default()
        .iter()
        .any(|n| nodes.find(n).is_some())
}

fn in_range(range: Option<(u32, u32)>, value: u32) -> bool {
    match range {
        None => true,
        Some((min, 0)) => value == min,
        Some((min, max)) => value >= min && value <= max,
    }
}

/// A group by name or number, as `-g` takes it.
fn gid_of(group: &str) -> Option<u32> {
    if let Ok(gid) = group.parse() {
        return Some(gid);
    }
    nix::unistd::Group::from_name(group)
        .ok()
        .flatten()
        .map(|g| g.gid.as_raw())
}

/// `-k`/`-K`: a time limit; zero or a bad value is fatal.
fn limit_minutes(text: &str) -> Result<u32, String> {
    match parse_time_limit(text) {
        Ok(TimeLimit::Unlimited) => Ok(INFINITE),
        Ok(TimeLimit::Minutes(m)) if i32::try_from(m).is_ok_and(|m| m > 0) => Ok(m),
        _ => Err("sacct: fatal: Invalid time limit specification".to_string()),
    }
}

/// `-i`/`-I`: `N`, `N-M` or `*` (Slurm's `get_resource_arg_range`: `k`/`m` suffixes multiply by 1024s; no check
/// that the range is in order, so `4-2` selects nothing).
fn resource_range(text: &str, what: &str) -> Result<(u32, u32), String> {
    let invalid = || format!("sacct: error: Invalid numeric value \"{text}\" for {what}.");
    if text.is_empty() || text.starts_with('*') {
        return Ok((1, i32::MAX as u32));
    }
    let (first, rest) = leading_number(text);
    let min = match first {
        Some(n) if n >= 0 && (rest.is_empty() || rest.starts_with('-')) => n,
        _ => return Err(invalid()),
    };
    let min = checked_int(min, what)?;
    let Some(rest) = rest.strip_prefix('-') else {
        return Ok((min, 0));
    };
    let (second, tail) = leading_number(rest);
    // strtol of no digits gives 0, which the check below refuses as it does a negative count.
    let max = second.unwrap_or(0);
    if !(tail.is_empty() || tail.starts_with('-')) || max <= 0 {
        return Err(invalid());
    }
    Ok((min, checked_int(max, what)?))
}

fn checked_int(n: i64, what: &str) -> Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| i32::try_from(*n).is_ok())
        .ok_or_else(|| format!("sacct: error: Numeric argument ({n}) to big for {what}."))
}

/// C's `strtol` then an optional `k`/`m` multiplier: the number (None when no digits) and what follows.
fn leading_number(text: &str) -> (Option<i64>, &str) {
    let trimmed = text.trim_start();
    let sign_len = usize::from(trimmed.starts_with(['-', '+']));
    let digits = trimmed[sign_len..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 {
        return (None, text);
    }
    let end = sign_len + digits;
    let mut n: i64 = trimmed[..end].parse().unwrap_or(i64::MAX);
    let mut rest = &trimmed[end..];
    if let Some(r) = rest.strip_prefix(['k', 'K']) {
        n = n.saturating_mul(1024);
        rest = r;
    } else if let Some(r) = rest.strip_prefix(['m', 'M']) {
        n = n.saturating_mul(1_048_576);
        rest = r;
    }
    (Some(n), rest)
}

/// `--units`: its first letter, one of `KMGTP` (any case).
fn unit_type(text: &str) -> Result<SizeUnit, String> {
    let first = text.chars().next();
    let unit = match first.map(|c| c.to_ascii_uppercase()) {
        Some('K') => Some(SizeUnit::Kilo),
        Some('M') => Some(SizeUnit::Mega),
        Some('G') => Some(SizeUnit::Giga),
        Some('T') => Some(SizeUnit::Tera),
        Some('P') => Some(SizeUnit::Peta),
        _ => None,
    };
    unit.ok_or_else(|| {
        // Slurm prints the letter with %c: an empty value's NUL ends the line there.
        match first {
            None => {
                "sacct: error: Invalid unit type '\nsacct: fatal: Invalid unit type".to_string()
            }
            Some(c) => format!(
                "sacct: error: Invalid unit type '{c}'. Possible options are 'KMGTP'\n\
                 sacct: fatal: Invalid unit type"
            ),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_ranges_read_as_slurm_does() {
        assert_eq!(resource_range("2", "x"), Ok((2, 0)));
        assert_eq!(resource_range("1-4", "x"), Ok((1, 4)));
        assert_eq!(resource_range("4-2", "x"), Ok((4, 2)));
        assert_eq!(resource_range("*", "x"), Ok((1, i32::MAX as u32)));
        assert_eq!(resource_range("2k", "x"), Ok((2048, 0)));
        assert_eq!(
            resource_range("x", "requested node range"),
            Err("sacct: error: Invalid numeric value \"x\" for requested node range.".to_string())
        );
        assert!(resource_range("-3", "x").is_err());
        assert!(resource_range("2-0", "x").is_err());
        assert!(resource_range("2-x", "x").is_err());
    }

    #[test]
    fn ranges_with_no_max_ask_for_exactly_min() {
        assert!(in_range(Some((2, 0)), 2));
        assert!(!in_range(Some((2, 0)), 3));
        assert!(in_range(Some((1, 4)), 3));
        assert!(!in_range(Some((4, 2)), 3));
        assert!(in_range(None, 7));
    }

    #[test]
    fn time_limits_refuse_zero_and_junk() {
        assert_eq!(limit_minutes("10"), Ok(10));
        assert_eq!(limit_minutes("1:00:00"), Ok(60));
        assert_eq!(limit_minutes("UNLIMITED"), Ok(INFINITE));
        let fatal = Err("sacct: fatal: Invalid time limit specification".to_string());
        assert_eq!(limit_minutes("0"), fatal);
        assert_eq!(limit_minutes("bogus"), fatal);
    }

    #[test]
    fn units_convert_memory_as_convert_num_unit2() {
        let k = MemUnits {
            unit: Some(SizeUnit::Kilo),
            no_convert: false,
        };
        let g = MemUnits {
            unit: Some(SizeUnit::Giga),
            no_convert: false,
        };
        let raw = MemUnits {
            unit: None,
            no_convert: true,
        };
        assert_eq!(k.apply("ReqMem", "100M"), "102400K");
        assert_eq!(g.apply("ReqMem", "100M"), "0.10G");
        assert_eq!(raw.apply("ReqMem", "2G"), "2048M");
        assert_eq!(
            g.apply("AllocTRES", "billing=1,cpu=1,mem=2G,node=1"),
            "billing=1,cpu=1,mem=2G,node=1"
        );
        assert_eq!(k.apply("ReqTRES", "cpu=1,mem=1M"), "cpu=1,mem=1024K");
        assert_eq!(g.apply("State", "100M"), "100M");
        assert_eq!(
            unit_type("x").unwrap_err(),
            "sacct: error: Invalid unit type 'x'. Possible options are 'KMGTP'\nsacct: fatal: Invalid unit type"
        );
        assert_eq!(unit_type("g"), Ok(SizeUnit::Giga));
    }

    fn parsed(options: &[(&'static str, Option<&str>)]) -> Parsed {
        Parsed {
            options: options
                .iter()
                .map(|(n, v)| (*n, v.map(str::to_string)))
                .collect(),
            ..Parsed::default()
        }
    }

    #[test]
    fn clusters_in_order() {
        assert_eq!(clusters(&parsed(&[])), None);
        assert_eq!(
            clusters(&parsed(&[
                ("cluster", Some("a,b")),
                ("clusters", Some("c"))
            ])),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(
            clusters(&parsed(&[("cluster", Some("a")), ("allclusters", None)])),
            None
        );
        assert_eq!(clusters(&parsed(&[("cluster", Some("all"))])), None);
    }

    #[test]
    fn huge_node_lists_are_matched_without_expanding_them() {
        let n = Narrowing::from_options(&parsed(&[("nodelist", Some("n[0-60000],m[0-60000]"))]))
            .unwrap();
        let Some(Some(nodes)) = &n.nodes else {
            panic!("not parsed");
        };
        assert!(ran_on_any(nodes, "n[7-8]"));
        assert!(ran_on_any(nodes, "m1"));
        assert!(!ran_on_any(nodes, "x1"));
        // Past Slurm's range limit the list does not parse, and selects nothing.
        let huge =
            Narrowing::from_options(&parsed(&[("nodelist", Some("n[0-4000000000]"))])).unwrap();
        assert!(matches!(huge.nodes, Some(None)));
    }

    #[test]
    fn bad_qos_lists_the_known_ones() {
        let n = Narrowing {
            qos: vec!["normal".into(), "nope".into()],
            ..Narrowing::default()
        };
        assert_eq!(
            n.check_qos(&["normal".into(), "high".into()]).unwrap_err(),
            "sacct: error: You gave a bad qos 'nope'. Valid QOS's are normal,high\n\
             sacct: fatal: problem processing qos list"
        );
    }
}
