//! The environment of `srun` tasks: the allocation's variables, the step's (`SLURM_STEP_*`, `SLURM_NTASKS` of the
//! step) and each task's rank. `SLURM_TASK_PID` is the one variable only the launcher can fill in, after the task
//! process exists.

use super::{tasks_per_node_text, EnvBuilder, NodeFacts, Shape};
use crate::model::job::JobRecord;

/// What the launching srun knows about the step besides the allocation's record.
#[derive(Debug, Clone, Default)]
pub struct StepEnvContext<'a> {
    pub node_name: &'a str,
    pub cluster_name: &'a str,
    pub slurm_conf: &'a str,
    /// `host:port` of the controller, for `SLURM_WORKING_CLUSTER`.
    pub controller_addr: &'a str,
    pub step_id: u32,
    /// Tasks in the step (all on this node).
    pub ntasks: u32,
    /// The step's `-c`, when given.
    pub cpus_per_task: Option<u32>,
    /// The step's `--ntasks-per-node`, when given.
    pub ntasks_per_node: Option<u32>,
    /// The address tasks reach srun at (`SLURM_LAUNCH_NODE_IPADDR`, `SLURM_SRUN_COMM_HOST`).
    pub launch_addr: &'a str,
    /// The port srun listens on for the step (`SLURM_SRUN_COMM_PORT`, `SLURM_STEP_LAUNCHER_PORT`).
    pub launcher_port: u16,
    /// srun's umask, for `SLURM_UMASK`.
    pub umask: u32,
    /// srun's log level (`SRUN_DEBUG`): 3 is `info`, each `-v` adds one, each `-Q` takes one.
    pub debug_level: u32,
    /// srun's scheduling priority (`SLURM_PRIO_PROCESS`).
    pub prio_process: i32,
    /// `SLURM_DISTRIBUTION`: srun sets it for steps inside an existing allocation (see [`default_distribution`])
    /// and whenever `-m` was given.
    pub distribution: Option<&'a str>,
    /// Whether the step runs inside an allocation made before (salloc, a batch job), which adds the
    /// heterogeneous-job pack variables srun sets there.
    pub within_allocation: bool,
    /// The step's GPU indices, when the allocation has GPUs (for a job of shards: the GPU they belong to).
    pub gpus: Option<&'a [u32]>,
    /// The step's shards on the node (`SLURM_SHARDS_ON_NODE`), when the allocation has shards.
    pub shards: Option<u64>,
    /// `--label` was given: srun tells the tasks (`SLURM_LABELIO=1`).
    pub label: bool,
    /// For a step across several nodes (or on another node than srun's): where its tasks run and which of
    /// those nodes this environment is for. `None`: every task on `node_name`.
    pub spread: Option<StepSpread<'a>>,
    /// `node_name`'s place in topology.conf's switch tree (`None`: just the node's name).
    pub topology: Option<&'a crate::policy::switch_tree::TopologyAddr>,
}

/// A step's layout as one node's tasks see it.
#[derive(Debug, Clone, Copy)]
pub struct StepSpread<'a> {
    pub layout: &'a crate::model::step_layout::StepLayout,
    /// The step's nodes, in layout order.
    pub nodes: &'a [String],
    /// This node's index (`SLURM_NODEID`).
    pub node_id: u32,
}

/// One task's place in the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskPlacement {
    /// Rank in the step (`SLURM_PROCID`).
    pub procid: u32,
    /// Rank on this node (`SLURM_LOCALID`).
    pub localid: u32,
}

/// The distribution srun reports for a step inside an allocation when `-m` was not given: `cyclic` while there are
/// no more tasks than nodes, else `block`.
pub fn default_distribution(ntasks: u32, nodes: u32) -> &'static str {
    if ntasks <= nodes {
        "cyclic"
    } else {
        "block"
    }
}

/// The variables every task of the step shares, on top of `base` (srun's exported environment).
pub fn step_environment(
    base: &[(String, String)],
    job: &JobRecord,
    ctx: &StepEnvContext<'_>,
) -> Vec<(String, String)> {
    let mut b = EnvBuilder::new(base);
    b.allocation_vars(job, ctx.cluster_name, ctx.slurm_conf);
    b.node_vars(
        job,
        &NodeFacts {
            node_name: ctx.node_name,
            cluster_name: ctx.cluster_name,
            controller_addr: ctx.controller_addr,
            prio_process: ctx.prio_process,
            topology: ctx.topology,
        },
    );
    let shape = Shape::of(job);
    let ntasks = ctx.ntasks.to_string();
    let per_node = tasks_per_node_text(ctx.ntasks, 1);
    b.set("SLURM_NPROCS", ntasks.clone());
    b.set("SLURM_NTASKS", ntasks.clone());
    b.set("SLURM_TASKS_PER_NODE", per_node.clone());
    if let Some(cpus) = ctx.cpus_per_task {
        b.set("SLURM_CPUS_PER_TASK", cpus.to_string());
    }
    if let Some(per_node) = ctx.ntasks_per_node {
        b.set("SLURM_NTASKS_PER_NODE", per_node.to_string());
    }
    let gtids: Vec<String> = (0..ctx.ntasks).map(|t| t.to_string()).collect();
    b.set("SLURM_GTIDS", gtids.join(","));
    b.set("SLURM_LAUNCH_NODE_IPADDR", ctx.launch_addr);
    b.set("SLURM_SRUN_COMM_HOST", ctx.launch_addr);
    b.set("SLURM_SRUN_COMM_PORT", ctx.launcher_port.to_string());
    b.set("SLURM_STEP_LAUNCHER_PORT", ctx.launcher_port.to_string());
    b.set("SLURM_STEPID", ctx.step_id.to_string());
    b.set("SLURM_STEP_ID", ctx.step_id.to_string());
    b.set("SLURM_STEP_NODELIST", ctx.node_name);
    b.set("SLURM_STEP_NUM_NODES", "1");
    b.set("SLURM_STEP_NUM_TASKS", ntasks);
    b.set("SLURM_STEP_TASKS_PER_NODE", per_node);
    b.set("SLURM_UMASK", format!("{:04o}", ctx.umask));
    b.set("SRUN_DEBUG", ctx.debug_level.to_string());
    b.set_if_absent("TMPDIR", "/tmp");
    if let Some(distribution) = ctx.distribution {
        b.set("SLURM_DISTRIBUTION", distribution);
    }
    if ctx.label {
        b.set("SLURM_LABELIO", "1");
    }
    if ctx.within_allocation {
        b.set(
            "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0",
            super::repeated(shape.cpus, shape.num_nodes),
        );
    }
    if let Some(gpus) = ctx.gpus {
        b.gpu_vars(gpus, "SLURM_STEP_GPUS");
    }
    if let Some(shards) = ctx.shards {
        b.set("SLURM_SHARDS_ON_NODE", shards.to_string());
    }
    if let Some(spread) = ctx.spread {
        let per_node = spread.layout.tasks_per_node_text();
        let ranks = spread
            .layout
            .node_ranks
            .get(spread.node_id as usize)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let gtids: Vec<String> = ranks.iter().map(u32::to_string).collect();
        b.set("SLURM_GTIDS", gtids.join(","));
        b.set("SLURM_NODEID", spread.node_id.to_string());
        b.set(
            "SLURM_STEP_NODELIST",
            crate::grammar::hostlist::compress(spread.nodes),
        );
        b.set("SLURM_STEP_NUM_NODES", spread.nodes.len().to_string());
        b.set("SLURM_TASKS_PER_NODE", per_node.clone());
        b.set("SLURM_STEP_TASKS_PER_NODE", per_node);
    }
    b.finish()
}

/// One task's environment: the step's plus its ranks. The launcher adds `SLURM_TASK_PID` once the process exists.
pub fn task_environment(step: &[(String, String)], task: TaskPlacement) -> Vec<(String, String)> {
    let mut b = EnvBuilder::new(step);
    b.set("SLURM_PROCID", task.procid.to_string());
    b.set("SLURM_LOCALID", task.localid.to_string());
    b.vars
}
