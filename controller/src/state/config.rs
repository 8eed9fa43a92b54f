//! Configuration as the state machine sees it: the resolved nodes, partitions and scheduling settings a controller
//! started with. It enters the log as a command, so replicas and replays never re-read slurm.conf themselves.

use serde::{Deserialize, Serialize};

use spur_core::model::records::{
    ClusterConfig, NodeBaseState, NodeGres, NodeRecord, PartitionRecord,
};

use super::ClusterState;

/// Scheduling-relevant settings from slurm.conf (and spur.conf).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub min_job_age_secs: u32,
    pub kill_wait_secs: u32,
    pub first_job_id: u32,
    pub max_array_size: u32,
    /// `DefMemPerCPU` in MB; `None` when unset.
    pub def_mem_per_cpu_mb: Option<u64>,
    pub max_mem_per_node_mb: Option<u64>,
    /// `SelectTypeParameters=CR_*_Memory`: memory is a consumable resource.
    pub memory_is_consumable: bool,
    /// Seconds without a heartbeat before a node is marked not responding (`SlurmdTimeout`).
    pub node_timeout_secs: u32,
    /// Users that may administer anything (root and `SlurmUser`).
    pub admin_uids: Vec<u32>,
    pub cluster_name: String,
    /// `SchedulerParameters=kill_invalid_depend`: cancel jobs whose dependency can never be satisfied.
    #[serde(default)]
    pub kill_invalid_depend: bool,
    /// `SchedulerParameters=defer`: no job is started as it is submitted; the next pass decides.
    #[serde(default)]
    pub defer: bool,
    /// `SchedulerType` and the backfill options of `SchedulerParameters`.
    #[serde(default)]
    pub backfill: BackfillSettings,
    /// `PriorityType=priority/multifactor` and its weights; `None` is `priority/basic`.
    #[serde(default)]
    pub priority: Option<spur_core::policy::priority::PriorityWeights>,
    /// `SchedulerParameters=enable_user_top`: users may `scontrol top` their own jobs (else only administrators).
    #[serde(default)]
    pub enable_user_top: bool,
    /// `PreemptType=preempt/partition_prio` with the cluster's `PreemptMode`; `None`: no preemption.
    #[serde(default)]
    pub preempt: Option<spur_core::model::records::PreemptMode>,
    /// `GANG` in the cluster's `PreemptMode`: `SUSPEND` preempts, and (as in Slurm, whose gang scheduler then
    /// preempts) `GraceTime` is not applied.
    #[serde(default)]
    pub preempt_gang: bool,
    /// `PreemptExemptTime`: seconds a job runs before it may be preempted.
    #[serde(default)]
    pub preempt_exempt_secs: u32,
    /// `PrivateData=jobs`: users other than root and SlurmUser see only their own jobs.
    #[serde(default)]
    pub private_jobs: bool,
    /// slurm.conf `Licenses`: each license's total.
    #[serde(default)]
    pub licenses: std::collections::BTreeMap<String, u32>,
    /// `TopologyPlugin=topology/tree`: topology.conf's switches, which multi-node jobs are kept under; empty
    /// otherwise (docs/scheduling.md, Topology).
    #[serde(default)]
    pub switch_tree: spur_core::policy::switch_tree::SwitchTree,
    /// `SchedulerParameters=max_switch_wait`: the longest a job may wait for its `--switches` count, in seconds.
    #[serde(default = "default_max_switch_wait_secs")]
    pub max_switch_wait_secs: u32,
    /// `PrologFlags=Alloc`: the prolog runs on every node of a job when it is allocated (controller/src/state/
    /// prolog.rs).
    #[serde(default)]
    pub prolog_alloc: bool,
    /// `PrologFlags=Contain`: as `Alloc`, and every job has an extern step on its nodes.
    #[serde(default)]
    pub prolog_contain: bool,
    /// slurm.conf `MaxNodeCount`: the node table's size, which leaves slots for `scontrol create NodeName=`;
    /// `None` when unset (no spare slot).
    #[serde(default)]
    pub max_node_count: Option<u32>,
    /// slurm.conf names an `Epilog`: an ended job's other nodes are held until theirs has run (state/epilog.rs).
    /// Without one there is nothing to wait for, so nodes are free as soon as the job ends.
    #[serde(default)]
    pub node_epilog: bool,
    /// Jobs' accounting records are kept after MinJobAge purges them (`sacct`): every `AccountingStorageType`
    /// but an explicit `accounting_storage/none` (docs/accounting.md).
    #[serde(default = "default_true")]
    pub accounting: bool,
    /// How long purged jobs' records are kept after they ended, in seconds; `None` keeps them for ever.
    #[serde(default)]
    pub accounting_keep_secs: Option<u32>,
    /// `AccountingStorageEnforce` with `associations` (or `limits`, `qos`, `safe`, which imply it): a job's user
    /// needs an association in the job's account.
    #[serde(default)]
    pub enforce_associations: bool,
    /// `AccountingStorageEnforce=qos`: a job's QOS must be one its association may use.
    #[serde(default)]
    pub enforce_qos: bool,
    /// `AccountingStorageEnforce=limits`: QOS and association limits hold jobs back.
    #[serde(default)]
    pub enforce_limits: bool,
    /// `PreemptType=preempt/qos`: jobs preempt by their QOS's `Preempt` lists instead of partition tiers.
    #[serde(default)]
    pub preempt_by_qos: bool,
    /// `PriorityDecayHalfLife`, `PriorityUsageResetPeriod` and Fair Tree or not (`PriorityFlags=NO_FAIR_TREE`).
    #[serde(default)]
    pub fairshare: spur_core::policy::fairshare::FairShareSettings,
    /// `DefCpuPerGPU`: CPUs per GPU for jobs that ask for GPUs without `-c` or `--cpus-per-gpu` (a partition's
    /// own takes precedence).
    #[serde(default)]
    pub def_cpus_per_gpu: Option<u32>,
    /// `DefMemPerGPU` in MB, likewise for jobs that ask for GPUs without memory options.
    #[serde(default)]
    pub def_mem_per_gpu_mb: Option<u64>,
    /// `EnforcePartLimits=ALL|ANY|YES`: a job beyond its partition's CPUs or node limits is refused at submit
    /// (`More processors requested than permitted`, `Node count specification invalid`) instead of pending.
    #[serde(default)]
    pub enforce_part_limits: bool,
    /// `SchedulerParameters=spur_refuse_unrunnable` (Spur only; slurmctld ignores options it does not know): a
    /// job its partition's nodes could never hold is refused at submit with `Requested node configuration is not
    /// available` instead of pending with reason `PartitionConfig`/`PartitionNodeLimit` as in Slurm.
    #[serde(default)]
    pub refuse_unrunnable: bool,
    /// `TrackWCKey=yes`: jobs' WCKeys are kept, so `sacctmgr modify job set NewWCKey=` may change them.
    #[serde(default)]
    pub track_wckey: bool,
    /// slurm.conf `MpiParams` as written: with it, steps reserve ports unless srun says otherwise, from its
    /// `ports=` range (state/ports.rs).
    #[serde(default)]
    pub mpi_params: Option<String>,
    /// How long a requeued job waits before it may run again, in seconds: slurmctld sets a requeued job's begin
    /// time to now + the launch credential's lifetime (`AuthInfo=cred_expire=`, 120 by default) + 1, so the old
    /// run's credential has expired before a new one is issued; the job shows `Reason=BeginTime` meanwhile.
    /// `SchedulerParameters=spur_requeue_at_once` (Spur only) makes it 0, Spur's earlier behaviour.
    #[serde(default = "default_requeue_delay_secs")]
    pub requeue_delay_secs: u32,
}

/// slurmctld's requeue delay with the default credential lifetime (120 s) and its extra second.
pub const DEFAULT_REQUEUE_DELAY_SECS: u32 = 121;

fn default_requeue_delay_secs() -> u32 {
    DEFAULT_REQUEUE_DELAY_SECS
}

fn default_true() -> bool {
    true
}

/// Slurm's default `max_switch_wait`.
pub const DEFAULT_MAX_SWITCH_WAIT_SECS: u32 = 300;

fn default_max_switch_wait_secs() -> u32 {
    DEFAULT_MAX_SWITCH_WAIT_SECS
}

/// `SchedulerType=sched/backfill` (the default) or `sched/builtin`, and the `bf_*` options that shape the pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BackfillSettings {
    /// `sched/backfill`; `false` is `sched/builtin` (strict priority order within each partition).
    pub enabled: bool,
    /// `bf_window`: how far ahead reservations are made, in minutes.
    pub window_min: u32,
    /// `bf_resolution`: the granularity of times in the availability profile, in seconds.
    pub resolution_secs: u32,
    /// `bf_max_job_test`: how many waiting jobs get a reservation per pass.
    pub max_job_test: u32,
    /// `bf_continue`: accepted; a Spur pass never yields part way, so there is nothing to continue from.
    pub continue_after_yield: bool,
}

impl Default for BackfillSettings {
    fn default() -> Self {
        BackfillSettings {
            enabled: true,
            window_min: 1440,
            resolution_secs: 60,
            max_job_test: 500,
            continue_after_yield: false,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            min_job_age_secs: 300,
            kill_wait_secs: 30,
            first_job_id: 1,
            max_array_size: 1001,
            def_mem_per_cpu_mb: None,
            max_mem_per_node_mb: None,
            memory_is_consumable: false,
            node_timeout_secs: 300,
            admin_uids: vec![0],
            cluster_name: "cluster".to_string(),
            kill_invalid_depend: false,
            defer: false,
            enable_user_top: false,
            private_jobs: false,
            licenses: std::collections::BTreeMap::new(),
            preempt: None,
            preempt_gang: false,
            preempt_exempt_secs: 0,
            backfill: BackfillSettings::default(),
            priority: None,
            switch_tree: Default::default(),
            max_switch_wait_secs: DEFAULT_MAX_SWITCH_WAIT_SECS,
            prolog_alloc: false,
            prolog_contain: false,
            max_node_count: None,
            node_epilog: false,
            accounting: true,
            accounting_keep_secs: None,
            enforce_associations: false,
            enforce_qos: false,
            enforce_limits: false,
            preempt_by_qos: false,
            fairshare: Default::default(),
            def_cpus_per_gpu: None,
            def_mem_per_gpu_mb: None,
            enforce_part_limits: false,
            refuse_unrunnable: false,
            track_wckey: false,
            mpi_params: None,
            requeue_delay_secs: DEFAULT_REQUEUE_DELAY_SECS,
        }
    }
}

/// A node as configured, before any agent registered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeDefinition {
    pub name: String,
    pub addr: String,
    pub hostname: String,
    pub cpus: u32,
    pub boards: u32,
    pub sockets: u32,
    pub cores_per_socket: u32,
    pub threads_per_core: u32,
    pub real_memory_mb: u64,
    pub tmp_disk_mb: u64,
    pub weight: u32,
    pub features: Vec<String>,
    pub gres: Vec<NodeGres>,
    /// GPU links from gres.conf `Links=`, in GPU unit order.
    #[serde(default)]
    pub gpu_links: Option<spur_core::policy::gpu_topology::GpuTopology>,
    /// `State=DRAIN`/`DOWN` in slurm.conf.
    pub configured_down: bool,
    pub configured_drain: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigSnapshot {
    pub cluster: ClusterConfig,
    pub settings: Settings,
    pub nodes: Vec<NodeDefinition>,
    pub partitions: Vec<PartitionRecord>,
}

impl ClusterState {
    pub(super) fn apply_config(&mut self, snapshot: ConfigSnapshot) {
        self.config = snapshot.cluster;
        if self.next_job_id < snapshot.settings.first_job_id {
            self.next_job_id = snapshot.settings.first_job_id;
        }
        self.settings = snapshot.settings;
        self.seed_accounting_entities();
        if self.settings.fairshare.reset == spur_core::policy::fairshare::UsageReset::Now {
            self.usage.reset();
        }
        let mut all_partitions = snapshot.partitions;
        let kept = self.runtime_partitions_outside(&all_partitions);
        self.runtime_partitions
            .retain(|name| kept.iter().any(|p| &p.name == name));
        all_partitions.extend(kept);
        let mut nodes = std::collections::BTreeMap::new();
        for def in snapshot.nodes {
            let partitions = all_partitions
                .iter()
                .filter(|p| p.nodes.contains(&def.name))
                .map(|p| p.name.clone())
                .collect();
            let billing_weights =
                super::partitions::node_billing_weights(&all_partitions, &def.name);
            let mut node = match self.nodes.remove(&def.name) {
                // A node that survives a reconfiguration keeps its allocations, drain state and liveness.
                Some(mut existing) => {
                    update_shape(&mut existing, &def);
                    existing.partitions = partitions;
                    existing
                }
                None => new_node(def, partitions),
            };
            node.billing_weights = billing_weights;
            nodes.insert(node.name.clone(), node);
        }
        self.nodes = nodes;
        self.partitions = all_partitions;
    }
}

fn update_shape(node: &mut NodeRecord, def: &NodeDefinition) {
    node.addr = def.addr.clone();
    node.hostname = def.hostname.clone();
    node.cpus = def.cpus;
    node.boards = def.boards;
    node.sockets = def.sockets;
    node.cores_per_socket = def.cores_per_socket;
    node.threads_per_core = def.threads_per_core;
    node.real_memory_mb = def.real_memory_mb;
    node.tmp_disk_mb = def.tmp_disk_mb;
    node.weight = def.weight;
    node.features = def.features.clone();
    node.gres = def.gres.clone();
    node.gpu_topology.configured = def.gpu_links.clone();
    node.refresh_gpu_topology();
}

fn new_node(def: NodeDefinition, partitions: Vec<String>) -> NodeRecord {
    let base_state = if def.configured_down {
        NodeBaseState::Down
    } else {
        NodeBaseState::Unknown
    };
    let mut node = NodeRecord {
        name: def.name.clone(),
        addr: String::new(),
        hostname: String::new(),
        cpus: 0,
        boards: 1,
        sockets: 1,
        cores_per_socket: 1,
        threads_per_core: 1,
        real_memory_mb: 0,
        tmp_disk_mb: 0,
        weight: 1,
        features: Vec::new(),
        gres: Vec::new(),
        base_state,
        drain: def.configured_drain,
        // Unknown until its agent registers: sinfo shows such nodes with `*`.
        not_responding: true,
        reason: None,
        reason_time: None,
        reason_uid: None,
        alloc_cpus: 0,
        alloc_mem_mb: 0,
        alloc_shared_cpus: 0,
        alloc_share_slots: 0,
        alloc_gres: Default::default(),
        partitions,
        billing_weights: None,
        boot_time: None,
        agent_start_time: None,
        last_busy_time: None,
        last_heartbeat: None,
        version: String::new(),
        os: String::new(),
        arch: String::new(),
        free_mem_mb: None,
        cpu_load: None,
        port: None,
        gpu_topology: Default::default(),
        reserved: false,
        maintenance: false,
        epilogs_running: 0,
    };
    update_shape(&mut node, &def);
    node
}
