//! srun steps across nodes: three spurd on this host (one per node, all on 127.0.0.1), tasks started on each
//! through the controller and the nodes' step supervisors, their output, exits, stdin and cancellation back at
//! srun. The network-namespace version with real Slurm beside it is conformance cases 390-392.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{text, Cluster, ClusterOptions};

const NODE_B: &str = "spurtestb";
const NODE_C: &str = "spurtestc";

fn three_nodes() -> Cluster {
    Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        ..ClusterOptions::default()
    })
}

fn submit_with_spur_path(cluster: &Cluster, args: &[&str]) -> u32 {
    cluster.submit_with_spur_srun(args)
}

fn sorted_lines(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = text(bytes).lines().map(str::to_string).collect();
    lines.sort();
    lines
}

#[test]
fn tasks_run_on_every_node_with_their_ranks_and_exit_codes() {
    let cluster = three_nodes();
    let out = cluster.run(
        "srun",
        &[
            "-N3",
            "-n5",
            "-l",
            "bash",
            "-c",
            "echo $SLURMD_NODENAME $SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURM_GTIDS $SLURM_STEP_NODELIST $SLURM_STEP_TASKS_PER_NODE",
        ],
    );
    assert!(out.status.success(), "{out:?}\n{}", cluster.logs());
    let first = &cluster.node;
    let nodes = spur_core::grammar::hostlist::compress(&[
        first.clone(),
        NODE_B.to_string(),
        NODE_C.to_string(),
    ]);
    let mut expected: Vec<String> = [
        format!("0: {first} 0 0 0 0,1 {nodes} 2(x2),1"),
        format!("1: {first} 1 1 0 0,1 {nodes} 2(x2),1"),
        format!("2: {NODE_B} 2 0 1 2,3 {nodes} 2(x2),1"),
        format!("3: {NODE_B} 3 1 1 2,3 {nodes} 2(x2),1"),
        format!("4: {NODE_C} 4 0 2 4 {nodes} 2(x2),1"),
    ]
    .into_iter()
    .collect();
    expected.sort();
    assert_eq!(sorted_lines(&out.stdout), expected);

    let failing = cluster.run("srun", &["-N3", "bash", "-c", "exit $((SLURM_PROCID + 1))"]);
    assert_eq!(failing.status.code(), Some(3), "{failing:?}");
    let mut errors = sorted_lines(&failing.stderr);
    errors.retain(|l| l.starts_with("srun: error:"));
    let mut expected = vec![
        format!("srun: error: {first}: task 0: Exited with exit code 1"),
        format!("srun: error: {NODE_B}: task 1: Exited with exit code 2"),
        format!("srun: error: {NODE_C}: task 2: Exited with exit code 3"),
    ];
    expected.sort();
    assert_eq!(errors, expected);
}

#[test]
fn stdin_output_files_and_a_step_inside_a_batch_job() {
    let cluster = three_nodes();
    let input = cluster.write_file("input.txt", "hello\n");
    let out = cluster.run_clean_with_stdin(
        cluster.dir.path(),
        "srun",
        &["-N3", "-l", "cat"],
        &[("PATH", "/usr/bin:/bin")],
        Some(&input),
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        sorted_lines(&out.stdout),
        vec!["0: hello", "1: hello", "2: hello"]
    );

    let files = cluster.run(
        "srun",
        &[
            "-N2",
            "-n2",
            "-o",
            "task-%t.out",
            "bash",
            "-c",
            "echo rank $SLURM_PROCID",
        ],
    );
    assert!(files.status.success(), "{files:?}");
    for rank in 0..2 {
        let path = cluster.dir.path().join(format!("task-{rank}.out"));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap_or_default(),
            format!("rank {rank}\n")
        );
    }

    let job = submit_with_spur_path(
        &cluster,
        &[
            "-N3",
            "-o",
            "batch.out",
            "--wrap",
            "srun -N3 -l bash -c 'echo $SLURMD_NODENAME $SLURM_STEP_ID' | sort",
        ],
    );
    cluster.wait_for_end(job, Duration::from_secs(30));
    let batch = cluster.wait_for_file(&cluster.dir.path().join("batch.out"), |t| {
        t.lines().count() >= 3
    });
    assert_eq!(
        batch.lines().collect::<Vec<_>>(),
        vec![
            format!("0: {} 0", cluster.node),
            format!("1: {NODE_B} 0"),
            format!("2: {NODE_C} 0"),
        ]
    );
}

#[test]
fn cancelling_the_job_stops_its_tasks_on_every_node() {
    let cluster = three_nodes();
    // A sleep length no other test uses, to find this step's tasks.
    let job = submit_with_spur_path(
        &cluster,
        &["-N3", "-o", "/dev/null", "--wrap", "srun -N3 sleep 3217"],
    );
    let running = |count: usize| sleeping(3217, count);
    cluster.expect_within(Duration::from_secs(20), "three tasks running", || {
        running(3)
    });
    cluster.ok("scancel", &[&job.to_string()]);
    cluster.expect_within(Duration::from_secs(20), "every task gone", || running(0));
}

/// The children of `parent`, from /proc.
fn children_of(parent: u32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let after = stat.rsplit_once(") ")?.1;
                    after.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// Whether exactly `count` processes run the command line `sleep SECS` (each test sleeps a length of its own).
fn sleeping(secs: u32, count: usize) -> bool {
    let pgrep = std::process::Command::new("pgrep")
        .args(["-fx", &format!("sleep {secs}")])
        .output()
        .expect("pgrep");
    text(&pgrep.stdout).lines().count() == count
}

/// A three-node cluster whose controller declares a node down after 2 s of silence.
fn three_nodes_quick_to_fail() -> Cluster {
    Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        extra_conf: "SlurmdTimeout=2\n".to_string(),
        ..ClusterOptions::default()
    })
}

/// Node C dies: its agent and the step supervisors it started (whose tasks follow them) are killed.
fn kill_node_c(cluster: &mut Cluster) {
    let mut agent = cluster.extra_agents.remove(1);
    let supervisors = children_of(agent.id());
    assert!(
        !supervisors.is_empty(),
        "no step supervisor under node C's agent"
    );
    let _ = agent.kill();
    let _ = agent.wait();
    for pid in supervisors {
        // SAFETY: kill(2) on processes this test's cluster started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

#[test]
fn a_node_that_dies_mid_job_fails_the_job_and_its_tasks_elsewhere_stop() {
    let mut cluster = three_nodes_quick_to_fail();
    let job = submit_with_spur_path(
        &cluster,
        &[
            "-N3",
            "--no-requeue",
            "-o",
            "dead.out",
            "--wrap",
            "srun -N3 sleep 3218",
        ],
    );
    let running = |count: usize| sleeping(3218, count);
    cluster.expect_within(Duration::from_secs(20), "three tasks running", || {
        running(3)
    });
    kill_node_c(&mut cluster);
    let state = cluster.wait_for_end(job, Duration::from_secs(60));
    assert!(state.contains("NODE_FAIL"), "{state}");
    cluster.expect_within(Duration::from_secs(20), "no task left on any node", || {
        running(0)
    });
    let nodes = cluster.ok("sinfo", &["-h", "-N", "-o", "%N %T"]);
    assert!(nodes.contains(&format!("{NODE_C} down")), "{nodes}");
}

/// As slurmctld with `JobRequeue=1` (checked on Slurm 22.05 with a killed slurmd): a batch job whose node fails
/// is stopped on its batch host (whose stderr says so) and goes back to the queue as its next run.
#[test]
fn a_node_that_dies_mid_job_requeues_a_batch_job_that_allows_it() {
    let mut cluster = three_nodes_quick_to_fail();
    let job = submit_with_spur_path(
        &cluster,
        &[
            "-N3",
            "-o",
            "requeued.out",
            "--wrap",
            "echo run $SLURM_RESTART_COUNT; srun -N3 sleep 3219",
        ],
    );
    let running = |count: usize| sleeping(3219, count);
    cluster.expect_within(Duration::from_secs(20), "three tasks running", || {
        running(3)
    });
    kill_node_c(&mut cluster);
    // Back in the queue as run 1, waiting for a third node.
    cluster.expect_within(Duration::from_secs(60), "the job requeued", || {
        let show = cluster.ok("scontrol", &["show", "job", &job.to_string()]);
        show.contains("JobState=PENDING") && show.contains("Restarts=1")
    });
    cluster.expect_within(Duration::from_secs(20), "no task left on any node", || {
        running(0)
    });
    let output =
        std::fs::read_to_string(cluster.dir.path().join("requeued.out")).unwrap_or_default();
    // SLURM_RESTART_COUNT is set from the first restart on, as in Slurm.
    assert!(output.starts_with("run\n"), "{output}");
    assert!(
        output.contains(&format!("*** JOB {job} ON ")) && output.contains("DUE TO NODE FAILURE"),
        "{output}"
    );
    // It was not ended: no final state, no exit code.
    let show = cluster.ok("scontrol", &["show", "job", &job.to_string()]);
    assert!(show.contains("ExitCode=0:0"), "{show}");
}

/// `--no-kill` (checked on Slurm 22.05): the job loses the failed node and runs on; the step that had tasks
/// there is killed, and later steps run on the nodes left.
#[test]
fn a_no_kill_job_runs_on_without_the_node_that_died() {
    let mut cluster = three_nodes_quick_to_fail();
    let job = submit_with_spur_path(
        &cluster,
        &[
            "-N3",
            "--no-kill",
            "-o",
            "nokill.out",
            "--wrap",
            "srun -N3 sleep 3220; echo first $?; srun -N2 hostname | sort; echo second $?",
        ],
    );
    let running = |count: usize| sleeping(3220, count);
    cluster.expect_within(Duration::from_secs(20), "three tasks running", || {
        running(3)
    });
    kill_node_c(&mut cluster);
    let state = cluster.wait_for_end(job, Duration::from_secs(60));
    assert!(state.contains("COMPLETED"), "{state}");
    let show = cluster.ok("scontrol", &["show", "job", &job.to_string()]);
    assert!(show.contains("ResizeTime="), "{show}");
    assert!(show.contains("NumNodes=2 "), "{show}");
    assert!(!show.contains(NODE_C), "{show}");
    let output = std::fs::read_to_string(cluster.dir.path().join("nokill.out")).unwrap_or_default();
    assert!(
        output.contains("first ") && !output.contains("first 0"),
        "{output}"
    );
    assert!(
        output.contains(NODE_B) && output.contains("second 0"),
        "{output}"
    );
}

#[test]
fn step_tasks_run_in_their_own_step_cgroup_on_every_node() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: writing cgroups needs root");
        return;
    }
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string()],
        extra_conf: "TaskPlugin=task/cgroup\nFirstJobId=7300\n".to_string(),
        cgroup_conf: Some(
            "CgroupPlugin=autodetect\nIgnoreSystemd=yes\nConstrainCores=yes\n".into(),
        ),
        ..ClusterOptions::default()
    });
    let job = submit_with_spur_path(
        &cluster,
        &[
            "-N2",
            "-o",
            "cg.out",
            "--wrap",
            "srun -N2 -l bash -c 'grep -o \"cpuset:.*\" /proc/self/cgroup; grep Cpus_allowed_list /proc/self/status' | sort",
        ],
    );
    cluster.wait_for_end(job, Duration::from_secs(30));
    let out = cluster.wait_for_file(&cluster.dir.path().join("cg.out"), |t| {
        t.lines().count() >= 4
    });
    let lines: Vec<&str> = out.lines().collect();
    // Each node runs its task in the step's own cgroup under the job's (on the batch node beside step_batch),
    // with the job's limits there (one core of the node's two).
    let first = &cluster.node;
    assert_eq!(
        lines[..4],
        [
            "0: Cpus_allowed_list:\t0",
            format!("0: cpuset:/spur_{first}/uid_0/job_7300/step_0").as_str(),
            "1: Cpus_allowed_list:\t0",
            format!("1: cpuset:/spur_{NODE_B}/uid_0/job_7300/step_0").as_str(),
        ],
        "{out}"
    );
    // The job's cgroups on the other node went with the job.
    let job_dir =
        std::path::Path::new("/sys/fs/cgroup/cpuset").join(format!("spur_{NODE_B}/uid_0/job_7300"));
    cluster.expect_within(Duration::from_secs(10), "the job's cgroups removed", || {
        !job_dir.exists()
    });
}

/// A step that asks for less memory than its job is held to it on every node it runs on: each node's memory
/// controller kills what goes over, srun reports it as slurmstepd and srun do, and the job goes on.
#[test]
fn a_step_over_its_own_memory_is_killed_on_every_node_and_the_job_goes_on() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: writing cgroups needs root");
        return;
    }
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string()],
        extra_conf: "TaskPlugin=task/cgroup\nFirstJobId=7500\n".to_string(),
        cgroup_conf: Some(
            "CgroupPlugin=autodetect\nIgnoreSystemd=yes\nConstrainRAMSpace=yes\n".into(),
        ),
        ..ClusterOptions::default()
    });
    let job = submit_with_spur_path(
        &cluster,
        &[
            "-N2",
            "--mem=400M",
            "-o",
            "oom.out",
            "--wrap",
            "srun -N2 --mem=50M -l bash -c 'head -c 200M /dev/zero | tail | wc -c' >step.out 2>&1; \
             echo srun $?; sort step.out; srun -N2 -l true; echo after $?",
        ],
    );
    let state = cluster.wait_for_end(job, Duration::from_secs(60));
    let out = cluster.wait_for_file(&cluster.dir.path().join("oom.out"), |t| t.contains("after"));
    assert_eq!(state, "COMPLETED", "{out}\n{}", cluster.logs());
    assert!(
        out.contains("srun 1\n") && out.contains("after 0\n"),
        "{out}"
    );
    for (task, node) in [(0, cluster.node.as_str()), (1, NODE_B)] {
        let slurmstepd = format!(
            "slurmstepd-{node}: error: Detected 1 oom-kill event(s) in StepId=7500.0. Some of your processes \
             may have been killed by the cgroup out-of-memory handler."
        );
        assert!(out.contains(&slurmstepd), "{out}");
        let srun = format!("srun: error: {node}: task {task}: Out Of Memory");
        assert!(out.contains(&srun), "{out}");
    }
}

/// Steps of allocations without a batch script (salloc's, and the one srun makes for itself) are started by the
/// agent of the node they were given, in the step's own cgroups there, wherever srun itself runs: never by srun
/// on its own host, where they would run on the wrong machine and unconfined.
#[test]
fn salloc_and_srun_allocations_run_their_steps_confined_on_their_nodes() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: writing cgroups needs root");
        return;
    }
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string()],
        extra_conf: "TaskPlugin=task/cgroup\nFirstJobId=7400\n".to_string(),
        cgroup_conf: Some(
            "CgroupPlugin=autodetect\nIgnoreSystemd=yes\nConstrainCores=yes\n".into(),
        ),
        ..ClusterOptions::default()
    });
    let probe = "echo $SLURMD_NODENAME; grep -o 'cpuset:.*' /proc/self/cgroup";
    let out = cluster
        .command(
            cluster.dir.path(),
            "srun",
            &["-w", NODE_B, "bash", "-c", probe],
        )
        .output()
        .expect("srun");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        format!("{NODE_B}\ncpuset:/spur_{NODE_B}/uid_0/job_7400/step_0\n")
    );
    let first = cluster.node.clone();
    let out = cluster
        .command(
            cluster.dir.path(),
            "salloc",
            &[
                "-w",
                &first,
                "-N1",
                cluster.spur_bin().to_str().unwrap_or("spur"),
                "srun",
                "bash",
                "-c",
                probe,
            ],
        )
        .output()
        .expect("salloc");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        format!("{first}\ncpuset:/spur_{first}/uid_0/job_7401/step_0\n")
    );
    // The jobs' cgroups went with them.
    for (node, job) in [(NODE_B, 7400), (first.as_str(), 7401)] {
        let dir = std::path::Path::new("/sys/fs/cgroup/cpuset")
            .join(format!("spur_{node}/uid_0/job_{job}"));
        cluster.expect_within(Duration::from_secs(10), "the job's cgroups removed", || {
            !dir.exists()
        });
    }
}

#[test]
fn the_task_prolog_runs_before_each_srun_task_here_and_on_other_nodes() {
    let scripts = tempfile::tempdir().expect("tempdir");
    let prolog = scripts.path().join("taskprolog.sh");
    std::fs::write(
        &prolog,
        "#!/bin/bash\necho 'export TP_VAR=hello'\necho \"print prolog of task $SLURM_PROCID\"\n",
    )
    .expect("write");
    std::fs::set_permissions(&prolog, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string()],
        extra_conf: format!("TaskProlog={}\n", prolog.display()),
        ..ClusterOptions::default()
    });
    // Two nodes: started by the nodes' step supervisors.
    let remote = cluster.run("srun", &["-N2", "-l", "bash", "-c", "echo TP_VAR=$TP_VAR"]);
    assert!(remote.status.success(), "{remote:?}");
    assert_eq!(
        sorted_lines(&remote.stdout),
        vec![
            "0: TP_VAR=hello",
            "0: prolog of task 0",
            "1: TP_VAR=hello",
            "1: prolog of task 1"
        ]
    );
    // One node: started by srun itself.
    let local = cluster.run("srun", &["-n1", "bash", "-c", "echo TP_VAR=$TP_VAR"]);
    assert!(local.status.success(), "{local:?}");
    assert_eq!(text(&local.stdout), "prolog of task 0\nTP_VAR=hello\n");
}

#[test]
fn a_pty_shell_runs_on_the_first_node_of_a_multi_node_step() {
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string()],
        ..ClusterOptions::default()
    });
    let mut command = cluster.command(
        cluster.dir.path(),
        "srun",
        &["-N2", "--pty", "bash", "--norc", "--noprofile"],
    );
    command.env("PS1", "prompt$ ");
    let (seen, code) = common::drive_pty(
        command,
        b"[ -t 0 ] && echo tty-on-$SLURMD_NODENAME-rank-$SLURM_PROCID\nexit 4\n",
    );
    assert!(
        seen.contains(&format!("tty-on-{}-rank-0", cluster.node)),
        "{seen:?}"
    );
    assert_eq!(code, Some(4), "{seen:?}");
}

#[test]
fn sstat_measures_a_step_on_every_node_it_runs_on() {
    // The agents count a step's processes by the job id and node name in their environment; other tests' clusters
    // on this host use the same node names and also start at job 1, so this one numbers its jobs apart.
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        extra_conf: "FirstJobId=3221000\n".to_string(),
        ..ClusterOptions::default()
    });
    // A sleep length no other test uses, to know when every task runs.
    let job = submit_with_spur_path(
        &cluster,
        &[
            "-N3",
            "-o",
            "/dev/null",
            "--wrap",
            "srun -N3 -n3 sleep 3221",
        ],
    );
    cluster.expect_within(Duration::from_secs(20), "three tasks running", || {
        let pgrep = std::process::Command::new("pgrep")
            .args(["-fx", "sleep 3221"])
            .output()
            .expect("pgrep");
        text(&pgrep.stdout).lines().count() == 3
    });
    let step = format!("{job}.0");
    let row = cluster.ok(
        "sstat",
        &[
            "-n",
            "-P",
            "-j",
            &step,
            "-o",
            "JobID,NTasks,Nodelist,MaxRSS",
        ],
    );
    let nodes = spur_core::grammar::hostlist::compress(&[
        cluster.node.clone(),
        NODE_B.to_string(),
        NODE_C.to_string(),
    ]);
    let fields: Vec<&str> = row.trim().split('|').collect();
    assert_eq!(fields[..3], [step.as_str(), "3", nodes.as_str()], "{row}");
    assert!(
        fields[3].ends_with('K') || fields[3].ends_with('M'),
        "{row}"
    );
    // One pid per task: each node counts only its own tasks although all three share this host.
    let pids = cluster.ok("sstat", &["-n", "-P", "-i", "-j", &step]);
    let pid_list = pids.trim().rsplit('|').next().unwrap_or_default();
    assert_eq!(pid_list.split(',').count(), 3, "{pids}");
    // The batch step runs on the first node only and holds the script and srun.
    let batch = cluster.ok(
        "sstat",
        &[
            "-n",
            "-P",
            "-a",
            "-j",
            &job.to_string(),
            "-o",
            "JobID,NTasks,Nodelist",
        ],
    );
    assert_eq!(
        batch.lines().collect::<Vec<_>>(),
        [
            format!("{job}.batch|1|{}", cluster.node),
            format!("{step}|3|{nodes}")
        ],
    );
    cluster.ok("scancel", &[&job.to_string()]);
}

#[test]
fn multi_prog_gives_each_task_on_each_node_its_own_command() {
    let cluster = three_nodes();
    let conf = cluster.dir.path().join("mp.conf");
    std::fs::write(
        &conf,
        "0 echo first %t $SLURMD_NODENAME\n1-2 bash -c 'echo range %t %o $SLURMD_NODENAME'\n",
    )
    .expect("write mp.conf");
    let conf = conf.display().to_string();
    let out = cluster.run("srun", &["-N3", "-n3", "-l", "--multi-prog", &conf, "tail"]);
    assert!(out.status.success(), "{out:?}\n{}", cluster.logs());
    // bash -c takes `tail` as $0; echo prints its arguments unexpanded.
    assert_eq!(
        sorted_lines(&out.stdout),
        [
            "0: first 0 $SLURMD_NODENAME tail".to_string(),
            format!("1: range 1 0 {NODE_B}"),
            format!("2: range 2 1 {NODE_C}"),
        ]
    );
}

/// A node script that records which node ran it for which job, and fails on node `fail_on`.
fn node_script(dir: &std::path::Path, name: &str, fail_on: &str) -> String {
    let path = dir.join(format!("{name}.sh"));
    let text = format!(
        "#!/bin/bash\necho \"$SLURM_SCRIPT_CONTEXT $SLURM_NODELIST ${{SLURM_JOB_EXIT_CODE2:-}}\" \
         > {dir}/{name}.$SLURMD_NODENAME.$SLURM_JOB_ID\n[[ $SLURMD_NODENAME == '{fail_on}' ]] && exit 1\nexit 0\n",
        dir = dir.display()
    );
    std::fs::write(&path, text).expect("write script");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    path.display().to_string()
}

#[test]
fn prolog_runs_on_each_node_before_its_first_step_and_epilog_on_every_node() {
    let scripts = tempfile::tempdir().expect("tempdir");
    let prolog = node_script(scripts.path(), "prolog", NODE_C);
    let epilog = node_script(scripts.path(), "epilog", "none");
    let cluster = Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        extra_conf: format!("Prolog={prolog}\nEpilog={epilog}\n"),
        ..ClusterOptions::default()
    });
    let first = cluster.node.clone();
    let nodes = spur_core::grammar::hostlist::compress(&[
        first.clone(),
        NODE_B.to_string(),
        NODE_C.to_string(),
    ]);
    let read = |name: &str, node: &str, job: u32| {
        std::fs::read_to_string(scripts.path().join(format!("{name}.{node}.{job}"))).ok()
    };
    // Two nodes' steps: the second node's prolog runs before its first step only; the third node never gets a
    // step, so its prolog never runs, but its epilog does when the job ends.
    let job = submit_with_spur_path(
        &cluster,
        &[
            "-N3",
            "-o",
            "/dev/null",
            "--wrap",
            "srun -N2 true && srun -N2 true && exit 4",
        ],
    );
    assert_eq!(cluster.wait_for_end(job, Duration::from_secs(30)), "FAILED");
    for node in [first.as_str(), NODE_B] {
        assert_eq!(
            read("prolog", node, job).as_deref(),
            Some(format!("prolog_slurmd {nodes} \n").as_str())
        );
    }
    assert_eq!(read("prolog", NODE_C, job), None);
    cluster.expect_within(Duration::from_secs(10), "the epilog on every node", || {
        [first.as_str(), NODE_B, NODE_C].iter().all(|node| {
            read("epilog", node, job).as_deref()
                == Some(format!("epilog_slurmd {nodes} 4:0\n").as_str())
        })
    });

    // A prolog that fails on a node: its tasks are reported failed there and the node drains.
    let job = submit_with_spur_path(
        &cluster,
        &[
            "-N3",
            "-o",
            "out.txt",
            "--wrap",
            "srun -N3 -l true; echo rc=$?",
        ],
    );
    cluster.wait_for_end(job, Duration::from_secs(30));
    let out = std::fs::read_to_string(cluster.dir.path().join("out.txt")).unwrap_or_default();
    assert!(
        out.contains(&format!(
            "2: slurmstepd-{NODE_C}: error: Job's prolog failed"
        )),
        "{out}"
    );
    assert!(out.contains("rc=1"), "{out}");
    cluster.expect_within(Duration::from_secs(10), "the node drained", || {
        cluster
            .ok("sinfo", &["-h", "-R", "-o", "%N %E"])
            .contains(&format!("{NODE_C} Prolog error"))
    });
}
