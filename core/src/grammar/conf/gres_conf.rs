//! `gres.conf` as Slurm 22.05 reads it: a global `AutoDetect=`, then `Name=` lines (every node) and `NodeName=`
//! lines (the nodes of a hostlist expression) describing generic resources such as GPUs.
//!
//! `NodeName` expressions are kept as written; [`GresConf::for_node`] takes the membership test from the caller
//! (normally `crate::grammar::hostlist`). `File=` ranges like `/dev/nvidia[0-3]` are kept raw and can be expanded with
//! the small numeric-range helper [`expand_numeric_ranges`].

use serde::{Deserialize, Serialize};

use super::error::{ConfError, ConfErrorKind, ConfErrors, Location};
use super::lexer::{is_blank, leftover_text, line_pair};
use super::reader::{IncludeResolver, LineSink, ParseOptions, Reader};
use super::value::{parse_fields, spec, Fields, KeySpec, Kind};

const RECORD_KEYS: &[KeySpec] = &[
    spec("AutoDetect", Kind::Str),
    spec("Count", Kind::Str),
    spec("CPUs", Kind::Str),
    spec("Cores", Kind::Str),
    spec("File", Kind::Str),
    spec("Files", Kind::Str),
    spec("Flags", Kind::Str),
    spec("Link", Kind::Str),
    spec("Links", Kind::Str),
    spec("MultipleFiles", Kind::Str),
    spec("Name", Kind::Str),
    spec("Type", Kind::Str),
];

/// Most files one range expression may expand to; guards against `[0-4294967295]`.
const MAX_EXPANSION: usize = 1 << 16;
/// Most bytes of names one expression may expand to: the count alone let a long prefix (`<2 KiB>[0-60000]`) make
/// over 100 MiB of names (found by fuzzing). Real lists (`/dev/nvidia[0-15]`, `Cores=[0-255]`) are a few KiB.
const MAX_EXPANSION_BYTES: usize = 4 << 20;

/// Slurm's `GRES_MAX_LINK`: the largest link count it accepts.
const GRES_MAX_LINK: i64 = 1023;

/// A `Flags=` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GresFlag {
    #[serde(rename = "CountOnly")]
    CountOnly,
    #[serde(rename = "nvidia_gpu_env")]
    NvidiaGpuEnv,
    #[serde(rename = "amd_gpu_env")]
    AmdGpuEnv,
    #[serde(rename = "intel_gpu_env")]
    IntelGpuEnv,
    #[serde(rename = "opencl_env")]
    OpenclEnv,
    #[serde(rename = "no_gpu_env")]
    NoGpuEnv,
    #[serde(rename = "one_sharing")]
    OneSharing,
    #[serde(rename = "all_sharing")]
    AllSharing,
}

impl GresFlag {
    const ALL: [Self; 8] = [
        Self::CountOnly,
        Self::NvidiaGpuEnv,
        Self::AmdGpuEnv,
        Self::IntelGpuEnv,
        Self::OpenclEnv,
        Self::NoGpuEnv,
        Self::OneSharing,
        Self::AllSharing,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::CountOnly => "CountOnly",
            Self::NvidiaGpuEnv => "nvidia_gpu_env",
            Self::AmdGpuEnv => "amd_gpu_env",
            Self::IntelGpuEnv => "intel_gpu_env",
            Self::OpenclEnv => "opencl_env",
            Self::NoGpuEnv => "no_gpu_env",
            Self::OneSharing => "one_sharing",
            Self::AllSharing => "all_sharing",
        }
    }

    /// Case-insensitive, as Slurm matches flags.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(s))
    }

    fn is_env(self) -> bool {
        matches!(
            self,
            Self::NvidiaGpuEnv | Self::AmdGpuEnv | Self::IntelGpuEnv | Self::OpenclEnv
        )
    }
}

/// One resource line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GresRecord {
    /// The `NodeName=` hostlist expression as written; `None` for lines that apply to every node.
    pub nodes: Option<String>,
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// `Count=` with its K/M/G/T/P multiplier applied, else the number of files, else 1.
    pub count: u64,
    /// `File=` (or `Files=`) as written.
    pub file: Option<String>,
    /// `MultipleFiles=` as written (one resource backed by several device files, e.g. a MIG slice).
    pub multiple_files: Option<String>,
    /// `Cores=` (or the old `CPUs=`) as written, e.g. `0-3,8`.
    pub cores: Option<String>,
    /// `Links=` as numbers; empty when absent or rejected.
    pub links: Vec<i32>,
    pub flags: Vec<GresFlag>,
    /// `AutoDetect=` given on this line.
    pub autodetect: Option<String>,
    pub location: Location,
}

impl GresRecord {
    /// The device files, expanded (`/dev/nvidia[0-1]` gives two paths).
    pub fn files(&self) -> Result<Vec<String>, String> {
        match self.file.as_deref().or(self.multiple_files.as_deref()) {
            Some(f) => expand_numeric_ranges(f),
            None => Ok(Vec::new()),
        }
    }

    /// `Cores=` as core indices.
    pub fn core_list(&self) -> Result<Vec<u32>, String> {
        let Some(cores) = &self.cores else {
            return Ok(Vec::new());
        };
        expand_numeric_ranges(&format!("[{cores}]"))?
            .iter()
            .map(|c| c.parse::<u32>().map_err(|e| format!("{c}: {e}")))
            .collect()
    }
}

/// A node-local `AutoDetect=` from a `NodeName=` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GresNodeAutoDetect {
    pub nodes: String,
    pub value: String,
    pub location: Location,
}

/// What applies to one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeGres<'a> {
    /// The node's own `AutoDetect=` if a line set one, else the global one.
    pub autodetect: Option<&'a str>,
    pub records: Vec<&'a GresRecord>,
}

/// A parsed `gres.conf`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GresConf {
    /// The global `AutoDetect=` (last one wins).
    pub autodetect: Option<String>,
    pub node_autodetect: Vec<GresNodeAutoDetect>,
    pub records: Vec<GresRecord>,
    /// Problems Slurm logs but survives.
    pub warnings: Vec<ConfError>,
}

impl GresConf {
    pub fn parse(
        text: &str,
        file: &str,
        resolver: &mut IncludeResolver<'_>,
    ) -> Result<Self, ConfErrors> {
        Self::parse_with(text, file, resolver, &ParseOptions::default())
    }

    pub fn parse_str(text: &str, file: &str) -> Result<Self, ConfErrors> {
        Self::parse(text, file, &mut super::reader::no_includes)
    }

    pub fn parse_with(
        text: &str,
        file: &str,
        resolver: &mut IncludeResolver<'_>,
        options: &ParseOptions,
    ) -> Result<Self, ConfErrors> {
        let mut sink = GresSink {
            conf: GresConf::default(),
            lenient: options.ignore_unknown_keys,
        };
        let mut reader = Reader::new(resolver, options);
        reader.read(file, text, &mut sink);
        if reader.errors.is_empty() {
            Ok(sink.conf)
        } else {
            Err(ConfErrors {
                errors: reader.errors,
                warnings: sink.conf.warnings,
            })
        }
    }

    /// The records and `AutoDetect` that apply to `node`. `in_nodes(expression, node)` says whether a
    /// `NodeName=` hostlist expression contains the node.
    pub fn for_node<'a>(
        &'a self,
        node: &str,
        in_nodes: &dyn Fn(&str, &str) -> bool,
    ) -> NodeGres<'a> {
        let autodetect = self
            .node_autodetect
            .iter()
            .find(|a| in_nodes(&a.nodes, node))
            .map(|a| a.value.as_str())
            .or(self.autodetect.as_deref());
        let records = self
            .records
            .iter()
            .filter(|r| r.nodes.as_deref().is_none_or(|expr| in_nodes(expr, node)))
            .collect();
        NodeGres {
            autodetect,
            records,
        }
    }
}

struct GresSink {
    conf: GresConf,
    lenient: bool,
}

impl LineSink for GresSink {
    fn line(&mut self, at: &Location, text: &str, errors: &mut Vec<ConfError>) {
        let Some((pair, rest)) = line_pair(at, text, errors) else {
            return;
        };
        let is = |k: &str| pair.key.eq_ignore_ascii_case(k);
        if is("Name") || is("NodeName") {
            let fields = parse_fields(RECORD_KEYS, rest, at, self.lenient, errors);
            let (nodes, name) = if is("Name") {
                (None, Some(pair.value.as_str()))
            } else {
                (Some(pair.value.as_str()), None)
            };
            self.record(nodes, name, &fields, rest, at, errors);
            return;
        }
        if is("AutoDetect") {
            if self.conf.autodetect.replace(pair.value.clone()).is_some() {
                self.conf.warnings.push(ConfError::at(
                    at,
                    ConfErrorKind::Duplicate {
                        key: "AutoDetect".into(),
                    },
                ));
            }
        } else if !self.lenient {
            errors.push(ConfError::at(
                at,
                ConfErrorKind::UnrecognizedKey {
                    key: pair.key.clone(),
                },
            ));
        }
        if !is_blank(rest) {
            errors.push(ConfError::at(
                at,
                ConfErrorKind::Parse {
                    leftover: leftover_text(rest),
                },
            ));
        }
    }
}

impl GresSink {
    fn record(
        &mut self,
        nodes: Option<&str>,
        line_name: Option<&str>,
        f: &Fields,
        rest: &str,
        at: &Location,
        errors: &mut Vec<ConfError>,
    ) {
        let autodetect = f.str("AutoDetect").map(str::to_string);
        match (nodes, &autodetect) {
            (Some(nodes), Some(value)) => self.conf.node_autodetect.push(GresNodeAutoDetect {
                nodes: nodes.to_string(),
                value: value.clone(),
                location: at.clone(),
            }),
            (None, Some(_)) => self.warn(
                at,
                "gres.conf: In-line AutoDetect requires NodeName to take effect",
            ),
            _ => {}
        }
        let Some(name) = line_name.or_else(|| f.str("Name")).map(str::to_string) else {
            if autodetect.is_none() {
                let msg = format!(
                    "Invalid GRES data, no type name ({})",
                    leftover_text(rest).trim_start()
                );
                errors.push(ConfError::at(at, ConfErrorKind::Other(msg)));
            }
            return;
        };
        let mut fail = |msg: String| errors.push(ConfError::at(at, ConfErrorKind::Other(msg)));
        let file = f.str("File").or_else(|| f.str("Files")).map(str::to_string);
        let multiple_files = f.str("MultipleFiles").map(str::to_string);
        if file.is_some() && multiple_files.is_some() {
            fail("File and MultipleFiles options are mutually exclusive".into());
            return;
        }
        let file_count = match count_files(file.as_deref(), multiple_files.as_deref()) {
            Ok(n) => n,
            Err(e) => return fail(e),
        };
        if multiple_files.is_some() && file_count < 2 {
            return fail("MultipleFiles does not contain multiple files. Use File instead".into());
        }
        // Several files behind MultipleFiles are still one resource.
        let units = if multiple_files.is_some() {
            Some(1)
        } else {
            file.as_ref().map(|_| file_count)
        };
        let count = match f.str("Count") {
            None => units.unwrap_or(1),
            Some(c) => match parse_count(c) {
                Some(n) => n,
                None => return fail(format!("Invalid GRES record for {name}, invalid count {c}")),
            },
        };
        let shared = name.eq_ignore_ascii_case("mps") || name.eq_ignore_ascii_case("shard");
        if units.is_some_and(|u| u != count) && !shared {
            return fail(format!(
                "Invalid GRES record for {name}, count does not match File value"
            ));
        }
        let type_name = f.str("Type").map(str::to_string);
        let Some(flags) = self.flags(f.str("Flags"), &name, type_name.as_deref(), &mut fail) else {
            return;
        };
        let links = f
            .str("Links")
            .or_else(|| f.str("Link"))
            .map_or_else(Vec::new, |l| self.links(l, &name, at));
        self.conf.records.push(GresRecord {
            nodes: nodes.map(str::to_string),
            name,
            type_name,
            count,
            file,
            multiple_files,
            cores: f.str("Cores").or_else(|| f.str("CPUs")).map(str::to_string),
            links,
            flags,
            autodetect,
            location: at.clone(),
        });
    }

    fn flags(
        &self,
        value: Option<&str>,
        name: &str,
        type_name: Option<&str>,
        fail: &mut dyn FnMut(String),
    ) -> Option<Vec<GresFlag>> {
        let Some(value) = value else {
            return Some(Vec::new());
        };
        let mut flags = Vec::new();
        for word in value.split(',').filter(|w| !w.is_empty()) {
            match GresFlag::parse(word) {
                Some(flag) => flags.push(flag),
                None => {
                    fail(format!("Invalid GRES data for {name}, Flags={value}"));
                    return None;
                }
            }
        }
        if flags.contains(&GresFlag::NoGpuEnv) && flags.iter().any(|f| f.is_env()) {
            fail(format!(
                "Invalid GRES record name={name} type={}: Flags ({value}) contains \"no_gpu_env\", which must be mutually exclusive to all other GRES env flags of same node and name",
                type_name.unwrap_or("(null)")
            ));
            return None;
        }
        Some(flags)
    }

    /// Slurm drops a `Links=` list it cannot read and only warns.
    fn links(&mut self, value: &str, name: &str, at: &Location) -> Vec<i32> {
        let parsed: Option<Vec<i32>> = value
            .split(',')
            .map(|t| {
                t.trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|n| (-1..=GRES_MAX_LINK).contains(n))
                    .and_then(|n| i32::try_from(n).ok())
            })
            .collect();
        parsed.unwrap_or_else(|| {
            self.warn(
                at,
                &format!("gres.conf: Ignoring invalid Links={value} for Name={name}"),
            );
            Vec::new()
        })
    }

    fn warn(&mut self, at: &Location, msg: &str) {
        self.conf
            .warnings
            .push(ConfError::at(at, ConfErrorKind::Other(msg.to_string())));
    }
}

fn count_files(file: Option<&str>, multiple: Option<&str>) -> Result<u64, String> {
    match file.or(multiple) {
        None => Ok(0),
        Some(f) => expand_numeric_ranges(f)
            .map(|v| v.len() as u64)
            .map_err(|e| format!("can't parse File={f}: {e}")),
    }
}

/// `Count=`: decimal digits with an optional K, M, G, T or P multiplier (powers of 1024).
fn parse_count(s: &str) -> Option<u64> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = s[..digits].parse().ok()?;
    let shift = match s[digits..].chars().next() {
        None => 0,
        Some(c) => 10 * (1 + "KMGTP".find(c.to_ascii_uppercase())?) as u32,
    };
    n.checked_mul(1u64.checked_shl(shift)?)
}

/// Expands numeric ranges in a comma-separated list: `/dev/nvidia[0-1,3]` gives `/dev/nvidia0`,
/// `/dev/nvidia1`, `/dev/nvidia3`; several bracket groups multiply out; zero-padded bounds keep their width.
/// This is deliberately small: full hostlist syntax lives in `crate::grammar::hostlist`.
pub fn expand_numeric_ranges(expr: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut budget = MAX_EXPANSION_BYTES;
    for item in split_top_level(expr)? {
        expand_item(item, &mut out, &mut budget)?;
    }
    Ok(out)
}

/// Splits on commas outside brackets.
fn split_top_level(expr: &str) -> Result<Vec<&str>, String> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in expr.char_indices() {
        match c {
            '[' if depth == 0 => depth = 1,
            '[' => return Err(format!("nested '[' in {expr}")),
            ']' if depth == 1 => depth = 0,
            ']' => return Err(format!("unbalanced ']' in {expr}")),
            ',' if depth == 0 => {
                items.push(&expr[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced '[' in {expr}"));
    }
    items.push(&expr[start..]);
    Ok(items.into_iter().filter(|s| !s.is_empty()).collect())
}

/// Appends `item`'s names to `out`, taking their bytes from `budget` (shared by the whole expression).
fn expand_item(item: &str, out: &mut Vec<String>, budget: &mut usize) -> Result<(), String> {
    let Some(open) = item.find('[') else {
        take(budget, item.len(), item)?;
        out.push(item.to_string());
        return Ok(());
    };
    let close = item[open..]
        .find(']')
        .map(|c| open + c)
        .ok_or_else(|| format!("unbalanced '[' in {item}"))?;
    let (prefix, body, suffix) = (&item[..open], &item[open + 1..close], &item[close + 1..]);
    let mut tails = Vec::new();
    expand_item(suffix, &mut tails, budget)?;
    for number in expand_body(body)? {
        for tail in &tails {
            if out.len() >= MAX_EXPANSION {
                return Err(format!("{item} expands to more than {MAX_EXPANSION} names"));
            }
            take(budget, prefix.len() + number.len() + tail.len(), item)?;
            out.push(format!("{prefix}{number}{tail}"));
        }
    }
    Ok(())
}

fn take(budget: &mut usize, bytes: usize, item: &str) -> Result<(), String> {
    *budget = budget.checked_sub(bytes).ok_or_else(|| {
        format!("{item} expands to more than {MAX_EXPANSION_BYTES} bytes of names")
    })?;
    Ok(())
}

/// `0-3,7` inside brackets.
fn expand_body(body: &str) -> Result<Vec<String>, String> {
    let mut numbers = Vec::new();
    for part in body.split(',') {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let parse = |s: &str| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("bad range '{part}'"));
            }
            s.parse::<u64>()
                .map_err(|e| format!("bad range '{part}': {e}"))
        };
        let (a, b) = (parse(lo)?, parse(hi)?);
        if b < a
            || b - a >= MAX_EXPANSION as u64
            || numbers.len() + ((b - a) as usize) >= MAX_EXPANSION
        {
            return Err(format!("bad range '{part}'"));
        }
        let width = lo.len();
        numbers.extend((a..=b).map(|n| format!("{n:0width$}")));
    }
    Ok(numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_ranges() {
        assert_eq!(
            expand_numeric_ranges("/dev/nvidia[0-2]").unwrap(),
            ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2"]
        );
        assert_eq!(
            expand_numeric_ranges("/dev/nvidia[0,2-3]").unwrap().len(),
            3
        );
        assert_eq!(
            expand_numeric_ranges("a[08-10]").unwrap(),
            ["a08", "a09", "a10"]
        );
        assert_eq!(
            expand_numeric_ranges("/dev/a,/dev/b").unwrap(),
            ["/dev/a", "/dev/b"]
        );
        assert_eq!(
            expand_numeric_ranges("r[1-2]c[1-2]").unwrap(),
            ["r1c1", "r1c2", "r2c1", "r2c2"]
        );
        assert!(expand_numeric_ranges("x[3-1]").is_err());
        assert!(expand_numeric_ranges("x[1-").is_err());
        assert!(expand_numeric_ranges("x[0-99999999]").is_err());
    }

    /// Found by fuzzing: the count of names was bounded but not their bytes, so a long prefix before a range
    /// (`File=<4 KiB>[0-60000]`) expanded to 240 MiB. The bytes are now bounded as well.
    #[test]
    fn a_long_prefix_does_not_multiply_into_megabytes() {
        let expr = format!("/dev/{}[0-60000]", "x".repeat(4096));
        let e = expand_numeric_ranges(&expr).expect_err("bounded");
        assert!(e.contains("bytes of names"), "{e}");
        // Real lists are far below the bound.
        assert_eq!(
            expand_numeric_ranges("/dev/nvidia[0-60000]").unwrap().len(),
            60001
        );
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("10"), Some(10));
        assert_eq!(parse_count("4G"), Some(4 << 30));
        assert_eq!(parse_count("2k"), Some(2048));
        assert_eq!(parse_count("abc"), None);
        assert_eq!(parse_count("3X"), None);
    }
}
