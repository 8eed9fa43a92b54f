//! Running real scripts through the real `spurstepd` binary: environment, output files, exit codes, signals,
//! the work-directory fallback, exec failures, clean-up of leftovers, and surviving the launcher.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{process_running, wait_for_text, TestJob, STEPD};
use spur_core::wire::supervisor::{OpenMode, Outcome};
use spur_stepd::{client, files};

#[test]
fn environment_arguments_and_separate_output_files() {
    let mut job = TestJob::new(
        "env",
        r#"echo "args: $*"
echo "to stderr" >&2
cat
/usr/bin/env"#,
    );
    job.spec.argv = vec!["one".into(), "two words".into()];
    job.spec.env.push(("FOO".into(), "bar baz".into()));
    fs::write(&job.spec.stdout_path, "stale stdout content that must go\n").unwrap();
    fs::write(&job.spec.stderr_path, "stale stderr content\n").unwrap();
    job.launch();
    let result = job.wait_result();
    assert_eq!(result.outcome, Outcome::Completed);
    assert_eq!((result.exit_code, result.signal), (Some(0), None));

    let out = job.stdout();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("args: one two words"));
    // Only the spec's environment plus what bash itself adds and the task's pid; nothing from the test's own
    // environment.
    let lines: Vec<&str> = lines.collect();
    let pid_line = lines
        .iter()
        .find(|l| l.starts_with("SLURM_TASK_PID="))
        .expect("SLURM_TASK_PID is set");
    assert!(pid_line["SLURM_TASK_PID=".len()..].parse::<u32>().is_ok());
    let env: BTreeSet<&str> = lines
        .into_iter()
        .filter(|l| {
            !["PWD=", "SHLVL=", "_=", "SLURM_TASK_PID="]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .collect();
    let want: BTreeSet<String> = job
        .spec
        .env
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    assert_eq!(env, want.iter().map(String::as_str).collect());
    assert_eq!(job.stderr(), "to stderr\n");
}

#[test]
fn environment_order_is_kept() {
    let mut job = TestJob::new("envorder", "exec /usr/bin/env");
    // Replace the script by a direct exec of env, which prints its environment in order.
    job.spec.script_path = "/usr/bin/env".into();
    job.spec.env = vec![
        ("ZED".into(), "1".into()),
        ("ALPHA".into(), "2".into()),
        ("MID".into(), "3".into()),
    ];
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    let out = job.stdout();
    let (given, task_pid) = out.split_at("ZED=1\nALPHA=2\nMID=3\n".len());
    assert_eq!(given, "ZED=1\nALPHA=2\nMID=3\n");
    assert!(task_pid.starts_with("SLURM_TASK_PID="), "{out}");
}

#[test]
fn append_mode_keeps_existing_content_in_a_shared_file() {
    let mut job = TestJob::new("append", "echo out1; echo err1 >&2; echo out2");
    job.spec.stderr_path = job.spec.stdout_path.clone();
    job.spec.open_mode = OpenMode::Append;
    fs::write(&job.spec.stdout_path, "previous run\n").unwrap();
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "previous run\nout1\nerr1\nout2\n");
}

#[test]
fn truncate_mode_shares_one_offset_when_stdout_is_stderr() {
    let mut job = TestJob::new("trunc", "echo a; echo b >&2; echo c");
    job.spec.stderr_path = job.spec.stdout_path.clone();
    fs::write(
        &job.spec.stdout_path,
        "0123456789012345678901234567890123456789\n",
    )
    .unwrap();
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "a\nb\nc\n");
}

#[test]
fn created_output_files_honour_the_umask() {
    let mut job = TestJob::new("umask", "umask; echo x");
    job.spec.umask = Some(0o027);
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "0027\nx\n");
    let mode = fs::metadata(&job.spec.stdout_path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o640);
}

#[test]
fn exit_code_3_is_failed() {
    let job = TestJob::new("exit3", "exit 3");
    job.launch();
    let r = job.wait_result();
    assert_eq!(r.outcome, Outcome::Failed);
    assert_eq!(
        (r.exit_code, r.signal, r.wait_status),
        (Some(3), None, Some(3 << 8))
    );
    assert_eq!(r.exit_code_pair(), (3, 0));
    let started = client::read_started(&job.dir).unwrap().unwrap();
    assert_eq!(r.pid, Some(started.pid));
    assert_eq!(r.start_time, Some(started.start_time));
    assert!(r.end_time >= started.start_time);
    // The supervisor removes its socket when done (just after writing the result, so a loaded machine may
    // show it a moment longer) and is gone soon after.
    let deadline = Instant::now() + common::WAIT;
    while job.dir.join("ctl.sock").exists() {
        assert!(Instant::now() < deadline, "spurstepd kept its socket");
        std::thread::sleep(Duration::from_millis(20));
    }
    while client::is_alive(&job.dir) {
        assert!(Instant::now() < deadline, "spurstepd did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn killed_by_signal_9_is_recorded() {
    let job = TestJob::new("sig9", "echo before; kill -9 $$; echo after");
    job.launch();
    let r = job.wait_result();
    assert_eq!(r.outcome, Outcome::Failed);
    assert_eq!((r.exit_code, r.signal), (None, Some(9)));
    assert_eq!(r.exit_code_pair(), (0, 9));
    assert_eq!(job.stdout(), "before\n");
}

#[test]
fn missing_work_dir_falls_back_to_tmp_with_slurms_message() {
    let mut job = TestJob::new("nowd", "pwd; echo done >&2");
    job.spec.work_dir = job.dir.join("does-not-exist");
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "/tmp\n");
    assert_eq!(
        job.stderr(),
        format!(
            "{line}{line}done\n",
            line = format_args!(
                "slurmstepd-vm: error: couldn't chdir to `{}': No such file or directory: going to /tmp instead\n",
                job.spec.work_dir.display()
            )
        )
    );
}

#[test]
fn non_executable_script_exits_126_and_missing_script_127() {
    let job = TestJob::new("noexec", "echo never");
    fs::set_permissions(&job.spec.script_path, fs::Permissions::from_mode(0o644)).unwrap();
    job.launch();
    let r = job.wait_result();
    assert_eq!(
        (r.outcome.clone(), r.exit_code),
        (Outcome::Failed, Some(126))
    );
    let line = format!(
        "slurmstepd-vm: error: execve(): {}: Permission denied",
        job.spec.script_path.display()
    );
    assert_eq!(r.message.as_deref(), Some(line.as_str()));
    assert_eq!(job.stderr(), format!("{line}\n"));

    let mut job = TestJob::new("noscript", "echo never");
    job.spec.script_path = job.dir.join("missing_script");
    job.launch();
    let r = job.wait_result();
    assert_eq!((r.outcome, r.exit_code), (Outcome::Failed, Some(127)));
    assert!(
        job.stderr().ends_with(": No such file or directory\n"),
        "{}",
        job.stderr()
    );
}

#[test]
fn unopenable_output_is_a_launch_failure() {
    let mut job = TestJob::new("noout", "echo never");
    job.spec.stdout_path = job.dir.join("no-such-dir/out.txt");
    job.launch();
    let r = job.wait_result();
    let want = format!(
        "Could not open stdout file {}: No such file or directory",
        job.spec.stdout_path.display()
    );
    assert_eq!(r.outcome, Outcome::LaunchFailed { message: want });
    assert_eq!((r.pid, r.wait_status, r.start_time), (None, None, None));
    assert!(client::read_started(&job.dir).unwrap().is_none());

    let mut job = TestJob::new("noerr", "echo never");
    job.spec.stderr_path = job.dir.join("no-such-dir/err.txt");
    job.launch();
    let want = format!(
        "Could not open stderr file {}: No such file or directory",
        job.spec.stderr_path.display()
    );
    assert_eq!(
        job.wait_result().outcome,
        Outcome::LaunchFailed { message: want }
    );
}

#[test]
fn missing_stdin_file_is_a_launch_failure_and_given_stdin_is_read() {
    let mut job = TestJob::new("stdin", "cat");
    job.spec.stdin_path = Some("input.txt".into());
    fs::write(job.dir.join("input.txt"), "fed through stdin\n").unwrap();
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "fed through stdin\n");

    let mut job = TestJob::new("nostdin", "cat");
    job.spec.stdin_path = Some(job.dir.join("absent"));
    job.launch();
    let want = format!(
        "Could not open stdin file {}: No such file or directory",
        job.dir.join("absent").display()
    );
    assert_eq!(
        job.wait_result().outcome,
        Outcome::LaunchFailed { message: want }
    );
}

#[test]
fn leftover_processes_are_killed_when_the_script_ends() {
    // One child stays in the job's process group, one escapes it with setsid; both must die.
    let job = TestJob::new(
        "orphans",
        r#"sleep 300 & echo $! > "$JOB_DIR/ingroup"
setsid sleep 300 & echo $! > "$JOB_DIR/escaped"
exit 0"#,
    );
    job.launch();
    let r = job.wait_result();
    assert_eq!(r.outcome, Outcome::Completed);
    for name in ["ingroup", "escaped"] {
        let pid: u32 = fs::read_to_string(job.dir.join(name))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(!process_running(pid), "{name} child {pid} survived the job");
    }
}

#[test]
fn a_finished_job_directory_is_not_run_again() {
    let job = TestJob::new("twice", "true");
    job.launch();
    job.wait_result();
    let err = client::launch(&job.dir, &job.spec, Path::new(STEPD)).unwrap_err();
    assert!(err.to_string().contains("already holds a result"), "{err}");
}

#[test]
fn bad_job_directories_are_reported_to_the_launcher() {
    let err = client::launch(
        Path::new("/nonexistent/spur-job"),
        &TestJob::new("bad", "true").spec,
        Path::new(STEPD),
    )
    .unwrap_err();
    assert!(err.to_string().contains("cannot write"), "{err}");
    let job = TestJob::new("badspec", "true");
    fs::write(job.dir.join("launch.json"), "{ not json").unwrap();
    let out = Command::new(STEPD).arg(&job.dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("malformed"),
        "{out:?}"
    );
    let out = Command::new(STEPD).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn launch_returns_at_once_and_the_supervisor_is_detached() {
    let job = TestJob::new("detached", "sleep 1; echo finished");
    let t0 = Instant::now();
    let pid = job.launch();
    assert!(
        t0.elapsed() < Duration::from_millis(900),
        "launch waited for the job"
    );
    assert!(client::is_alive(&job.dir));
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let (ppid, pgid, sid): (u32, u32, u32) = (
        fields[1].parse().unwrap(),
        fields[2].parse().unwrap(),
        fields[3].parse().unwrap(),
    );
    assert_ne!(ppid, std::process::id());
    // SAFETY: getsid(0) only reads this process's session id.
    assert_ne!(sid, unsafe { libc::getsid(0) } as u32);
    assert_ne!(
        pgid, pid,
        "the daemon must not be a session leader that can acquire a terminal"
    );
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "finished\n");
}

#[test]
fn supervisor_survives_the_launcher_being_killed() {
    let job = TestJob::new("survive", r#"echo started; sleep 2; echo finished"#);
    fs::write(
        job.dir.join("launch.json"),
        serde_json::to_vec(&job.spec).unwrap(),
    )
    .unwrap();
    // The "agent": runs spurstepd, then lingers until we kill its whole process group.
    let mut agent = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("'{STEPD}' '{}' && sleep 300", job.dir.display()))
        .stdin(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    wait_for_text(&job.spec.stdout_path, "started");
    assert!(client::is_alive(&job.dir));
    let agent_pgid = i32::try_from(agent.id()).unwrap();
    // SAFETY: the group of the shell this test started.
    unsafe { libc::kill(-agent_pgid, libc::SIGKILL) };
    agent.wait().unwrap();
    assert!(
        client::is_alive(&job.dir),
        "spurstepd died with its launcher"
    );
    let r = job.wait_result();
    assert_eq!(r.outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "started\nfinished\n");
    assert!(files::read_pid_file(&job.dir).is_some());
}
