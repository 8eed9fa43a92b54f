//! Advance reservations through a real single-node Spur cluster: `scontrol create reservation`, a job kept off the
//! reserved node and one running inside the reservation, the reservation surviving a controller crash (it lives in
//! the replicated state), and deletion refused while jobs still ask for it.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{short_hostname, Cluster, LONG};

#[test]
fn reservations_hold_nodes_for_their_jobs_and_survive_a_controller_crash() {
    let mut cluster = Cluster::start();
    cluster.wait_for_node_idle();
    let node = short_hostname();
    let created = cluster.ok(
        "scontrol",
        &[
            "create",
            "reservation",
            "ReservationName=maint1",
            "StartTime=now",
            "Duration=30",
            &format!("Nodes={node}"),
            "Users=root",
        ],
    );
    assert_eq!(created, "Reservation created: maint1\n");
    let outsider = cluster.wrap("sleep 60", &[]);
    let insider = cluster.wrap("sleep 60", &["--reservation=maint1"]);
    cluster.wait_for_state(insider, "RUNNING", LONG);
    cluster.expect_within(LONG, "the outsider to wait for the reservation", || {
        cluster.squeue("%r", &["-j", &outsider.to_string()])
            == vec!["ReqNodeNotAvail, May be reserved for other job".to_string()]
    });
    assert_eq!(cluster.job_field(insider, "Reservation"), "maint1");
    assert_eq!(cluster.ok("sinfo", &["-h", "-o", "%t"]), "mix\n");

    cluster.crash_controller();
    cluster.restart_controller();

    let shown = cluster.ok("sinfo", &["-T", "-h"]);
    assert!(
        shown.starts_with("maint1")
            && shown.contains(" ACTIVE ")
            && shown.trim_end().ends_with(&node),
        "{shown}\n{}",
        cluster.logs()
    );
    assert_eq!(
        cluster.squeue(
            "%i %T %v",
            &["-j", &format!("{outsider},{insider}"), "-S", "i"]
        ),
        vec![
            format!("{outsider} PENDING (null)"),
            format!("{insider} RUNNING maint1")
        ]
    );

    let refused = cluster.run("scontrol", &["delete", "reservation", "maint1"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "delete_reservation reservation: Requested reservation is in use\n"
    );
    cluster.ok("scancel", &[&insider.to_string()]);
    cluster.wait_for_end(insider, LONG);
    cluster.ok("scontrol", &["delete", "reservation", "maint1"]);
    // With the reservation gone, the outsider gets the node.
    cluster.wait_for_state(outsider, "RUNNING", LONG);
    assert_eq!(
        cluster.ok("scontrol", &["show", "reservation"]),
        "No reservations in the system\n"
    );
    cluster.ok("scancel", &[&outsider.to_string()]);
}
