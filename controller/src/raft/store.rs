//! The raft store: the log in append-only segment files ([`LogFiles`]), and the vote, the purge point, the
//! committed index and the snapshot in a redb database beside it, all driven by one writer thread.
//!
//! openraft calls `append` once per client write. Giving each call its own fsync would cap the
//! controller at one write per disk flush, so every mutation is queued to a single thread that
//! drains whatever has piled up, runs it as one [`Batch`] and makes it durable (one `fdatasync` of
//! the log, and a redb commit only when the batch changed the database) before any completion
//! callback runs. The queue also keeps operations in submission order, and reads go through it too
//! so they see every mutation submitted before them, flushed or not.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use redb::{
    Database, Durability, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction,
};
use tokio::sync::oneshot;

use super::error::StoreError;
use super::log_files::LogFiles;

/// Log entries by index; values are `codec` entry records. Only stores of format 1 kept the log here; opening one
/// moves its entries to the segment files.
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

/// The log in redb's `LOG` table.
const STORE_FORMAT_V1: u8 = 1;
/// The log in segment files beside the database.
const STORE_FORMAT_V2: u8 = 2;

/// Upper bound on operations folded into one batch, so one commit cannot grow unbounded.
const MAX_BATCH_OPS: usize = 4096;

/// How long a new committed index may stay in memory only. It is a restart shortcut (openraft re-applies what a
/// lost value leaves out once the log is committed again), so it is not worth a sync of its own per write.
const COMMITTED_FLUSH_INTERVAL: Duration = Duration::from_secs(1);

type WriteJob = Box<dyn FnOnce(&mut Batch<'_>) -> Result<(), StoreError> + Send>;
type Done = Box<dyn FnOnce(Result<(), StoreError>) + Send>;
type ReadJob = Box<dyn FnOnce(&mut Batch<'_>) + Send>;

enum Op {
    Write {
        job: WriteJob,
        done: Done,
    },
    Read(ReadJob),
    /// The committed index in [`CommittedSlot`] has changed since the database last had it: write it within
    /// [`COMMITTED_FLUSH_INTERVAL`].
    CommittedDue,
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
    committed: SharedCommitted,
    fault: StorageFault,
}

/// Why the store stopped taking writes: set by the writer thread when a batch's write, sync or commit fails (disk
/// full, I/O error), before any of the batch's operations is answered. What is on disk after such a failure is only
/// known again after a restart, so the store never clears it.
#[derive(Clone, Default)]
pub(crate) struct StorageFault(Arc<Mutex<Option<String>>>);

impl StorageFault {
    /// A plain value set once, so a panic elsewhere cannot leave it half changed.
    fn lock(&self) -> MutexGuard<'_, Option<String>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn get(&self) -> Option<String> {
        self.lock().clone()
    }

    fn set(&self, reason: String) {
        let mut slot = self.lock();
        if slot.is_none() {
            tracing::error!(
                error = %reason,
                "the raft store could not write: this controller stops taking writes"
            );
            *slot = Some(reason);
        }
    }
}

/// The newest committed index (encoded), shared by the handles and the writer. openraft saves it on every commit;
/// saving is a store into memory, and only a change from written to unwritten wakes the writer (at most once per
/// [`COMMITTED_FLUSH_INTERVAL`]), where a message per commit woke it on every write.
#[derive(Default)]
struct CommittedSlot {
    latest: Option<Vec<u8>>,
    /// `latest` differs from what the database has, and the writer has been told.
    unwritten: bool,
}

#[derive(Clone, Default)]
struct SharedCommitted(Arc<Mutex<CommittedSlot>>);

impl SharedCommitted {
    /// The slot holds two plain fields set together, so a panic elsewhere cannot leave it half changed.
    fn lock(&self) -> MutexGuard<'_, CommittedSlot> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// redb's page cache. Its default (1 GiB) kept every snapshot page written since start in memory: with 100,000
/// jobs that was more than the whole job state. The database is read back only to restart, so a small cache
/// costs nothing on the submit path.
const STORE_CACHE_BYTES: usize = 32 << 20;

/// The directory of the log's segment files for the database at `path`: `raft.redb` keeps its log in `raft.wal/`.
pub(crate) fn log_dir(path: &Path) -> PathBuf {
    path.with_extension("wal")
}

impl Store {
    /// Opens (creating if needed) the database at `path` and the log beside it, and starts the writer thread.
    pub(crate) fn open(path: &Path) -> Result<Self, redb::Error> {
        let db = Database::builder()
            .set_cache_size(STORE_CACHE_BYTES)
            .create(path)?;
        let log = open_log(&db, &log_dir(path))?;
        let (tx, rx) = mpsc::channel();
        let committed = SharedCommitted::default();
        let fault = StorageFault::default();
        let writer = Writer::new(db, log, committed.clone(), fault.clone());
        let thread = std::thread::Builder::new()
            .name("spur-raft-store".into())
            .spawn(move || run(writer, rx))?;
        Ok(Self {
            handle: StoreHandle {
                tx,
                committed,
                fault,
            },
            thread: Some(thread),
        })
    }

    pub(crate) fn handle(&self) -> StoreHandle {
        self.handle.clone()
    }

    /// Why the store stopped taking writes, if it has (see [`StorageFault`]).
    pub(crate) fn fault(&self) -> Option<String> {
        self.handle.fault()
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
    /// Why the store stopped taking writes, if it has (see [`StorageFault`]).
    pub(crate) fn fault(&self) -> Option<String> {
        self.fault.get()
    }

    /// Queues a mutation; `done` runs after the batch holding it is durable (or has failed).
    pub(crate) fn submit(&self, job: WriteJob, done: Done) -> Result<(), StoreError> {
        self.tx
            .send(Op::Write { job, done })
            .map_err(|_| StoreError::Closed)
    }

    /// Records a new committed index (encoded). Reads see it at once; it reaches the disk within
    /// [`COMMITTED_FLUSH_INTERVAL`] or at close, and a crash before that keeps an older one.
    pub(crate) fn save_committed(&self, bytes: Vec<u8>) -> Result<(), StoreError> {
        let mut slot = self.committed.lock();
        slot.latest = Some(bytes);
        if !slot.unwritten {
            slot.unwritten = true;
            self.tx
                .send(Op::CommittedDue)
                .map_err(|_| StoreError::Closed)?;
        }
        Ok(())
    }

    /// Queues a mutation and waits until it is durable.
    pub(crate) async fn write(
        &self,
        job: impl FnOnce(&mut Batch<'_>) -> Result<(), StoreError> + Send + 'static,
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
        f: impl FnOnce(&mut Batch<'_>) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (tx, rx) = oneshot::channel();
        let job: ReadJob = Box::new(move |batch| {
            let _ = tx.send(f(batch));
        });
        self.tx
            .send(Op::Read(job))
            .map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?
    }
}

/// Checks the database's format, creates its tables, and opens the log; a format 1 store's log is moved out of
/// the database into segment files first.
fn open_log(db: &Database, dir: &Path) -> Result<LogFiles, redb::Error> {
    let txn = db.begin_write()?;
    txn.open_table(LOG)?;
    txn.open_table(SNAPSHOT)?;
    let format = {
        let mut meta = txn.open_table(META)?;
        let existing = meta.get(KEY_STORE_FORMAT)?.map(|v| v.value().to_vec());
        match existing.as_deref() {
            None => {
                meta.insert(KEY_STORE_FORMAT, [STORE_FORMAT_V2].as_slice())?;
                STORE_FORMAT_V2
            }
            Some([v @ (STORE_FORMAT_V1 | STORE_FORMAT_V2)]) => *v,
            Some(_) => {
                return Err(redb::Error::Corrupted(format!(
                    "raft store format {existing:?} is not supported by this build (expected [{STORE_FORMAT_V2}])"
                )));
            }
        }
    };
    txn.commit()?;
    let floor = purge_floor(db)?;
    let mut log = LogFiles::open(dir, floor).map_err(redb::Error::Io)?;
    if format == STORE_FORMAT_V1 {
        migrate_v1_log(db, &mut log)?;
    }
    Ok(log)
}

/// The first log index not purged, from the purge point in the database.
fn purge_floor(db: &Database) -> Result<u64, redb::Error> {
    let txn = db.begin_read()?;
    let meta = txn.open_table(META)?;
    let Some(bytes) = meta.get(KEY_PURGED)?.map(|v| v.value().to_vec()) else {
        return Ok(0);
    };
    let purged =
        super::codec::decode_log_id(&bytes).map_err(|e| redb::Error::Corrupted(e.to_string()))?;
    Ok(purged.map_or(0, |id| id.index.saturating_add(1)))
}

/// Moves a format 1 store's log entries into segment files, then empties its table and marks the store format 2 in
/// one durable commit. A crash before that commit leaves the table as it was, and the move starts over.
fn migrate_v1_log(db: &Database, log: &mut LogFiles) -> Result<(), redb::Error> {
    log.clear().map_err(redb::Error::Io)?;
    let entries: Vec<(u64, Vec<u8>)> = {
        let txn = db.begin_read()?;
        let table = txn.open_table(LOG)?;
        table
            .iter()?
            .map(|item| item.map(|(k, v)| (k.value(), v.value().to_vec())))
            .collect::<Result<_, _>>()?
    };
    let as_db_error = |e: StoreError| redb::Error::Corrupted(format!("moving the raft log: {e}"));
    log.append(&entries).map_err(as_db_error)?;
    log.sync().map_err(as_db_error)?;
    let txn = db.begin_write()?;
    txn.open_table(LOG)?.retain(|_, _| false)?;
    txn.open_table(META)?
        .insert(KEY_STORE_FORMAT, [STORE_FORMAT_V2].as_slice())?;
    txn.commit()?;
    tracing::info!(
        entries = entries.len(),
        "moved the raft log out of the database into segment files"
    );
    Ok(())
}

/// What the writer thread owns between batches.
struct Writer {
    db: Database,
    log: LogFiles,
    /// The committed index as last reported.
    committed: SharedCommitted,
    /// Since when the database has lacked the newest committed index, if it does.
    committed_due_since: Option<Instant>,
    fault: StorageFault,
}

impl Writer {
    fn new(db: Database, log: LogFiles, committed: SharedCommitted, fault: StorageFault) -> Self {
        Self {
            db,
            log,
            committed,
            committed_due_since: None,
            fault,
        }
    }

    fn committed_due(&mut self) {
        self.committed_due_since.get_or_insert_with(Instant::now);
    }

    /// How long the writer may wait for work before the committed index is due on disk.
    fn idle_timeout(&self) -> Option<Duration> {
        self.committed_due_since
            .map(|since| COMMITTED_FLUSH_INTERVAL.saturating_sub(since.elapsed()))
    }

    /// Writes the newest committed index if the database lacks it. A save that lands while this runs marks the slot
    /// unwritten again and is written by the next flush.
    fn flush_committed(&mut self) {
        let bytes = {
            let mut slot = self.committed.lock();
            if self.committed_due_since.is_none() && !slot.unwritten {
                return;
            }
            slot.unwritten = false;
            slot.latest.clone()
        };
        let Some(bytes) = bytes else {
            self.committed_due_since = None;
            return;
        };
        let result = begin(&self.db, Durability::Immediate).and_then(|txn| {
            put_meta_in(&txn, KEY_COMMITTED, &bytes)?;
            txn.commit().map_err(StoreError::db)
        });
        match result {
            Ok(()) => self.committed_due_since = None,
            Err(e) => {
                // Not needed for safety (see COMMITTED_FLUSH_INTERVAL), but the disk refused a write: the next
                // that matters would fail the same way, so the controller stops taking writes now.
                self.fault.set(e.to_string());
                self.committed_due_since = Some(Instant::now());
            }
        }
    }
}

/// The context a batch's operations run in: the log, and a database transaction opened on first use.
pub(crate) struct Batch<'a> {
    db: &'a Database,
    txn: Option<WriteTransaction>,
    log: &'a mut LogFiles,
    committed: &'a SharedCommitted,
    /// The running operation is a write: a transaction it opens is committed durably.
    writing: bool,
    db_written: bool,
    log_written: bool,
}

impl Batch<'_> {
    /// The batch's database transaction.
    pub(crate) fn txn(&mut self) -> Result<&WriteTransaction, StoreError> {
        if self.writing {
            self.db_written = true;
        }
        if self.txn.is_none() {
            self.txn = Some(begin(self.db, Durability::Immediate)?);
        }
        self.txn
            .as_ref()
            .ok_or_else(|| StoreError::corrupt("raft store", "no transaction"))
    }

    pub(crate) fn log(&mut self) -> &mut LogFiles {
        if self.writing {
            self.log_written = true;
        }
        self.log
    }

    /// The committed index as last saved (encoded), if any.
    pub(crate) fn committed(&mut self) -> Result<Option<Vec<u8>>, StoreError> {
        let latest = self.committed.lock().latest.clone();
        match latest {
            Some(bytes) => Ok(Some(bytes)),
            None => get_meta(self, KEY_COMMITTED),
        }
    }
}

fn run(mut writer: Writer, rx: mpsc::Receiver<Op>) {
    let mut batch = Vec::new();
    loop {
        let first = match writer.idle_timeout() {
            None => match rx.recv() {
                Ok(op) => op,
                Err(_) => break,
            },
            Some(wait) => match rx.recv_timeout(wait) {
                Ok(op) => op,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    writer.flush_committed();
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            },
        };
        batch.push(first);
        while batch.len() < MAX_BATCH_OPS {
            match rx.try_recv() {
                Ok(op) => batch.push(op),
                Err(_) => break,
            }
        }
        if !run_batch(&mut writer, &mut batch) {
            break;
        }
    }
    writer.flush_committed();
    // Operations queued after Close find the receiver gone and report `Closed`.
}

fn begin(db: &Database, durability: Durability) -> Result<WriteTransaction, StoreError> {
    let mut txn = db.begin_write().map_err(StoreError::db)?;
    txn.set_durability(durability).map_err(StoreError::db)?;
    Ok(txn)
}

/// Runs one batch; returns false once a Close has been seen.
fn run_batch(writer: &mut Writer, ops: &mut Vec<Op>) -> bool {
    let mut keep_running = true;
    let mut committed_due = false;
    let mut dones = Vec::new();
    let mut failure = None;
    writer.log.begin_batch();
    let mut batch = Batch {
        db: &writer.db,
        txn: None,
        log: &mut writer.log,
        committed: &writer.committed,
        writing: false,
        db_written: false,
        log_written: false,
    };
    for op in ops.drain(..) {
        match op {
            Op::Write { job, done } => {
                // After one failure the batch is abandoned, so later writes are skipped.
                if failure.is_none() {
                    batch.writing = true;
                    if let Err(e) = job(&mut batch) {
                        failure = Some(e);
                    }
                    batch.writing = false;
                }
                dones.push(done);
            }
            Op::Read(job) => job(&mut batch),
            Op::CommittedDue => committed_due = true,
            Op::Close => keep_running = false,
        }
    }
    let Batch {
        txn,
        db_written,
        log_written,
        ..
    } = batch;
    let result = match failure {
        Some(e) => {
            if let Some(txn) = txn {
                let _ = txn.abort();
            }
            writer.log.keep_doomed();
            if let Err(undo) = writer.log.undo_appends() {
                tracing::error!(error = %undo, "could not take back the appends of a failed raft store batch");
            }
            Err(e)
        }
        None => {
            let committed = commit_batch(&mut writer.log, txn, db_written, log_written);
            // A sync (or the database's commit) that failed leaves the batch's records in the file, where the
            // next start would read them back as entries nobody was told about: take them back as for a failed
            // write (the cut reaches the page cache even when the disk refuses to sync it).
            if committed.is_err() {
                if let Err(undo) = writer.log.undo_appends() {
                    tracing::error!(error = %undo, "could not take back the appends of a raft store batch that did not sync");
                }
            }
            committed
        }
    };
    if committed_due {
        writer.committed_due();
    }
    // Reported before any operation of the batch is answered, so whoever hears of the failed write can already
    // see why the controller stopped.
    if let Err(e @ (StoreError::Log(_) | StoreError::Db(_))) = &result {
        writer.fault.set(e.to_string());
    }
    if let Some(reason) = writer.log.failure() {
        writer.fault.set(format!("raft log file error: {reason}"));
    }
    for done in dones {
        done(result.clone());
    }
    keep_running
}

/// Makes a batch durable: the log's appends first, then the database's changes, then the unlinking of purged
/// segments (only once the purge point is durable).
fn commit_batch(
    log: &mut LogFiles,
    txn: Option<WriteTransaction>,
    db_written: bool,
    log_written: bool,
) -> Result<(), StoreError> {
    if log_written {
        if let Err(e) = log.sync() {
            log.keep_doomed();
            return Err(e);
        }
    }
    if let Some(txn) = txn {
        if db_written {
            if let Err(e) = txn.commit().map_err(StoreError::db) {
                log.keep_doomed();
                return Err(e);
            }
        } else {
            txn.abort().map_err(StoreError::db)?;
        }
    }
    log.finish_purge()
}

// Primitive jobs shared by the log store and the state machine.

fn put_meta_in(txn: &WriteTransaction, key: &str, value: &[u8]) -> Result<(), StoreError> {
    let mut table = txn.open_table(META).map_err(StoreError::db)?;
    table.insert(key, value).map_err(StoreError::db)?;
    Ok(())
}

pub(crate) fn put_meta(batch: &mut Batch<'_>, key: &str, value: &[u8]) -> Result<(), StoreError> {
    put_meta_in(batch.txn()?, key, value)
}

pub(crate) fn get_meta(batch: &mut Batch<'_>, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
    let table = batch.txn()?.open_table(META).map_err(StoreError::db)?;
    let value = table.get(key).map_err(StoreError::db)?;
    Ok(value.map(|v| v.value().to_vec()))
}

pub(crate) fn put_entries(
    batch: &mut Batch<'_>,
    entries: &[(u64, Vec<u8>)],
) -> Result<(), StoreError> {
    batch.log().append(entries)
}

/// Entries with `start <= index < end` (`end == None`: to the end of the log), in order.
pub(crate) fn get_entries(
    batch: &mut Batch<'_>,
    start: u64,
    end: Option<u64>,
) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
    batch.log.read(start, end)
}

pub(crate) fn last_entry(batch: &mut Batch<'_>) -> Result<Option<Vec<u8>>, StoreError> {
    Ok(batch.log.last()?.map(|(_, bytes)| bytes))
}

/// Removes entries with `index >= from`.
pub(crate) fn remove_from(batch: &mut Batch<'_>, from: u64) -> Result<(), StoreError> {
    batch.log().truncate_from(from)
}

/// Records `purged` (encoded) as the purge point and forgets the entries with `index <= upto`; their segments
/// are unlinked once the purge point is durable.
pub(crate) fn purge_upto(
    batch: &mut Batch<'_>,
    upto: u64,
    purged: &[u8],
) -> Result<(), StoreError> {
    put_meta(batch, KEY_PURGED, purged)?;
    batch.log().purge_upto(upto)
}

pub(crate) fn put_snapshot(
    batch: &mut Batch<'_>,
    meta: &[u8],
    data: &[u8],
) -> Result<(), StoreError> {
    let mut table = batch.txn()?.open_table(SNAPSHOT).map_err(StoreError::db)?;
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
pub(crate) fn get_snapshot(batch: &mut Batch<'_>) -> Result<Option<StoredSnapshot>, StoreError> {
    let table = batch.txn()?.open_table(SNAPSHOT).map_err(StoreError::db)?;
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
