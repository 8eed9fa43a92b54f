//! Launching a step's tasks on other nodes: srun sends a [`StepLaunch`] with its `CreateStep`; the controller,
//! which knows the job's owner and nodes, hands each node's agent a [`NodeStepLaunch`]; the agent starts a step
//! supervisor (`spurstepd --step`) that runs the node's tasks as the job's user and connects back to srun for
//! their streams, exits and signals. No node ever accepts a launch from anyone but its controller.

use serde::{Deserialize, Serialize};

/// What srun asks to start, node by node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepLaunch {
    pub argv: Vec<String>,
    pub work_dir: String,
    /// `addr:port` srun listens on for the step's supervisors.
    pub io_addr: String,
    /// The secret each supervisor presents first, so srun only takes its own step's connections.
    pub io_key: String,
    pub kill_wait_secs: u32,
    pub nodes: Vec<NodeTasks>,
    /// `--pty`: rank 0 runs on a pseudo-terminal its supervisor relays.
    #[serde(default)]
    pub pty: bool,
    /// task/affinity: how the tasks are bound to CPUs (`None`: unbound).
    #[serde(default)]
    pub cpu_bind: Option<CpuBindSpec>,
    /// `--gpu-bind` (or the `per_task:N` `--gpus-per-task` implies): which GPUs each task sees.
    #[serde(default)]
    pub gpu_bind: Option<String>,
    /// The step's own memory on each node in MB (srun's `--mem`, or `--mem-per-cpu` times the node's CPUs of
    /// the step): its cgroup's limit there, under the job's; `None`: the job's.
    #[serde(default)]
    pub mem_per_node_mb: Option<u64>,
}

/// A step's `--cpu-bind` as its supervisors apply it ([`crate::cpu_bind`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuBindSpec {
    /// `--cpu-bind`'s value, or `cores` by default.
    pub policy: String,
    pub cpus_per_task: u32,
}

impl CpuBindSpec {
    /// The binding of the task with node-local id `localid` (`None`: unbound, or a policy that does not parse).
    pub fn task_binding(&self, localid: u32) -> Option<crate::cpu_bind::TaskBinding> {
        crate::cpu_bind::CpuBindPolicy::parse(&self.policy)
            .ok()?
            .task_binding(localid, self.cpus_per_task)
    }
}

/// One node's share of the step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeTasks {
    pub node: String,
    /// The node's index in the step (`SLURM_NODEID`).
    pub node_id: u32,
    /// The step ranks it runs, in local order (`SLURM_LOCALID` is the position).
    pub ranks: Vec<u32>,
    /// The step's environment on that node; the supervisor adds each task's ranks and pid.
    pub env: Vec<(String, String)>,
    /// `--multi-prog`: each of `ranks`' own command, in the same order; empty: every task runs the step's argv.
    #[serde(default)]
    pub argv: Vec<Vec<String>>,
}

/// `sattach`'s request to one node of a running step: where to connect and what to present.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepAttach {
    pub job_id: u32,
    pub step_id: u32,
    /// The node's index among the step's nodes as sattach knows them (`node_list` expanded).
    pub node_index: u32,
    /// The job's owner: only a listener of that user may be handed the request.
    #[serde(default)]
    pub uid: u32,
    /// `addr:port` sattach listens on.
    pub addr: String,
    /// The secret presented first, so sattach only takes connections for its own request.
    pub key: String,
}

/// What one node's agent is asked to run (the controller fills in the job's owner).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeStepLaunch {
    pub job_id: u32,
    pub step_id: u32,
    pub uid: u32,
    pub gid: u32,
    pub argv: Vec<String>,
    pub work_dir: String,
    pub io_addr: String,
    pub io_key: String,
    pub kill_wait_secs: u32,
    pub tasks: NodeTasks,
    #[serde(default)]
    pub pty: bool,
    #[serde(default)]
    pub cpu_bind: Option<CpuBindSpec>,
    #[serde(default)]
    pub gpu_bind: Option<String>,
    #[serde(default)]
    pub mem_per_node_mb: Option<u64>,
}

impl StepLaunch {
    /// Each node's launch, for a job owned by `uid`/`gid`.
    pub fn per_node(&self, job_id: u32, step_id: u32, uid: u32, gid: u32) -> Vec<NodeStepLaunch> {
        self.nodes
            .iter()
            .map(|tasks| NodeStepLaunch {
                job_id,
                step_id,
                uid,
                gid,
                argv: self.argv.clone(),
                work_dir: self.work_dir.clone(),
                io_addr: self.io_addr.clone(),
                io_key: self.io_key.clone(),
                kill_wait_secs: self.kill_wait_secs,
                tasks: tasks.clone(),
                pty: self.pty,
                cpu_bind: self.cpu_bind.clone(),
                gpu_bind: self.gpu_bind.clone(),
                mem_per_node_mb: self.mem_per_node_mb,
            })
            .collect()
    }

    pub fn num_tasks(&self) -> u32 {
        self.nodes.iter().map(|n| n.ranks.len() as u32).sum()
    }
}
