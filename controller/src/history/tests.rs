//! The SQLite history store on a real file: upserts are idempotent, queries narrow by ids, users and sacct's
//! window, edits replace records, retention deletes, and a newer schema is refused.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use spur_core::model::accounting::JobAccounting;

use super::sqlite::{SqliteHistory, SCHEMA_VERSION};
use super::*;

fn record(job_id: u32, user_id: u32, submit: EpochSecs, end: EpochSecs) -> JobAccounting {
    serde_json::from_value(serde_json::json!({
        "job_id": job_id,
        "name": format!("job{job_id}"),
        "user_id": user_id,
        "group_id": user_id,
        "partition": "debug",
        "state": "COMPLETED",
        "reason": "WAIT_NO_REASON",
        "submit": submit,
        "start": submit,
        "end": end,
        "elapsed_secs": end - submit,
        "nodes": 1,
        "cpus": 1,
    }))
    .expect("a record")
}

fn upsert(r: &JobAccounting) -> HistoryOp {
    HistoryOp::Upsert(Box::new(r.clone()))
}

fn ids(mut records: Vec<JobAccounting>) -> Vec<u32> {
    records.sort_by_key(|r| (r.job_id, r.submit));
    records.iter().map(|r| r.job_id).collect()
}

fn store(dir: &tempfile::TempDir) -> SqliteHistory {
    SqliteHistory::open(&dir.path().join("history.sqlite")).expect("open")
}

#[test]
fn upserts_are_idempotent_and_keep_reused_ids_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = store(&dir);
    let a = record(1, 1000, 100, 200);
    h.write(&[upsert(&a)], 5).expect("write");
    // A replay of the same batch after a restart changes nothing.
    h.write(&[upsert(&a), upsert(&a)], 5).expect("replay");
    assert_eq!(
        h.query(&HistoryQuery::default()).expect("query"),
        vec![a.clone()]
    );
    // Job id 1 again after a state reset, submitted later: a second job, not a replacement.
    let again = record(1, 1001, 5_000, 5_100);
    h.write(&[upsert(&again)], 9).expect("write");
    let mut all = h.query(&HistoryQuery::default()).expect("query");
    all.sort_by_key(|r| r.submit);
    assert_eq!(all, vec![a, again]);
    assert_eq!(h.last_applied().expect("last"), 9);
}

#[test]
fn queries_narrow_by_ids_users_and_window() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = store(&dir);
    let day = 86_400;
    let mut ops = Vec::new();
    // Jobs 1..=30: one every hour over 30 hours, each running 30 minutes, users alternating.
    for i in 1..=30u32 {
        let submit = i64::from(i) * 3600;
        ops.push(upsert(&record(i, 1000 + i % 2, submit, submit + 1800)));
    }
    // A long job spanning the second day: submitted early, ended late.
    ops.push(upsert(&record(40, 1000, 1000, 3 * day)));
    // An array task of array 50.
    let mut task = record(51, 1001, 7200, 7300);
    task.array_job_id = Some(50);
    task.array_task_id = Some(1);
    ops.push(upsert(&task));
    h.write(&ops, 1).expect("write");

    let q = |query: HistoryQuery| ids(h.query(&query).expect("query"));
    assert_eq!(
        q(HistoryQuery {
            job_ids: Some(vec![3, 50, 99]),
            ..HistoryQuery::default()
        }),
        [3, 51],
        "an array's id brings its tasks"
    );
    assert_eq!(
        q(HistoryQuery {
            user_ids: Some(vec![1001]),
            window: Some((0, 4 * 3600)),
            ..HistoryQuery::default()
        }),
        [1, 3, 51]
    );
    // sacct -S day -E day+2h: jobs known in that window, the long one included.
    let window = q(HistoryQuery {
        window: Some((day, day + 2 * 3600)),
        ..HistoryQuery::default()
    });
    assert_eq!(window, [24, 25, 26, 40]);
    // The window and the ids together.
    assert_eq!(
        q(HistoryQuery {
            job_ids: Some(vec![1, 25]),
            window: Some((day, day + 2 * 3600)),
            ..HistoryQuery::default()
        }),
        [25]
    );
}

#[test]
fn edits_replace_the_record_and_retention_deletes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let h = store(&dir);
    let old = record(1, 1000, 100, 200);
    let new = record(2, 1000, 10_000, 10_100);
    h.write(&[upsert(&old), upsert(&new)], 1).expect("write");
    let mut edited = old.clone();
    edited.edits.admin_comment = Some("checked".into());
    h.write(&[upsert(&edited)], 2).expect("edit");
    let found = h
        .query(&HistoryQuery {
            job_ids: Some(vec![1]),
            ..HistoryQuery::default()
        })
        .expect("query");
    assert_eq!(found, vec![edited]);
    h.write(&[HistoryOp::DeleteEndedBefore(10_000)], 3)
        .expect("retention");
    assert_eq!(ids(h.query(&HistoryQuery::default()).expect("query")), [2]);
}

#[test]
fn records_survive_reopening_and_a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("history.sqlite");
    let a = record(7, 1000, 100, 200);
    {
        let h = SqliteHistory::open(&path).expect("open");
        h.write(&[upsert(&a)], 3).expect("write");
    }
    let h = SqliteHistory::open(&path).expect("reopen");
    assert_eq!(h.query(&HistoryQuery::default()).expect("query"), vec![a]);
    drop(h);
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&path).expect("metadata").permissions(),
    );
    assert_eq!(mode & 0o777, 0o600, "other users may not read the history");

    let conn = rusqlite::Connection::open(&path).expect("sqlite");
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
        [SCHEMA_VERSION + 1],
    )
    .expect("bump");
    drop(conn);
    let err = SqliteHistory::open(&path).err().expect("refused");
    assert_eq!(
        err.to_string(),
        format!(
            "job history store {} has schema version {}, newer than this controller understands ({SCHEMA_VERSION})",
            path.display(),
            SCHEMA_VERSION + 1
        )
    );
}

#[test]
fn a_record_of_an_unknown_format_is_an_error_not_garbage() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("history.sqlite");
    let h = SqliteHistory::open(&path).expect("open");
    h.write(&[upsert(&record(7, 1000, 100, 200))], 1)
        .expect("write");
    let conn = rusqlite::Connection::open(&path).expect("sqlite");
    conn.execute("UPDATE jobs SET format = 2", [])
        .expect("bump");
    let err = h.query(&HistoryQuery::default()).expect_err("refused");
    assert!(
        err.to_string().contains("record of job 7 has format 2"),
        "{err}"
    );
}

#[test]
fn the_link_queues_until_the_batch_ends_and_sees_its_own_edits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store: Arc<dyn HistoryStore> = Arc::new(store(&dir));
    let mut link = HistoryLink::new(Arc::clone(&store));
    let a = record(1, 1000, 100, 200);
    link.queue(upsert(&a));
    assert!(store
        .query(&HistoryQuery::default())
        .expect("query")
        .is_empty());
    assert_eq!(
        link.record(1, 100),
        Some(a.clone()),
        "queued records are seen"
    );
    link.flush(4);
    assert_eq!(store.last_applied().expect("last"), 4);
    let mut edited = a.clone();
    edited.edits.comment = Some("x".into());
    link.queue(upsert(&edited));
    assert_eq!(link.query(&HistoryQuery::default()), vec![edited.clone()]);
    link.flush(5);
    assert_eq!(
        store.query(&HistoryQuery::default()).expect("query"),
        vec![edited]
    );
    // Without a store nothing is queued.
    let mut none = HistoryLink::default();
    none.queue(upsert(&a));
    assert_eq!(
        format!("{none:?}"),
        "HistoryLink { store: false, pending: 0 }"
    );
}
