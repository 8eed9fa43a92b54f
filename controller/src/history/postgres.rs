//! The shared history store: a PostgreSQL database (`AccountingStorageType=accounting_storage/postgresql`, see
//! docs/accounting.md), which every controller of a group writes (upserts, so the same record from several
//! controllers is one row) and reporting tools can read directly. Same schema as the SQLite store, in PostgreSQL
//! types.
//!
//! The trait is synchronous (the state machine's batch hook calls it), sqlx is asynchronous: the connection pool
//! lives on a thread of its own with its own runtime, and each call sends it a request and waits for the answer.

use std::sync::mpsc as std_mpsc;

use spur_core::model::accounting::JobAccounting;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::Row;
use tokio::sync::mpsc;

use super::{HistoryError, HistoryOp, HistoryQuery, HistoryStore};

/// The schema this build writes and understands (as [`super::sqlite::SCHEMA_VERSION`]).
pub const SCHEMA_VERSION: i64 = 1;
const RECORD_FORMAT: i64 = 1;

const SCHEMA: [&str; 6] = [
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS jobs (
        job_id BIGINT NOT NULL,
        submit BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        account TEXT,
        start_time BIGINT,
        end_time BIGINT,
        state TEXT NOT NULL,
        name TEXT NOT NULL,
        partition TEXT NOT NULL,
        array_job_id BIGINT,
        format BIGINT NOT NULL,
        record BYTEA NOT NULL,
        PRIMARY KEY (job_id, submit))",
    "CREATE INDEX IF NOT EXISTS jobs_end ON jobs (end_time)",
    "CREATE INDEX IF NOT EXISTS jobs_submit ON jobs (submit)",
    "CREATE INDEX IF NOT EXISTS jobs_user ON jobs (user_id, end_time)",
    "CREATE INDEX IF NOT EXISTS jobs_array ON jobs (array_job_id) WHERE array_job_id IS NOT NULL",
];

/// Where the database is: slurm.conf's `AccountingStorageHost`, `AccountingStoragePort` (default 5432),
/// `AccountingStorageUser`, `AccountingStoragePass` and `AccountingStorageLoc` (the database; default `spur`).
#[derive(Clone, PartialEq, Eq)]
pub struct PgTarget {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
    pub database: String,
}

impl std::fmt::Debug for PgTarget {
    /// Never the password: configurations end up in logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgTarget")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "<hidden>"))
            .field("database", &self.database)
            .finish()
    }
}

enum Request {
    Write(Vec<HistoryOp>, u64, std_mpsc::Sender<Result<(), String>>),
    Query(HistoryQuery, std_mpsc::Sender<Result<Vec<Row3>, String>>),
    LastApplied(std_mpsc::Sender<Result<i64, String>>),
}

/// A stored row as read: job id, format, record.
type Row3 = (i64, i64, Vec<u8>);

pub struct PostgresHistory {
    shown: String,
    requests: mpsc::UnboundedSender<Request>,
}

impl PostgresHistory {
    /// Connects (creating the tables if needed) and refuses a database of a newer schema.
    pub fn open(target: &PgTarget) -> Result<Self, HistoryError> {
        let shown = format!(
            "postgresql://{}@{}:{}/{}",
            target.user, target.host, target.port, target.database
        );
        let fail = |reason: String| HistoryError::Server {
            path: shown.clone(),
            reason,
        };
        let mut options = PgConnectOptions::new()
            .host(&target.host)
            .port(target.port)
            .username(&target.user)
            .database(&target.database);
        if let Some(password) = &target.password {
            options = options.password(password);
        }
        let (requests, mut incoming) = mpsc::unbounded_channel::<Request>();
        let (ready_tx, ready_rx) = std_mpsc::channel::<Result<(), HistoryError>>();
        let thread_shown = shown.clone();
        std::thread::Builder::new()
            .name("history-pg".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = ready_tx.send(Err(HistoryError::Server {
                            path: thread_shown,
                            reason: e.to_string(),
                        }));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let pool = match connect(options, &thread_shown).await {
                        Ok(pool) => pool,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return;
                        }
                    };
                    let _ = ready_tx.send(Ok(()));
                    // Requests run concurrently (a long query does not hold up a write); writes arrive one at a
                    // time, since the state machine waits for each.
                    while let Some(request) = incoming.recv().await {
                        tokio::spawn(serve(pool.clone(), request));
                    }
                });
            })
            .map_err(|e| fail(e.to_string()))?;
        ready_rx
            .recv()
            .map_err(|_| fail("the database thread stopped".into()))??;
        Ok(PostgresHistory { shown, requests })
    }

    fn fail(&self, reason: String) -> HistoryError {
        HistoryError::Server {
            path: self.shown.clone(),
            reason,
        }
    }

    fn ask<T>(
        &self,
        make: impl FnOnce(std_mpsc::Sender<Result<T, String>>) -> Request,
    ) -> Result<T, HistoryError> {
        let (tx, rx) = std_mpsc::channel();
        self.requests
            .send(make(tx))
            .map_err(|_| self.fail("the database thread stopped".into()))?;
        rx.recv()
            .map_err(|_| self.fail("the database thread stopped".into()))?
            .map_err(|e| self.fail(e))
    }
}

async fn connect(options: PgConnectOptions, shown: &str) -> Result<PgPool, HistoryError> {
    let fail = |e: sqlx::Error| HistoryError::Server {
        path: shown.to_string(),
        reason: e.to_string(),
    };
    let pool = PgPoolOptions::new()
        .max_connections(4)
        .connect_with(options)
        .await
        .map_err(fail)?;
    let mut tx = pool.begin().await.map_err(fail)?;
    // Controllers starting together create the tables once.
    sqlx::query("SELECT pg_advisory_xact_lock(7316823)")
        .execute(&mut *tx)
        .await
        .map_err(fail)?;
    for statement in SCHEMA {
        sqlx::query(statement)
            .execute(&mut *tx)
            .await
            .map_err(fail)?;
    }
    let found: Option<i64> =
        sqlx::query_scalar("SELECT value FROM meta WHERE key = 'schema_version'")
            .fetch_optional(&mut *tx)
            .await
            .map_err(fail)?;
    match found {
        Some(found) if found > SCHEMA_VERSION => {
            return Err(HistoryError::TooNew {
                path: shown.to_string(),
                found,
                supported: SCHEMA_VERSION,
            })
        }
        Some(_) => {}
        None => {
            sqlx::query("INSERT INTO meta (key, value) VALUES ('schema_version', $1)")
                .bind(SCHEMA_VERSION)
                .execute(&mut *tx)
                .await
                .map_err(fail)?;
        }
    }
    tx.commit().await.map_err(fail)?;
    Ok(pool)
}

async fn serve(pool: PgPool, request: Request) {
    match request {
        Request::Write(ops, last, reply) => {
            let _ = reply.send(write(&pool, &ops, last).await.map_err(|e| e.to_string()));
        }
        Request::Query(query, reply) => {
            let _ = reply.send(select(&pool, &query).await.map_err(|e| e.to_string()));
        }
        Request::LastApplied(reply) => {
            let value = sqlx::query_scalar("SELECT value FROM meta WHERE key = 'last_applied'")
                .fetch_optional(&pool)
                .await
                .map(Option::unwrap_or_default)
                .map_err(|e| e.to_string());
            let _ = reply.send(value);
        }
    }
}

async fn write(pool: &PgPool, ops: &[HistoryOp], last: u64) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    let mut span = 0i64;
    for op in ops {
        match op {
            HistoryOp::Upsert(record) => {
                let blob =
                    serde_json::to_vec(record).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
                if let Some(end) = record.end {
                    span = span.max(end.saturating_sub(record.submit));
                }
                sqlx::query(
                    "INSERT INTO jobs (job_id, submit, user_id, account, start_time, end_time, state, name, \
                     partition, array_job_id, format, record) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                     ON CONFLICT (job_id, submit) DO UPDATE SET user_id = excluded.user_id, \
                     account = excluded.account, start_time = excluded.start_time, end_time = excluded.end_time, \
                     state = excluded.state, name = excluded.name, partition = excluded.partition, \
                     array_job_id = excluded.array_job_id, format = excluded.format, record = excluded.record",
                )
                .bind(i64::from(record.job_id))
                .bind(record.submit)
                .bind(i64::from(record.user_id))
                .bind(record.account.as_deref())
                .bind(record.start)
                .bind(record.end)
                .bind(record.state.long_name())
                .bind(&record.name)
                .bind(&record.partition)
                .bind(record.array_job_id.map(i64::from))
                .bind(RECORD_FORMAT)
                .bind(blob)
                .execute(&mut *tx)
                .await?;
            }
            HistoryOp::DeleteEndedBefore(before) => {
                sqlx::query("DELETE FROM jobs WHERE end_time < $1")
                    .bind(before)
                    .execute(&mut *tx)
                    .await?;
            }
        }
    }
    sqlx::query(
        "INSERT INTO meta (key, value) VALUES ('max_span', $1) \
         ON CONFLICT (key) DO UPDATE SET value = GREATEST(meta.value, excluded.value)",
    )
    .bind(span)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO meta (key, value) VALUES ('last_applied', $1) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(i64::try_from(last).unwrap_or(i64::MAX))
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

async fn select(pool: &PgPool, query: &HistoryQuery) -> Result<Vec<Row3>, sqlx::Error> {
    let rows = if let Some(ids) = &query.job_ids {
        let ids: Vec<i64> = ids.iter().map(|&id| i64::from(id)).collect();
        sqlx::query(
            "SELECT job_id, format, record FROM jobs WHERE job_id = ANY($1) OR array_job_id = ANY($1)",
        )
        .bind(ids)
        .fetch_all(pool)
        .await?
    } else if let Some((from, to)) = query.window {
        let span: i64 = sqlx::query_scalar("SELECT value FROM meta WHERE key = 'max_span'")
            .fetch_optional(pool)
            .await?
            .unwrap_or_default();
        sqlx::query(
            "SELECT job_id, format, record FROM jobs WHERE end_time >= $1 AND end_time <= $2 AND submit <= $3 \
             UNION ALL SELECT job_id, format, record FROM jobs WHERE end_time IS NULL AND submit <= $3",
        )
        .bind(from)
        .bind(to.saturating_add(span))
        .bind(to)
        .fetch_all(pool)
        .await?
    } else if let Some(users) = &query.user_ids {
        let users: Vec<i64> = users.iter().map(|&id| i64::from(id)).collect();
        sqlx::query("SELECT job_id, format, record FROM jobs WHERE user_id = ANY($1)")
            .bind(users)
            .fetch_all(pool)
            .await?
    } else {
        sqlx::query("SELECT job_id, format, record FROM jobs")
            .fetch_all(pool)
            .await?
    };
    rows.iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
        .collect()
}

impl HistoryStore for PostgresHistory {
    fn write(&self, ops: &[HistoryOp], last_applied: u64) -> Result<(), HistoryError> {
        self.ask(|reply| Request::Write(ops.to_vec(), last_applied, reply))
    }

    fn query(&self, query: &HistoryQuery) -> Result<Vec<JobAccounting>, HistoryError> {
        let rows = self.ask(|reply| Request::Query(query.clone(), reply))?;
        let mut out = Vec::with_capacity(rows.len());
        for (job_id, format, blob) in rows {
            let job_id = u32::try_from(job_id).unwrap_or_default();
            out.push(super::decode_record(&self.shown, job_id, format, &blob)?);
        }
        Ok(super::narrow(query, out))
    }

    fn last_applied(&self) -> Result<u64, HistoryError> {
        let value = self.ask(Request::LastApplied)?;
        Ok(u64::try_from(value).unwrap_or_default())
    }
}
