//! Sample records for the format module's unit tests: a running batch job, a pending one, array tasks, and a
//! node/partition pair like the reference cluster's.

use std::collections::BTreeMap;

use crate::format::FormatContext;
use crate::model::job::{Allocation, JobRecord, JobSpec};
use crate::model::records::{NodeBaseState, NodeGres, NodeRecord, PartitionRecord};
use crate::model::states::{JobBaseState, JobReason};

pub const NOW: i64 = 1_796_050_685;

pub fn ctx() -> FormatContext {
    FormatContext::new(NOW, 0)
        .with_user(1000, "alice")
        .with_group(100, "users")
        .with_cluster("c1")
}

/// Job 42: running for 65 s on n[1-2], 4 CPUs (2 per node), 30-minute limit, named `train`.
pub fn running() -> JobRecord {
    JobRecord {
        job_id: 42,
        array_job_id: None,
        array_task_id: None,
        spec: JobSpec {
            name: "train".into(),
            user_id: 1000,
            group_id: 100,
            user_name: "alice".into(),
            account: Some("proj".into()),
            time_limit_min: Some(30),
            nodes_min: 2,
            ntasks: Some(4),
            cpus_per_task: 1,
            mem_per_cpu_mb: Some(2048),
            requeue: true,
            work_dir: "/home/alice".into(),
            script: Some("#!/bin/sh\n".into()),
            command: Some("/home/alice/train.sh".into()),
            submit_host: "login1".into(),
            comment: Some("nightly".into()),
            ..JobSpec::default()
        },
        state: JobBaseState::Running,
        completing: false,
        requeue_pending: false,
        warning_signal_sent: false,
        reason: JobReason::NoReason,
        hold: None,
        priority: 4_294_901_760,
        submit_time: NOW - 100,
        eligible_time: Some(NOW - 100),
        start_time: Some(NOW - 65),
        end_time: None,
        last_sched_eval: Some(NOW - 65),
        time_limit_min: Some(30),
        alloc: Some(Allocation {
            node_names: vec!["n1".into(), "n2".into()],
            cpus: 2,
            mem_mb: 4096,
            gres_indices: BTreeMap::new(),
            core_ids: Vec::new(),
            oversubscribe: 0,
            shard_gpus: Vec::new(),
            node_units: Vec::new(),
        }),
        exit_code: 0,
        exit_signal: 0,
        restarts: 0,
        resize_time: None,
        partition: "gpu".into(),
        accrue_time: Some(NOW - 100),
        alloc_sid: 77,
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

/// Job 43: pending on resources, unlimited, 1 node, 2 tasks.
pub fn pending() -> JobRecord {
    let mut job = running();
    job.job_id = 43;
    job.spec.name = "wait".into();
    job.spec.nodes_min = 1;
    job.spec.ntasks = Some(2);
    job.spec.time_limit_min = None;
    job.spec.account = None;
    job.spec.comment = None;
    job.state = JobBaseState::Pending;
    job.reason = JobReason::Resources;
    job.priority = 100;
    job.start_time = None;
    job.last_sched_eval = Some(NOW - 5);
    job.time_limit_min = None;
    job.alloc = None;
    job
}

/// A pending task of array 50 with job id `id`.
pub fn array_task(id: u32, task: u32) -> JobRecord {
    let mut job = pending();
    job.job_id = id;
    job.array_job_id = Some(50);
    job.array_task_id = Some(task);
    job.spec.name = "arr".into();
    job.spec.array = Some("1-4%2".into());
    job.reason = JobReason::Priority;
    job
}

pub fn node(name: &str) -> NodeRecord {
    NodeRecord {
        name: name.into(),
        addr: format!("10.0.0.{}", name.trim_start_matches('n')),
        hostname: name.into(),
        cpus: 4,
        boards: 1,
        sockets: 2,
        cores_per_socket: 2,
        threads_per_core: 1,
        real_memory_mb: 16_000,
        tmp_disk_mb: 100,
        weight: 1,
        features: vec!["a100".into()],
        gres: vec![NodeGres {
            name: "gpu".into(),
            gres_type: Some("a100".into()),
            count: 2,
            files: Vec::new(),
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
        partitions: vec!["gpu".into()],
        billing_weights: None,
        boot_time: Some(NOW - 3600),
        agent_start_time: Some(NOW - 600),
        last_busy_time: Some(NOW - 60),
        last_heartbeat: None,
        version: "22.05.8".into(),
        os: "Linux".into(),
        arch: "x86_64".into(),
        free_mem_mb: Some(15_000),
        cpu_load: Some(1.5),
        port: None,
        gpu_topology: Default::default(),
        reserved: false,
        maintenance: false,
        epilogs_running: 0,
    }
}

pub fn partition(name: &str, nodes: &[&str]) -> PartitionRecord {
    let names: Vec<String> = nodes.iter().map(|n| n.to_string()).collect();
    PartitionRecord {
        default: true,
        max_time_min: Some(60),
        oversubscribe: String::new(),
        ..PartitionRecord::with_nodes(name, &names)
    }
}
