//! `PrologFlags=Alloc,Contain` on a real three-node cluster (three spurd on this host): the prolog runs on every
//! node as soon as a job is allocated and before its batch script or salloc's command, the job shows reason
//! `Prolog` meanwhile, salloc says it waits, the extern step `J.extern` is listed while the job runs and its cgroup
//! exists on each node, and a failing prolog drains its node (batch job requeued held, allocation revoked), as on
//! Slurm 22.05.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{field_of, text, Cluster, ClusterOptions};

const NODE_B: &str = "spurtestb";
const NODE_C: &str = "spurtestc";

/// A prolog that fails on nodes with a `fail-NODE` file, else sleeps a little (so the job is seen waiting for it)
/// and records that it ran on the node for the job.
fn write_prolog(dir: &Path) -> String {
    let path = dir.join("prolog.sh");
    let text = format!(
        "#!/bin/bash\n[[ -e {dir}/fail-$SLURMD_NODENAME ]] && exit 1\nsleep 2\n\
         echo \"$SLURM_SCRIPT_CONTEXT $SLURM_NODELIST\" > {dir}/prolog.$SLURMD_NODENAME.$SLURM_JOB_ID\nexit 0\n",
        dir = dir.display()
    );
    std::fs::write(&path, text).expect("write prolog");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    path.display().to_string()
}

fn three_nodes(prolog: &str, first_job_id: u32) -> Cluster {
    Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        extra_conf: format!(
            "Prolog={prolog}\nPrologFlags=Alloc,Contain\nFirstJobId={first_job_id}\n"
        ),
        ..ClusterOptions::default()
    })
}

/// The extern step's cgroup directories of the job on `node` (v1: under freezer; v2: the unified tree), or why
/// there can be none here.
fn extern_cgroups(node: &str, job: u32) -> Result<Vec<PathBuf>, String> {
    if !nix::unistd::geteuid().is_root() {
        return Err("not root: no cgroups are made".into());
    }
    let rel = format!("spur_{node}/uid_0/job_{job}/step_extern");
    let root = Path::new("/sys/fs/cgroup");
    if root.join("cgroup.controllers").exists() {
        return Ok(vec![root.join(rel)]);
    }
    if root.join("freezer/cgroup.procs").exists() {
        return Ok(vec![root.join("freezer").join(rel)]);
    }
    Err("no cgroup v1 freezer or v2 tree at /sys/fs/cgroup".into())
}

#[test]
fn the_prolog_runs_on_every_node_at_allocation_and_the_extern_step_lives_with_the_job() {
    let scripts = tempfile::tempdir().expect("tempdir");
    let prolog = write_prolog(scripts.path());
    let cluster = three_nodes(&prolog, 4100);
    let first = cluster.node.clone();
    let all = [first.as_str(), NODE_B, NODE_C];
    let nodes = spur_core::grammar::hostlist::compress(&all.map(str::to_string));
    let dir = scripts.path().display().to_string();

    // The batch script starts once every node's prolog is through: it finds all three records.
    let job = cluster.wrap(
        &format!("ls {dir} | grep -c \"^prolog\\..*\\.$SLURM_JOB_ID$\"; sleep 3"),
        &["-N3", "-o", "batch.out"],
    );
    cluster.expect_within(
        Duration::from_secs(10),
        "the job running, waiting for its prologs",
        || {
            let line = cluster.show_job(job).unwrap_or_default();
            field_of(&line, "JobState") == "RUNNING" && field_of(&line, "Reason") == "Prolog"
        },
    );
    let steps = cluster.ok("squeue", &["-s", "-h", "-o", "%i %N"]);
    assert_eq!(
        steps.lines().collect::<Vec<_>>(),
        [
            format!("{job}.batch {first}"),
            format!("{job}.extern {nodes}")
        ],
        "{steps}"
    );
    let shown = cluster.ok(
        "scontrol",
        &["show", "step", &format!("{job}.extern"), "-o"],
    );
    assert!(
        shown.starts_with(&format!("StepId={job}.extern UserId=0 "))
            && shown.contains(&format!(
                "NodeList={nodes} Nodes=3 CPUs=0 Tasks=3 Name=extern Network=(null) TRES=(null) "
            )),
        "{shown}"
    );
    match extern_cgroups(NODE_B, job) {
        Ok(dirs) => cluster.expect_within(
            Duration::from_secs(10),
            "the extern cgroup on each node",
            || {
                all.iter().all(|node| {
                    extern_cgroups(node, job).is_ok_and(|d| d.iter().all(|p| p.is_dir()))
                }) && dirs.iter().all(|p| p.is_dir())
            },
        ),
        Err(why) => eprintln!("extern cgroup not checked: {why}"),
    }
    assert_eq!(
        cluster.wait_for_end(job, Duration::from_secs(30)),
        "COMPLETED"
    );
    let out = std::fs::read_to_string(cluster.dir.path().join("batch.out")).unwrap_or_default();
    assert_eq!(out, "3\n");
    for node in all {
        let record = scripts.path().join(format!("prolog.{node}.{job}"));
        assert_eq!(
            std::fs::read_to_string(&record).unwrap_or_default(),
            format!("prolog_slurmd {nodes}\n"),
            "{node}"
        );
    }
    assert_eq!(cluster.ok("squeue", &["-s", "-h"]), "");
    if extern_cgroups(NODE_B, job).is_ok() {
        cluster.expect_within(Duration::from_secs(10), "the extern cgroups gone", || {
            all.iter().all(|node| {
                extern_cgroups(node, job)
                    .is_ok_and(|d| d.iter().all(|p| !p.parent().is_some_and(Path::exists)))
            })
        });
    }

    // srun holding its own allocation waits for the prolog too, without a word.
    let out = cluster.run(
        "srun",
        &[
            "-N1",
            "bash",
            "-c",
            &format!("ls {dir} | grep -c \"^prolog\\..*\\.$SLURM_JOB_ID$\""),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        (text(&out.stdout), text(&out.stderr)),
        ("1\n".into(), String::new())
    );

    // salloc waits for the nodes' prologs, saying so, and its command finds them done.
    let out = cluster.run(
        "salloc",
        &[
            "-N3",
            "bash",
            "-c",
            &format!("ls {dir} | grep -c \"^prolog\\..*\\.$SLURM_JOB_ID$\""),
        ],
    );
    let salloc_job = job + 2;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(text(&out.stdout), "3\n");
    assert_eq!(
        text(&out.stderr),
        format!(
            "salloc: Granted job allocation {salloc_job}\n\
             salloc: Waiting for resource configuration\n\
             salloc: Nodes {nodes} are ready for job\n\
             salloc: Relinquishing job allocation {salloc_job}\n"
        )
    );
}

#[test]
fn a_failing_prolog_drains_its_node_revokes_an_allocation_and_holds_a_batch_job() {
    let scripts = tempfile::tempdir().expect("tempdir");
    let prolog = write_prolog(scripts.path());
    let cluster = three_nodes(&prolog, 4200);
    std::fs::write(scripts.path().join(format!("fail-{NODE_C}")), "").expect("marker");

    let out = cluster.run("salloc", &["-N3", "true"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let job = 4200;
    assert_eq!(
        text(&out.stderr),
        format!(
            "salloc: Granted job allocation {job}\n\
             salloc: Waiting for resource configuration\n\
             salloc: Prolog failure on node {NODE_C}\n\
             salloc: Job allocation {job} has been revoked.\n\
             salloc: error: Job allocation {job} has been revoked\n"
        )
    );
    let line = cluster.show_job(job).unwrap_or_default();
    assert_eq!(field_of(&line, "JobState"), "CANCELLED", "{line}");
    assert_eq!(
        cluster.ok("sinfo", &["-R", "-h", "-o", "%E|%u|%N"]).trim(),
        format!("Prolog error|root|{NODE_C}")
    );

    cluster.ok(
        "scontrol",
        &["update", &format!("nodename={NODE_C}"), "state=resume"],
    );
    let held = cluster.wrap("echo never", &["-N3", "-o", "held.out"]);
    cluster.expect_within(
        Duration::from_secs(30),
        "the job back in the queue, held",
        || {
            let line = cluster.show_job(held).unwrap_or_default();
            field_of(&line, "JobState") == "PENDING"
                && field_of(&line, "Reason") == "launch_failed_requeued_held"
                && field_of(&line, "Restarts") == "1"
        },
    );
    assert!(!cluster.dir.path().join("held.out").exists());
    // The nodes where the prolog ran, or did not, keep no extern cgroup of the run that never started.
    let first = cluster.node.clone();
    if extern_cgroups(&first, held).is_ok() {
        cluster.expect_within(Duration::from_secs(10), "no extern cgroup left", || {
            [first.as_str(), NODE_B, NODE_C].iter().all(|node| {
                extern_cgroups(node, held)
                    .is_ok_and(|d| d.iter().all(|p| !p.parent().is_some_and(Path::exists)))
            })
        });
    }
    cluster.expect_within(Duration::from_secs(10), "the node drained again", || {
        cluster
            .ok("sinfo", &["-R", "-h", "-o", "%E|%N"])
            .trim()
            .ends_with(&format!("Prolog error|{NODE_C}"))
    });
}

/// Without `PrologFlags=Alloc`, as slurmd by default: an allocation's nodes run the prolog before the job's first
/// step there (salloc's own command runs none), and every node of it runs the epilog when it ends.
#[test]
fn without_alloc_an_allocation_runs_the_prolog_at_its_first_step_and_the_epilog_everywhere() {
    let scripts = tempfile::tempdir().expect("tempdir");
    let prolog = write_prolog(scripts.path());
    let epilog = scripts.path().join("epilog.sh");
    std::fs::write(
        &epilog,
        format!(
            "#!/bin/bash\necho \"$SLURM_SCRIPT_CONTEXT\" > {}/epilog.$SLURMD_NODENAME.$SLURM_JOB_ID\n",
            scripts.path().display()
        ),
    )
    .expect("write epilog");
    std::fs::set_permissions(&epilog, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        extra_conf: format!(
            "Prolog={prolog}\nEpilog={}\nFirstJobId=4300\n",
            epilog.display()
        ),
        ..ClusterOptions::default()
    });
    let first = cluster.node.clone();
    let spur = cluster.spur_bin().display().to_string();
    let dir = scripts.path().display().to_string();
    let out = cluster.run(
        "salloc",
        &[
            "-N3",
            "bash",
            "-c",
            &format!(
                "ls {dir} | grep -c '[.]4300$'; {spur} srun -N2 true; ls {dir} | grep '^prolog.*[.]4300$' | sort"
            ),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let job = 4300;
    let mut ran = [
        format!("prolog.{first}.{job}"),
        format!("prolog.{NODE_B}.{job}"),
    ];
    ran.sort();
    assert_eq!(text(&out.stdout), format!("0\n{}\n", ran.join("\n")));
    assert_eq!(
        text(&out.stderr),
        format!(
            "salloc: Granted job allocation {job}\nsalloc: Relinquishing job allocation {job}\n"
        )
    );
    cluster.expect_within(Duration::from_secs(10), "the epilog on every node", || {
        [first.as_str(), NODE_B, NODE_C].iter().all(|node| {
            std::fs::read_to_string(scripts.path().join(format!("epilog.{node}.{job}")))
                .is_ok_and(|t| t == "epilog_slurmd\n")
        })
    });
}

/// As slurmd: a node whose epilog fails is drained with `Epilog error`, the batch node (whose supervisor runs it)
/// as well as the job's other nodes; the job itself ends as its script did.
#[test]
fn a_failing_epilog_drains_its_node() {
    let scripts = tempfile::tempdir().expect("tempdir");
    let epilog = scripts.path().join("epilog.sh");
    std::fs::write(
        &epilog,
        format!(
            "#!/bin/bash\n[[ -e {}/fail-$SLURMD_NODENAME ]] && exit 1\nexit 0\n",
            scripts.path().display()
        ),
    )
    .expect("write epilog");
    std::fs::set_permissions(&epilog, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        extra_conf: format!("Epilog={}\nFirstJobId=4400\n", epilog.display()),
        ..ClusterOptions::default()
    });
    let first = cluster.node.clone();
    for node in [first.as_str(), NODE_C] {
        std::fs::write(scripts.path().join(format!("fail-{node}")), "").expect("marker");
    }
    let job = cluster.wrap("true", &["-N3", "-o", "/dev/null"]);
    assert_eq!(
        cluster.wait_for_end(job, Duration::from_secs(30)),
        "COMPLETED"
    );
    let mut wanted = [
        format!("Epilog error|{first}"),
        format!("Epilog error|{NODE_C}"),
    ];
    wanted.sort();
    cluster.expect_within(Duration::from_secs(10), "both nodes drained", || {
        let out = cluster.ok("sinfo", &["-R", "-h", "-N", "-o", "%E|%N"]);
        let mut lines: Vec<String> = out.lines().map(str::to_string).collect();
        lines.sort();
        lines == wanted
    });
}

/// As slurmctld: a job stays COMPLETING until the epilog has finished on each of its nodes, and a node takes no
/// new job while an epilog runs there (`completing` in sinfo), so a site's clean-up never runs under the next job.
#[test]
fn other_nodes_epilogs_hold_the_job_completing_and_their_nodes_closed() {
    let scripts = tempfile::tempdir().expect("tempdir");
    let dir = scripts.path().display().to_string();
    let epilog = scripts.path().join("epilog.sh");
    // Slow on the job's other nodes only; each records when it finished.
    std::fs::write(
        &epilog,
        format!(
            "#!/bin/bash\n[[ $SLURMD_NODENAME == {NODE_B} ]] && sleep 4\n\
             date +%s.%N > {dir}/epilog.$SLURMD_NODENAME.$SLURM_JOB_ID\n"
        ),
    )
    .expect("write epilog");
    std::fs::set_permissions(&epilog, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        extra_conf: format!("Epilog={}\nFirstJobId=4500\n", epilog.display()),
        ..ClusterOptions::default()
    });
    let job = cluster.wrap(
        "true",
        &[
            "-N2",
            "-w",
            &format!("{},{NODE_B}", cluster.node),
            "-o",
            "/dev/null",
        ],
    );
    let state = |id: u32| {
        let out = cluster.run(
            "squeue",
            &["-h", "-t", "all", "-j", &id.to_string(), "-o", "%T"],
        );
        text(&out.stdout).trim().to_string()
    };
    cluster.expect_within(Duration::from_secs(20), "the job's end", || {
        state(job) == "COMPLETING"
    });
    let marker = scripts.path().join(format!("epilog.{NODE_B}.{job}"));
    assert!(!marker.exists(), "still COMPLETING after the epilog");
    let sinfo = cluster.run("sinfo", &["-h", "-n", NODE_B, "-o", "%T"]);
    assert_eq!(text(&sinfo.stdout), "completing\n");
    // A job for that node waits for the epilog.
    let next = cluster.wrap(
        "date +%s.%N",
        &["-w", NODE_B, "-o", &format!("{dir}/next.out")],
    );
    assert_eq!(
        cluster.wait_for_end(next, Duration::from_secs(30)),
        "COMPLETED"
    );
    assert_eq!(state(job), "COMPLETED");
    let seconds = |path: PathBuf| -> f64 {
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .trim()
            .parse()
            .expect("a time")
    };
    let epilog_done = seconds(marker);
    let next_started = seconds(scripts.path().join("next.out"));
    assert!(
        next_started >= epilog_done,
        "the next job ran at {next_started}, before the epilog ended at {epilog_done}"
    );
}
