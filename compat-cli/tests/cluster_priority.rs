//! Priorities through a real single-node Spur cluster with priority/multifactor and preemption by partition tier:
//! `sprio`'s numbers, `scontrol top` reordering a user's jobs, and a higher-tier job preempting a running one.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Cluster, ClusterOptions, LONG};

/// Weights whose factors are whole numbers on a 2-CPU node; `high` is the top tier, `low` cancels its preempted
/// jobs, `debug` (added by the harness) takes the cluster's `REQUEUE`.
fn multifactor_cluster() -> Cluster {
    Cluster::start_with(ClusterOptions {
        extra_conf: "PriorityType=priority/multifactor\nPriorityWeightJobSize=2000\n\
                     PriorityWeightPartition=3000\nPriorityWeightTRES=CPU=1000,Node=500\n\
                     PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n\
                     PartitionName=high Nodes=ALL MaxTime=INFINITE State=UP PriorityJobFactor=10 PriorityTier=2\n\
                     PartitionName=low Nodes=ALL MaxTime=INFINITE State=UP PreemptMode=CANCEL\n"
            .to_string(),
        ..ClusterOptions::default()
    })
}

#[test]
fn sprio_and_top_on_pending_jobs() {
    let cluster = multifactor_cluster();
    let blocker = cluster.wrap("sleep 60", &["-p", "high", "-n2"]);
    cluster.wait_for_state(blocker, "RUNNING", LONG);
    let small = cluster.wrap("true", &["-n1"]);
    let big = cluster.wrap("true", &["-n2"]);
    let ids = format!("{small},{big}");
    // Job size (nodes 1/1 + CPUs n/2) / 2 × 2000, partition 1/10 × 3000, CPU n/2 × 1000, node 1/1 × 500.
    let rows = cluster.ok("sprio", &["-h", "-j", &ids, "-o", "%i %Y %J %P %T"]);
    assert_eq!(
        rows,
        format!("{small} 2800 1500 300 cpu=500,node=500\n{big} 3800 2000 300 cpu=1000,node=500\n")
    );
    let top = cluster.run("scontrol", &["top", &small.to_string()]);
    assert!(top.status.success(), "{top:?}");
    let after = cluster.squeue("%i %Q %y", &["-j", &ids, "-S", "i"]);
    assert_eq!(
        after,
        vec![format!("{small} 3800 -1000"), format!("{big} 2800 1000")]
    );
    // The multifactor pass computes the same priorities from the new nice values.
    let rows = cluster.ok("sprio", &["-h", "-j", &ids, "-o", "%i %Y %N"]);
    assert_eq!(rows, format!("{small} 3800 -1000\n{big} 2800 1000\n"));
}

#[test]
fn a_higher_tier_job_preempts_cancel_and_requeue() {
    let cluster = multifactor_cluster();
    let victim = cluster.wrap("sleep 60", &["-p", "low", "-n2"]);
    cluster.wait_for_state(victim, "RUNNING", LONG);
    let urgent = cluster.wrap("sleep 60", &["-p", "high", "-n2"]);
    cluster.wait_for_state(urgent, "RUNNING", LONG);
    assert_eq!(cluster.wait_for_end(victim, LONG), "PREEMPTED");
    assert_eq!(cluster.job_field(victim, "ExitCode"), "0:15");
    cluster.ok("scancel", &[&urgent.to_string()]);
    cluster.wait_for_end(urgent, LONG);

    let requeued = cluster.wrap("sleep 60", &["-p", "debug", "-n2"]);
    cluster.wait_for_state(requeued, "RUNNING", LONG);
    let urgent = cluster.wrap("sleep 60", &["-p", "high", "-n2"]);
    cluster.wait_for_state(urgent, "RUNNING", LONG);
    cluster.expect_within(LONG, "the preempted job back in the queue", || {
        cluster.job_field(requeued, "JobState") == "PENDING"
            && cluster.job_field(requeued, "Restarts") == "1"
    });
}
