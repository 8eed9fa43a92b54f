//! Heterogeneous jobs on a real spurctld with three spurd on this host: a batch job of two components
//! (`sbatch ... : ...`) gets ids J and J+1, starts both at once on nodes of their own, runs its script once on the
//! leader with the `_HET_GROUP_N` variables, runs `srun --het-group` steps across both components, and ends
//! every component with the leader; salloc makes a heterogeneous allocation. The network-namespace version beside real Slurm is conformance cases
//! 420-423.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{text, Cluster, ClusterOptions};

const NODE_B: &str = "spurhetb";
const NODE_C: &str = "spurhetc";
const WAIT: Duration = Duration::from_secs(30);

fn three_nodes() -> Cluster {
    Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        ..ClusterOptions::default()
    })
}

fn sbatch(cluster: &Cluster, args: &[&str]) -> u32 {
    cluster.submit_with_spur_srun(args)
}

fn env_value(env: &str, key: &str) -> String {
    env.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_two_component_batch_job_runs_its_script_once_and_steps_across_components() {
    let cluster = three_nodes();
    let script = cluster.write_file(
        "het.sh",
        "#!/bin/bash\n#SBATCH -n1\n#SBATCH hetjob\n#SBATCH -N2 -n2\n\
         env > env.txt\n\
         srun -l --het-group=0,1 bash -c 'echo $SLURMD_NODENAME $SLURM_PROCID $SLURM_NTASKS $SLURM_JOB_ID' \
         | sort > steps.txt\n\
         srun --het-group=1 bash -c 'echo $SLURM_JOB_NODELIST $SLURM_NTASKS' | sort -u > group1.txt\n",
    );
    let leader = sbatch(
        &cluster,
        &["-o", "het.out", script.to_str().unwrap_or("het.sh")],
    );
    let component = leader + 1;
    let end = cluster.wait_for_end(leader, WAIT);
    assert_eq!(end, "COMPLETED", "{}", cluster.logs());
    assert_eq!(cluster.job_field(component, "JobState"), "COMPLETED");
    assert_eq!(cluster.job_field(component, "HetJobId"), leader.to_string());
    assert_eq!(cluster.job_field(component, "HetJobOffset"), "1");
    assert_eq!(
        cluster.job_field(leader, "HetJobIdSet"),
        format!("{leader}-{component}")
    );
    let shown = cluster.ok("scontrol", &["show", "job", &leader.to_string()]);
    let records = shown.lines().filter(|l| l.starts_with("JobId=")).count();
    assert_eq!(records, 2, "{shown}");
    let ids = cluster.ok(
        "squeue",
        &["-h", "-t", "all", "-j", &leader.to_string(), "-o", "%i %N"],
    );
    let first = &cluster.node;
    let others = spur_core::grammar::hostlist::compress(&[NODE_B, NODE_C]);
    assert_eq!(
        ids.lines().collect::<Vec<_>>(),
        [
            format!("{leader}+0 {first}"),
            format!("{leader}+1 {others}")
        ]
    );

    let env = cluster.wait_for_file(&cluster.dir.path().join("env.txt"), |t| !t.is_empty());
    assert_eq!(env_value(&env, "SLURM_HET_SIZE"), "2");
    assert_eq!(env_value(&env, "SLURM_JOB_ID"), leader.to_string());
    assert_eq!(
        env_value(&env, "SLURM_JOB_ID_HET_GROUP_1"),
        component.to_string()
    );
    assert_eq!(env_value(&env, "SLURM_JOB_NODELIST_HET_GROUP_0"), *first);
    assert_eq!(env_value(&env, "SLURM_JOB_NODELIST_HET_GROUP_1"), others);
    assert_eq!(env_value(&env, "SLURM_NTASKS_HET_GROUP_1"), "2");

    let steps = std::fs::read_to_string(cluster.dir.path().join("steps.txt")).unwrap_or_default();
    assert_eq!(
        steps.lines().collect::<Vec<_>>(),
        [
            format!("0: {first} 0 3 {leader}"),
            format!("1: {NODE_B} 1 3 {leader}"),
            format!("2: {NODE_C} 2 3 {leader}"),
        ],
        "{}",
        cluster.logs()
    );
    let group1 = std::fs::read_to_string(cluster.dir.path().join("group1.txt")).unwrap_or_default();
    assert_eq!(group1.trim(), format!("{others} 2"));
}

#[test]
fn scancel_of_a_component_leaves_the_job_and_of_the_leader_ends_all() {
    let cluster = three_nodes();
    // --test-only tries each component and queues nothing.
    let trial = cluster.run("sbatch", &["--test-only", "--wrap", "true", ":", "-n1"]);
    assert!(trial.status.success(), "{trial:?}");
    let line = text(&trial.stderr);
    assert!(
        line.starts_with("sbatch: Job ") && line.contains(" using 2 processors on "),
        "{line}"
    );
    assert!(cluster.ok("squeue", &["-h", "-t", "all"]).trim().is_empty());
    let leader = sbatch(
        &cluster,
        &[
            "-o",
            "/dev/null",
            "--wrap",
            "sleep 300",
            ":",
            "-n1",
            ":",
            "-n1",
        ],
    );
    for id in leader..leader + 3 {
        cluster.wait_for_state(id, "RUNNING", WAIT);
    }
    cluster.ok("scancel", &[&(leader + 1).to_string()]);
    cluster.wait_for_state(leader + 1, "CANCELLED", WAIT);
    assert_eq!(cluster.job_field(leader, "JobState"), "RUNNING");
    assert_eq!(cluster.job_field(leader + 2, "JobState"), "RUNNING");
    cluster.ok("scancel", &[&leader.to_string()]);
    for id in leader..leader + 3 {
        cluster.wait_for_state(id, "CANCELLED", WAIT);
    }
}

#[test]
fn salloc_with_components_runs_its_command_with_every_components_variables() {
    let cluster = three_nodes();
    let out = cluster.run(
        "salloc",
        &[
            "-n1",
            ":",
            "-n2",
            "bash",
            "-c",
            "echo $SLURM_JOB_ID $SLURM_HET_SIZE $SLURM_JOB_ID_HET_GROUP_1 $SLURM_NTASKS $SLURM_NTASKS_HET_GROUP_1",
        ],
    );
    assert!(out.status.success(), "{out:?}\n{}", cluster.logs());
    let words: Vec<String> = text(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let leader: u32 = words.first().and_then(|w| w.parse().ok()).unwrap_or(0);
    assert_eq!(
        words,
        [
            leader.to_string(),
            "2".to_string(),
            (leader + 1).to_string(),
            "3".to_string(),
            "2".to_string()
        ]
    );
    for id in [leader, leader + 1] {
        assert_eq!(cluster.wait_for_end(id, WAIT), "COMPLETED");
    }
}

#[test]
fn srun_components_outside_an_allocation_refuse_instead_of_running_the_first() {
    let cluster = three_nodes();
    let out = cluster.run("srun", &["-n1", "true", ":", "-n1", "true"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        text(&out.stderr).contains("srun: error: Heterogeneous job allocations by srun"),
        "{out:?}"
    );
    let listed = cluster.ok("squeue", &["-h", "-t", "all"]);
    assert!(listed.trim().is_empty(), "{listed}");
}
