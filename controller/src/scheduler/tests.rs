//! Backfill scenarios on the pure scheduler: reservations at real end times, what may and may not jump ahead,
//! jobs without time limits, several partitions and GPUs; and a randomized check that a job holding a
//! reservation always starts by its reserved time.

use pretty_assertions::assert_eq;

use spur_core::model::job::{EpochSecs, JobSpec};
use spur_core::model::states::{JobBaseState, JobReason};

use super::scenario::{job, node, partition, Scenario};
use crate::state::{BackfillSettings, Settings};

const T0: EpochSecs = 1_000_020;

fn names(prefix: &str, n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("{prefix}{i}")).collect()
}

fn cluster(nodes: usize, cpus: u32, gpus: u64) -> Scenario {
    let defs = names("n", nodes)
        .iter()
        .map(|n| node(n, cpus, 64_000, gpus))
        .collect();
    let parts = vec![partition("batch", &names("n", nodes), true)];
    Scenario::new(defs, parts, Settings::default(), T0).unwrap()
}

fn state_of(s: &Scenario, id: u32) -> (JobBaseState, JobReason) {
    let j = &s.state.jobs[&id];
    (j.state, j.reason)
}

fn expected_start(s: &Scenario, id: u32) -> Option<EpochSecs> {
    s.state.jobs[&id].expected_start
}

/// The next whole minute after `t`: the profile rounds end times up to `bf_resolution` (60 s).
fn minute_after(t: EpochSecs) -> EpochSecs {
    (t + 59).div_euclid(60) * 60
}

fn submit_all(s: &mut Scenario, specs: Vec<JobSpec>) -> Vec<u32> {
    specs.into_iter().map(|j| s.submit(j).unwrap()).collect()
}

#[test]
fn a_short_job_backfills_into_the_gap_and_a_long_one_does_not() {
    let mut s = cluster(1, 4, 0);
    let running = s.submit(job(2, 1000, 0, Some(60))).unwrap();
    s.pass().unwrap();
    assert_eq!(state_of(&s, running).0, JobBaseState::Running);

    let [big, short, long] = submit_all(
        &mut s,
        vec![
            job(4, 1000, 0, Some(60)),
            job(2, 1000, 0, Some(30)),
            job(2, 1000, 0, Some(120)),
        ],
    )[..] else {
        unreachable!()
    };
    s.pass().unwrap();
    let reserved_at = minute_after(T0 + 3600);
    assert_eq!(
        state_of(&s, big),
        (JobBaseState::Pending, JobReason::Resources)
    );
    assert_eq!(expected_start(&s, big), Some(reserved_at));
    assert_eq!(s.state.jobs[&big].sched_nodes.as_deref(), Some("n1"));
    assert_eq!(
        state_of(&s, short),
        (JobBaseState::Running, JobReason::NoReason)
    );
    assert_eq!(
        state_of(&s, long),
        (JobBaseState::Pending, JobReason::Priority)
    );
    // The long job waits for the big one: it runs after the big job's reserved hour.
    assert_eq!(expected_start(&s, long), Some(reserved_at + 3600));

    // Nothing changed: an idle pass commits nothing.
    assert!(s.pass().unwrap().is_empty());

    // `squeue --start` and `scontrol show job` show the reservation as Slurm does.
    let ctx = spur_core::format::FormatContext::new(T0, 0);
    let queued: Vec<_> = [big, long]
        .iter()
        .map(|id| s.state.jobs[id].clone())
        .collect();
    let squeue = spur_core::format::squeue::render(
        &queued,
        &spur_core::format::squeue::SqueueOptions::start(),
        &ctx,
    );
    let start = |t| ctx.time(t);
    assert!(
        squeue.lines().any(|l| l.contains(&start(reserved_at))
            && l.contains(" n1 ")
            && l.ends_with("(Resources)")),
        "{squeue}"
    );
    let show = spur_core::format::scontrol_job::render(&queued[..1], false, &ctx);
    assert!(
        show.contains(&format!(
            "StartTime={} EndTime={}",
            start(reserved_at),
            start(reserved_at + 3600)
        )),
        "{show}"
    );
    assert!(show.contains("Scheduler=Backfill:*"), "{show}");
    assert!(show.contains("SchedNodeList=n1"), "{show}");
}

#[test]
fn sched_builtin_never_jumps_the_queue() {
    let defs = vec![node("n1", 4, 64_000, 0)];
    let parts = vec![partition("batch", &names("n", 1), true)];
    let settings = Settings {
        backfill: BackfillSettings {
            enabled: false,
            ..BackfillSettings::default()
        },
        ..Settings::default()
    };
    let mut s = Scenario::new(defs, parts, settings, T0).unwrap();
    s.submit(job(2, 1000, 0, Some(60))).unwrap();
    s.pass().unwrap();
    let [big, short] = submit_all(
        &mut s,
        vec![job(4, 1000, 0, Some(60)), job(2, 1000, 0, Some(1))],
    )[..] else {
        unreachable!()
    };
    s.pass().unwrap();
    assert_eq!(
        state_of(&s, big),
        (JobBaseState::Pending, JobReason::Resources)
    );
    assert_eq!(
        state_of(&s, short),
        (JobBaseState::Pending, JobReason::Priority)
    );
    assert_eq!(expected_start(&s, big), None);
}

#[test]
fn jobs_without_a_time_limit() {
    let mut s = cluster(1, 4, 0);
    // A running job without a limit never gives its CPUs back: the big job gets no reservation, so nothing
    // stops a small job from using the free half now.
    s.submit(job(2, 1000, 0, None)).unwrap();
    s.pass().unwrap();
    let [big, small] = submit_all(
        &mut s,
        vec![job(4, 1000, 0, Some(60)), job(2, 1000, 0, None)],
    )[..] else {
        unreachable!()
    };
    s.pass().unwrap();
    assert_eq!(
        state_of(&s, big),
        (JobBaseState::Pending, JobReason::Resources)
    );
    assert_eq!(expected_start(&s, big), None);
    assert_eq!(state_of(&s, small).0, JobBaseState::Running);

    // With a limit on the running job the big one is reserved, and a job without a limit would overlap it.
    let mut s = cluster(1, 4, 0);
    s.submit(job(2, 1000, 0, Some(10))).unwrap();
    s.pass().unwrap();
    let [big, unlimited, short] = submit_all(
        &mut s,
        vec![
            job(4, 1000, 0, Some(60)),
            job(2, 1000, 0, None),
            job(2, 1000, 0, Some(5)),
        ],
    )[..] else {
        unreachable!()
    };
    s.pass().unwrap();
    assert_eq!(expected_start(&s, big), Some(minute_after(T0 + 600)));
    assert_eq!(
        state_of(&s, unlimited),
        (JobBaseState::Pending, JobReason::Priority)
    );
    assert_eq!(state_of(&s, short).0, JobBaseState::Running);
}

#[test]
fn partition_default_time_is_the_end_of_a_job_without_its_own_limit() {
    let defs = vec![node("n1", 4, 64_000, 0)];
    let mut debug = partition("debug", &names("n", 1), true);
    debug.default_time_min = Some(20);
    debug.max_time_min = Some(120);
    let mut s = Scenario::new(defs, vec![debug], Settings::default(), T0).unwrap();
    s.submit(job(4, 1000, 0, None)).unwrap();
    s.pass().unwrap();
    let waiting = s.submit(job(4, 1000, 0, None)).unwrap();
    s.pass().unwrap();
    assert_eq!(expected_start(&s, waiting), Some(minute_after(T0 + 1200)));
}

#[test]
fn a_job_in_another_partition_cannot_delay_a_reservation_on_shared_nodes() {
    let defs = names("n", 2)
        .iter()
        .map(|n| node(n, 2, 64_000, 0))
        .collect();
    let parts = vec![
        partition("wide", &names("n", 2), true),
        partition("narrow", &["n2".to_string()], false),
    ];
    let mut s = Scenario::new(defs, parts, Settings::default(), T0).unwrap();
    let mut on_n1 = job(2, 1000, 0, Some(60));
    on_n1.required_nodes = Some("n1".to_string());
    s.submit(on_n1).unwrap();
    s.pass().unwrap();

    let mut two_nodes = job(2, 1000, 0, Some(60));
    two_nodes.nodes_min = 2;
    two_nodes.ntasks = Some(4);
    let narrow = |limit| JobSpec {
        partition: Some("narrow".to_string()),
        ..job(2, 1000, 0, Some(limit))
    };
    let [wide, long, short] = submit_all(&mut s, vec![two_nodes, narrow(90), narrow(30)])[..]
    else {
        unreachable!()
    };
    s.pass().unwrap();
    assert_eq!(
        state_of(&s, wide),
        (JobBaseState::Pending, JobReason::Resources)
    );
    assert_eq!(expected_start(&s, wide), Some(minute_after(T0 + 3600)));
    assert_eq!(s.state.jobs[&wide].sched_nodes.as_deref(), Some("n[1-2]"));
    // The first job of `narrow` that must wait is its partition's top job: `Resources`.
    assert_eq!(
        state_of(&s, long),
        (JobBaseState::Pending, JobReason::Resources)
    );
    assert_eq!(state_of(&s, short).0, JobBaseState::Running);
}

#[test]
fn gpus_are_part_of_the_profile() {
    let mut s = cluster(1, 16, 8);
    s.submit(job(1, 1000, 6, Some(60))).unwrap();
    s.pass().unwrap();
    // The top job needs 4 GPUs: free once the 6 come back. A 2-GPU job of two hours leaves 6 free then, so it
    // may start now; after that, a second one would leave only 4 - 2 = 2 and must wait.
    let [top, first, second, short] = submit_all(
        &mut s,
        vec![
            job(1, 1000, 4, Some(60)),
            job(1, 1000, 2, Some(120)),
            job(1, 1000, 2, Some(120)),
            job(1, 1000, 2, Some(30)),
        ],
    )[..] else {
        unreachable!()
    };
    s.pass().unwrap();
    assert_eq!(expected_start(&s, top), Some(minute_after(T0 + 3600)));
    assert_eq!(state_of(&s, first).0, JobBaseState::Running);
    assert_eq!(
        state_of(&s, second),
        (JobBaseState::Pending, JobReason::Priority)
    );
    // No GPU is left now for the short one (6 + 2 taken of 8).
    assert_eq!(state_of(&s, short).0, JobBaseState::Pending);
    let free_now = s.state.jobs[&first].alloc.clone().unwrap();
    assert_eq!(free_now.gres_indices["gpu"], vec![6, 7]);
}

#[test]
fn bf_window_bounds_reservations() {
    let defs = vec![node("n1", 4, 64_000, 0)];
    let parts = vec![partition("batch", &names("n", 1), true)];
    let settings = Settings {
        backfill: BackfillSettings {
            window_min: 30,
            ..BackfillSettings::default()
        },
        ..Settings::default()
    };
    let mut s = Scenario::new(defs, parts, settings, T0).unwrap();
    s.submit(job(4, 1000, 0, Some(60))).unwrap();
    s.pass().unwrap();
    let [beyond, unlimited] = submit_all(
        &mut s,
        vec![job(4, 1000, 0, Some(60)), job(1, 1000, 0, None)],
    )[..] else {
        unreachable!()
    };
    s.pass().unwrap();
    assert_eq!(expected_start(&s, beyond), None);
    assert_eq!(
        state_of(&s, unlimited),
        (JobBaseState::Pending, JobReason::Priority)
    );
}

#[test]
fn bf_max_job_test_bounds_how_many_jobs_get_a_reservation() {
    let defs = vec![node("n1", 1, 64_000, 0)];
    let parts = vec![partition("batch", &names("n", 1), true)];
    let settings = Settings {
        backfill: BackfillSettings {
            max_job_test: 2,
            ..BackfillSettings::default()
        },
        ..Settings::default()
    };
    let mut s = Scenario::new(defs, parts, settings, T0).unwrap();
    let ids = submit_all(&mut s, (0..4).map(|_| job(1, 100, 0, Some(10))).collect());
    s.pass().unwrap();
    let starts: Vec<_> = ids.iter().map(|id| expected_start(&s, *id)).collect();
    let at = |min: i64| Some(minute_after(T0 + min * 60));
    assert_eq!(starts, vec![None, at(10), at(20), None]);
}

/// A small deterministic generator, so a failing run replays from its seed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// Jobs of random shapes that run for a random part of their limit: whenever a job is the top waiting job of
/// its partition with a reservation, it starts by that reservation's time, whatever was backfilled meanwhile.
#[test]
fn a_reserved_job_is_never_delayed_by_backfill() {
    for seed in 1..=20u64 {
        let mut rng = Lcg(seed);
        let mut s = cluster(4, 8, 4);
        let mut run_secs = std::collections::BTreeMap::new();
        for _ in 0..40 {
            let limit = 5 + rng.below(120) as u32;
            let mut spec = job(1 + rng.below(8) as u32, 1000, rng.below(5), Some(limit));
            spec.nodes_min = 1 + u32::from(rng.below(6) == 0);
            spec.ntasks = Some(spec.ntasks.unwrap_or(1) * spec.nodes_min);
            let id = s.submit(spec).unwrap();
            let limit_secs = i64::from(limit) * 60;
            run_secs.insert(
                id,
                limit_secs / 2 + rng.below(limit_secs as u64 / 2 + 1) as i64,
            );
        }
        let mut promised: std::collections::BTreeMap<u32, EpochSecs> = Default::default();
        for _ in 0..500 {
            s.pass().unwrap();
            for job in s.state.jobs.values() {
                if job.state == JobBaseState::Pending && job.reason == JobReason::Resources {
                    if let Some(at) = job.expected_start {
                        let p = promised.entry(job.job_id).or_insert(at);
                        *p = (*p).min(at);
                    }
                }
                if let (Some(start), Some(p)) = (job.start_time, promised.get(&job.job_id)) {
                    assert!(
                        start <= *p,
                        "seed {seed}: job {} promised {p}, started {start}",
                        job.job_id
                    );
                }
            }
            let running: Vec<(u32, EpochSecs)> = s
                .state
                .jobs
                .values()
                .filter(|j| j.state == JobBaseState::Running)
                .filter_map(|j| Some((j.job_id, j.start_time? + run_secs[&j.job_id])))
                .collect();
            let Some(next) = running.iter().map(|(_, end)| *end).min() else {
                break;
            };
            s.now = next.max(s.now + 1);
            for (id, end) in running {
                if end <= s.now {
                    s.finish(id).unwrap();
                }
            }
        }
        assert!(
            s.state
                .jobs
                .values()
                .all(|j| j.state == JobBaseState::Completed),
            "seed {seed}: every job ran"
        );
        assert!(!promised.is_empty(), "seed {seed}: reservations were made");
    }
}

fn multifactor(job_size: u32, age: u32) -> Settings {
    Settings {
        priority: Some(spur_core::policy::priority::PriorityWeights {
            age,
            assoc: 0,
            fairshare: 0,
            job_size,
            partition: 1000,
            qos: 0,
            tres: vec![("gres/gpu".to_string(), 800.0)],
            max_age_secs: 3600,
            favor_small: false,
            calc_period_secs: 300,
            tres_text: None,
            age_ignored: false,
        }),
        ..Settings::default()
    }
}

#[test]
fn multifactor_orders_the_queue_and_changes_once_per_calc_period() {
    let defs = vec![node("n1", 4, 64_000, 2)];
    let parts = vec![partition("batch", &names("n", 1), true)];
    let mut s = Scenario::new(defs, parts, multifactor(10_000, 1000), T0).unwrap();
    s.submit(job(4, 1000, 0, Some(60))).unwrap();
    s.pass().unwrap();
    let [small, big] = submit_all(
        &mut s,
        vec![job(1, 1000, 0, Some(60)), job(4, 1000, 2, Some(60))],
    )[..] else {
        unreachable!()
    };
    // Job size: (1 of 1 node + CPUs of 4) / 2; partition factor 1; GPUs 2 of 2.
    assert_eq!(s.state.jobs[&small].priority, 6250 + 1000);
    assert_eq!(s.state.jobs[&big].priority, 10_000 + 1000 + 800);
    s.pass().unwrap();
    assert_eq!(
        state_of(&s, big),
        (JobBaseState::Pending, JobReason::Resources)
    );
    assert_eq!(
        state_of(&s, small),
        (JobBaseState::Pending, JobReason::Priority)
    );

    // Age counts from eligibility (accrue time), in steps of PriorityCalcPeriod.
    let accrue = s.state.jobs[&small].accrue_time.unwrap();
    s.now = accrue + 1799;
    let at = s.now - s.now.rem_euclid(300);
    let plan = s.pass().unwrap();
    let aged = 6250 + 1000 + (1000 * (at - accrue) / 3600) as u32;
    assert!(plan.priorities.contains(&(small, aged)), "{plan:?}");
    assert_eq!(s.state.jobs[&small].priority, aged);
    s.now += 1;
    assert!(s.pass().unwrap().is_empty());
}

#[test]
fn nice_lowers_a_multifactor_priority_and_a_held_job_keeps_zero() {
    let defs = vec![node("n1", 4, 64_000, 0)];
    let parts = vec![partition("batch", &names("n", 1), true)];
    let mut s = Scenario::new(defs, parts, multifactor(1000, 0), T0).unwrap();
    let mut nice = job(4, 1000, 0, Some(60));
    nice.nice = 300;
    let id = s.submit(nice).unwrap();
    assert_eq!(s.state.jobs[&id].priority, 1000 + 1000 - 300);
    s.state.jobs.get_mut(&id).unwrap().hold = Some(spur_core::model::job::HoldKind::User);
    s.state.jobs.get_mut(&id).unwrap().priority = 0;
    s.state.jobs.settle();
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&id].priority, 0);
}

#[test]
fn licenses_hold_jobs_back_until_running_jobs_free_them() {
    let defs = names("n", 2)
        .iter()
        .map(|n| node(n, 8, 64_000, 0))
        .collect();
    let parts = vec![partition("batch", &names("n", 2), true)];
    let settings = Settings {
        licenses: [("fluent".to_string(), 3), ("ansys".to_string(), 1)]
            .into_iter()
            .collect(),
        ..Settings::default()
    };
    let mut s = Scenario::new(defs, parts, settings, T0).unwrap();
    let with = |text: &str| JobSpec {
        licenses: Some(text.to_string()),
        ..job(1, 1000, 0, Some(60))
    };
    // An unknown license, or more than the cluster has, is refused at submission.
    for bad in ["nosuch", "fluent:4", "fluent:x"] {
        assert_eq!(
            s.submit(with(bad)).unwrap_err().errno,
            spur_core::wire::api::SlurmErrno::InvalidLicenses
        );
    }
    let [first, second, third] = submit_all(
        &mut s,
        vec![with("fluent:2"), with("fluent:2,ansys"), with("ansys")],
    )
    .try_into()
    .unwrap();
    s.pass().unwrap();
    // Two of three fluent go to the first job; the second waits, and the third takes the ansys it wanted.
    assert_eq!(state_of(&s, first).0, JobBaseState::Running);
    assert_eq!(
        state_of(&s, second),
        (JobBaseState::Pending, JobReason::Licenses)
    );
    assert_eq!(state_of(&s, third).0, JobBaseState::Running);
    s.finish(third).unwrap();
    s.finish(first).unwrap();
    s.pass().unwrap();
    assert_eq!(state_of(&s, second).0, JobBaseState::Running);
    assert_eq!(
        s.state.licenses_in_use().into_iter().collect::<Vec<_>>(),
        vec![("ansys".to_string(), 1), ("fluent".to_string(), 2)]
    );
}

/// Found by the simulator (controller/tests/simulation.rs): a two-node exclusive job on nodes of different sizes
/// was planned with the first node's CPU count on both, which the smaller node cannot hold; the state machine
/// refused the start at every pass and the job never ran. It now takes two nodes of the same size.
#[test]
fn an_exclusive_job_takes_nodes_whose_whole_share_it_can_book() {
    let defs = vec![
        node("n1", 10, 8_000, 0),
        node("n2", 4, 8_000, 0),
        node("n3", 10, 8_000, 0),
    ];
    let parts = vec![partition("batch", &names("n", 3), true)];
    let mut s = Scenario::new(defs, parts, Settings::default(), T0).unwrap();
    let mut spec = job(1, 100, 0, Some(10));
    spec.nodes_min = 2;
    spec.ntasks = Some(2);
    spec.exclusive = true;
    let id = s.submit(spec).unwrap();
    let plan = s.pass().unwrap();
    assert_eq!(plan.starts.len(), 1);
    assert_eq!(state_of(&s, id).0, JobBaseState::Running);
    let alloc = s.state.jobs[&id].alloc.clone().unwrap();
    assert_eq!(alloc.node_names, vec!["n1".to_string(), "n3".to_string()]);
    s.state.check_invariants().unwrap();
}
