//! The redb database under the raft log, the vote and the snapshot, driven by one writer thread.
//!
//! openraft calls `append` once per client write. Giving each call its own fsync would cap the
//! controller at one write per disk flush, so every mutation is queued to a single thread that
//! drains whatever has piled up, applies it in one redb write transaction and commits it with
//! `Durability::Immediate` (fsync) before any completion callback runs. The queue also keeps
//! operations in submission order, and reads go through it too so they see every mutation
//! submitted before them, flushed or not.

use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;

use redb::{Database, Durability, ReadableTable, TableDefinition, WriteTransaction};
use tokio::sync::oneshot;

use super::error::StoreError;

/// Log entries by index; values are `codec` entry records.
pub(crate) const LOG: TableDefinition<u64, &[u8]> = TableDefinition::new("raft_log");
/// Small records: vote, committed and purged log ids, store format.
pub(crate) const META: TableDefinition<&str, &[u8]> = TableDefinition::new("raft_meta");
/// The current snapshot: its metadata and its data, replaced together.
pub(crate) const SNAPSHOT: TableDefinition<&str, &[u8]> = TableDefinition::new("raft_snapshot");

pub(crate) const KEY_VOTE: &str = "vote";
pub(crate) const KEY_COMMITTED: &str = "committed";
pub(crate) const KEY_PURGED: &str = "last_purged";
pub(crate) const KEY_SNAPSHOT_META: &str = "meta";
pub(crate) const KEY_SNAPSHOT_DATA: &str = "data";
const KEY_STORE_FORMAT: &str = "store_format";

/// Version of the table layout above.
const STORE_FORMAT_V1: u8 = 1;

/// Upper bound on operations folded into one transaction, so one commit cannot grow unbounded.
const MAX_BATCH_OPS: usize = 4096;

type WriteJob = Box<dyn FnOnce(&WriteTransaction) -> Result<(), StoreError> + Send>;
type Done = Box<dyn FnOnce(Result<(), StoreError>) + Send>;
type ReadJob = Box<dyn FnOnce(Result<&WriteTransaction, StoreError>) + Send>;

enum Op {
    Write {
        job: WriteJob,
        done: Done,
        /// May stay volatile until the next durable commit.
        lazy: bool,
    },
    Read(ReadJob),
    Close,
}

/// Owner of the store: the only one that can close it.
pub(crate) struct Store {
    handle: StoreHandle,
    thread: Option<JoinHandle<()>>,
}

/// Cheap cloneable access to the store's queue.
#[derive(Clone)]
pub(crate) struct StoreHandle {
    tx: mpsc::Sender<Op>,
}

/// redb's page cache. Its default (1 GiB) kept every log entry and snapshot page written since start in memory:
/// with 100,000 jobs that was more than the whole job state. The log is read back only to replicate to a lagging
/// follower or to restart, so a small cache costs nothing on the submit path.
const STORE_CACHE_BYTES: usize = 32 << 20;

impl Store {
    /// Opens (creating if needed) the database at `path` and starts its writer thread.
    pub(crate) fn open(path: &Path) -> Result<Self, redb::Error> {
        let db = Database::builder()
            .set_cache_size(STORE_CACHE_BYTES)
            .create(path)?;
        init_tables(&db)?;
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("spur-raft-store".into())
            .spawn(move || run(db, rx))?;
        Ok(Self {
            handle: StoreHandle { tx },
            thread: Some(thread),
        })
    }

    pub(crate) fn handle(&self) -> StoreHandle {
        self.handle.clone()
    }

    /// Finishes queued work, closes the database file and waits for the writer thread, so the
    /// same path can be opened again by this process.
    pub(crate) async fn close(mut self) {
        let _ = self.handle.tx.send(Op::Close);
        if let Some(thread) = self.thread.take() {
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // Without an explicit close the thread still ends once every handle is gone.
        let _ = self.handle.tx.send(Op::Close);
    }
}

impl StoreHandle {
    /// Queues a mutation; `done` runs after the batch holding it is durable (or has failed).
    pub(crate) fn submit(&self, job: WriteJob, done: Done) -> Result<(), StoreError> {
        self.tx
            .send(Op::Write {
                job,
                done,
                lazy: false,
            })
            .map_err(|_| StoreError::Closed)
    }

    /// Queues a mutation that need not be durable on its own: it becomes durable with the
    /// next durable commit, and a crash before that loses it. A batch holding only such
    /// writes commits without fsync.
    pub(crate) fn submit_lazy(&self, job: WriteJob) -> Result<(), StoreError> {
        self.tx
            .send(Op::Write {
                job,
                done: Box::new(|_| {}),
                lazy: true,
            })
            .map_err(|_| StoreError::Closed)
    }

    /// Queues a mutation and waits until it is durable.
    pub(crate) async fn write(
        &self,
        job: impl FnOnce(&WriteTransaction) -> Result<(), StoreError> + Send + 'static,
    ) -> Result<(), StoreError> {
        let (tx, rx) = oneshot::channel();
        self.submit(
            Box::new(job),
            Box::new(move |res| {
                let _ = tx.send(res);
            }),
        )?;
        rx.await.map_err(|_| StoreError::Closed)?
    }

    /// Runs `f` after every previously queued operation, seeing their effects.
    pub(crate) async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&WriteTransaction) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (tx, rx) = oneshot::channel();
        let job: ReadJob = Box::new(move |txn| {
            let _ = tx.send(txn.and_then(f));
        });
        self.tx
            .send(Op::Read(job))
            .map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }
}

fn init_tables(db: &Database) -> Result<(), redb::Error> {
    let txn = db.begin_write()?;
    txn.open_table(LOG)?;
    txn.open_table(SNAPSHOT)?;
    {
        let mut meta = txn.open_table(META)?;
        let existing = meta.get(KEY_STORE_FORMAT)?.map(|v| v.value().to_vec());
        match existing.as_deref() {
            None => {
                meta.insert(KEY_STORE_FORMAT, [STORE_FORMAT_V1].as_slice())?;
            }
            Some([STORE_FORMAT_V1]) => {}
            Some(_) => {
                return Err(redb::Error::Corrupted(format!(
                    "raft store format {existing:?} is not supported by this build (expected [{STORE_FORMAT_V1}])"
                )));
            }
        }
    }
    txn.commit()?;
    Ok(())
}

fn run(db: Database, rx: mpsc::Receiver<Op>) {
    let mut batch = Vec::new();
    while let Ok(first) = rx.recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH_OPS {
            match rx.try_recv() {
                Ok(op) => batch.push(op),
                Err(_) => break,
            }
        }
        if !run_batch(&db, &mut batch) {
            break;
        }
    }
    // Operations queued after Close find the receiver gone and report `Closed`.
}

fn begin(db: &Database, durability: Durability) -> Result<WriteTransaction, StoreError> {
    let mut txn = db.begin_write().map_err(StoreError::db)?;
    txn.set_durability(durability).map_err(StoreError::db)?;
    Ok(txn)
}

/// Runs one batch in one transaction; returns false once a Close has been seen.
fn run_batch(db: &Database, batch: &mut Vec<Op>) -> bool {
    let mut keep_running = true;
    let durable = batch
        .iter()
        .any(|op| matches!(op, Op::Write { lazy: false, .. }));
    let durability = if durable {
        Durability::Immediate
    } else {
        Durability::None
    };
    let txn = match begin(db, durability) {
        Ok(txn) => txn,
        Err(e) => {
            for op in batch.drain(..) {
                match op {
                    Op::Write { done, .. } => done(Err(e.clone())),
                    Op::Read(job) => job(Err(e.clone())),
                    Op::Close => keep_running = false,
                }
            }
            return keep_running;
        }
    };
    let mut dones = Vec::new();
    let mut failure = None;
    for op in batch.drain(..) {
        match op {
            Op::Write { job, done, .. } => {
                // After one failure the transaction is abandoned, so later writes are skipped.
                if failure.is_none() {
                    if let Err(e) = job(&txn) {
                        failure = Some(e);
                    }
                }
                dones.push(done);
            }
            Op::Read(job) => job(Ok(&txn)),
            Op::Close => keep_running = false,
        }
    }
    let result = match failure {
        _ if dones.is_empty() => txn.abort().map_err(StoreError::db),
        Some(e) => {
            let _ = txn.abort();
            Err(e)
        }
        None => txn.commit().map_err(StoreError::db),
    };
    for done in dones {
        done(result.clone());
    }
    keep_running
}

// Primitive jobs shared by the log store and the state machine.

pub(crate) fn put_meta(txn: &WriteTransaction, key: &str, value: &[u8]) -> Result<(), StoreError> {
    let mut table = txn.open_table(META).map_err(StoreError::db)?;
    table.insert(key, value).map_err(StoreError::db)?;
    Ok(())
}

pub(crate) fn get_meta(txn: &WriteTransaction, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
    let table = txn.open_table(META).map_err(StoreError::db)?;
    let value = table.get(key).map_err(StoreError::db)?;
    Ok(value.map(|v| v.value().to_vec()))
}

pub(crate) fn put_entries(
    txn: &WriteTransaction,
    entries: &[(u64, Vec<u8>)],
) -> Result<(), StoreError> {
    let mut table = txn.open_table(LOG).map_err(StoreError::db)?;
    for (index, bytes) in entries {
        table
            .insert(*index, bytes.as_slice())
            .map_err(StoreError::db)?;
    }
    Ok(())
}

/// Entries with `start <= index < end` (`end == None`: to the end of the log), in order.
pub(crate) fn get_entries(
    txn: &WriteTransaction,
    start: u64,
    end: Option<u64>,
) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
    let table = txn.open_table(LOG).map_err(StoreError::db)?;
    let range = match end {
        Some(end) => table.range(start..end),
        None => table.range(start..),
    }
    .map_err(StoreError::db)?;
    range
        .map(|item| {
            let (k, v) = item.map_err(StoreError::db)?;
            Ok((k.value(), v.value().to_vec()))
        })
        .collect()
}

pub(crate) fn last_entry(txn: &WriteTransaction) -> Result<Option<Vec<u8>>, StoreError> {
    let table = txn.open_table(LOG).map_err(StoreError::db)?;
    let last = table.last().map_err(StoreError::db)?;
    Ok(last.map(|(_, v)| v.value().to_vec()))
}

/// Removes entries with `index >= from`.
pub(crate) fn remove_from(txn: &WriteTransaction, from: u64) -> Result<(), StoreError> {
    let mut table = txn.open_table(LOG).map_err(StoreError::db)?;
    table
        .retain_in(from.., |_, _| false)
        .map_err(StoreError::db)
}

/// Removes entries with `index <= upto`.
pub(crate) fn remove_upto(txn: &WriteTransaction, upto: u64) -> Result<(), StoreError> {
    let mut table = txn.open_table(LOG).map_err(StoreError::db)?;
    table
        .retain_in(..=upto, |_, _| false)
        .map_err(StoreError::db)
}

pub(crate) fn put_snapshot(
    txn: &WriteTransaction,
    meta: &[u8],
    data: &[u8],
) -> Result<(), StoreError> {
    let mut table = txn.open_table(SNAPSHOT).map_err(StoreError::db)?;
    table
        .insert(KEY_SNAPSHOT_META, meta)
        .map_err(StoreError::db)?;
    table
        .insert(KEY_SNAPSHOT_DATA, data)
        .map_err(StoreError::db)?;
    Ok(())
}

/// The encoded records of the current snapshot.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct StoredSnapshot {
    pub(crate) meta: Vec<u8>,
    pub(crate) data: Vec<u8>,
}

/// The current snapshot, if any.
pub(crate) fn get_snapshot(txn: &WriteTransaction) -> Result<Option<StoredSnapshot>, StoreError> {
    let table = txn.open_table(SNAPSHOT).map_err(StoreError::db)?;
    let get = |key: &str| -> Result<Option<Vec<u8>>, StoreError> {
        let value = table.get(key).map_err(StoreError::db)?;
        Ok(value.map(|v| v.value().to_vec()))
    };
    match (get(KEY_SNAPSHOT_META)?, get(KEY_SNAPSHOT_DATA)?) {
        (Some(meta), Some(data)) => Ok(Some(StoredSnapshot { meta, data })),
        (None, None) => Ok(None),
        _ => Err(StoreError::corrupt(
            "snapshot",
            "metadata and data are not both present",
        )),
    }
}

#[cfg(test)]
mod tests;
