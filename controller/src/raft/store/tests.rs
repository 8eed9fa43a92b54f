use super::*;
use redb::ReadableTableMetadata;

fn purged_at(index: u64) -> Vec<u8> {
    let id = openraft::LogId::new(openraft::CommittedLeaderId::new(1, 1), index);
    crate::raft::codec::encode_log_id(Some(&id)).unwrap()
}

fn entries(range: std::ops::Range<u64>) -> Vec<(u64, Vec<u8>)> {
    range.map(|i| (i, format!("e{i}").into_bytes())).collect()
}

async fn all_indexes(h: &StoreHandle) -> Vec<u64> {
    let got = h.read(|txn| get_entries(txn, 0, None)).await.unwrap();
    got.into_iter().map(|(i, _)| i).collect()
}

#[tokio::test]
async fn writes_survive_close_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Store::open(&path).unwrap();
    let h = store.handle();
    let batch = entries(1..11);
    h.write(move |txn| put_entries(txn, &batch)).await.unwrap();
    h.write(|txn| put_meta(txn, KEY_VOTE, b"v")).await.unwrap();
    store.close().await;

    let store = Store::open(&path).unwrap();
    let h = store.handle();
    assert_eq!(all_indexes(&h).await, (1..11).collect::<Vec<_>>());
    let vote = h.read(|txn| get_meta(txn, KEY_VOTE)).await.unwrap();
    assert_eq!(vote.as_deref(), Some(b"v".as_slice()));
    store.close().await;
}

#[tokio::test]
async fn range_reads_truncate_and_purge() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb")).unwrap();
    let h = store.handle();
    let batch = entries(1..21);
    h.write(move |txn| put_entries(txn, &batch)).await.unwrap();

    let mid = h.read(|txn| get_entries(txn, 5, Some(8))).await.unwrap();
    assert_eq!(mid, entries(5..8));

    h.write(|txn| remove_from(txn, 15)).await.unwrap();
    h.write(|txn| purge_upto(txn, 4, &purged_at(4)))
        .await
        .unwrap();
    assert_eq!(all_indexes(&h).await, (5..15).collect::<Vec<_>>());
    let last = h.read(last_entry).await.unwrap();
    assert_eq!(last, Some(b"e14".to_vec()));
    store.close().await;
}

#[tokio::test]
async fn queued_mutations_land_in_submission_order_and_reads_see_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb")).unwrap();
    let h = store.handle();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for i in 1..=200u64 {
        let tx = tx.clone();
        h.submit(
            Box::new(move |txn| put_entries(txn, &[(i, vec![1])])),
            Box::new(move |res| {
                let _ = tx.send((i, res.is_ok()));
            }),
        )
        .unwrap();
    }
    // Submitted after the appends, so it must see all of them even before their callbacks ran.
    h.write(|txn| remove_from(txn, 101)).await.unwrap();
    assert_eq!(all_indexes(&h).await, (1..=100).collect::<Vec<_>>());
    drop(tx);
    let mut acked = Vec::new();
    while let Some((i, ok)) = rx.recv().await {
        assert!(ok);
        acked.push(i);
    }
    assert_eq!(acked, (1..=200).collect::<Vec<_>>());
    store.close().await;
}

#[tokio::test]
async fn a_failed_write_fails_its_whole_batch_and_commits_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb")).unwrap();
    let h = store.handle();
    let (tx, rx) = std::sync::mpsc::channel();
    // Hold the writer thread inside a first batch so the next two ops share the second one.
    let (gate_tx, gate_rx) = std::sync::mpsc::channel::<()>();
    let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
    let tx0 = tx.clone();
    h.submit(
        Box::new(move |_| {
            started_tx.send(()).unwrap();
            let _ = gate_rx.recv();
            Ok(())
        }),
        Box::new(move |r| tx0.send(("gate", r.is_ok())).unwrap()),
    )
    .unwrap();
    started_rx.recv().unwrap();
    let tx1 = tx.clone();
    h.submit(
        Box::new(|txn| put_entries(txn, &[(1, vec![1])])),
        Box::new(move |r| tx1.send(("good", r.is_ok())).unwrap()),
    )
    .unwrap();
    let tx2 = tx.clone();
    h.submit(
        Box::new(|_| Err(StoreError::corrupt("test", "boom"))),
        Box::new(move |r| tx2.send(("bad", r.is_ok())).unwrap()),
    )
    .unwrap();
    gate_tx.send(()).unwrap();
    let mut results: Vec<_> = (0..3).map(|_| rx.recv().unwrap()).collect();
    results.sort();
    // The gate ran alone in the first batch; the other two shared one and both failed.
    assert_eq!(
        results,
        vec![("bad", false), ("gate", true), ("good", false)]
    );
    assert!(all_indexes(&h).await.is_empty());
    store.close().await;
}

#[tokio::test]
async fn operations_after_close_report_closed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb")).unwrap();
    let h = store.handle();
    store.close().await;
    assert!(matches!(
        h.write(|txn| put_meta(txn, KEY_VOTE, b"x")).await,
        Err(StoreError::Closed)
    ));
    assert!(matches!(h.read(last_entry).await, Err(StoreError::Closed)));
}

#[tokio::test]
async fn snapshot_is_replaced_as_a_whole() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb")).unwrap();
    let h = store.handle();
    assert_eq!(h.read(get_snapshot).await.unwrap(), None);
    h.write(|txn| put_snapshot(txn, b"m1", b"d1"))
        .await
        .unwrap();
    h.write(|txn| put_snapshot(txn, b"m2", b"d2"))
        .await
        .unwrap();
    assert_eq!(
        h.read(get_snapshot).await.unwrap(),
        Some(StoredSnapshot {
            meta: b"m2".to_vec(),
            data: b"d2".to_vec()
        })
    );
    store.close().await;
}

#[tokio::test]
async fn a_store_of_an_unknown_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Store::open(&path).unwrap();
    store
        .handle()
        .write(|txn| put_meta(txn, KEY_STORE_FORMAT, &[99]))
        .await
        .unwrap();
    store.close().await;
    let err = Store::open(&path).err().unwrap();
    assert!(err.to_string().contains("not supported"), "{err}");
}

#[tokio::test]
async fn the_committed_index_is_visible_at_once_and_kept_at_close() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Store::open(&path).unwrap();
    let h = store.handle();
    h.save_committed(b"c1".to_vec()).unwrap();
    let seen = h.read(|b| b.committed()).await.unwrap();
    assert_eq!(seen.as_deref(), Some(b"c1".as_slice()));
    store.close().await;

    let store = Store::open(&path).unwrap();
    let h = store.handle();
    let kept = h.read(|b| b.committed()).await.unwrap();
    assert_eq!(kept.as_deref(), Some(b"c1".as_slice()));
    store.close().await;
}

#[tokio::test]
async fn the_committed_index_reaches_the_database_without_a_close() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Store::open(&path).unwrap();
    let h = store.handle();
    h.save_committed(b"c2".to_vec()).unwrap();
    h.write(|b| put_entries(b, &[(1, vec![1])])).await.unwrap();
    // What the database holds, not the writer's memory: wait for the lazy write.
    let mut stored = None;
    for _ in 0..50 {
        stored = h.read(|b| get_meta(b, KEY_COMMITTED)).await.unwrap();
        if stored.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(stored.as_deref(), Some(b"c2".as_slice()));
    store.close().await;
}

#[tokio::test]
async fn appends_touch_the_log_files_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Store::open(&path).unwrap();
    let h = store.handle();
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    let batch = entries(1..101);
    h.write(move |b| put_entries(b, &batch)).await.unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
    let segments = std::fs::read_dir(log_dir(&path)).unwrap().count();
    assert_eq!(segments, 1);
    store.close().await;
}

#[tokio::test]
async fn a_format_1_store_has_its_log_moved_to_segment_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    {
        // A store as format 1 wrote it: the log in the LOG table.
        let db = Database::create(&path).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut log = txn.open_table(LOG).unwrap();
            for (i, bytes) in entries(3..9) {
                log.insert(i, bytes.as_slice()).unwrap();
            }
            let mut meta = txn.open_table(META).unwrap();
            meta.insert(KEY_STORE_FORMAT, [STORE_FORMAT_V1].as_slice())
                .unwrap();
            meta.insert(KEY_PURGED, purged_at(2).as_slice()).unwrap();
        }
        txn.open_table(SNAPSHOT).unwrap();
        txn.commit().unwrap();
    }
    let store = Store::open(&path).unwrap();
    let h = store.handle();
    assert_eq!(all_indexes(&h).await, (3..9).collect::<Vec<_>>());
    store.close().await;

    let db = Database::create(&path).unwrap();
    let txn = db.begin_read().unwrap();
    assert_eq!(txn.open_table(LOG).unwrap().len().unwrap(), 0);
    let format = txn
        .open_table(META)
        .unwrap()
        .get(KEY_STORE_FORMAT)
        .unwrap()
        .map(|v| v.value().to_vec());
    assert_eq!(format, Some(vec![STORE_FORMAT_V2]));
    drop(txn);
    drop(db);
    let store = Store::open(&path).unwrap();
    let got = store
        .handle()
        .read(|b| get_entries(b, 0, None))
        .await
        .unwrap();
    assert_eq!(got, entries(3..9));
    store.close().await;
}

#[tokio::test]
async fn a_store_already_open_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let store = Store::open(&path).unwrap();
    assert!(Store::open(&path).is_err());
    store.close().await;
}
