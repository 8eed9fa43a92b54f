//! Advance reservations on the pure scheduler: jobs outside a reservation never run into its window on its nodes
//! (started now or planned by backfill), `--reservation` jobs run only on its nodes and only inside its window, and
//! the pending reasons say which. A randomized check closes: whatever the workload, no job outside a reservation
//! is ever running on a reserved node while the reservation is active.

use pretty_assertions::assert_eq;

use spur_core::model::job::{EpochSecs, JobSpec};
use spur_core::model::reservation::{ReservationFlag, ReservationRequest};
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::{ApiError, ControlRequest, SlurmErrno};

use super::scenario::{job, node, partition, Scenario};
use crate::rules::reservations::{RESERVED_FOR_MAINT, RESERVED_FOR_OTHERS};
use crate::state::{BackfillSettings, Command, Settings};

const T0: EpochSecs = 1_000_020;
const HOUR: EpochSecs = 3600;

fn cluster(nodes: usize, settings: Settings) -> Scenario {
    let names: Vec<String> = (1..=nodes).map(|i| format!("n{i}")).collect();
    let defs = names.iter().map(|n| node(n, 4, 64_000, 0)).collect();
    Scenario::new(defs, vec![partition("batch", &names, true)], settings, T0).unwrap()
}

fn reserve(
    s: &mut Scenario,
    name: &str,
    nodes: &str,
    start: EpochSecs,
    minutes: u32,
    flags: &[ReservationFlag],
) -> Result<(), ApiError> {
    let now = s.now;
    s.apply(Command::Control {
        caller_uid: 0,
        request: ControlRequest::CreateReservation {
            request: ReservationRequest {
                name: Some(name.into()),
                start: Some(start),
                duration_min: Some(minutes),
                nodes: Some(nodes.into()),
                users: Some(vec!["alice".into()]),
                user_ids: vec![1000],
                flags_set: flags.to_vec(),
                ..Default::default()
            },
        },
        now,
    })
    .map(drop)
}

fn in_resv(name: &str, spec: JobSpec) -> JobSpec {
    JobSpec {
        reservation: Some(name.into()),
        ..spec
    }
}

fn state_of(s: &Scenario, id: u32) -> (JobBaseState, JobReason) {
    let j = &s.state.jobs[&id];
    (j.state, j.reason)
}

fn nodes_of(s: &Scenario, id: u32) -> Vec<String> {
    s.state.jobs[&id]
        .alloc
        .as_ref()
        .map(|a| a.node_names.clone())
        .unwrap_or_default()
}

#[test]
fn jobs_outside_an_active_reservation_avoid_its_nodes() {
    let mut s = cluster(2, Settings::default());
    reserve(&mut s, "r", "n1", T0, 60, &[]).unwrap();
    let outside = s.submit(job(4, 1000, 0, Some(10))).unwrap();
    let inside = s.submit(in_resv("r", job(2, 1000, 0, Some(10)))).unwrap();
    s.pass().unwrap();
    assert_eq!(nodes_of(&s, outside), vec!["n2"]);
    assert_eq!(nodes_of(&s, inside), vec!["n1"]);

    // With n2 taken, the next outsider waits: only the reservation keeps it from the room left on n1.
    let blocked = s.submit(job(2, 1000, 0, Some(10))).unwrap();
    s.pass().unwrap();
    assert_eq!(
        state_of(&s, blocked),
        (JobBaseState::Pending, JobReason::NodeNotAvail)
    );
    assert_eq!(
        s.state.jobs[&blocked].state_desc.as_deref(),
        Some(RESERVED_FOR_OTHERS)
    );
    // A second reservation job does not fit beside the first: it waits for resources inside its reservation,
    // never spilling onto n2.
    let second = s.submit(in_resv("r", job(4, 1000, 0, Some(10)))).unwrap();
    s.pass().unwrap();
    assert_eq!(
        state_of(&s, second),
        (JobBaseState::Pending, JobReason::Resources)
    );
    s.state.check_invariants().unwrap();
}

#[test]
fn a_job_that_would_run_into_a_future_reservation_does_not_start_there() {
    let mut s = cluster(1, Settings::default());
    reserve(&mut s, "later", "n1", T0 + HOUR, 60, &[]).unwrap();
    let long = s.submit(job(1, 1000, 0, Some(90))).unwrap();
    let unlimited = s.submit(job(1, 1000, 0, None)).unwrap();
    let short = s.submit(job(1, 1000, 0, Some(30))).unwrap();
    s.pass().unwrap();
    assert_eq!(state_of(&s, short).0, JobBaseState::Running);
    assert_eq!(
        state_of(&s, long),
        (JobBaseState::Pending, JobReason::NodeNotAvail)
    );
    assert_eq!(state_of(&s, unlimited).0, JobBaseState::Pending);
    // Backfill plans the long job after the reservation, not before it.
    let forecast = s.state.jobs[&long].expected_start.unwrap();
    assert!(forecast >= T0 + 2 * HOUR, "planned at {forecast}");
}

#[test]
fn reservation_jobs_wait_for_the_window_and_run_inside_it() {
    let mut s = cluster(2, Settings::default());
    reserve(&mut s, "r", "n2", T0 + HOUR, 60, &[]).unwrap();
    let early = s.submit(in_resv("r", job(1, 1000, 0, Some(10)))).unwrap();
    s.pass().unwrap();
    assert_eq!(
        state_of(&s, early),
        (JobBaseState::Pending, JobReason::Reservation)
    );
    // Before the window, others may still use n2 where they finish in time.
    let quick = s.submit(job(4, 1000, 0, Some(10))).unwrap();
    let filler = s.submit(job(4, 1000, 0, Some(30))).unwrap();
    s.pass().unwrap();
    assert_eq!(nodes_of(&s, quick), vec!["n1"]);
    assert_eq!(nodes_of(&s, filler), vec!["n2"]);
    s.finish(filler).unwrap();

    s.now = T0 + HOUR;
    s.pass().unwrap();
    assert_eq!(state_of(&s, early).0, JobBaseState::Running);
    assert_eq!(nodes_of(&s, early), vec!["n2"]);

    // Once the window has ended the reservation is gone; a job still asking for it cannot start.
    let late = s.submit(in_resv("r", job(1, 1000, 0, Some(10)))).unwrap();
    s.now = T0 + 2 * HOUR;
    s.pass().unwrap();
    assert!(s.state.reservations.is_empty());
    assert_eq!(
        state_of(&s, late),
        (JobBaseState::Pending, JobReason::ResvDeleted)
    );
}

#[test]
fn maintenance_reservations_say_so_and_sched_builtin_honours_reservations() {
    let settings = Settings {
        backfill: BackfillSettings {
            enabled: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut s = cluster(1, settings);
    reserve(&mut s, "m", "n1", T0, 60, &[ReservationFlag::Maint]).unwrap();
    let outside = s.submit(job(1, 1000, 0, Some(10))).unwrap();
    let inside = s.submit(in_resv("m", job(1, 1000, 0, Some(10)))).unwrap();
    s.pass().unwrap();
    assert_eq!(
        state_of(&s, outside),
        (JobBaseState::Pending, JobReason::NodeNotAvail)
    );
    assert_eq!(
        s.state.jobs[&outside].state_desc.as_deref(),
        Some(RESERVED_FOR_MAINT)
    );
    assert_eq!(state_of(&s, inside).0, JobBaseState::Running);
    // The text goes once the job starts.
    s.now = T0 + HOUR;
    s.pass().unwrap();
    assert_eq!(state_of(&s, outside).0, JobBaseState::Running);
    assert_eq!(s.state.jobs[&outside].state_desc, None);
}

#[test]
fn submissions_name_an_existing_reservation_that_admits_them() {
    let mut s = cluster(1, Settings::default());
    reserve(&mut s, "r", "n1", T0, 60, &[]).unwrap();
    let err = |s: &mut Scenario, spec| s.submit(spec).unwrap_err().errno;
    assert_eq!(
        err(&mut s, in_resv("nosuch", job(1, 1000, 0, Some(10)))),
        SlurmErrno::ReservationInvalid
    );
    let stranger = JobSpec {
        user_id: 2000,
        ..in_resv("r", job(1, 1000, 0, Some(10)))
    };
    assert_eq!(err(&mut s, stranger), SlurmErrno::ReservationAccess);
}

/// Random reservations and jobs over simulated hours: after every pass, no job outside a reservation runs on a
/// node of a reservation that is active, and each reservation job runs on its reservation's nodes.
#[test]
fn random_workloads_never_put_outsiders_on_active_reserved_nodes() {
    for seed in 1..=20u64 {
        let mut rng = seed;
        let mut next = move |bound: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % bound
        };
        let mut s = cluster(4, Settings::default());
        for r in 0..3 {
            let start = T0 + i64::try_from(next(4)).unwrap() * HOUR / 2;
            let node = format!("n{}", 1 + next(4));
            let _ = reserve(
                &mut s,
                &format!("r{r}"),
                &node,
                start,
                30 + 30 * next(3) as u32,
                &[],
            );
        }
        let names: Vec<String> = s.state.reservations.keys().cloned().collect();
        for step in 0..40 {
            // What the leader's housekeeping ends: time limits and reservations that are over.
            for id in crate::runtime::expired_jobs(&s.state, s.now) {
                s.finish(id).unwrap();
            }
            if next(2) == 0 {
                let limit = Some(5 + 15 * next(8) as u32);
                let mut spec = job(1 + next(4) as u32, 1000, 0, limit);
                if !names.is_empty() && next(3) == 0 {
                    spec.reservation = Some(names[next(names.len() as u64) as usize].clone());
                }
                let _ = s.submit(spec);
            }
            s.pass().unwrap();
            s.state.check_invariants().unwrap();
            for j in s
                .state
                .jobs
                .values()
                .filter(|j| j.state == JobBaseState::Running)
            {
                let alloc = j.alloc.as_ref().unwrap();
                for r in s.state.reservations.values() {
                    let mine = j.spec.reservation.as_deref() == Some(r.name.as_str());
                    if !mine && r.is_active(s.now) {
                        assert!(
                            !alloc.node_names.iter().any(|n| r.holds_node(n)),
                            "seed {seed} step {step}: job {} on {:?} inside {} ({:?}, now {}, job {:?})",
                            j.job_id,
                            alloc.node_names,
                            r.name,
                            (r.start, r.end),
                            s.now,
                            (j.start_time, j.time_limit_min, &j.spec.reservation)
                        );
                    }
                    if mine {
                        assert!(alloc.node_names.iter().all(|n| r.holds_node(n)));
                    }
                }
            }
            s.now += 5 * 60;
        }
    }
}

#[test]
fn immediate_requests_respect_reservations() {
    let mut s = cluster(1, Settings::default());
    reserve(&mut s, "r", "n1", T0, 60, &[]).unwrap();
    assert_eq!(
        crate::rules::immediate_check(&s.state, &job(1, 1000, 0, Some(10)), s.now)
            .unwrap_err()
            .errno,
        SlurmErrno::NodesBusy
    );
    assert_eq!(
        crate::rules::immediate_check(&s.state, &in_resv("r", job(1, 1000, 0, Some(10))), s.now),
        Ok(())
    );
}
