//! GPU placement by interconnect through a real cluster: spurd reads a fake KFD sysfs tree (two XGMI islands of
//! four GPUs), registers the links, and spurctld gives a job GPUs inside one island; the job's
//! `ROCR_VISIBLE_DEVICES` shows the choice.

mod common;

use std::path::Path;

use common::{Cluster, ClusterOptions, LONG};

const KFD_NODES: &str = "sys/class/kfd/kfd/topology/nodes";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// CPU node 0, GPU nodes 1-8 (render minors 128-135), XGMI between every two GPUs of {1-4} and of {5-8}.
fn fake_kfd(root: &Path) {
    write(
        root,
        &format!("{KFD_NODES}/0/properties"),
        "cpu_cores_count 4\n",
    );
    for node in 1..=8u32 {
        let dir = format!("{KFD_NODES}/{node}");
        write(
            root,
            &format!("{dir}/properties"),
            &format!("simd_count 304\ndrm_render_minor {}\n", 127 + node),
        );
        write(
            root,
            &format!("{dir}/gpu_id"),
            &format!("{}\n", 5000 + node),
        );
        let island = if node <= 4 { 1..=4 } else { 5..=8 };
        for (i, peer) in island.filter(|&p| p != node).enumerate() {
            write(
                root,
                &format!("{dir}/io_links/{i}/properties"),
                &format!("type 11\nnode_from {node}\nnode_to {peer}\nweight 15\n"),
            );
        }
    }
}

/// The fake tree is returned first so it is removed after the cluster (and its spurd) stopped.
fn cluster_with_islands() -> (tempfile::TempDir, Cluster) {
    let sysfs = tempfile::tempdir().unwrap();
    fake_kfd(sysfs.path());
    let cluster = Cluster::start_with(ClusterOptions {
        cpus: 4,
        gres: Some("gpu:8".into()),
        gres_conf: Some("AutoDetect=off\nName=gpu File=/dev/dri/renderD[128-135]\n".into()),
        agent_env: vec![("SPUR_SYSFS_ROOT".into(), sysfs.path().display().to_string())],
        ..ClusterOptions::default()
    });
    (sysfs, cluster)
}

#[test]
fn a_job_gets_gpus_inside_one_xgmi_island() {
    let (_sysfs, cluster) = cluster_with_islands();
    assert!(
        cluster.logs().contains("fabric islands [0-3] [4-7]"),
        "spurd did not log the fake topology:\n{}",
        cluster.logs()
    );
    assert!(
        cluster.logs().contains(&format!(
            "node {}: GPUs placed by their links (Agent)",
            cluster.node
        )),
        "spurctld did not take the topology:\n{}",
        cluster.logs()
    );
    let dir = cluster.subdir("topo");
    let go = dir.join("go");
    let script = format!(
        "echo ROCR=$ROCR_VISIBLE_DEVICES; while [ ! -e {} ]; do sleep 0.1; done",
        go.display()
    );
    let first = cluster.sbatch_in(
        &dir,
        &["--gres=gpu:3", "-o", "first.out", "--wrap", &script],
    );
    cluster.wait_for_file(&dir.join("first.out"), |t| t.contains("ROCR="));
    let second = cluster.sbatch_in(
        &dir,
        &["--gres=gpu:2", "-o", "second.out", "--wrap", &script],
    );
    let first_out = cluster.wait_for_file(&dir.join("first.out"), |t| t.contains("ROCR="));
    let second_out = cluster.wait_for_file(&dir.join("second.out"), |t| t.contains("ROCR="));
    assert_eq!(first_out.trim(), "ROCR=0,1,2");
    // Lowest free indices would be 3,4, across the islands.
    assert_eq!(second_out.trim(), "ROCR=4,5");
    std::fs::write(&go, "").unwrap();
    for job in [first, second] {
        assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    }
}
