//! Job ids of array tasks as slurmctld gives them: one id for the whole array at submission, a new one for each
//! task as it starts (the next free one then), the array's own id for the last task to start; and state written
//! before, with a record and a job id per task from the submission, still loads and runs as it was.

use pretty_assertions::assert_eq;

use spur_core::model::accounting::JobAccounting;
use spur_core::model::job::{JobRecord, JobSpec, UNSTARTED_TASK_KEYS};
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::{ControlRequest, JobSelector, SlurmErrno};

use super::tests::{select, spec, Harness};
use super::*;

fn array(text: &str) -> JobSpec {
    JobSpec {
        array: Some(text.to_string()),
        ..spec("arr")
    }
}

#[test]
fn tasks_get_their_ids_as_they_start_and_the_last_keeps_the_arrays() {
    let mut h = Harness::new();
    let arr = h.submit(array("1-3%1"));
    let between = h.submit(JobSpec {
        hold: true,
        ..spec("between")
    });
    assert_eq!(between, arr + 1, "the array used up one job id");
    for task in 1..=3 {
        let key = h.task(arr, task);
        assert!(key >= UNSTARTED_TASK_KEYS, "task {task} has no job id yet");
        assert_eq!(h.state.jobs[&key].shown_job_id(), arr);
    }
    // Task 1 starts under the next free id, and the batch step is launched under it.
    let applied = {
        let plan = crate::scheduler::schedule(&h.state, h.now);
        let now = h.now;
        h.apply(Command::Schedule {
            starts: plan.starts,
            reasons: plan.reasons,
            now,
            forecasts: plan.forecasts,
            priorities: plan.priorities,
            preemptions: plan.preemptions,
            reason_descs: plan.reason_descs,
            resumes: plan.resumes,
        })
        .unwrap()
    };
    let first = arr + 2;
    assert_eq!(h.task(arr, 1), first);
    assert!(applied
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Launch { job_id, .. } if *job_id == first)));
    let started = &h.state.jobs[&first];
    assert_eq!(
        (started.job_id, started.array_job_id, started.array_task_id),
        (first, Some(arr), Some(1))
    );
    assert_eq!(started.state, JobBaseState::Running);
    // A job submitted meanwhile takes the next id; task 2 the one after it.
    let later = h.submit(JobSpec {
        hold: true,
        ..spec("later")
    });
    assert_eq!(later, first + 1);
    h.finish(first, 0, 0);
    assert_eq!(h.schedule(), vec![later + 1]);
    h.finish(later + 1, 0, 0);
    // The last task to start keeps the array's id.
    assert_eq!(h.schedule(), vec![arr]);
    assert_eq!(h.state.jobs[&arr].array_task_id, Some(3));
    assert_eq!(h.state.next_job_id, later + 2);
    h.finish(arr, 0, 0);
    // Every task, by the array id; each by its index.
    let mut ids = h.state.select_jobs(&select(arr));
    ids.sort_unstable();
    assert_eq!(ids, vec![arr, first, later + 1]);
}

#[test]
fn a_dependency_on_the_array_waits_for_tasks_that_have_not_started() {
    let mut h = Harness::new();
    let arr = h.submit(array("1-2%1"));
    let child = h.submit(JobSpec {
        dependency: Some(format!("afterok:{arr}")),
        ..spec("child")
    });
    let first = h.schedule();
    assert_eq!(first, vec![child + 1]);
    h.finish(child + 1, 0, 0);
    assert_eq!(h.schedule(), vec![arr], "task 2, not the child");
    assert_eq!(h.state.jobs[&child].reason, JobReason::Dependency);
    h.finish(arr, 0, 0);
    assert_eq!(h.schedule(), vec![child]);
}

#[test]
fn listings_and_accounting_show_a_waiting_task_under_its_arrays_id() {
    let mut h = Harness::new();
    let arr = h.submit(JobSpec {
        hold: true,
        ..array("4-5")
    });
    let key = h.task(arr, 5);
    let record = JobAccounting::of_job(&h.state.jobs[&key], h.now);
    assert_eq!((record.job_id, record.array_task_id), (arr, Some(5)));
    let listing = spur_core::wire::api::JobListing {
        job_ids: Some(vec![arr]),
        ..Default::default()
    };
    assert!(listing.selects(&h.state.jobs[&key]));
    let by_key = spur_core::wire::api::JobListing {
        job_ids: Some(vec![key]),
        ..Default::default()
    };
    assert!(!by_key.selects(&h.state.jobs[&key]));
}

/// The state as a controller before this change wrote it: each task a record of its own, keyed by a job id given
/// at submission (array 10: tasks 1 and 2 as jobs 10 and 11), and no counter of task keys.
#[test]
fn state_with_a_job_id_per_task_still_loads_and_runs_its_tasks_under_those_ids() {
    let mut h = Harness::new();
    let arr = h.submit(array("1-2"));
    let mut old = h.state.clone();
    for task in 1..=2 {
        let key = h.task(arr, task);
        let mut job: JobRecord = old.jobs.remove(&key).unwrap();
        job.job_id = arr + task - 1;
        old.jobs.insert(job.job_id, job);
    }
    old.next_job_id = arr + 2;
    old.jobs.settle();
    let mut text: serde_json::Value = serde_json::to_value(&old).unwrap();
    let fields = text.as_object_mut().unwrap();
    assert!(fields.remove("unstarted_task_keys").is_some());
    let read: ClusterState = serde_json::from_value(text).unwrap();
    read.check_invariants().unwrap();
    h.state = read;
    assert_eq!(
        h.state.select_jobs(&select(arr)),
        vec![arr, arr + 1],
        "the array id reaches both tasks"
    );
    let mut started = h.schedule();
    started.sort_unstable();
    assert_eq!(
        started,
        vec![arr, arr + 1],
        "each task runs under its old id"
    );
    assert_eq!(h.state.jobs[&(arr + 1)].array_task_id, Some(2));
    assert_eq!(h.submit(spec("next")), arr + 2);
    let task2 = JobSelector {
        job_id: arr,
        array_task: Some(2),
    };
    assert_eq!(h.state.select_jobs(&task2), vec![arr + 1]);
}

/// Where a task waits is no job id: naming it reaches nothing, for its owner or anyone else.
#[test]
fn the_key_of_a_waiting_task_names_no_job() {
    let mut h = Harness::new();
    let arr = h.submit(JobSpec {
        hold: true,
        ..array("1-2")
    });
    let key = h.task(arr, 1);
    for uid in [1000, 1001, 0] {
        let cancel = ControlRequest::Cancel { job: select(key) };
        assert_eq!(
            h.control(uid, cancel).unwrap_err().errno,
            SlurmErrno::InvalidJobId
        );
        let task = JobSelector {
            job_id: key,
            array_task: Some(1),
        };
        let release = ControlRequest::Release { job: task };
        assert_eq!(
            h.control(uid, release).unwrap_err().errno,
            SlurmErrno::InvalidJobId
        );
    }
    assert_eq!(h.state.jobs[&key].state, JobBaseState::Pending);
    assert!(h
        .state
        .accounting_records(Some(&[key]), None, None, h.now)
        .is_empty());
    assert_eq!(
        h.state
            .accounting_records(Some(&[arr]), None, None, h.now)
            .len(),
        2
    );
}

/// `scontrol top` of an array's id reaches its first task waiting to start, as it reached the task that had the
/// array's id before tasks waited without one.
#[test]
fn top_of_an_array_id_reaches_its_first_waiting_task() {
    let mut h = Harness::new();
    let other = h.submit(spec("other"));
    let arr = h.submit(array("1-2"));
    let first = h.task(arr, 1);
    h.state.top(0, &arr.to_string()).unwrap();
    assert!(h.state.jobs[&first].priority > h.state.jobs[&other].priority);
    assert_eq!(
        h.state.top(0, &first.to_string()).unwrap_err().errno,
        SlurmErrno::InvalidJobId
    );
}
