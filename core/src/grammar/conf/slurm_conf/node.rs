//! `NodeName=` lines: one record per line, with `NodeName=DEFAULT` lines supplying values later lines lack, and
//! Slurm's derivation of sockets and CPUs from whatever topology keys were given.

use serde::{Deserialize, Serialize};

use crate::grammar::conf::error::{ConfError, ConfErrorKind, Location};
use crate::grammar::conf::value::{Fields, INFINITE};
use crate::model::states::NodeState;

/// One `NodeName=` line after `DEFAULT` values were applied.
///
/// `names`, `hostnames` and `addresses` are hostlist expressions kept as written (`n[1-4]`); callers expand them
/// with `crate::grammar::hostlist`. Slurm pairs the expanded lists element by element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeConf {
    pub names: String,
    /// `NodeHostname=`, else `names`.
    pub hostnames: String,
    /// `NodeAddr=`, else `hostnames`.
    pub addresses: String,
    pub bcast_addresses: Option<String>,
    /// `Port=` as written; it may be a range expression matching `names`.
    pub port: Option<String>,
    pub cpus: u16,
    pub boards: u16,
    /// Total sockets (`Sockets=`, or `Boards * SocketsPerBoard`, or inferred from `CPUs`).
    pub sockets: u16,
    pub cores_per_socket: u16,
    pub threads_per_core: u16,
    /// MiB.
    pub real_memory: u64,
    /// MiB.
    pub tmp_disk: u32,
    pub weight: u32,
    pub gres: Option<String>,
    pub features: Option<String>,
    pub state: Option<NodeState>,
    pub reason: Option<String>,
    pub core_spec_count: u16,
    pub cpu_spec_list: Option<String>,
    /// MiB.
    pub mem_spec_limit: u64,
    pub cpu_bind: Option<String>,
    pub tres_weights: Option<String>,
    pub location: Location,
}

/// Builds a node record from its line and the accumulated `DEFAULT` values. Problems Slurm only logs and
/// repairs go to `warnings`; an invalid `State=` is an error.
pub(crate) fn build(
    names: &str,
    line: &Fields,
    dflt: &Fields,
    at: &Location,
    errors: &mut Vec<ConfError>,
    warnings: &mut Vec<ConfError>,
) -> NodeConf {
    let pick_str = |k: &str| line.str(k).or_else(|| dflt.str(k)).map(str::to_string);
    let pick_u16 = |k: &str| line.u16(k).or_else(|| dflt.u16(k));
    let hostnames = line.str("NodeHostname").unwrap_or(names).to_string();
    let addresses = line
        .str("NodeAddr")
        .map_or_else(|| hostnames.clone(), str::to_string);
    let features = line
        .str("Feature")
        .or_else(|| line.str("Features"))
        .or_else(|| dflt.str("Feature"))
        .or_else(|| dflt.str("Features"))
        .map(str::to_string);
    let cpus = pick_u16("CPUs").or_else(|| pick_u16("Procs"));
    let state = pick_str("State").and_then(|s| match NodeState::from_config_str(&s, names) {
        Ok(state) => Some(state),
        Err(e) => {
            errors.push(ConfError::at(at, ConfErrorKind::Other(e.to_string())));
            None
        }
    });
    let weight = line
        .u32("Weight")
        .or_else(|| dflt.u32("Weight"))
        .unwrap_or(1);
    let mut node = NodeConf {
        names: names.to_string(),
        hostnames,
        addresses,
        bcast_addresses: line.str("BcastAddr").map(str::to_string),
        port: pick_str("Port"),
        cpus: cpus.unwrap_or(1),
        boards: pick_u16("Boards").unwrap_or(1),
        sockets: pick_u16("Sockets").unwrap_or(1),
        cores_per_socket: pick_u16("CoresPerSocket").unwrap_or(1),
        threads_per_core: pick_u16("ThreadsPerCore").unwrap_or(1),
        real_memory: line
            .u64("RealMemory")
            .or_else(|| dflt.u64("RealMemory"))
            .unwrap_or(1),
        tmp_disk: line
            .u32("TmpDisk")
            .or_else(|| dflt.u32("TmpDisk"))
            .unwrap_or(0),
        // Slurm reserves INFINITE, so a node asking for it gets the largest real weight.
        weight: if weight == INFINITE {
            INFINITE - 1
        } else {
            weight
        },
        gres: pick_str("Gres"),
        features,
        state,
        reason: pick_str("Reason"),
        core_spec_count: pick_u16("CoreSpecCount").unwrap_or(0),
        cpu_spec_list: pick_str("CPUSpecList"),
        mem_spec_limit: line
            .u64("MemSpecLimit")
            .or_else(|| dflt.u64("MemSpecLimit"))
            .unwrap_or(0),
        cpu_bind: pick_str("CpuBind"),
        tres_weights: pick_str("TRESWeights"),
        location: at.clone(),
    };
    let given = Given {
        cpus: cpus.is_some(),
        sockets: pick_u16("Sockets").is_some(),
        sockets_per_board: pick_u16("SocketsPerBoard"),
    };
    derive_topology(&mut node, given, &mut |msg| {
        warnings.push(ConfError::at(at, ConfErrorKind::Other(msg)))
    });
    node
}

/// Which topology keys the line (or its defaults) set.
struct Given {
    cpus: bool,
    sockets: bool,
    sockets_per_board: Option<u16>,
}

/// Slurm's repairs and inferences, in its order, with its log texts.
fn derive_topology(n: &mut NodeConf, given: Given, warn: &mut dyn FnMut(String)) {
    let name = n.names.clone();
    let reset = |field: &mut u16, what: &str, warn: &mut dyn FnMut(String)| {
        if *field == 0 {
            warn(format!("NodeNames={name} {what}=0 is invalid, reset to 1"));
            *field = 1;
        }
    };
    reset(&mut n.cores_per_socket, "CoresPerSocket", warn);
    reset(&mut n.cpus, "CPUs", warn);
    reset(&mut n.threads_per_core, "ThreadsPerCore", warn);
    let mut sockets_per_board = given.sockets_per_board.unwrap_or(1);
    reset(&mut sockets_per_board, "SocketsPerBoards", warn);
    reset(&mut n.sockets, "Sockets", warn);
    let mut no_sockets = !given.sockets;
    if given.sockets_per_board.is_some() && given.sockets {
        warn(format!(
            "NodeNames={name} Sockets=# and SocketsPerBoard=# is invalid , using SocketsPerBoard"
        ));
        no_sockets = true;
    }
    reset(&mut n.boards, "Boards", warn);
    // u64 so that products of three 16-bit counts cannot overflow.
    let core_threads = u64::from(n.cores_per_socket) * u64::from(n.threads_per_core);
    if no_sockets {
        let cpus = u64::from(n.cpus);
        n.sockets = if given.sockets_per_board.is_some() {
            truncate(u64::from(n.boards) * u64::from(sockets_per_board))
        } else if given.cpus && cpus / core_threads > 0 && cpus % core_threads == 0 {
            truncate(cpus / core_threads)
        } else {
            n.boards
        };
    }
    let sockets = u64::from(n.sockets);
    if !given.cpus {
        n.cpus = truncate(sockets * core_threads);
    }
    if n.sockets < n.boards {
        warn(format!(
            "NodeNames={name} Sockets({}) < Boards({}) resetting Boards=1",
            n.sockets, n.boards
        ));
        n.boards = 1;
    }
    let cpus = u64::from(n.cpus);
    let per_socket = sockets * u64::from(n.cores_per_socket);
    if cpus != sockets && cpus != per_socket && cpus != sockets * core_threads {
        warn(format!(
            "NodeNames={name} CPUs={cpus} match no Sockets, Sockets*CoresPerSocket or Sockets*CoresPerSocket*ThreadsPerCore. Resetting CPUs."
        ));
        n.cpus = truncate(sockets * core_threads);
    }
    if u64::from(n.core_spec_count) >= per_socket {
        warn(format!(
            "NodeNames={name} CoreSpecCount={} is invalid, reset to 1",
            n.core_spec_count
        ));
        n.core_spec_count = 1;
    }
    if n.core_spec_count > 0 && n.cpu_spec_list.is_some() {
        warn(format!(
            "NodeNames={name} CoreSpecCount={} is invalid with CPUSpecList, reset to 0",
            n.core_spec_count
        ));
        n.core_spec_count = 0;
    }
    if n.mem_spec_limit >= n.real_memory {
        warn(format!(
            "NodeNames={name} MemSpecLimit={} is invalid, reset to 0",
            n.mem_spec_limit
        ));
        n.mem_spec_limit = 0;
    }
}

/// Slurm stores these counts in 16 bits and lets products wrap; a product that wraps to exactly 0 would describe a
/// node without CPUs or sockets, which nothing downstream can schedule on, so Spur keeps it at 1.
fn truncate(n: u64) -> u16 {
    ((n & 0xffff) as u16).max(1)
}

/// Checks a `NodeName=DEFAULT` line: per-node addresses cannot be defaults.
pub(crate) fn check_default(line: &Fields, at: &Location, errors: &mut Vec<ConfError>) -> bool {
    for key in ["NodeHostname", "BcastAddr", "NodeAddr"] {
        if line.has(key) {
            let kind = ConfErrorKind::NotAllowedInDefault {
                key: key.to_string(),
                line_key: "NodeName".to_string(),
            };
            errors.push(ConfError::at(at, kind));
            return false;
        }
    }
    true
}
