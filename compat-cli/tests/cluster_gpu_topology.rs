//! GPU placement by interconnect through a real cluster: spurd reads a fake KFD sysfs tree (two XGMI islands of
//! four GPUs), registers the links, and spurctld gives a job GPUs inside one island; the job's
//! `ROCR_VISIBLE_DEVICES` shows the choice. Under task/cgroup (as root), a GPU job's core comes from its GPU's NUMA
//! node.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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

/// A KFD tree with one GPU (render minor 128) whose PCIe link leads to CPU node 1, and NUMA node 1 holding CPU 1.
fn fake_gpu_on_numa_node_1(root: &Path) {
    for cpu in 0..2 {
        write(
            root,
            &format!("{KFD_NODES}/{cpu}/properties"),
            "cpu_cores_count 1\n",
        );
        write(
            root,
            &format!("sys/devices/system/node/node{cpu}/cpulist"),
            &format!("{cpu}\n"),
        );
    }
    let gpu = format!("{KFD_NODES}/2");
    write(
        root,
        &format!("{gpu}/properties"),
        "simd_count 304\ndrm_render_minor 128\n",
    );
    write(root, &format!("{gpu}/gpu_id"), "4242\n");
    write(
        root,
        &format!("{gpu}/io_links/0/properties"),
        "type 2\nnode_from 2\nnode_to 1\nweight 20\n",
    );
}

#[test]
fn a_confined_gpu_job_gets_a_core_of_its_gpus_numa_node() {
    let sysfs = tempfile::tempdir().unwrap();
    fake_gpu_on_numa_node_1(sysfs.path());
    let cluster = Cluster::start_with(ClusterOptions {
        // Job ids of their own: cgroup paths are spur_<node>/uid_0/job_<id> for every test cluster on this host.
        extra_conf: "TaskPlugin=task/cgroup\nFirstJobId=36901\n".into(),
        cgroup_conf: Some(
            "CgroupPlugin=autodetect\nIgnoreSystemd=yes\nConstrainCores=yes\n".into(),
        ),
        gres: Some("gpu:1".into()),
        gres_conf: Some("AutoDetect=off\nName=gpu File=/dev/dri/renderD128\n".into()),
        agent_env: vec![("SPUR_SYSFS_ROOT".into(), sysfs.path().display().to_string())],
        ..ClusterOptions::default()
    });
    let script = "#!/bin/bash\ngrep Cpus_allowed_list /proc/self/status\n";
    // One at a time, each on an idle node, so only the GPU decides which core is taken.
    for (args, out) in [(&["--gres=gpu:1"][..], "gpu.out"), (&[][..], "plain.out")] {
        let mut all = vec!["-n1", "-o", out];
        all.extend_from_slice(args);
        let job = cluster.submit(script, &all);
        assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    }
    if !nix::unistd::geteuid().is_root() {
        return;
    }
    remove_empty_node_cgroups(&cluster.node);
    let allowed =
        |name: &str| std::fs::read_to_string(cluster.dir.path().join(name)).unwrap_or_default();
    assert_eq!(
        allowed("gpu.out").trim(),
        "Cpus_allowed_list:\t1",
        "{}",
        cluster.logs()
    );
    // Without GPUs the lowest free core, as before.
    assert_eq!(
        allowed("plain.out").trim(),
        "Cpus_allowed_list:\t0",
        "{}",
        cluster.logs()
    );
}

/// The node's `spur_<node>/uid_0` cgroup directories, once the jobs' own are gone (their supervisors remove those
/// before reporting), unless another test cluster on this host still uses them.
fn remove_empty_node_cgroups(node: &str) {
    let root = Path::new("/sys/fs/cgroup");
    let tops: Vec<std::path::PathBuf> = if root.join("cgroup.controllers").exists() {
        vec![root.join(format!("spur_{node}"))]
    } else {
        ["freezer", "cpuset", "memory", "devices"]
            .iter()
            .map(|c| root.join(c).join(format!("spur_{node}")))
            .collect()
    };
    for top in tops {
        let _ = std::fs::remove_dir(top.join("uid_0"));
        let _ = std::fs::remove_dir(top);
    }
}
