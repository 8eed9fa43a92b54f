//! Launches decided before a job ended are not sent after its result was acknowledged: a real controller (its raft
//! store in a temporary directory) and an agent session's channel.

use std::sync::Arc;

use tokio::sync::mpsc;

use spur_core::model::job::JobSpec;
use spur_core::model::records::{ClusterConfig, PartitionRecord};
use spur_core::wire::agent_proto::{ControllerToAgent, LaunchContext};

use super::{Controller, SystemClock};
use crate::raft::{RaftConfig, ReplicatedState};
use crate::state::{
    ClusterState, Command, ConfigSnapshot, Effect, NodeDefinition, NodeRegistration, Outcome,
    Settings,
};

const NODE: &str = "n1";

fn config() -> ConfigSnapshot {
    let node = NodeDefinition {
        name: NODE.to_string(),
        addr: "127.0.0.1".to_string(),
        hostname: NODE.to_string(),
        cpus: 2,
        boards: 1,
        sockets: 1,
        cores_per_socket: 2,
        threads_per_core: 1,
        real_memory_mb: 4000,
        tmp_disk_mb: 0,
        weight: 1,
        features: Vec::new(),
        gres: Vec::new(),
        gpu_links: None,
        configured_down: false,
        configured_drain: false,
    };
    ConfigSnapshot {
        cluster: ClusterConfig::default(),
        settings: Settings {
            def_mem_per_cpu_mb: Some(100),
            ..Settings::default()
        },
        nodes: vec![node],
        partitions: vec![PartitionRecord {
            default: true,
            ..PartitionRecord::with_nodes("debug", &[NODE.to_string()])
        }],
    }
}

fn registration(now: i64) -> Command {
    Command::RegisterNode {
        registration: Box::new(NodeRegistration {
            name: NODE.to_string(),
            hostname: NODE.to_string(),
            addr: "127.0.0.1".to_string(),
            cpus: 2,
            sockets: 1,
            cores_per_socket: 2,
            threads_per_core: 1,
            real_memory_mb: 4000,
            boot_time: 0,
            agent_start_time: now,
            os: "Linux".to_string(),
            arch: "x86_64".to_string(),
            version: "test".to_string(),
            running_jobs: Vec::new(),
            running_runs: Vec::new(),
            gpu_topology: None,
            session_nonce: None,
        }),
        now,
    }
}

fn spec(name: &str) -> JobSpec {
    JobSpec {
        name: name.to_string(),
        user_id: 1000,
        group_id: 1000,
        user_name: "alice".to_string(),
        nodes_min: 1,
        cpus_per_task: 1,
        work_dir: "/tmp".to_string(),
        script: Some("#!/bin/sh\ntrue\n".to_string()),
        ..Default::default()
    }
}

/// Submits a job and runs a scheduling pass (which starts it on the node); the job's id.
async fn submit_and_start(controller: &Controller, name: &str, now: i64) -> u32 {
    let job_id = controller
        .commit(Command::Submit {
            spec: Box::new(spec(name)),
            now,
        })
        .await
        .expect("submit")
        .job_id
        .expect("job id");
    let plan = controller
        .state
        .read(|s| crate::scheduler::schedule(s, now));
    controller
        .commit(Command::Schedule {
            starts: plan.starts,
            reasons: plan.reasons,
            now,
            forecasts: plan.forecasts,
            priorities: plan.priorities,
            preemptions: plan.preemptions,
            reason_descs: plan.reason_descs,
            resumes: plan.resumes,
        })
        .await
        .expect("schedule");
    job_id
}

/// The orders queued for the agent so far, by kind and job.
fn drain(orders: &mut mpsc::Receiver<ControllerToAgent>) -> Vec<(&'static str, Option<u32>)> {
    let mut seen = Vec::new();
    while let Ok(order) = orders.try_recv() {
        let kind = match &order {
            ControllerToAgent::Launch { .. } => "launch",
            ControllerToAgent::FinishedAck { .. } => "ack",
            _ => "other",
        };
        seen.push((kind, order.job_id()));
    }
    seen
}

/// A node's registration decides to launch a job it does not run, which had just ended there; the job's result,
/// resent by the agent, commits before the registration's effects are performed and is acknowledged, and the agent
/// forgets the job. The launch decided before must not follow the acknowledgement: the agent would start the job a
/// second time (seen as "job N ran twice" in compat-cli/tests/cluster_ha.rs).
#[tokio::test]
async fn a_launch_decided_before_the_job_ended_is_not_sent_after_its_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = ReplicatedState::open(
        dir.path().join("raft"),
        1,
        RaftConfig::default(),
        ClusterState::new(),
    )
    .await
    .expect("open the store");
    let controller = Controller::new(state, Arc::new(SystemClock), LaunchContext::default());
    let now = controller.now();
    controller
        .commit(Command::ApplyConfig(Box::new(config())))
        .await
        .expect("configuration");
    let (sender, mut orders) = mpsc::channel(64);
    controller.attach_agent(NODE, sender).await;
    controller
        .commit(registration(now))
        .await
        .expect("registration");
    let job_id = submit_and_start(&controller, "once", now).await;
    assert_eq!(drain(&mut orders), vec![("launch", Some(job_id))]);

    // The agent registers again without the job (it ended there); the registration's launch is decided now ...
    let registered = controller
        .commit(registration(now))
        .await
        .expect("registration");
    let relaunch = Effect::Launch {
        node: NODE.to_string(),
        job_id,
    };
    assert!(registered.effects.contains(&relaunch));
    drain(&mut orders);
    // ... the job's result commits and is acknowledged first ...
    controller
        .commit(Command::Finished {
            job_id,
            outcome: Outcome::Exited { code: 0, signal: 0 },
            now,
            run: Some(0),
        })
        .await
        .expect("result");
    assert_eq!(drain(&mut orders), vec![("ack", Some(job_id))]);
    // ... and the launch, performed after, goes nowhere.
    controller.perform(&[relaunch]).await;
    assert_eq!(drain(&mut orders), vec![]);

    // A launch still due goes out as before.
    let second = submit_and_start(&controller, "due", now).await;
    assert_eq!(drain(&mut orders), vec![("launch", Some(second))]);
    controller
        .perform(&[Effect::Launch {
            node: NODE.to_string(),
            job_id: second,
        }])
        .await;
    assert_eq!(drain(&mut orders), vec![("launch", Some(second))]);
}
