use openraft::storage::RaftLogStorageExt;
use openraft::testing::{StoreBuilder, Suite};
use openraft::{CommittedLeaderId, EntryPayload};
use tempfile::TempDir;

use super::*;
use crate::raft::state_machine::StateMachine;
use crate::raft::store::Store;
use crate::raft::test_app::{set, KvApp};

struct Builder;

impl StoreBuilder<TypeConfig<KvApp>, LogStore<KvApp>, StateMachine<KvApp>, (TempDir, Store)>
    for Builder
{
    async fn build(
        &self,
    ) -> Result<((TempDir, Store), LogStore<KvApp>, StateMachine<KvApp>), StorageError<u64>> {
        let dir = tempfile::tempdir().map_err(|e| StorageIOError::write(&e))?;
        let store =
            Store::open(&dir.path().join("raft.redb")).map_err(|e| StorageIOError::write(&e))?;
        let sm = StateMachine::load(store.handle(), KvApp::default())
            .await
            .map_err(|e| StorageIOError::read_state_machine(&e))?;
        let log = LogStore::new(store.handle());
        Ok(((dir, store), log, sm))
    }
}

/// openraft's own conformance suite for log stores and state machines.
#[test]
fn passes_openraft_storage_suite() {
    Suite::test_all(Builder).unwrap();
}

fn log_id(term: u64, index: u64) -> LogId<u64> {
    LogId::new(CommittedLeaderId::new(term, 1), index)
}

fn entry(term: u64, index: u64) -> Entry<TypeConfig<KvApp>> {
    Entry {
        log_id: log_id(term, index),
        payload: EntryPayload::Normal(vec![set("k", index)]),
    }
}

#[tokio::test]
async fn log_vote_committed_and_purge_point_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raft.redb");
    let store = Store::open(&path).unwrap();
    let mut log = LogStore::<KvApp>::new(store.handle());
    log.blocking_append((1..=30).map(|i| entry(1, i)))
        .await
        .unwrap();
    log.save_vote(&Vote::new_committed(1, 1)).await.unwrap();
    log.save_committed(Some(log_id(1, 25))).await.unwrap();
    log.purge(log_id(1, 10)).await.unwrap();
    log.truncate(log_id(1, 28)).await.unwrap();
    drop(log);
    store.close().await;

    let store = Store::open(&path).unwrap();
    let mut log = LogStore::<KvApp>::new(store.handle());
    let state = log.get_log_state().await.unwrap();
    assert_eq!(state.last_purged_log_id, Some(log_id(1, 10)));
    assert_eq!(state.last_log_id, Some(log_id(1, 27)));
    assert_eq!(
        log.read_vote().await.unwrap(),
        Some(Vote::new_committed(1, 1))
    );
    assert_eq!(log.read_committed().await.unwrap(), Some(log_id(1, 25)));
    let entries = log.try_get_log_entries(..).await.unwrap();
    assert_eq!(entries, (11..=27).map(|i| entry(1, i)).collect::<Vec<_>>());
    store.close().await;
}

#[tokio::test]
async fn log_state_falls_back_to_purge_point_when_everything_is_purged() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("raft.redb")).unwrap();
    let mut log = LogStore::<KvApp>::new(store.handle());
    log.blocking_append((1..=5).map(|i| entry(2, i)))
        .await
        .unwrap();
    log.purge(log_id(2, 5)).await.unwrap();
    let state = log.get_log_state().await.unwrap();
    assert_eq!(state.last_purged_log_id, Some(log_id(2, 5)));
    assert_eq!(state.last_log_id, Some(log_id(2, 5)));
    store.close().await;
}

#[tokio::test]
async fn range_bounds_map_to_index_ranges() {
    assert_eq!(index_bounds(&(3..7)), (3, Some(7)));
    assert_eq!(index_bounds(&(3..=7)), (3, Some(8)));
    assert_eq!(index_bounds(&(..)), (0, None));
    assert_eq!(index_bounds(&(5..)), (5, None));
    assert_eq!(index_bounds(&(..=u64::MAX)), (0, None));
}
