//! Jobs started by the commit that submits them (`placed_at_submission` and `Command::SubmitAndStart`): the
//! same start the pass after a plain submission would make, never ahead of a waiting job, and nothing a stale
//! placement could double-book.

use pretty_assertions::assert_eq;

use spur_core::model::job::{Allocation, EpochSecs, HoldKind, JobRecord, JobSpec};
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::{ControlRequest, JobSelector};

use super::scenario::{job, node, partition, Scenario};
use crate::state::{Command, Effect, Settings};

const T0: EpochSecs = 1_000_020;

fn cluster(settings: Settings) -> Scenario {
    let names = vec!["n1".to_string(), "n2".to_string()];
    Scenario::new(
        vec![node("n1", 4, 8_000, 2), node("n2", 4, 8_000, 2)],
        vec![partition("p", &names, true)],
        settings,
        T0,
    )
    .unwrap()
}

/// The record `spec` would get and where it would start, decided as the leader does before committing.
fn placed(s: &Scenario, spec: &JobSpec) -> (JobRecord, Allocation) {
    let preview = s.state.submission_preview(spec, T0).unwrap();
    let start = super::placed_at_submission(&s.state, spec, T0).unwrap();
    (preview, start)
}

fn submit_and_start(request_id: Option<&str>, spec: JobSpec, start: Allocation) -> Command {
    Command::SubmitAndStart {
        request_id: request_id.map(str::to_string),
        spec: Box::new(spec),
        now: T0,
        start,
    }
}

fn shapes() -> Vec<JobSpec> {
    let mut two_nodes = job(2, 1_000, 0, Some(30));
    two_nodes.nodes_min = 2;
    vec![
        job(1, 100, 0, Some(10)),
        job(2, 2_000, 1, Some(60)),
        job(4, 500, 0, None),
        two_nodes,
        job(1, 100, 1, Some(5)),
        job(3, 100, 0, Some(5)),
    ]
}

#[test]
fn a_job_placed_at_submission_gets_the_start_the_next_pass_would_give_it() {
    let mut placed = cluster(Settings::default());
    let mut passed = cluster(Settings::default());
    let mut placed_ids = Vec::new();
    for spec in shapes() {
        let (id, at_submission) = placed.submit_as_leader(spec.clone()).unwrap();
        let plan = placed.pass().unwrap();
        let other = passed.submit(spec).unwrap();
        passed.pass().unwrap();
        assert_eq!(id, other);
        let (a, b) = (&placed.state.jobs[&id], &passed.state.jobs[&id]);
        assert_eq!((a.state, a.reason), (b.state, b.reason), "job {id}");
        assert_eq!(a.alloc, b.alloc, "job {id}");
        assert_eq!(a.start_time, b.start_time, "job {id}");
        assert_eq!(a.priority, b.priority, "job {id}");
        // A job placed at submission runs, and the pass after it has nothing left to start.
        if at_submission {
            assert_eq!(a.state, JobBaseState::Running, "job {id}");
            assert!(plan.starts.is_empty(), "{plan:?}");
        }
        placed_ids.push((id, at_submission));
    }
    // The first three fit at once (the third on n2); the two-node job then waits, and the jobs after it are
    // the pass's to backfill or keep waiting.
    assert_eq!(
        placed_ids,
        [
            (1, true),
            (2, true),
            (3, true),
            (4, false),
            (5, false),
            (6, false)
        ]
    );
    placed.state.check_invariants().unwrap();
}

#[test]
fn the_commit_that_creates_the_job_launches_it() {
    let mut s = cluster(Settings::default());
    let spec = job(1, 100, 0, Some(10));
    let (preview, start) = placed(&s, &spec);
    let applied = s
        .apply(submit_and_start(Some("req-1"), spec.clone(), start.clone()))
        .unwrap();
    let id = applied.job_id.unwrap();
    assert_eq!(id, preview.job_id);
    assert!(
        applied
            .effects
            .iter()
            .any(|e| matches!(e, Effect::Launch { job_id, .. } if *job_id == id)),
        "{:?}",
        applied.effects
    );
    assert_eq!(s.state.jobs[&id].alloc.as_ref(), Some(&start));
    // A retry of the same request gets the same job and starts nothing again.
    let again = s
        .apply(submit_and_start(Some("req-1"), spec, start))
        .unwrap();
    assert_eq!(again.job_id, Some(id));
    assert!(again.effects.is_empty());
    assert_eq!(s.state.jobs.len(), 1);
    s.state.check_invariants().unwrap();
}

#[test]
fn a_placement_that_went_stale_leaves_the_job_to_the_pass() {
    let mut s = cluster(Settings::default());
    let whole = job(4, 100, 0, Some(10));
    let (_, start) = placed(&s, &whole);
    // Before that submission commits, other jobs take every CPU of both nodes.
    for _ in 0..2 {
        let (_, placed) = s.submit_as_leader(job(4, 100, 0, Some(10))).unwrap();
        assert!(placed);
    }
    let id = s
        .apply(submit_and_start(None, whole, start))
        .unwrap()
        .job_id
        .unwrap();
    assert_eq!(s.state.jobs[&id].state, JobBaseState::Pending);
    assert!(s.state.jobs[&id].alloc.is_none());
    s.state.check_invariants().unwrap();
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&id].reason, JobReason::Resources);
}

#[test]
fn a_waiting_job_is_never_overtaken_at_submission() {
    let mut s = cluster(Settings::default());
    let (_, placed) = s.submit_as_leader(job(4, 100, 0, Some(60))).unwrap();
    assert!(placed);
    // Needs both nodes whole: waits for the first job.
    let mut wide = job(4, 100, 0, Some(60));
    wide.nodes_min = 2;
    let (wide_id, placed) = s.submit_as_leader(wide).unwrap();
    assert!(!placed);
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&wide_id].state, JobBaseState::Pending);
    // A small job fits on n2 now, but a job waits: the pass decides (backfill, against the wide job's
    // reservation), not the submission.
    let small = job(1, 100, 0, Some(600));
    assert!(s.state.submission_preview(&small, T0).is_some());
    assert_eq!(super::placed_at_submission(&s.state, &small, T0), None);
}

#[test]
fn held_array_and_deferred_submissions_wait_for_a_pass() {
    let s = cluster(Settings::default());
    let mut held = job(1, 100, 0, Some(10));
    held.hold = true;
    let mut array = job(1, 100, 0, Some(10));
    array.array = Some("0-3".to_string());
    for spec in [held, array] {
        assert_eq!(s.state.submission_preview(&spec, T0), None);
        assert_eq!(super::placed_at_submission(&s.state, &spec, T0), None);
    }
    let mut deferred = cluster(Settings {
        defer: true,
        ..Settings::default()
    });
    let (id, placed) = deferred.submit_as_leader(job(1, 100, 0, Some(10))).unwrap();
    assert!(!placed);
    assert_eq!(deferred.state.jobs[&id].state, JobBaseState::Pending);
    // Settled held jobs do not count as waiting.
    let mut s = cluster(Settings::default());
    let mut held = job(1, 100, 0, Some(10));
    held.hold = true;
    let held_id = s.submit(held).unwrap();
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&held_id].hold, Some(HoldKind::User));
    let (_, placed) = s.submit_as_leader(job(1, 100, 0, Some(10))).unwrap();
    assert!(placed);
}

#[test]
fn a_queue_of_settled_held_jobs_is_left_out_of_every_pass() {
    let mut s = cluster(Settings::default());
    let mut held = job(1, 100, 0, Some(10));
    held.hold = true;
    // More than a submission's own pass would look at, were they counted.
    let held_ids: Vec<u32> = (0..=super::SUBMISSION_PASS_LIVE_MAX)
        .map(|_| s.submit(held.clone()).unwrap())
        .collect();
    s.pass().unwrap();
    assert_eq!(s.state.jobs.live_count(), held_ids.len());
    assert_eq!(s.state.jobs.in_play_count(), 0);
    // The next pass has nothing to say about them, and a new job still starts with its submission.
    assert_eq!(s.pass().unwrap(), super::Plan::default());
    let (id, placed) = s.submit_as_leader(job(1, 100, 0, Some(10))).unwrap();
    assert!(placed);
    assert_eq!(s.state.jobs[&id].state, JobBaseState::Running);
    // Released, a held job is the pass's again.
    let released = held_ids[7];
    s.apply(Command::Control {
        caller_uid: 0,
        request: ControlRequest::Release {
            job: JobSelector {
                job_id: released,
                array_task: None,
            },
        },
        now: T0,
    })
    .unwrap();
    assert_eq!(s.state.jobs.in_play_count(), 2);
    let plan = s.pass().unwrap();
    assert_eq!(
        plan.starts.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        [released]
    );
}

#[test]
fn a_refused_submission_is_not_placed_and_is_refused_as_before() {
    // Beyond the partition: pending by default, refused with Spur's own setting.
    let mut s = cluster(Settings {
        refuse_unrunnable: true,
        ..Settings::default()
    });
    let too_big = job(64, 100, 0, Some(10));
    assert_eq!(s.state.submission_preview(&too_big, T0), None);
    assert_eq!(super::placed_at_submission(&s.state, &too_big, T0), None);
    assert!(s.submit_as_leader(too_big).is_err());
}
