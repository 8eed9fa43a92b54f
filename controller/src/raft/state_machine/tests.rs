use openraft::{CommittedLeaderId, Membership};

use super::*;
use crate::raft::store::Store;
use crate::raft::test_app::{set, KvApp};

fn log_id(index: u64) -> LogId<u64> {
    LogId::new(CommittedLeaderId::new(1, 1), index)
}

/// A log entry carrying one `Set` per key.
fn normal(index: u64, keys: &[&str]) -> Entry<TypeConfig<KvApp>> {
    Entry {
        log_id: log_id(index),
        payload: EntryPayload::Normal(keys.iter().map(|k| set(k, index)).collect()),
    }
}

#[tokio::test]
async fn apply_numbers_commands_and_answers_each() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("raft.redb")).unwrap();
    let mut sm = StateMachine::load(store.handle(), KvApp::default())
        .await
        .unwrap();
    let membership = Membership::new(vec![[1u64].into()], ());
    let entries = vec![
        Entry {
            log_id: log_id(1),
            payload: EntryPayload::Membership(membership.clone()),
        },
        Entry {
            log_id: log_id(2),
            payload: EntryPayload::Blank,
        },
        normal(3, &["a", "b"]),
        normal(4, &["c"]),
    ];
    let responses = sm.apply(entries).await.unwrap();
    assert_eq!(responses, vec![vec![], vec![], vec![1, 2], vec![3]]);
    let (applied, stored) = sm.applied_state().await.unwrap();
    assert_eq!(applied, Some(log_id(4)));
    assert_eq!(stored.membership(), &membership);
    assert_eq!(read_app(&sm.shared_app()).map.get("a"), Some(&3));
    store.close().await;
}

#[tokio::test]
async fn built_snapshot_is_stored_and_restored_on_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raft.redb");
    let store = Store::open(&path).unwrap();
    let mut sm = StateMachine::load(store.handle(), KvApp::default())
        .await
        .unwrap();
    sm.apply(vec![normal(1, &["a"]), normal(2, &["b"])])
        .await
        .unwrap();
    let mut builder = sm.get_snapshot_builder().await;
    // Applied after the builder was taken: must not be in the snapshot.
    sm.apply(vec![normal(3, &["c"])]).await.unwrap();
    let snapshot = builder.build_snapshot().await.unwrap();
    assert_eq!(snapshot.meta.last_log_id, Some(log_id(2)));
    let current = sm.get_current_snapshot().await.unwrap().unwrap();
    assert_eq!(current.meta, snapshot.meta);
    drop(sm);
    store.close().await;

    let store = Store::open(&path).unwrap();
    let mut sm = StateMachine::load(store.handle(), KvApp::default())
        .await
        .unwrap();
    let (applied, _) = sm.applied_state().await.unwrap();
    assert_eq!(applied, Some(log_id(2)));
    let app = read_app(&sm.shared_app()).clone();
    assert_eq!(app.map.keys().collect::<Vec<_>>(), vec!["a", "b"]);
    assert_eq!(app.last_seq, 2);
    // Replaying entry 3 after the snapshot gives its command the same number as before.
    let replayed = sm.apply(vec![normal(3, &["c"])]).await.unwrap();
    assert_eq!(replayed, vec![vec![3]]);
    store.close().await;
}

#[tokio::test]
async fn an_unreadable_snapshot_is_refused_and_keeps_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("raft.redb")).unwrap();
    let mut sm = StateMachine::load(store.handle(), KvApp::default())
        .await
        .unwrap();
    sm.apply(vec![normal(1, &["a"])]).await.unwrap();
    let good = sm
        .get_snapshot_builder()
        .await
        .build_snapshot()
        .await
        .unwrap();

    let meta = SnapshotMeta {
        last_log_id: Some(log_id(50)),
        last_membership: StoredMembership::default(),
        snapshot_id: "bad".into(),
    };
    for data in [
        codec::wrap_snapshot_data(5, b"x"),
        vec![7, b'{', b'}'],
        vec![codec::SNAPSHOT_DATA_V1, 1],
    ] {
        let res = sm
            .install_snapshot(&meta, Box::new(Cursor::new(data)))
            .await;
        assert!(res.is_err());
    }
    let current = sm.get_current_snapshot().await.unwrap().unwrap();
    assert_eq!(current.meta, good.meta);
    let (applied, _) = sm.applied_state().await.unwrap();
    assert_eq!(applied, Some(log_id(1)));
    store.close().await;
}

#[tokio::test]
async fn installing_a_snapshot_replaces_state() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("raft.redb")).unwrap();
    let mut sm = StateMachine::load(store.handle(), KvApp::default())
        .await
        .unwrap();
    sm.apply(vec![normal(1, &["old"])]).await.unwrap();
    let mut other = KvApp::default();
    other.map.insert("new".into(), 9);
    other.last_seq = 40;
    let data = codec::wrap_snapshot_data(41, &other.snapshot().unwrap());
    let meta = SnapshotMeta {
        last_log_id: Some(log_id(40)),
        last_membership: StoredMembership::default(),
        snapshot_id: "x".into(),
    };
    sm.install_snapshot(&meta, Box::new(Cursor::new(data)))
        .await
        .unwrap();
    assert_eq!(*read_app(&sm.shared_app()), other);
    assert_eq!(sm.applied_state().await.unwrap().0, Some(log_id(40)));
    assert_eq!(sm.get_current_snapshot().await.unwrap().unwrap().meta, meta);
    let next = sm.apply(vec![normal(41, &["after"])]).await.unwrap();
    assert_eq!(next, vec![vec![41]]);
    store.close().await;
}
