//! The proof that `spurd --simulate` runs spurd's own node logic: one scripted conversation with the controller is
//! played to a real spurd node (its spool in a temporary directory, every effect performed by the session's own
//! `carry_out`) and to a simulated node (`SimNode::handle`), and at every message both must get the same effects
//! from the machine. Both hold the same `NodeMachine` type; a change to how a message is handled shows in both.

use std::sync::Arc;

use spur_core::model::job::JobRecord;
use spur_core::wire::agent_proto::{ControllerToAgent, LaunchContext, NodeHello, TerminateReason};
use tokio::sync::mpsc;

use crate::controller_trust::ControllerTrust;
use crate::effects::{carry_out, SpoolView};
use crate::in_flight::InFlightLaunches;
use crate::jobs::JobSpool;
use crate::machine::{Effect, NodeError, NodeMachine, NodeView};
use crate::session::Agent;
use crate::sim::node::SimNode;

const T0: u64 = 1_800_000_000_000;

fn agent(dir: &tempfile::TempDir) -> Arc<Agent> {
    let spool = JobSpool::new(
        dir.path().join("spool"),
        "spurstepd".into(),
        "n1".into(),
        "n1".into(),
    )
    .unwrap();
    Arc::new(Agent {
        spool,
        controller_urls: vec!["http://127.0.0.1:1".into()],
        auth: spur_auth::ClientAuth::Local {
            socket: dir.path().join("none.sock"),
        },
        hello: NodeHello {
            name: "n1".into(),
            hostname: "n1".into(),
            addr: "n1".into(),
            cpus: 1,
            sockets: 1,
            cores_per_socket: 1,
            threads_per_core: 1,
            real_memory_mb: 1000,
            boot_time: 0,
            agent_start_time: 0,
            os: "Linux".into(),
            arch: "x86_64".into(),
            version: "22.05.8".into(),
            running_jobs: Vec::new(),
            running_runs: Vec::new(),
            gpu_topology: None,
            session_nonce: None,
        },
        deferred: Default::default(),
        trust: ControllerTrust::from_conf(None).unwrap(),
    })
}

fn launch(job_id: u32, run: u32) -> ControllerToAgent {
    let mut job = JobRecord::pending(job_id, Default::default(), "p".into(), 0, 0);
    job.restarts = run;
    ControllerToAgent::Launch {
        job: Box::new(job),
        context: LaunchContext::default(),
    }
}

fn terminate(job_id: u32, run: Option<u32>) -> ControllerToAgent {
    ControllerToAgent::Terminate {
        job_id,
        reason: TerminateReason::Cancelled,
        at: 0,
        kill_wait_secs: 0,
        run,
    }
}

fn ack(job_id: u32, run: Option<u32>) -> ControllerToAgent {
    ControllerToAgent::FinishedAck { job_id, run }
}

/// The kind of each effect, for a readable failure message.
fn kinds(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .map(|e| {
            format!("{e:?}")
                .split([' ', '('])
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

#[tokio::test]
async fn spurd_and_the_simulator_decide_every_message_alike() {
    let dir = tempfile::tempdir().unwrap();
    let agent = agent(&dir);
    let (outbox, _inbox) = mpsc::channel(64);
    let mut launches = InFlightLaunches::default();
    let machine = NodeMachine::new();
    let mut sim = SimNode::new(None);

    let script = vec![
        ControllerToAgent::Welcome { node: "n1".into() },
        // spurd's launch fails (the job has no script) and leaves a result; the simulated job runs: both hold run 0.
        launch(7, 0),
        // Resent after a reconnect: not started twice (each side's own idempotence).
        launch(7, 0),
        ControllerToAgent::Signal {
            job_id: 7,
            signal: 10,
            scope: spur_core::wire::api::SignalScope::Steps,
            step_pids: Vec::new(),
            step_ids: vec![1],
        },
        ControllerToAgent::Notify {
            job_id: 7,
            message: "hello".into(),
        },
        // Never launched here: reported killed.
        terminate(8, Some(2)),
        // A terminate of a run replaced here since: nothing.
        terminate(8, Some(1)),
        // The held result is of an earlier run: it goes, and the named run is reported.
        terminate(8, Some(3)),
        // An acknowledgement of another run keeps the result.
        ack(8, Some(2)),
        terminate(7, Some(0)),
        ack(8, Some(3)),
        // Nothing of job 8 is left: a run-less terminate is answered as never launched.
        terminate(8, None),
        ControllerToAgent::MeasureSteps {
            request_id: 1,
            job_id: 7,
            uid: 0,
            steps: vec![spur_core::model::step_usage::StepRef::Batch],
        },
    ];
    for message in script {
        let spurd_sees = machine.handle(message.clone(), &SpoolView(&agent)).unwrap();
        let sim_sees = sim.machine().handle(message.clone(), &sim).unwrap();
        assert_eq!(
            spurd_sees,
            sim_sees,
            "spurd {:?} and the simulator {:?} differ on {message:?}",
            kinds(&spurd_sees),
            kinds(&sim_sees)
        );
        let job_id = message.job_id();
        carry_out(&agent, &machine, message.clone(), &outbox, &mut launches)
            .await
            .unwrap();
        if let Some(job_id) = job_id {
            launches.settle(job_id).await.unwrap();
        }
        sim.handle(message, T0).unwrap();
        // What the next message is decided against is the same on both (job 7's launch failed in spurd, so
        // only the simulated job 7 is alive; nothing here asks whether it is).
        for id in [7, 8] {
            let spool = SpoolView(&agent);
            assert_eq!(
                (spool.run_of(id), spool.holds(id)),
                (sim.run_of(id), sim.holds(id)),
                "job {id}"
            );
        }
    }

    let rejected = ControllerToAgent::Rejected {
        message: "unknown node".into(),
    };
    let refusal = Err(NodeError::Rejected("unknown node".into()));
    assert_eq!(
        machine.handle(rejected.clone(), &SpoolView(&agent)),
        refusal
    );
    assert_eq!(sim.handle(rejected, T0), refusal.map(|_| ()));
}

/// Compile-level: the simulated node is driven by the agent's machine, the very type spurd's session builds.
#[test]
fn the_simulated_node_holds_the_agents_machine() {
    let sim = SimNode::new(None);
    let machine: &NodeMachine = sim.machine();
    assert_eq!(machine, &NodeMachine::new());
}
