//! `scontrol reconfigure`: the controller reads slurm.conf again and applies it while jobs keep running; only
//! administrators may ask for it.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::attack::{is_root, text};
use common::users::TestUser;
use common::Cluster;

#[test]
fn reconfigure_applies_slurm_conf_and_jobs_keep_running() {
    let cluster = Cluster::start();
    let job = cluster.wrap("sleep 60", &["-o", "/dev/null"]);
    cluster.wait_for_state(job, "RUNNING", Duration::from_secs(30));
    let conf = std::fs::read_to_string(&cluster.conf).expect("slurm.conf");
    std::fs::write(
        &cluster.conf,
        format!("{conf}\nPartitionName=added Nodes=ALL MaxTime=30 State=UP\n"),
    )
    .expect("write slurm.conf");
    let out = cluster.run("scontrol", &["reconfigure"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(text(&out.stderr), "");
    let shown = cluster.ok("scontrol", &["show", "partition", "added"]);
    assert!(shown.contains("MaxTime=00:30:00"), "{shown}");
    assert_eq!(
        cluster
            .ok("squeue", &["-h", "-j", &job.to_string(), "-o", "%T"])
            .trim(),
        "RUNNING"
    );
    // Abbreviated as Slurm's scontrol takes it; a configuration that no longer loads (topology/tree without its
    // topology.conf) changes nothing.
    std::fs::write(
        &cluster.conf,
        format!("{conf}\nTopologyPlugin=topology/tree\n"),
    )
    .expect("write slurm.conf");
    let out = cluster.run("scontrol", &["reconf"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("slurm_reconfigure error: "));
    assert!(cluster
        .ok("scontrol", &["show", "partition", "added"])
        .contains("PartitionName=added"));
    std::fs::write(&cluster.conf, &conf).expect("restore slurm.conf");
}

#[test]
fn an_unprivileged_user_cannot_reconfigure() {
    if !is_root() {
        eprintln!("skipped: needs root (useradd)");
        return;
    }
    let mallory = TestUser::create("rc");
    let cluster = Cluster::start();
    for (path, mode) in [(cluster.dir.path(), 0o755), (cluster.conf.as_path(), 0o644)] {
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode))
            .expect("chmod");
    }
    let out = mallory.run(&cluster, "scontrol", &["reconfigure"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "slurm_reconfigure error: Access/permission denied\n"
    );
}
