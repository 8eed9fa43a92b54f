//! Slurm's configuration files, read the way Slurm 22.05 reads them: `slurm.conf` ([`SlurmConf`]),
//! `gres.conf` ([`GresConf`]), `cgroup.conf` ([`CgroupConf`]) and `topology.conf` ([`TopologyConf`]).
//!
//! The parsers are I/O-free. Included files are fetched through a caller-supplied [`IncludeResolver`] that maps a
//! path to its text; relative includes are resolved against the including file's directory and nesting is
//! bounded ([`ParseOptions::max_include_depth`]). Keys are case-insensitive, `#` starts a comment, a trailing `\`
//! continues a line, values are taken literally (no `$VAR` expansion) and may be `"quoted"`.
//!
//! Errors carry the file and line and use Slurm's own texts; all errors of a file are reported together.

mod cgroup_conf;
mod controller_url;
mod error;
mod gres_conf;
pub(crate) mod lexer;
mod reader;
mod slurm_conf;
mod topology_conf;
mod value;

pub use cgroup_conf::{CgroupConf, CgroupConfOther};
pub use controller_url::{controller_url, controller_urls};
pub use error::{ConfError, ConfErrorKind, ConfErrors, Location};
pub use gres_conf::{
    expand_numeric_ranges, GresConf, GresFlag, GresNodeAutoDetect, GresRecord, NodeGres,
};
pub use lexer::{Operator, Pair};
pub use reader::{no_includes, IncludeResolver, ParseOptions};
pub use slurm_conf::{
    ConfEntry, ControllerHost, DownNodesConf, FrontendConf, LoadError, MemPer, NodeConf,
    NodeSetConf, OverSubscribe, PartitionConf, PartitionState, PortRange, SlurmConf,
    FRONTEND_UNSUPPORTED,
};
pub use topology_conf::{SwitchConf, TopologyConf};
pub use value::{Value, INFINITE, INFINITE16, INFINITE64};
