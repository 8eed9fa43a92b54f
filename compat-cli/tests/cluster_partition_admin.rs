//! Partitions changed at run time through a real single-node Spur cluster: `scontrol create partition` makes one
//! jobs can use, it survives a controller crash and restart (it lives in the replicated state, and applying
//! slurm.conf again keeps it), a deleted configured partition comes back from slurm.conf, and a partition with a job
//! is refused for deletion.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{short_hostname, text, Cluster, LONG};

#[test]
fn a_created_partition_runs_jobs_and_survives_a_controller_restart() {
    let mut cluster = Cluster::start();
    cluster.wait_for_node_idle();
    let node = short_hostname();
    cluster.ok(
        "scontrol",
        &[
            "create",
            "PartitionName=rt",
            &format!("Nodes={node}"),
            "MaxTime=30",
            "PriorityTier=2",
        ],
    );
    let job = cluster.wrap("sleep 60", &["-p", "rt"]);
    cluster.wait_for_state(job, "RUNNING", LONG);
    let refused = cluster.run("scontrol", &["delete", "PartitionName=rt"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        "delete_partition PartitionName=rt: Partition is in use\n"
    );
    // The configured partition goes away until slurm.conf is applied again.
    cluster.ok("scontrol", &["delete", "PartitionName=debug"]);

    cluster.crash_controller();
    cluster.restart_controller();

    let partitions = cluster.ok("sinfo", &["-h", "-o", "%P %l %D"]);
    assert_eq!(
        partitions,
        "debug* infinite 1\nrt 30:00 1\n",
        "{}",
        cluster.logs()
    );
    let shown = cluster.ok("scontrol", &["-o", "show", "partition", "rt"]);
    assert!(
        shown.contains(" MaxTime=00:30:00 ") && shown.contains(" PriorityTier=2 "),
        "{shown}"
    );
    assert_eq!(cluster.job_field(job, "Partition"), "rt");
    cluster.ok("scancel", &[&job.to_string()]);
    cluster.wait_for_end(job, LONG);
    cluster.ok("scontrol", &["delete", "PartitionName=rt"]);
    let gone = cluster.run("scontrol", &["show", "partition", "rt"]);
    assert_eq!(gone.status.code(), Some(1));
}
