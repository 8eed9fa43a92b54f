//! The embedded history store: one SQLite file (`history.sqlite`) in the controller's state directory, linked
//! from the system's libsqlite3.
//!
//! Schema (version 1; later versions only add, and a controller refuses a file newer than it understands):
//! - `meta(key, value)`: `schema_version`, `last_applied` (the state machine's sequence number of the last written
//!   batch) and `max_span` (the longest `end - submit` of any record, which bounds the window query's scan);
//! - `jobs`: one row per (job id, submit time), so a job id used again after a state reset never replaces the
//!   older job, with the columns queries narrow by (user, account, start, end, state, name, partition, array id)
//!   and the whole `JobAccounting` as `record` in the format `format` names (1: its serde JSON, whose fields are
//!   themselves append-only).
//!
//! WAL journal with `synchronous=FULL`: a committed batch survives a power loss, so a record never leaves the
//! state's handoff buffer before it is on disk here.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rusqlite::{params, params_from_iter, Connection, OptionalExtension};
use spur_core::model::accounting::JobAccounting;

use super::{HistoryError, HistoryOp, HistoryQuery, HistoryStore};

/// The schema this build writes and understands.
pub const SCHEMA_VERSION: i64 = 1;
/// The record encoding this build writes (serde JSON of `JobAccounting`).
pub const RECORD_FORMAT: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
    job_id INTEGER NOT NULL,
    submit INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    account TEXT,
    start_time INTEGER,
    end_time INTEGER,
    state TEXT NOT NULL,
    name TEXT NOT NULL,
    partition TEXT NOT NULL,
    array_job_id INTEGER,
    format INTEGER NOT NULL,
    record BLOB NOT NULL,
    PRIMARY KEY (job_id, submit)
);
CREATE INDEX IF NOT EXISTS jobs_end ON jobs (end_time);
CREATE INDEX IF NOT EXISTS jobs_submit ON jobs (submit);
CREATE INDEX IF NOT EXISTS jobs_user ON jobs (user_id, end_time);
CREATE INDEX IF NOT EXISTS jobs_array ON jobs (array_job_id) WHERE array_job_id IS NOT NULL;
";

/// Most ids bound in one `IN (...)` list (SQLite's default limit on parameters is 32766).
const IDS_PER_QUERY: usize = 500;

pub struct SqliteHistory {
    path: PathBuf,
    /// The writer (the state machine's batch hook) and meta reads.
    conn: Mutex<Connection>,
    /// Idle read connections: queries read a WAL snapshot of their own, so a long sacct never holds up a batch's
    /// write (which runs under the state's write lock).
    readers: Mutex<Vec<Connection>>,
}

/// Idle read connections kept for reuse; more concurrent queries open and then close their own.
const IDLE_READERS: usize = 4;

impl SqliteHistory {
    /// Opens (creating if needed) the store at `path`, made readable by its owner only (it holds every user's
    /// job names and working directories). Refuses a store of a newer schema.
    pub fn open(path: &Path) -> Result<Self, HistoryError> {
        let shown = path.display().to_string();
        let err = |source| HistoryError::Sqlite {
            path: shown.clone(),
            source,
        };
        let conn = Connection::open(path).map_err(err)?;
        restrict_mode(path);
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            .map_err(err)?;
        conn.execute_batch(SCHEMA).map_err(err)?;
        let found: Option<i64> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'schema_version'",
                [],
                |row| row.get(0),
            )
            .optional()
            .map_err(err)?;
        match found {
            Some(found) if found > SCHEMA_VERSION => {
                return Err(HistoryError::TooNew {
                    path: shown,
                    found,
                    supported: SCHEMA_VERSION,
                })
            }
            Some(_) => {}
            None => {
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', ?1)",
                    [SCHEMA_VERSION],
                )
                .map_err(err)?;
            }
        }
        Ok(SqliteHistory {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// A read connection: an idle one, or a new one.
    fn reader(&self) -> Result<Connection, HistoryError> {
        let idle = self
            .readers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        match idle {
            Some(conn) => Ok(conn),
            None => Connection::open_with_flags(
                &self.path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                    | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|e| self.sql_err(e)),
        }
    }

    fn put_back(&self, conn: Connection) {
        let mut idle = self
            .readers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if idle.len() < IDLE_READERS {
            idle.push(conn);
        }
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the connection leaves no half-done transaction behind (rusqlite rolls back on
        // drop), so the connection is still usable.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn sql_err(&self, source: rusqlite::Error) -> HistoryError {
        HistoryError::Sqlite {
            path: self.path.display().to_string(),
            source,
        }
    }

    fn decode(&self, job_id: u32, format: i64, blob: &[u8]) -> Result<JobAccounting, HistoryError> {
        super::decode_record(&self.path.display().to_string(), job_id, format, blob)
    }

    /// Runs `sql` (selecting job_id, format, record) with `args` and decodes every row.
    fn select(
        &self,
        conn: &Connection,
        sql: &str,
        args: &[i64],
        out: &mut Vec<JobAccounting>,
    ) -> Result<(), HistoryError> {
        let mut stmt = conn.prepare_cached(sql).map_err(|e| self.sql_err(e))?;
        let mut rows = stmt
            .query(params_from_iter(args.iter()))
            .map_err(|e| self.sql_err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.sql_err(e))? {
            let job_id: u32 = row.get(0).map_err(|e| self.sql_err(e))?;
            let format: i64 = row.get(1).map_err(|e| self.sql_err(e))?;
            let blob: Vec<u8> = row.get(2).map_err(|e| self.sql_err(e))?;
            out.push(self.decode(job_id, format, &blob)?);
        }
        Ok(())
    }

    fn meta(&self, conn: &Connection, key: &str) -> Result<i64, HistoryError> {
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
            row.get(0)
        })
        .optional()
        .map(Option::unwrap_or_default)
        .map_err(|e| self.sql_err(e))
    }
}

/// The store holds every user's job names and working directories: owner only, as the Raft state beside it.
fn restrict_mode(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)) {
        tracing::warn!("cannot make {} private (0600): {e}", path.display());
    }
}

fn placeholders(n: usize) -> String {
    vec!["?"; n].join(",")
}

impl HistoryStore for SqliteHistory {
    fn write(&self, ops: &[HistoryOp], last_applied: u64) -> Result<(), HistoryError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql_err(e))?;
        {
            let mut upsert = tx
                .prepare_cached(
                    "INSERT INTO jobs (job_id, submit, user_id, account, start_time, end_time, state, name, \
                     partition, array_job_id, format, record) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
                     ON CONFLICT (job_id, submit) DO UPDATE SET user_id = excluded.user_id, \
                     account = excluded.account, start_time = excluded.start_time, end_time = excluded.end_time, \
                     state = excluded.state, name = excluded.name, partition = excluded.partition, \
                     array_job_id = excluded.array_job_id, format = excluded.format, record = excluded.record",
                )
                .map_err(|e| self.sql_err(e))?;
            let mut delete = tx
                .prepare_cached("DELETE FROM jobs WHERE end_time < ?1")
                .map_err(|e| self.sql_err(e))?;
            let mut span = 0i64;
            for op in ops {
                match op {
                    HistoryOp::Upsert(record) => {
                        let blob =
                            serde_json::to_vec(record).map_err(|e| HistoryError::Decode {
                                path: self.path.display().to_string(),
                                job_id: record.job_id,
                                reason: e.to_string(),
                            })?;
                        if let Some(end) = record.end {
                            span = span.max(end.saturating_sub(record.submit));
                        }
                        upsert
                            .execute(params![
                                record.job_id,
                                record.submit,
                                record.user_id,
                                record.account,
                                record.start,
                                record.end,
                                record.state.long_name(),
                                record.name,
                                record.partition,
                                record.array_job_id,
                                RECORD_FORMAT,
                                blob,
                            ])
                            .map_err(|e| self.sql_err(e))?;
                    }
                    HistoryOp::DeleteEndedBefore(before) => {
                        delete.execute([before]).map_err(|e| self.sql_err(e))?;
                    }
                }
            }
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('max_span', ?1) \
                 ON CONFLICT (key) DO UPDATE SET value = max(value, excluded.value)",
                [span],
            )
            .map_err(|e| self.sql_err(e))?;
            // SQLite integers are signed: a sequence number past i64::MAX (never in practice) is kept saturated.
            let last = i64::try_from(last_applied).unwrap_or(i64::MAX);
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('last_applied', ?1) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [last],
            )
            .map_err(|e| self.sql_err(e))?;
        }
        tx.commit().map_err(|e| self.sql_err(e))
    }

    fn query(&self, query: &HistoryQuery) -> Result<Vec<JobAccounting>, HistoryError> {
        let conn = self.reader()?;
        let result = self.query_on(&conn, query);
        self.put_back(conn);
        result
    }

    fn last_applied(&self) -> Result<u64, HistoryError> {
        let conn = self.conn();
        let value = self.meta(&conn, "last_applied")?;
        Ok(u64::try_from(value).unwrap_or_default())
    }
}

impl SqliteHistory {
    fn query_on(
        &self,
        conn: &Connection,
        query: &HistoryQuery,
    ) -> Result<Vec<JobAccounting>, HistoryError> {
        let mut out = Vec::new();
        // The most selective narrowing first: job ids, then the window, then users; the caller filters the rest.
        if let Some(ids) = &query.job_ids {
            for chunk in ids.chunks(IDS_PER_QUERY) {
                let marks = placeholders(chunk.len());
                let sql = format!(
                    "SELECT job_id, format, record FROM jobs WHERE job_id IN ({marks}) \
                     UNION SELECT job_id, format, record FROM jobs WHERE array_job_id IN ({marks})"
                );
                let args: Vec<i64> = chunk
                    .iter()
                    .chain(chunk.iter())
                    .map(|&id| i64::from(id))
                    .collect();
                self.select(conn, &sql, &args, &mut out)?;
            }
        } else if let Some((from, to)) = query.window {
            // Known during [from, to]: submit <= to and (no end or end >= from). Since end - submit <= max_span,
            // submit <= to also bounds end <= to + max_span, so the scan stays within an index range of end.
            let span = self.meta(conn, "max_span")?;
            let end_bound = to.saturating_add(span);
            self.select(
                conn,
                "SELECT job_id, format, record FROM jobs WHERE end_time >= ?1 AND end_time <= ?2 AND submit <= ?3 \
                 UNION ALL SELECT job_id, format, record FROM jobs WHERE end_time IS NULL AND submit <= ?3",
                &[from, end_bound, to],
                &mut out,
            )?;
        } else if let Some(users) = &query.user_ids {
            for chunk in users.chunks(IDS_PER_QUERY) {
                let sql = format!(
                    "SELECT job_id, format, record FROM jobs WHERE user_id IN ({})",
                    placeholders(chunk.len())
                );
                let args: Vec<i64> = chunk.iter().map(|&id| i64::from(id)).collect();
                self.select(conn, &sql, &args, &mut out)?;
            }
        } else {
            self.select(
                conn,
                "SELECT job_id, format, record FROM jobs",
                &[],
                &mut out,
            )?;
        }
        // Narrow by the parts not used above, so every answer honours the whole query.
        Ok(super::narrow(query, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_do_not_wait_for_the_writer() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SqliteHistory::open(&dir.path().join("history.sqlite")).expect("open");
        let writer = store.conn();
        // The writer is busy (as in a batch's write under the state's lock): a query still answers.
        let records = store.query(&HistoryQuery::default()).expect("query");
        assert!(records.is_empty());
        drop(writer);
    }
}
