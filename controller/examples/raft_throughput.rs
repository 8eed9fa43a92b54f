//! Measures replicated-log write throughput: concurrent writers each await acknowledged
//! (fsynced, applied) writes of a small counter command.
//!
//! `cargo run -p spur-controller --example raft_throughput -- [WRITERS] [TOTAL] [DIR]`
//! (defaults: 64 writers, 20000 writes, a temporary directory).

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use spur_controller::raft::{AppStateMachine, RaftConfig, ReplicatedState};

#[derive(Debug, Default)]
struct Counter {
    total: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Add(u64);

#[derive(Debug, thiserror::Error)]
#[error("bad counter snapshot")]
struct BadSnapshot;

impl AppStateMachine for Counter {
    type Command = Add;
    type Response = u64;
    type Error = BadSnapshot;

    fn apply(&mut self, _log_index: u64, cmd: Add) -> u64 {
        self.total += cmd.0;
        self.total
    }

    fn snapshot(&self) -> Result<Vec<u8>, BadSnapshot> {
        Ok(self.total.to_le_bytes().to_vec())
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), BadSnapshot> {
        self.total = u64::from_le_bytes(bytes.try_into().map_err(|_| BadSnapshot)?);
        Ok(())
    }
}

fn arg(n: usize, default: u64) -> u64 {
    std::env::args()
        .nth(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let writers = arg(1, 64).max(1);
    let total = arg(2, 20_000);
    let tmp = tempfile::tempdir()?;
    let dir = std::env::args()
        .nth(3)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().to_path_buf());

    let state =
        Arc::new(ReplicatedState::open(&dir, 1, RaftConfig::default(), Counter::default()).await?);
    let per_writer = total / writers;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..writers {
        let state = Arc::clone(&state);
        tasks.push(tokio::spawn(async move {
            for _ in 0..per_writer {
                state.write(Add(1)).await?;
            }
            Ok::<_, spur_controller::raft::ReplicationError>(())
        }));
    }
    for t in tasks {
        t.await??;
    }
    let elapsed = started.elapsed();
    let done = per_writer * writers;
    println!(
        "{done} acknowledged writes by {writers} writers in {:.2?}: {:.0} commits/s (state total {})",
        elapsed,
        done as f64 / elapsed.as_secs_f64(),
        state.read(|c| c.total)
    );
    if let Some(state) = Arc::into_inner(state) {
        state.shutdown().await?;
    }
    Ok(())
}
