//! Node and partition records as the controller keeps them and clients see them (`sinfo`, `scontrol show node`,
//! `scontrol show partition`), plus the configuration summary behind `scontrol show config`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::model::job::EpochSecs;
pub use crate::model::states::NodeBaseState;
use crate::model::states::{NodeState, NodeStateFlag};

/// The GRES name whose units the GPU topology describes.
pub const GPU_GRES: &str = "gpu";

/// One GRES a node offers, e.g. four `gpu:a100` devices at `/dev/nvidia[0-3]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeGres {
    pub name: String,
    #[serde(default)]
    pub gres_type: Option<String>,
    pub count: u64,
    /// Device files, one per unit, in index order (empty for count-only GRES).
    #[serde(default)]
    pub files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeRecord {
    pub name: String,
    pub addr: String,
    pub hostname: String,
    pub cpus: u32,
    pub boards: u32,
    pub sockets: u32,
    pub cores_per_socket: u32,
    pub threads_per_core: u32,
    pub real_memory_mb: u64,
    #[serde(default)]
    pub tmp_disk_mb: u64,
    #[serde(default)]
    pub weight: u32,
    #[serde(default)]
    pub features: Vec<String>,
    #[serde(default)]
    pub gres: Vec<NodeGres>,
    pub base_state: NodeBaseState,
    #[serde(default)]
    pub drain: bool,
    /// Not responding: sinfo's `*` suffix.
    #[serde(default)]
    pub not_responding: bool,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub reason_time: Option<EpochSecs>,
    #[serde(default)]
    pub reason_uid: Option<u32>,
    #[serde(default)]
    pub alloc_cpus: u32,
    #[serde(default)]
    pub alloc_mem_mb: u64,
    /// CPUs of the jobs here that share their cores (`OverSubscribe=`), counted apart from `alloc_cpus` (the
    /// CPUs of jobs whose cores are their own); their sum may exceed the node's CPUs.
    #[serde(default)]
    pub alloc_shared_cpus: u32,
    /// What those jobs book, in [`crate::policy::oversubscribe::SLOTS_PER_CORE`] units per core.
    #[serde(default)]
    pub alloc_share_slots: u64,
    /// GRES units in use, by GRES name, as device indices.
    #[serde(default)]
    pub alloc_gres: BTreeMap<String, Vec<u32>>,
    #[serde(default)]
    pub partitions: Vec<String>,
    /// `TRESBillingWeights` of the first partition (in slurm.conf's order) holding the node that has them, which
    /// slurmctld weighs the node's TRES by (`billing=` of `CfgTRES`); `None` bills its CPUs.
    #[serde(default)]
    pub billing_weights: Option<String>,
    #[serde(default)]
    pub boot_time: Option<EpochSecs>,
    #[serde(default)]
    pub agent_start_time: Option<EpochSecs>,
    #[serde(default)]
    pub last_busy_time: Option<EpochSecs>,
    #[serde(default)]
    pub last_heartbeat: Option<EpochSecs>,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub os: String,
    #[serde(default)]
    pub arch: String,
    #[serde(default)]
    pub free_mem_mb: Option<u64>,
    #[serde(default)]
    pub cpu_load: Option<f64>,
    /// The agent's TCP port (`sinfo --json` `port`); `None` is Slurm's default 6818.
    #[serde(default)]
    pub port: Option<u16>,
    /// How the node's GPUs are linked (XGMI/NVLink, PCIe, NUMA), for placing a job's GPUs together.
    #[serde(default)]
    pub gpu_topology: crate::policy::gpu_topology::NodeTopology,
    /// An active reservation holds the node (`RESERVED`), a maintenance one (`MAINT`). The controller fills these
    /// in from its reservations and clock when it lists nodes; they are not state of their own.
    #[serde(default)]
    pub reserved: bool,
    #[serde(default)]
    pub maintenance: bool,
    /// Ended jobs whose `Epilog` still runs here (COMPLETING): the node takes no new job meanwhile.
    #[serde(default)]
    pub epilogs_running: u32,
}

impl NodeRecord {
    /// The CPUs in use as Slurm counts them (`CPUAlloc=`, sinfo's `A/I/O/T`): cores shared by several jobs
    /// count once, and sharing jobs spread over idle cores first.
    pub fn cpus_in_use(&self) -> u32 {
        self.alloc_cpus
            .saturating_add(self.alloc_shared_cpus)
            .min(self.cpus.max(self.alloc_cpus))
    }

    /// The device files of the GPU units in the order the scheduler numbers them, or `None` when a unit has none.
    pub fn gpu_unit_files(&self) -> Option<Vec<String>> {
        let mut files = Vec::new();
        for g in self.gres.iter().filter(|g| g.name == GPU_GRES) {
            if u64::try_from(g.files.len()).ok() != Some(g.count) {
                return None;
            }
            files.extend(g.files.iter().cloned());
        }
        Some(files)
    }

    /// How many GPU units the node offers.
    pub fn gpu_unit_count(&self) -> usize {
        let count: u64 = self
            .gres
            .iter()
            .filter(|g| g.name == GPU_GRES)
            .map(|g| g.count)
            .sum();
        usize::try_from(count).unwrap_or(usize::MAX)
    }

    /// Recomputes the topology placement uses after the node's GRES or either topology source changed.
    pub fn refresh_gpu_topology(&mut self) {
        let count = self.gpu_unit_count();
        let files = self.gpu_unit_files();
        self.gpu_topology.refresh(count, files.as_deref());
    }

    /// The node's state as Slurm packs it: base plus DRAIN, NOT_RESPONDING, ... flags.
    pub fn full_state(&self) -> NodeState {
        let mut state = NodeState::new(self.base_state);
        if self.drain {
            state = state.with(NodeStateFlag::Drain);
        }
        if self.not_responding {
            state = state.with(NodeStateFlag::NotResponding);
        }
        if self.maintenance {
            state = state.with(NodeStateFlag::Maintenance);
        }
        if self.reserved {
            state = state.with(NodeStateFlag::Reserved);
        }
        if self.epilogs_running > 0 {
            state = state.with(NodeStateFlag::Completing);
        }
        state
    }

    /// Down nodes, drained nodes, nodes that stopped answering and nodes still running an ended job's epilog
    /// accept no new work.
    pub fn accepts_work(&self) -> bool {
        !self.drain
            && !self.not_responding
            && self.epilogs_running == 0
            && !matches!(
                self.base_state,
                NodeBaseState::Down | NodeBaseState::Unknown
            )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartitionState {
    Up,
    Down,
    Drain,
    Inactive,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionRecord {
    pub name: String,
    /// The hostlist expression as configured (`ALL` already resolved to the node names).
    pub nodes_expr: String,
    pub nodes: Vec<String>,
    pub default: bool,
    /// Minutes; `None` = UNLIMITED.
    pub max_time_min: Option<u32>,
    pub default_time_min: Option<u32>,
    pub max_nodes: Option<u32>,
    pub min_nodes: u32,
    pub state: PartitionState,
    pub priority_tier: u32,
    pub priority_job_factor: u32,
    #[serde(default)]
    pub allow_groups: Option<String>,
    #[serde(default)]
    pub allow_accounts: Option<String>,
    /// `DenyAccounts=`; shown instead of `AllowAccounts` when set. Like `AllowAccounts` and the QOS lists, it is
    /// enforced by Slurm only with accounting (`AccountingStorageEnforce`), which Spur does not have.
    #[serde(default)]
    pub deny_accounts: Option<String>,
    #[serde(default)]
    pub allow_qos: Option<String>,
    #[serde(default)]
    pub deny_qos: Option<String>,
    #[serde(default)]
    pub hidden: bool,
    #[serde(default)]
    pub root_only: bool,
    /// `DisableRootJobs=YES` (the partition's, else the cluster's): jobs of uid 0 are refused.
    #[serde(default)]
    pub disable_root_jobs: bool,
    #[serde(default)]
    pub oversubscribe: String,
    #[serde(default)]
    pub max_mem_per_node_mb: Option<u64>,
    #[serde(default)]
    pub def_mem_per_cpu_mb: Option<u64>,
    #[serde(default)]
    pub def_mem_per_node_mb: Option<u64>,
    /// `TRESBillingWeights` as configured (see [`crate::policy::billing`]); `None` bills CPUs.
    #[serde(default)]
    pub tres_billing_weights: Option<String>,
    /// `DefCpuPerGPU`: CPUs per GPU for this partition's jobs that ask for GPUs without `-c`/`--cpus-per-gpu`.
    #[serde(default)]
    pub def_cpus_per_gpu: Option<u32>,
    /// `DefMemPerGPU` in MB, for this partition's jobs that ask for GPUs without memory options.
    #[serde(default)]
    pub def_mem_per_gpu_mb: Option<u64>,
    /// The partition's `PreemptMode`: what happens to its jobs when a higher-tier job preempts them; `None` takes
    /// the cluster's.
    #[serde(default)]
    pub preempt_mode: Option<PreemptMode>,
    /// `GraceTime`: seconds a job of this partition keeps running (signalled) after it was chosen for preemption
    /// by `CANCEL` or `REQUEUE`, before it is ended or requeued.
    #[serde(default)]
    pub grace_time_secs: u32,
    /// The partition has the cluster's `PreemptMode`, which carries `GANG`: shown as `GANG,<mode>`.
    #[serde(default)]
    pub preempt_gang: bool,
}

impl PartitionRecord {
    /// An up partition of these nodes with every other setting at Slurm's default (no limits, tier and job factor
    /// 1, `OverSubscribe=NO`, the cluster's `PreemptMode`); not the default partition.
    pub fn with_nodes(name: &str, nodes: &[String]) -> PartitionRecord {
        PartitionRecord {
            name: name.to_string(),
            nodes_expr: nodes.join(","),
            nodes: nodes.to_vec(),
            default: false,
            max_time_min: None,
            default_time_min: None,
            max_nodes: None,
            min_nodes: 0,
            state: PartitionState::Up,
            priority_tier: 1,
            priority_job_factor: 1,
            allow_groups: None,
            allow_accounts: None,
            deny_accounts: None,
            allow_qos: None,
            deny_qos: None,
            hidden: false,
            root_only: false,
            disable_root_jobs: false,
            oversubscribe: "NO".to_string(),
            max_mem_per_node_mb: None,
            def_mem_per_cpu_mb: None,
            def_mem_per_node_mb: None,
            tres_billing_weights: None,
            def_cpus_per_gpu: None,
            def_mem_per_gpu_mb: None,
            preempt_mode: None,
            grace_time_secs: 0,
            preempt_gang: false,
        }
    }

    /// `PreemptMode` as `scontrol show partition` and `sinfo %M` print it (`OFF`, `CANCEL`, `GANG,SUSPEND`).
    pub fn preempt_mode_text(&self) -> String {
        let mode = self.preempt_mode.map_or("OFF", |m| m.name());
        if self.preempt_gang {
            format!("GANG,{mode}")
        } else {
            mode.to_string()
        }
    }
}

/// `PreemptMode`, of the cluster or of a partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PreemptMode {
    Off,
    /// The preempted job ends `PREEMPTED`.
    Cancel,
    /// The preempted job goes back to the queue.
    Requeue,
    /// The preempted job is suspended and resumes once its CPUs are free again; only with `GANG` in the
    /// cluster's mode (without it such jobs are never preempted, as in Slurm).
    Suspend,
}

impl PreemptMode {
    /// `REQUEUE`, `cancel`, `SUSPEND,GANG`: the mode is the first word; `GANG` alone is no preemption.
    pub fn parse(text: &str) -> Option<PreemptMode> {
        match text.split(',').next()?.trim().to_ascii_uppercase().as_str() {
            "OFF" | "GANG" => Some(PreemptMode::Off),
            "CANCEL" => Some(PreemptMode::Cancel),
            "REQUEUE" => Some(PreemptMode::Requeue),
            "SUSPEND" => Some(PreemptMode::Suspend),
            _ => None,
        }
    }

    /// As `scontrol show partition` and `sinfo %M` print it.
    pub fn name(self) -> &'static str {
        match self {
            PreemptMode::Off => "OFF",
            PreemptMode::Cancel => "CANCEL",
            PreemptMode::Requeue => "REQUEUE",
            PreemptMode::Suspend => "SUSPEND",
        }
    }

    /// Whether the scheduler takes resources back from such jobs by ending or requeueing them.
    pub fn preempts(self) -> bool {
        matches!(self, PreemptMode::Cancel | PreemptMode::Requeue)
    }

    /// Whether a mode text carries the `GANG` flag (`SUSPEND,GANG`, `GANG,REQUEUE`).
    pub fn has_gang(text: &str) -> bool {
        text.split(',')
            .any(|word| word.trim().eq_ignore_ascii_case("GANG"))
    }
}

/// What `scontrol show config` prints and what clients need to know about the cluster.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClusterConfig {
    pub cluster_name: String,
    pub controllers: Vec<String>,
    /// Every key as configured, in file order, for `scontrol show config`.
    pub entries: Vec<(String, String)>,
    pub boot_time: EpochSecs,
}

impl ClusterConfig {
    /// slurm.conf as read, before a controller records its boot time: the controller's configuration and
    /// libspur_compat's `slurm_conf` are both built from this one reading.
    pub fn from_conf(conf: &crate::grammar::conf::SlurmConf, cluster_name: String) -> Self {
        ClusterConfig {
            cluster_name,
            controllers: conf
                .controllers
                .iter()
                .map(|c| c.hostname.clone())
                .collect(),
            entries: conf
                .entries
                .iter()
                .map(|e| (e.key.clone(), e.value.clone()))
                .collect(),
            boot_time: 0,
        }
    }
}

/// One license of slurm.conf's `Licenses=`, as `scontrol show licenses` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LicenseRecord {
    pub name: String,
    pub total: u32,
    /// Held by running (and completing) jobs.
    pub used: u32,
}
