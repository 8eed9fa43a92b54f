//! End-to-end tests of `ReplicatedState` on real files: durability across restarts, snapshots
//! with log compaction, and survival of acknowledged writes across SIGKILL.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{config, set, Cmd, Kv};
use spur_controller::raft::{RaftConfig, ReplicatedState};

const NODE: u64 = 1;

async fn open(dir: &std::path::Path, config: RaftConfig) -> ReplicatedState<Kv> {
    ReplicatedState::open(dir, NODE, config, Kv::default())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writes_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let state = Arc::new(open(dir.path(), config()).await);

    let mut tasks = Vec::new();
    for i in 0..1000u64 {
        let state = Arc::clone(&state);
        tasks.push(tokio::spawn(async move {
            let cmd = if i % 10 == 0 {
                Cmd::Incr
            } else {
                set(format!("k{i}"), i)
            };
            state.write(cmd).await.unwrap()
        }));
    }
    let mut seqs = BTreeSet::new();
    for t in tasks {
        assert!(seqs.insert(t.await.unwrap()), "sequence numbers are unique");
    }
    assert_eq!(seqs, (1..=1000).collect(), "and dense");
    let before = state.read(Kv::state);
    assert_eq!(before.0.len(), 900);
    assert_eq!(before.1, 100);
    assert_eq!(before.2, 1000);
    let entries = state.raft().metrics().borrow().last_log_index.unwrap();
    println!("1000 concurrent writes used {entries} log entries");

    let state = Arc::into_inner(state).unwrap();
    state.shutdown().await.unwrap();

    let started = Instant::now();
    let state = open(dir.path(), config()).await;
    let took = started.elapsed();
    println!("reopen after 1000 writes served in {took:?}");
    assert!(took < Duration::from_secs(2), "restart took {took:?}");
    assert_eq!(state.read(Kv::state), before);

    let next = state.write(Cmd::Incr).await.unwrap();
    assert_eq!(next, 1001, "numbering continues after restart");
    state.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_compacts_the_log_and_restart_uses_snapshot_plus_log() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = RaftConfig {
        snapshot_after_entries: 100,
        keep_entries_after_snapshot: 0,
        ..config()
    };
    let state = open(dir.path(), cfg.clone()).await;
    for i in 0..250u64 {
        state.write(set(format!("k{i}"), i)).await.unwrap();
    }
    let metrics = state
        .raft()
        .wait(Some(Duration::from_secs(10)))
        .metrics(
            |m| m.snapshot.is_some_and(|s| s.index >= 150) && m.purged.is_some(),
            "snapshot and purge",
        )
        .await
        .unwrap();
    let snapshot_index = metrics.snapshot.unwrap().index;
    let purged = metrics.purged.unwrap().index;
    assert!(purged >= 150, "log compacted up to {purged}");
    for i in 250..280u64 {
        state.write(set(format!("k{i}"), i)).await.unwrap();
    }
    let before = state.read(Kv::state);
    let last_log = state.raft().metrics().borrow().last_log_index.unwrap();
    assert!(last_log > snapshot_index, "some entries only in the log");
    state.shutdown().await.unwrap();

    let state = open(dir.path(), cfg).await;
    assert!(state.read(|kv| kv.restored), "state came from the snapshot");
    assert_eq!(state.read(Kv::state), before);
    assert_eq!(before.0.len(), 280);
    assert_eq!(state.write(Cmd::Incr).await.unwrap(), 281);
    let m = state.raft().metrics().borrow().clone();
    assert!(m.purged.is_some_and(|p| p.index >= purged));
    state.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_is_initialised_once_and_reads_work() {
    let dir = tempfile::tempdir().unwrap();
    let state = open(dir.path(), config()).await;
    let membership_at =
        |s: &ReplicatedState<Kv>| *s.raft().metrics().borrow().membership_config.log_id();
    let first = membership_at(&state);
    assert!(first.is_some());
    state.write(set("a", 1)).await.unwrap();
    let linear = state
        .read_linearizable(|kv| kv.map.get("a").copied())
        .await
        .unwrap();
    assert_eq!(linear, Some(1));
    state.trigger_snapshot().await.unwrap();
    state.shutdown().await.unwrap();

    let state = open(dir.path(), config()).await;
    assert_eq!(membership_at(&state), first, "no second initialisation");
    assert_eq!(state.read(|kv| kv.map.get("a").copied()), Some(1));
    assert_eq!(state.node_id(), NODE);
    state.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_garbage_store_file_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("raft.redb"), b"not a database at all").unwrap();
    let res = ReplicatedState::open(dir.path(), NODE, config(), Kv::default()).await;
    let err = res.err().unwrap();
    assert!(
        err.to_string().starts_with("cannot open raft store"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_controller_on_the_same_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let first = open(dir.path(), config()).await;
    let second = ReplicatedState::open(dir.path(), NODE, config(), Kv::default()).await;
    let err = second.err().unwrap();
    assert!(
        err.to_string().starts_with("cannot open raft store"),
        "{err}"
    );
    // The refused open must not disturb the running one.
    assert_eq!(first.write(Cmd::Incr).await.unwrap(), 1);
    first.shutdown().await.unwrap();
}

const CHILD_DIR_ENV: &str = "SPUR_RAFT_SIGKILL_CHILD_DIR";
const WRITERS: u64 = 32;

/// Child side of `acknowledged_writes_survive_sigkill`: writes until killed, printing each
/// acknowledged key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "helper process for acknowledged_writes_survive_sigkill"]
async fn sigkill_child() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let state = Arc::new(open(dir.as_ref(), config()).await);
    println!("READY");
    let mut tasks = Vec::new();
    for w in 0..WRITERS {
        let state = Arc::clone(&state);
        tasks.push(tokio::spawn(async move {
            // Bounded so a child that is somehow not killed still ends.
            for i in 0..20_000u64 {
                let key = format!("w{w}-{i}");
                state.write(set(key.clone(), i)).await.unwrap();
                let mut out = std::io::stdout().lock();
                writeln!(out, "ACK {key}").unwrap();
                out.flush().unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "sigkill_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR_ENV, dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let acked = tokio::task::spawn_blocking(move || {
        let mut acked = Vec::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if let Some(key) = line.strip_prefix("ACK ") {
                acked.push(key.to_string());
                if acked.len() == 500 {
                    // SIGKILL right after an acknowledgement: no chance to flush anything more.
                    child.kill().unwrap();
                    break;
                }
            }
        }
        child.wait().unwrap();
        acked
    })
    .await
    .unwrap();
    assert_eq!(
        acked.len(),
        500,
        "child acknowledged enough writes before dying"
    );

    let state = open(dir.path(), config()).await;
    let missing: Vec<_> = state.read(|kv| {
        acked
            .iter()
            .filter(|k| !kv.map.contains_key(*k))
            .cloned()
            .collect()
    });
    assert!(missing.is_empty(), "lost acknowledged writes: {missing:?}");
    state.shutdown().await.unwrap();
}
