//! Generic resources and TRES: `--gres=<name>[:<type>][:<count>][,...]`, `--gpus`/`--gpus-per-node`/
//! `--gpus-per-task`/`--gpus-per-socket=[<type>:]<count>[,...]`, the `gres:gpu:a100:2` form scontrol prints in
//! `TresPerNode=`/`TresPerJob=`/`TresPerTask=`, and TRES lists such as `TRES=cpu=1,mem=1G,node=1,gres/gpu=2`.
//!
//! Slurm 22.05 semantics, sbatch's checks then slurmctld's: a name must be one of the configured `GresTypes`
//! (case-sensitive); `name:X` is a count when `X` starts with a digit and a type otherwise; `name:type:count` needs
//! both; counts are digits with an optional `k`, `m` or `g` (powers of 1024); at most three fields. A name may not be
//! requested both with and without a type, and GPUs and shards may not be requested together. Counts are printed
//! back as typed (`gpu:2k` stays `2k`). `--tres-per-task` does not exist in 22.05; its internal `TresPerTask=` form
//! is read by [`parse_tres_per`].

use std::fmt;

use super::size::{format_megabytes, parse_megabytes};

/// A count as given, with its value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct GresCount {
    /// The value (`2k` is 2048).
    pub value: u64,
    /// The text as given, which Slurm prints back unchanged.
    pub text: String,
}

/// One requested generic resource.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct GresRequest {
    /// `gpu`, `shard`, ...
    pub name: String,
    /// `a100`, `mi300x`, ... when a type was given.
    pub type_name: Option<String>,
    /// The count when given; Slurm's default is 1.
    pub count: Option<GresCount>,
}

impl GresRequest {
    /// The requested count (1 when none was given).
    pub fn count_value(&self) -> u64 {
        self.count.as_ref().map_or(1, |c| c.value)
    }
}

impl fmt::Display for GresRequest {
    /// `gpu:a100:2`, as Slurm prints one item after its `gres:` prefix.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(t) = &self.type_name {
            write!(f, ":{t}")?;
        }
        if let Some(c) = &self.count {
            write!(f, ":{}", c.text)?;
        }
        Ok(())
    }
}

/// A rejected GRES or TRES specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GresError {
    /// sbatch's check failed: unknown name, bad field, GPUs together with shards.
    #[error("Invalid generic resource (gres) specification")]
    Invalid,
    /// The same name with and without a type.
    #[error("Invalid GRES specification (with and without type identification)")]
    MixedTyped,
    /// slurmctld's check failed (empty items, a malformed count); sbatch prints it after
    /// "Batch job submission failed: ".
    #[error("Invalid Trackable RESource (TRES) specification")]
    InvalidTres,
}

/// Parses a count: decimal digits and an optional single `k`, `m` or `g` (any case, powers of 1024).
pub fn parse_gres_count(text: &str) -> Option<GresCount> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let (number, suffix) = text.split_at(digits);
    let multiplier: u64 = match suffix {
        "" => 1,
        "k" | "K" => 1 << 10,
        "m" | "M" => 1 << 20,
        "g" | "G" => 1 << 30,
        _ => return None,
    };
    let value = number.parse::<u64>().ok()?.checked_mul(multiplier)?;
    Some(GresCount {
        value,
        text: text.to_string(),
    })
}

/// One item, after sbatch's checks. `Err(InvalidTres)` marks what only slurmctld rejects, so callers can apply
/// sbatch's checks to every item first.
fn parse_item(item: &str, known: &[&str]) -> Result<GresRequest, GresError> {
    let fields: Vec<&str> = item.split(':').collect();
    let Some((&name, rest)) = fields.split_first() else {
        return Err(GresError::Invalid);
    };
    if !known.contains(&name) {
        return Err(GresError::Invalid);
    }
    let mut req = GresRequest {
        name: name.to_string(),
        type_name: None,
        count: None,
    };
    match *rest {
        [] => {}
        [""] => return Err(GresError::Invalid),
        [x] if x.starts_with(|c: char| c.is_ascii_digit()) => {
            // sbatch lets any digit-led text through here; slurmctld insists on a count.
            req.count = Some(parse_gres_count(x).ok_or(GresError::InvalidTres)?);
        }
        [t] => req.type_name = Some(t.to_string()),
        [t, c] if !t.is_empty() => {
            req.type_name = Some(t.to_string());
            req.count = Some(parse_gres_count(c).ok_or(GresError::Invalid)?);
        }
        _ => return Err(GresError::Invalid),
    }
    Ok(req)
}

/// What a list of items is: a job's request, or what a node offers (slurm.conf `Gres=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Items {
    Request,
    Offer,
}

/// The rules across items: one name typed and untyped; a request may not ask for GPUs and shards together (a
/// node offers both).
fn check_combination(reqs: &[GresRequest], items: Items) -> Result<(), GresError> {
    for (i, a) in reqs.iter().enumerate() {
        if reqs[i + 1..]
            .iter()
            .any(|b| b.name == a.name && b.type_name.is_some() != a.type_name.is_some())
        {
            return Err(GresError::MixedTyped);
        }
    }
    let has = |name: &str| reqs.iter().any(|r| r.name == name);
    if items == Items::Request && has("gpu") && has("shard") {
        return Err(GresError::Invalid);
    }
    Ok(())
}

/// Parses items of the `name[:type][:count]` form, sbatch's checks before slurmctld's.
fn parse_items<'a>(
    items: impl Iterator<Item = &'a str>,
    known: &[&str],
    kind: Items,
) -> Result<Vec<GresRequest>, GresError> {
    let mut reqs = Vec::new();
    let mut controller_error = false;
    for item in items {
        // sbatch skips empty items and a leading "gres:"; slurmctld then refuses them.
        let body = item.strip_prefix("gres:").unwrap_or(item);
        if body.is_empty() {
            controller_error = true;
            continue;
        }
        match parse_item(body, known) {
            Ok(req) => reqs.push(req),
            Err(GresError::InvalidTres) => controller_error = true,
            Err(e) => return Err(e),
        }
    }
    check_combination(&reqs, kind)?;
    if controller_error {
        return Err(GresError::InvalidTres);
    }
    Ok(reqs)
}

/// Parses `--gres` against the configured GRES names (`GresTypes`).
pub fn parse_gres(spec: &str, known: &[&str]) -> Result<Vec<GresRequest>, GresError> {
    parse_items(spec.split(','), known, Items::Request)
}

/// Parses a node's `Gres=` from slurm.conf: the items of [`parse_gres`], where GPUs and their shards go together.
pub fn parse_node_gres(spec: &str, known: &[&str]) -> Result<Vec<GresRequest>, GresError> {
    parse_items(spec.split(','), known, Items::Offer)
}

/// Parses `--gpus`, `--gpus-per-node`, `--gpus-per-task` and `--gpus-per-socket`: `[type:]count` items of `gpu`.
pub fn parse_gpus(spec: &str, known: &[&str]) -> Result<Vec<GresRequest>, GresError> {
    let items: Vec<String> = spec
        .split(',')
        .map(|i| {
            if i.is_empty() {
                String::new()
            } else {
                format!("gpu:{i}")
            }
        })
        .collect();
    parse_items(items.iter().map(String::as_str), known, Items::Request)
}

/// Formats requests as scontrol's `TresPerNode=`/`TresPerJob=`/`TresPerTask=`: `gres:gpu:a100:2,gres:shard:1`.
pub fn format_tres_per(reqs: &[GresRequest]) -> String {
    reqs.iter()
        .map(|r| format!("gres:{r}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads the `gres:name[:type][:count]` form back (any GRES name accepted).
pub fn parse_tres_per(text: &str) -> Result<Vec<GresRequest>, GresError> {
    text.split(',')
        .map(|item| {
            let body = item.strip_prefix("gres:").ok_or(GresError::InvalidTres)?;
            let name = body.split(':').next().unwrap_or("");
            if name.is_empty() {
                return Err(GresError::InvalidTres);
            }
            parse_item(body, &[name]).map_err(|_| GresError::InvalidTres)
        })
        .collect()
}

/// `CpusPerTres=` / `MemPerTres=` for GPUs: `gres:gpu:4` (MemPerTres counts megabytes).
pub fn format_per_gpu(value: u64) -> String {
    format!("gres:gpu:{value}")
}

/// One entry of a TRES list: `cpu=2`, `mem=1G`, `gres/gpu=2`, `gres/gpu:a100=2`, `license/foo=1`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Tres {
    /// `cpu`, `mem`, `node`, `billing`, `energy`, `gres`, `license`, `bb`, `fs`...
    pub kind: String,
    /// The name after `/` for `gres`, `license`, `bb`, `fs`.
    pub name: Option<String>,
    /// The amount; megabytes for `mem`.
    pub count: u64,
}

impl fmt::Display for Tres {
    /// `kind[/name]=count`, memory in Slurm's size form (`1G`, `23593M`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        if let Some(name) = &self.name {
            write!(f, "/{name}")?;
        }
        if self.kind == "mem" {
            write!(f, "={}", format_megabytes(self.count))
        } else {
            write!(f, "={}", self.count)
        }
    }
}

/// Formats a TRES list as scontrol prints `TRES=`, `CfgTRES=`, `AllocTRES=` (in the order given).
pub fn format_tres_list(list: &[Tres]) -> String {
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads a TRES list such as `cpu=2,mem=23593M,billing=2` (an empty text is an empty list).
pub fn parse_tres_list(text: &str) -> Result<Vec<Tres>, GresError> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|item| {
            let (key, value) = item.split_once('=').ok_or(GresError::InvalidTres)?;
            let (kind, name) = match key.split_once('/') {
                Some((kind, name)) => (kind, Some(name.to_string())),
                None => (key, None),
            };
            if kind.is_empty() || name.as_deref() == Some("") {
                return Err(GresError::InvalidTres);
            }
            let count = if kind == "mem" {
                parse_megabytes(value)
            } else {
                value.parse::<u64>().ok()
            }
            .ok_or(GresError::InvalidTres)?;
            Ok(Tres {
                kind: kind.to_string(),
                name,
                count,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &["gpu", "shard"];

    fn tres_per(spec: &str) -> Result<String, GresError> {
        parse_gres(spec, KNOWN).map(|r| format_tres_per(&r))
    }

    #[test]
    fn gres_forms() {
        assert_eq!(tres_per("gpu").unwrap(), "gres:gpu");
        assert_eq!(tres_per("gpu:2").unwrap(), "gres:gpu:2");
        assert_eq!(tres_per("gpu:mi300x:8").unwrap(), "gres:gpu:mi300x:8");
        assert_eq!(tres_per("shard:4").unwrap(), "gres:shard:4");
        assert_eq!(tres_per("gres:gpu:2k").unwrap(), "gres:gpu:2k");
        let reqs = parse_gres("gpu:a100:2k", KNOWN).unwrap();
        assert_eq!(
            (reqs[0].type_name.as_deref(), reqs[0].count_value()),
            (Some("a100"), 2048)
        );
        assert_eq!(parse_gres("gpu", KNOWN).unwrap()[0].count_value(), 1);
    }

    #[test]
    fn gres_errors() {
        for bad in [
            "gpu:a:b",
            ":2",
            "gpu::2",
            "GPU:2",
            "gpu:a100:2:3",
            "bogus:2",
            "gpu:",
            "gpu:1,shard:2",
        ] {
            assert_eq!(parse_gres(bad, KNOWN), Err(GresError::Invalid), "{bad:?}");
        }
        assert_eq!(
            parse_gres("gpu:a100:2,gpu:1", KNOWN),
            Err(GresError::MixedTyped)
        );
        for bad in ["gpu:2x", "gpu:1.5", ",gpu:2", "gpu:2,", "gres:"] {
            assert_eq!(
                parse_gres(bad, KNOWN),
                Err(GresError::InvalidTres),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn gpus_options() {
        let per = |s: &str| parse_gpus(s, KNOWN).map(|r| format_tres_per(&r));
        assert_eq!(per("2").unwrap(), "gres:gpu:2");
        assert_eq!(
            per("a100:2,mi300x:1").unwrap(),
            "gres:gpu:a100:2,gres:gpu:mi300x:1"
        );
        assert_eq!(per("abc").unwrap(), "gres:gpu:abc");
        assert_eq!(per("2,a100:1"), Err(GresError::MixedTyped));
        assert_eq!(per("a:b:c"), Err(GresError::Invalid));
    }

    #[test]
    fn tres_per_round_trip() {
        let reqs = parse_tres_per("gres:gpu:a100:3").unwrap();
        assert_eq!(format_tres_per(&reqs), "gres:gpu:a100:3");
        assert_eq!(parse_tres_per("gpu:1"), Err(GresError::InvalidTres));
        assert_eq!(format_per_gpu(4), "gres:gpu:4");
    }

    #[test]
    fn tres_lists() {
        let list = parse_tres_list("cpu=1,mem=1G,node=1,billing=1,gres/gpu=2").unwrap();
        assert_eq!(list[1].count, 1024);
        assert_eq!(list[4].name.as_deref(), Some("gpu"));
        assert_eq!(
            format_tres_list(&list),
            "cpu=1,mem=1G,node=1,billing=1,gres/gpu=2"
        );
        let cfg = parse_tres_list("cpu=2,mem=23593M,billing=2").unwrap();
        assert_eq!(format_tres_list(&cfg), "cpu=2,mem=23593M,billing=2");
        assert_eq!(parse_tres_list(""), Ok(vec![]));
        assert!(parse_tres_list("cpu").is_err());
    }
}
