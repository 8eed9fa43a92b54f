//! What one durable commit of a job submission costs the controller: `ReplicatedState::write` of a
//! `Command::Submit` shaped like an `sbatch --hold --wrap true` (script, a shell's environment), on a real store in
//! a directory on disk, one controller. Prints the latency of sequential commits (p10/p50/p90, what a single
//! sequential client waits for) and the rate of concurrent ones (what many clients get, group commit included).
//!
//! `cargo bench -p spur-controller --bench raft_commit [-- SEQUENTIAL CONCURRENT TASKS]` (defaults 2000 8000 32);
//! the store goes under `$SPUR_BENCH_DIR` (default /var/tmp), since /tmp may be a memory file system.

use std::sync::Arc;
use std::time::Instant;

use spur_controller::raft::{RaftConfig, ReplicatedState};
use spur_controller::state::{ClusterState, Command};
use spur_core::model::job::JobSpec;

fn submission(n: usize) -> Command {
    let environment = (0..40)
        .map(|i| {
            (
                format!("VARIABLE_{i}"),
                format!("/usr/local/some/value/{i}/{n}"),
            )
        })
        .collect();
    let spec = JobSpec {
        name: "bench".into(),
        script: Some("#!/bin/sh\n# This script was created by sbatch --wrap.\n\ntrue\n".into()),
        environment,
        work_dir: "/home/user/project".into(),
        hold: true,
        ..JobSpec::default()
    };
    Command::Submit {
        spec: Box::new(spec),
        now: 1_700_000_000 + n as i64,
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sequential = args.first().copied().unwrap_or(2000);
    let concurrent = args.get(1).copied().unwrap_or(8000);
    let tasks = args.get(2).copied().unwrap_or(32).max(1);
    let base = std::env::var("SPUR_BENCH_DIR").unwrap_or_else(|_| "/var/tmp".into());
    let dir = tempfile::tempdir_in(base)?;
    let state = Arc::new(
        ReplicatedState::open(dir.path(), 1, RaftConfig::default(), ClusterState::new()).await?,
    );

    let mut waits = Vec::with_capacity(sequential);
    for n in 0..sequential {
        let cmd = submission(n);
        let started = Instant::now();
        state.write(cmd).await?;
        waits.push(started.elapsed().as_secs_f64() * 1e3);
    }
    waits.sort_by(f64::total_cmp);
    println!(
        "sequential commits: {sequential}, p10 {:.3} ms, p50 {:.3} ms, p90 {:.3} ms",
        percentile(&waits, 0.1),
        percentile(&waits, 0.5),
        percentile(&waits, 0.9)
    );

    let started = Instant::now();
    let mut handles = Vec::with_capacity(tasks);
    for t in 0..tasks {
        let state = Arc::clone(&state);
        let count = concurrent / tasks + usize::from(t < concurrent % tasks);
        handles.push(tokio::spawn(async move {
            for i in 0..count {
                state.write(submission(t * 1_000_000 + i)).await?;
            }
            Ok::<_, spur_controller::raft::ReplicationError>(())
        }));
    }
    for handle in handles {
        handle.await??;
    }
    let took = started.elapsed().as_secs_f64();
    println!(
        "concurrent commits: {concurrent} from {tasks} tasks in {took:.3} s, {:.0}/s",
        concurrent as f64 / took
    );
    if let Some(state) = Arc::into_inner(state) {
        state.shutdown().await?;
    }
    Ok(())
}
