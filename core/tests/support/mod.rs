//! Records matching the Slurm 22.05 reference cluster of core/tests/golden/slurm-22.05: its jobs (from
//! core/tests/vectors/format_jobs.tsv), node `vm`, partition `debug`, and the three-node `batch` cluster.

#![allow(dead_code)]

use std::collections::BTreeMap;

use spur_core::format::FormatContext;
use spur_core::model::job::{Allocation, HoldKind, JobRecord, JobSpec};
use spur_core::model::records::{NodeBaseState, NodeGres, NodeRecord, PartitionRecord};
use spur_core::model::states::{JobBaseState, JobReason};

/// The submit directory as the text captures show it (the capture tool replaced the real path).
pub const SUBMIT_DIR: &str = "$SUBMIT_DIR";
/// The real submit directory, which the JSON captures still show.
pub const REAL_DIR: &str = "/tmp/slurmjobs";

/// The stdout part of a capture file (between `--- stdout ---` and `--- stderr ---`).
pub fn capture(name: &str) -> String {
    let path = format!(
        "{}/tests/golden/slurm-22.05/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let start = text.find("--- stdout ---\n").map(|i| i + 15).unwrap_or(0);
    let end = text.find("--- stderr ---").unwrap_or(text.len());
    text[start..end].to_string()
}

pub fn ctx(now: i64) -> FormatContext {
    FormatContext::new(now, 0)
        .with_user(0, "root")
        .with_group(0, "root")
        .with_cluster("refcluster")
}

/// Epoch seconds of `14:hh:mm`-style offsets from the capture day's 14:46:40.
pub const T0: i64 = 1_796_050_000;

fn opt(s: &str) -> Option<&str> {
    (s != "-").then_some(s)
}

fn opt_i64(s: &str) -> Option<i64> {
    opt(s).map(|v| v.parse().unwrap())
}

fn state(name: &str) -> JobBaseState {
    JobBaseState::ALL
        .into_iter()
        .find(|s| s.long_name() == name)
        .unwrap_or_else(|| panic!("state {name}"))
}

fn reason(name: &str) -> JobReason {
    JobReason::from_name(name).unwrap_or_else(|| panic!("reason {name}"))
}

/// The jobs of one snapshot (`final` or `live`) in the controller's order, with `work_dir` as submit directory.
pub fn jobs(snapshot: &str, work_dir: &str) -> Vec<JobRecord> {
    let text = include_str!("../vectors/format_jobs.tsv");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .filter_map(|line| {
            let cells: BTreeMap<&str, &str> =
                header.iter().copied().zip(line.split('\t')).collect();
            (cells["snapshot"] == snapshot).then(|| job(&cells, work_dir))
        })
        .collect()
}

fn job(c: &BTreeMap<&str, &str>, work_dir: &str) -> JobRecord {
    let wd = |s: &str| s.replace("{WD}", work_dir);
    let cpus: u32 = c["cpus"].parse().unwrap();
    let limit = opt(c["limit"]).map(|v| v.parse().unwrap());
    let (code, signal) = c["exit"].split_once(':').unwrap();
    let mut options = BTreeMap::new();
    if let Some(gpus) = opt(c["gpus"]) {
        options.insert("gpus".to_string(), gpus.to_string());
    }
    let dependency = opt(c["dependency"]).map(|d| d.split('(').next().unwrap().to_string());
    let spec = JobSpec {
        name: c["name"].to_string(),
        user_name: "root".into(),
        time_limit_min: limit,
        nodes_min: c["num_nodes"].parse().unwrap(),
        ntasks: opt(c["tasks"]).map(|v| v.parse().unwrap()),
        cpus_per_task: 1,
        mem_per_cpu_mb: Some(1024),
        gres_text: opt(c["gres"]).map(str::to_string),
        dependency,
        requeue: true,
        work_dir: work_dir.to_string(),
        stdout: opt(c["stdout"]).map(wd),
        stderr: opt(c["stderr"]).map(wd),
        script: (c["batch"] == "1").then(|| "#!/bin/sh\n".to_string()),
        command: opt(c["command"]).map(wd),
        submit_host: "localhost".into(),
        options,
        ..JobSpec::default()
    };
    let alloc = opt(c["nodes"]).map(|n| Allocation {
        node_names: vec![n.to_string()],
        cpus,
        mem_mb: u64::from(cpus) * 1024,
        gres_indices: BTreeMap::new(),
        core_ids: opt(c["cores"]).map_or_else(Vec::new, |ids| {
            ids.split(',').map(|i| i.parse().unwrap()).collect()
        }),
        oversubscribe: 0,
        shard_gpus: Vec::new(),
        node_units: Vec::new(),
    });
    JobRecord {
        job_id: c["id"].parse().unwrap(),
        array_job_id: opt(c["array_job"]).map(|v| v.parse().unwrap()),
        array_task_id: opt(c["array_task"]).map(|v| v.parse().unwrap()),
        spec,
        state: state(c["state"]),
        completing: false,
        requeue_pending: false,
        warning_signal_sent: false,
        reason: reason(c["reason"]),
        hold: (c["hold"] == "user").then_some(HoldKind::User),
        priority: c["priority"].parse().unwrap(),
        submit_time: c["submit"].parse().unwrap(),
        eligible_time: opt_i64(c["eligible"]),
        start_time: opt_i64(c["start"]),
        end_time: opt_i64(c["end"]),
        last_sched_eval: opt_i64(c["lse"]),
        time_limit_min: limit,
        alloc,
        exit_code: code.parse().unwrap(),
        exit_signal: signal.parse().unwrap(),
        restarts: 0,
        resize_time: None,
        partition: "debug".into(),
        accrue_time: opt_i64(c["accrue"]),
        alloc_sid: 2653,
        sched_nodes: opt(c["sched_nodes"]).map(str::to_string),
        expected_start: None,
        priority_fixed: false,
        backfill_scheduled: c["backfill"] == "1",
        dependency_status: opt(c["dependency"]).map(str::to_string),
        tres_req: Some(c["tres"].to_string()),
        tres_alloc: None,
        sharing: None,
        state_desc: None,
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

/// Jobs by id from a snapshot.
pub fn pick(jobs: &[JobRecord], ids: &[u32]) -> Vec<JobRecord> {
    ids.iter()
        .map(|id| jobs.iter().find(|j| j.job_id == *id).unwrap().clone())
        .collect()
}

/// The reference cluster's only node, idle, as at 14:57:34.
pub fn vm_node() -> NodeRecord {
    NodeRecord {
        name: "vm".into(),
        addr: "127.0.0.1".into(),
        hostname: "vm".into(),
        cpus: 2,
        boards: 1,
        sockets: 1,
        cores_per_socket: 2,
        threads_per_core: 1,
        real_memory_mb: 23_593,
        tmp_disk_mb: 0,
        weight: 1,
        features: Vec::new(),
        gres: vec![NodeGres {
            name: "gpu".into(),
            gres_type: Some("a100".into()),
            count: 4,
            files: (0..4).map(|i| format!("/dev/nvidia{i}")).collect(),
        }],
        base_state: NodeBaseState::Idle,
        drain: false,
        not_responding: false,
        reason: None,
        reason_time: None,
        reason_uid: None,
        alloc_cpus: 0,
        alloc_mem_mb: 0,
        alloc_shared_cpus: 0,
        alloc_share_slots: 0,
        alloc_gres: BTreeMap::new(),
        partitions: vec!["debug".into()],
        billing_weights: None,
        boot_time: Some(1_796_048_242),
        agent_start_time: Some(1_796_050_654),
        last_busy_time: Some(1_796_050_654),
        last_heartbeat: None,
        version: "22.05.8".into(),
        os: "Linux 6.18.44-fc-v857 #1 SMP PREEMPT_DYNAMIC @0".into(),
        arch: "x86_64".into(),
        free_mem_mb: Some(22_976),
        cpu_load: Some(0.30),
        port: None,
        gpu_topology: Default::default(),
        reserved: false,
        maintenance: false,
        epilogs_running: 0,
    }
}

/// Node `vm` while jobs 21 and 22 run (14:58:05).
pub fn vm_node_busy() -> NodeRecord {
    NodeRecord {
        base_state: NodeBaseState::Allocated,
        alloc_cpus: 2,
        alloc_mem_mb: 2048,
        last_busy_time: Some(T0 + 680),
        ..vm_node()
    }
}

pub fn partition(name: &str, nodes: &[&str]) -> PartitionRecord {
    let names: Vec<String> = nodes.iter().map(|n| n.to_string()).collect();
    PartitionRecord {
        nodes_expr: spur_core_compress(nodes),
        default: true,
        ..PartitionRecord::with_nodes(name, &names)
    }
}

fn spur_core_compress(nodes: &[&str]) -> String {
    match nodes {
        [one] => one.to_string(),
        _ => format!("n[1-{}]", nodes.len()),
    }
}

/// The three-node `batch` cluster of the multi-node captures (n1..n3, 2 sockets x 1 core, 2 GPUs each).
pub fn batch_nodes() -> Vec<NodeRecord> {
    (1..=3)
        .map(|i| NodeRecord {
            name: format!("n{i}"),
            addr: format!("10.200.0.1{i}"),
            hostname: format!("n{i}"),
            sockets: 2,
            cores_per_socket: 1,
            real_memory_mb: 4000,
            gres: vec![NodeGres {
                name: "gpu".into(),
                gres_type: Some("a100".into()),
                count: 2,
                files: Vec::new(),
            }],
            partitions: vec!["batch".into()],
            boot_time: Some(1_796_048_242),
            agent_start_time: Some(T0 - 676),
            last_busy_time: Some(T0 - 676),
            free_mem_mb: Some(18_978),
            cpu_load: Some(4.25),
            ..vm_node()
        })
        .collect()
}
