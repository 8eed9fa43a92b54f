//! `TopologyPlugin=topology/tree` end to end: a real spurctld reads topology.conf beside slurm.conf, `scontrol show
//! topology` prints its switches as Slurm 22.05 does, and multi-node jobs on simulated nodes land under one leaf
//! switch where the first nodes in order would have spanned two.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{Cluster, ClusterOptions};

/// Leaf `sw1` holds three nodes, `sw2` five: nodes in order, a 4-node job would take sim[001-004] across both.
const TOPOLOGY: &str = "# two leaves under one spine\nSwitchName=sw1 Nodes=sim[001-003]\n\
                        SwitchName=sw2 Nodes=sim[004-008] LinkSpeed=100\nSwitchName=spine Switches=sw[1-2]\n";

/// Eight simulated nodes, restarted with topology/tree (a controller reads topology.conf only as it starts).
fn cluster() -> Cluster {
    let mut cluster = Cluster::start_with(ClusterOptions {
        cpus: 4,
        memory_mb: 8000,
        simulate: Some(8),
        ..Default::default()
    });
    std::fs::write(cluster.conf.with_file_name("topology.conf"), TOPOLOGY).expect("topology.conf");
    let mut conf = std::fs::read_to_string(&cluster.conf).expect("slurm.conf");
    conf.push_str("TopologyPlugin=topology/tree\n");
    std::fs::write(&cluster.conf, conf).expect("slurm.conf");
    cluster.kill_controller();
    cluster.restart_controller();
    cluster.expect_within(Duration::from_secs(30), "8 idle nodes", || {
        cluster.ok("sinfo", &["-h", "-o", "%D %T"]).trim() == "8 idle"
    });
    cluster
}

fn submit(cluster: &Cluster, args: &[&str]) -> u32 {
    let mut cmd = cluster.command(cluster.dir.path(), "sbatch", &["--parsable"]);
    cmd.args(args)
        .args(["-o", "/dev/null", "--wrap", "true"])
        .env("SPUR_SIM_RUNTIME", "30");
    let out = cmd.output().expect("run sbatch");
    assert!(
        out.status.success(),
        "sbatch failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        cluster.logs()
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("job id")
}

#[test]
fn multi_node_jobs_stay_under_one_switch_and_scontrol_shows_the_tree() {
    let cluster = cluster();
    assert_eq!(
        cluster.ok("scontrol", &["show", "topology"]),
        "SwitchName=sw1 Level=0 LinkSpeed=1 Nodes=sim[001-003]\n\
         SwitchName=sw2 Level=0 LinkSpeed=100 Nodes=sim[004-008]\n\
         SwitchName=spine Level=1 LinkSpeed=1 Nodes=sim[001-008] Switches=sw[1-2]\n"
    );
    assert_eq!(
        cluster.ok("scontrol", &["show", "topo", "sim005"]),
        "SwitchName=sw2 Level=0 LinkSpeed=100 Nodes=sim[004-008]\n\
         SwitchName=spine Level=1 LinkSpeed=1 Nodes=sim[001-008] Switches=sw[1-2]\n"
    );
    let missing = cluster.run("scontrol", &["show", "topology", "nosuch"]);
    assert!(missing.status.success());
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        "scontrol: error: Topology information contains no switch or node named nosuch\n"
    );

    let four = submit(&cluster, &["-N4", "--exclusive"]);
    cluster.wait_for_state(four, "RUNNING", Duration::from_secs(20));
    assert_eq!(cluster.job_field(four, "NodeList"), "sim[004-007]");
    // The tightest leaf that holds two nodes is sw1.
    let two = submit(&cluster, &["-N2", "--exclusive", "--switches=1@1:00"]);
    cluster.wait_for_state(two, "RUNNING", Duration::from_secs(20));
    assert_eq!(cluster.job_field(two, "NodeList"), "sim[001-002]");
    assert_eq!(cluster.job_field(two, "Switches"), "1@00:01:00");
    // Two free nodes are left, one under each leaf: with a limit of one leaf the job waits for Resources.
    let waits = submit(&cluster, &["-N2", "--exclusive", "--switches=1"]);
    cluster.wait_for_state(waits, "PENDING", Duration::from_secs(10));
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(cluster.job_field(waits, "JobState"), "PENDING");
    assert_eq!(cluster.job_field(waits, "Reason"), "Resources");
    assert_eq!(cluster.job_field(waits, "Switches"), "1@00:05:00");
}
