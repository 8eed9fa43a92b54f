//! sattach: attaching to a running step on two nodes (two spurd on this host) through the controller and the
//! nodes' step supervisors; the copies of the tasks' output, labelled, the tasks' exit codes, the step's layout
//! and Slurm's errors.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{parse_job_id, text, Cluster, ClusterOptions};

const NODE_B: &str = "spurtestb";

/// A batch job whose script runs Spur's srun (the machine may have Slurm's first in PATH).
fn submit_step(cluster: &Cluster, args: &[&str], step: &str) -> u32 {
    let bin = cluster.dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    let _ = std::os::unix::fs::symlink(cluster.spur_bin(), bin.join("srun"));
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut all = vec!["--parsable", "-o", "step.out"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--wrap", step]);
    let out = cluster
        .command(cluster.dir.path(), "sbatch", &all)
        .env("PATH", path)
        .output()
        .expect("sbatch");
    assert!(out.status.success(), "{out:?}");
    parse_job_id(&text(&out.stdout))
}

#[test]
fn sattach_follows_a_two_node_step_until_it_ends() {
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string()],
        ..ClusterOptions::default()
    });
    let job = submit_step(
        &cluster,
        &["-N2"],
        "srun -N2 -n2 bash -c 'for i in $(seq 1 24); do echo line $SLURM_PROCID $i; echo err $SLURM_PROCID $i >&2; sleep 0.25; done; exit $SLURM_PROCID'",
    );
    let step = format!("{job}.0");
    cluster.expect_within(Duration::from_secs(20), "the step printing", || {
        std::fs::read_to_string(cluster.dir.path().join("step.out"))
            .is_ok_and(|out| out.contains("line 1 2") && out.contains("line 0 2"))
    });

    let layout = cluster.run("sattach", &["--layout", &step]);
    let nodes = spur_core::grammar::hostlist::compress(&[cluster.node.clone(), NODE_B.to_string()]);
    assert_eq!(
        text(&layout.stdout),
        format!(
            "Job step layout:\n\t2 tasks, 2 nodes ({nodes})\n\n\tNode 0 ({}), 1 task(s): 0 \n\tNode 1 ({}), 1 task(s): 1 \n",
            cluster.node, NODE_B
        ),
        "{layout:?}"
    );

    let attached = cluster.run("sattach", &["--label", &step]);
    let stdout = text(&attached.stdout);
    let stderr = text(&attached.stderr);
    // Later lines of both nodes' tasks, labelled, on the streams they were written to, up to the step's end.
    for rank in 0..2 {
        assert!(
            stdout.contains(&format!("{rank}: line {rank} 24\n")),
            "{stdout}\n{stderr}\n{}",
            cluster.logs()
        );
        assert!(
            stderr.contains(&format!("{rank}: err {rank} 24\n")),
            "{stderr}"
        );
    }
    assert!(
        stdout
            .lines()
            .all(|l| l.starts_with("0: line 0 ") || l.starts_with("1: line 1 ")),
        "{stdout}"
    );
    assert!(
        stderr.contains("sattach: error: task 1 exited with exit code 1\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("task 0 exited"), "{stderr}");
    assert_eq!(attached.status.code(), Some(1), "{attached:?}");

    // The step is over: the job ends and the step cannot be attached to any more.
    cluster.wait_for_end(job, Duration::from_secs(20));
    let late = cluster.run("sattach", &[&step]);
    assert_eq!(
        text(&late.stderr),
        "sattach: error: Could not get job step info: Job/step already completing or completed\n"
    );
    assert_eq!(late.status.code(), Some(1));
}

#[test]
fn sattach_reaches_a_step_srun_runs_itself_and_reports_slurms_errors() {
    let cluster = Cluster::start();
    let job = submit_step(
        &cluster,
        &["-n2"],
        "srun -n2 bash -c 'for i in $(seq 1 20); do echo line $SLURM_PROCID $i; sleep 0.25; done'",
    );
    let step = format!("{job}.0");
    cluster.expect_within(Duration::from_secs(20), "the step printing", || {
        std::fs::read_to_string(cluster.dir.path().join("step.out"))
            .is_ok_and(|out| out.contains("line 1 2") && out.contains("line 0 2"))
    });
    let layout = cluster.run("sattach", &["--layout", &step]);
    assert_eq!(
        text(&layout.stdout),
        format!(
            "Job step layout:\n\t2 tasks, 1 nodes ({0})\n\n\tNode 0 ({0}), 2 task(s): 0 1 \n",
            cluster.node
        )
    );
    let cases: &[(&[&str], &str)] = &[
        (&[], "sattach: error: too many parameters\n"),
        (
            &["4000000.0"],
            "sattach: error: Could not get job step info: Invalid job id specified\n",
        ),
        (
            &["abc"],
            "sattach: error: Failed to parse stepid from command line options\n",
        ),
        (&["1.x"], "sattach: fatal: Bad step specified: 1\n"),
        (
            &["--input-filter=x", "1.0"],
            "sattach: error: Invalid numeric value \"x\" for input-filter.\n",
        ),
    ];
    for (args, expected) in cases {
        let out = cluster.run("sattach", args);
        assert_eq!(text(&out.stderr), *expected, "{args:?}");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
    // The job runs but has no step 3.
    let out = cluster.run("sattach", &[&format!("{job}.3")]);
    assert_eq!(
        text(&out.stderr),
        "sattach: error: Could not get job step info: Invalid job id specified\n"
    );

    let attached = cluster.run("sattach", &["-l", "--output-filter", "1", &step]);
    let stdout = text(&attached.stdout);
    assert!(
        stdout.contains("1: line 1 20\n"),
        "{attached:?}\n{}",
        cluster.logs()
    );
    assert!(
        stdout.lines().all(|l| l.starts_with("1: line 1 ")),
        "{stdout}"
    );
    assert_eq!(text(&attached.stderr), "");
    assert_eq!(attached.status.code(), Some(0));
}

#[test]
fn sattach_input_reaches_the_filtered_task_on_another_node() {
    use std::io::Write;
    use std::process::Stdio;
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string()],
        ..ClusterOptions::default()
    });
    let dir = cluster.dir.path();
    // srun's own stdin stays open, so the tasks' stdin does too until the test closes it.
    let mut srun = cluster
        .command(
            dir,
            "srun",
            &[
                "-N2",
                "-n2",
                "bash",
                "-c",
                "touch ready-$SLURM_PROCID; read line; echo got $SLURM_PROCID $line; touch got-$SLURM_PROCID",
            ],
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("srun");
    cluster.expect_within(Duration::from_secs(20), "both tasks started", || {
        dir.join("ready-0").exists() && dir.join("ready-1").exists()
    });
    let job = cluster.squeue("%i", &[]);
    let step = format!("{}.0", job[0].trim());
    let mut sattach = cluster
        .command(dir, "sattach", &["--input-filter=1", "--label", &step])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sattach");
    let mut input = sattach.stdin.take().expect("sattach stdin");
    input.write_all(b"hello\n").expect("typed");
    // The end of sattach's input closes nothing on the step.
    drop(input);
    cluster.expect_within(
        Duration::from_secs(20),
        "task 1 read sattach's line",
        || dir.join("got-1").exists(),
    );
    assert!(!dir.join("got-0").exists());
    drop(srun.stdin.take());
    let attached = sattach.wait_with_output().expect("sattach ends");
    let srun = srun.wait_with_output().expect("srun ends");
    assert!(srun.status.success(), "{srun:?}");
    assert_eq!(
        text(&attached.stdout),
        "1: got 1 hello\n0: got 0\n",
        "{attached:?}\n{}",
        cluster.logs()
    );
    assert!(attached.status.success(), "{attached:?}");
}
