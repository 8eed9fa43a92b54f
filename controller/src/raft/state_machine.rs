//! openraft's `RaftStateMachine`: applies committed entries to the in-memory application state
//! and builds, stores and installs snapshots of it.

// openraft's trait signatures fix `StorageError` (a large type) as the error type.
#![allow(clippy::result_large_err)]

use std::io::Cursor;
use std::marker::PhantomData;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use openraft::storage::RaftStateMachine;
use openraft::{
    Entry, EntryPayload, LogId, OptionalSend, RaftSnapshotBuilder, Snapshot, SnapshotMeta,
    StorageError, StorageIOError, StoredMembership,
};

use super::codec;
use super::error::StoreError;
use super::membership::Departed;
use super::store::{self, StoreHandle};
use super::types::{ControllerNode, TypeConfig};
use super::AppStateMachine;

/// The application state shared between the raft state machine (the only writer) and readers.
pub(crate) type SharedApp<A> = Arc<RwLock<A>>;

/// Sequence number of the first command ever applied.
pub(crate) const FIRST_SEQ: u64 = 1;

/// A poisoned lock only means an earlier `apply` panicked; that already stopped raft, and
/// readers may still look at the last state.
pub(crate) fn read_app<A>(app: &RwLock<A>) -> RwLockReadGuard<'_, A> {
    app.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn write_app<A>(app: &RwLock<A>) -> RwLockWriteGuard<'_, A> {
    app.write().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub struct StateMachine<A> {
    app: SharedApp<A>,
    /// Sequence number the next applied command gets. Lives here, not in the app, because it
    /// is the raft layer's promise of unique, dense, replica-independent numbers.
    next_seq: u64,
    last_applied: Option<LogId<u64>>,
    membership: StoredMembership<u64, ControllerNode>,
    store: StoreHandle,
    departed: Arc<Departed>,
}

impl<A: AppStateMachine> StateMachine<A> {
    /// Restores `app` from the stored snapshot, if there is one. openraft then replays the log
    /// from the snapshot's last log id.
    pub(crate) async fn load(store: StoreHandle, mut app: A) -> Result<Self, StoreError> {
        let mut next_seq = FIRST_SEQ;
        let mut last_applied = None;
        let mut membership = StoredMembership::default();
        if let Some(stored) = store.read(store::get_snapshot).await? {
            let meta = codec::decode_snapshot_meta(&stored.meta)?;
            let (seq, app_bytes) = codec::unwrap_snapshot_data(&stored.data)?;
            app.restore(app_bytes)
                .map_err(|e| StoreError::App(e.to_string()))?;
            next_seq = seq;
            last_applied = meta.last_log_id;
            membership = meta.last_membership;
        }
        Ok(Self {
            app: Arc::new(RwLock::new(app)),
            next_seq,
            last_applied,
            membership,
            store,
            departed: Arc::default(),
        })
    }

    pub(crate) fn shared_app(&self) -> SharedApp<A> {
        Arc::clone(&self.app)
    }

    /// The members this state machine saw leave the group.
    pub(crate) fn departed(&self) -> Arc<Departed> {
        Arc::clone(&self.departed)
    }
}

/// A snapshot captured at one log id; written to the store off the state machine's task.
pub struct SnapshotBuilder<A> {
    app_bytes: Result<Vec<u8>, String>,
    next_seq: u64,
    last_applied: Option<LogId<u64>>,
    membership: StoredMembership<u64, ControllerNode>,
    store: StoreHandle,
    _app: PhantomData<fn() -> A>,
}

fn snapshot_id(last: Option<&LogId<u64>>) -> String {
    // Two snapshots at the same log id may differ in bytes; the time keeps their ids apart.
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    match last {
        Some(id) => format!("{}-{}-{}", id.leader_id.term, id.index, nanos),
        None => format!("none-{nanos}"),
    }
}

async fn persist_snapshot(
    store: &StoreHandle,
    meta: &SnapshotMeta<u64, ControllerNode>,
    data: Vec<u8>,
) -> Result<(), StorageError<u64>> {
    let signature = Some(meta.signature());
    let meta_bytes = codec::encode_snapshot_meta(meta)
        .map_err(|e| StorageIOError::write_snapshot(signature.clone(), &e))?;
    store
        .write(move |txn| store::put_snapshot(txn, &meta_bytes, &data))
        .await
        .map_err(|e| StorageIOError::write_snapshot(signature, &e).into())
}

/// A snapshot of 100,000 jobs passes through several buffers of a hundred MB or more (encoding, envelope, the
/// store's copy) that are freed at once; glibc keeps such memory mapped in its heap, so the controller's RSS would
/// stay at the peak. Giving it back keeps RSS close to what the state needs.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the kernel; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

impl<A: AppStateMachine> RaftSnapshotBuilder<TypeConfig<A>> for SnapshotBuilder<A> {
    async fn build_snapshot(&mut self) -> Result<Snapshot<TypeConfig<A>>, StorageError<u64>> {
        let app_bytes = std::mem::replace(&mut self.app_bytes, Err("already built".into()))
            .map_err(|msg| StorageIOError::read_state_machine(&StoreError::App(msg)))?;
        let data = codec::wrap_snapshot_data(self.next_seq, &app_bytes);
        drop(app_bytes);
        let meta = SnapshotMeta {
            last_log_id: self.last_applied,
            last_membership: self.membership.clone(),
            snapshot_id: snapshot_id(self.last_applied.as_ref()),
        };
        persist_snapshot(&self.store, &meta, data.clone()).await?;
        release_freed_memory();
        Ok(Snapshot {
            meta,
            snapshot: Box::new(Cursor::new(data)),
        })
    }
}

impl<A: AppStateMachine> RaftStateMachine<TypeConfig<A>> for StateMachine<A> {
    type SnapshotBuilder = SnapshotBuilder<A>;

    async fn applied_state(
        &mut self,
    ) -> Result<(Option<LogId<u64>>, StoredMembership<u64, ControllerNode>), StorageError<u64>>
    {
        Ok((self.last_applied, self.membership.clone()))
    }

    async fn apply<I>(&mut self, entries: I) -> Result<Vec<Vec<A::Response>>, StorageError<u64>>
    where
        I: IntoIterator<Item = Entry<TypeConfig<A>>> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        let mut app = write_app(&self.app);
        let mut responses = Vec::new();
        for entry in entries {
            self.last_applied = Some(entry.log_id);
            let response = match entry.payload {
                EntryPayload::Blank => Vec::new(),
                EntryPayload::Normal(cmds) => cmds
                    .into_iter()
                    .map(|cmd| {
                        let seq = self.next_seq;
                        self.next_seq += 1;
                        app.apply(seq, cmd)
                    })
                    .collect(),
                EntryPayload::Membership(m) => {
                    self.departed.note(self.membership.membership(), &m);
                    self.membership = StoredMembership::new(Some(entry.log_id), m);
                    Vec::new()
                }
            };
            responses.push(response);
        }
        app.batch_applied();
        Ok(responses)
    }

    async fn get_snapshot_builder(&mut self) -> Self::SnapshotBuilder {
        // Serialised here, under the read lock, because the builder runs in a separate task
        // while later entries keep being applied.
        let app_bytes = read_app(&self.app).snapshot().map_err(|e| e.to_string());
        SnapshotBuilder {
            app_bytes,
            next_seq: self.next_seq,
            last_applied: self.last_applied,
            membership: self.membership.clone(),
            store: self.store.clone(),
            _app: PhantomData,
        }
    }

    async fn begin_receiving_snapshot(
        &mut self,
    ) -> Result<Box<Cursor<Vec<u8>>>, StorageError<u64>> {
        Ok(Box::new(Cursor::new(Vec::new())))
    }

    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta<u64, ControllerNode>,
        snapshot: Box<Cursor<Vec<u8>>>,
    ) -> Result<(), StorageError<u64>> {
        let data = snapshot.into_inner();
        let signature = Some(meta.signature());
        {
            let (next_seq, app_bytes) = codec::unwrap_snapshot_data(&data)
                .map_err(|e| StorageIOError::read_snapshot(signature.clone(), &e))?;
            // Restore before persisting so an unreadable snapshot never replaces a good one.
            write_app(&self.app).restore(app_bytes).map_err(|e| {
                StorageIOError::read_snapshot(signature.clone(), &StoreError::App(e.to_string()))
            })?;
            self.next_seq = next_seq;
        }
        self.last_applied = meta.last_log_id;
        self.membership = meta.last_membership.clone();
        persist_snapshot(&self.store, meta, data).await
    }

    async fn get_current_snapshot(
        &mut self,
    ) -> Result<Option<Snapshot<TypeConfig<A>>>, StorageError<u64>> {
        let stored = self
            .store
            .read(store::get_snapshot)
            .await
            .map_err(|e| StorageIOError::read_snapshot(None, &e))?;
        let Some(stored) = stored else {
            return Ok(None);
        };
        let meta = codec::decode_snapshot_meta(&stored.meta)
            .map_err(|e| StorageIOError::read_snapshot(None, &e))?;
        Ok(Some(Snapshot {
            meta,
            snapshot: Box::new(Cursor::new(stored.data)),
        }))
    }
}

#[cfg(test)]
mod tests;
