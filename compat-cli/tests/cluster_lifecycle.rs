//! Batch jobs through a real single-node Spur cluster: output files, exit codes, `--wrap`, `--parsable`, time
//! limits, arrays, dependencies, holds, cancel, requeue, updates, node drain, GPUs and the purge of old jobs.
//! Every test starts its own spurctld and spurd on loopback and drives them only through the Slurm commands.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{current_user_name, field_of, golden, text, Cluster, ClusterOptions, LONG, SHORT};

/// `slurmstepd-HOST: error: *** JOB N ON HOST CANCELLED AT <time>[ DUE TO ...] ***`, Slurm's notice in the
/// job's output when it is cancelled or times out. Returns the line.
fn cancel_notice<'a>(output: &'a str, job: u32, host: &str, cause: &str) -> &'a str {
    let prefix = format!("slurmstepd-{host}: error: *** JOB {job} ON {host} CANCELLED AT ");
    let line = output
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{output}"));
    let rest = &line[prefix.len()..];
    let (time, tail) = rest.split_at(rest.find(' ').unwrap_or(rest.len()));
    assert!(is_iso_time(time), "not a time: {time:?} in {line:?}");
    let expected_tail = if cause.is_empty() {
        " ***".to_string()
    } else {
        format!(" {cause} ***")
    };
    assert_eq!(tail, expected_tail, "{line:?}");
    line
}

/// `YYYY-MM-DDTHH:MM:SS`.
fn is_iso_time(text: &str) -> bool {
    text.len() == 19
        && text.char_indices().all(|(i, c)| match i {
            4 | 7 => c == '-',
            10 => c == 'T',
            13 | 16 => c == ':',
            _ => c.is_ascii_digit(),
        })
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn output_and_error_files_follow_their_patterns() {
    let cluster = Cluster::start();
    let dir = cluster.subdir("patterns");
    let script = dir.join("pat.sh");
    std::fs::write(
        &script,
        "#!/bin/bash\n#SBATCH -J patjob\n#SBATCH -o out-%x-%j.txt\n#SBATCH -e err-%j.txt\n\
         echo to-stdout\necho to-stderr >&2\n",
    )
    .unwrap();
    let job = cluster.sbatch_in(&dir, &["pat.sh"]);
    assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    assert_eq!(
        read(&dir.join(format!("out-patjob-{job}.txt"))),
        "to-stdout\n"
    );
    assert_eq!(read(&dir.join(format!("err-{job}.txt"))), "to-stderr\n");
    let line = cluster.show_job(job).unwrap();
    assert_eq!(
        field_of(&line, "StdOut"),
        format!("{}/out-patjob-{job}.txt", dir.display())
    );
    assert_eq!(
        field_of(&line, "StdErr"),
        format!("{}/err-{job}.txt", dir.display())
    );

    // Without -o/-e both streams go to slurm-%j.out in the submit directory.
    let plain = cluster.sbatch_in(&dir, &["--wrap", "echo out; echo err >&2"]);
    assert_eq!(cluster.wait_for_end(plain, LONG), "COMPLETED");
    assert_eq!(read(&dir.join(format!("slurm-{plain}.out"))), "out\nerr\n");

    // Arrays: %A is the array's id, %a the task.
    let array = cluster.sbatch_in(
        &dir,
        &[
            "--array=1-2",
            "-o",
            "arr-%A_%a.out",
            "--wrap",
            "echo task $SLURM_ARRAY_TASK_ID",
        ],
    );
    for task in 1..=2 {
        let path = dir.join(format!("arr-{array}_{task}.out"));
        cluster.wait_for_file(&path, |t| t == format!("task {task}\n"));
    }
}

#[test]
fn open_mode_append_keeps_earlier_output() {
    let cluster = Cluster::start();
    let dir = cluster.subdir("append");
    let out = dir.join("log.txt");
    std::fs::write(&out, "earlier\n").unwrap();
    let job = cluster.sbatch_in(
        &dir,
        &[
            "--open-mode=append",
            "-o",
            "log.txt",
            "--wrap",
            "echo appended",
        ],
    );
    assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    assert_eq!(read(&out), "earlier\nappended\n");
    // The default truncates.
    let job = cluster.sbatch_in(&dir, &["-o", "log.txt", "--wrap", "echo fresh"]);
    assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    assert_eq!(read(&out), "fresh\n");
}

#[test]
fn exit_codes_and_signals_set_state_and_exit_code() {
    let cluster = Cluster::start();
    let ok = cluster.wrap("true", &[]);
    let three = cluster.wrap("exit 3", &["--job-name=fail3"]);
    let killed = cluster.wrap("kill -9 $$", &[]);
    assert_eq!(cluster.wait_for_end(ok, LONG), "COMPLETED");
    let line = cluster.show_job(ok).unwrap();
    assert_eq!(field_of(&line, "ExitCode"), "0:0");
    assert_eq!(field_of(&line, "Reason"), "None");

    assert_eq!(cluster.wait_for_end(three, LONG), "FAILED");
    let line = cluster.show_job(three).unwrap();
    assert_eq!(field_of(&line, "ExitCode"), "3:0");
    assert_eq!(field_of(&line, "Reason"), "NonZeroExitCode");
    assert_eq!(field_of(&line, "JobName"), "fail3");

    assert_eq!(cluster.wait_for_end(killed, LONG), "FAILED");
    let line = cluster.show_job(killed).unwrap();
    assert_eq!(field_of(&line, "ExitCode"), "0:9");
}

#[test]
fn wrap_and_parsable_print_like_slurm() {
    let cluster = Cluster::start();
    let dir = cluster.subdir("wrap");
    let out = cluster.run_in(&dir, "sbatch", &["--wrap", "echo wrapped $SLURM_JOB_NAME"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let job: u32 = stdout
        .strip_prefix("Submitted batch job ")
        .and_then(|r| r.strip_suffix('\n'))
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("{stdout:?}"));
    assert_eq!(text(&out.stderr), "");
    assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    assert_eq!(
        read(&dir.join(format!("slurm-{job}.out"))),
        "wrapped wrap\n"
    );
    let line = cluster.show_job(job).unwrap();
    assert_eq!(field_of(&line, "JobName"), "wrap");

    let out = cluster.run_in(&dir, "sbatch", &["--parsable", "--wrap", "true"]);
    assert!(out.status.success());
    let parsable = text(&out.stdout);
    assert_eq!(parsable, format!("{}\n", job + 1), "ids are consecutive");
    // -Q prints nothing at all.
    let out = cluster.run_in(&dir, "sbatch", &["-Q", "--wrap", "true"]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "");
}

/// The one time-limit test: about 65 s (a minute of limit, then KillWait). Replays Slurm's captures B00 and B0
/// on a cluster shaped like the reference (job id 41, DefMemPerCPU=1024).
#[test]
fn time_limit_ends_the_job_with_timeout() {
    let cluster = Cluster::start_with(ClusterOptions {
        def_mem_per_cpu: 1024,
        extra_conf: "FirstJobId=41\n".into(),
        ..ClusterOptions::default()
    });
    let dir = cluster.subdir("timeout");
    let output = format!("--output={}/tmo-%j.out", dir.display());
    let out = cluster.run_in(
        &dir,
        "sbatch",
        &[
            "--job-name=tmo",
            "--time=1",
            &output,
            "--wrap",
            "echo start; sleep 200",
        ],
    );
    assert_eq!(text(&out.stdout), golden::capture("B00-sbatch-timeout.txt"));
    let job = 41;
    cluster.wait_for_state(job, "RUNNING", LONG);
    assert_eq!(cluster.job_field(job, "TimeLimit"), "00:01:00");
    assert_eq!(
        cluster.wait_for_end(job, std::time::Duration::from_secs(150)),
        "TIMEOUT"
    );
    let line = cluster.show_job(job).unwrap();
    assert_eq!(field_of(&line, "Reason"), "TimeLimit");
    assert_eq!(field_of(&line, "ExitCode"), "0:15");
    let output = read(&dir.join(format!("tmo-{job}.out")));
    assert!(output.starts_with("start\n"), "{output}");
    cancel_notice(&output, job, &cluster.node, "DUE TO TIME LIMIT");
    // `scontrol show job 41; cat tmo-41.out`, as captured.
    let ours = format!("{}{output}", cluster.ok("scontrol", &["show", "job", "41"]));
    golden::assert_same(
        "B0-timeout-job.txt",
        &golden::normalise(&ours, Some(&dir), &cluster.node),
        &golden::normalise(&golden::capture("B0-timeout-job.txt"), None, "vm"),
        &[],
    );
}

#[test]
fn array_throttle_env_and_cancel_of_one_task() {
    let cluster = Cluster::start();
    let dir = cluster.subdir("arrays");
    // %1: never more than one task at a time, although the node has room for two.
    let array = cluster.sbatch_in(
        &dir,
        &[
            "--array=1-3%1",
            "-o",
            "thr-%a.out",
            "--wrap",
            "echo $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT; sleep 1",
        ],
    );
    let mut saw_limit = false;
    cluster.expect_within(LONG, "all throttled tasks to finish", || {
        let lines = cluster.squeue("%i %T %r", &["-r"]);
        let running = lines.iter().filter(|l| l.contains(" RUNNING ")).count();
        assert!(running <= 1, "throttle %1 broken: {lines:?}");
        saw_limit |= lines.iter().any(|l| l.ends_with("JobArrayTaskLimit"));
        lines.is_empty()
    });
    assert!(
        saw_limit,
        "waiting tasks never showed reason JobArrayTaskLimit"
    );
    for task in 1..=3 {
        assert_eq!(
            read(&dir.join(format!("thr-{task}.out"))),
            format!("{task} 3\n")
        );
    }
    let tasks = cluster.squeue("%i %T", &["-r", "-t", "all", "-j", &array.to_string()]);
    assert_eq!(tasks.len(), 3, "{tasks:?}");
    assert!(tasks.iter().all(|l| l.ends_with(" COMPLETED")), "{tasks:?}");

    // scancel ARRAY_TASK cancels that task only; never started, it leaves no record (Slurm clears its bit).
    let held = cluster.sbatch_in(&dir, &["--hold", "--array=1-3", "--wrap", "true"]);
    cluster.ok("scancel", &[&format!("{held}_3")]);
    let mut states = cluster.squeue("%i %T", &["-r", "-t", "all", "-j", &held.to_string()]);
    states.sort();
    assert_eq!(
        states,
        vec![format!("{held}_1 PENDING"), format!("{held}_2 PENDING")]
    );
    // The pending rest shows as one line, as in Slurm.
    assert_eq!(
        cluster.squeue("%i %T", &["-t", "PD", "-j", &held.to_string()]),
        vec![format!("{held}_[1-2] PENDING")]
    );
    cluster.ok("scancel", &[&held.to_string()]);
    let states = cluster.squeue("%i %T", &["-r", "-t", "all", "-j", &held.to_string()]);
    assert!(
        states.iter().all(|l| l.ends_with(" CANCELLED")),
        "{states:?}"
    );
}

#[test]
fn dependencies_chain_and_never_satisfied() {
    let cluster = Cluster::start();
    let a = cluster.wrap("sleep 3", &[]);
    let b = cluster.wrap("echo b", &[&format!("--dependency=afterok:{a}")]);
    let c = cluster.wrap("echo c", &[&format!("--dependency=afterok:{b}")]);
    let not_ok = cluster.wrap("echo never", &[&format!("--dependency=afternotok:{a}")]);
    // While `a` runs, the others wait with reason Dependency (Slurm's squeue -o '%i %j %T %r %E').
    let waiting = vec![format!(
        "{b} wrap PENDING Dependency afterok:{a}(unfulfilled)"
    )];
    cluster.expect_within(SHORT, "the dependent job to wait on Dependency", || {
        cluster.squeue("%i %j %T %r %E", &["-j", &b.to_string()]) == waiting
    });
    assert_eq!(cluster.wait_for_end(c, LONG), "COMPLETED");
    for (job, before) in [(b, a), (c, b)] {
        assert_eq!(cluster.job_field(job, "JobState"), "COMPLETED");
        let started = cluster.job_field(job, "StartTime");
        let previous_end = cluster.job_field(before, "EndTime");
        assert!(
            started >= previous_end,
            "{job} started {started} before {before} ended {previous_end}"
        );
    }
    cluster.expect_within(
        SHORT,
        "afternotok of a completed job to be never satisfied",
        || cluster.job_field(not_ok, "Reason") == "DependencyNeverSatisfied",
    );
    assert_eq!(cluster.job_field(not_ok, "JobState"), "PENDING");
    assert_eq!(
        cluster.squeue("%i %r", &["-j", &not_ok.to_string()]),
        vec![format!("{not_ok} DependencyNeverSatisfied")]
    );
    cluster.ok("scancel", &[&not_ok.to_string()]);
    assert_eq!(cluster.wait_for_end(not_ok, SHORT), "CANCELLED");
}

#[test]
fn holds_and_releases() {
    let cluster = Cluster::start();
    // sbatch --hold: a user hold.
    let user_held = cluster.wrap("true", &["--hold", "--job-name=held"]);
    assert_eq!(
        cluster.squeue("%i %T %r", &["-j", &user_held.to_string()]),
        vec![format!("{user_held} PENDING JobHeldUser")]
    );
    assert_eq!(cluster.job_field(user_held, "Priority"), "0");
    cluster.ok("scontrol", &["release", &user_held.to_string()]);
    assert_eq!(cluster.wait_for_end(user_held, LONG), "COMPLETED");

    // scontrol hold by root: an admin hold; uhold: a user hold. A later start time keeps the job pending.
    let job = cluster.wrap("true", &["--begin=now+3600", "--job-name=waiter"]);
    cluster.ok("scontrol", &["hold", &job.to_string()]);
    assert_eq!(
        cluster.squeue("%i %T %r", &["-j", &job.to_string()]),
        vec![format!("{job} PENDING JobHeldAdmin")]
    );
    // The default layout, as in the capture 70-scontrol-hold-update.txt.
    let default = cluster.ok("squeue", &["-j", &job.to_string()]);
    let user = current_user_name();
    assert_eq!(
        default,
        format!(
            "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n\
             {job:>18} {:>9} {:>8} {:>8} {:>2} {:>10} {:>6} (JobHeldAdmin)\n",
            "debug", "waiter", &user[..user.len().min(8)], "PD", "0:00", "1"
        )
    );
    cluster.ok("scontrol", &["release", &job.to_string()]);
    // Reason=None until the next scheduling pass looks at the job again.
    cluster.expect_within(SHORT, "the released job to wait for its begin time", || {
        cluster.job_field(job, "Reason") == "BeginTime"
    });
    cluster.ok("scontrol", &["uhold", &job.to_string()]);
    assert_eq!(cluster.job_field(job, "Reason"), "JobHeldUser");
    cluster.ok("scontrol", &["release", &job.to_string()]);
    assert_eq!(cluster.job_field(job, "JobState"), "PENDING");
    assert_ne!(cluster.job_field(job, "Reason"), "JobHeldUser");
    cluster.ok("scancel", &[&job.to_string()]);
}

#[test]
fn scancel_pending_running_and_by_signal() {
    let cluster = Cluster::start();
    let dir = cluster.subdir("cancel");
    // Pending.
    let pending = cluster.wrap("true", &["--hold"]);
    cluster.ok("scancel", &[&pending.to_string()]);
    assert_eq!(cluster.wait_for_end(pending, SHORT), "CANCELLED");

    // Running: CANCELLED, ExitCode 0:15, and Slurm's notice in the output.
    let running = cluster.sbatch_in(&dir, &["-o", "run-%j.out", "--wrap", "echo up; sleep 120"]);
    let out_path = dir.join(format!("run-{running}.out"));
    cluster.wait_for_file(&out_path, |t| t.contains("up"));
    cluster.ok("scancel", &[&running.to_string()]);
    assert_eq!(cluster.wait_for_end(running, LONG), "CANCELLED");
    assert_eq!(cluster.job_field(running, "ExitCode"), "0:15");
    let output = cluster.wait_for_file(&out_path, |t| t.contains("CANCELLED AT"));
    cancel_notice(&output, running, &cluster.node, "");

    // -s USR1 alone reaches only steps' tasks, so a script without steps is left running, as in Slurm; -f -s
    // USR1 reaches the script, which traps it and completes normally.
    let trapping = cluster.sbatch_in(
        &dir,
        &[
            "-o",
            "trap-%j.out",
            "--wrap",
            "trap 'echo got USR1; exit 0' USR1; echo ready; for i in $(seq 600); do sleep 0.1; done; echo no-signal",
        ],
    );
    let trap_path = dir.join(format!("trap-{trapping}.out"));
    cluster.wait_for_file(&trap_path, |t| t.contains("ready"));
    cluster.ok("scancel", &["-s", "USR1", &trapping.to_string()]);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(cluster.job_field(trapping, "JobState"), "RUNNING");
    assert!(!read(&trap_path).contains("got USR1"));
    cluster.ok("scancel", &["-f", "-s", "USR1", &trapping.to_string()]);
    assert_eq!(cluster.wait_for_end(trapping, LONG), "COMPLETED");
    let output = read(&trap_path);
    assert!(output.contains("got USR1"), "{output}");
    assert!(!output.contains("no-signal"), "{output}");

    // Unknown ids are silently ignored, as in Slurm (72-scancel-nonexistent.txt).
    let out = cluster.run("scancel", &["999999"]);
    assert_eq!(
        (out.status.code(), text(&out.stderr)),
        (Some(0), String::new())
    );
}

#[test]
fn scancel_by_name_and_user() {
    let cluster = Cluster::start();
    let victims: Vec<u32> = (0..2)
        .map(|_| cluster.wrap("sleep 120", &["--hold", "-J", "victim"]))
        .collect();
    let keeper = cluster.wrap("sleep 120", &["--hold", "-J", "keeper"]);
    cluster.ok("scancel", &["--name=victim"]);
    for job in &victims {
        assert_eq!(cluster.wait_for_end(*job, SHORT), "CANCELLED");
    }
    assert_eq!(cluster.job_field(keeper, "JobState"), "PENDING");
    let me = current_user_name();
    let other = cluster.wrap("sleep 120", &["-J", "other"]);
    cluster.ok("scancel", &["-u", &me]);
    for job in [keeper, other] {
        assert_eq!(cluster.wait_for_end(job, LONG), "CANCELLED");
    }
}

#[test]
fn scancel_of_many_ids_reports_in_argument_order() {
    let cluster = Cluster::start();
    // Enough jobs that several requests are in flight at once.
    let jobs: Vec<u32> = (0..20)
        .map(|_| cluster.wrap("sleep 120", &["--hold", "-J", "many"]))
        .collect();
    let finished = cluster.wrap("true", &[]);
    assert_eq!(cluster.wait_for_end(finished, LONG), "COMPLETED");
    let mut args: Vec<String> = vec!["-v".into()];
    args.extend(jobs[..10].iter().map(u32::to_string));
    args.push("4000000".into());
    args.push(finished.to_string());
    args.extend(jobs[10..].iter().map(u32::to_string));
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = cluster.run("scancel", &arg_refs);
    // Ids that are gone or already over are named only with -v and do not count as failures, as in Slurm.
    assert_eq!(out.status.code(), Some(0));
    let mut expected = Vec::new();
    for id in &args[1..] {
        expected.push(format!("scancel: Terminating job {id}"));
        if id == "4000000" {
            expected.push(
                "scancel: error: Kill job error on job id 4000000: Invalid job id specified".into(),
            );
        } else if *id == finished.to_string() {
            expected.push(format!(
                "scancel: error: Kill job error on job id {id}: Job/step already completing or completed"
            ));
        }
    }
    assert_eq!(text(&out.stderr).lines().collect::<Vec<_>>(), expected);
    for job in jobs {
        assert_eq!(cluster.wait_for_end(job, SHORT), "CANCELLED");
    }
}

#[test]
fn requeue_runs_the_job_again() {
    let cluster = Cluster::start();
    let dir = cluster.subdir("requeue");
    let marker = dir.join("first-run-done");
    let job = cluster.sbatch_in(
        &dir,
        &[
            "-o",
            "rq.out",
            "--open-mode=append",
            "--wrap",
            &format!(
                "if [ -e {m} ]; then echo second; exit 0; fi; touch {m}; echo first; sleep 120",
                m = marker.display()
            ),
        ],
    );
    cluster.wait_for_file(&dir.join("rq.out"), |t| t.contains("first"));
    cluster.ok("scontrol", &["requeue", &job.to_string()]);
    // As slurmctld, the requeued job waits out the old run's credential (BeginTime, 121 s by default); an
    // administrator's StartTime=now lets it go at once.
    cluster.wait_for_state(job, "PENDING", LONG);
    assert_eq!(cluster.job_field(job, "Reason"), "BeginTime");
    cluster.ok(
        "scontrol",
        &["update", &format!("jobid={job}"), "StartTime=now"],
    );
    assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    assert_eq!(cluster.job_field(job, "Restarts"), "1");
    // Slurm notes the requeue in the output, like a cancel.
    let output = read(&dir.join("rq.out"));
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), 3, "{output}");
    assert_eq!((lines[0], lines[2]), ("first", "second"));
    cancel_notice(lines[1], job, &cluster.node, "DUE TO JOB REQUEUE");
}

#[test]
fn scontrol_update_time_limit_and_name() {
    let cluster = Cluster::start();
    let job = cluster.wrap("true", &["--hold", "-J", "waiter", "--time=10"]);
    assert_eq!(cluster.job_field(job, "TimeLimit"), "00:10:00");
    cluster.ok(
        "scontrol",
        &[
            "update",
            &format!("jobid={job}"),
            "TimeLimit=5",
            "Name=renamed",
        ],
    );
    let line = cluster.show_job(job).unwrap();
    assert_eq!(field_of(&line, "TimeLimit"), "00:05:00");
    assert_eq!(field_of(&line, "JobName"), "renamed");
    assert_eq!(
        cluster.squeue("%j", &["-j", &job.to_string()]),
        vec!["renamed"]
    );
    cluster.ok(
        "scontrol",
        &["update", &format!("JobId={job}"), "TimeLimit=1-00:00:00"],
    );
    assert_eq!(cluster.job_field(job, "TimeLimit"), "1-00:00:00");
    cluster.ok("scancel", &[&job.to_string()]);
}

#[test]
fn node_drain_and_resume() {
    let cluster = Cluster::start();
    let node = cluster.node.clone();
    let running = cluster.wrap("sleep 120", &[]);
    cluster.wait_for_state(running, "RUNNING", LONG);
    cluster.ok(
        "scontrol",
        &[
            "update",
            &format!("NodeName={node}"),
            "State=DRAIN",
            "Reason=maintenance",
        ],
    );
    // Draining while the job runs, drained once it is gone.
    assert_eq!(cluster.ok("sinfo", &["-h", "-o", "%T"]).trim(), "draining");
    let reasons = cluster.ok("sinfo", &["-R", "-h", "-o", "%E|%N"]);
    assert_eq!(reasons.trim(), format!("maintenance|{node}"));
    let waiting = cluster.wrap("true", &[]);
    cluster.ok("scancel", &[&running.to_string()]);
    assert_eq!(cluster.wait_for_end(running, LONG), "CANCELLED");
    cluster.expect_within(LONG, "the node to be drained", || {
        cluster.ok("sinfo", &["-h", "-o", "%T"]).trim() == "drained"
    });
    let node_line = cluster.ok("scontrol", &["show", "node", &node, "-o"]);
    assert_eq!(field_of(&node_line, "Reason"), "maintenance");
    assert_eq!(cluster.job_field(waiting, "JobState"), "PENDING");

    cluster.ok(
        "scontrol",
        &["update", &format!("NodeName={node}"), "State=RESUME"],
    );
    assert_eq!(cluster.wait_for_end(waiting, LONG), "COMPLETED");
    cluster.wait_for_node_idle();
    assert_eq!(cluster.ok("sinfo", &["-R", "-h"]).trim(), "");
}

#[test]
fn gpu_jobs_get_disjoint_devices() {
    let cluster = Cluster::start_with(ClusterOptions {
        gres: Some("gpu:a100:4".into()),
        ..ClusterOptions::default()
    });
    let dir = cluster.subdir("gpus");
    let go = dir.join("go");
    let script = format!(
        "echo CUDA=$CUDA_VISIBLE_DEVICES GPU=$GPU_DEVICE_ORDINAL; while [ ! -e {} ]; do sleep 0.1; done",
        go.display()
    );
    let jobs: Vec<u32> = (0..2)
        .map(|i| {
            cluster.sbatch_in(
                &dir,
                &[
                    "--gres=gpu:2",
                    "-o",
                    &format!("gpu{i}.out"),
                    "--wrap",
                    &script,
                ],
            )
        })
        .collect();
    // Both run at once (4 GPUs, 2 each): their devices must not overlap.
    let mut seen: Vec<Vec<String>> = Vec::new();
    for i in 0..2 {
        let out = cluster.wait_for_file(&dir.join(format!("gpu{i}.out")), |t| t.contains("CUDA="));
        let line = out.lines().next().unwrap();
        let (cuda, gpu) = line
            .strip_prefix("CUDA=")
            .and_then(|r| r.split_once(" GPU="))
            .unwrap_or_else(|| panic!("{line}"));
        assert_eq!(
            cuda, gpu,
            "CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL differ"
        );
        let ids: Vec<String> = cuda.split(',').map(str::to_string).collect();
        assert_eq!(ids.len(), 2, "{line}");
        seen.push(ids);
    }
    assert!(
        seen[0].iter().all(|d| !seen[1].contains(d)),
        "two running jobs share GPUs: {seen:?}"
    );
    std::fs::write(&go, "").unwrap();
    for job in jobs {
        assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    }
    // A job without --gres sees no GPU variables.
    let plain = cluster.sbatch_in(
        &dir,
        &[
            "-o",
            "plain.out",
            "--wrap",
            "echo CUDA=${CUDA_VISIBLE_DEVICES-unset}",
        ],
    );
    assert_eq!(cluster.wait_for_end(plain, LONG), "COMPLETED");
    assert_eq!(read(&dir.join("plain.out")), "CUDA=unset\n");
}

#[test]
fn finished_jobs_are_purged_after_min_job_age() {
    let cluster = Cluster::start_with(ClusterOptions {
        min_job_age: 2,
        ..ClusterOptions::default()
    });
    let job = cluster.wrap("true", &[]);
    assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    cluster.expect_within(LONG, "the finished job to be purged", || {
        cluster.show_job(job).is_none()
    });
    let out = cluster.run("scontrol", &["show", "job", &job.to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "slurm_load_jobs error: Invalid job id specified\n"
    );
    assert!(cluster.squeue("%i", &["-t", "all"]).is_empty());
    // The next job still gets a new id.
    let next = cluster.wrap("true", &[]);
    assert!(next > job);
}

/// On an idle cluster the commit that creates a job also starts it (`Command::SubmitAndStart`, as slurmctld starts
/// a top-priority job at submission): it runs by the time sbatch has printed its id. A job that cannot start then
/// is left to the scheduling pass.
#[test]
fn a_job_that_fits_an_idle_cluster_runs_when_sbatch_returns() {
    let cluster = Cluster::start();
    let first = cluster.wrap("sleep 60", &["-n1"]);
    assert_eq!(cluster.job_field(first, "JobState"), "RUNNING");
    let whole_node = cluster.wrap("true", &["-n2"]);
    assert_eq!(cluster.job_field(whole_node, "JobState"), "PENDING");
    cluster.expect_within(SHORT, "the pass gives the waiting job its reason", || {
        cluster.job_field(whole_node, "Reason") == "Resources"
    });
    cluster.ok("scancel", &[&first.to_string(), &whole_node.to_string()]);
}
