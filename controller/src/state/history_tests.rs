//! The handoff of purged jobs' records to the history store: the replicated buffer stays bounded however many
//! jobs finish, every record stays visible to sacct (live, buffer and store together), edits of records only
//! in the store reach it, retention deletes there, snapshots hand their buffer over, and a restart keeps it all.

use std::sync::Arc;

use pretty_assertions::assert_eq;

use spur_core::model::accounting::Filter;
use spur_core::model::job_edit::{JobEditCond, JobEditRequest, JobEdits};
use spur_core::wire::api::ControlRequest;

use super::accounting::HANDOFF_SECS;
use super::*;
use crate::history::sqlite::SqliteHistory;
use crate::history::{HistoryLink, HistoryQuery, HistoryStore};
use crate::raft::AppStateMachine;
use crate::scheduler::scenario::{job, node, partition, Scenario};

const MIN_JOB_AGE: u32 = 300;

fn cluster(settings: Settings, store: Option<Arc<dyn HistoryStore>>) -> Scenario {
    let names = ["n1".to_string()];
    let mut s = Scenario::new(
        vec![node("n1", 4, 8_000, 0)],
        vec![partition("debug", &names, true)],
        Settings {
            min_job_age_secs: MIN_JOB_AGE,
            ..settings
        },
        1_000_000,
    )
    .expect("cluster");
    if let Some(store) = store {
        s.state.history = HistoryLink::new(store);
    }
    s
}

fn sqlite(dir: &tempfile::TempDir) -> Arc<dyn HistoryStore> {
    Arc::new(SqliteHistory::open(&dir.path().join("history.sqlite")).expect("open"))
}

/// Applies `command` as a batch of its own: the raft layer calls `batch_applied` after each batch.
fn batch(s: &mut Scenario, command: Command) -> Applied {
    let applied = s.apply(command).expect("apply");
    AppStateMachine::batch_applied(&mut s.state);
    applied
}

/// One job submitted, run for a minute and finished; a purge every minute, as the leader's housekeeping commits.
fn one_job(s: &mut Scenario) -> u32 {
    let id = s.submit(job(1, 100, 0, None)).expect("submit");
    s.pass().expect("pass");
    s.now += 60;
    let now = s.now;
    batch(
        s,
        Command::Finished {
            job_id: id,
            outcome: Outcome::Exited { code: 0, signal: 0 },
            now,
            run: None,
        },
    );
    batch(s, Command::Purge { now });
    id
}

fn all_ids(s: &Scenario) -> Vec<u32> {
    s.state
        .accounting_records(None, None, None, s.now)
        .iter()
        .map(|r| r.job_id)
        .collect()
}

#[test]
fn the_buffer_stays_bounded_and_every_record_stays_visible() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = sqlite(&dir);
    let mut s = cluster(Settings::default(), Some(Arc::clone(&store)));
    let mut ids = Vec::new();
    // Six hours of a job a minute: far more than the handoff period holds.
    for _ in 0..360 {
        ids.push(one_job(&mut s));
        // A job a minute ending, purged MinJobAge later and kept HANDOFF_SECS more: the buffer never holds
        // more than the jobs of that span.
        let bound =
            usize::try_from((i64::from(MIN_JOB_AGE) + HANDOFF_SECS) / 60 + 1).expect("small");
        assert!(
            s.state.accounting.len() <= bound,
            "{} records in the buffer",
            s.state.accounting.len()
        );
    }
    assert!(
        s.state.accounting.len() >= 5,
        "recent records stay in the state"
    );
    // Everything is visible once, in submission order, and the store holds what left the buffer.
    assert_eq!(all_ids(&s), ids);
    let stored = store.query(&HistoryQuery::default()).expect("query").len();
    let live = s.state.jobs.len();
    assert_eq!(
        stored + live,
        ids.len(),
        "only the live jobs are not stored yet"
    );
    // The snapshot carries the buffer only.
    let snapshot = AppStateMachine::snapshot(&s.state).expect("snapshot");
    assert!(snapshot.len() < 64 * 1024, "{} bytes", snapshot.len());
    // sacct's window narrows in the store and in the state alike.
    let hour = Filter {
        window: Some((s.now - 3 * 3600, s.now - 2 * 3600)),
        ..Filter::default()
    };
    let in_window = s.state.accounting_records(None, None, Some(&hour), s.now);
    assert!((60..=62).contains(&in_window.len()), "{}", in_window.len());
    assert!(in_window.iter().all(|r| hour.selects(r)));
}

#[test]
fn without_a_store_the_state_is_the_same() {
    // The buffer is released whether or not this controller has a store, so replicas never differ.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut with = cluster(Settings::default(), Some(sqlite(&dir)));
    let mut without = cluster(Settings::default(), None);
    for _ in 0..30 {
        one_job(&mut with);
        one_job(&mut without);
    }
    assert_eq!(with.state, without.state);
    assert_eq!(
        AppStateMachine::snapshot(&with.state).expect("snapshot"),
        AppStateMachine::snapshot(&without.state).expect("snapshot")
    );
}

fn set_comment(s: &mut Scenario, job_id: u32, text: &str) -> Vec<u32> {
    let now = s.now;
    batch(
        s,
        Command::Control {
            caller_uid: 1000,
            request: ControlRequest::ModifyJobRecords {
                request: JobEditRequest {
                    cond: JobEditCond {
                        job_ids: vec![job_id],
                        ..Default::default()
                    },
                    set: JobEdits {
                        comment: Some(text.into()),
                        ..Default::default()
                    },
                },
            },
            now,
        },
    )
    .edited_jobs
    .iter()
    .map(|e| e.job_id)
    .collect()
}

#[test]
fn an_edit_of_a_record_only_in_the_store_reaches_the_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = sqlite(&dir);
    let mut s = cluster(Settings::default(), Some(Arc::clone(&store)));
    let old = one_job(&mut s);
    for _ in 0..30 {
        one_job(&mut s);
    }
    assert!(!s.state.accounting.contains_key(&old), "left the buffer");
    assert_eq!(set_comment(&mut s, old, "rerun"), [old]);
    let stored = store
        .query(&HistoryQuery {
            job_ids: Some(vec![old]),
            ..HistoryQuery::default()
        })
        .expect("query");
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].edits.comment.as_deref(), Some("rerun"));
    assert!(
        !s.state.accounting.contains_key(&old),
        "not back in the state"
    );
    // A record still in the buffer is edited there and in the store.
    let recent = one_job(&mut s);
    for _ in 0..6 {
        one_job(&mut s);
    }
    assert!(
        s.state.accounting.contains_key(&recent),
        "purged, in the buffer"
    );
    assert_eq!(set_comment(&mut s, recent, "late"), [recent]);
    assert_eq!(
        s.state.accounting[&recent].edits.comment.as_deref(),
        Some("late")
    );
    let stored = store
        .query(&HistoryQuery {
            job_ids: Some(vec![recent]),
            ..HistoryQuery::default()
        })
        .expect("query");
    assert_eq!(stored[0].edits.comment.as_deref(), Some("late"));
}

#[test]
fn retention_deletes_from_the_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = sqlite(&dir);
    let mut s = cluster(
        Settings {
            accounting_keep_secs: Some(3600),
            ..Settings::default()
        },
        Some(Arc::clone(&store)),
    );
    for _ in 0..120 {
        one_job(&mut s);
    }
    let ends: Vec<i64> = store
        .query(&HistoryQuery::default())
        .expect("query")
        .iter()
        .filter_map(|r| r.end)
        .collect();
    assert!(!ends.is_empty());
    assert!(
        ends.iter().all(|&end| s.now - end <= 3600 + 60),
        "records past PurgeJobAfter are gone"
    );
    assert!(ends.len() <= 62, "{} records kept", ends.len());
}

#[test]
fn a_snapshot_hands_its_buffer_to_a_store_that_lacks_it() {
    // A controller without these records in its store (a follower that missed them, or an upgrade from a
    // snapshot of the old format that kept every record) installs the snapshot.
    let mut s = cluster(Settings::default(), None);
    for _ in 0..40 {
        one_job(&mut s);
    }
    let buffered: Vec<u32> = s.state.accounting.keys().copied().collect();
    assert!(!buffered.is_empty());
    let bytes = AppStateMachine::snapshot(&s.state).expect("snapshot");
    let dir = tempfile::tempdir().expect("tempdir");
    let store = sqlite(&dir);
    let mut follower = ClusterState::new();
    follower.history = HistoryLink::new(Arc::clone(&store));
    AppStateMachine::restore(&mut follower, &bytes).expect("restore");
    let mut stored: Vec<u32> = store
        .query(&HistoryQuery::default())
        .expect("query")
        .iter()
        .map(|r| r.job_id)
        .collect();
    stored.sort_unstable();
    assert_eq!(stored, buffered);
}

#[test]
fn records_survive_a_restart_from_store_and_snapshot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = sqlite(&dir);
    let mut s = cluster(Settings::default(), Some(store));
    let mut ids = Vec::new();
    for _ in 0..60 {
        ids.push(one_job(&mut s));
    }
    let bytes = AppStateMachine::snapshot(&s.state).expect("snapshot");
    let now = s.now;
    drop(s);
    // The controller starts again: its store reopened from disk, the snapshot restored.
    let reopened: Arc<dyn HistoryStore> =
        Arc::new(SqliteHistory::open(&dir.path().join("history.sqlite")).expect("reopen"));
    let mut restarted = ClusterState::new();
    restarted.history = HistoryLink::new(reopened);
    AppStateMachine::restore(&mut restarted, &bytes).expect("restore");
    let listed: Vec<u32> = restarted
        .accounting_records(None, None, None, now)
        .iter()
        .map(|r| r.job_id)
        .collect();
    assert_eq!(
        listed, ids,
        "every job once, old ones from the store, recent ones from the state"
    );
}
