//! The PostgreSQL history store against a real server this test starts (initdb and pg_ctl of Debian's
//! postgresql-15, on a free loopback port, in a temporary directory): upserts are idempotent, queries narrow by
//! ids, users and sacct's window, edits replace, retention deletes, records survive reconnecting, and a database
//! of a newer schema is refused. Skipped (with a message) where PostgreSQL is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use spur_controller::history::postgres::{PgTarget, PostgresHistory, SCHEMA_VERSION};
use spur_controller::history::{HistoryOp, HistoryQuery, HistoryStore};
use spur_core::model::accounting::JobAccounting;

const BIN: &str = "/usr/lib/postgresql/15/bin";

/// A PostgreSQL server of its own, stopped when dropped.
struct Server {
    dir: tempfile::TempDir,
    port: u16,
}

fn as_postgres(program: &str) -> Command {
    let path = Path::new(BIN).join(program);
    if nix::unistd::geteuid().is_root() {
        // PostgreSQL refuses to run as root.
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(path);
        cmd
    } else {
        Command::new(path)
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Server {
    fn start() -> Option<Server> {
        if !Path::new(BIN).join("initdb").exists() {
            eprintln!("skipped: PostgreSQL 15 is not installed");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let data = dir.path().join("data");
        let status = as_postgres("initdb")
            .args(["-A", "trust", "-U", "spur", "-D"])
            .arg(&data)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "initdb");
        let port = free_port();
        let status = as_postgres("pg_ctl")
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(dir.path().join("log"))
            .arg("-o")
            .arg(format!(
                "-p {port} -k {} -c listen_addresses=127.0.0.1",
                dir.path().display()
            ))
            .args(["-w", "start"])
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl start");
        Some(Server { dir, port })
    }

    fn target(&self) -> PgTarget {
        PgTarget {
            host: "127.0.0.1".into(),
            port: self.port,
            user: "spur".into(),
            password: None,
            database: "postgres".into(),
        }
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = as_postgres("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "-w", "stop"])
            .stdout(std::process::Stdio::null())
            .status();
    }
}

fn record(job_id: u32, user_id: u32, submit: i64, end: i64) -> JobAccounting {
    serde_json::from_value(serde_json::json!({
        "job_id": job_id, "name": format!("job{job_id}"), "user_id": user_id, "group_id": user_id,
        "partition": "debug", "state": "COMPLETED", "reason": "WAIT_NO_REASON", "submit": submit,
        "start": submit, "end": end, "elapsed_secs": end - submit, "nodes": 1, "cpus": 1,
    }))
    .unwrap()
}

fn upsert(r: &JobAccounting) -> HistoryOp {
    HistoryOp::Upsert(Box::new(r.clone()))
}

fn ids(store: &PostgresHistory, query: HistoryQuery) -> Vec<u32> {
    let mut records = store.query(&query).unwrap();
    records.sort_by_key(|r| (r.job_id, r.submit));
    records.iter().map(|r| r.job_id).collect()
}

#[test]
fn the_postgresql_store_keeps_queries_edits_and_refuses_a_newer_schema() {
    let Some(server) = Server::start() else {
        return;
    };
    let store = PostgresHistory::open(&server.target()).unwrap();
    let day = 86_400;
    let mut ops = Vec::new();
    for i in 1..=30u32 {
        let submit = i64::from(i) * 3600;
        ops.push(upsert(&record(i, 1000 + i % 2, submit, submit + 1800)));
    }
    ops.push(upsert(&record(40, 1000, 1000, 3 * day)));
    let mut task = record(51, 1001, 7200, 7300);
    task.array_job_id = Some(50);
    task.array_task_id = Some(1);
    ops.push(upsert(&task));
    store.write(&ops, 7).unwrap();
    // A replay changes nothing; a reused id with another submit time is another job.
    store.write(&ops, 7).unwrap();
    store
        .write(&[upsert(&record(1, 1000, 9 * day, 9 * day + 10))], 8)
        .unwrap();
    assert_eq!(store.last_applied().unwrap(), 8);
    assert_eq!(store.query(&HistoryQuery::default()).unwrap().len(), 33);

    let q = |query| ids(&store, query);
    assert_eq!(
        q(HistoryQuery {
            job_ids: Some(vec![3, 50, 99]),
            ..HistoryQuery::default()
        }),
        [3, 51]
    );
    assert_eq!(
        q(HistoryQuery {
            window: Some((day, day + 2 * 3600)),
            ..HistoryQuery::default()
        }),
        [24, 25, 26, 40]
    );
    assert_eq!(
        q(HistoryQuery {
            user_ids: Some(vec![1001]),
            window: Some((0, 4 * 3600)),
            ..HistoryQuery::default()
        }),
        [1, 3, 51]
    );

    // An edit replaces the record; retention deletes by end time.
    let mut edited = record(2, 1000, 7200, 9000);
    edited.edits.comment = Some("rerun".into());
    store.write(&[upsert(&edited)], 9).unwrap();
    let found = store
        .query(&HistoryQuery {
            job_ids: Some(vec![2]),
            ..HistoryQuery::default()
        })
        .unwrap();
    assert_eq!(found, vec![edited]);
    store
        .write(&[HistoryOp::DeleteEndedBefore(day)], 10)
        .unwrap();
    assert_eq!(
        q(HistoryQuery::default()),
        [1, 24, 25, 26, 27, 28, 29, 30, 40]
    );
    drop(store);

    // Reconnecting finds everything; a database of a newer schema is refused.
    let again = PostgresHistory::open(&server.target()).unwrap();
    assert_eq!(again.query(&HistoryQuery::default()).unwrap().len(), 9);
    drop(again);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let url = format!("postgres://spur@127.0.0.1:{}/postgres", server.port);
        let pool = sqlx::PgPool::connect(&url).await.unwrap();
        sqlx::query("UPDATE meta SET value = $1 WHERE key = 'schema_version'")
            .bind(SCHEMA_VERSION + 1)
            .execute(&pool)
            .await
            .unwrap();
    });
    let err = PostgresHistory::open(&server.target())
        .err()
        .expect("refused");
    assert_eq!(
        err.to_string(),
        format!(
            "job history store postgresql://spur@127.0.0.1:{}/postgres has schema version {}, newer than this \
             controller understands ({SCHEMA_VERSION})",
            server.port,
            SCHEMA_VERSION + 1
        )
    );
}
