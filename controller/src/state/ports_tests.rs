//! Reserved ports through the state machine (`MpiParams=ports=`, state/ports.rs): a step's reply and its nodes'
//! launches carry the ports, `--resv-ports` overrides the count, a busy or impossible reservation refuses the step
//! (its id used up, as in slurmctld), and a step's end frees its ports, through a snapshot too.

use spur_core::model::step_launch::{NodeTasks, StepLaunch};
use spur_core::wire::api::{ControlRequest, SlurmErrno};

use super::tests::{spec, Harness};
use super::{Command, Effect};

fn launch(ranks: Vec<u32>) -> StepLaunch {
    StepLaunch {
        argv: vec!["true".to_string()],
        work_dir: "/tmp".to_string(),
        io_addr: "127.0.0.1:4000".to_string(),
        io_key: "k".to_string(),
        kill_wait_secs: 2,
        pty: false,
        cpu_bind: None,
        gpu_bind: None,
        mem_per_node_mb: None,
        mpi: Default::default(),
        task_prolog: None,
        task_epilog: None,
        nodes: vec![NodeTasks {
            node: "n1".to_string(),
            node_id: 0,
            ranks,
            env: Vec::new(),
            argv: Vec::new(),
            mem_mb: None,
        }],
    }
}

fn create(job_id: u32, tasks: u32, resv_port_cnt: Option<u16>) -> ControlRequest {
    ControlRequest::CreateStep {
        job_id,
        name: "true".into(),
        num_tasks: tasks,
        num_cpus: tasks,
        time_limit_min: None,
        srun_host: "login1".into(),
        srun_pid: 7,
        launch: Some(Box::new(launch((0..tasks).collect()))),
        resv_port_cnt,
    }
}

fn running_job(h: &mut Harness) -> u32 {
    let now = h.now;
    let job = h
        .apply(Command::Submit {
            spec: Box::new(spec("ports")),
            now,
        })
        .unwrap()
        .job_id
        .unwrap();
    h.schedule();
    job
}

#[test]
fn steps_reserve_ports_from_mpi_params_until_they_end() {
    let mut h = Harness::new();
    h.state.settings.mpi_params = Some("ports=12000-12004".into());
    let job = running_job(&mut h);

    // Two tasks on the node: three ports, in the reply and in the node's launch.
    let applied = h.control(1000, create(job, 2, None)).unwrap();
    assert_eq!(applied.resv_ports.as_deref(), Some("12001-12003"));
    match applied.effects.as_slice() {
        [Effect::LaunchStep { launch, .. }] => assert!(launch.tasks.env.contains(&(
            "SLURM_STEP_RESV_PORTS".to_string(),
            "12001-12003".to_string()
        ))),
        other => panic!("unexpected effects {other:?}"),
    }
    let first = applied.step_id.unwrap();

    // --resv-ports alone: none; too many for the range; too many for what is free now.
    let none = h.control(1000, create(job, 1, Some(0))).unwrap();
    assert_eq!(none.resv_ports, None);
    let invalid = h.control(1000, create(job, 1, Some(6))).unwrap_err();
    assert_eq!(invalid.errno, SlurmErrno::PortsInvalid);
    let busy = h.control(1000, create(job, 1, Some(3))).unwrap_err();
    assert_eq!(busy.errno, SlurmErrno::PortsBusy);
    // The refused steps used up their ids, as slurmctld's do.
    let next = h.control(1000, create(job, 1, Some(2))).unwrap();
    assert_eq!(next.step_id, Some(first + 4));
    assert_eq!(next.resv_ports.as_deref(), Some("12000,12004"));

    // The first step ends (through a snapshot): its ports are free again.
    let bytes = serde_json::to_vec(&h.state).unwrap();
    h.state = serde_json::from_slice(&bytes).unwrap();
    h.control(
        1000,
        ControlRequest::CompleteStep {
            job_id: job,
            step_id: first,
            exit_code: 0,
            signal: 0,
            usage: None,
        },
    )
    .unwrap();
    let again = h.control(1000, create(job, 1, Some(3))).unwrap();
    assert_eq!(again.resv_ports.as_deref(), Some("12001-12003"));
}

#[test]
fn without_mpi_params_steps_reserve_nothing_unless_asked() {
    let mut h = Harness::new();
    let job = running_job(&mut h);
    assert_eq!(
        h.control(1000, create(job, 2, None)).unwrap().resv_ports,
        None
    );
    // Asked without a range: slurmctld has no ports to give.
    assert_eq!(
        h.control(1000, create(job, 1, Some(1))).unwrap_err().errno,
        SlurmErrno::PortsInvalid
    );
}
