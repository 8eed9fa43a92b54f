//! The environment a batch script sees: the submitter's exported variables plus Slurm's `SLURM_*` set (with
//! `SPUR_*` twins), built from the job record and facts about the node. Pure: the caller supplies node facts.

use crate::job::JobRecord;

/// Facts about where and how the job runs, which the job record does not hold.
#[derive(Debug, Clone, Default)]
pub struct BatchEnvContext<'a> {
    pub node_name: &'a str,
    pub cluster_name: &'a str,
    pub slurm_conf: &'a str,
    /// `host:port` of the controller, for `SLURM_WORKING_CLUSTER`.
    pub controller_addr: &'a str,
    /// Task ids of the whole array (for `SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP`), empty for plain jobs.
    pub array_task_ids: &'a [u32],
    /// The memory per CPU the scheduler applied (explicit or DefMemPerCPU), for `SLURM_MEM_PER_CPU`.
    pub mem_per_cpu_mb: Option<u64>,
    pub user_home: Option<&'a str>,
    pub user_shell: Option<&'a str>,
    /// slurm.conf `TmpFS`: the job's `TMPDIR` unless it brings its own (default `/tmp`).
    pub tmp_fs: Option<&'a str>,
}

/// Variables Slurm sets for the batch step that users most often read; each also gets a `SPUR_` twin.
const TWINNED: &[&str] = &[
    "SLURM_JOB_ID",
    "SLURM_JOB_NODELIST",
    "SLURM_SUBMIT_DIR",
    "SLURM_ARRAY_TASK_ID",
];

pub fn batch_environment(job: &JobRecord, ctx: &BatchEnvContext<'_>) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = job.spec.environment.clone();
    let mut set = |key: &str, value: String| {
        env.retain(|(k, _)| k != key);
        env.push((key.to_string(), value));
    };
    let alloc = job.alloc.clone().unwrap_or_default();
    let node_list = crate::hostlist::compress(&alloc.node_names);
    let num_nodes = alloc.node_names.len().max(1);
    let cpus = alloc.cpus.to_string();
    let job_id = job.job_id.to_string();

    set("ENVIRONMENT", "BATCH".to_string());
    set("HOSTNAME", ctx.node_name.to_string());
    if let Some(home) = ctx.user_home {
        if !job.spec.environment.iter().any(|(k, _)| k == "HOME") {
            set("HOME", home.to_string());
        }
    }
    if let Some(shell) = ctx.user_shell {
        if !job.spec.environment.iter().any(|(k, _)| k == "SHELL") {
            set("SHELL", shell.to_string());
        }
    }
    if !job.spec.environment.iter().any(|(k, _)| k == "TMPDIR") {
        set("TMPDIR", ctx.tmp_fs.unwrap_or("/tmp").to_string());
    }
    set("SLURMD_NODENAME", ctx.node_name.to_string());
    set("SLURM_CLUSTER_NAME", ctx.cluster_name.to_string());
    set("SLURM_CONF", ctx.slurm_conf.to_string());
    set("SLURM_CPUS_ON_NODE", cpus.clone());
    set("SLURM_GTIDS", "0".to_string());
    set("SLURM_JOBID", job_id.clone());
    set("SLURM_JOB_ID", job_id.clone());
    set(
        "SLURM_JOB_CPUS_PER_NODE",
        cpus_per_node_text(alloc.cpus, num_nodes),
    );
    set("SLURM_JOB_GID", job.spec.group_id.to_string());
    set("SLURM_JOB_NAME", job.spec.name.clone());
    set("SLURM_JOB_NODELIST", node_list.clone());
    set("SLURM_JOB_NUM_NODES", num_nodes.to_string());
    set("SLURM_JOB_PARTITION", job.partition.clone());
    set("SLURM_JOB_UID", job.spec.user_id.to_string());
    set("SLURM_JOB_USER", job.spec.user_name.clone());
    set("SLURM_LOCALID", "0".to_string());
    if let Some(mem) = ctx.mem_per_cpu_mb {
        set("SLURM_MEM_PER_CPU", mem.to_string());
    }
    if let Some(mem) = job.spec.mem_per_node_mb {
        set("SLURM_MEM_PER_NODE", mem.to_string());
    }
    set("SLURM_NNODES", num_nodes.to_string());
    set("SLURM_NODEID", "0".to_string());
    set("SLURM_NODELIST", node_list.clone());
    set("SLURM_NODE_ALIASES", "(null)".to_string());
    if let Some(ntasks) = job.spec.ntasks {
        set("SLURM_NPROCS", ntasks.to_string());
        set("SLURM_NTASKS", ntasks.to_string());
    }
    if job.spec.cpus_per_task > 1 {
        set("SLURM_CPUS_PER_TASK", job.spec.cpus_per_task.to_string());
    }
    if let Some(per_node) = job.spec.ntasks_per_node {
        set("SLURM_NTASKS_PER_NODE", per_node.to_string());
    }
    set("SLURM_PRIO_PROCESS", "0".to_string());
    set("SLURM_PROCID", "0".to_string());
    set("SLURM_SUBMIT_DIR", job.spec.work_dir.clone());
    set("SLURM_SUBMIT_HOST", job.spec.submit_host.clone());
    set("SLURM_TASKS_PER_NODE", tasks_per_node_text(job, num_nodes));
    set("SLURM_TOPOLOGY_ADDR", ctx.node_name.to_string());
    set("SLURM_TOPOLOGY_ADDR_PATTERN", "node".to_string());
    set("SLURM_WORKING_CLUSTER", working_cluster(ctx));
    if let (Some(array_id), Some(task)) = (job.array_job_id, job.array_task_id) {
        set("SLURM_ARRAY_JOB_ID", array_id.to_string());
        set("SLURM_ARRAY_TASK_ID", task.to_string());
        let ids = ctx.array_task_ids;
        set("SLURM_ARRAY_TASK_COUNT", ids.len().max(1).to_string());
        set(
            "SLURM_ARRAY_TASK_MIN",
            ids.iter().min().copied().unwrap_or(task).to_string(),
        );
        set(
            "SLURM_ARRAY_TASK_MAX",
            ids.iter().max().copied().unwrap_or(task).to_string(),
        );
        set("SLURM_ARRAY_TASK_STEP", array_step(ids).to_string());
    }
    if let Some(gpus) = alloc.gres_indices.get("gpu") {
        let list = gpus
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        set("CUDA_VISIBLE_DEVICES", list.clone());
        set("ROCR_VISIBLE_DEVICES", list.clone());
        set("GPU_DEVICE_ORDINAL", list.clone());
        set("SLURM_GPUS_ON_NODE", gpus.len().to_string());
        set("SLURM_JOB_GPUS", list);
    }
    let twins: Vec<(String, String)> = env
        .iter()
        .filter(|(k, _)| TWINNED.contains(&k.as_str()))
        .map(|(k, v)| (k.replacen("SLURM_", "SPUR_", 1), v.clone()))
        .collect();
    for (k, v) in twins {
        env.retain(|(existing, _)| existing != &k);
        env.push((k, v));
    }
    env
}

/// `2(x3)`-style run-length text Slurm uses for per-node counts.
fn repeated(value: u32, nodes: usize) -> String {
    if nodes > 1 {
        format!("{value}(x{nodes})")
    } else {
        value.to_string()
    }
}

fn cpus_per_node_text(cpus: u32, nodes: usize) -> String {
    repeated(cpus, nodes)
}

fn tasks_per_node_text(job: &JobRecord, nodes: usize) -> String {
    let nodes_u32 = u32::try_from(nodes).unwrap_or(1);
    let total = job
        .spec
        .ntasks
        .unwrap_or_else(|| job.spec.ntasks_per_node.unwrap_or(1) * nodes_u32);
    let base = total / nodes_u32;
    let extra = (total % nodes_u32) as usize;
    match (extra, nodes - extra) {
        (0, n) => repeated(base, n),
        (e, 0) => repeated(base + 1, e),
        (e, rest) => format!("{},{}", repeated(base + 1, e), repeated(base, rest)),
    }
}

fn array_step(ids: &[u32]) -> u32 {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let steps: Vec<u32> = sorted.windows(2).map(|w| w[1] - w[0]).collect();
    match steps.first() {
        Some(&first) if steps.iter().all(|&s| s == first) => first,
        _ => 1,
    }
}

/// `cluster:addr:port:protocol_version:plugin_id`, as Slurm 22.05 prints it.
fn working_cluster(ctx: &BatchEnvContext<'_>) -> String {
    let (addr, port) = ctx
        .controller_addr
        .rsplit_once(':')
        .unwrap_or((ctx.controller_addr, "6817"));
    format!("{}:{}:{}:9728:109", ctx.cluster_name, addr, port)
}
