//! `slurm.conf` as Slurm 22.05's `slurmctld` reads it: every pair kept in order for `scontrol show config`,
//! global keys typed and validated, and the record lines (`NodeName`, `PartitionName`, `NodeSet`, `DownNodes`,
//! `FrontendName`, `SlurmctldHost`) turned into records with `DEFAULT` inheritance.
//!
//! Node and partition names are hostlist expressions kept as written: expanding them (`n[1-4]`) is the job of
//! `crate::grammar::hostlist`. Time strings (`MaxTime`, `PriorityMaxAge`) are kept as written too.

mod getters;
mod keys;
mod misc;
mod node;
mod partition;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::{ConfError, ConfErrorKind, ConfErrors, Location};
use super::lexer::{is_blank, leftover_text, line_pair, Operator, Pair};
use super::reader::{IncludeResolver, LineSink, ParseOptions, Reader};
use super::value::{convert, find_spec, parse_fields, Fields, Value};
use keys::{LineKey, GLOBAL_KEYS};

pub use misc::{
    ControllerHost, DownNodesConf, FrontendConf, NodeSetConf, PortRange, FRONTEND_UNSUPPORTED,
};
pub use node::NodeConf;
pub use partition::{MemPer, OverSubscribe, PartitionConf, PartitionState};

/// One `key=value` as it appeared, in file order with includes expanded in place. For record lines
/// (`NodeName=n1 CPUs=2`) the first pair is `key`/`value` and the rest are `params`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfEntry {
    pub key: String,
    pub op: Operator,
    pub value: String,
    pub params: Vec<Pair>,
    pub location: Location,
}

/// A parsed `slurm.conf`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SlurmConf {
    /// Every pair, unknown keys included (in lenient mode), in order.
    pub entries: Vec<ConfEntry>,
    /// Controllers, primary first.
    pub controllers: Vec<ControllerHost>,
    pub nodes: Vec<NodeConf>,
    pub partitions: Vec<PartitionConf>,
    pub node_sets: Vec<NodeSetConf>,
    pub down_nodes: Vec<DownNodesConf>,
    pub frontends: Vec<FrontendConf>,
    /// Problems Slurm logs but survives (duplicates, repaired node topology, defunct keys).
    pub warnings: Vec<ConfError>,
    /// Typed global values by canonical key; a later line replaces an earlier one.
    globals: BTreeMap<&'static str, (Value, Location)>,
}

/// Why [`SlurmConf::load`] failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {0}")]
    Read(String),
    #[error("{0}")]
    Parse(ConfErrors),
}

impl SlurmConf {
    /// Parses `text` as the file `file` (used in messages and to resolve relative includes), reading included
    /// files through `resolver`.
    pub fn parse(
        text: &str,
        file: &str,
        resolver: &mut IncludeResolver<'_>,
    ) -> Result<Self, ConfErrors> {
        Self::parse_with(text, file, resolver, &ParseOptions::default())
    }

    /// Reads and parses the file at `path` through `read` (the caller's I/O), resolving relative `include` names
    /// against the file's directory as Slurm does. A file that cannot be read is reported as its error text.
    pub fn load(
        path: &str,
        read: &mut dyn FnMut(&str) -> Result<String, String>,
    ) -> Result<Self, LoadError> {
        let text = read(path).map_err(|e| LoadError::Read(format!("{path}: {e}")))?;
        let base = path
            .rsplit_once('/')
            .map(|(dir, _)| dir.to_string())
            .unwrap_or_default();
        let mut resolver = |name: &str| -> Result<String, String> {
            if name.starts_with('/') || base.is_empty() {
                read(name)
            } else {
                read(&format!("{base}/{name}"))
            }
        };
        Self::parse(&text, path, &mut resolver).map_err(LoadError::Parse)
    }

    /// Parses a file that has no includes (an `include` line is an error).
    pub fn parse_str(text: &str, file: &str) -> Result<Self, ConfErrors> {
        Self::parse(text, file, &mut super::reader::no_includes)
    }

    pub fn parse_with(
        text: &str,
        file: &str,
        resolver: &mut IncludeResolver<'_>,
        options: &ParseOptions,
    ) -> Result<Self, ConfErrors> {
        let mut builder = Builder {
            conf: SlurmConf::default(),
            options: options.clone(),
            ..Builder::default()
        };
        let mut reader = Reader::new(resolver, options);
        reader.read(file, text, &mut builder);
        let mut errors = reader.errors;
        builder.finish(&mut errors);
        if errors.is_empty() {
            Ok(builder.conf)
        } else {
            Err(ConfErrors {
                errors,
                warnings: builder.conf.warnings,
            })
        }
    }

    /// The raw value of the last entry with this key (case-insensitive), unknown keys included.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.key.eq_ignore_ascii_case(key))
            .map(|e| e.value.as_str())
    }

    /// Every entry with this key, in order (for repeatable keys such as `SlurmctldHost`).
    pub fn get_all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a ConfEntry> + 'a {
        self.entries
            .iter()
            .filter(move |e| e.key.eq_ignore_ascii_case(key))
    }

    /// The typed value of a global key, if the file set it.
    pub fn value(&self, key: &str) -> Option<&Value> {
        let spec = find_spec(GLOBAL_KEYS, key)?;
        self.globals.get(spec.name).map(|(v, _)| v)
    }

    /// Where a global key was (last) set.
    pub fn location_of(&self, key: &str) -> Option<&Location> {
        let spec = find_spec(GLOBAL_KEYS, key)?;
        self.globals.get(spec.name).map(|(_, l)| l)
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        match self.value(key)? {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn get_u16(&self, key: &str) -> Option<u16> {
        match self.value(key)? {
            Value::U16(n) => Some(*n),
            _ => None,
        }
    }

    pub fn get_u32(&self, key: &str) -> Option<u32> {
        match self.value(key)? {
            Value::U32(n) => Some(*n),
            _ => None,
        }
    }

    pub fn get_u64(&self, key: &str) -> Option<u64> {
        match self.value(key)? {
            Value::U64(n) => Some(*n),
            _ => None,
        }
    }

    pub fn get_bool(&self, key: &str) -> Option<bool> {
        match self.value(key)? {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The partition jobs go to when they name none: the last one marked `Default=YES`, as in Slurm.
    pub fn default_partition(&self) -> Option<&PartitionConf> {
        self.partitions.iter().rev().find(|p| p.default)
    }
}

/// Collects lines into a [`SlurmConf`].
#[derive(Default)]
struct Builder {
    conf: SlurmConf,
    options: ParseOptions,
    node_default: Fields,
    partition_default: Fields,
    frontend_default: Fields,
}

impl LineSink for Builder {
    fn line(&mut self, at: &Location, text: &str, errors: &mut Vec<ConfError>) {
        let Some((pair, rest)) = line_pair(at, text, errors) else {
            return;
        };
        if let Some(line_key) = LineKey::find(&pair.key) {
            let fields = parse_fields(
                line_key.table(),
                rest,
                at,
                self.options.ignore_unknown_keys,
                errors,
            );
            self.record(line_key, &pair, &fields, at, errors);
            self.push_entry(pair, fields.pairs, at);
            return;
        }
        self.global(&pair, at, errors);
        if !is_blank(rest) {
            errors.push(ConfError::at(
                at,
                ConfErrorKind::Parse {
                    leftover: leftover_text(rest),
                },
            ));
        }
        self.push_entry(pair, Vec::new(), at);
    }

    fn cluster_name(&self) -> Option<String> {
        self.conf.get_str("ClusterName").map(str::to_string)
    }
}

impl Builder {
    fn push_entry(&mut self, pair: Pair, params: Vec<Pair>, at: &Location) {
        let Pair { key, op, value } = pair;
        self.conf.entries.push(ConfEntry {
            key,
            op,
            value,
            params,
            location: at.clone(),
        });
    }

    fn global(&mut self, pair: &Pair, at: &Location, errors: &mut Vec<ConfError>) {
        let Some(spec) = find_spec(GLOBAL_KEYS, &pair.key) else {
            if !self.options.ignore_unknown_keys {
                errors.push(ConfError::at(
                    at,
                    ConfErrorKind::UnrecognizedKey {
                        key: pair.key.clone(),
                    },
                ));
            }
            return;
        };
        match convert(spec, pair) {
            Ok(Some(value)) => {
                if self
                    .conf
                    .globals
                    .insert(spec.name, (value, at.clone()))
                    .is_some()
                {
                    self.warn(
                        at,
                        ConfErrorKind::Duplicate {
                            key: spec.name.to_string(),
                        },
                    );
                }
            }
            Ok(None) => self.warn(
                at,
                ConfErrorKind::Defunct {
                    key: spec.name.to_string(),
                },
            ),
            Err(kind) => errors.push(ConfError::at(at, kind)),
        }
    }

    fn warn(&mut self, at: &Location, kind: ConfErrorKind) {
        self.conf.warnings.push(ConfError::at(at, kind));
    }

    fn record(
        &mut self,
        key: LineKey,
        pair: &Pair,
        fields: &Fields,
        at: &Location,
        errors: &mut Vec<ConfError>,
    ) {
        let name = pair.value.as_str();
        let is_default = name.eq_ignore_ascii_case("DEFAULT");
        let warnings = &mut self.conf.warnings;
        match key {
            LineKey::NodeName if is_default => {
                if node::check_default(fields, at, errors) {
                    self.node_default = fields.clone().merged_over(&self.node_default);
                }
            }
            LineKey::NodeName if name.eq_ignore_ascii_case("ALL") => {
                let kind = ConfErrorKind::ReservedWord {
                    key: "NodeName".into(),
                    value: name.to_string(),
                };
                errors.push(ConfError::at(at, kind));
            }
            LineKey::NodeName => {
                let node = node::build(name, fields, &self.node_default, at, errors, warnings);
                self.conf.nodes.push(node);
            }
            LineKey::PartitionName if is_default => {
                self.partition_default = fields.clone().merged_over(&self.partition_default);
            }
            LineKey::PartitionName => {
                let part =
                    partition::build(name, fields, &self.partition_default, at, errors, warnings);
                self.conf.partitions.push(part);
            }
            LineKey::FrontendName => {
                warnings.push(ConfError::at(
                    at,
                    ConfErrorKind::Other(FRONTEND_UNSUPPORTED.to_string()),
                ));
                if !is_default {
                    self.conf.frontends.push(misc::frontend(
                        name,
                        fields,
                        &self.frontend_default,
                        at,
                    ));
                } else if misc::check_frontend_default(fields, at, errors) {
                    self.frontend_default = fields.clone().merged_over(&self.frontend_default);
                }
            }
            LineKey::NodeSet => self.conf.node_sets.push(misc::node_set(name, fields, at)),
            LineKey::DownNodes => self
                .conf
                .down_nodes
                .push(misc::down_nodes(name, fields, at)),
            LineKey::SlurmctldHost => match ControllerHost::parse(name) {
                Some(host) => self.conf.controllers.push(host),
                None => errors.push(ConfError::at(
                    at,
                    ConfErrorKind::BadValue {
                        key: "SlurmctldHost".into(),
                        value: name.to_string(),
                    },
                )),
            },
        }
    }

    /// The whole-file checks Slurm makes after reading (`_validate_and_set_defaults`).
    fn finish(&mut self, errors: &mut Vec<ConfError>) {
        if self.conf.get_str("ClusterName").is_none() {
            errors.push(ConfError::global(ConfErrorKind::Other(
                "ClusterName needs to be specified".into(),
            )));
        }
        self.load_controllers(errors);
        if let Some(port) = self.conf.get_str("SlurmctldPort") {
            if PortRange::parse(port).is_none() {
                let at = self.conf.location_of("SlurmctldPort").cloned();
                let kind = ConfErrorKind::Invalid {
                    key: "SlurmctldPort".into(),
                    value: port.to_string(),
                };
                errors.push(ConfError { location: at, kind });
            }
        }
    }

    /// Slurm's `_load_slurmctld_host`: `SlurmctldHost` lines win over the legacy keys.
    fn load_controllers(&mut self, errors: &mut Vec<ConfError>) {
        let legacy = [
            "ControlMachine",
            "ControlAddr",
            "BackupController",
            "BackupAddr",
        ];
        let other = |msg: &str| ConfError::global(ConfErrorKind::Other(msg.to_string()));
        if !self.conf.controllers.is_empty() {
            let ignored: Vec<_> = legacy
                .iter()
                .filter(|k| self.conf.get_str(k).is_some())
                .collect();
            for key in ignored {
                self.conf.warnings.push(other(&format!(
                    "Ignoring {key} since SlurmctldHost is set."
                )));
            }
        } else {
            let Some(primary) = self.conf.get_str("ControlMachine").map(str::to_string) else {
                errors.push(other("No SlurmctldHost defined."));
                return;
            };
            let addr = self.conf.get_str("ControlAddr").map(str::to_string);
            if addr.is_none() && primary.contains(',') {
                errors.push(other(
                    "ControlMachine has multiple host names, so ControlAddr must be specified.",
                ));
                return;
            }
            let backup = self.conf.get_str("BackupController").map(str::to_string);
            let backup_addr = self.conf.get_str("BackupAddr").map(str::to_string);
            if backup.is_none() && backup_addr.is_some() {
                errors.push(other("BackupAddr specified without BackupController"));
                return;
            }
            let host = |name: String, addr: Option<String>| ControllerHost {
                addr: addr.unwrap_or(name.clone()),
                hostname: name,
            };
            self.conf.controllers.push(host(primary, addr));
            if let Some(b) = backup {
                self.conf.controllers.push(host(b, backup_addr));
            }
        }
        let hosts = &self.conf.controllers;
        if let Some(dup) = hosts
            .iter()
            .enumerate()
            .find(|(i, h)| hosts[..*i].iter().any(|o| o.hostname == h.hostname))
        {
            errors.push(other(&format!(
                "Duplicate SlurmctldHost records: {}",
                dup.1.hostname
            )));
        }
    }
}
