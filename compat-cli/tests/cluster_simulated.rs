//! Simulated nodes end to end: one `spurd --simulate` registers 50 nodes with a real spurctld (MUNGE-authenticated,
//! one session per node), jobs run there for the seconds their `SPUR_SIM_RUNTIME` declares and complete with exit
//! code 0, and scancel (plain or with a signal) ends them as it would a real batch script.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{Cluster, ClusterOptions};

const NODES: u32 = 50;

fn simulated_cluster() -> Cluster {
    Cluster::start_with(ClusterOptions {
        cpus: 4,
        memory_mb: 8000,
        simulate: Some(NODES),
        ..Default::default()
    })
}

/// `sbatch --parsable ARGS --wrap true` with `SPUR_SIM_RUNTIME` in the job's environment.
fn submit(cluster: &Cluster, runtime: &str, args: &[&str]) -> u32 {
    let mut cmd = cluster.command(cluster.dir.path(), "sbatch", &["--parsable"]);
    cmd.args(args)
        .args(["-o", "/dev/null", "--wrap", "true"])
        .env("SPUR_SIM_RUNTIME", runtime);
    let out = cmd.output().expect("run sbatch");
    assert!(
        out.status.success(),
        "sbatch failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        cluster.logs()
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .split(';')
        .next()
        .and_then(|id| id.parse().ok())
        .expect("job id")
}

fn job_lines(cluster: &Cluster, states: &str) -> Vec<String> {
    cluster
        .ok("squeue", &["-h", "-r", "-t", states, "-o", "%i %T %N"])
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn simulated_nodes_run_jobs_for_their_declared_time() {
    let cluster = simulated_cluster();
    let nodes = cluster.ok("sinfo", &["-h", "-o", "%D %T %N"]);
    assert_eq!(nodes.trim(), "50 idle sim[001-050]");

    // Two jobs of 2 CPUs fit on each 4-CPU node: all 100 tasks start at once, across all 50 nodes.
    let array = submit(&cluster, "3", &["--array=1-100", "-c", "2"]);
    let submitted = Instant::now();
    cluster.expect_within(Duration::from_secs(20), "100 tasks running", || {
        job_lines(&cluster, "R").len() == 100
    });
    let running = job_lines(&cluster, "R");
    let used: std::collections::BTreeSet<&str> = running
        .iter()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    assert_eq!(used.len(), 50, "{running:?}");
    // They last about their declared 3 s: still running a second after starting, done within a few more.
    std::thread::sleep(Duration::from_secs(1));
    if submitted.elapsed() < Duration::from_millis(2500) {
        assert_eq!(job_lines(&cluster, "R").len(), 100);
    }
    cluster.expect_within(Duration::from_secs(20), "all tasks completed", || {
        job_lines(&cluster, "PD,R,CG").is_empty()
    });
    for task in [1, 50, 100] {
        let id = format!("{array}_{task}");
        let line = cluster.ok("scontrol", &["show", "job", "-o", &id]);
        assert!(line.contains("JobState=COMPLETED"), "{line}");
        assert!(line.contains("ExitCode=0:0"), "{line}");
        let secs = |key: &str| -> i64 {
            let value = line
                .split_whitespace()
                .find_map(|f| f.strip_prefix(key))
                .unwrap_or_default();
            let out = std::process::Command::new("date")
                .args(["-d", value, "+%s"])
                .output()
                .expect("date");
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .unwrap_or(0)
        };
        let ran = secs("EndTime=") - secs("StartTime=");
        assert!((3..=5).contains(&ran), "ran {ran} s: {line}");
    }
    assert_eq!(
        cluster.ok("sinfo", &["-h", "-o", "%D %T"]).trim(),
        "50 idle"
    );
}

#[test]
fn scancel_ends_simulated_jobs() {
    let cluster = simulated_cluster();
    let cancelled = submit(&cluster, "600", &[]);
    let signalled = submit(&cluster, "600", &[]);
    let ignored = submit(&cluster, "600", &[]);
    for job in [cancelled, signalled, ignored] {
        cluster.wait_for_state(job, "RUNNING", Duration::from_secs(20));
    }
    cluster.ok("scancel", &[&cancelled.to_string()]);
    cluster.wait_for_state(cancelled, "CANCELLED", Duration::from_secs(10));
    assert_eq!(cluster.job_field(cancelled, "ExitCode"), "0:15");

    // A signal fatal by default ends the job as it would end a batch script; SIGURG is ignored by default.
    cluster.ok(
        "scancel",
        &["--full", "--signal=USR1", &signalled.to_string()],
    );
    cluster.ok("scancel", &["--full", "--signal=URG", &ignored.to_string()]);
    cluster.expect_within(Duration::from_secs(10), "the signalled job ended", || {
        cluster.job_field(signalled, "JobState") != "RUNNING"
    });
    assert_eq!(cluster.job_field(signalled, "ExitCode"), "0:10");
    assert_eq!(cluster.job_field(ignored, "JobState"), "RUNNING");
    cluster.ok("scancel", &[&ignored.to_string()]);
    cluster.wait_for_state(ignored, "CANCELLED", Duration::from_secs(10));
}

#[test]
fn simulated_nodes_come_back_after_a_controller_restart() {
    let mut cluster = simulated_cluster();
    let job = submit(&cluster, "4", &[]);
    cluster.wait_for_state(job, "RUNNING", Duration::from_secs(20));
    // The job ends while no controller listens: its node keeps the result and reports it on its next session.
    cluster.kill_controller();
    std::thread::sleep(Duration::from_secs(5));
    cluster.restart_controller();
    assert_eq!(
        cluster.wait_for_end(job, Duration::from_secs(30)),
        "COMPLETED"
    );
    assert_eq!(cluster.job_field(job, "ExitCode"), "0:0");
    cluster.expect_within(
        Duration::from_secs(30),
        "every node registered again",
        || cluster.ok("sinfo", &["-h", "-o", "%D %T"]).trim() == "50 idle",
    );
}
