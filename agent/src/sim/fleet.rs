//! Which nodes one simulating spurd plays and what each offers: every name of the `--simulate` hostlist, sized by
//! its `NodeName=` line in slurm.conf (CPUs, sockets, cores, threads, memory), so the controller sees the
//! configured cluster exactly as real agents on that hardware would report it.

use std::collections::HashMap;

use spur_core::grammar::conf::{NodeConf, SlurmConf};
use spur_core::model::job::EpochSecs;
use spur_core::wire::agent_proto::NodeHello;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FleetError {
    #[error("bad --simulate hostlist '{0}': {1}")]
    Hostlist(String, String),
    #[error("--simulate names no node")]
    Empty,
    #[error("simulated node {0} has no NodeName line in slurm.conf")]
    UnknownNode(String),
}

/// What every simulated node shares: this machine's identity and the agent's start.
#[derive(Debug, Clone, PartialEq)]
pub struct HostFacts {
    pub hostname: String,
    pub os: String,
    pub arch: String,
    pub version: String,
    pub boot_time: EpochSecs,
    pub agent_start_time: EpochSecs,
}

/// The Hello of every node `hostlist` names, in hostlist order.
pub fn hellos(
    conf: &SlurmConf,
    hostlist: &str,
    host: &HostFacts,
) -> Result<Vec<NodeHello>, FleetError> {
    let names = spur_core::grammar::hostlist::expand(hostlist)
        .map_err(|e| FleetError::Hostlist(hostlist.to_string(), e.to_string()))?;
    if names.is_empty() {
        return Err(FleetError::Empty);
    }
    let lines = index_lines(conf);
    names
        .into_iter()
        .map(|name| {
            let Some((def, addr)) = lines.get(name.as_str()) else {
                return Err(FleetError::UnknownNode(name));
            };
            let addr = addr.clone().unwrap_or_else(|| name.clone());
            Ok(NodeHello {
                hostname: host.hostname.clone(),
                addr,
                cpus: u32::from(def.cpus),
                sockets: u32::from(def.sockets),
                cores_per_socket: u32::from(def.cores_per_socket),
                threads_per_core: u32::from(def.threads_per_core),
                real_memory_mb: def.real_memory,
                boot_time: host.boot_time,
                agent_start_time: host.agent_start_time,
                os: host.os.clone(),
                arch: host.arch.clone(),
                version: host.version.clone(),
                running_jobs: Vec::new(),
                running_runs: Vec::new(),
                gpu_topology: None,
                // Simulation mode, explicitly: simulated nodes run nothing, so they ask the controller for no
                // proof of its orders (sealing 10,000 nodes' launches would only load munged).
                session_nonce: None,
                name,
            })
        })
        .collect()
}

/// Node name to its NodeName line and its `NodeAddr` (when the line has as many as names): each line's lists
/// are expanded once, so a 10,000-node fleet is sized in one pass.
fn index_lines(conf: &SlurmConf) -> HashMap<String, (&NodeConf, Option<String>)> {
    let mut index = HashMap::new();
    for def in &conf.nodes {
        if def.names.eq_ignore_ascii_case("DEFAULT") {
            continue;
        }
        let names = spur_core::grammar::hostlist::expand(&def.names).unwrap_or_default();
        let mut addrs = spur_core::grammar::hostlist::expand(&def.addresses).unwrap_or_default();
        if addrs.len() != names.len() {
            addrs.clear();
        }
        let mut addrs = addrs.into_iter();
        for name in names {
            index.entry(name).or_insert((def, addrs.next()));
        }
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(text: &str) -> SlurmConf {
        SlurmConf::parse_str(text, "slurm.conf").unwrap()
    }

    fn host() -> HostFacts {
        HostFacts {
            hostname: "laptop".into(),
            os: "Linux".into(),
            arch: "x86_64".into(),
            version: "22.05.8".into(),
            boot_time: 1,
            agent_start_time: 2,
        }
    }

    const CONF: &str = "ClusterName=sim\nSlurmctldHost=localhost\n\
        NodeName=DEFAULT RealMemory=1000\n\
        NodeName=cpu[001-100] CPUs=64 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=256000\n\
        NodeName=gpu[1-4] NodeAddr=10.0.0.[1-4] CPUs=8\n\
        PartitionName=all Nodes=ALL Default=YES\n";

    #[test]
    fn nodes_are_sized_by_their_lines() {
        let hellos = hellos(&conf(CONF), "cpu[099-100],gpu[3-4]", &host()).unwrap();
        let names: Vec<_> = hellos.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["cpu099", "cpu100", "gpu3", "gpu4"]);
        let cpu = &hellos[0];
        assert_eq!(
            (
                cpu.cpus,
                cpu.sockets,
                cpu.cores_per_socket,
                cpu.threads_per_core
            ),
            (64, 2, 16, 2)
        );
        assert_eq!(cpu.real_memory_mb, 256_000);
        assert_eq!(cpu.addr, "cpu099");
        assert_eq!(hellos[2].cpus, 8);
        assert_eq!(hellos[2].real_memory_mb, 1000);
        assert_eq!(hellos[2].addr, "10.0.0.3");
        assert_eq!(hellos[3].hostname, "laptop");
        assert!(hellos.iter().all(|h| h.running_jobs.is_empty()));
    }

    #[test]
    fn unknown_or_malformed_names_are_refused() {
        assert_eq!(
            hellos(&conf(CONF), "cpu[100-101]", &host()),
            Err(FleetError::UnknownNode("cpu101".into()))
        );
        assert!(hellos(&conf(CONF), "cpu[1-", &host()).is_err());
        assert_eq!(hellos(&conf(CONF), "", &host()), Err(FleetError::Empty));
    }

    #[test]
    fn ten_thousand_nodes_are_sized() {
        let text = "ClusterName=sim\nSlurmctldHost=localhost\n\
            NodeName=sim[00001-10000] CPUs=16 RealMemory=64000\n";
        let all = hellos(&conf(text), "sim[00001-10000]", &host()).unwrap();
        assert_eq!(all.len(), 10_000);
        assert_eq!(all[9_999].name, "sim10000");
    }
}
