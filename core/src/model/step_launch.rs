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
    /// The step's own memory on each node in MB (srun's `--mem`; `--mem-per-cpu` is per node, in
    /// [`NodeTasks::mem_mb`]): its cgroup's limit there, under the job's; `None`: the job's.
    #[serde(default)]
    pub mem_per_node_mb: Option<u64>,
    /// `--mpi`: the step's MPI plugin, which each node's supervisor serves (docs/mpi.md).
    #[serde(default)]
    pub mpi: crate::model::mpi::MpiType,
    /// `--task-prolog`: run as the job's user before each task, after slurm.conf's `TaskProlog`.
    #[serde(default)]
    pub task_prolog: Option<String>,
    /// `--task-epilog`: run as the job's user after each task, before slurm.conf's `TaskEpilog`.
    #[serde(default)]
    pub task_epilog: Option<String>,
}

/// A step's `--cpu-bind` as its supervisors apply it ([`crate::grammar::cpu_bind`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuBindSpec {
    /// `--cpu-bind`'s value, or `cores` by default.
    pub policy: String,
    pub cpus_per_task: u32,
}

impl CpuBindSpec {
    /// The binding of the task with node-local id `localid` (`None`: unbound, or a policy that does not parse).
    pub fn task_binding(&self, localid: u32) -> Option<crate::grammar::cpu_bind::TaskBinding> {
        crate::grammar::cpu_bind::CpuBindPolicy::parse(&self.policy)
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
    /// The step's memory on this node in MB when it differs from node to node (srun's `--mem-per-cpu` times
    /// the step's CPUs here); `None`: [`StepLaunch::mem_per_node_mb`].
    #[serde(default)]
    pub mem_mb: Option<u64>,
}

impl NodeTasks {
    /// `--mem-per-cpu` as this node's share of the step: the step's CPUs here are its tasks here times their
    /// CPUs each, as Slurm sizes a step's memory cgroup.
    pub fn mem_for_cpus(&self, mem_per_cpu_mb: u64, cpus_per_task: u32) -> u64 {
        mem_per_cpu_mb
            .saturating_mul(self.ranks.len() as u64)
            .saturating_mul(u64::from(cpus_per_task.max(1)))
    }
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

/// `sbcast`'s request to one node of a running job: connect to sbcast as the job's owner and write the file it
/// sends. The controller fills in the owner; sbcast's own words (path, mode, force) travel on that connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileBcastOrder {
    pub job_id: u32,
    /// The node's index among the nodes sbcast was told about (`node_list` expanded).
    pub node_index: u32,
    /// The job's owner and group: the file is opened and written with their identity only.
    pub uid: u32,
    pub gid: u32,
    /// `addr:port` sbcast listens on.
    pub addr: String,
    /// The secret presented first, so sbcast only takes connections for its own request.
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
    /// The step's MPI plugin ([`StepLaunch::mpi`]).
    #[serde(default)]
    pub mpi: crate::model::mpi::MpiType,
    /// [`StepLaunch::task_prolog`] and [`StepLaunch::task_epilog`].
    #[serde(default)]
    pub task_prolog: Option<String>,
    #[serde(default)]
    pub task_epilog: Option<String>,
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
                mem_per_node_mb: tasks.mem_mb.or(self.mem_per_node_mb),
                mpi: self.mpi,
                task_prolog: self.task_prolog.clone(),
                task_epilog: self.task_epilog.clone(),
            })
            .collect()
    }

    pub fn num_tasks(&self) -> u32 {
        self.nodes.iter().map(|n| n.ranks.len() as u32).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, ranks: Vec<u32>, mem_mb: Option<u64>) -> NodeTasks {
        NodeTasks {
            node: name.into(),
            node_id: 0,
            ranks,
            env: Vec::new(),
            argv: Vec::new(),
            mem_mb,
        }
    }

    #[test]
    fn memory_per_cpu_follows_the_steps_cpus_on_each_node() {
        // Slurm gave `srun -n2 --mem-per-cpu=60M` a 120 MB step cgroup on a node running both tasks.
        assert_eq!(node("a", vec![0, 1], None).mem_for_cpus(60, 1), 120);
        assert_eq!(node("a", vec![0], None).mem_for_cpus(60, 4), 240);
        assert_eq!(node("a", vec![0], None).mem_for_cpus(60, 0), 60);
        let launch = StepLaunch {
            argv: vec!["true".into()],
            work_dir: "/".into(),
            io_addr: "127.0.0.1:1".into(),
            io_key: "k".into(),
            kill_wait_secs: 1,
            nodes: vec![
                node("a", vec![0, 1], Some(120)),
                node("b", vec![2], Some(60)),
                node("c", vec![3], None),
            ],
            pty: false,
            cpu_bind: None,
            gpu_bind: None,
            mem_per_node_mb: Some(500),
            mpi: Default::default(),
            task_prolog: None,
            task_epilog: None,
        };
        let per_node: Vec<_> = launch
            .per_node(1, 0, 0, 0)
            .iter()
            .map(|l| l.mem_per_node_mb)
            .collect();
        assert_eq!(per_node, vec![Some(120), Some(60), Some(500)]);
    }
}
