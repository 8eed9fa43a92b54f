//! Jobs confined by cgroups on a real single-node Spur cluster (spurctld and spurd as processes, this host's cgroups:
//! v1 controllers here, the unified tree on a v2 host), with `TaskPlugin=task/cgroup` and a cgroup.conf that constrains
//! cores, RAM and devices. What a user sees is compared with what real Slurm 22.05 showed for the same jobs here
//! (task/cgroup, the same cgroup.conf): `JobState=OUT_OF_MEMORY Reason=OutOfMemory ExitCode=0:125`, slurmstepd's
//! oom-kill line in the job's output, `Cpus_allowed_list` of the allocated cores, EPERM on a GPU device node not
//! allocated.
//!
//! Needs root (the agent writes cgroups); as an ordinary user the jobs run unconfined and only that is checked. Each
//! test has its own job ids (`FirstJobId`), since every test cluster's node is named after this host and cgroup paths
//! are `spur_<node>/uid_<uid>/job_<id>`.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::{Cluster, ClusterOptions, LONG};

const CGROUP_CONF: &str = "CgroupPlugin=autodetect\nIgnoreSystemd=yes\nConstrainCores=yes\n\
                           ConstrainRAMSpace=yes\nConstrainDevices=yes\n";

fn confined_cluster(first_job_id: u32, gres: Option<&str>) -> Cluster {
    Cluster::start_with(ClusterOptions {
        extra_conf: format!("TaskPlugin=task/cgroup\nFirstJobId={first_job_id}\n"),
        cgroup_conf: Some(CGROUP_CONF.into()),
        gres: gres.map(str::to_string),
        ..ClusterOptions::default()
    })
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The job's directories: under every v1 controller Spur uses, or the one of a unified (v2) host.
fn job_cgroups(node: &str, job_id: u32) -> Vec<PathBuf> {
    let root = Path::new("/sys/fs/cgroup");
    let rel = format!("spur_{node}/uid_0/job_{job_id}");
    if root.join("cgroup.controllers").exists() {
        return vec![root.join(rel)];
    }
    ["freezer", "cpuset", "memory", "devices", "pids"]
        .iter()
        .map(|c| root.join(c).join(&rel))
        .collect()
}

/// Waits until the job's cgroups are gone (stepd removes them before it reports the result), then removes the
/// node's top directories if no other test still uses them.
fn assert_cgroups_removed(cluster: &Cluster, job_id: u32) {
    let dirs = job_cgroups(&cluster.node, job_id);
    cluster.expect_within(LONG, "the job's cgroups to be removed", || {
        dirs.iter().all(|d| !d.exists())
    });
    for d in dirs {
        if let Some(node_dir) = d.parent().and_then(Path::parent) {
            let _ = std::fs::remove_dir(node_dir.join("uid_0"));
            let _ = std::fs::remove_dir(node_dir);
        }
    }
}

#[test]
fn memory_limit_kill_ends_the_job_out_of_memory() {
    let cluster = confined_cluster(3501, None);
    let job = cluster.submit(
        "#!/bin/bash\nhead -c 200M /dev/zero | tail\necho after $?\n",
        &["--mem=50M", "-o", "oom.out"],
    );
    let state = cluster.wait_for_end(job, LONG);
    let out_path = cluster.dir.path().join("oom.out");
    cluster.wait_for_file(&out_path, |t| t.contains("after"));
    if !is_root() {
        assert_eq!(state, "COMPLETED");
        return;
    }
    assert_eq!(state, "OUT_OF_MEMORY", "{}", cluster.logs());
    let show = cluster.show_job(job).unwrap_or_default();
    assert!(
        show.contains("JobState=OUT_OF_MEMORY Reason=OutOfMemory"),
        "{show}"
    );
    assert!(show.contains("ExitCode=0:125"), "{show}");
    let line = format!(
        "slurmstepd-{}: error: Detected 1 oom-kill event(s) in StepId={job}.batch. Some of your processes may \
         have been killed by the cgroup out-of-memory handler.\n",
        common::short_hostname()
    );
    let out = cluster.wait_for_file(&out_path, |t| t.ends_with(&line));
    assert!(out.contains("Killed"), "{out}");
    assert!(out.contains("after 137\n"), "{out}");
    let squeue = cluster.squeue("%i %T %r", &["-t", "all"]);
    assert!(
        squeue.contains(&format!("{job} OUT_OF_MEMORY OutOfMemory")),
        "{squeue:?}"
    );
    assert_cgroups_removed(&cluster, job);
}

#[test]
fn concurrent_jobs_get_their_own_cores() {
    let cluster = confined_cluster(3601, None);
    let script = "#!/bin/bash\ngrep Cpus_allowed_list /proc/self/status\nsleep 3\n";
    let first = cluster.submit(script, &["-n1", "-o", "first.out"]);
    let second = cluster.submit(script, &["-n1", "-o", "second.out"]);
    for job in [first, second] {
        assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    }
    let allowed = |name: &str| {
        std::fs::read_to_string(cluster.dir.path().join(name))
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    if !is_root() {
        return;
    }
    let mut seen = vec![allowed("first.out"), allowed("second.out")];
    seen.sort();
    assert_eq!(
        seen,
        vec!["Cpus_allowed_list:\t0", "Cpus_allowed_list:\t1"],
        "{}",
        cluster.logs()
    );
    assert_cgroups_removed(&cluster, first);
    assert_cgroups_removed(&cluster, second);
}

#[test]
fn gpu_device_not_allocated_is_denied() {
    let cluster = confined_cluster(3701, Some("gpu:2"));
    let dev = cluster.dir.path().join("dev");
    let job = cluster.submit(
        &format!(
            "#!/bin/bash\necho $CUDA_VISIBLE_DEVICES\nfor i in 0 1; do head -c1 {}/nvidia$i 2>&1 | sed 's/.*: //'; done\n",
            dev.display()
        ),
        &["--gres=gpu:1", "-o", "gpu.out"],
    );
    assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    let out = cluster.wait_for_file(&cluster.dir.path().join("gpu.out"), |t| {
        t.lines().count() == 3
    });
    if !is_root() {
        return;
    }
    // No driver behind the fake nodes: the allocated one fails to open with ENXIO, the other is refused
    // by the devices controller, as under real Slurm with ConstrainDevices=yes.
    assert_eq!(
        out,
        "0\nNo such device or address\nOperation not permitted\n",
        "{}",
        cluster.logs()
    );
    assert_cgroups_removed(&cluster, job);
}

#[test]
fn cgroups_of_a_crashed_supervisor_are_cleaned_by_the_agent() {
    if !is_root() {
        return;
    }
    let cluster = confined_cluster(3801, None);
    let job = cluster.submit("#!/bin/bash\nsleep 300\n", &["-o", "/dev/null"]);
    cluster.wait_for_state(job, "RUNNING", LONG);
    let procs = job_cgroups(&cluster.node, job)[0].join("step_batch/cgroup.procs");
    let text = cluster.wait_for_file(&procs, |t| !t.trim().is_empty());
    let job_pids: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    let pid_file = cluster
        .dir
        .path()
        .join(format!("spool/job{job:05}/stepd.pid"));
    let stepd: i32 = std::fs::read_to_string(&pid_file)
        .expect("stepd.pid")
        .trim()
        .parse()
        .expect("a pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(stepd),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill spurstepd");
    assert_eq!(cluster.wait_for_end(job, LONG), "FAILED");
    assert_cgroups_removed(&cluster, job);
    for pid in job_pids {
        let alive =
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "));
        assert!(!alive, "job process {pid} survived its cgroup's removal");
    }
}

/// spurd's `--job-pids-max` (here through `SPUR_JOB_PIDS_MAX`): the job's cgroup counts every process and thread
/// of the job on the node, its steps' included, against one limit.
#[test]
fn the_agents_pids_limit_is_the_jobs() {
    let cluster = Cluster::start_with(ClusterOptions {
        extra_conf: "TaskPlugin=task/cgroup\nFirstJobId=3901\n".into(),
        cgroup_conf: Some(CGROUP_CONF.into()),
        agent_env: vec![("SPUR_JOB_PIDS_MAX".into(), "40".into())],
        ..ClusterOptions::default()
    });
    let limit = "d=$(grep -e :pids: -e ^0:: /proc/self/cgroup | head -n1 | cut -d: -f3); \
                 for f in /sys/fs/cgroup/pids$d/../pids.max /sys/fs/cgroup$d/../pids.max; do \
                 [ -f $f ] && cat $f && break; done";
    let spur = cluster.spur_bin().display().to_string();
    let job = cluster.submit(
        &format!("#!/bin/bash\n{limit}\n{spur} srun bash -c '{limit}'\n"),
        &["-o", "pids.out"],
    );
    let state = cluster.wait_for_end(job, LONG);
    let out = std::fs::read_to_string(cluster.dir.path().join("pids.out")).unwrap_or_default();
    assert_eq!(state, "COMPLETED", "{out}");
    if !is_root() {
        return;
    }
    assert_eq!(out, "40\n40\n", "{}", cluster.logs());
    assert_cgroups_removed(&cluster, job);
}
