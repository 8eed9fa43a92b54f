//! `cgroup.conf` as Slurm 22.05 reads it: the file beside `slurm.conf` that says which resources the task/cgroup
//! plugin confines. Only the keys that decide Spur's confinement are typed; the other keys Slurm 22.05 knows are
//! accepted and ignored, and an unknown key is an error, as in Slurm.
//!
//! Defaults are Slurm's: nothing is constrained unless the file says so, `AllowedRAMSpace=100`,
//! `AllowedSwapSpace=0`, `MaxRAMPercent=100`, `MaxSwapPercent=100`, `MinRAMSpace=30` (MB).

use serde::{Deserialize, Serialize};

use super::error::{ConfError, ConfErrorKind, ConfErrors, Location};
use super::lexer::{is_blank, leftover_text, next_pair};
use super::reader::{IncludeResolver, LineSink, ParseOptions, Reader};
use super::value::parse_bool;

/// Keys Slurm 22.05 accepts in cgroup.conf that Spur neither acts on nor reports.
const IGNORED_KEYS: &[&str] = &["AllowedDevicesFile", "TaskAffinity", "CgroupPluginParams"];

/// The keys Spur does not act on but reports as given, for libspur_compat's `slurm_cgroup_conf` (what
/// `pam_slurm_adopt` reads); `None` when the file does not give the key (the reader applies Slurm's default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CgroupConfOther {
    pub mountpoint: Option<String>,
    pub plugin: Option<String>,
    /// `CgroupReleaseAgentDir` was given (Slurm 22.05 refuses to start with it).
    pub release_agent_dir: bool,
    pub constrain_kmem_space: bool,
    pub allowed_kmem_space: Option<f64>,
    pub max_kmem_percent: Option<f64>,
    pub min_kmem_space_mb: Option<u64>,
    pub memory_swappiness: Option<u64>,
    pub ignore_systemd: bool,
    pub ignore_systemd_on_failure: Option<bool>,
}

/// The settings of `cgroup.conf` that decide what a job is confined to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CgroupConf {
    pub automount: bool,
    pub constrain_cores: bool,
    pub constrain_ram_space: bool,
    pub constrain_swap_space: bool,
    pub constrain_devices: bool,
    /// Percent of the job's memory its cgroup may use.
    pub allowed_ram_space: f64,
    /// Percent of the job's memory it may use in swap on top of its RAM limit.
    pub allowed_swap_space: f64,
    /// Cap on any job's RAM limit, in percent of the node's memory.
    pub max_ram_percent: f64,
    /// Cap on any job's RAM+swap limit, in percent of the node's memory.
    pub max_swap_percent: f64,
    /// Floor of any job's RAM limit, in MB.
    pub min_ram_space_mb: u64,
    #[serde(default)]
    pub other: CgroupConfOther,
}

impl Default for CgroupConf {
    fn default() -> Self {
        Self {
            automount: false,
            constrain_cores: false,
            constrain_ram_space: false,
            constrain_swap_space: false,
            constrain_devices: false,
            allowed_ram_space: 100.0,
            allowed_swap_space: 0.0,
            max_ram_percent: 100.0,
            max_swap_percent: 100.0,
            min_ram_space_mb: 30,
            other: CgroupConfOther::default(),
        }
    }
}

impl CgroupConf {
    /// Whether any resource is confined at all.
    pub fn constrains_anything(&self) -> bool {
        self.constrain_cores
            || self.constrain_ram_space
            || self.constrain_swap_space
            || self.constrain_devices
    }

    pub fn parse_str(text: &str, file: &str) -> Result<Self, ConfErrors> {
        Self::parse_with(
            text,
            file,
            &mut super::reader::no_includes,
            &ParseOptions::default(),
        )
    }

    pub fn parse_with(
        text: &str,
        file: &str,
        resolver: &mut IncludeResolver<'_>,
        options: &ParseOptions,
    ) -> Result<Self, ConfErrors> {
        let mut sink = CgroupSink {
            conf: CgroupConf::default(),
            lenient: options.ignore_unknown_keys,
        };
        let mut reader = Reader::new(resolver, options);
        reader.read(file, text, &mut sink);
        if reader.errors.is_empty() {
            Ok(sink.conf)
        } else {
            Err(ConfErrors {
                errors: reader.errors,
                warnings: Vec::new(),
            })
        }
    }
}

struct CgroupSink {
    conf: CgroupConf,
    lenient: bool,
}

impl LineSink for CgroupSink {
    fn line(&mut self, at: &Location, text: &str, errors: &mut Vec<ConfError>) {
        let mut rest = text;
        while let Some((pair, after)) = next_pair(rest) {
            if let Err(kind) = self.set(&pair.key, &pair.value) {
                errors.push(ConfError::at(at, kind));
            }
            rest = after;
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

impl CgroupSink {
    fn set(&mut self, key: &str, value: &str) -> Result<(), ConfErrorKind> {
        let is = |k: &str| key.eq_ignore_ascii_case(k);
        let c = &mut self.conf;
        if is("CgroupAutomount") {
            c.automount = parse_bool(key, value)?;
        } else if is("ConstrainCores") {
            c.constrain_cores = parse_bool(key, value)?;
        } else if is("ConstrainRAMSpace") {
            c.constrain_ram_space = parse_bool(key, value)?;
        } else if is("ConstrainSwapSpace") {
            c.constrain_swap_space = parse_bool(key, value)?;
        } else if is("ConstrainDevices") {
            c.constrain_devices = parse_bool(key, value)?;
        } else if is("AllowedRAMSpace") {
            c.allowed_ram_space = percent(key, value)?;
        } else if is("AllowedSwapSpace") {
            c.allowed_swap_space = percent(key, value)?;
        } else if is("MaxRAMPercent") {
            c.max_ram_percent = percent(key, value)?;
        } else if is("MaxSwapPercent") {
            c.max_swap_percent = percent(key, value)?;
        } else if is("MinRAMSpace") {
            c.min_ram_space_mb = super::value::parse_u64(key, value)?;
        } else if is("CgroupMountpoint") {
            c.other.mountpoint = Some(value.to_string());
        } else if is("CgroupPlugin") {
            c.other.plugin = Some(value.to_string());
        } else if is("CgroupReleaseAgentDir") {
            c.other.release_agent_dir = true;
        } else if is("ConstrainKmemSpace") {
            c.other.constrain_kmem_space = parse_bool(key, value)?;
        } else if is("AllowedKmemSpace") {
            c.other.allowed_kmem_space = Some(percent(key, value)?);
        } else if is("MaxKmemPercent") {
            c.other.max_kmem_percent = Some(percent(key, value)?);
        } else if is("MinKmemSpace") {
            c.other.min_kmem_space_mb = Some(super::value::parse_u64(key, value)?);
        } else if is("MemorySwappiness") {
            c.other.memory_swappiness = Some(super::value::parse_u64(key, value)?);
        } else if is("IgnoreSystemd") {
            c.other.ignore_systemd = parse_bool(key, value)?;
        } else if is("IgnoreSystemdOnFailure") {
            c.other.ignore_systemd_on_failure = Some(parse_bool(key, value)?);
        } else if !self.lenient && !IGNORED_KEYS.iter().any(|k| is(k)) {
            return Err(ConfErrorKind::UnrecognizedKey {
                key: key.to_string(),
            });
        }
        Ok(())
    }
}

/// A non-negative decimal number (Slurm reads these keys with `strtof`).
fn percent(key: &str, value: &str) -> Result<f64, ConfErrorKind> {
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(ConfErrorKind::BadValue {
            key: key.to_string(),
            value: value.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_constrain_nothing() {
        let c = CgroupConf::parse_str("CgroupPlugin=autodetect\nIgnoreSystemd=yes\n", "c").unwrap();
        assert_eq!(
            c,
            CgroupConf {
                other: CgroupConfOther {
                    plugin: Some("autodetect".into()),
                    ignore_systemd: true,
                    ..CgroupConfOther::default()
                },
                ..CgroupConf::default()
            }
        );
        assert!(!c.constrains_anything());
        let c = CgroupConf::parse_str(
            "CgroupMountpoint=/cg/ MinKmemSpace=5 MemorySwappiness=7 AllowedKmemSpace=2.5\n",
            "c",
        )
        .unwrap();
        assert_eq!(c.other.mountpoint.as_deref(), Some("/cg/"));
        assert_eq!(c.other.min_kmem_space_mb, Some(5));
        assert_eq!(c.other.memory_swappiness, Some(7));
        assert_eq!(c.other.allowed_kmem_space, Some(2.5));
    }

    #[test]
    fn typed_keys_any_case_several_per_line() {
        let c = CgroupConf::parse_str(
            "constraincores=yes ConstrainRAMSpace=YES\nConstrainSwapSpace=no ConstrainDevices=1\n\
             AllowedRAMSpace=95.5 AllowedSwapSpace=10\nMaxRAMPercent=80 MinRAMSpace=100 CgroupAutomount=yes\n",
            "c",
        )
        .unwrap();
        assert!(c.constrain_cores && c.constrain_ram_space && c.constrain_devices);
        assert!(!c.constrain_swap_space);
        assert!(c.automount);
        assert_eq!(c.allowed_ram_space, 95.5);
        assert_eq!(c.allowed_swap_space, 10.0);
        assert_eq!(c.max_ram_percent, 80.0);
        assert_eq!(c.min_ram_space_mb, 100);
    }

    #[test]
    fn errors_use_slurm_texts() {
        let e = CgroupConf::parse_str("ConstrainCores=maybe\nBogus=1\nAllowedRAMSpace=-3\n", "c")
            .unwrap_err();
        let texts: Vec<String> = e.iter().map(|e| e.kind.to_string()).collect();
        assert_eq!(
            texts,
            vec![
                "\"maybe\" is not a valid option for \"ConstrainCores\"",
                "Parsing error at unrecognized key: Bogus",
                "Bad value \"-3\" for AllowedRAMSpace",
            ]
        );
    }
}
