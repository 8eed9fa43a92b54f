//! Benchmark of the job history store (docs/accounting.md, "History store"; figures in docs/performance.md). Not a
//! test: it measures and prints.
//!
//! It pushes finished jobs through the real state machine with no daemons: every simulated minute `--per-minute`
//! jobs are submitted, a scheduling pass starts them, they finish 30 s later and the leader's `Purge` runs, each
//! command applied as the raft layer applies it (then `batch_applied`, which writes the history store). Every
//! `--every` jobs it prints the replicated state's size (live jobs, handoff buffer, snapshot bytes), the process's
//! RSS, the store's size and the time a restart's restore takes; at the end the time of sacct's query for one day
//! (`sacct -S day -E nextday`: live jobs, buffer and store together, filtered and sorted as sacct gets them), of
//! one job (`sacct -j`), and of a restart (store opened, snapshot restored).
//!
//! Usage: spur-history-bench [--jobs N] [--per-minute B] [--every K] [--dir DIR] [--pg-port PORT]

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use clap::Parser;

use spur_controller::history::postgres::{PgTarget, PostgresHistory};
use spur_controller::history::sqlite::SqliteHistory;
use spur_controller::history::{HistoryLink, HistoryStore};
use spur_controller::raft::AppStateMachine;
use spur_controller::scheduler::scenario::{job, node, partition, Scenario};
use spur_controller::state::{ClusterState, Command, Outcome, Settings};
use spur_core::model::accounting::Filter;
use spur_core::model::job::EpochSecs;

#[derive(Parser, Debug)]
#[command(
    name = "spur-history-bench",
    about = "State size, sacct query time and restart time with a long job history"
)]
struct Args {
    /// Finished jobs to push through.
    #[arg(long, default_value_t = 1_000_000)]
    jobs: u64,
    /// Jobs submitted (and finished) per simulated minute; 70 is about 100,000 a day.
    #[arg(long, default_value_t = 70)]
    per_minute: u32,
    /// Print the sizes every this many jobs.
    #[arg(long, default_value_t = 100_000)]
    every: u64,
    /// Where the history store goes (a fresh temporary folder if not given).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Use the PostgreSQL store on 127.0.0.1 at this port (user `spur`, database `postgres`, no password; its
    /// `jobs` table should be empty) instead of SQLite.
    #[arg(long)]
    pg_port: Option<u16>,
}

/// The store the bench writes: SQLite at `path`, or PostgreSQL.
fn open_store(path: &Path, pg_port: Option<u16>) -> anyhow::Result<Arc<dyn HistoryStore>> {
    Ok(match pg_port {
        Some(port) => Arc::new(PostgresHistory::open(&PgTarget {
            host: "127.0.0.1".into(),
            port,
            user: "spur".into(),
            password: None,
            database: "postgres".into(),
        })?),
        None => Arc::new(SqliteHistory::open(path)?),
    })
}

/// 2026-01-01T00:00:00Z: simulated days start at midnight.
const START: EpochSecs = 1_767_225_600;
const DAY: EpochSecs = 86_400;
const NODES: usize = 100;

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn file_mb(path: &Path) -> f64 {
    // The WAL beside the database holds recent writes until a checkpoint.
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let wal = path.with_extension("sqlite-wal");
    (size(path) + size(&wal)) as f64 / (1024.0 * 1024.0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn apply(s: &mut Scenario, command: Command) -> anyhow::Result<()> {
    s.apply(command).map_err(|e| anyhow!("apply: {e}"))?;
    Ok(())
}

/// What a restart does: open the store, restore the snapshot onto an empty state linked to it (which hands the
/// buffer to the store again). Answers the restored state and how long it took.
fn restart(
    store_path: &Path,
    pg_port: Option<u16>,
    snapshot: &[u8],
) -> anyhow::Result<(ClusterState, Duration)> {
    let began = Instant::now();
    let mut state = ClusterState::new();
    state.history = HistoryLink::new(open_store(store_path, pg_port)?);
    AppStateMachine::restore(&mut state, snapshot).context("restore")?;
    Ok((state, began.elapsed()))
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let temp;
    let dir = match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            dir.clone()
        }
        None => {
            temp = tempfile_dir()?;
            temp.clone()
        }
    };
    let store_path = dir.join("history.sqlite");
    let _ = std::fs::remove_file(&store_path);
    let _ = std::fs::remove_file(store_path.with_extension("sqlite-wal"));
    let names: Vec<String> = (0..NODES).map(|i| format!("n{i:03}")).collect();
    let mut s = Scenario::new(
        names.iter().map(|n| node(n, 4, 16_000, 0)).collect(),
        vec![partition("batch", &names, true)],
        Settings {
            min_job_age_secs: 300,
            ..Settings::default()
        },
        START,
    )
    .map_err(|e| anyhow!("cluster: {e}"))?;
    s.state.history = HistoryLink::new(open_store(&store_path, args.pg_port)?);
    println!(
        "| jobs | live jobs | buffer | snapshot MB | RSS MB | store MB | restart ms | jobs/s |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let began = Instant::now();
    let mut lap = Instant::now();
    let mut done: u64 = 0;
    let mut next_report = args.every;
    while done < args.jobs {
        let batch = u64::from(args.per_minute).min(args.jobs - done);
        let mut ids = Vec::new();
        for i in 0..batch {
            let mut spec = job(1, 100, 0, Some(10));
            spec.user_id = 1000 + u32::try_from((done + i) % 50).unwrap_or(0);
            spec.name = format!("bench{}", (done + i) % 7);
            ids.push(s.submit(spec).map_err(|e| anyhow!("submit: {e}"))?);
        }
        AppStateMachine::batch_applied(&mut s.state);
        s.pass().map_err(|e| anyhow!("pass: {e}"))?;
        AppStateMachine::batch_applied(&mut s.state);
        s.now += 30;
        for job_id in ids {
            let now = s.now;
            apply(
                &mut s,
                Command::Finished {
                    job_id,
                    outcome: Outcome::Exited { code: 0, signal: 0 },
                    now,
                    run: None,
                },
            )?;
        }
        AppStateMachine::batch_applied(&mut s.state);
        s.now += 30;
        let now = s.now;
        apply(&mut s, Command::Purge { now })?;
        AppStateMachine::batch_applied(&mut s.state);
        done += batch;
        if done >= next_report || done == args.jobs {
            next_report += args.every;
            let snapshot = AppStateMachine::snapshot(&s.state).context("snapshot")?;
            let (_, restart_time) = restart(&store_path, args.pg_port, &snapshot)?;
            let rate = args.every.min(done) as f64 / lap.elapsed().as_secs_f64();
            println!(
                "| {done} | {} | {} | {:.2} | {:.0} | {:.0} | {:.0} | {:.0} |",
                s.state.jobs.len(),
                s.state.accounting.len(),
                snapshot.len() as f64 / (1024.0 * 1024.0),
                rss_mb(),
                file_mb(&store_path),
                ms(restart_time),
                rate,
            );
            lap = Instant::now();
        }
    }
    println!(
        "\npushed {done} jobs in {:.1} s ({} simulated days)",
        began.elapsed().as_secs_f64(),
        (s.now - START) / DAY
    );

    // sacct -S <day> -E <next day> over a day in the middle of the history, and sacct -j of one old job.
    let days = ((s.now - START) / DAY).max(1);
    let from = START + (days / 2) * DAY;
    let window = Filter {
        window: Some((from, from + DAY)),
        ..Filter::default()
    };
    let now = s.now;
    let mut times = Vec::new();
    let mut count = 0;
    for _ in 0..5 {
        let t = Instant::now();
        count = s
            .state
            .accounting_records(None, None, Some(&window), now)
            .len();
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "sacct -S day -E nextday: {count} jobs, median {:.0} ms, best {:.0} ms",
        ms(times.get(2).copied().unwrap_or_default()),
        ms(times.first().copied().unwrap_or_default())
    );
    let t = Instant::now();
    let one = s
        .state
        .accounting_records(Some(&[42]), None, None, now)
        .len();
    println!("sacct -j 42: {one} job, {:.2} ms", ms(t.elapsed()));

    let snapshot = AppStateMachine::snapshot(&s.state).context("snapshot")?;
    drop(s);
    let (restored, restart_time) = restart(&store_path, args.pg_port, &snapshot)?;
    let t = Instant::now();
    let again = restored
        .accounting_records(None, None, Some(&window), now)
        .len();
    println!(
        "restart (store opened, {:.2} MB snapshot restored): {:.0} ms; the same day after it: {again} jobs in {:.0} ms",
        snapshot.len() as f64 / (1024.0 * 1024.0),
        ms(restart_time),
        ms(t.elapsed())
    );
    if args.dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// A fresh folder under the system's temporary directory (no tempfile dependency in the binary).
fn tempfile_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("spur-history-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
