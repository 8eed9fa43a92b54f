//! Deterministic simulation of the controller with injected faults (docs/ha.md, "How it is tested").
//!
//! `cargo test -p spur-controller --test simulation` runs a few seeds. `SPUR_SIM_SEEDS=10000` runs that many
//! (a soak), `SPUR_SIM_SEED=1234` replays one seed exactly, and `SPUR_SIM_FIRST_SEED` moves the range.

mod sim;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use sim::world::World;

/// Seeds a plain `cargo test` runs: enough to cross every fault a few times, quick in a debug build.
const SEEDS_DEFAULT: u64 = 32;
/// Simulated time of the busy phase of each run, clock jumps not counted (the calm phase that follows takes what
/// it needs).
const BUSY_MS: u64 = 10 * 60 * 1000;

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[test]
fn simulated_cluster_keeps_its_invariants_under_faults() {
    let seeds: Vec<u64> = match env_u64("SPUR_SIM_SEED") {
        Some(seed) => vec![seed],
        None => {
            let first = env_u64("SPUR_SIM_FIRST_SEED").unwrap_or(0);
            let count = env_u64("SPUR_SIM_SEEDS").unwrap_or(SEEDS_DEFAULT);
            (first..first + count).collect()
        }
    };
    let started = Instant::now();
    let mut failed = Vec::new();
    let mut total = sim::world::Stats::default();
    let mut stale_seeds = 0;
    for &seed in &seeds {
        let run = catch_unwind(AssertUnwindSafe(|| World::new(seed).run(BUSY_MS)));
        match run {
            Ok(stats) => {
                if seeds.len() == 1 {
                    eprintln!("seed {seed}: {stats:?}");
                }
                stale_seeds += usize::from(stats.stale_results > 0);
                total.add(&stats);
            }
            Err(_) => {
                eprintln!("seed {seed} FAILED; replay with SPUR_SIM_SEED={seed}");
                failed.push(seed);
            }
        }
    }
    eprintln!(
        "{} seeds in {:.1} s, {} failed, {stale_seeds} saw a requeued run's stale result ignored; in all: {total:?}",
        seeds.len(),
        started.elapsed().as_secs_f64(),
        failed.len()
    );
    assert!(failed.is_empty(), "failing seeds: {failed:?}");
}

/// A seed replays exactly: two runs of the same seed end in the same state, byte for byte.
#[test]
fn a_seed_replays_exactly() {
    let a = World::new(7).run_to_state(BUSY_MS / 4);
    let b = World::new(7).run_to_state(BUSY_MS / 4);
    assert_eq!(a, b);
}
