//! Preemption by partition tier through a real single-node Spur cluster, for what Slurm's own timing makes hard to
//! compare line by line: `PreemptMode=SUSPEND,GANG` (the lower-tier job is stopped while the preemptor runs and
//! continues by itself afterwards) and `PreemptExemptTime` (a young job is left alone until it has run that long).

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{Cluster, ClusterOptions, LONG};

fn cluster_with(preemption: &str) -> Cluster {
    Cluster::start_with(ClusterOptions {
        extra_conf: format!(
            "PreemptType=preempt/partition_prio\n{preemption}\n\
             PartitionName=high Nodes=ALL MaxTime=INFINITE State=UP PriorityTier=2\n"
        ),
        ..ClusterOptions::default()
    })
}

/// Seconds since the epoch of a time as scontrol prints it.
fn epoch(time: &str) -> i64 {
    let out = Command::new("date")
        .args(["-d", time, "+%s"])
        .output()
        .expect("date");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a time: {time:?}"))
}

/// The number of lines the victim's ticker wrote so far.
fn ticks(file: &Path) -> usize {
    std::fs::read_to_string(file)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn suspend_gang_stops_the_lower_tier_job_and_resumes_it_after_the_preemptor() {
    let cluster = cluster_with("PreemptMode=SUSPEND,GANG");
    assert_eq!(
        cluster.ok("sinfo", &["-h", "-o", "%P %M %p"]),
        "high GANG,SUSPEND 2\ndebug* GANG,SUSPEND 1\n"
    );
    let dir = cluster.subdir("suspend");
    let ticker = dir.join("ticks");
    let victim = cluster.sbatch_in(
        &dir,
        &[
            "-n2",
            "-t",
            "1",
            &format!(
                "--wrap=while true; do echo tick >> {}; sleep 0.2; done",
                ticker.display()
            ),
        ],
    );
    cluster.wait_for_state(victim, "RUNNING", LONG);
    let end_before = cluster.job_field(victim, "EndTime");
    cluster.expect_within(LONG, "the victim to tick", || ticks(&ticker) >= 3);
    let urgent = cluster.wrap("sleep 4", &["-p", "high", "-n2"]);
    cluster.wait_for_state(urgent, "RUNNING", LONG);
    assert_eq!(
        cluster.squeue("%i %t %r", &["-j", &victim.to_string()]),
        vec![format!("{victim} S None")]
    );
    assert_eq!(cluster.job_field(victim, "PreemptTime"), "None");
    let suspended_at = epoch(&cluster.job_field(victim, "SuspendTime"));
    // Stopped: the ticker writes nothing more while the preemptor runs.
    std::thread::sleep(Duration::from_millis(500));
    let frozen = ticks(&ticker);
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(ticks(&ticker), frozen, "the suspended job kept running");
    assert_eq!(cluster.wait_for_end(urgent, LONG), "COMPLETED");
    cluster.wait_for_state(victim, "RUNNING", LONG);
    cluster.expect_within(LONG, "the resumed victim to tick", || {
        ticks(&ticker) > frozen
    });
    // Its end moved out by the time it spent suspended, as in Slurm.
    let resumed_at = epoch(&cluster.job_field(victim, "SuspendTime"));
    assert!(
        resumed_at - suspended_at >= 3,
        "{suspended_at} {resumed_at}"
    );
    let end_after = epoch(&cluster.job_field(victim, "EndTime"));
    assert_eq!(end_after - epoch(&end_before), resumed_at - suspended_at);
    let started = epoch(&cluster.job_field(victim, "StartTime"));
    assert_eq!(
        cluster.job_field(victim, "SecsPreSuspend"),
        (suspended_at - started).to_string(),
        "the run time before the suspension"
    );
    cluster.ok("scancel", &[&victim.to_string()]);
    assert_eq!(cluster.wait_for_end(victim, LONG), "CANCELLED");
    // Everything it held is back: a 2-CPU job starts at once.
    let after = cluster.wrap("true", &["-n2"]);
    assert_eq!(cluster.wait_for_end(after, LONG), "COMPLETED");
}

#[test]
fn exempt_time_keeps_a_young_job_from_preemption() {
    let cluster = cluster_with("PreemptMode=CANCEL\nPreemptExemptTime=00:00:04");
    let victim = cluster.wrap("sleep 60", &["-n2"]);
    cluster.wait_for_state(victim, "RUNNING", LONG);
    let started = epoch(&cluster.job_field(victim, "StartTime"));
    assert_eq!(
        epoch(&cluster.job_field(victim, "PreemptEligibleTime")) - started,
        4
    );
    let urgent = cluster.wrap("sleep 60", &["-p", "high", "-n2"]);
    std::thread::sleep(Duration::from_millis(1500));
    let now = epoch("now");
    if now < started + 4 {
        assert_eq!(cluster.job_field(victim, "JobState"), "RUNNING");
        assert_eq!(cluster.job_field(urgent, "JobState"), "PENDING");
    }
    assert_eq!(cluster.wait_for_end(victim, LONG), "PREEMPTED");
    let preempted = epoch(&cluster.job_field(victim, "PreemptTime"));
    assert!(preempted >= started + 4, "{started} {preempted}");
    cluster.wait_for_state(urgent, "RUNNING", LONG);
    cluster.ok("scancel", &[&urgent.to_string()]);
    cluster.wait_for_end(urgent, LONG);
}
