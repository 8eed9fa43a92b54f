//! Targets: a real Slurm cluster or a Spur cluster, brought up and down by `targets/<name>/up.sh` and `down.sh`,
//! which print `export NAME=value` lines; and the facts the normaliser needs from a running target (its run
//! directory, node name, daemon ports).

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;

use thiserror::Error;

/// Both targets get this `FirstJobId`, so job ids are four-digit numbers that seldom equal another number in an
/// output (ids from 1 would collide with every `NumNodes=1`).
pub const FIRST_JOB_ID: u32 = 5001;

#[derive(Debug, Error)]
pub enum TargetError {
    #[error("unknown target '{0}' (expected slurm or spur)")]
    UnknownTarget(String),
    #[error("cannot run {script}: {source}")]
    Spawn {
        script: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{script} failed ({status}); its messages are above")]
    Failed { script: PathBuf, status: String },
    #[error("cannot parse the output of {script}: line {line:?}")]
    BadExport { script: PathBuf, line: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    Slurm,
    Spur,
}

impl TargetKind {
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Slurm => "slurm",
            TargetKind::Spur => "spur",
        }
    }

    /// The run directory `both` uses for this target unless told otherwise.
    pub fn default_rundir(self) -> PathBuf {
        PathBuf::from(format!("/tmp/spur-conf-{}", self.name()))
    }

    /// The run directory `both` and `against` use for a run writing to `out`: inside it, so two runs with
    /// different output directories never share (and never tear down) each other's clusters.
    pub fn rundir_for(self, out: &Path) -> PathBuf {
        out.join(format!("cluster-{}", self.name()))
    }
}

impl fmt::Display for TargetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TargetKind {
    type Err = TargetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "slurm" => Ok(TargetKind::Slurm),
            "spur" => Ok(TargetKind::Spur),
            other => Err(TargetError::UnknownTarget(other.to_string())),
        }
    }
}

/// Variables a target's `up.sh` exported (`RUNDIR`, `SLURM_CONF`, `PATH`, ...).
pub type Exports = Vec<(String, String)>;

/// Parses `export NAME=VALUE` lines as bash's `printf %q` writes them (plain words, backslash escapes, single or
/// double quotes). Other non-empty lines are errors, so a script that prints junk on stdout is caught.
pub fn parse_exports(text: &str) -> Result<Exports, String> {
    let mut out = Vec::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        if line.starts_with("unset ") {
            continue;
        }
        let rest = line
            .strip_prefix("export ")
            .ok_or_else(|| line.to_string())?;
        let (name, value) = rest.split_once('=').ok_or_else(|| line.to_string())?;
        let valid_name = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid_name {
            return Err(line.to_string());
        }
        out.push((
            name.to_string(),
            shell_unquote(value).ok_or_else(|| line.to_string())?,
        ));
    }
    Ok(out)
}

/// Undoes one word of shell quoting; `None` for what it does not understand (`$'...'`, unbalanced quotes).
fn shell_unquote(word: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    ch => out.push(ch),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => out.push(chars.next()?),
                    '$' | '`' => return None,
                    ch => out.push(ch),
                }
            },
            '$' | '`' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// A `KEY=value` setting of a slurm.conf (first match, keys compared without case), ignoring comments.
pub fn conf_value(conf: &str, key: &str) -> Option<String> {
    for line in conf.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        for word in line.split_whitespace() {
            if let Some((k, v)) = word.split_once('=') {
                if k.eq_ignore_ascii_case(key) {
                    return Some(v.to_string());
                }
            }
        }
    }
    None
}

/// Facts about a running target, read from its environment and its slurm.conf.
#[derive(Debug, Clone, Default)]
pub struct TargetFacts {
    pub run_dir: String,
    pub host: String,
    pub ctld_port: Option<String>,
    pub slurmd_port: Option<String>,
    /// The address in `SlurmctldHost=host(ADDR)`.
    pub ctld_addr: Option<String>,
}

impl TargetFacts {
    /// `env` is what the cases will see; `RUNDIR` and `SLURM_CONF` come from there.
    pub fn gather(env: &[(String, String)]) -> TargetFacts {
        let get = |k: &str| {
            env.iter()
                .rev()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
        };
        let conf = get("SLURM_CONF")
            .and_then(|p| fs::read_to_string(p).ok())
            .unwrap_or_default();
        TargetFacts {
            run_dir: get("RUNDIR").unwrap_or_default(),
            host: short_hostname(),
            ctld_port: conf_value(&conf, "SlurmctldPort"),
            slurmd_port: conf_value(&conf, "SlurmdPort"),
            ctld_addr: conf_value(&conf, "SlurmctldHost").and_then(|h| {
                let (_, rest) = h.split_once('(')?;
                rest.strip_suffix(')').map(str::to_string)
            }),
        }
    }
}

/// The node name both targets use: `hostname -s`.
pub fn short_hostname() -> String {
    nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .map(|h| h.split('.').next().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// Runs `targets/<kind>/up.sh [--nodes N] RUNDIR` (its messages go to our stderr) and returns what it exported.
/// `SLURM_CONF_EXTRA` gives both targets the same `FirstJobId`, then `extra_conf` (more slurm.conf lines; a key
/// given twice takes the later value, as in Slurm). Without `nodes` the target is the single-node one, whatever
/// `SPUR_CONF_NODES` says in our environment.
pub fn up(
    targets_dir: &Path,
    kind: TargetKind,
    rundir: &Path,
    nodes: Option<u32>,
    extra_conf: &str,
) -> Result<Exports, TargetError> {
    let script = targets_dir.join(kind.name()).join("up.sh");
    let mut cmd = Command::new("bash");
    cmd.arg(&script);
    match nodes {
        Some(n) => cmd.arg(format!("--nodes={n}")),
        None => cmd.env_remove("SPUR_CONF_NODES"),
    };
    cmd.arg(rundir)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    let mut extra =
        std::env::var("SLURM_CONF_EXTRA").unwrap_or_else(|_| format!("FirstJobId={FIRST_JOB_ID}"));
    if !extra_conf.is_empty() {
        extra = format!("{extra}\n{extra_conf}");
    }
    cmd.env("SLURM_CONF_EXTRA", extra);
    let out = cmd.output().map_err(|source| TargetError::Spawn {
        script: script.clone(),
        source,
    })?;
    if !out.status.success() {
        return Err(TargetError::Failed {
            script,
            status: out.status.to_string(),
        });
    }
    parse_exports(&String::from_utf8_lossy(&out.stdout))
        .map_err(|line| TargetError::BadExport { script, line })
}

/// Runs `targets/<kind>/down.sh RUNDIR`.
pub fn down(targets_dir: &Path, kind: TargetKind, rundir: &Path) -> Result<(), TargetError> {
    let script = targets_dir.join(kind.name()).join("down.sh");
    let status = Command::new("bash")
        .arg(&script)
        .arg(rundir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .map_err(|source| TargetError::Spawn {
            script: script.clone(),
            source,
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(TargetError::Failed {
            script,
            status: status.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_exports_as_printf_q_writes_them() {
        let text = "export RUNDIR=/tmp/spur-slurm\nexport SLURM_CONF=/tmp/a\\ b/slurm.conf\n\
                    export PATH='/x y':/usr/bin\nunset FOO\n\nexport Q=\"a\\\"b\"\n";
        let e = parse_exports(text).unwrap();
        assert_eq!(
            e,
            vec![
                ("RUNDIR".into(), "/tmp/spur-slurm".into()),
                ("SLURM_CONF".into(), "/tmp/a b/slurm.conf".into()),
                ("PATH".into(), "/x y:/usr/bin".into()),
                ("Q".into(), "a\"b".into()),
            ]
        );
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        assert!(parse_exports("hello\n").is_err());
        assert!(parse_exports("export 1X=a\n").is_err());
        assert!(parse_exports("export X=$'a\\n'\n").is_err());
        assert!(parse_exports("export X='open\n").is_err());
    }

    #[test]
    fn conf_values_ignore_case_and_comments() {
        let conf = "# SlurmctldPort=1\nslurmctldport=6870\nNodeName=vm Port=1 SlurmdPort=9 # x\nSlurmdPort=6871\n";
        assert_eq!(conf_value(conf, "SlurmctldPort").as_deref(), Some("6870"));
        assert_eq!(conf_value(conf, "SlurmdPort").as_deref(), Some("9"));
        assert_eq!(conf_value(conf, "Missing"), None);
    }

    #[test]
    fn target_names() {
        assert_eq!("slurm".parse::<TargetKind>().unwrap(), TargetKind::Slurm);
        assert_eq!("spur".parse::<TargetKind>().unwrap().to_string(), "spur");
        assert!("lsf".parse::<TargetKind>().is_err());
        assert_eq!(
            TargetKind::Spur.default_rundir(),
            PathBuf::from("/tmp/spur-conf-spur")
        );
    }

    #[test]
    fn facts_from_env_and_conf() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("slurm.conf");
        fs::write(
            &conf,
            "SlurmctldHost=vm(10.213.5.1)\nSlurmctldPort=7001\nSlurmdPort=7002\n",
        )
        .unwrap();
        let env = vec![
            ("RUNDIR".to_string(), "/tmp/r".to_string()),
            (
                "SLURM_CONF".to_string(),
                conf.to_string_lossy().into_owned(),
            ),
        ];
        let f = TargetFacts::gather(&env);
        assert_eq!(f.run_dir, "/tmp/r");
        assert_eq!(f.ctld_port.as_deref(), Some("7001"));
        assert_eq!(f.slurmd_port.as_deref(), Some("7002"));
        assert_eq!(f.ctld_addr.as_deref(), Some("10.213.5.1"));
        assert!(!f.host.contains('.'));
    }
}
