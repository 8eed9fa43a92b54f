//! Requests a hostile or careless client can send, through the state machine and the scheduler in a debug build
//! (overflow checks on): sizes at the ends of their ranges must be refused or booked without a wrap or a panic in
//! the apply path, and privileges the submitter does not have are refused as slurmctld refuses them.

use proptest::prelude::*;

use spur_core::format::{scontrol_job, squeue, FormatContext};
use spur_core::model::job::{GresRequest, JobSpec};
use spur_core::wire::api::{ControlRequest, JobUpdate, SlurmErrno};

use super::tests::{select, spec, Harness};
use super::Command;

fn submit(h: &mut Harness, spec: JobSpec) -> Result<u32, SlurmErrno> {
    let now = h.now;
    h.apply(Command::Submit {
        spec: Box::new(spec),
        now,
    })
    .map(|applied| applied.job_id.unwrap_or(0))
    .map_err(|e| e.errno)
}

#[test]
fn a_negative_nice_is_for_operators_only() {
    let mut h = Harness::new();
    let mut user = spec("user");
    user.nice = -100_000;
    assert_eq!(submit(&mut h, user.clone()), Err(SlurmErrno::InvalidNice));
    user.nice = -1;
    assert_eq!(submit(&mut h, user.clone()), Err(SlurmErrno::InvalidNice));
    assert!(
        h.state.jobs.is_empty(),
        "a refused submission left a record"
    );
    // A positive nice lowers the user's own priority and is anyone's to ask for.
    user.nice = 100;
    assert!(submit(&mut h, user).is_ok());
    let mut root = spec("root");
    root.user_id = 0;
    root.nice = -100;
    let id = submit(&mut h, root).expect("root may raise a priority");
    assert_eq!(h.state.jobs[&id].spec.nice, -100);
}

#[test]
fn num_tasks_updates_are_checked_as_slurmctld_does() {
    let mut h = Harness::new();
    let mut held = spec("held");
    held.hold = true;
    let id = submit(&mut h, held).expect("submit");
    let update = |tasks| ControlRequest::UpdateJob {
        job: select(id),
        update: JobUpdate {
            num_tasks: Some(tasks),
            ..Default::default()
        },
    };
    for bad in [0, spur_core::grammar::values::NO_VAL, u32::MAX] {
        let refused = h.control(1000, update(bad)).expect_err("refused");
        assert_eq!(refused.errno, SlurmErrno::BadTaskCount, "{bad}");
    }
    assert_eq!(h.state.jobs[&id].spec.ntasks, None);
    h.control(1000, update(1 << 31))
        .expect("a large count is allowed");
    assert_eq!(h.state.jobs[&id].spec.ntasks, Some(1 << 31));
    // The pass and the listings must cope with it.
    h.control(1000, ControlRequest::Release { job: select(id) })
        .expect("release");
    h.schedule();
    render(&h);
}

/// Values a client can put in a request's size fields: the small ones jobs use, and the ends of the types.
fn size32() -> impl Strategy<Value = u32> {
    prop_oneof![
        0..5u32,
        Just(1 << 30),
        Just(1 << 31),
        Just(spur_core::grammar::values::NO_VAL - 1),
        Just(u32::MAX),
    ]
}

fn size64() -> impl Strategy<Value = u64> {
    prop_oneof![
        0..5000u64,
        Just(1 << 40),
        Just(u64::from(u32::MAX) + 1),
        Just(spur_core::grammar::values::NO_VAL64),
        Just(u64::MAX),
    ]
}

prop_compose! {
    fn hostile_spec()(
        ntasks in proptest::option::of(size32()),
        cpus_per_task in size32(),
        nodes_min in size32(),
        nodes_max in proptest::option::of(size32()),
        ntasks_per_node in proptest::option::of(size32()),
        mem_per_cpu in proptest::option::of(size64()),
        mem_per_node in proptest::option::of(size64()),
        mem_per_gpu in proptest::option::of(size64()),
        gpus in proptest::option::of(size64()),
        cpus_per_gpu in proptest::option::of(size32()),
        min_cpus in proptest::option::of(size32()),
        tmp_disk in size64(),
        time_limit in proptest::option::of(size32()),
        hold in any::<bool>(),
    ) -> JobSpec {
        let mut s = spec("hostile");
        s.ntasks = ntasks;
        s.cpus_per_task = cpus_per_task;
        s.nodes_min = nodes_min;
        s.nodes_max = nodes_max;
        s.ntasks_per_node = ntasks_per_node;
        s.mem_per_cpu_mb = mem_per_cpu;
        s.mem_per_node_mb = mem_per_node;
        s.mem_per_gpu_mb = mem_per_gpu;
        s.cpus_per_gpu = cpus_per_gpu;
        s.min_cpus_per_node = min_cpus;
        s.tmp_disk_mb = tmp_disk;
        s.time_limit_min = time_limit;
        // A held job is judged only when released, so its sizes reach the pass unchecked.
        s.hold = hold;
        if let Some(count) = gpus {
            s.gres = vec![GresRequest {
                name: "gpu".to_string(),
                gres_type: None,
                count,
            }];
        }
        s
    }
}

fn render(h: &Harness) {
    let jobs: Vec<_> = h.state.jobs.values().cloned().collect();
    let ctx = FormatContext::new(h.now, 0);
    let shown = scontrol_job::render(&jobs, false, &ctx);
    let listed = squeue::render(&jobs, &squeue::SqueueOptions::default(), &ctx);
    assert!(shown.len() + listed.len() > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever the sizes, a submission is refused or queued, the pass books what it starts without a wrap (the
    /// harness checks the node ledgers after every command), and the job listings render.
    #[test]
    fn sizes_at_the_ends_of_their_ranges_never_panic(specs in proptest::collection::vec(hostile_spec(), 1..4)) {
        let mut h = Harness::new();
        for s in specs {
            let _ = submit(&mut h, s);
        }
        h.schedule();
        let held: Vec<u32> = h.state.jobs.keys().copied().collect();
        for id in held {
            let _ = h.control(1000, ControlRequest::Release { job: select(id) });
        }
        h.schedule();
        render(&h);
    }
}
