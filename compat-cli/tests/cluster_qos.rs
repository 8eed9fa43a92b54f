//! QOS and associations through a real single-node Spur cluster: sacctmgr's changes survive a controller
//! restart, `AccountingStorageEnforce` refuses a QOS the user's association may not use until sacctmgr allows it,
//! and with `PreemptType=preempt/qos` a job of a QOS that lists `normal` in `Preempt=` requeues a running job.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{current_user_name, text, Cluster, ClusterOptions, LONG};

const ACCOUNTING: &str = "AccountingStorageType=accounting_storage/slurmdbd\n\
    AccountingStorageEnforce=associations,qos\n";

#[test]
fn sacctmgr_changes_are_kept_and_enforced() {
    let mut cluster = Cluster::start_with(ClusterOptions {
        extra_conf: ACCOUNTING.to_string(),
        ..ClusterOptions::default()
    });
    let user = current_user_name();
    let added = cluster.ok("sacctmgr", &["-i", "add", "qos", "hi", "priority=10"]);
    assert_eq!(
        added,
        " Adding QOS(s)\n  hi\n Settings\n  Description    = hi\n  Priority                 = 10\n"
    );
    if user != "root" {
        cluster.ok("sacctmgr", &["-i", "add", "user", &user, "account=root"]);
    }
    let refused = cluster.run("sbatch", &["--qos=hi", "--hold", "--wrap", "true"]);
    assert!(!refused.status.success());
    assert_eq!(
        text(&refused.stderr),
        "sbatch: error: Batch job submission failed: Invalid qos specification\n"
    );
    cluster.ok(
        "sacctmgr",
        &["-i", "modify", "user", &user, "set", "qos+=hi"],
    );
    let job = cluster.wrap("true", &["--qos=hi", "--hold"]);
    assert_eq!(
        cluster.squeue("%q %a", &["-j", &job.to_string()]),
        ["hi root"]
    );
    assert_eq!(cluster.job_field(job, "QOS"), "hi");

    cluster.crash_controller();
    cluster.restart_controller();
    let qos = cluster.ok(
        "sacctmgr",
        &["-n", "-P", "show", "qos", "format=name,priority"],
    );
    assert_eq!(qos, "normal|0\nhi|10\n");
    let assoc = cluster.ok(
        "sacctmgr",
        &[
            "-n",
            "-P",
            "show",
            "assoc",
            "format=account,user,qos",
            "where",
            &format!("user={user}"),
        ],
    );
    assert_eq!(assoc, format!("root|{user}|hi,normal\n"));
    let deleted = cluster.ok("sacctmgr", &["-i", "delete", "qos", "hi"]);
    assert_eq!(deleted, " Deleting QOS(s)...\n  hi\n");
    // Without -i sacctmgr asks; no answer discards.
    let asked = cluster.run("sacctmgr", &["add", "qos", "later"]);
    assert!(text(&asked.stdout).ends_with("(N/y): \n Changes Discarded\n"));
    assert_eq!(
        cluster.ok("sacctmgr", &["-n", "-P", "show", "qos", "format=name"]),
        "normal\n"
    );
}

#[test]
fn a_qos_preempts_the_qos_it_lists() {
    let cluster = Cluster::start_with(ClusterOptions {
        extra_conf: format!(
            "{ACCOUNTING}PreemptType=preempt/qos\nPreemptMode=REQUEUE\n\
             PriorityType=priority/multifactor\nPriorityWeightQOS=1000\n"
        ),
        ..ClusterOptions::default()
    });
    let user = current_user_name();
    cluster.ok(
        "sacctmgr",
        &[
            "-i",
            "add",
            "qos",
            "urgent",
            "priority=10",
            "preempt=normal",
        ],
    );
    if user != "root" {
        cluster.ok("sacctmgr", &["-i", "add", "user", &user, "account=root"]);
    }
    cluster.ok(
        "sacctmgr",
        &["-i", "modify", "user", &user, "set", "qos+=urgent"],
    );
    let victim = cluster.wrap("sleep 300", &["--exclusive", "--requeue"]);
    cluster.wait_for_state(victim, "RUNNING", LONG);
    let urgent = cluster.wrap("sleep 300", &["--exclusive", "--qos=urgent"]);
    cluster.wait_for_state(urgent, "RUNNING", LONG);
    assert_eq!(cluster.job_field(victim, "Restarts"), "1");
    assert_eq!(cluster.job_field(victim, "JobState"), "PENDING");
    // sprio leaves out a job whose begin time is ahead, as a requeued job's is (slurmctld's requeue delay):
    // StartTime=now brings it back; the exclusive urgent job still keeps it waiting.
    cluster.ok(
        "scontrol",
        &["update", &format!("jobid={victim}"), "StartTime=now"],
    );
    let prio = cluster.ok("sprio", &["-h", "-j", &victim.to_string(), "-o", "%Q"]);
    assert_eq!(prio.trim(), "0", "normal's priority is 0: no QOS factor");
    cluster.ok("scancel", &[&victim.to_string(), &urgent.to_string()]);
}
