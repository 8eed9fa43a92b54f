//! The environments Slurm gives the programs it runs: a batch script, the command `salloc` runs, and each task
//! of an `srun` step ([`step`]). Each is the submitter's exported variables plus Slurm's `SLURM_*` set for that
//! context (with `SPUR_*` twins of the most used ones), built from the job record and facts the caller supplies
//! about the node and the step. One builder serves all three, so a variable means the same everywhere.
//!
//! Which variable appears in which context was taken from Slurm 22.05 (see `core/tests/vectors/env_vars.tsv`).
//! Pure: the caller supplies every fact the job record does not hold.

mod step;

pub use step::{
    default_distribution, step_environment, task_environment, StepEnvContext, StepSpread,
    TaskPlacement,
};

use crate::model::job::JobRecord;

/// Facts about where and how the job runs, which the job record does not hold.
#[derive(Debug, Clone, Default)]
pub struct BatchEnvContext<'a> {
    pub node_name: &'a str,
    pub cluster_name: &'a str,
    pub slurm_conf: &'a str,
    /// `host:port` of the controller, for `SLURM_WORKING_CLUSTER`.
    pub controller_addr: &'a str,
    /// The whole array's task ids (for `SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP`), `None` for plain jobs.
    pub array: Option<crate::wire::agent_proto::ArraySummary>,
    /// The memory per CPU the scheduler applied (explicit or DefMemPerCPU), for `SLURM_MEM_PER_CPU`.
    pub mem_per_cpu_mb: Option<u64>,
    pub user_home: Option<&'a str>,
    pub user_shell: Option<&'a str>,
    /// The node's place in topology.conf's switch tree (`None`: just the node's name).
    pub topology: Option<&'a crate::policy::switch_tree::TopologyAddr>,
    /// A heterogeneous job's components (the leader first), for the `_HET_GROUP_N` variables; empty for a plain
    /// job.
    pub het_components: &'a [JobRecord],
}

/// Facts `salloc` knows besides the job record.
#[derive(Debug, Clone, Default)]
pub struct AllocEnvContext<'a> {
    pub cluster_name: &'a str,
    pub slurm_conf: &'a str,
}

/// Variables Slurm sets that users most often read; each also gets a `SPUR_` twin.
const TWINNED: &[&str] = &[
    "SLURM_JOB_ID",
    "SLURM_JOB_NODELIST",
    "SLURM_SUBMIT_DIR",
    "SLURM_ARRAY_TASK_ID",
];

/// An environment being built: setting a variable replaces any earlier value of it.
struct EnvBuilder {
    vars: Vec<(String, String)>,
}

impl EnvBuilder {
    fn new(base: &[(String, String)]) -> Self {
        EnvBuilder {
            vars: base.to_vec(),
        }
    }

    fn set(&mut self, key: &str, value: impl Into<String>) {
        self.vars.retain(|(k, _)| k != key);
        self.vars.push((key.to_string(), value.into()));
    }

    fn set_if_absent(&mut self, key: &str, value: &str) {
        if !self.vars.iter().any(|(k, _)| k == key) {
            self.set(key, value);
        }
    }

    /// The `SPUR_` twins, added last so they always mirror the final `SLURM_` values.
    fn finish(mut self) -> Vec<(String, String)> {
        let twins: Vec<(String, String)> = self
            .vars
            .iter()
            .filter(|(k, _)| TWINNED.contains(&k.as_str()))
            .map(|(k, v)| (k.replacen("SLURM_", "SPUR_", 1), v.clone()))
            .collect();
        for (k, v) in twins {
            self.set(&k, v);
        }
        self.vars
    }

    /// What every context sees about the allocation: ids, names, node list, shape, submit facts.
    fn allocation_vars(&mut self, job: &JobRecord, cluster_name: &str, slurm_conf: &str) {
        let shape = Shape::of(job);
        let job_id = job.job_id.to_string();
        self.set("SLURM_CLUSTER_NAME", cluster_name);
        self.set("SLURM_CONF", slurm_conf);
        self.set("SLURM_JOBID", job_id.clone());
        self.set("SLURM_JOB_ID", job_id);
        self.set(
            "SLURM_JOB_CPUS_PER_NODE",
            repeated(shape.cpus, shape.num_nodes),
        );
        self.set("SLURM_JOB_NAME", job.spec.name.clone());
        self.set("SLURM_JOB_NODELIST", shape.node_list.clone());
        self.set("SLURM_JOB_NUM_NODES", shape.num_nodes.to_string());
        self.set("SLURM_JOB_PARTITION", job.partition.clone());
        self.set("SLURM_NNODES", shape.num_nodes.to_string());
        self.set("SLURM_NODELIST", shape.node_list);
        if let Some(ntasks) = job.spec.ntasks {
            self.set("SLURM_NPROCS", ntasks.to_string());
            self.set("SLURM_NTASKS", ntasks.to_string());
        }
        if cpus_per_task_given(job) {
            self.set("SLURM_CPUS_PER_TASK", job.spec.cpus_per_task.to_string());
        }
        if let Some(per_node) = job.spec.ntasks_per_node {
            self.set("SLURM_NTASKS_PER_NODE", per_node.to_string());
        }
        if job.spec.overcommit() {
            self.set("SLURM_OVERCOMMIT", "1");
        }
        self.set("SLURM_SUBMIT_DIR", job.spec.work_dir.clone());
        self.set("SLURM_SUBMIT_HOST", job.spec.submit_host.clone());
        self.set(
            "SLURM_TASKS_PER_NODE",
            tasks_per_node_text(job_tasks(job, shape.num_nodes), shape.num_nodes),
        );
    }

    /// What a process running on an allocated node sees about that node and the job's owner.
    fn node_vars(&mut self, job: &JobRecord, node: &NodeFacts<'_>) {
        self.set("SLURMD_NODENAME", node.node_name);
        self.set("SLURM_CPUS_ON_NODE", Shape::of(job).cpus.to_string());
        self.set("SLURM_JOB_GID", job.spec.group_id.to_string());
        self.set("SLURM_JOB_UID", job.spec.user_id.to_string());
        self.set("SLURM_JOB_USER", job.spec.user_name.clone());
        self.set("SLURM_NODEID", "0");
        self.set("SLURM_PRIO_PROCESS", node.prio_process.to_string());
        let only = crate::policy::switch_tree::TopologyAddr::node_only(node.node_name);
        let topology = node.topology.unwrap_or(&only);
        self.set("SLURM_TOPOLOGY_ADDR", topology.addr.clone());
        self.set("SLURM_TOPOLOGY_ADDR_PATTERN", topology.pattern.clone());
        self.set(
            "SLURM_WORKING_CLUSTER",
            working_cluster(node.cluster_name, node.controller_addr),
        );
    }

    /// GPU binding: the job's devices for a batch script (`SLURM_JOB_GPUS`), the step's for srun tasks
    /// (`SLURM_STEP_GPUS`).
    fn gpu_vars(&mut self, gpus: &[u32], list_var: &str) {
        let list = gpus
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        self.set("CUDA_VISIBLE_DEVICES", list.clone());
        self.set("ROCR_VISIBLE_DEVICES", list.clone());
        self.set("GPU_DEVICE_ORDINAL", list.clone());
        self.set("SLURM_GPUS_ON_NODE", gpus.len().to_string());
        self.set(list_var, list);
    }
}

/// Node facts [`EnvBuilder::node_vars`] needs.
struct NodeFacts<'a> {
    node_name: &'a str,
    cluster_name: &'a str,
    controller_addr: &'a str,
    prio_process: i32,
    topology: Option<&'a crate::policy::switch_tree::TopologyAddr>,
}

/// The allocation's shape as the variables print it.
struct Shape {
    node_list: String,
    num_nodes: usize,
    cpus: u32,
}

impl Shape {
    fn of(job: &JobRecord) -> Shape {
        let (node_list, num_nodes, cpus) = match &job.alloc {
            Some(alloc) => (
                crate::grammar::hostlist::compress(&alloc.node_names),
                alloc.node_names.len().max(1),
                alloc.cpus,
            ),
            None => (String::new(), 1, 0),
        };
        Shape {
            node_list,
            num_nodes,
            cpus,
        }
    }
}

pub fn batch_environment(job: &JobRecord, ctx: &BatchEnvContext<'_>) -> Vec<(String, String)> {
    let mut b = EnvBuilder::new(&job.spec.environment);
    b.set("ENVIRONMENT", "BATCH");
    b.set("HOSTNAME", ctx.node_name);
    if let Some(home) = ctx.user_home {
        b.set_if_absent("HOME", home);
    }
    if let Some(shell) = ctx.user_shell {
        b.set_if_absent("SHELL", shell);
    }
    b.allocation_vars(job, ctx.cluster_name, ctx.slurm_conf);
    b.node_vars(
        job,
        &NodeFacts {
            node_name: ctx.node_name,
            cluster_name: ctx.cluster_name,
            controller_addr: ctx.controller_addr,
            // sbatch passes its nice value in the job's environment.
            prio_process: job
                .spec
                .environment
                .iter()
                .find(|(k, _)| k == "SLURM_PRIO_PROCESS")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0),
            topology: ctx.topology,
        },
    );
    // `--ntasks-per-node` alone implies a task count, which sbatch exports too.
    if job.spec.ntasks.is_none() && job.spec.ntasks_per_node.is_some() {
        let tasks = job_tasks(job, Shape::of(job).num_nodes);
        b.set("SLURM_NPROCS", tasks.to_string());
        b.set("SLURM_NTASKS", tasks.to_string());
    }
    for (key, value) in requested_gpu_vars(job) {
        b.set(key, value);
    }
    // A requeued job's later runs learn how many times it was restarted (Slurm sets it only from the first
    // restart on).
    if job.restarts > 0 {
        b.set("SLURM_RESTART_COUNT", job.restarts.to_string());
    }
    b.set("SLURM_GTIDS", "0");
    b.set("SLURM_LOCALID", "0");
    b.set("SLURM_PROCID", "0");
    b.set("SLURM_NODE_ALIASES", "(null)");
    b.set_if_absent("TMPDIR", "/tmp");
    if let Some(mem) = ctx.mem_per_cpu_mb {
        b.set("SLURM_MEM_PER_CPU", mem.to_string());
    }
    if let Some(mem) = job.spec.mem_per_node_mb {
        b.set("SLURM_MEM_PER_NODE", mem.to_string());
    }
    if let (Some(array_id), Some(task)) = (job.array_job_id, job.array_task_id) {
        let array = ctx.array.unwrap_or(crate::wire::agent_proto::ArraySummary {
            count: 1,
            min: task,
            max: task,
            step: 1,
        });
        b.set("SLURM_ARRAY_JOB_ID", array_id.to_string());
        b.set("SLURM_ARRAY_TASK_ID", task.to_string());
        b.set("SLURM_ARRAY_TASK_COUNT", array.count.max(1).to_string());
        b.set("SLURM_ARRAY_TASK_MIN", array.min.to_string());
        b.set("SLURM_ARRAY_TASK_MAX", array.max.to_string());
        b.set("SLURM_ARRAY_TASK_STEP", array.step.to_string());
    }
    if let Some(alloc) = &job.alloc {
        if let Some(gpus) = alloc.gres_indices.get(crate::model::records::GPU_GRES) {
            b.gpu_vars(gpus, "SLURM_JOB_GPUS");
        } else if let Some(shards) = alloc.gres_indices.get(crate::policy::gpu_shard::SHARD_GRES) {
            // A job of shards sees the GPU they belong to, as Slurm's gres/shard shows it.
            b.gpu_vars(&alloc.shard_gpus, "SLURM_JOB_GPUS");
            b.set("SLURM_SHARDS_ON_NODE", shards.len().to_string());
        }
    }
    let het = het_vars(ctx.het_components);
    if !het.is_empty() {
        // Slurm gives a heterogeneous job's script each component's `-c`, not the first one's on its own.
        b.vars.retain(|(k, _)| k != "SLURM_CPUS_PER_TASK");
    }
    for (key, value) in het {
        b.set(&key, value);
    }
    b.finish()
}

/// The allocation variables salloc gives the command it runs in a heterogeneous allocation, for each component
/// (suffixed as in [`het_vars`]); the unsuffixed ones of a plain allocation are left out, as Slurm leaves them.
const SALLOC_HET_GROUP_VARS: &[&str] = &[
    "SLURM_JOBID",
    "SLURM_JOB_CPUS_PER_NODE",
    "SLURM_JOB_ID",
    "SLURM_JOB_NAME",
    "SLURM_JOB_NODELIST",
    "SLURM_JOB_NUM_NODES",
    "SLURM_JOB_PARTITION",
    "SLURM_NNODES",
    "SLURM_NODELIST",
    "SLURM_NODE_ALIASES",
    "SLURM_NPROCS",
    "SLURM_NTASKS",
    "SLURM_TASKS_PER_NODE",
];

/// The environment of the command `salloc` runs for a heterogeneous allocation (`components`: leader first):
/// the submitter's variables, the leader's id, the task count of all components together, and each component's
/// allocation variables under its `_HET_GROUP_N`/`_PACK_GROUP_N` suffix.
pub fn salloc_het_environment(
    components: &[JobRecord],
    ctx: &AllocEnvContext<'_>,
) -> Vec<(String, String)> {
    let Some(leader) = components.first() else {
        return Vec::new();
    };
    let mut b = EnvBuilder::new(&leader.spec.environment);
    let mut total_tasks = 0;
    for (offset, job) in components.iter().enumerate() {
        let mut one = EnvBuilder::new(&[]);
        one.allocation_vars(job, "", "");
        one.set("SLURM_NODE_ALIASES", "(null)");
        total_tasks += job_tasks(job, Shape::of(job).num_nodes);
        for (key, value) in one.vars {
            if SALLOC_HET_GROUP_VARS.contains(&key.as_str()) {
                b.set(&format!("{key}_HET_GROUP_{offset}"), value.clone());
                b.set(&format!("{key}_PACK_GROUP_{offset}"), value);
            }
        }
    }
    b.set("SLURM_CLUSTER_NAME", ctx.cluster_name);
    b.set("SLURM_CONF", ctx.slurm_conf);
    b.set("SLURM_JOB_ID", leader.job_id.to_string());
    b.set("SLURM_NPROCS", total_tasks.to_string());
    b.set("SLURM_NTASKS", total_tasks.to_string());
    b.set("SLURM_SUBMIT_DIR", leader.spec.work_dir.clone());
    b.set("SLURM_SUBMIT_HOST", leader.spec.submit_host.clone());
    let size = components.len().to_string();
    b.set("SLURM_HET_SIZE", size.clone());
    b.set("SLURM_PACK_SIZE", size);
    b.finish()
}

/// The allocation variables Slurm repeats for each component of a heterogeneous job, suffixed
/// `_HET_GROUP_<offset>` (and `_PACK_GROUP_<offset>`, their name before 20.02).
const HET_GROUP_VARS: &[&str] = &[
    "SLURM_CPUS_PER_TASK",
    "SLURM_JOB_CPUS_PER_NODE",
    "SLURM_JOB_ID",
    "SLURM_JOB_NAME",
    "SLURM_JOB_NODELIST",
    "SLURM_JOB_NUM_NODES",
    "SLURM_JOB_PARTITION",
    "SLURM_MEM_PER_CPU",
    "SLURM_MEM_PER_NODE",
    "SLURM_NPROCS",
    "SLURM_NTASKS",
    "SLURM_NTASKS_PER_NODE",
    "SLURM_TASKS_PER_NODE",
];

/// What a heterogeneous job's programs learn about every component (`components`: leader first): each
/// component's allocation variables under its group suffix, and `SLURM_HET_SIZE`. Nothing for fewer than two.
pub fn het_vars(components: &[JobRecord]) -> Vec<(String, String)> {
    if components.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (offset, job) in components.iter().enumerate() {
        let mut b = EnvBuilder::new(&[]);
        b.allocation_vars(job, "", "");
        if let Some(mem) = applied_mem_per_cpu(job) {
            b.set("SLURM_MEM_PER_CPU", mem.to_string());
        }
        if let Some(mem) = job.spec.mem_per_node_mb {
            b.set("SLURM_MEM_PER_NODE", mem.to_string());
        }
        for (key, value) in b.vars {
            if HET_GROUP_VARS.contains(&key.as_str()) {
                out.push((format!("{key}_HET_GROUP_{offset}"), value.clone()));
                out.push((format!("{key}_PACK_GROUP_{offset}"), value));
            }
        }
    }
    let size = components.len().to_string();
    out.push(("SLURM_HET_SIZE".to_string(), size.clone()));
    out.push(("SLURM_PACK_SIZE".to_string(), size));
    out
}

/// The memory per CPU the scheduler applied to a job (`SLURM_MEM_PER_CPU`): its own, else what it was given per
/// CPU when it asked for no memory per node.
pub fn applied_mem_per_cpu(job: &JobRecord) -> Option<u64> {
    let alloc_cpus = job.alloc.as_ref().map(|a| a.cpus).unwrap_or(1).max(1);
    job.spec.mem_per_cpu_mb.or_else(|| {
        let mem = job.alloc.as_ref().map(|a| a.mem_mb).unwrap_or(0);
        // Memory per GPU is not per CPU: Slurm leaves SLURM_MEM_PER_CPU out then.
        (job.spec.mem_per_node_mb.is_none()
            && job.spec.mem_per_gpu_in_effect().is_none()
            && mem > 0)
            .then(|| mem / u64::from(alloc_cpus))
    })
}

/// The environment of the command `salloc` runs on the submit host: the submitter's exported variables and the
/// allocation's description, but nothing about a node (the command does not run inside the allocation).
pub fn salloc_environment(job: &JobRecord, ctx: &AllocEnvContext<'_>) -> Vec<(String, String)> {
    let mut b = EnvBuilder::new(&job.spec.environment);
    b.allocation_vars(job, ctx.cluster_name, ctx.slurm_conf);
    b.set("SLURM_NODE_ALIASES", "(null)");
    // salloc exports only what the user asked for, not the DefMemPerCPU the controller applied.
    if let (Some(mem), true) = (
        job.spec.mem_per_cpu_mb,
        job.spec.options.contains_key("mem-per-cpu"),
    ) {
        b.set("SLURM_MEM_PER_CPU", mem.to_string());
    }
    if let (Some(mem), true) = (
        job.spec.mem_per_node_mb,
        job.spec.options.contains_key("mem"),
    ) {
        b.set("SLURM_MEM_PER_NODE", mem.to_string());
    }
    b.finish()
}

/// The GPU options a batch job was submitted with, as sbatch passes them on (`--gpus=a100:1` gives
/// `SLURM_GPUS=a100:1`); `--mem-per-gpu` in megabytes.
fn requested_gpu_vars(job: &JobRecord) -> Vec<(&'static str, String)> {
    const AS_GIVEN: &[(&str, &str)] = &[
        ("gpus", "SLURM_GPUS"),
        ("gpus-per-node", "SLURM_GPUS_PER_NODE"),
        ("gpus-per-task", "SLURM_GPUS_PER_TASK"),
        ("gpus-per-socket", "SLURM_GPUS_PER_SOCKET"),
        ("cpus-per-gpu", "SLURM_CPUS_PER_GPU"),
    ];
    let options = &job.spec.options;
    let mut out: Vec<(&'static str, String)> = AS_GIVEN
        .iter()
        .filter_map(|(option, var)| options.get(*option).map(|v| (*var, v.clone())))
        .collect();
    if let Some(mem) = options
        .get("mem-per-gpu")
        .and_then(|v| crate::grammar::values::size::parse_mem(v).ok())
    {
        out.push(("SLURM_MEM_PER_GPU", mem.0.to_string()));
    }
    out
}

/// Slurm sets `SLURM_CPUS_PER_TASK` whenever `-c` was given, even as 1.
fn cpus_per_task_given(job: &JobRecord) -> bool {
    job.spec.cpus_per_task > 1 || job.spec.options.contains_key("cpus-per-task")
}

/// `2(x3)`-style run-length text Slurm uses for per-node counts.
fn repeated(value: u32, nodes: usize) -> String {
    if nodes > 1 {
        format!("{value}(x{nodes})")
    } else {
        value.to_string()
    }
}

/// The job's task count: `-n`, else one per node (times `--ntasks-per-node`).
fn job_tasks(job: &JobRecord, nodes: usize) -> u32 {
    let nodes_u32 = u32::try_from(nodes).unwrap_or(1);
    // Without a task count slurmctld counts a task per `-c` CPUs of the allocation (`--exclusive`, `--mincpus`,
    // `--cpus-per-gpu` give more than one).
    let by_cpus = || {
        job.alloc
            .as_ref()
            .map_or(1, |a| a.cpus / job.spec.cpus_per_task.max(1))
            .max(1)
    };
    job.spec
        .ntasks
        .unwrap_or_else(|| job.spec.ntasks_per_node.unwrap_or_else(by_cpus) * nodes_u32)
}

/// Tasks spread over `nodes` as evenly as Slurm's block layout does, in run-length text (`2(x2),1`).
fn tasks_per_node_text(total: u32, nodes: usize) -> String {
    let nodes_u32 = u32::try_from(nodes.max(1)).unwrap_or(1);
    let base = total / nodes_u32;
    let extra = (total % nodes_u32) as usize;
    let nodes = nodes.max(1);
    match (extra, nodes - extra) {
        (0, n) => repeated(base, n),
        (e, 0) => repeated(base + 1, e),
        (e, rest) => format!("{},{}", repeated(base + 1, e), repeated(base, rest)),
    }
}

/// `cluster:addr:port:protocol_version:plugin_id`, as Slurm 22.05 prints it.
fn working_cluster(cluster_name: &str, controller_addr: &str) -> String {
    let (addr, port) = controller_addr
        .rsplit_once(':')
        .unwrap_or((controller_addr, "6817"));
    format!("{cluster_name}:{addr}:{port}:9728:109")
}

#[cfg(test)]
mod tests;
