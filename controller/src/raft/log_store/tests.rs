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

fn run_fut<F: std::future::Future<Output = Result<(), StorageError<u64>>>>(
    f: F,
) -> Result<(), StorageError<u64>> {
    tokio::runtime::Runtime::new()
        .map_err(|e| StorageIOError::write(&e))?
        .block_on(f)
}

type OpenraftSuite =
    Suite<TypeConfig<KvApp>, LogStore<KvApp>, StateMachine<KvApp>, Builder, (TempDir, Store)>;

/// openraft's own conformance suite for log stores and state machines, test by test as `Suite::test_store` runs
/// them, less `get_initial_state_membership_from_log_and_sm`: it appends entry 3 right after entry 1, a log with a
/// hole that openraft itself never writes (an append follows the last entry, or a truncation or a purge past it),
/// and that the segment files refuse as the sign of a bug.
#[test]
fn passes_openraft_storage_suite() {
    macro_rules! run {
        ($($test:ident),* $(,)?) => {$(
            run_fut(async {
                let (_guard, log, sm) = Builder.build().await?;
                OpenraftSuite::$test(log, sm).await
            })
            .unwrap_or_else(|e| panic!("{}: {e}", stringify!($test)));
        )*};
    }
    run!(
        last_membership_in_log_initial,
        last_membership_in_log,
        last_membership_in_log_multi_step,
        get_membership_initial,
        get_membership_from_log_and_empty_sm,
        get_membership_from_empty_log_and_sm,
        get_membership_from_log_le_sm_last_applied,
        get_membership_from_log_gt_sm_last_applied_1,
        get_membership_from_log_gt_sm_last_applied_2,
        get_initial_state_without_init,
        get_initial_state_with_state,
        get_initial_state_last_log_gt_sm,
        get_initial_state_last_log_lt_sm,
        get_initial_state_log_ids,
        get_initial_state_re_apply_committed,
        save_vote,
        get_log_entries,
        limited_get_log_entries,
        try_get_log_entry,
        initial_logs,
        get_log_state,
        get_log_id,
        last_id_in_log,
        last_applied_state,
        purge_logs_upto_0,
        purge_logs_upto_5,
        purge_logs_upto_20,
        delete_logs_since_11,
        delete_logs_since_0,
        append_to_log,
        snapshot_meta,
        apply_single,
        apply_multiple,
    );
    run_fut(OpenraftSuite::transfer_snapshot(&Builder)).unwrap();
}

#[tokio::test]
async fn an_append_that_would_leave_a_hole_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("raft.redb")).unwrap();
    let mut log = LogStore::<KvApp>::new(store.handle());
    log.blocking_append([entry(1, 1)]).await.unwrap();
    assert!(log.blocking_append([entry(1, 3)]).await.is_err());
    store.close().await;
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
async fn new_entries_are_read_back_without_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("raft.redb")).unwrap();
    let mut log = LogStore::<KvApp>::new(store.handle());
    log.blocking_append((1..=5).map(|i| entry(1, i)))
        .await
        .unwrap();
    log.truncate(log_id(1, 5)).await.unwrap();
    log.blocking_append([entry(2, 5)]).await.unwrap();
    store.close().await;

    // The store's thread is gone: what comes back is the window's, and it is the log as written.
    let expected: Vec<_> = (1..=4).map(|i| entry(1, i)).chain([entry(2, 5)]).collect();
    assert_eq!(log.try_get_log_entries(1..).await.unwrap(), expected);
    assert_eq!(log.try_get_log_entries(4..=5).await.unwrap(), expected[3..]);
    // A range the window does not hold whole still goes to the store.
    assert!(log.try_get_log_entries(0..3).await.is_err());
}

#[tokio::test]
async fn range_bounds_map_to_index_ranges() {
    assert_eq!(index_bounds(&(3..7)), (3, Some(7)));
    assert_eq!(index_bounds(&(3..=7)), (3, Some(8)));
    assert_eq!(index_bounds(&(..)), (0, None));
    assert_eq!(index_bounds(&(5..)), (5, None));
    assert_eq!(index_bounds(&(..=u64::MAX)), (0, None));
}
