//! The job history store through a real single-node Spur cluster: purged jobs' records reach the controller's
//! `history.sqlite` (owner-only), and `sacct` and `sacctmgr modify job` are served from it alone once the
//! replicated state no longer holds them: here the whole Raft state (log and snapshots) is deleted, so nothing
//! but the store can answer, and an edit of a record only in the store survives another restart.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;

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
