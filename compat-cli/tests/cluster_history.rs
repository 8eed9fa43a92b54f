//! The job history store through a real single-node Spur cluster: purged jobs' records reach the controller's
//! `history.sqlite` (owner-only), and `sacct` and `sacctmgr modify job` are served from it alone once the
//! replicated state no longer holds them: here the whole Raft state (log and snapshots) is deleted, so nothing
//! but the store can answer, and an edit of a record only in the store survives another restart. With
//! `PrivateData=jobs`, a user sees none of another user's records from the store, cannot edit them, and cannot read
//! the store's file.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;

use common::users::TestUser;
use common::{Cluster, ClusterOptions, LONG};

#[test]
fn sacct_and_edits_are_served_from_the_history_store_after_the_state_is_lost() {
    let mut cluster = Cluster::start_with(ClusterOptions {
        min_job_age: 2,
        ..ClusterOptions::default()
    });
    let ok = cluster.wrap("true", &["-J", "kept"]);
    let bad = cluster.wrap("exit 3", &["-J", "failed"]);
    for job in [ok, bad] {
        cluster.wait_for_end(job, LONG);
    }
    cluster.expect_within(LONG, "the jobs to be purged from squeue", || {
        cluster.squeue("%i", &["-t", "all"]).is_empty()
    });
    let state = cluster.dir.path().join("state");
    let store = state.join("history.sqlite");
    let mode = std::fs::metadata(&store)
        .expect("the controller's history store")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "no other user may read the history");

    // The replicated state is lost (log and snapshots): only the history store remains.
    cluster.crash_controller();
    std::fs::remove_dir_all(state.join("raft")).expect("the Raft state");
    cluster.restart_controller();
    assert!(
        cluster.squeue("%i", &["-t", "all"]).is_empty(),
        "a fresh state"
    );

    let ids = format!("{ok},{bad}");
    let fields = [
        "-j",
        &ids,
        "-X",
        "-P",
        "-o",
        "JobID,JobName,State,ExitCode,Comment",
    ];
    assert_eq!(
        cluster.ok("sacct", &fields),
        format!(
            "JobID|JobName|State|ExitCode|Comment\n{ok}|kept|COMPLETED|0:0|\n{bad}|failed|FAILED|3:0|\n"
        )
    );
    // An edit of a record only the store holds goes through the log into the store.
    cluster.ok(
        "sacctmgr",
        &[
            "-i",
            "modify",
            "job",
            "where",
            &format!("jobid={ok}"),
            "set",
            "comment=rerun",
        ],
    );
    cluster.crash_controller();
    cluster.restart_controller();
    assert_eq!(
        cluster.ok("sacct", &fields),
        format!(
            "JobID|JobName|State|ExitCode|Comment\n{ok}|kept|COMPLETED|0:0|rerun\n{bad}|failed|FAILED|3:0|\n"
        )
    );
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn sbatch_as(user: &TestUser, cluster: &Cluster) -> u32 {
    let out = user.run(
        cluster,
        "sbatch",
        &["--parsable", "-o", "/dev/null", "--wrap", "true"],
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stderr),
        cluster.logs()
    );
    text(&out.stdout).trim().parse().expect("job id")
}

#[test]
fn private_data_holds_for_records_served_from_the_store() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: creating users needs root");
        return;
    }
    // Users first: locals drop in reverse, so the cluster goes before userdel runs.
    let alice = TestUser::create("ha");
    let bob = TestUser::create("hb");
    let mut cluster = Cluster::start_with(ClusterOptions {
        min_job_age: 2,
        extra_conf: "PrivateData=jobs\n".to_string(),
        ..ClusterOptions::default()
    });
    std::fs::set_permissions(cluster.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&cluster.conf, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mine = sbatch_as(&alice, &cluster);
    let theirs = sbatch_as(&bob, &cluster);
    for job in [mine, theirs] {
        cluster.wait_for_end(job, LONG);
    }
    cluster.expect_within(LONG, "the jobs to be purged from squeue", || {
        cluster.squeue("%i", &["-t", "all"]).is_empty()
    });
    let state = cluster.dir.path().join("state");
    cluster.crash_controller();
    std::fs::remove_dir_all(state.join("raft")).expect("the Raft state");
    cluster.restart_controller();

    let ids = format!("{mine},{theirs}");
    let listing = |args: &[&str]| {
        let out = alice.run(&cluster, "sacct", args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(
        listing(&["-X", "-n", "-P", "-o", "JobID", "-j", &ids]),
        format!("{mine}\n")
    );
    let uid = bob.uid.to_string();
    assert_eq!(
        listing(&["-X", "-n", "-P", "-o", "JobID", "--uid", &uid]),
        ""
    );
    assert_eq!(
        listing(&["-X", "-n", "-P", "-o", "JobID", "-a"]),
        format!("{mine}\n")
    );
    // Root sees both, from the store.
    assert_eq!(
        cluster.ok("sacct", &["-X", "-n", "-P", "-o", "JobID", "-j", &ids]),
        format!("{mine}\n{theirs}\n")
    );
    // Bob's record cannot be edited by alice, and stays as it was.
    let edit = alice.run(
        &cluster,
        "sacctmgr",
        &[
            "-i",
            "modify",
            "job",
            "where",
            &format!("jobid={theirs}"),
            "set",
            "comment=mine",
        ],
    );
    assert!(!edit.status.success(), "{}", text(&edit.stdout));
    assert_eq!(
        cluster.ok(
            "sacct",
            &["-X", "-n", "-P", "-o", "Comment", "-j", &theirs.to_string()]
        ),
        "\n"
    );
    // The store's file is the controller's alone.
    let store = state.join("history.sqlite");
    let read = alice.program("cat", &[store.to_str().unwrap()]);
    assert!(!read.status.success(), "alice read the history store");
}
