//! spurd's settings: which node this is, where the controller listens and where the spool lives, from slurm.conf
//! unless given on the command line.

use std::path::{Path, PathBuf};

use spur_core::grammar::conf::SlurmConf;

use crate::discover;

#[derive(Debug, Clone, PartialEq)]
pub struct AgentSettings {
    pub node_name: String,
    pub node_addr: String,
    /// Every controller, tried in turn (the leader accepts the session).
    pub controller_urls: Vec<String>,
    pub spool: PathBuf,
    pub auth: spur_auth::ClientAuth,
    /// Whose orders spurd obeys: root, `SlurmUser`, its own uid.
    pub trust: crate::controller_trust::ControllerTrust,
    /// cgroup.conf, when it confines jobs here (see `crate::isolation::load`).
    pub cgroup: Option<spur_core::grammar::conf::CgroupConf>,
    /// slurm.conf `Prolog` and `Epilog`.
    pub prolog: Option<PathBuf>,
    pub epilog: Option<PathBuf>,
    /// slurm.conf `TaskProlog` and `TaskEpilog`.
    pub task_prolog: Option<PathBuf>,
    pub task_epilog: Option<PathBuf>,
    /// slurm.conf `JobAcctGatherType` and `JobAcctGatherFrequency`; `None` gathers nothing.
    pub acct_gather: Option<spur_core::model::step_acct::AcctGather>,
}

#[derive(Debug, thiserror::Error)]
pub enum AgentConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Parse(String),
    #[error("node {0} is not in slurm.conf (use -N to name this node)")]
    UnknownNode(String),
    #[error("no controller address: give --controller or a slurm.conf with SlurmctldHost")]
    NoController,
}

impl AgentSettings {
    pub fn resolve(
        conf_path: Option<&Path>,
        node_name: Option<&str>,
        controller: Option<&str>,
        spool: Option<&Path>,
    ) -> Result<AgentSettings, AgentConfigError> {
        let conf = match conf_path {
            Some(path) => Some(read(path)?),
            None => None,
        };
        let node_name = node_name
            .map(str::to_string)
            .unwrap_or_else(discover::short_hostname);
        let node_addr = match &conf {
            Some(conf) => node_address(conf, &node_name)?,
            None => "127.0.0.1".to_string(),
        };
        let controller_urls = match (controller, &conf) {
            (Some(list), _) => spur_core::grammar::conf::controller_urls(Some(list), None),
            (None, Some(conf)) if !conf.controllers.is_empty() => {
                spur_core::grammar::conf::controller_urls(None, Some(conf))
            }
            (None, _) => return Err(AgentConfigError::NoController),
        };
        let spool = match (spool, &conf) {
            (Some(dir), _) => dir.to_path_buf(),
            (None, Some(conf)) => PathBuf::from(
                conf.slurmd_spool_dir()
                    .unwrap_or("/var/spool/slurmd")
                    .replace("%n", &node_name)
                    .replace("%h", &discover::short_hostname()),
            ),
            (None, None) => PathBuf::from("/var/spool/slurmd"),
        };
        let auth = spur_auth::ClientAuth::for_daemon(conf.as_ref(), |k| std::env::var(k).ok());
        let trust = crate::controller_trust::ControllerTrust::from_conf(conf.as_ref())
            .map_err(AgentConfigError::Parse)?;
        let cgroup = match (conf_path, &conf) {
            (Some(path), Some(conf)) => {
                crate::isolation::load(path, conf.task_plugin()).map_err(AgentConfigError::Parse)?
            }
            _ => None,
        };
        let script = |value: Option<&str>| value.filter(|v| !v.is_empty()).map(PathBuf::from);
        Ok(AgentSettings {
            node_name,
            node_addr,
            controller_urls,
            spool,
            auth,
            trust,
            cgroup,
            prolog: script(conf.as_ref().and_then(|c| c.prolog())),
            epilog: script(conf.as_ref().and_then(|c| c.epilog())),
            task_prolog: script(conf.as_ref().and_then(|c| c.task_prolog())),
            task_epilog: script(conf.as_ref().and_then(|c| c.task_epilog())),
            acct_gather: conf.as_ref().and_then(|c| {
                spur_core::model::step_acct::AcctGather::from_conf(
                    c.get("JobAcctGatherType"),
                    c.get("JobAcctGatherFrequency"),
                )
            }),
        })
    }
}

/// slurm.conf with its includes.
pub fn read(path: &Path) -> Result<SlurmConf, AgentConfigError> {
    let mut read = |p: &str| std::fs::read_to_string(p).map_err(|e| e.to_string());
    SlurmConf::load(&path.display().to_string(), &mut read)
        .map_err(|e| AgentConfigError::Parse(e.to_string()))
}

/// The node's `NodeAddr` (or its name), refusing a name slurm.conf does not define.
fn node_address(conf: &SlurmConf, node: &str) -> Result<String, AgentConfigError> {
    for line in conf
        .nodes
        .iter()
        .filter(|n| !n.names.eq_ignore_ascii_case("DEFAULT"))
    {
        let names = spur_core::grammar::hostlist::expand(&line.names).unwrap_or_default();
        if let Some(i) = names.iter().position(|n| n == node) {
            let addrs = if line.addresses.is_empty() {
                names.clone()
            } else {
                spur_core::grammar::hostlist::expand(&line.addresses).unwrap_or_default()
            };
            return Ok(addrs.get(i).cloned().unwrap_or_else(|| node.to_string()));
        }
    }
    Err(AgentConfigError::UnknownNode(node.to_string()))
}
