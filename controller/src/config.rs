//! spurctld's configuration: an existing site's slurm.conf (and the gres.conf beside it) turned into the
//! [`ConfigSnapshot`] the state machine applies, plus the daemon's own settings (listen address, state dir).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use spur_core::grammar::conf::{GresConf, SlurmConf, TopologyConf};
use spur_core::grammar::conf::{MemPer, PartitionConf, PartitionState as ConfPartitionState};
use spur_core::grammar::values::time::{parse_time_limit, TimeLimit};
use spur_core::model::records::{
    ClusterConfig, NodeGres, PartitionRecord, PartitionState, PreemptMode, GPU_GRES,
};
use spur_core::model::states::NodeBaseState;
use spur_core::policy::gpu_shard::{shard_unit_files, SHARD_GRES};
use spur_core::policy::gpu_topology::GpuTopology;
use spur_core::policy::switch_tree::SwitchTree;
use spur_core::wire::agent_proto::LaunchContext;

use crate::state::{BackfillSettings, ConfigSnapshot, NodeDefinition, Settings};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Parse(String),
    #[error("{0}")]
    Invalid(String),
}

/// Reads a configuration file, resolving `include` lines relative to it.
pub fn read_slurm_conf(path: &Path) -> Result<SlurmConf, ConfigError> {
    let mut read = |p: &str| std::fs::read_to_string(p).map_err(|e| e.to_string());
    SlurmConf::load(&path.display().to_string(), &mut read)
        .map_err(|e| ConfigError::Parse(e.to_string()))
}

fn read_gres_conf(path: &Path) -> Result<GresConf, ConfigError> {
    let gres_path = path.with_file_name("gres.conf");
    match std::fs::read_to_string(&gres_path) {
        Ok(text) => GresConf::parse_str(&text, &gres_path.display().to_string())
            .map_err(|e| ConfigError::Parse(e.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(GresConf::default()),
        Err(source) => Err(ConfigError::Read {
            path: gres_path.display().to_string(),
            source,
        }),
    }
}

/// `TopologyPlugin=topology/tree`: the switches of topology.conf beside slurm.conf, which must then exist (as in
/// Slurm); any other plugin leaves the tree empty.
fn read_switch_tree(
    path: &Path,
    conf: &SlurmConf,
    nodes: &[NodeDefinition],
) -> Result<SwitchTree, ConfigError> {
    if conf.get_str("TopologyPlugin") != Some("topology/tree") {
        return Ok(SwitchTree::default());
    }
    let topo_path = path.with_file_name("topology.conf");
    let shown = topo_path.display().to_string();
    let text = std::fs::read_to_string(&topo_path).map_err(|e| {
        ConfigError::Invalid(format!("something wrong with opening/reading {shown}: {e}"))
    })?;
    let parsed = TopologyConf::parse_str(&text, &shown).map_err(|e| {
        ConfigError::Parse(format!(
            "{e}\nsomething wrong with opening/reading {shown}: Invalid argument"
        ))
    })?;
    let names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let resolved = SwitchTree::resolve(&parsed, &names).map_err(ConfigError::Invalid)?;
    for warning in &resolved.warnings {
        tracing::warn!("{warning}");
    }
    Ok(resolved.tree)
}

/// slurmdbd.conf's `PurgeJobAfter` beside slurm.conf, when accounting is on: how long purged jobs' records are
/// kept (docs/accounting.md). No file, no key or a value slurmdbd would refuse keep them for ever (the last with a
/// warning).
fn read_accounting_retention(path: &Path) -> Option<u32> {
    let dbd_path = path.with_file_name("slurmdbd.conf");
    let text = std::fs::read_to_string(&dbd_path).ok()?;
    let value = text
        .lines()
        .rev()
        .filter_map(|line| line.split('#').next()?.trim().split_once('='))
        .find(|(key, _)| key.trim().eq_ignore_ascii_case("PurgeJobAfter"))
        .map(|(_, value)| value.trim().to_string())?;
    let secs = spur_core::model::accounting::purge_after_secs(&value);
    if secs.is_none() {
        tracing::warn!(
            "{}: PurgeJobAfter={value} is not understood; accounting records are kept",
            dbd_path.display()
        );
    }
    secs
}

pub struct ControllerConfig {
    pub snapshot: ConfigSnapshot,
    pub auth: AuthConfig,
    pub state_dir: PathBuf,
    pub listen: SocketAddr,
    pub launch_context: LaunchContext,
    /// slurm.conf's `SlurmctldHost` lines: more than one makes the controllers a Raft group (docs/ha.md).
    pub controllers: Vec<spur_core::grammar::conf::ControllerHost>,
    pub port: u16,
    /// munged's socket, through which a controller seals its calls to the others.
    pub munge_socket: String,
    /// `AccountingStorageType=accounting_storage/postgresql`: the shared PostgreSQL history store; otherwise each
    /// controller keeps an SQLite file in its state directory (docs/accounting.md, "History store").
    pub history_database: Option<crate::history::postgres::PgTarget>,
}

impl ControllerConfig {
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let conf = read_slurm_conf(path)?;
        let gres = read_gres_conf(path)?;
        let mut snapshot = snapshot_of(&conf, &gres)?;
        snapshot.settings.switch_tree = read_switch_tree(path, &conf, &snapshot.nodes)?;
        if snapshot.settings.accounting {
            snapshot.settings.accounting_keep_secs = read_accounting_retention(path);
        }
        let auth = auth_config(&conf)?;
        if !snapshot.settings.admin_uids.contains(&auth.slurm_user_uid) {
            snapshot.settings.admin_uids.push(auth.slurm_user_uid);
        }
        let port = conf.slurmctld_port().first;
        let port = u16::try_from(port)
            .map_err(|_| ConfigError::Invalid(format!("bad SlurmctldPort {port}")))?;
        let listen = SocketAddr::from(([0, 0, 0, 0], port));
        let state_dir = PathBuf::from(conf.state_save_location().unwrap_or("/var/spool/slurmctld"));
        let controller_addr = conf
            .controllers
            .first()
            .map(|c| format!("{}:{port}", c.addr))
            .unwrap_or_else(|| format!("127.0.0.1:{port}"));
        let launch_context = LaunchContext {
            cluster_name: snapshot.settings.cluster_name.clone(),
            slurm_conf: std::fs::canonicalize(path)
                .unwrap_or_else(|_| path.to_path_buf())
                .display()
                .to_string(),
            controller_addr,
            kill_wait_secs: u32::from(conf.kill_wait()),
            array_task_ids: Vec::new(),
            array_summary: None,
            gres_files: Default::default(),
            topology_addr: None,
            het_components: Vec::new(),
        };
        Ok(ControllerConfig {
            snapshot,
            auth,
            state_dir,
            listen,
            launch_context,
            controllers: conf.controllers.clone(),
            port,
            munge_socket: spur_core::auth::params::munge_socket(conf.auth_info()),
            history_database: postgres_target(&conf),
        })
    }
}

/// Which of `controllers` this process is: `wanted` (a SlurmctldHost name, or its 1-based position) when given,
/// else the one named like this host. Several controllers on one machine (tests) must say which they are.
pub fn select_member(
    controllers: &[spur_core::grammar::conf::ControllerHost],
    wanted: Option<&str>,
    hostname: &str,
) -> Result<usize, ConfigError> {
    let found = match wanted {
        Some(wanted) => controllers
            .iter()
            .position(|c| c.hostname == wanted)
            .or_else(|| {
                wanted
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=controllers.len()).contains(n))
                    .map(|n| n - 1)
            }),
        None => controllers.iter().position(|c| {
            c.hostname == hostname || c.hostname.split('.').next() == hostname.split('.').next()
        }),
    };
    found.ok_or_else(|| {
        let names: Vec<&str> = controllers.iter().map(|c| c.hostname.as_str()).collect();
        ConfigError::Invalid(format!(
            "this controller ({}) is not one of the SlurmctldHost lines ({}): give --member or SPUR_CONTROLLER_ID",
            wanted.unwrap_or(hostname),
            names.join(", ")
        ))
    })
}

/// How callers are authenticated: auth/munge through munged (`AuthInfo=socket=`), auth/jwt with the key file of
/// `AuthAltParameters=jwt_key=`, and the SlurmUser whose uid counts as privileged.
pub struct AuthConfig {
    pub verifier: spur_auth::VerifierSettings,
    pub slurm_user_uid: u32,
}

fn auth_config(conf: &SlurmConf) -> Result<AuthConfig, ConfigError> {
    use spur_core::auth::params;
    let auth_type = conf.auth_type();
    if !auth_type.eq_ignore_ascii_case("auth/munge") {
        return Err(ConfigError::Invalid(format!(
            "AuthType={auth_type} is not supported (auth/munge; auth/jwt goes in AuthAltTypes)"
        )));
    }
    let munge_socket = Some(params::munge_socket(conf.auth_info()));
    let slurm_user = conf.slurm_user();
    let slurm_user_uid = match slurm_user.parse::<u32>() {
        Ok(uid) => uid,
        Err(_) => nix::unistd::User::from_name(slurm_user)
            .ok()
            .flatten()
            .map(|u| u.uid.as_raw())
            .ok_or_else(|| {
                ConfigError::Invalid(format!("Invalid user for SlurmUser {slurm_user}"))
            })?,
    };
    let jwt_key = match params::jwt_key_path(&conf.auth_alt_types(), conf.auth_alt_parameters()) {
        Some(path) => Some(read_jwt_key(path, slurm_user_uid)?),
        None => None,
    };
    Ok(AuthConfig {
        verifier: spur_auth::VerifierSettings {
            munge_socket,
            jwt_key,
        },
        slurm_user_uid,
    })
}

/// The auth/jwt key, refused (spurctld does not start) where it is short, open to others or owned by a stranger
/// (`params::jwt_key_fault`). Mode and owner are those of the file opened, not of a path that may change.
fn read_jwt_key(path: &str, slurm_user_uid: u32) -> Result<Vec<u8>, ConfigError> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let read_error = |source| ConfigError::Read {
        path: path.to_string(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(read_error)?;
    let meta = file.metadata().map_err(read_error)?;
    let mut key = Vec::new();
    // A key is tens of bytes; anything past 64 KiB is not a key file.
    file.by_ref()
        .take(64 << 10)
        .read_to_end(&mut key)
        .map_err(read_error)?;
    let owners = [0, slurm_user_uid, nix::unistd::geteuid().as_raw()];
    match spur_core::auth::params::jwt_key_fault(key.len(), meta.mode(), meta.uid(), &owners) {
        Some(fault) => Err(ConfigError::Invalid(format!(
            "auth/jwt: key file {path} {fault}"
        ))),
        None => Ok(key),
    }
}

/// The PostgreSQL history store slurm.conf names (`AccountingStorageType=accounting_storage/postgresql`, a Spur
/// value): `AccountingStorageHost` (default localhost), `AccountingStoragePort` (default 5432),
/// `AccountingStorageUser` (default `spur`), `AccountingStoragePass`, `AccountingStorageLoc` (the database, default
/// `spur`).
pub fn postgres_target(conf: &SlurmConf) -> Option<crate::history::postgres::PgTarget> {
    let kind = conf.get_str("AccountingStorageType")?;
    if !kind.eq_ignore_ascii_case("accounting_storage/postgresql") {
        return None;
    }
    let text = |key: &str, default: &str| conf.get_str(key).unwrap_or(default).to_string();
    Some(crate::history::postgres::PgTarget {
        host: text("AccountingStorageHost", "localhost"),
        port: conf.get_u16("AccountingStoragePort").unwrap_or(5432),
        user: text("AccountingStorageUser", "spur"),
        password: conf.get_str("AccountingStoragePass").map(str::to_string),
        database: text("AccountingStorageLoc", "spur"),
    })
}

/// The pure part: parsed files in, the state machine's configuration out.
/// Spur keeps accounting itself: any `AccountingStorageType` but an explicit `accounting_storage/none` (which
/// makes `sacct` answer that storage is disabled, as Slurm does) enables it; `AccountingStorageHost` is ignored.
pub fn accounting_enabled(conf: &SlurmConf) -> bool {
    conf.get_str("AccountingStorageType")
        .is_none_or(|t| !t.eq_ignore_ascii_case("accounting_storage/none"))
}

pub fn snapshot_of(conf: &SlurmConf, gres: &GresConf) -> Result<ConfigSnapshot, ConfigError> {
    let gres_types: Vec<&str> = conf.gres_types();
    let mut nodes = Vec::new();
    for node in &conf.nodes {
        if node.names.eq_ignore_ascii_case("DEFAULT") {
            continue;
        }
        let names = expand(&node.names)?;
        let addrs = expand_or(&node.addresses, &names)?;
        let hosts = expand_or(&node.hostnames, &names)?;
        for (i, name) in names.iter().enumerate() {
            let (node_gres, gpu_links) = node_gres(node.gres.as_deref(), &gres_types, gres, name)?;
            let state = node.state.map(|s| s.base);
            nodes.push(NodeDefinition {
                name: name.clone(),
                addr: addrs.get(i).cloned().unwrap_or_else(|| name.clone()),
                hostname: hosts.get(i).cloned().unwrap_or_else(|| name.clone()),
                cpus: u32::from(node.cpus),
                boards: u32::from(node.boards),
                sockets: u32::from(node.sockets),
                cores_per_socket: u32::from(node.cores_per_socket),
                threads_per_core: u32::from(node.threads_per_core),
                real_memory_mb: node.real_memory,
                tmp_disk_mb: u64::from(node.tmp_disk),
                weight: node.weight,
                features: node
                    .features
                    .as_deref()
                    .map(|f| f.split(',').map(str::to_string).collect())
                    .unwrap_or_default(),
                gres: node_gres,
                gpu_links,
                configured_down: state == Some(NodeBaseState::Down),
                configured_drain: node
                    .state
                    .is_some_and(|s| s.has(spur_core::model::states::NodeStateFlag::Drain)),
            });
        }
    }
    let all_names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let partitions = conf
        .partitions
        .iter()
        .filter(|p| !p.name.eq_ignore_ascii_case("DEFAULT"))
        .map(|p| {
            partition_of(
                p,
                &all_names,
                conf.get_bool("DisableRootJobs").unwrap_or(false),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    // With preemption on, a partition without its own PreemptMode has the cluster's (and shows it, with the
    // cluster's GANG flag; Slurm drops GANG from a partition's own mode).
    let preempt = preemption(conf);
    let gang = preempt.is_some()
        && conf
            .get_str("PreemptMode")
            .is_some_and(PreemptMode::has_gang);
    let partitions: Vec<PartitionRecord> = partitions
        .into_iter()
        .map(|mut p| {
            if preempt.is_some() && p.preempt_mode.is_none() {
                p.preempt_mode = preempt;
                p.preempt_gang = gang;
            }
            p
        })
        .collect();
    let select_params = conf
        .select_type_parameters()
        .unwrap_or("")
        .to_ascii_uppercase();
    let priority = spur_core::policy::priority::PriorityWeights::from_conf(conf);
    if priority
        .as_ref()
        .is_some_and(|w| w.age > 0 && w.age_ignored)
    {
        tracing::warn!("PriorityWeightAge can only be used with SlurmDBD, ignoring");
    }
    if priority
        .as_ref()
        .is_some_and(|w| w.fairshare > 0 && w.age_ignored)
    {
        tracing::warn!(
            "Fairshare can only be calculated with accounting_storage/slurmdbd; the fair-share factor stays 0"
        );
    }
    let prolog_flags = conf.prolog_flags();
    let enforce: Vec<String> = conf
        .get_str("AccountingStorageEnforce")
        .unwrap_or("")
        .split(',')
        .map(|w| w.trim().to_ascii_lowercase())
        .collect();
    let settings = Settings {
        min_job_age_secs: conf.min_job_age(),
        kill_wait_secs: u32::from(conf.kill_wait()),
        first_job_id: conf.first_job_id(),
        max_array_size: conf.max_array_size(),
        def_mem_per_cpu_mb: Some(conf.def_mem_per_cpu()).filter(|m| *m > 0),
        max_mem_per_node_mb: Some(conf.max_mem_per_node()).filter(|m| *m > 0),
        memory_is_consumable: select_params.contains("MEMORY"),
        node_timeout_secs: u32::from(conf.slurmd_timeout()),
        admin_uids: vec![0],
        cluster_name: conf.cluster_name().unwrap_or("cluster").to_string(),
        kill_invalid_depend: conf.scheduler_flag("kill_invalid_depend"),
        defer: conf.scheduler_flag("defer"),
        enable_user_top: conf.scheduler_flag("enable_user_top"),
        private_jobs: conf.private_data_list().iter().any(|w| w == "jobs"),
        licenses: spur_core::grammar::values::licenses::totals(conf.licenses()),
        preempt,
        preempt_gang: gang,
        preempt_exempt_secs: preempt_exempt_secs(conf),
        backfill: BackfillSettings {
            enabled: conf.scheduler_type() != "sched/builtin",
            window_min: conf.bf_window_min(),
            resolution_secs: conf.bf_resolution_secs(),
            max_job_test: conf.bf_max_job_test(),
            continue_after_yield: conf.bf_continue(),
        },
        priority,
        // Filled in by `ControllerConfig::load`, which reads topology.conf.
        switch_tree: SwitchTree::default(),
        max_switch_wait_secs: conf
            .scheduler_option_u32("max_switch_wait")
            .unwrap_or(crate::state::DEFAULT_MAX_SWITCH_WAIT_SECS),
        prolog_alloc: prolog_flags.iter().any(|f| f == "alloc"),
        max_node_count: conf.get_u32("MaxNodeCount"),
        prolog_contain: prolog_flags.iter().any(|f| f == "contain"),
        node_epilog: conf.epilog().is_some_and(|e| !e.trim().is_empty()),
        accounting: accounting_enabled(conf),
        // Filled in by `ControllerConfig::load`, which reads slurmdbd.conf.
        accounting_keep_secs: None,
        enforce_associations: enforce.iter().any(|w| {
            matches!(
                w.as_str(),
                "associations" | "limits" | "qos" | "safe" | "all"
            )
        }),
        enforce_qos: enforce.iter().any(|w| matches!(w.as_str(), "qos" | "all")),
        enforce_limits: enforce
            .iter()
            .any(|w| matches!(w.as_str(), "limits" | "safe" | "all")),
        preempt_by_qos: conf
            .get_str("PreemptType")
            .is_some_and(|t| t.eq_ignore_ascii_case("preempt/qos")),
        fairshare: spur_core::policy::fairshare::FairShareSettings::from_conf(conf),
        def_cpus_per_gpu: conf
            .get_u64("DefCPUPerGPU")
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0),
        def_mem_per_gpu_mb: conf.get_u64("DefMemPerGPU").filter(|m| *m > 0),
        // slurmctld reads ALL, ANY and YES (and 1) as enforcing; NO, 0 or nothing do not.
        enforce_part_limits: conf.get_str("EnforcePartLimits").is_some_and(|v| {
            matches!(
                v.trim().to_ascii_uppercase().as_str(),
                "ALL" | "ANY" | "YES" | "1"
            )
        }),
        refuse_unrunnable: conf.scheduler_flag("spur_refuse_unrunnable"),
        track_wckey: conf.get_bool("TrackWCKey").unwrap_or(false),
        mpi_params: conf
            .get_str("MpiParams")
            .map(str::to_string)
            .filter(|p| !p.is_empty()),
        requeue_delay_secs: if conf.scheduler_flag("spur_requeue_at_once") {
            0
        } else {
            requeue_delay_secs(conf.get_str("AuthInfo"))
        },
    };
    let cluster = ClusterConfig::from_conf(conf, settings.cluster_name.clone());
    Ok(ConfigSnapshot {
        cluster,
        settings,
        nodes,
        partitions,
    })
}

fn expand(expr: &str) -> Result<Vec<String>, ConfigError> {
    spur_core::grammar::hostlist::expand(expr)
        .map_err(|e| ConfigError::Invalid(format!("bad host list {expr}: {e}")))
}

/// `NodeAddr`/`NodeHostname` lists pair with the names one to one; an empty one means "same as the name".
fn expand_or(expr: &str, names: &[String]) -> Result<Vec<String>, ConfigError> {
    if expr.is_empty() {
        return Ok(names.to_vec());
    }
    expand(expr)
}

/// The node's GRES from its `Gres=` and gres.conf, and the GPU topology gres.conf `Links=` describes (if any).
fn node_gres(
    spec: Option<&str>,
    known: &[&str],
    gres_conf: &GresConf,
    node: &str,
) -> Result<(Vec<NodeGres>, Option<GpuTopology>), ConfigError> {
    let Some(spec) = spec.filter(|s| !s.is_empty()) else {
        return Ok((Vec::new(), None));
    };
    let requests = spur_core::grammar::values::gres::parse_node_gres(spec, known)
        .map_err(|e| ConfigError::Invalid(format!("node {node}: Gres={spec}: {e}")))?;
    let in_nodes = |expr: &str, name: &str| {
        spur_core::grammar::hostlist::expand(expr)
            .is_ok_and(|names| names.iter().any(|n| n == name))
    };
    let records = gres_conf.for_node(node, &in_nodes).records;
    let mut gpu_files: Vec<String> = Vec::new();
    let mut gpu_links: Vec<Option<Vec<i32>>> = Vec::new();
    let gres = requests
        .into_iter()
        .map(|r| {
            let mut files = Vec::new();
            for rec in records.iter().filter(|rec| {
                rec.name == r.name && (r.type_name.is_none() || rec.type_name == r.type_name)
            }) {
                let rec_files = rec.files().unwrap_or_default();
                if r.name == GPU_GRES {
                    // A Links= row describes one device, so only a one-file line can carry it.
                    let row =
                        (rec_files.len() == 1 && !rec.links.is_empty()).then(|| rec.links.clone());
                    gpu_links.extend(rec_files.iter().map(|_| row.clone()));
                    gpu_files.extend(rec_files.iter().cloned());
                }
                files.extend(rec_files);
            }
            NodeGres {
                count: r.count_value(),
                name: r.name,
                gres_type: r.type_name,
                files,
            }
        })
        .collect::<Vec<NodeGres>>();
    let gres = with_shards_on_gpus(gres, &records, &gpu_files, node);
    Ok((gres, GpuTopology::from_gres_links(&gpu_files, &gpu_links)))
}

/// Gives the node's shard offers one device file per shard (the GPU it belongs to, see
/// [`spur_core::policy::gpu_shard`]) and, when they name no type, their GPUs' type, as slurmctld shows them
/// (`shard:a100:8`).
fn with_shards_on_gpus(
    mut gres: Vec<NodeGres>,
    records: &[&spur_core::grammar::conf::GresRecord],
    gpu_files: &[String],
    node: &str,
) -> Vec<NodeGres> {
    let gpu_types: Vec<Option<String>> = gres
        .iter()
        .filter(|g| g.name == GPU_GRES)
        .map(|g| g.gres_type.clone())
        .collect();
    for offer in gres.iter_mut().filter(|g| g.name == SHARD_GRES) {
        let mut files = Vec::new();
        for rec in records.iter().filter(|rec| {
            rec.name == SHARD_GRES
                && (offer.gres_type.is_none()
                    || rec.type_name.is_none()
                    || rec.type_name == offer.gres_type)
        }) {
            let rec_files = rec.files().unwrap_or_default();
            files.extend(shard_unit_files(rec.count, &rec_files, gpu_files));
        }
        if u64::try_from(files.len()).ok() != Some(offer.count) && !gpu_files.is_empty() {
            // slurmctld marks such a node INVAL; Spur keeps it and never hands out the shards it cannot place.
            tracing::warn!(
                "gres/shard on node {node} configured for {} resources but {} found",
                offer.count,
                files.len()
            );
        }
        offer.files = files;
        if offer.gres_type.is_none() {
            let mut types = gpu_types.iter();
            if let Some(first @ Some(_)) = types.next() {
                if types.all(|t| t == first) {
                    offer.gres_type = first.clone();
                }
            }
        }
    }
    gres
}

/// A partition's `TRESBillingWeights`, checked as slurmctld checks them (it refuses to start on a weight it
/// cannot read or a TRES it does not know).
fn billing_weights(p: &PartitionConf) -> Result<Option<String>, ConfigError> {
    let Some(text) = p
        .tres_billing_weights
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    else {
        return Ok(None);
    };
    spur_core::policy::billing::BillingWeights::parse(text)
        .map_err(|e| ConfigError::Invalid(format!("partition {}: {e}", p.name)))?;
    Ok(Some(text.trim().to_string()))
}

fn minutes(value: Option<&str>, key: &str, partition: &str) -> Result<Option<u32>, ConfigError> {
    match value {
        None => Ok(None),
        Some(text) => match parse_time_limit(text) {
            Ok(TimeLimit::Minutes(m)) => Ok(Some(m)),
            Ok(TimeLimit::Unlimited) => Ok(None),
            Err(_) => Err(ConfigError::Invalid(format!(
                "Bad value \"{text}\" for {key} in partition {partition}"
            ))),
        },
    }
}

/// `PreemptType=preempt/partition_prio` or `preempt/qos`: the cluster's `PreemptMode` (default OFF, which
/// partitions and QOS may override); other preemption types are not acted on.
fn preemption(conf: &SlurmConf) -> Option<PreemptMode> {
    let kind = conf.get_str("PreemptType")?;
    if !kind.eq_ignore_ascii_case("preempt/partition_prio")
        && !kind.eq_ignore_ascii_case("preempt/qos")
    {
        return None;
    }
    Some(
        conf.get_str("PreemptMode")
            .and_then(PreemptMode::parse)
            .unwrap_or(PreemptMode::Off),
    )
}

/// `PreemptExemptTime` in seconds; unset, `-1`, `INFINITE` or an unreadable value mean none, as in Slurm.
fn preempt_exempt_secs(conf: &SlurmConf) -> u32 {
    conf.get_str("PreemptExemptTime")
        .and_then(|text| {
            spur_core::grammar::values::time::parse_time_secs(text)
                .ok()
                .flatten()
        })
        .unwrap_or(0)
}

/// `disable_root_jobs`: the cluster's `DisableRootJobs`, which a partition without its own takes.
fn partition_of(
    p: &PartitionConf,
    all_nodes: &[String],
    disable_root_jobs: bool,
) -> Result<PartitionRecord, ConfigError> {
    let nodes_expr = p.nodes.clone().unwrap_or_default();
    let nodes = if nodes_expr.eq_ignore_ascii_case("ALL") {
        all_nodes.to_vec()
    } else if nodes_expr.is_empty() {
        Vec::new()
    } else {
        expand(&nodes_expr)?
    };
    let (def_mem_per_cpu_mb, def_mem_per_node_mb) = match p.def_mem {
        Some(MemPer::Cpu(mb)) => (Some(mb), None),
        Some(MemPer::Node(mb)) => (None, Some(mb)),
        None => (None, None),
    };
    Ok(PartitionRecord {
        name: p.name.clone(),
        nodes_expr: spur_core::grammar::hostlist::compress(&nodes),
        nodes,
        default: p.default,
        max_time_min: minutes(p.max_time.as_deref(), "MaxTime", &p.name)?,
        default_time_min: minutes(p.default_time.as_deref(), "DefaultTime", &p.name)?,
        max_nodes: Some(p.max_nodes).filter(|n| *n != u32::MAX && *n != 0),
        min_nodes: p.min_nodes,
        state: match p.state {
            ConfPartitionState::Up => PartitionState::Up,
            ConfPartitionState::Down => PartitionState::Down,
            ConfPartitionState::Drain => PartitionState::Drain,
            ConfPartitionState::Inactive => PartitionState::Inactive,
        },
        priority_tier: u32::from(p.priority_tier),
        priority_job_factor: u32::from(p.priority_job_factor),
        allow_groups: p.allow_groups.clone(),
        allow_accounts: p.allow_accounts.clone(),
        deny_accounts: p.deny_accounts.clone(),
        allow_qos: p.allow_qos.clone(),
        deny_qos: p.deny_qos.clone(),
        hidden: p.hidden,
        root_only: p.root_only,
        disable_root_jobs: p.disable_root_jobs.unwrap_or(disable_root_jobs),
        oversubscribe: oversubscribe_text(p.over_subscribe),
        max_mem_per_node_mb: match p.max_mem {
            Some(MemPer::Node(mb)) => Some(mb),
            _ => None,
        },
        def_mem_per_cpu_mb,
        def_mem_per_node_mb,
        tres_billing_weights: billing_weights(p)?,
        def_cpus_per_gpu: p
            .def_cpu_per_gpu
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0),
        def_mem_per_gpu_mb: p.def_mem_per_gpu.filter(|m| *m > 0),
        preempt_mode: p.preempt_mode.as_deref().and_then(PreemptMode::parse),
        grace_time_secs: p.grace_time,
        preempt_gang: false,
    })
}

/// `OverSubscribe=` as Slurm writes it (`scontrol show partition`, sinfo `%h`) and the scheduler reads it back.
fn oversubscribe_text(value: spur_core::grammar::conf::OverSubscribe) -> String {
    use spur_core::grammar::conf::OverSubscribe;
    match value {
        OverSubscribe::Exclusive => "EXCLUSIVE".to_string(),
        OverSubscribe::No => "NO".to_string(),
        OverSubscribe::Yes(n) => format!("YES:{n}"),
        OverSubscribe::Force(n) => format!("FORCE:{n}"),
    }
}

/// The requeue delay slurmctld uses: `AuthInfo`'s `cred_expire=` (read with atoi where it appears; under 5 is
/// refused and the default kept, as slurm_cred.c does) plus one second.
fn requeue_delay_secs(auth_info: Option<&str>) -> u32 {
    const DEFAULT_CRED_EXPIRE: u32 = 120;
    let cred_expire = auth_info
        .and_then(|info| info.split_once("cred_expire="))
        .map(|(_, rest)| spur_core::grammar::options::error::atoi(rest))
        .map_or(DEFAULT_CRED_EXPIRE, |n| {
            u32::try_from(n)
                .ok()
                .filter(|n| *n >= 5)
                .unwrap_or(DEFAULT_CRED_EXPIRE)
        });
    cred_expire.saturating_add(1)
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_requeue_delay_is_the_credential_lifetime_plus_one_as_in_slurm() {
        assert_eq!(requeue_delay_secs(None), 121);
        assert_eq!(
            requeue_delay_secs(Some("socket=/run/munge/munge.socket.2")),
            121
        );
        assert_eq!(requeue_delay_secs(Some("cred_expire=30,socket=/x")), 31);
        assert_eq!(requeue_delay_secs(Some("socket=/x,cred_expire=600")), 601);
        // slurm_cred.c refuses a lifetime under 5 s (and atoi's 0 for garbage) and keeps its default.
        assert_eq!(requeue_delay_secs(Some("cred_expire=4")), 121);
        assert_eq!(requeue_delay_secs(Some("cred_expire=soon")), 121);
    }
    use super::*;
    use spur_core::grammar::conf::ControllerHost;

    fn hosts() -> Vec<ControllerHost> {
        ["ctl1", "ctl2", "ctl3"]
            .iter()
            .enumerate()
            .map(|(i, name)| ControllerHost {
                hostname: (*name).to_string(),
                addr: format!("127.0.0.{}", i + 2),
            })
            .collect()
    }

    #[test]
    fn gres_conf_links_become_the_node_topology() {
        let conf = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=ctl\nGresTypes=gpu\nNodeName=g1 CPUs=8 Gres=gpu:mi300:4\nNodeName=g2 CPUs=8 Gres=gpu:2\n\
             PartitionName=p Nodes=ALL Default=YES\n",
            "slurm.conf",
        )
        .unwrap();
        let gres = GresConf::parse_str(
            "NodeName=g1 Name=gpu Type=mi300 File=/dev/dri/renderD128 Links=-1,4,0,0\n\
             NodeName=g1 Name=gpu Type=mi300 File=/dev/dri/renderD129 Links=4,-1,0,0\n\
             NodeName=g1 Name=gpu Type=mi300 File=/dev/dri/renderD130 Links=0,0,-1,4\n\
             NodeName=g1 Name=gpu Type=mi300 File=/dev/dri/renderD131 Links=0,0,4,-1\n\
             NodeName=g2 Name=gpu File=/dev/nvidia[0-1]\n",
            "gres.conf",
        )
        .unwrap();
        let snapshot = snapshot_of(&conf, &gres).unwrap();
        let g1 = snapshot.nodes.iter().find(|n| n.name == "g1").unwrap();
        let links = g1.gpu_links.as_ref().unwrap();
        assert_eq!(links.islands(), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(
            links.link(2, 3),
            spur_core::policy::gpu_topology::Link::Fabric { links: 4, hops: 1 }
        );
        assert_eq!(links.devices[3].file, "/dev/dri/renderD131");
        // Without Links= Slurm's lowest-index choice stays.
        let g2 = snapshot.nodes.iter().find(|n| n.name == "g2").unwrap();
        assert_eq!(g2.gpu_links, None);
    }

    #[test]
    fn shards_get_a_gpu_file_each_and_their_gpus_type() {
        let conf = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=ctl\nGresTypes=gpu,shard\n\
             NodeName=g1 CPUs=8 Gres=gpu:a100:4,shard:8\nNodeName=g2 CPUs=8 Gres=gpu:a100:2,shard:6\n\
             PartitionName=p Nodes=ALL Default=YES\n",
            "slurm.conf",
        )
        .unwrap();
        let gres = GresConf::parse_str(
            "NodeName=g1 Name=gpu Type=a100 File=/dev/nvidia[0-3]\n\
             NodeName=g1 Name=shard Count=8 File=/dev/nvidia[0-3]\n\
             NodeName=g2 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n\
             NodeName=g2 Name=shard Count=6\n",
            "gres.conf",
        )
        .unwrap();
        let snapshot = snapshot_of(&conf, &gres).unwrap();
        let shard_of = |node: &str| {
            let def = snapshot.nodes.iter().find(|n| n.name == node).unwrap();
            def.gres.iter().find(|g| g.name == "shard").unwrap().clone()
        };
        let g1 = shard_of("g1");
        assert_eq!(g1.gres_type.as_deref(), Some("a100"));
        assert_eq!(
            g1.files[..3],
            ["/dev/nvidia0", "/dev/nvidia0", "/dev/nvidia1"]
        );
        assert_eq!(g1.files.len(), 8);
        // Without File= the shards spread over the node's GPUs.
        let g2 = shard_of("g2");
        assert_eq!(
            g2.files,
            [
                "/dev/nvidia0",
                "/dev/nvidia0",
                "/dev/nvidia0",
                "/dev/nvidia1",
                "/dev/nvidia1",
                "/dev/nvidia1"
            ]
        );
    }

    #[test]
    fn the_member_is_named_numbered_or_this_host() {
        assert_eq!(select_member(&hosts(), Some("ctl2"), "x").ok(), Some(1));
        assert_eq!(select_member(&hosts(), Some("3"), "x").ok(), Some(2));
        assert_eq!(
            select_member(&hosts(), None, "ctl1.example.org").ok(),
            Some(0)
        );
        assert!(select_member(&hosts(), Some("4"), "ctl1").is_err());
        assert!(select_member(&hosts(), None, "other").is_err());
    }

    #[test]
    fn preemption_by_partition_tier_and_each_partitions_mode() {
        let text = "ClusterName=c\nSlurmctldHost=h\nPreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n\
                    SchedulerParameters=enable_user_top\nNodeName=n1 CPUs=2 State=UNKNOWN\n\
                    PartitionName=debug Nodes=ALL Default=YES\n\
                    PartitionName=low Nodes=ALL PreemptMode=CANCEL\n";
        let conf = SlurmConf::parse_str(text, "slurm.conf").unwrap();
        let snapshot = snapshot_of(&conf, &GresConf::default()).unwrap();
        assert_eq!(snapshot.settings.preempt, Some(PreemptMode::Requeue));
        assert!(snapshot.settings.enable_user_top);
        let modes: Vec<Option<PreemptMode>> =
            snapshot.partitions.iter().map(|p| p.preempt_mode).collect();
        assert_eq!(
            modes,
            vec![Some(PreemptMode::Requeue), Some(PreemptMode::Cancel)]
        );
        let off = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=h\nPreemptMode=REQUEUE\nNodeName=n1 CPUs=2\n",
            "slurm.conf",
        )
        .unwrap();
        assert_eq!(preemption(&off), None, "no PreemptType: no preemption");
        assert!(!snapshot.settings.preempt_gang);
        assert_eq!(snapshot.settings.preempt_exempt_secs, 0);
    }

    #[test]
    fn billing_weights_and_gpu_defaults_are_read_and_bad_weights_refused() {
        let text = "ClusterName=c\nSlurmctldHost=h\nDefCpuPerGPU=3\nDefMemPerGPU=500\n\
                    NodeName=n1 CPUs=2 State=UNKNOWN\n\
                    PartitionName=a Nodes=ALL Default=YES\n\
                    PartitionName=b Nodes=ALL TRESBillingWeights=CPU=1.0,Mem=0.25G DefCpuPerGPU=2\n";
        let conf = SlurmConf::parse_str(text, "slurm.conf").unwrap();
        let snapshot = snapshot_of(&conf, &GresConf::default()).unwrap();
        let b = &snapshot.partitions[1];
        assert_eq!(b.tres_billing_weights.as_deref(), Some("CPU=1.0,Mem=0.25G"));
        assert_eq!((b.def_cpus_per_gpu, b.def_mem_per_gpu_mb), (Some(2), None));
        assert_eq!(snapshot.partitions[0].tres_billing_weights, None);
        assert_eq!(
            (
                snapshot.settings.def_cpus_per_gpu,
                snapshot.settings.def_mem_per_gpu_mb
            ),
            (Some(3), Some(500))
        );
        let bad = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=2\n\
             PartitionName=a Nodes=ALL TRESBillingWeights=CPU=1,Bogus=2\n",
            "slurm.conf",
        )
        .unwrap();
        let err = snapshot_of(&bad, &GresConf::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("TRES weight 'Bogus' is not a configured TRES type."),
            "{err}"
        );
    }

    #[test]
    fn oversubscribe_is_kept_as_slurm_writes_it() {
        let text = "ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=2 State=UNKNOWN\n\
                    PartitionName=a Nodes=ALL Default=YES\nPartitionName=b Nodes=ALL OverSubscribe=YES\n\
                    PartitionName=c Nodes=ALL OverSubscribe=FORCE:2\n\
                    PartitionName=d Nodes=ALL OverSubscribe=EXCLUSIVE\n";
        let conf = SlurmConf::parse_str(text, "slurm.conf").unwrap();
        let snapshot = snapshot_of(&conf, &GresConf::default()).unwrap();
        let shown: Vec<&str> = snapshot
            .partitions
            .iter()
            .map(|p| p.oversubscribe.as_str())
            .collect();
        assert_eq!(shown, vec!["NO", "YES:4", "FORCE:2", "EXCLUSIVE"]);
    }

    #[test]
    fn grace_time_exempt_time_and_gang() {
        let text = "ClusterName=c\nSlurmctldHost=h\nPreemptType=preempt/partition_prio\n\
                    PreemptMode=SUSPEND,GANG\nPreemptExemptTime=00:02:30\nNodeName=n1 CPUs=2 State=UNKNOWN\n\
                    PartitionName=debug Nodes=ALL Default=YES\n\
                    PartitionName=low Nodes=ALL PreemptMode=CANCEL GraceTime=45\n";
        let conf = SlurmConf::parse_str(text, "slurm.conf").unwrap();
        let snapshot = snapshot_of(&conf, &GresConf::default()).unwrap();
        assert_eq!(snapshot.settings.preempt, Some(PreemptMode::Suspend));
        assert!(snapshot.settings.preempt_gang);
        assert_eq!(snapshot.settings.preempt_exempt_secs, 150);
        let grace: Vec<u32> = snapshot
            .partitions
            .iter()
            .map(|p| p.grace_time_secs)
            .collect();
        assert_eq!(grace, vec![0, 45]);
        // As sinfo %M shows them: the cluster's mode with its flag, a partition's own without.
        let shown: Vec<String> = snapshot
            .partitions
            .iter()
            .map(|p| p.preempt_mode_text())
            .collect();
        assert_eq!(shown, vec!["GANG,SUSPEND", "CANCEL"]);
    }

    #[test]
    fn private_data_and_partition_access_lists_reach_the_state() {
        let text = "ClusterName=c\nSlurmctldHost=h\nPrivateData=usage,JOBS\nNodeName=n1 CPUs=2 State=UNKNOWN\n\
                    PartitionName=debug Nodes=ALL Default=YES AllowGroups=gpu,ml RootOnly=YES\n\
                    DisableRootJobs=YES\nPartitionName=roots Nodes=ALL DisableRootJobs=NO\n\
                    PartitionName=deny Nodes=ALL DenyAccounts=bad DenyQos=low\n\
                    PartitionName=qos Nodes=ALL AllowQos=normal\n";
        let conf = SlurmConf::parse_str(text, "slurm.conf").unwrap();
        let snapshot = snapshot_of(&conf, &GresConf::default()).unwrap();
        assert!(snapshot.settings.private_jobs);
        let debug = &snapshot.partitions[0];
        assert_eq!(debug.allow_groups.as_deref(), Some("gpu,ml"));
        assert!(debug.root_only);
        assert!(debug.disable_root_jobs, "the cluster's DisableRootJobs");
        assert!(
            !snapshot.partitions[1].disable_root_jobs,
            "the partition's own"
        );
        let deny = &snapshot.partitions[2];
        assert_eq!(deny.deny_accounts.as_deref(), Some("bad"));
        assert_eq!(deny.deny_qos.as_deref(), Some("low"));
        assert_eq!(snapshot.partitions[3].allow_qos.as_deref(), Some("normal"));
        let open = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=h\nPrivateData=nodes\nNodeName=n1 CPUs=2\n",
            "slurm.conf",
        )
        .unwrap();
        assert!(
            !snapshot_of(&open, &GresConf::default())
                .unwrap()
                .settings
                .private_jobs
        );
    }

    #[test]
    fn postgresql_storage_names_the_shared_history_database() {
        let conf = |extra: &str| {
            SlurmConf::parse_str(
                &format!("ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=2\n{extra}"),
                "slurm.conf",
            )
            .unwrap()
        };
        assert_eq!(postgres_target(&conf("")), None);
        assert_eq!(
            postgres_target(&conf("AccountingStorageType=accounting_storage/slurmdbd\n")),
            None
        );
        let pg = conf(
            "AccountingStorageType=accounting_storage/postgresql\nAccountingStorageHost=db1\n\
             AccountingStoragePort=6543\nAccountingStorageUser=acct\nAccountingStoragePass=secret\n\
             AccountingStorageLoc=history\n",
        );
        assert!(accounting_enabled(&pg));
        assert_eq!(
            postgres_target(&pg),
            Some(crate::history::postgres::PgTarget {
                host: "db1".into(),
                port: 6543,
                user: "acct".into(),
                password: Some("secret".into()),
                database: "history".into(),
            })
        );
        let defaults = postgres_target(&conf(
            "AccountingStorageType=accounting_storage/postgresql\n",
        ))
        .unwrap();
        assert_eq!(
            (
                defaults.host.as_str(),
                defaults.port,
                defaults.user.as_str(),
                defaults.database.as_str()
            ),
            ("localhost", 5432, "spur", "spur")
        );
    }

    #[test]
    fn accounting_is_on_unless_storage_is_explicitly_none_and_keeps_purge_job_after() {
        let conf = |extra: &str| {
            SlurmConf::parse_str(
                &format!("ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=2\n{extra}"),
                "slurm.conf",
            )
            .unwrap()
        };
        assert!(accounting_enabled(&conf("")));
        assert!(accounting_enabled(&conf(
            "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=db1\n"
        )));
        assert!(!accounting_enabled(&conf(
            "AccountingStorageType=accounting_storage/none\n"
        )));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("slurm.conf");
        assert_eq!(read_accounting_retention(&path), None, "no slurmdbd.conf");
        std::fs::write(
            dir.path().join("slurmdbd.conf"),
            "StorageType=accounting_storage/mysql\nPurgeJobAfter=1month # old\npurgejobafter=48hours\n",
        )
        .unwrap();
        assert_eq!(read_accounting_retention(&path), Some(48 * 3600));
        std::fs::write(dir.path().join("slurmdbd.conf"), "PurgeJobAfter=soon\n").unwrap();
        assert_eq!(read_accounting_retention(&path), None);
    }

    #[test]
    fn topology_conf_is_read_beside_slurm_conf_with_topology_tree() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("slurm.conf");
        let text = "ClusterName=c\nSlurmctldHost=h\nNodeName=n[1-3] CPUs=2\n\
                    SchedulerParameters=max_switch_wait=60\nTopologyPlugin=topology/tree\n";
        let conf = SlurmConf::parse_str(text, "slurm.conf").unwrap();
        let snapshot = snapshot_of(&conf, &GresConf::default()).unwrap();
        assert_eq!(snapshot.settings.max_switch_wait_secs, 60);
        let topo = dir.path().join("topology.conf");
        let missing = read_switch_tree(&path, &conf, &snapshot.nodes).unwrap_err();
        assert_eq!(
            missing.to_string(),
            format!(
                "something wrong with opening/reading {}: No such file or directory (os error 2)",
                topo.display()
            )
        );
        std::fs::write(
            &topo,
            "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Switches=s0,s9\n",
        )
        .unwrap();
        let bad = read_switch_tree(&path, &conf, &snapshot.nodes).unwrap_err();
        assert_eq!(
            bad.to_string(),
            "Switch configuration s1 has invalid child (s9)"
        );
        std::fs::write(
            &topo,
            "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Switches=s0\n",
        )
        .unwrap();
        let tree = read_switch_tree(&path, &conf, &snapshot.nodes).unwrap();
        assert_eq!(tree.switches[1].nodes, vec!["n1", "n2"]);
        // Any other plugin leaves topology.conf unread.
        let none = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=h\nNodeName=n1\n",
            "slurm.conf",
        )
        .unwrap();
        assert!(read_switch_tree(&path, &none, &snapshot.nodes)
            .unwrap()
            .is_empty());
    }
}
