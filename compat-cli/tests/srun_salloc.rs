//! srun and salloc against a real single-node Spur cluster, compared with Slurm 22.05.8's captures
//! (`core/tests/golden/slurm-22.05/`) after normalising job ids and the node name.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use common::{Cluster, ClusterOptions};
use pretty_assertions::assert_eq;

/// One capture: the command's stdout, stderr and exit code.
struct Capture {
    stdout: String,
    stderr: String,
    exit: i32,
}

fn capture(name: &str) -> Capture {
    let path = format!(
        "{}/../core/tests/golden/slurm-22.05/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let section = |start: &str, end: &str| -> String {
        let from = text.find(start).map(|i| i + start.len() + 1).unwrap_or(0);
        let to = text[from..].find(end).map_or(text.len(), |i| from + i);
        text[from..to].to_string()
    };
    let exit = text
        .rsplit("--- exit: ")
        .next()
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|code| code.parse().ok())
        .unwrap_or(-1);
    Capture {
        stdout: section("--- stdout ---", "--- stderr ---"),
        stderr: section("--- stderr ---", "--- exit:"),
        exit,
    }
}

/// Job and step ids become `N`, the node name `vm` (the reference node), stepd timestamps `T`.
fn normalise(text: &str, node: &str) -> String {
    let text = if node == "vm" {
        text.to_string()
    } else {
        text.replace(&format!("{node}:"), "vm:")
            .replace(&format!("-{node}:"), "-vm:")
            .replace(&format!("ON {node} "), "ON vm ")
            .lines()
            .map(|l| if l == node { "vm" } else { l })
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(&normalise_line(line));
        out.push('\n');
    }
    out
}

fn normalise_line(line: &str) -> String {
    let mut line = line.to_string();
    if let Some(at) = line.find(" CANCELLED AT ") {
        let end = line[at..].find(" ***").map_or(line.len(), |i| at + i);
        line.replace_range(at + " CANCELLED AT ".len()..end, "T");
    }
    for token in [
        "allocation ",
        "job ",
        "StepId=",
        "JobId=",
        "STEP ",
        "for job ",
    ] {
        let mut from = 0;
        while let Some(i) = line[from..].find(token) {
            let start = from + i + token.len();
            let digits = line[start..].bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 {
                line.replace_range(start..start + digits, "N");
            }
            from = start;
        }
    }
    line
}

fn texts(out: &Output, node: &str) -> (String, String, i32) {
    (
        normalise(&String::from_utf8_lossy(&out.stdout), node),
        normalise(&String::from_utf8_lossy(&out.stderr), node),
        out.status.code().unwrap_or(-1),
    )
}

/// Compares with a capture; `sort` compares lines in any order (tasks of one step race each other).
fn assert_like(cluster: &Cluster, out: &Output, expected: &Capture, sort: bool) {
    let (mut stdout, mut stderr, code) = texts(out, &cluster.node);
    let mut want_stdout = normalise(&expected.stdout, "vm");
    let mut want_stderr = normalise(&expected.stderr, "vm");
    if sort {
        stdout = sorted(&stdout);
        want_stdout = sorted(&want_stdout);
        stderr = sorted(&stderr);
        want_stderr = sorted(&want_stderr);
    }
    assert_eq!(stdout, want_stdout, "stdout\n{}", cluster.logs());
    assert_eq!(stderr, want_stderr, "stderr");
    assert_eq!(code, expected.exit, "exit code");
}

fn sorted(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The environment the captures were taken in (`env -i ...`), plus the cluster's configuration.
fn clean_env(cluster: &Cluster, command: &str) -> std::process::Command {
    let mut cmd = cluster.slurm_command(command);
    cmd.env_clear()
        .env("HOME", "/root")
        .env(
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        )
        .env("USER", "root")
        .env("LOGNAME", "root")
        .env("SHELL", "/bin/bash")
        .env("TERM", "dumb")
        .env("LANG", "C.UTF-8")
        .env("SLURM_CONF", &cluster.conf);
    cmd
}

fn names(env_text: &str) -> Vec<String> {
    let mut names: Vec<String> = env_text
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_string()))
        .filter(|k| !k.starts_with("SPUR_"))
        .collect();
    names.sort();
    names.dedup();
    names
}

fn value<'a>(env_text: &'a str, name: &str) -> Vec<&'a str> {
    env_text
        .lines()
        .filter_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix('=')))
        .collect()
}

fn run_ok(cmd: &mut std::process::Command) -> Output {
    cmd.output().expect("run spur")
}

/// Waits until a job with this name is in `state` (`PENDING Resources` also checks the reason), returning its id.
fn wait_for_named(cluster: &Cluster, name: &str, state: &str) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    let format = if state.contains(' ') {
        "%i %T %r"
    } else {
        "%i %T"
    };
    loop {
        let out = cluster.ok("squeue", &["-h", "-t", "all", "-n", name, "-o", format]);
        if let Some(id) = out.lines().find_map(|l| {
            let (id, st) = l.split_once(' ')?;
            (st == state).then(|| id.parse().ok()).flatten()
        }) {
            return id;
        }
        assert!(
            Instant::now() < deadline,
            "no {state} job {name}: {out}\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits until step `step` of job `job_id` is listed by `squeue -s`.
fn wait_for_step(cluster: &Cluster, job_id: u32, step: u32) {
    let wanted = format!("{job_id}.{step}");
    cluster.expect_within(Duration::from_secs(30), &format!("step {wanted}"), || {
        cluster
            .ok(
                "squeue",
                &["-h", "-s", "-j", &job_id.to_string(), "-o", "%i"],
            )
            .lines()
            .any(|l| l.trim() == wanted)
    });
}

fn finish(child: Child, cluster: &Cluster) -> (String, String, i32) {
    let out = child.wait_with_output().expect("wait");
    let code = out
        .status
        .code()
        .or_else(|| out.status.signal().map(|s| 128 + s))
        .unwrap_or(-1);
    let (stdout, stderr, _) = texts(&out, &cluster.node);
    (stdout, stderr, code)
}

fn spawn(cluster: &Cluster, command: &str, args: &[&str]) -> Child {
    cluster
        .slurm_command(command)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn spur")
}

fn signal(child: &Child, signal: i32) {
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: signalling a child this test started.
    unsafe {
        libc::kill(pid, signal);
    }
}

#[test]
fn srun_runs_tasks_as_slurm_does() {
    let cluster = Cluster::start();
    let cases: [(&str, &[&str], bool); 5] = [
        ("22-srun-hostname.txt", &["hostname"], false),
        ("24-srun-n2-label.txt", &["-n2", "-l", "hostname"], true),
        (
            "26-srun-exit-code.txt",
            &["-n2", "-l", "bash", "-c", "exit $((SLURM_PROCID+5))"],
            true,
        ),
        ("27-srun-false.txt", &["false"], false),
        ("29-srun-signal.txt", &["bash", "-c", "kill -9 $$"], false),
    ];
    for (name, args, sort) in cases {
        let out = cluster.run("srun", args);
        assert_like(&cluster, &out, &capture(name), sort);
    }

    let mut cat = cluster.slurm_command("srun");
    cat.args(["-n2", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = cat.spawn().expect("srun cat");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"in\n")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "in\nin\n");

    cluster.ok("srun", &["-n2", "-o", "out-%t.txt", "hostname"]);
    for rank in 0..2 {
        let path = cluster.dir.path().join(format!("out-{rank}.txt"));
        let text = std::fs::read_to_string(path).expect("output file");
        assert_eq!(text.trim(), cluster.node);
    }

    let missing = cluster.run("srun", &["no-such-program"]);
    let (_, stderr, code) = texts(&missing, &cluster.node);
    assert_eq!(
        stderr,
        "slurmstepd-vm: error: execve(): no-such-program: No such file or directory\n\
         srun: error: vm: task 0: Exited with exit code 2\n"
    );
    assert_eq!(code, 2);

    // What a task leaves running in the background ends with the step.
    let leftover = cluster.ok("srun", &["bash", "-c", "sleep 300 & echo $!"]);
    let pid = leftover.trim();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit(") ").next().and_then(|r| r.chars().next());
    assert!(
        matches!(state, None | Some('Z')),
        "{pid} still runs: {stat}"
    );

    // What no node could ever hold is refused; beyond the partition's CPUs it waits, as in Slurm (case 496).
    let impossible = cluster.run("srun", &["--mem=999999", "hostname"]);
    assert_eq!(
        String::from_utf8_lossy(&impossible.stderr),
        "srun: error: Memory specification can not be satisfied\n\
         srun: error: Unable to allocate resources: Requested node configuration is not available\n"
    );
    assert_eq!(impossible.status.code(), Some(1));

    // Each srun was a job of its own, finished with the tasks' result, and gave its resources back.
    let jobs = cluster.ok("squeue", &["-h", "-t", "all", "-o", "%j %T"]);
    assert!(jobs.contains("hostname COMPLETED"), "{jobs}");
    assert!(jobs.contains("false FAILED"), "{jobs}");
    let false_id = wait_for_named(&cluster, "false", "FAILED");
    assert_eq!(cluster.job_field(false_id, "ExitCode"), "1:0");
    cluster.wait_for_node_idle();
}

#[test]
fn task_environments_match_slurm() {
    let cluster = Cluster::start();
    let submit_dir = cluster.dir.path().display().to_string();

    let srun = run_ok(clean_env(&cluster, "srun").args(["-n1", "env"]));
    let env = String::from_utf8_lossy(&srun.stdout).into_owned();
    let expected = capture("32-srun-env-sorted.txt").stdout;
    assert_eq!(names(&env), names(&expected));
    assert_eq!(value(&env, "SLURM_JOB_NAME"), ["env"]);
    assert_eq!(value(&env, "SLURM_STEP_ID"), ["0"]);
    assert_eq!(value(&env, "SLURM_CLUSTER_NAME"), ["spurtest"]);
    assert_eq!(value(&env, "SLURM_SUBMIT_DIR"), [submit_dir.as_str()]);
    assert_eq!(value(&env, "SLURMD_NODENAME"), [cluster.node.as_str()]);
    assert!(value(&env, "SLURM_TASK_PID")[0].parse::<u32>().is_ok());

    let two = run_ok(clean_env(&cluster, "srun").args(["-n2", "env"]));
    let env = String::from_utf8_lossy(&two.stdout).into_owned();
    let mut ranks = value(&env, "SLURM_PROCID");
    ranks.sort_unstable();
    assert_eq!(ranks, ["0", "1"]);
    assert_eq!(value(&env, "SLURM_GTIDS"), ["0,1", "0,1"]);
    let slurm_names = |text: &str| -> Vec<String> {
        names(text)
            .into_iter()
            .filter(|n| n.starts_with("SLURM_"))
            .collect()
    };
    assert_eq!(
        slurm_names(&env),
        slurm_names(&capture("23-srun-n2-env-SLURM.txt").stdout)
    );

    let salloc = run_ok(clean_env(&cluster, "salloc").args(["-n1", "env"]));
    let env = String::from_utf8_lossy(&salloc.stdout).into_owned();
    assert_eq!(
        names(&env),
        names(&capture("33-salloc-env-sorted.txt").stdout)
    );
    assert_eq!(value(&env, "SLURM_JOB_NAME"), ["interactive"]);

    let spur = cluster.spur_bin().display().to_string();
    let inner = run_ok(clean_env(&cluster, "salloc").args(["-n2", &spur, "srun", "-n1", "env"]));
    let env = String::from_utf8_lossy(&inner.stdout).into_owned();
    assert_eq!(
        names(&env),
        names(&capture("34-salloc-srun-env-sorted.txt").stdout)
    );
    assert_eq!(value(&env, "SLURM_DISTRIBUTION"), ["cyclic"]);
    assert_eq!(value(&env, "SLURM_TASKS_PER_NODE"), ["1"]);
    assert_eq!(value(&env, "SLURM_JOB_CPUS_PER_NODE"), ["2"]);
}

#[test]
fn salloc_runs_its_command_and_gives_the_allocation_back() {
    let cluster = Cluster::start();
    let spur = cluster.spur_bin().display().to_string();
    let out = cluster.run("salloc", &["-N1", &spur, "srun", "hostname"]);
    let mut expected = capture("25-salloc-srun.txt");
    // Slurm's controller races salloc's exit to say the allocation was revoked; Spur never prints that line.
    expected.stderr = expected
        .stderr
        .lines()
        .filter(|l| !l.contains("has been revoked"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_like(&cluster, &out, &expected, false);

    let failed = cluster.run("salloc", &["-J", "four", "sh", "-c", "exit 4"]);
    let (_, stderr, code) = texts(&failed, &cluster.node);
    assert_eq!(
        stderr,
        "salloc: Granted job allocation N\nsalloc: Relinquishing job allocation N\n"
    );
    assert_eq!(code, 4);
    let four = wait_for_named(&cluster, "four", "FAILED");
    assert_eq!(cluster.job_field(four, "ExitCode"), "4:0");

    // No command and no terminal: the login shell reads stdin (empty) and ends.
    let shell = cluster.run("salloc", &["-n1"]);
    assert_eq!(shell.status.code(), Some(0));

    let missing = cluster.run("salloc", &["no-such-program"]);
    let (_, stderr, code) = texts(&missing, &cluster.node);
    assert_eq!(
        stderr,
        "salloc: Granted job allocation N\n\
         salloc: error: _fork_command: Unable to find command \"no-such-program\"\n\
         salloc: Relinquishing job allocation N\n"
    );
    assert_eq!(code, 1);

    // sruns inside the allocation are its steps, numbered in order; they create no job.
    let before = cluster
        .ok("squeue", &["-h", "-t", "all", "-o", "%i"])
        .lines()
        .count();
    let script = format!("{spur} srun printenv SLURM_STEP_ID; {spur} srun printenv SLURM_STEP_ID");
    let steps = cluster.ok("salloc", &["-n1", "sh", "-c", &script]);
    assert_eq!(steps, "0\n1\n");
    let after = cluster
        .ok("squeue", &["-h", "-t", "all", "-o", "%i"])
        .lines()
        .count();
    assert_eq!(after, before + 1);

    let too_many = cluster.run("salloc", &["-n1", &spur, "srun", "-n2", "true"]);
    let (_, stderr, code) = texts(&too_many, &cluster.node);
    assert_eq!(
        stderr,
        "salloc: Granted job allocation N\n\
         srun: error: Unable to create step for job N: More processors requested than permitted\n\
         salloc: Relinquishing job allocation N\n"
    );
    assert_eq!(code, 1);
    cluster.wait_for_node_idle();
}

#[test]
fn gres_steps_see_their_gpus() {
    let cluster = Cluster::start_with(ClusterOptions {
        gres: Some("gpu:a100:4".to_string()),
        ..ClusterOptions::default()
    });
    for (name, args) in [
        ("90-gres-srun-env.txt", ["--gres=gpu:a100:2", "env"]),
        ("91-gres-gpus-opt.txt", ["--gpus=1", "env"]),
    ] {
        let out = cluster.run("srun", &args);
        let env = String::from_utf8_lossy(&out.stdout);
        let mut gpu_lines: Vec<&str> = env
            .lines()
            .filter(|l| l.contains("GPU") || l.contains("CUDA") || l.contains("GRES"))
            .collect();
        gpu_lines.sort_unstable();
        let expected = capture(name);
        assert_eq!(
            gpu_lines,
            expected.stdout.lines().collect::<Vec<_>>(),
            "{name}"
        );
    }
    for name in ["92-gres-too-many.txt", "93-gres-bad-type.txt"] {
        let gres = if name.starts_with("92") {
            "--gres=gpu:a100:5"
        } else {
            "--gres=gpu:h100:1"
        };
        let out = cluster.run("srun", &[gres, "true"]);
        assert_like(&cluster, &out, &capture(name), false);
    }
}

#[test]
fn busy_nodes_and_pending_allocations() {
    let cluster = Cluster::start();
    let blocker = cluster.submit("#!/bin/sh\nsleep 60\n", &["-n2", "-J", "blocker"]);
    cluster.wait_for_state(blocker, "RUNNING", Duration::from_secs(30));

    let srun = cluster.run("srun", &["-I", "true"]);
    assert_eq!(
        String::from_utf8_lossy(&srun.stderr),
        "srun: error: Unable to allocate resources: Requested nodes are busy\n"
    );
    assert_eq!(srun.status.code(), Some(1));
    // Each refusal uses up a job id (srun's the one after the blocker's); salloc names its own as revoked.
    let salloc = cluster.run("salloc", &["-I", "true"]);
    assert_eq!(
        String::from_utf8_lossy(&salloc.stderr),
        format!(
            "salloc: Job allocation {} has been revoked.\n\
             salloc: error: Unable to allocate resources: Requested nodes are busy\n",
            blocker + 2
        )
    );
    assert_eq!(salloc.status.code(), Some(1));
    let waited = cluster.run("srun", &["--immediate=1", "true"]);
    let (_, stderr, code) = texts(&waited, &cluster.node);
    assert_eq!(
        stderr,
        "srun: job N queued and waiting for resources\n\
         srun: error: Unable to allocate resources: Requested nodes are busy\n"
    );
    assert_eq!(code, 1);

    // Ctrl-C while waiting withdraws the request.
    let pending = spawn(&cluster, "srun", &["-J", "interrupted", "true"]);
    let id = wait_for_named(&cluster, "interrupted", "PENDING Resources");
    std::thread::sleep(Duration::from_millis(500));
    signal(&pending, libc::SIGINT);
    let (_, stderr, code) = finish(pending, &cluster);
    assert_eq!(
        stderr,
        "srun: job N queued and waiting for resources\n\
         srun: Job allocation N has been revoked\n\
         srun: Force Terminated JobId=N\n"
    );
    assert_eq!(code, 1);
    cluster.wait_for_state(id, "CANCELLED", Duration::from_secs(10));

    // A waiting salloc reports the wait, then the grant once the blocker is gone.
    let waiting = spawn(&cluster, "salloc", &["-J", "waiting", "true"]);
    wait_for_named(&cluster, "waiting", "PENDING Resources");
    std::thread::sleep(Duration::from_millis(500));
    cluster.ok("scancel", &[&blocker.to_string()]);
    let (_, stderr, code) = finish(waiting, &cluster);
    assert_eq!(
        stderr,
        "salloc: Pending job allocation N\n\
         salloc: job N queued and waiting for resources\n\
         salloc: job N has been allocated resources\n\
         salloc: Granted job allocation N\n\
         salloc: Relinquishing job allocation N\n"
    );
    assert_eq!(code, 0);
}

#[test]
fn signals_and_cancellation_end_steps_like_slurm() {
    let cluster = Cluster::start();

    let terminated = spawn(&cluster, "srun", &["-J", "term", "sleep", "60"]);
    let id = wait_for_named(&cluster, "term", "RUNNING");
    wait_for_step(&cluster, id, 0);
    std::thread::sleep(Duration::from_millis(300));
    signal(&terminated, libc::SIGTERM);
    let (_, stderr, code) = finish(terminated, &cluster);
    assert_eq!(
        stderr,
        "srun: forcing job termination\n\
         srun: Job step aborted: Waiting up to 4 seconds for job step to finish.\n\
         slurmstepd-vm: error: *** STEP N.0 ON vm CANCELLED AT T ***\n\
         srun: error: vm: task 0: Killed\n"
    );
    assert_eq!(code, 137);

    let cancelled = spawn(&cluster, "srun", &["-J", "cancelled", "sleep", "60"]);
    let id = wait_for_named(&cluster, "cancelled", "RUNNING");
    // A job runs before srun has created its step; a cancel in between leaves srun unable to create it.
    wait_for_step(&cluster, id, 0);
    std::thread::sleep(Duration::from_millis(300));
    cluster.ok("scancel", &[&id.to_string()]);
    let (_, stderr, code) = finish(cancelled, &cluster);
    assert_eq!(
        stderr,
        "srun: Job step aborted: Waiting up to 4 seconds for job step to finish.\n\
         srun: error: vm: task 0: Terminated\n"
    );
    assert_eq!(code, 143);
    cluster.wait_for_state(id, "CANCELLED", Duration::from_secs(10));

    let interrupted = spawn(&cluster, "srun", &["-J", "ctrl-c", "-n2", "sleep", "60"]);
    let id = wait_for_named(&cluster, "ctrl-c", "RUNNING");
    wait_for_step(&cluster, id, 0);
    std::thread::sleep(Duration::from_millis(300));
    signal(&interrupted, libc::SIGINT);
    std::thread::sleep(Duration::from_millis(200));
    signal(&interrupted, libc::SIGINT);
    let (_, stderr, code) = finish(interrupted, &cluster);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "srun: interrupt (one more within 1 sec to abort)",
            "srun: StepId=N.0 tasks 0-1: running",
            "srun: sending Ctrl-C to StepId=N.0",
            "srun: forcing job termination",
        ]
    );
    assert_eq!(code, 130);

    // salloc keeps waiting for its command when the allocation is revoked under it.
    let salloc = spawn(
        &cluster,
        "salloc",
        &["-J", "revoked", "sh", "-c", "sleep 2; exit 3"],
    );
    let id = wait_for_named(&cluster, "revoked", "RUNNING");
    cluster.ok("scancel", &[&id.to_string()]);
    let (_, stderr, code) = finish(salloc, &cluster);
    assert_eq!(
        stderr,
        "salloc: Granted job allocation N\nsalloc: Job allocation N has been revoked.\n"
    );
    assert_eq!(code, 3);
    cluster.wait_for_node_idle();
}

#[test]
fn srun_inside_a_batch_job_runs_steps_of_that_job() {
    let cluster = Cluster::start();
    let spur = cluster.spur_bin().display().to_string();
    let script = format!(
        "#!/bin/sh\n{spur} srun -l hostname | sort\n{spur} srun -n1 printenv SLURM_STEP_ID SLURM_NTASKS\n\
         {spur} srun -n3 true\necho rc=$?\n"
    );
    let job = cluster.submit(&script, &["-n2", "-o", "batch.out"]);
    cluster.wait_for_state(job, "COMPLETED", Duration::from_secs(60));
    let out = std::fs::read_to_string(cluster.dir.path().join("batch.out")).expect("batch.out");
    let node = &cluster.node;
    assert_eq!(
        out,
        format!(
            "0: {node}\n1: {node}\n1\n1\n\
             srun: error: Unable to create step for job {job}: More processors requested than permitted\nrc=1\n"
        )
    );
    let jobs = cluster.ok("squeue", &["-h", "-t", "all", "-o", "%i"]);
    assert_eq!(jobs.trim(), job.to_string());
}
