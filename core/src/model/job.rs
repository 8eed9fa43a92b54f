//! Spur's one job model: what a submission asks for ([`JobSpec`]) and what the controller knows about a job
//! ([`JobRecord`]). The controller persists these in its Raft log and snapshots, the CLI formats them, REST and the
//! C shim translate them; keeping one definition is what keeps those views in agreement.
//!
//! Every field added later must be optional (`#[serde(default)]`): records are persisted and replayed.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::model::states::{JobBaseState, JobReason, JobState, JobStateFlag};

/// Seconds since the Unix epoch; the controller injects the clock, so records never read it themselves.
pub type EpochSecs = i64;

/// One generic resource request per node (`--gres=gpu:a100:2`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GresRequest {
    pub name: String,
    #[serde(default)]
    pub gres_type: Option<String>,
    pub count: u64,
}

/// How output files are opened (`--open-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OpenMode {
    #[default]
    Truncate,
    Append,
}

/// What a user asked for, resolved from the command line, the environment and `#SBATCH` directives.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JobSpec {
    pub name: String,
    pub user_id: u32,
    pub group_id: u32,
    #[serde(default)]
    pub user_name: String,
    #[serde(default)]
    pub account: Option<String>,
    #[serde(default)]
    pub qos: Option<String>,
    /// `None`: the partition's default.
    #[serde(default)]
    pub partition: Option<String>,
    /// Minutes; `None` takes the partition's DefaultTime or MaxTime.
    #[serde(default)]
    pub time_limit_min: Option<u32>,
    #[serde(default)]
    pub time_min_min: Option<u32>,
    pub nodes_min: u32,
    #[serde(default)]
    pub nodes_max: Option<u32>,
    /// `-n`; `None` when not given (Slurm then shows one task per node).
    #[serde(default)]
    pub ntasks: Option<u32>,
    #[serde(default)]
    pub ntasks_per_node: Option<u32>,
    pub cpus_per_task: u32,
    #[serde(default)]
    pub mem_per_node_mb: Option<u64>,
    #[serde(default)]
    pub mem_per_cpu_mb: Option<u64>,
    #[serde(default)]
    pub tmp_disk_mb: u64,
    #[serde(default)]
    pub gres: Vec<GresRequest>,
    /// The `--gres` text as the user wrote it, for `TresPerNode=`.
    #[serde(default)]
    pub gres_text: Option<String>,
    #[serde(default)]
    pub exclusive: bool,
    #[serde(default)]
    pub required_nodes: Option<String>,
    #[serde(default)]
    pub excluded_nodes: Option<String>,
    #[serde(default)]
    pub constraint: Option<String>,
    /// `--array` as written (`1-10:2%4`).
    #[serde(default)]
    pub array: Option<String>,
    /// `--dependency` as written.
    #[serde(default)]
    pub dependency: Option<String>,
    #[serde(default)]
    pub begin_time: Option<EpochSecs>,
    /// `--deadline`: the job is removed if it cannot finish by then.
    #[serde(default)]
    pub deadline: Option<EpochSecs>,
    #[serde(default)]
    pub hold: bool,
    #[serde(default)]
    pub nice: i32,
    #[serde(default = "default_true")]
    pub requeue: bool,
    /// `--no-kill`: the failure of a node other than the first shrinks the job instead of ending it.
    #[serde(default)]
    pub no_kill: bool,
    pub work_dir: String,
    /// Filename patterns (`%j`), expanded on the node that runs the job.
    #[serde(default)]
    pub stdout: Option<String>,
    #[serde(default)]
    pub stderr: Option<String>,
    #[serde(default)]
    pub stdin: Option<String>,
    #[serde(default)]
    pub open_mode: OpenMode,
    /// The submitter's soft resource limits the job inherits (`--propagate`, `PropagateResourceLimits`), by
    /// Slurm's names (`NOFILE`); `u64::MAX` is unlimited.
    #[serde(default)]
    pub rlimits: Vec<(String, u64)>,
    /// The batch script; `None` for allocations without one (salloc, srun). Empty in listings.
    #[serde(default, serialize_with = "crate::wire::listing::script")]
    pub script: Option<String>,
    #[serde(default)]
    pub argv: Vec<String>,
    /// The submission path shown as `Command=`; `None` for `--wrap` and stdin scripts.
    #[serde(default)]
    pub command: Option<String>,
    /// The environment the job will see (after `--export` was applied on the submit side). Empty in listings.
    #[serde(default, serialize_with = "crate::wire::listing::environment")]
    pub environment: Vec<(String, String)>,
    /// `--signal`: signal number and seconds before the time limit, and whether only the batch shell gets it.
    #[serde(default)]
    pub signal: Option<(i32, u32, bool)>,
    #[serde(default)]
    pub comment: Option<String>,
    #[serde(default)]
    pub submit_host: String,
    /// The submitting process's session id (`AllocNode:Sid=host:sid`).
    #[serde(default)]
    pub submit_sid: u32,
    /// Every option the submission carried, by long name, including those Spur does not act on yet.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// `--kill-on-invalid-dep`: `Some(true)` cancels the job once its dependency can never be satisfied,
    /// `Some(false)` keeps it pending even where slurm.conf says `kill_invalid_depend`.
    #[serde(default)]
    pub kill_on_invalid_dep: Option<bool>,
    /// The submitting host as the controller resolved the client's address (`AllocNode:Sid=`); set by the
    /// controller, never taken from the client. `None` for callers without an address (Unix socket).
    #[serde(default)]
    pub alloc_node: Option<String>,
    /// `--reservation`: the job runs only on that reservation's nodes, inside its window.
    #[serde(default)]
    pub reservation: Option<String>,
    /// `-L`/`--licenses` as given (`fluent:2,ansys`): the job starts only while these are free.
    #[serde(default)]
    pub licenses: Option<String>,
    /// `--switches=count[@time]`: the most leaf switches the job may span under `topology/tree`, and how long it
    /// waits for that before taking what there is.
    #[serde(default)]
    pub switches: Option<SwitchRequest>,
    /// `--mincpus`: the fewest CPUs the job takes on each of its nodes (`MinCPUsNode=`).
    #[serde(default)]
    pub min_cpus_per_node: Option<u32>,
    /// `--immediate` without seconds (salloc, srun): the controller starts the job as it takes it in or fails it,
    /// using up its job id as slurmctld does.
    #[serde(default)]
    pub immediate: bool,
    /// `--cpus-per-gpu`: on each node at least this many CPUs for each GPU the job gets there.
    #[serde(default)]
    pub cpus_per_gpu: Option<u32>,
    /// `--mem-per-gpu` (MB, above 0): the job's memory on each node is this much for each GPU it gets there.
    #[serde(default)]
    pub mem_per_gpu_mb: Option<u64>,
    /// The partition's (else the cluster's) `DefCpuPerGPU`, set by the controller at submission for a job that
    /// asks for GPUs without `-c` or `--cpus-per-gpu`: it then sizes the job as `--cpus-per-gpu` would.
    #[serde(default)]
    pub def_cpus_per_gpu: Option<u32>,
    /// The partition's (else the cluster's) `DefMemPerGPU` in MB, set likewise for a job that asks for GPUs
    /// without `--mem-per-gpu`; it sizes the job's memory only when it gave neither `--mem` nor `--mem-per-cpu`.
    #[serde(default)]
    pub def_mem_per_gpu_mb: Option<u64>,
}

/// `--switches=count[@time]` as the controller keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct SwitchRequest {
    /// The most leaf switches the job may span.
    pub count: u32,
    /// How long the job waits for that, in seconds: the controller caps it at `max_switch_wait` (and gives a
    /// request without a time that limit), so `None` only comes from clients.
    #[serde(default)]
    pub wait_secs: Option<u32>,
}

impl JobSpec {
    /// `-O`/`--overcommit`: the job is sized by its nodes, not its tasks (slurmctld's `min_cpus` is the node count
    /// and its per-node CPUs one task's), so it may run more tasks than it has CPUs.
    pub fn overcommit(&self) -> bool {
        self.options.contains_key("overcommit")
    }

    /// CPUs per GPU that size the job: `--cpus-per-gpu`, else `DefCpuPerGPU`.
    pub fn cpus_per_gpu_in_effect(&self) -> Option<u32> {
        self.cpus_per_gpu.or(self.def_cpus_per_gpu)
    }

    /// Memory per GPU that sizes the job: `--mem-per-gpu`, else `DefMemPerGPU` when no other memory was asked for.
    pub fn mem_per_gpu_in_effect(&self) -> Option<u64> {
        self.mem_per_gpu_mb.or_else(|| {
            self.def_mem_per_gpu_mb
                .filter(|_| self.mem_per_node_mb.is_none() && self.mem_per_cpu_mb.is_none())
        })
    }

    /// The GRES units the job asks for over `nodes` nodes, per name (requests of several types of one name add
    /// up: `gpu:a100:1,gpu:h100:1` is two GPUs).
    pub fn gres_totals(&self, nodes: u64) -> BTreeMap<String, u64> {
        let mut totals = BTreeMap::new();
        for g in &self.gres {
            let total = totals.entry(g.name.clone()).or_insert(0u64);
            *total = total.saturating_add(g.count.saturating_mul(nodes));
        }
        totals
    }

    /// The host shown as `AllocNode`: the controller's name for the submitter's address, else the name the
    /// submitter gave.
    pub fn alloc_node(&self) -> &str {
        self.alloc_node.as_deref().unwrap_or(&self.submit_host)
    }
}

fn default_true() -> bool {
    true
}

/// Where a running job was placed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Allocation {
    pub node_names: Vec<String>,
    /// CPUs on each node (the scheduler books this many on every node of the allocation).
    pub cpus: u32,
    /// Memory on each node, in MB.
    pub mem_mb: u64,
    /// Device indices per GRES name on the (single) node, e.g. `gpu -> [0, 1]`.
    #[serde(default)]
    pub gres_indices: BTreeMap<String, Vec<u32>>,
    /// Core indices bound on each node (`job_resources` in `squeue --json`); empty means the first `cpus` cores.
    #[serde(default)]
    pub core_ids: Vec<u32>,
    /// Up to this many jobs may hold each of its cores (`OverSubscribe=FORCE:N`, or `YES:N` with
    /// `--oversubscribe`); 0 or 1: the cores are the job's own. See [`crate::policy::oversubscribe`].
    #[serde(default)]
    pub oversubscribe: u16,
    /// The GPU units its `shard` units belong to (a job's shards on a node come from one GPU, the same on each
    /// of its nodes): what its tasks see and may open. Empty for a job without shards.
    #[serde(default)]
    pub shard_gpus: Vec<u32>,
    /// Each node's GRES units, in `node_names` order, when they differ between the job's nodes (Slurm picks a
    /// multi-node job's GPUs node by node); the first is `gres_indices` and `shard_gpus`. Empty when every node
    /// has the same units, as for every single-node job.
    #[serde(default)]
    pub node_units: Vec<NodeUnits>,
}

/// One node's GRES units in an [`Allocation`] whose nodes hold different ones.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeUnits {
    /// Device indices per GRES name on this node.
    #[serde(default)]
    pub gres_indices: BTreeMap<String, Vec<u32>>,
    /// The GPUs this node's shards belong to.
    #[serde(default)]
    pub shard_gpus: Vec<u32>,
}

/// One node's GRES units in an [`Allocation`]: indices per GRES name, and the GPUs its shards belong to.
pub type UnitsOnNode<'a> = (&'a BTreeMap<String, Vec<u32>>, &'a [u32]);

impl Allocation {
    /// The GRES units (indices per name, and the GPUs of its shards) on the allocation's `i`-th node.
    pub fn units_on(&self, i: usize) -> UnitsOnNode<'_> {
        match self.node_units.get(i) {
            Some(node) => (&node.gres_indices, &node.shard_gpus),
            None => (&self.gres_indices, &self.shard_gpus),
        }
    }

    /// How many units of each GRES the allocation holds over all its nodes.
    pub fn gres_counts(&self) -> BTreeMap<String, u64> {
        let mut counts = BTreeMap::new();
        for at in 0..self.node_names.len() {
            for (name, units) in self.units_on(at).0 {
                *counts.entry(name.clone()).or_insert(0) += units.len() as u64;
            }
        }
        counts
    }

    /// [`Allocation::units_on`] by node name; `None` for a node outside the allocation.
    pub fn units_on_node(&self, node: &str) -> Option<UnitsOnNode<'_>> {
        let i = self.node_names.iter().position(|n| n == node)?;
        Some(self.units_on(i))
    }

    /// Builds the per-node record from each node's units: left empty when all nodes have the same, and the
    /// first node's units become `gres_indices`/`shard_gpus` either way.
    pub fn set_node_units(&mut self, mut units: Vec<NodeUnits>) {
        let uniform = units.windows(2).all(|w| w[0] == w[1]);
        if let Some(first) = units.first() {
            self.gres_indices = first.gres_indices.clone();
            self.shard_gpus = first.shard_gpus.clone();
        }
        if uniform {
            units.clear();
        }
        self.node_units = units;
    }
}

/// Who put a hold on a job: users may release only their own holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HoldKind {
    User,
    Admin,
}

/// Where the controller keys an array's never-started tasks: above every job id it gives out. Slurm gives a
/// whole array one job id at submission and a task a new one only as it starts (the last task to start keeps the
/// array's), so a task that has not started has no job id of its own yet; Spur still keeps it as a record of its
/// own, under a key from here, and shows it by the array's id ([`JobRecord::shown_job_id`]).
pub const UNSTARTED_TASK_KEYS: u32 = 0x8000_0000;

/// The controller's record of one job (an array task is a job of its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    #[serde(serialize_with = "crate::wire::listing::job_id")]
    pub job_id: u32,
    /// For array tasks: the array's master id and this task's index.
    #[serde(default)]
    pub array_job_id: Option<u32>,
    #[serde(default)]
    pub array_task_id: Option<u32>,
    pub spec: JobSpec,
    pub state: JobBaseState,
    /// Slurm's COMPLETING flag: the job ended (or is being ended) but its processes are not yet confirmed gone.
    #[serde(default)]
    pub completing: bool,
    /// Slurm's REQUEUE flag: once the processes are gone the job returns to PENDING instead of ending.
    #[serde(default)]
    pub requeue_pending: bool,
    /// The `--signal` warning was delivered (it is sent once per run).
    #[serde(default)]
    pub warning_signal_sent: bool,
    pub reason: JobReason,
    #[serde(default)]
    pub hold: Option<HoldKind>,
    pub priority: u32,
    pub submit_time: EpochSecs,
    #[serde(default)]
    pub eligible_time: Option<EpochSecs>,
    #[serde(default)]
    pub start_time: Option<EpochSecs>,
    #[serde(default)]
    pub end_time: Option<EpochSecs>,
    #[serde(default)]
    pub last_sched_eval: Option<EpochSecs>,
    /// Effective time limit in minutes after partition defaults; `None` is UNLIMITED.
    #[serde(default)]
    pub time_limit_min: Option<u32>,
    #[serde(default)]
    pub alloc: Option<Allocation>,
    /// Exit status as Slurm shows it: `ExitCode=<code>:<signal>`.
    #[serde(default)]
    pub exit_code: u32,
    #[serde(default)]
    pub exit_signal: u32,
    #[serde(default)]
    pub restarts: u32,
    /// When a `--no-kill` job lost a failed node from its allocation (`ResizeTime=`).
    #[serde(default)]
    pub resize_time: Option<EpochSecs>,
    /// The partition the job was placed in (the spec's or the default one).
    pub partition: String,
    /// When the job started accruing age priority (`AccrueTime=`).
    #[serde(default)]
    pub accrue_time: Option<EpochSecs>,
    /// The submitting process's session id (`AllocNode:Sid=host:sid`; the host is `spec.submit_host`).
    #[serde(default)]
    pub alloc_sid: u32,
    /// Nodes the backfill scheduler expects a pending job to start on (`SchedNodeList=`, squeue `%Y`).
    #[serde(default)]
    pub sched_nodes: Option<String>,
    /// When the backfill scheduler expects a pending job to start (`StartTime=`, squeue `%S`); `None` when it
    /// made no reservation for the job.
    #[serde(default)]
    pub expected_start: Option<EpochSecs>,
    /// An administrator set the priority (`scontrol update Priority=`): priority/multifactor leaves it alone.
    #[serde(default)]
    pub priority_fixed: bool,
    /// The backfill scheduler made the last scheduling decision (`Scheduler=Backfill:*` instead of `Main`).
    #[serde(default)]
    pub backfill_scheduled: bool,
    /// The dependency with each term's state, as Slurm shows it (`afterok:21(unfulfilled)`); `None` shows
    /// `spec.dependency` as written, or `(null)` without one.
    #[serde(default)]
    pub dependency_status: Option<String>,
    /// TRES requested, when the controller computed it (`cpu=2,mem=2G,node=1,billing=2`); `None` derives it.
    #[serde(default)]
    pub tres_req: Option<String>,
    /// TRES allocated, when the controller computed it; `None` derives it from the allocation.
    #[serde(default)]
    pub tres_alloc: Option<String>,
    /// Slurm's `state_desc`: free text squeue and scontrol show instead of the reason's name
    /// (`job requeued in held state`); cleared when the reason changes.
    #[serde(default)]
    pub state_desc: Option<String>,
    /// What the partition's `OverSubscribe=` made of the job's sharing when it was last judged (squeue `%h`);
    /// `None`: the job's own `--exclusive`/`--oversubscribe` speak.
    #[serde(default)]
    pub sharing: Option<crate::policy::oversubscribe::ResolvedSharing>,
    /// The steps `srun` registered, in order of their ids.
    #[serde(default)]
    pub steps: Vec<crate::model::step::StepRecord>,
    /// The id the next step gets.
    #[serde(default)]
    pub next_step_id: u32,
    /// When the job was last suspended or resumed (`SuspendTime=`).
    #[serde(default)]
    pub suspend_time: Option<EpochSecs>,
    /// How long it had run before its last suspension (`SecsPreSuspend=`).
    #[serde(default)]
    pub pre_suspend_secs: i64,
    /// From when a started job may be preempted (`PreemptEligibleTime=`); `None` where preemption cannot touch it
    /// (no preemption configured, or its partition's mode is OFF), and for jobs that have not started.
    #[serde(default)]
    pub preemptable_time: Option<EpochSecs>,
    /// When it was preempted (`PreemptTime=`).
    #[serde(default)]
    pub preempt_time: Option<EpochSecs>,
    /// Slurm's estimate of the nodes a job pending beyond its partition's limits needs (`NumNodes=`, squeue
    /// `%D`), made from its tasks and its partition's largest node when it was queued; `None`: its minimum.
    #[serde(default)]
    pub node_estimate: Option<u32>,
    /// Suspended by preemption (`PreemptMode=SUSPEND,GANG`): its CPUs are lent to the preemptor (memory and GRES
    /// stay its own) and it resumes by itself once they are free again.
    #[serde(default)]
    pub preempt_suspended: bool,
    /// `scontrol notify` messages for the salloc or srun that holds an interactive allocation, numbered from 1
    /// (the last few only); that client prints those it has not printed yet.
    #[serde(default)]
    pub notices: Vec<(u32, String)>,
    /// `PrologFlags=Alloc`: the nodes whose prolog has not yet finished since the job was allocated. While any
    /// is left the job runs with reason `Prolog`, its batch script is not started and salloc waits.
    #[serde(default)]
    pub prolog_pending: Vec<String>,
    /// The nodes other than the batch node (every node of an allocation) whose `Epilog` has not yet finished
    /// since the job ended: the job stays COMPLETING and those nodes take no new job until each has answered,
    /// as in Slurm.
    #[serde(default)]
    pub epilog_pending: Vec<String>,
    /// The node whose allocation prolog failed, ending the job (salloc says `Prolog failure on node N`).
    #[serde(default)]
    pub prolog_failed_node: Option<String>,
    /// `PrologFlags=Contain`: the job has an extern step (`J.extern`) on each of its nodes while it runs.
    #[serde(default)]
    pub extern_step: bool,
    /// The user who cancelled the job (`scancel`), for accounting's `CANCELLED by UID`.
    #[serde(default)]
    pub cancelled_by: Option<u32>,
    /// A heterogeneous job's component: the leader's id (`HetJobId=`), this component's place (`HetJobOffset=`,
    /// 0 for the leader) and every component's id as a hostlist-style range (`HetJobIdSet=3-4`). `None` for
    /// plain jobs.
    #[serde(default)]
    pub het: Option<HetMembership>,
    /// Its partition's `TRESBillingWeights` (taken when it is submitted and again when it starts): what its
    /// `billing` TRES and fair-share usage weigh its TRES by ([`crate::policy::billing`]). `None` bills its CPUs.
    #[serde(default)]
    pub billing_weights: Option<String>,
    /// What the batch step used (`jobacct_gather`), as its supervisor reported it with the script's end; `None`
    /// until then, and for jobs without a script.
    #[serde(default)]
    pub batch_usage: Option<Box<crate::model::step_acct::StepAcct>>,
}

/// Where a job stands in its heterogeneous job (Slurm 22.05: one record per component, consecutive ids, the
/// leader's id naming the whole).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HetMembership {
    pub job_id: u32,
    pub offset: u32,
    /// How many components the job has; their ids are `job_id .. job_id + size`.
    pub size: u32,
}

impl HetMembership {
    /// `HetJobIdSet=`: the components' ids, `3-4` (Slurm prints the set as a range).
    pub fn id_set(&self) -> String {
        let last = self.job_id + self.size.saturating_sub(1);
        if last == self.job_id {
            self.job_id.to_string()
        } else {
            format!("{}-{last}", self.job_id)
        }
    }

    /// The components' ids, leader first.
    pub fn component_ids(&self) -> impl Iterator<Item = u32> {
        self.job_id..self.job_id + self.size
    }

    pub fn is_leader(&self) -> bool {
        self.offset == 0
    }
}

impl JobRecord {
    /// A freshly submitted job: pending, nothing allocated, every optional fact unknown.
    pub fn pending(
        job_id: u32,
        spec: JobSpec,
        partition: String,
        submit_time: EpochSecs,
        priority: u32,
    ) -> Self {
        // Slurm's EligibleTime is the job's begin time: `--begin`'s from the start, else set when it first
        // becomes eligible.
        let eligible_time = spec.begin_time;
        JobRecord {
            job_id,
            array_job_id: None,
            array_task_id: None,
            time_limit_min: spec.time_limit_min,
            spec,
            state: JobBaseState::Pending,
            completing: false,
            requeue_pending: false,
            warning_signal_sent: false,
            reason: JobReason::NoReason,
            hold: None,
            priority,
            submit_time,
            eligible_time,
            start_time: None,
            end_time: None,
            last_sched_eval: None,
            alloc: None,
            exit_code: 0,
            exit_signal: 0,
            restarts: 0,
            resize_time: None,
            partition,
            accrue_time: None,
            alloc_sid: 0,
            sched_nodes: None,
            expected_start: None,
            priority_fixed: false,
            backfill_scheduled: false,
            dependency_status: None,
            tres_req: None,
            tres_alloc: None,
            state_desc: None,
            sharing: None,
            steps: Vec::new(),
            next_step_id: 0,
            suspend_time: None,
            pre_suspend_secs: 0,
            preemptable_time: None,
            preempt_time: None,
            node_estimate: None,
            preempt_suspended: false,
            notices: Vec::new(),
            prolog_pending: Vec::new(),
            epilog_pending: Vec::new(),
            prolog_failed_node: None,
            extern_step: false,
            cancelled_by: None,
            het: None,
            billing_weights: None,
            batch_usage: None,
        }
    }

    /// Seconds the job has run, suspended time left out (what time limits and `RunTime` count), as slurmctld
    /// counts it: the time before the last suspension plus the time since the last resume.
    pub fn run_secs(&self, now: EpochSecs) -> i64 {
        let Some(start) = self.start_time else {
            return 0;
        };
        if self.state == JobBaseState::Suspended {
            return self.pre_suspend_secs;
        }
        let end = match self.end_time {
            Some(end) if self.state.is_finished() => end,
            _ => now,
        };
        match self.suspend_time {
            Some(resumed) => self.pre_suspend_secs + (end - resumed).max(0),
            None => end - start,
        }
    }

    /// An array task that has not started yet: it is keyed above every job id ([`UNSTARTED_TASK_KEYS`]).
    pub fn is_unstarted_array_task(&self) -> bool {
        self.job_id >= UNSTARTED_TASK_KEYS && self.array_job_id.is_some()
    }

    /// The job id clients see: an array task that has not started yet is part of its array's record in Slurm,
    /// so it shows the array's id.
    pub fn shown_job_id(&self) -> u32 {
        match self.array_job_id {
            Some(array) if self.is_unstarted_array_task() => array,
            _ => self.job_id,
        }
    }

    /// `12`, for an array task `12_3`, for a heterogeneous job's component `12+1` (as squeue and scancel name
    /// it).
    pub fn display_id(&self) -> String {
        match (self.array_job_id, self.array_task_id, &self.het) {
            (Some(array), Some(task), _) => format!("{array}_{task}"),
            (_, _, Some(het)) => format!("{}+{}", het.job_id, het.offset),
            _ => self.job_id.to_string(),
        }
    }

    /// A component of a heterogeneous job other than its leader: it runs no batch script of its own.
    pub fn is_het_follower(&self) -> bool {
        self.het.as_ref().is_some_and(|h| !h.is_leader())
    }

    pub fn is_finished(&self) -> bool {
        self.state.is_finished()
    }

    /// Expands an output filename pattern (`slurm-%j.out`) for the batch step on `node`.
    pub fn expand_output_pattern(&self, pattern: &str, node: &str) -> String {
        let ctx = crate::grammar::values::filename::FilenameContext {
            job_id: self.job_id,
            array_job_id: self.array_job_id,
            array_task_id: self.array_task_id,
            job_name: &self.spec.name,
            node_name: node,
            node_id: 0,
            task_id: 0,
            user: &self.spec.user_name,
            step: crate::grammar::values::stepid::Step::Batch,
        };
        crate::grammar::values::filename::expand_filename(pattern, &ctx)
    }

    /// COMPLETING: the job's end is not yet confirmed by its batch node, or an epilog still runs on its other
    /// nodes.
    pub fn is_completing(&self) -> bool {
        self.completing || !self.epilog_pending.is_empty()
    }

    /// The state as Slurm packs it: base plus COMPLETING and REQUEUE flags.
    pub fn full_state(&self) -> JobState {
        let mut state = JobState::new(self.state);
        if self.is_completing() {
            state = state.with(JobStateFlag::Completing);
        }
        if self.requeue_pending {
            state = state.with(JobStateFlag::Requeue);
        }
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gres_requests_of_one_name_add_up_over_types_and_nodes() {
        let spec = JobSpec {
            gres: ["a100", "h100"]
                .iter()
                .map(|t| GresRequest {
                    name: "gpu".into(),
                    gres_type: Some(t.to_string()),
                    count: 1,
                })
                .collect(),
            ..JobSpec::default()
        };
        assert_eq!(
            spec.gres_totals(3),
            BTreeMap::from([("gpu".to_string(), 6)])
        );
    }
}
