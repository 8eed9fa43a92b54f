//! Conformance cases: directories `NNN-name/` holding a `run.sh` and an optional `case.toml`, found under a cases
//! directory and selected by name, by tag or by what the target provides.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;
use thiserror::Error;

/// Seconds a case may run when its `case.toml` does not say.
pub const DEFAULT_TIMEOUT_S: u64 = 60;

#[derive(Debug, Error)]
pub enum CaseError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Toml {
        path: PathBuf,
        #[source]
        source: toml::de::Error,
    },
    #[error("{path}: bad regex in [[replace]]: {source}")]
    Regex {
        path: PathBuf,
        #[source]
        source: regex::Error,
    },
    #[error("{0}: no run.sh")]
    NoRunScript(PathBuf),
    #[error("{path}: timeout must be at least 1 second")]
    ZeroTimeout { path: PathBuf },
}

/// How the normalised transcripts of a case are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompareMode {
    /// Byte for byte.
    #[default]
    Exact,
    /// Runs of blanks count as one and trailing blanks are dropped, for tables whose column widths follow values
    /// that normalisation replaced (ids, paths).
    Whitespace,
}

/// Something a case needs from the target beyond a single node with fake GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Need {
    Gpu,
    Multinode,
    /// Jobs confined by cgroups (`TaskPlugin=task/cgroup` with conf/cgroup.conf's `Constrain*`): a run with
    /// `both --cgroup`.
    Cgroup,
    /// `PriorityType=priority/multifactor` with weights and a second partition (`high`): a run with
    /// `both --priority`.
    Priority,
    /// `PrivateData=jobs` and the partitions `grp` (`AllowGroups=spurcaseacc`) and `rooto` (`RootOnly=YES`): a run
    /// with `both --access`.
    Access,
    /// `TopologyPlugin=topology/tree` with conf/topology.conf: a run with `both --topology`.
    Topology,
    /// `Prolog=` conf/prolog.sh with `PrologFlags=Alloc,Contain`: a run with `both --prolog`.
    Prolog,
    /// `AccountingStorageType=accounting_storage/slurmdbd` (Slurm with slurmdbd and MariaDB, Spur with its own
    /// accounting): a run with `both --accounting`.
    Accounting,
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Need::Gpu => "gpu",
            Need::Multinode => "multinode",
            Need::Cgroup => "cgroup",
            Need::Priority => "priority",
            Need::Access => "access",
            Need::Topology => "topology",
            Need::Prolog => "prolog",
            Need::Accounting => "accounting",
        })
    }
}

/// `needs = "gpu"` and `needs = ["gpu", "multinode"]` both read.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Needs {
    One(Need),
    Many(Vec<Need>),
}

/// A case-specific substitution applied before the built-in normalisation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReplace {
    regex: String,
    with: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    description: Option<String>,
    timeout: Option<u64>,
    #[serde(default)]
    compare: CompareMode,
    known_difference: Option<String>,
    needs: Option<Needs>,
    #[serde(default)]
    ci: bool,
    #[serde(default)]
    parallel: bool,
    #[serde(default)]
    replace: Vec<RawReplace>,
}

/// A compiled `[[replace]]` rule.
#[derive(Debug, Clone)]
pub struct Replacement {
    pub regex: Regex,
    pub with: String,
}

/// What `case.toml` says about a case (defaults when there is none).
#[derive(Debug, Clone)]
pub struct CaseSpec {
    pub description: Option<String>,
    pub timeout_s: u64,
    pub compare: CompareMode,
    /// Why Spur differs on purpose; such a case never fails the suite.
    pub known_difference: Option<String>,
    pub needs: Vec<Need>,
    /// Part of the quick subset `ci.sh` runs.
    pub ci: bool,
    /// Safe to run beside other parallel cases: it only looks at its own jobs and does not care when they start.
    pub parallel: bool,
    pub replace: Vec<Replacement>,
}

impl Default for CaseSpec {
    fn default() -> Self {
        CaseSpec {
            description: None,
            timeout_s: DEFAULT_TIMEOUT_S,
            compare: CompareMode::Exact,
            known_difference: None,
            needs: Vec::new(),
            ci: false,
            parallel: false,
            replace: Vec::new(),
        }
    }
}

impl CaseSpec {
    /// Parses the text of a `case.toml`; `path` only labels errors.
    pub fn parse(text: &str, path: &Path) -> Result<CaseSpec, CaseError> {
        let raw: RawSpec = toml::from_str(text).map_err(|source| CaseError::Toml {
            path: path.to_path_buf(),
            source,
        })?;
        let timeout_s = raw.timeout.unwrap_or(DEFAULT_TIMEOUT_S);
        if timeout_s == 0 {
            return Err(CaseError::ZeroTimeout {
                path: path.to_path_buf(),
            });
        }
        let replace = raw
            .replace
            .into_iter()
            .map(|r| {
                Regex::new(&r.regex)
                    .map(|regex| Replacement {
                        regex,
                        with: r.with,
                    })
                    .map_err(|source| CaseError::Regex {
                        path: path.to_path_buf(),
                        source,
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let needs = match raw.needs {
            None => Vec::new(),
            Some(Needs::One(n)) => vec![n],
            Some(Needs::Many(v)) => v,
        };
        Ok(CaseSpec {
            description: raw.description,
            timeout_s,
            compare: raw.compare,
            known_difference: raw.known_difference.filter(|s| !s.trim().is_empty()),
            needs,
            ci: raw.ci,
            parallel: raw.parallel,
            replace,
        })
    }
}

/// One case directory.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    pub spec: CaseSpec,
}

/// A case directory is named `NNN-something`: three digits keep the order stable and readable.
pub fn is_case_name(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 4 && b[..3].iter().all(u8::is_ascii_digit) && b[3] == b'-'
}

/// Loads one case directory.
pub fn load_case(dir: &Path) -> Result<Case, CaseError> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !dir.join("run.sh").is_file() {
        return Err(CaseError::NoRunScript(dir.to_path_buf()));
    }
    let toml_path = dir.join("case.toml");
    let spec = match fs::read_to_string(&toml_path) {
        Ok(text) => CaseSpec::parse(&text, &toml_path)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => CaseSpec::default(),
        Err(source) => {
            return Err(CaseError::Io {
                path: toml_path,
                source,
            })
        }
    };
    Ok(Case {
        name,
        dir: dir.to_path_buf(),
        spec,
    })
}

/// All cases under `cases_dir`, sorted by name. Entries not named like a case (helpers, READMEs) are skipped.
pub fn load_cases(cases_dir: &Path) -> Result<Vec<Case>, CaseError> {
    let io_err = |source| CaseError::Io {
        path: cases_dir.to_path_buf(),
        source,
    };
    let mut dirs = Vec::new();
    for entry in fs::read_dir(cases_dir).map_err(io_err)? {
        let entry = entry.map_err(io_err)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_case_name(&name) && entry.path().is_dir() {
            dirs.push(entry.path());
        }
    }
    dirs.sort();
    dirs.iter().map(|d| load_case(d)).collect()
}

/// Which cases a run takes.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Comma-separated substrings; a case matching any is taken. Empty takes all.
    pub filter: Option<String>,
    /// Only cases with `ci = true`.
    pub ci_only: bool,
    /// Only cases that need several nodes (a run on a multi-node target: the other cases assume one node named
    /// after the host).
    pub multinode_only: bool,
    /// Only cases that need cgroup confinement (a run on targets started with task/cgroup).
    pub cgroup_only: bool,
    /// Only cases that need priority/multifactor (a run on targets started with it).
    pub priority_only: bool,
    /// Only cases that need partition access rules and `PrivateData=jobs` (a run on targets started with them).
    pub access_only: bool,
    /// Only cases that need `topology/tree` (a run on targets started with it).
    pub topology_only: bool,
    /// Only cases that need the allocation prolog (a run on targets started with it).
    pub prolog_only: bool,
    /// Only cases that need job accounting (a run on targets started with it).
    pub accounting_only: bool,
}

impl Selection {
    pub fn matches(&self, case: &Case) -> bool {
        if self.ci_only && !case.spec.ci {
            return false;
        }
        if self.multinode_only && !case.spec.needs.contains(&Need::Multinode) {
            return false;
        }
        if self.cgroup_only && !case.spec.needs.contains(&Need::Cgroup) {
            return false;
        }
        if self.priority_only && !case.spec.needs.contains(&Need::Priority) {
            return false;
        }
        if self.access_only && !case.spec.needs.contains(&Need::Access) {
            return false;
        }
        if self.topology_only && !case.spec.needs.contains(&Need::Topology) {
            return false;
        }
        if self.prolog_only && !case.spec.needs.contains(&Need::Prolog) {
            return false;
        }
        if self.accounting_only && !case.spec.needs.contains(&Need::Accounting) {
            return false;
        }
        match self.filter.as_deref().map(str::trim) {
            None | Some("") => true,
            Some(f) => f
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .any(|p| case.name == p || case.name.contains(p)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CaseSpec, CaseError> {
        CaseSpec::parse(text, Path::new("case.toml"))
    }

    #[test]
    fn empty_spec_takes_defaults() {
        let s = parse("").unwrap();
        assert_eq!(s.timeout_s, DEFAULT_TIMEOUT_S);
        assert_eq!(s.compare, CompareMode::Exact);
        assert!(s.known_difference.is_none() && s.needs.is_empty() && !s.ci && !s.parallel);
    }

    #[test]
    fn full_spec_parses() {
        let s = parse(
            r#"
description = "squeue default format"
timeout = 90
compare = "whitespace"
known_difference = "Spur refuses it"
needs = ["gpu", "multinode"]
ci = true
parallel = true
[[replace]]
regex = 'pid \d+'
with = "pid {PID}"
"#,
        )
        .unwrap();
        assert_eq!(s.timeout_s, 90);
        assert_eq!(s.compare, CompareMode::Whitespace);
        assert_eq!(s.known_difference.as_deref(), Some("Spur refuses it"));
        assert_eq!(s.needs, vec![Need::Gpu, Need::Multinode]);
        assert!(s.ci && s.parallel);
        assert_eq!(
            s.replace[0].regex.replace_all("pid 42", &s.replace[0].with),
            "pid {PID}"
        );
    }

    #[test]
    fn single_need_reads() {
        assert_eq!(parse("needs = \"gpu\"").unwrap().needs, vec![Need::Gpu]);
    }

    #[test]
    fn bad_specs_are_errors() {
        assert!(matches!(parse("tiemout = 3"), Err(CaseError::Toml { .. })));
        assert!(matches!(
            parse("compare = \"fuzzy\""),
            Err(CaseError::Toml { .. })
        ));
        assert!(matches!(
            parse("timeout = 0"),
            Err(CaseError::ZeroTimeout { .. })
        ));
        assert!(matches!(
            parse("[[replace]]\nregex = '('\nwith = ''"),
            Err(CaseError::Regex { .. })
        ));
    }

    #[test]
    fn blank_known_difference_is_none() {
        assert!(parse("known_difference = \" \"")
            .unwrap()
            .known_difference
            .is_none());
    }

    #[test]
    fn case_names() {
        assert!(is_case_name("001-sbatch"));
        assert!(!is_case_name("lib.sh"));
        assert!(!is_case_name("01-x"));
        assert!(!is_case_name("001-"));
    }

    #[test]
    fn loads_cases_sorted_and_skips_helpers() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["002-b", "001-a"] {
            fs::create_dir(dir.path().join(name)).unwrap();
            fs::write(dir.path().join(name).join("run.sh"), "true\n").unwrap();
        }
        fs::write(dir.path().join("001-a/case.toml"), "ci = true").unwrap();
        fs::write(dir.path().join("lib.sh"), "").unwrap();
        let cases = load_cases(dir.path()).unwrap();
        let names: Vec<_> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["001-a", "002-b"]);
        assert!(cases[0].spec.ci);
    }

    #[test]
    fn case_without_run_script_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("001-a")).unwrap();
        assert!(matches!(
            load_cases(dir.path()),
            Err(CaseError::NoRunScript(_))
        ));
    }

    #[test]
    fn selection_by_filter_and_tag() {
        let mk = |name: &str, ci| Case {
            name: name.into(),
            dir: PathBuf::new(),
            spec: CaseSpec {
                ci,
                ..CaseSpec::default()
            },
        };
        let a = mk("001-sbatch-wrap", true);
        let b = mk("002-squeue-long", false);
        let all = Selection::default();
        assert!(all.matches(&a) && all.matches(&b));
        let f = Selection {
            filter: Some("wrap, 002".into()),
            ci_only: false,
            multinode_only: false,
            cgroup_only: false,
            priority_only: false,
            access_only: false,
            topology_only: false,
            prolog_only: false,
            accounting_only: false,
        };
        assert!(f.matches(&a) && f.matches(&b));
        let f = Selection {
            filter: Some("squeue".into()),
            ci_only: false,
            multinode_only: false,
            cgroup_only: false,
            priority_only: false,
            access_only: false,
            topology_only: false,
            prolog_only: false,
            accounting_only: false,
        };
        assert!(!f.matches(&a) && f.matches(&b));
        let ci = Selection {
            filter: None,
            ci_only: true,
            multinode_only: false,
            cgroup_only: false,
            priority_only: false,
            access_only: false,
            topology_only: false,
            prolog_only: false,
            accounting_only: false,
        };
        assert!(ci.matches(&a) && !ci.matches(&b));
        let mut c = mk("290-sinfo-three-nodes", false);
        c.spec.needs = vec![Need::Multinode];
        let multi = Selection {
            multinode_only: true,
            ..Selection::default()
        };
        assert!(!multi.matches(&a) && !multi.matches(&b) && multi.matches(&c));
        let mut d = mk("350-cgroup-oom", false);
        d.spec.needs = vec![Need::Cgroup];
        let cg = Selection {
            cgroup_only: true,
            ..Selection::default()
        };
        assert!(!cg.matches(&a) && !cg.matches(&c) && cg.matches(&d));
        let mut e = mk("370-sprio-default", false);
        e.spec.needs = vec![Need::Priority];
        let prio = Selection {
            priority_only: true,
            ..Selection::default()
        };
        assert!(!prio.matches(&a) && !prio.matches(&d) && prio.matches(&e));
        assert_eq!(
            parse("needs = \"priority\"").unwrap().needs,
            vec![Need::Priority]
        );
        let mut g = mk("322-partition-access", false);
        g.spec.needs = vec![Need::Access];
        let access = Selection {
            access_only: true,
            ..Selection::default()
        };
        assert!(!access.matches(&a) && !access.matches(&e) && access.matches(&g));
        let mut t = mk("402-scontrol-show-topology", false);
        t.spec.needs = vec![Need::Topology];
        let topo = Selection {
            topology_only: true,
            ..Selection::default()
        };
        assert!(!topo.matches(&a) && !topo.matches(&g) && topo.matches(&t));
        let mut p = mk("405-prolog-alloc-salloc", false);
        p.spec.needs = vec![Need::Prolog];
        let prolog = Selection {
            prolog_only: true,
            ..Selection::default()
        };
        assert!(!prolog.matches(&a) && !prolog.matches(&t) && prolog.matches(&p));
        let mut q = mk("430-sacct-finished", false);
        q.spec.needs = vec![Need::Accounting];
        let accounting = Selection {
            accounting_only: true,
            ..Selection::default()
        };
        assert!(!accounting.matches(&a) && !accounting.matches(&p) && accounting.matches(&q));
        assert_eq!(
            parse("needs = \"access\"").unwrap().needs,
            vec![Need::Access]
        );
    }
}
