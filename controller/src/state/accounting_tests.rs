//! Accounting in the state machine: records outlive MinJobAge, travel in snapshots, follow the log
//! deterministically, and are not kept with `accounting_storage/none`.

use pretty_assertions::assert_eq;

use spur_core::model::accounting::{Filter, JobAccounting};
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ControlRequest, JobSelector};

use super::*;
use crate::raft::AppStateMachine;
use crate::scheduler::scenario::{job, node, partition, Scenario};

fn cluster(settings: Settings) -> Scenario {
    let names = ["n1".to_string()];
    Scenario::new(
        vec![node("n1", 4, 8_000, 0)],
        vec![partition("debug", &names, true)],
        Settings {
            min_job_age_secs: 300,
            ..settings
        },
        1_000_000,
    )
    .expect("cluster")
}

fn ended(s: &mut Scenario, job_id: u32, code: u32, signal: u32) {
    let now = s.now;
    s.apply(Command::Finished {
        job_id,
        outcome: Outcome::Exited { code, signal },
        now,
        run: None,
    })
    .expect("finished");
}

/// A completed job with one failed step, a failed job, and a job cancelled by uid 1000 while it ran; then
/// MinJobAge passes and the live table is purged.
fn three_jobs_purged(settings: Settings) -> (Scenario, [u32; 3]) {
    let mut s = cluster(settings);
    let ok = s.submit(job(1, 100, 0, Some(10))).expect("submit");
    let bad = s.submit(job(1, 100, 0, None)).expect("submit");
    let cancelled = s.submit(job(1, 100, 0, None)).expect("submit");
    s.pass().expect("pass");
    s.now += 5;
    let step = s
        .apply(Command::Control {
            caller_uid: 1000,
            request: ControlRequest::CreateStep {
                job_id: ok,
                name: "false".into(),
                num_tasks: 1,
                num_cpus: 1,
                time_limit_min: None,
                srun_host: "n1".into(),
                srun_pid: 1,
                launch: None,
                resv_port_cnt: None,
            },
            now: s.now,
        })
        .expect("step")
        .step_id
        .expect("step id");
    s.now += 2;
    s.apply(Command::Control {
        caller_uid: 1000,
        request: ControlRequest::CompleteStep {
            job_id: ok,
            step_id: step,
            exit_code: 1,
            signal: 0,
            usage: None,
        },
        now: s.now,
    })
    .expect("complete step");
    s.now += 3;
    ended(&mut s, ok, 0, 0);
    ended(&mut s, bad, 2, 0);
    s.apply(Command::Control {
        caller_uid: 1000,
        request: ControlRequest::Cancel {
            job: JobSelector {
                job_id: cancelled,
                array_task: None,
            },
        },
        now: s.now,
    })
    .expect("cancel");
    ended(&mut s, cancelled, 0, 15);
    s.now += 301;
    let now = s.now;
    s.apply(Command::Purge { now }).expect("purge");
    s.state.check_invariants().expect("invariants");
    (s, [ok, bad, cancelled])
}

#[test]
fn records_outlive_min_job_age() {
    let (s, [ok, bad, cancelled]) = three_jobs_purged(Settings::default());
    assert!(s.state.jobs.is_empty(), "the live table is purged");
    let records = s.state.accounting_records(None, None, None, s.now);
    let summary: Vec<(u32, JobBaseState, u32, u32, Option<u32>, i64)> = records
        .iter()
        .map(|r| {
            (
                r.job_id,
                r.state,
                r.exit_code,
                r.exit_signal,
                r.cancelled_by,
                r.elapsed_secs,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (ok, JobBaseState::Completed, 0, 0, None, 10),
            (bad, JobBaseState::Failed, 2, 0, None, 10),
            (cancelled, JobBaseState::Cancelled, 0, 15, Some(1000), 10),
        ]
    );
    let steps = &records[0].steps;
    assert_eq!(steps.len(), 1);
    assert_eq!(
        (steps[0].state, steps[0].exit_code, steps[0].elapsed_secs),
        (JobBaseState::Failed, 1, 2)
    );
    assert_eq!(
        s.state
            .accounting_records(Some(&[bad]), None, None, s.now)
            .len(),
        1
    );
    assert!(s
        .state
        .accounting_records(None, Some(&[0]), None, s.now)
        .is_empty());
    let failed = Filter {
        states: vec![JobBaseState::Failed],
        ..Filter::default()
    };
    let picked: Vec<u32> = s
        .state
        .accounting_records(None, None, Some(&failed), s.now)
        .iter()
        .map(|r| r.job_id)
        .collect();
    assert_eq!(picked, [bad]);
}

#[test]
fn records_travel_in_snapshots_and_replays_agree() {
    let (s, _) = three_jobs_purged(Settings::default());
    let bytes = AppStateMachine::snapshot(&s.state).expect("snapshot");
    let mut restored = ClusterState::new();
    AppStateMachine::restore(&mut restored, &bytes).expect("restore");
    assert_eq!(restored.accounting, s.state.accounting);
    // The same commands in the same order make the same records, whatever the wall clock says.
    let (again, _) = three_jobs_purged(Settings::default());
    assert_eq!(again.state.accounting, s.state.accounting);
}

#[test]
fn snapshots_without_accounting_still_restore() {
    let (s, _) = three_jobs_purged(Settings::default());
    let mut value: serde_json::Value =
        serde_json::from_slice(&AppStateMachine::snapshot(&s.state).expect("snapshot"))
            .expect("json");
    let object = value.as_object_mut().expect("object");
    object.remove("accounting");
    if let Some(settings) = object.get_mut("settings").and_then(|v| v.as_object_mut()) {
        settings.remove("accounting");
        settings.remove("accounting_keep_secs");
    }
    let mut restored = ClusterState::new();
    AppStateMachine::restore(&mut restored, &serde_json::to_vec(&value).expect("encode"))
        .expect("restore an older snapshot");
    assert!(restored.accounting.is_empty());
    assert!(restored.settings.accounting);
}

#[test]
fn accounting_storage_none_keeps_nothing_after_purge() {
    let (s, _) = three_jobs_purged(Settings {
        accounting: false,
        ..Settings::default()
    });
    assert!(s.state.accounting.is_empty());
}

#[test]
fn a_retention_period_drops_old_records() {
    let (mut s, [ok, ..]) = three_jobs_purged(Settings {
        accounting_keep_secs: Some(3600),
        ..Settings::default()
    });
    assert_eq!(s.state.accounting.len(), 3);
    assert!(!s.state.accounting_expiry_due(s.now));
    assert!(s.state.accounting_expiry_due(s.now + 3600));
    let late = s.submit(job(1, 100, 0, None)).expect("submit");
    s.now += 3600;
    let now = s.now;
    s.apply(Command::Purge { now }).expect("purge");
    assert!(!s.state.accounting.contains_key(&ok));
    let left: Vec<u32> = s
        .state
        .accounting_records(None, None, None, now)
        .iter()
        .map(|r| r.job_id)
        .collect();
    assert_eq!(left, [late], "the pending job is still live");
}

/// The size budget: a finished one-node batch job's record (no script, no environment) in the snapshot's JSON.
#[test]
fn a_record_is_small() {
    let (s, [_, bad, _]) = three_jobs_purged(Settings::default());
    let record: &JobAccounting = &s.state.accounting[&bad];
    let bytes = serde_json::to_vec(record).expect("encode").len();
    assert!(
        bytes < 600,
        "{bytes} bytes: {}",
        serde_json::to_string(record).unwrap_or_default()
    );
}
