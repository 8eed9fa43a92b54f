//! Crashes and load on a real single-node Spur cluster: a `kill -9` of spurctld loses no acknowledged job and
//! reuses no id, a `kill -9` of spurd leaves running jobs running and their outcome reaches the controller, and a
//! burst of concurrent submissions gets distinct ids and all runs.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::process::{Child, Stdio};

use common::{field_of, parse_job_id, text, Cluster, LONG};

#[test]
fn controller_crash_loses_no_acknowledged_job() {
    let mut cluster = Cluster::start();
    let dir = cluster.subdir("crash");
    // A mix: one running when the controller dies, several queued behind it, one held, one finishing at once.
    let running = cluster.sbatch_in(
        &dir,
        &["-o", "running.out", "--wrap", "echo up; sleep 3; exit 4"],
    );
    cluster.wait_for_file(&dir.join("running.out"), |t| t.contains("up"));
    let mut queued = Vec::new();
    for i in 0..4 {
        queued.push(cluster.sbatch_in(
            &dir,
            &["-c", "2", "-o", &format!("q{i}.out"), "--wrap", "echo q"],
        ));
    }
    let held = cluster.wrap("true", &["--hold"]);
    let quick = cluster.wrap("true", &[]);
    let acknowledged: Vec<u32> = [running, held, quick]
        .into_iter()
        .chain(queued.iter().copied())
        .collect();

    cluster.crash_controller();
    cluster.restart_controller();

    // Every acknowledged job is known again, with its spec intact.
    for &job in &acknowledged {
        let line = cluster.show_job(job).unwrap_or_else(|| {
            panic!(
                "job {job} lost after a controller crash\n{}",
                cluster.logs()
            )
        });
        assert_eq!(field_of(&line, "JobId"), job.to_string());
    }
    assert_eq!(cluster.job_field(held, "Reason"), "JobHeldUser");
    assert_eq!(cluster.job_field(queued[0], "NumCPUs"), "2");

    // The running job's outcome reaches the new controller; the queue drains.
    assert_eq!(cluster.wait_for_end(running, LONG), "FAILED");
    assert_eq!(cluster.job_field(running, "ExitCode"), "4:0");
    for (i, &job) in queued.iter().enumerate() {
        assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
        assert_eq!(
            std::fs::read_to_string(dir.join(format!("q{i}.out"))).unwrap(),
            "q\n"
        );
    }
    assert_eq!(cluster.wait_for_end(quick, LONG), "COMPLETED");
    cluster.ok("scontrol", &["release", &held.to_string()]);
    assert_eq!(cluster.wait_for_end(held, LONG), "COMPLETED");

    // Ids are never reused, even right after a crash that follows a submission.
    let last = cluster.wrap("true", &[]);
    cluster.crash_controller();
    cluster.restart_controller();
    assert!(cluster.show_job(last).is_some(), "job {last} lost");
    let next = cluster.wrap("true", &[]);
    let max_before = acknowledged.iter().copied().chain([last]).max().unwrap();
    assert!(
        next > max_before,
        "id {next} reused (ids so far up to {max_before})"
    );
    assert_eq!(cluster.wait_for_end(next, LONG), "COMPLETED");
    assert_eq!(cluster.wait_for_end(last, LONG), "COMPLETED");
}

#[test]
fn agent_crash_leaves_running_jobs_running() {
    let mut cluster = Cluster::start();
    let dir = cluster.subdir("agent");
    // One job outlives the agent's absence and ends after it is back...
    let long = cluster.sbatch_in(
        &dir,
        &[
            "-o",
            "long.out",
            "--wrap",
            "echo up; sleep 5; echo done; exit 7",
        ],
    );
    // ...and one ends while no agent is there to see it.
    let short = cluster.sbatch_in(
        &dir,
        &[
            "-o",
            "short.out",
            "--wrap",
            "echo up; sleep 1; echo done; exit 5",
        ],
    );
    for name in ["long.out", "short.out"] {
        cluster.wait_for_file(&dir.join(name), |t| t.contains("up"));
    }
    cluster.kill_agent();
    cluster.wait_for_file(&dir.join("short.out"), |t| t.contains("done"));
    // Nobody could have told the controller yet.
    assert_eq!(cluster.job_field(short, "JobState"), "RUNNING");
    cluster.start_agent();

    assert_eq!(cluster.wait_for_end(short, LONG), "FAILED");
    assert_eq!(cluster.job_field(short, "ExitCode"), "5:0");
    assert_eq!(cluster.wait_for_end(long, LONG), "FAILED");
    assert_eq!(cluster.job_field(long, "ExitCode"), "7:0");
    assert_eq!(
        std::fs::read_to_string(dir.join("long.out")).unwrap(),
        "up\ndone\n",
        "the job must have run once, to its end"
    );
    // The node takes new work afterwards.
    cluster.wait_for_node_idle();
    let after = cluster.wrap("true", &[]);
    assert_eq!(cluster.wait_for_end(after, LONG), "COMPLETED");
}

#[test]
fn burst_of_concurrent_submissions() {
    const JOBS: usize = 50;
    let cluster = Cluster::start();
    let dir = cluster.subdir("burst");
    let children: Vec<_> = (0..JOBS)
        .map(|i| {
            cluster
                .command(
                    &dir,
                    "sbatch",
                    &[
                        "--parsable",
                        "-o",
                        &format!("b{i}.out"),
                        "--wrap",
                        &format!("echo {i}"),
                    ],
                )
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn sbatch")
        })
        .collect();
    let mut ids = BTreeSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "sbatch failed: {}", text(&out.stderr));
        ids.insert(parse_job_id(&text(&out.stdout)));
    }
    assert_eq!(ids.len(), JOBS, "duplicate ids: {ids:?}");
    let timeout = LONG * 2;
    cluster.expect_within(timeout, "the burst to finish", || {
        cluster.squeue("%i", &[]).is_empty()
    });
    let states = cluster.squeue("%i %T", &["-t", "all"]);
    assert_eq!(states.len(), JOBS, "{states:?}");
    assert!(
        states.iter().all(|l| l.ends_with(" COMPLETED")),
        "{states:?}"
    );
    for i in 0..JOBS {
        assert_eq!(
            std::fs::read_to_string(dir.join(format!("b{i}.out"))).unwrap(),
            format!("{i}\n")
        );
    }
}

#[test]
fn controller_crash_during_a_submission_burst() {
    const JOBS: usize = 30;
    let mut cluster = Cluster::start();
    let dir = cluster.subdir("crash-burst");
    let mut children: Vec<Option<Child>> = (0..JOBS)
        .map(|_| {
            Some(
                cluster
                    .command(&dir, "sbatch", &["--parsable", "--hold", "--wrap", "true"])
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn sbatch"),
            )
        })
        .collect();
    let mut acknowledged = BTreeSet::new();
    // Crash once some, but typically not all, submissions were acknowledged.
    let some = cluster.wait_until(LONG, || {
        collect(&mut children, &mut acknowledged, false);
        acknowledged.len() >= 5
    });
    assert!(some, "no submissions acknowledged\n{}", cluster.logs());
    cluster.crash_controller();
    collect(&mut children, &mut acknowledged, true);
    eprintln!(
        "{} of {JOBS} submissions acknowledged around the crash",
        acknowledged.len()
    );
    cluster.restart_controller();
    let known: BTreeSet<u32> = cluster
        .squeue("%i", &["-t", "all"])
        .iter()
        .map(|id| id.parse().unwrap())
        .collect();
    let lost: Vec<&u32> = acknowledged.difference(&known).collect();
    assert!(
        lost.is_empty(),
        "acknowledged jobs lost in the crash: {lost:?}\n{}",
        cluster.logs()
    );
    // New ids come after every id handed out before the crash.
    let next = cluster.wrap("true", &[]);
    assert!(
        known.iter().all(|&id| id < next),
        "id {next} reused: {known:?}"
    );
    assert_eq!(cluster.wait_for_end(next, LONG), "COMPLETED");
}

/// Reaps finished sbatch processes (all of them when `block`), recording the ids of acknowledged submissions.
fn collect(children: &mut [Option<Child>], acknowledged: &mut BTreeSet<u32>, block: bool) {
    for slot in children.iter_mut() {
        let done = match slot.as_mut() {
            Some(child) if block => child.wait().is_ok(),
            Some(child) => matches!(child.try_wait(), Ok(Some(_))),
            None => false,
        };
        if done {
            let out = slot.take().unwrap().wait_with_output().unwrap();
            // A submission the crash interrupted may fail; only acknowledged ones must survive.
            if out.status.success() {
                assert!(
                    acknowledged.insert(parse_job_id(&text(&out.stdout))),
                    "duplicate id"
                );
            }
        }
    }
}
