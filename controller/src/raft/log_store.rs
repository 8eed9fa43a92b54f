//! openraft's `RaftLogStorage` over the raft store: the log, the vote and the committed index.

// openraft's trait signatures fix `StorageError` (a large type) as the error type.
#![allow(clippy::result_large_err)]

use std::fmt::Debug;
use std::io;
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use openraft::storage::{LogFlushed, RaftLogStorage};
use openraft::{
    Entry, LogId, LogState, OptionalSend, RaftLogReader, StorageError, StorageIOError, Vote,
};

use super::codec;
use super::error::StoreError;
use super::store::{self, StoreHandle, KEY_PURGED, KEY_VOTE};
use super::types::TypeConfig;
use super::AppStateMachine;

mod recent;

use recent::RecentEntries;

type LogEntry<A> = Entry<TypeConfig<A>>;

/// The raft log of application `A`. Clones share the same store queue, which keeps readers
/// consistent with pending appends, and the same window of recent entries.
pub struct LogStore<A: AppStateMachine> {
    store: StoreHandle,
    recent: Arc<Mutex<RecentEntries<LogEntry<A>>>>,
    _app: PhantomData<fn() -> A>,
}

impl<A: AppStateMachine> Clone for LogStore<A> {
    fn clone(&self) -> Self {
        Self {
            store: self.store.clone(),
            recent: Arc::clone(&self.recent),
            _app: PhantomData,
        }
    }
}

impl<A: AppStateMachine> LogStore<A> {
    pub(crate) fn new(store: StoreHandle) -> Self {
        Self {
            store,
            recent: Arc::new(Mutex::new(RecentEntries::new())),
            _app: PhantomData,
        }
    }

    /// The window is plain data updated in single steps, so a panic elsewhere cannot leave it half changed.
    fn recent(&self) -> MutexGuard<'_, RecentEntries<LogEntry<A>>> {
        self.recent.lock().unwrap_or_else(PoisonError::into_inner)
    }

    async fn read_log_id_meta(&self, key: &'static str) -> Result<Option<LogId<u64>>, StoreError> {
        let bytes = self
            .store
            .read(move |txn| store::get_meta(txn, key))
            .await?;
        match bytes {
            Some(b) => codec::decode_log_id(&b),
            None => Ok(None),
        }
    }
}

/// `[start, end)` of a range of log indexes, `end == None` meaning "to the end of the log".
fn index_bounds<RB: RangeBounds<u64>>(range: &RB) -> (u64, Option<u64>) {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => None,
    };
    (start, end)
}

impl<A: AppStateMachine> RaftLogReader<TypeConfig<A>> for LogStore<A> {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + OptionalSend>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Entry<TypeConfig<A>>>, StorageError<u64>> {
        let (start, end) = index_bounds(&range);
        if let Some(entries) = self.recent().get(start, end) {
            return Ok(entries);
        }
        let raw = self
            .store
            .read(move |txn| store::get_entries(txn, start, end))
            .await
            .map_err(|e| StorageIOError::read_logs(&e))?;
        raw.into_iter()
            .map(|(index, bytes)| {
                codec::decode_entry::<A>(&bytes)
                    .map_err(|e| StorageIOError::read_log_at_index(index, &e).into())
            })
            .collect()
    }
}

impl<A: AppStateMachine> RaftLogStorage<TypeConfig<A>> for LogStore<A> {
    type LogReader = Self;

    async fn get_log_state(&mut self) -> Result<LogState<TypeConfig<A>>, StorageError<u64>> {
        let last_purged_log_id = self
            .read_log_id_meta(KEY_PURGED)
            .await
            .map_err(|e| StorageIOError::read_logs(&e))?;
        let last = self
            .store
            .read(store::last_entry)
            .await
            .map_err(|e| StorageIOError::read_logs(&e))?;
        let last_log_id = match last {
            Some(bytes) => Some(
                codec::decode_entry_log_id(&bytes).map_err(|e| StorageIOError::read_logs(&e))?,
            ),
            None => last_purged_log_id,
        };
        Ok(LogState {
            last_purged_log_id,
            last_log_id,
        })
    }

    async fn get_log_reader(&mut self) -> Self::LogReader {
        self.clone()
    }

    async fn save_vote(&mut self, vote: &Vote<u64>) -> Result<(), StorageError<u64>> {
        let bytes = codec::encode_vote(vote).map_err(|e| StorageIOError::write_vote(&e))?;
        self.store
            .write(move |txn| store::put_meta(txn, KEY_VOTE, &bytes))
            .await
            .map_err(|e| StorageIOError::write_vote(&e).into())
    }

    async fn read_vote(&mut self) -> Result<Option<Vote<u64>>, StorageError<u64>> {
        let bytes = self
            .store
            .read(|txn| store::get_meta(txn, KEY_VOTE))
            .await
            .map_err(|e| StorageIOError::read_vote(&e))?;
        bytes
            .map(|b| codec::decode_vote(&b).map_err(|e| StorageIOError::read_vote(&e).into()))
            .transpose()
    }

    async fn save_committed(
        &mut self,
        committed: Option<LogId<u64>>,
    ) -> Result<(), StorageError<u64>> {
        let bytes =
            codec::encode_log_id(committed.as_ref()).map_err(|e| StorageIOError::write(&e))?;
        // openraft awaits this inside its main loop on every commit; an fsync here would double
        // the cost of each write. The committed index is only a restart shortcut (a lost value
        // means re-applying a little more log later), so the store writes it lazily.
        self.store
            .save_committed(bytes)
            .map_err(|e| StorageIOError::write(&e).into())
    }

    async fn read_committed(&mut self) -> Result<Option<LogId<u64>>, StorageError<u64>> {
        let bytes = self
            .store
            .read(|batch| batch.committed())
            .await
            .map_err(|e| StorageIOError::read(&e))?;
        match bytes {
            Some(b) => codec::decode_log_id(&b).map_err(|e| StorageIOError::read(&e).into()),
            None => Ok(None),
        }
    }

    async fn append<I>(
        &mut self,
        entries: I,
        callback: LogFlushed<TypeConfig<A>>,
    ) -> Result<(), StorageError<u64>>
    where
        I: IntoIterator<Item = Entry<TypeConfig<A>>> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        let entries: Vec<LogEntry<A>> = entries.into_iter().collect();
        let encoded = entries
            .iter()
            .map(|entry| {
                codec::encode_entry::<A>(entry)
                    .map(|bytes| (entry.log_id.index, bytes))
                    .map_err(|e| StorageIOError::write_log_entry(entry.log_id, &e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Visible to reads before the store has them, as reads through the store's queue see queued appends.
        {
            let mut recent = self.recent();
            for (entry, (_, bytes)) in entries.into_iter().zip(&encoded) {
                recent.appended(entry.log_id.index, entry, bytes.len());
            }
        }
        // Returns before the data is durable: the callback fires after the group commit's fsync,
        // and only then does openraft count the entries as persisted.
        self.store
            .submit(
                Box::new(move |txn| store::put_entries(txn, &encoded)),
                Box::new(move |res| callback.log_io_completed(res.map_err(io::Error::other))),
            )
            .map_err(|e| StorageIOError::write_logs(&e).into())
    }

    async fn truncate(&mut self, log_id: LogId<u64>) -> Result<(), StorageError<u64>> {
        self.recent().truncated(log_id.index);
        self.store
            .write(move |txn| store::remove_from(txn, log_id.index))
            .await
            .map_err(|e| StorageIOError::write_logs(&e).into())
    }

    async fn purge(&mut self, log_id: LogId<u64>) -> Result<(), StorageError<u64>> {
        let purged = codec::encode_log_id(Some(&log_id)).map_err(|e| StorageIOError::write(&e))?;
        self.recent().purged(log_id.index);
        self.store
            .write(move |batch| store::purge_upto(batch, log_id.index, &purged))
            .await
            .map_err(|e| StorageIOError::write_logs(&e).into())
    }
}

#[cfg(test)]
mod tests;
