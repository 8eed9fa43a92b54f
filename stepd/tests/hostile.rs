//! Attacks on the root-run supervisor by the job's own user (uid 65534 here, as root in CI): its control socket
//! must not become a way to signal processes that are not the job's, and the scripts it runs as the user must not
//! inherit anything root set up for them. Each case checks that nothing outside the job was touched.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{euid, process_running, wait_for_text, TestJob};
use spur_core::wire::supervisor::{NodeScripts, Request, Response, SignalScope, ACCESS_DENIED};
use spur_stepd::client::send_request;

const NOBODY: u32 = 65534;

/// Sends `request` from a thread whose effective uid is `uid` (the raw syscall changes that thread only).
fn request_as(uid: u32, dir: &Path, request: Request) -> Response {
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        let keep: libc::c_long = -1;
        // SAFETY: setresuid on the calling thread only; the thread ends right after the request.
        let rc = unsafe { libc::syscall(libc::SYS_setresuid, keep, libc::c_long::from(uid), keep) };
        assert_eq!(rc, 0, "setresuid");
        send_request(&dir, &request).unwrap()
    })
    .join()
    .unwrap()
}

/// A directory under /tmp with `mode`, owned by root, removed with the job.
fn dir_for(job: &mut TestJob, tag: &str, mode: u32) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spur-stepd-hostile-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    fs::set_permissions(&d, fs::Permissions::from_mode(mode)).unwrap();
    job.extra.push(d.clone());
    d
}

fn as_nobody(job: &mut TestJob, out: &Path) {
    job.spec.uid = NOBODY;
    job.spec.gid = NOBODY;
    job.spec.supplementary_gids = vec![NOBODY];
    job.spec.user_name = "nobody".into();
    job.spec.stdout_path = out.join("out.txt");
    job.spec.stderr_path = out.join("err.txt");
}

/// A root process tree outside any job: `sh` (the pid an attacker names) with a `sleep` child.
struct Bystander {
    shell: std::process::Child,
    sleep_pid: u32,
}

impl Bystander {
    fn start() -> Bystander {
        let mut shell = Command::new("sh")
            .args(["-c", "sleep 60 & echo $!; wait"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(shell.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let sleep_pid = line.trim().parse().unwrap();
        Bystander { shell, sleep_pid }
    }
}

impl Drop for Bystander {
    fn drop(&mut self) {
        let _ = self.shell.kill();
        // SAFETY: the sleep this test started.
        unsafe { libc::kill(i32::try_from(self.sleep_pid).unwrap(), libc::SIGKILL) };
        let _ = self.shell.wait();
    }
}

/// The reproduced attack: the job's owner names a root shell's pid as a step's `srun`; the supervisor, running as
/// root, signalled that shell's children. Now only processes of the job are signalled, and the request is refused.
#[test]
fn step_task_signals_reach_only_the_jobs_own_processes() {
    if euid() != 0 {
        eprintln!("skipped: needs root to run the supervisor for another user");
        return;
    }
    let mut job = TestJob::new(
        "hostile-signal",
        // A stand-in for srun (its pid in a file) with a task that reports SIGUSR1.
        r#"( sh -c 'trap "echo task-usr1; exit 0" USR1; echo task-ready; while :; do sleep 0.05; done' & wait ) &
echo $! > "$OUT/srun.pid"
while :; do sleep 0.05; done"#,
    );
    let out = dir_for(&mut job, "signal-out", 0o777);
    as_nobody(&mut job, &out);
    job.spec.work_dir = out.clone();
    job.spec.env.push(("OUT".into(), out.display().to_string()));
    job.launch();
    wait_for_text(&job.spec.stdout_path, "task-ready");
    let bystander = Bystander::start();
    for (pids, signo) in [
        (vec![bystander.shell.id()], libc::SIGTERM),
        (vec![1], libc::SIGSTOP),
        (vec![std::process::id()], libc::SIGKILL),
    ] {
        let refused = request_as(
            NOBODY,
            &job.dir,
            Request::Signal {
                signo,
                scope: SignalScope::StepTasks,
                step_pids: pids.clone(),
            },
        );
        assert_eq!(
            refused,
            Response::Error {
                message: ACCESS_DENIED.into()
            },
            "{pids:?}"
        );
    }
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        process_running(bystander.sleep_pid),
        "a process outside the job was signalled"
    );
    // The job's own srun stand-in is still the owner's to signal.
    let srun = fs::read_to_string(out.join("srun.pid")).unwrap();
    let srun: u32 = srun.trim().parse().unwrap();
    let sent = request_as(
        NOBODY,
        &job.dir,
        Request::Signal {
            signo: libc::SIGUSR1,
            scope: SignalScope::StepTasks,
            step_pids: vec![srun],
        },
    );
    assert_eq!(sent, Response::Ok);
    wait_for_text(&job.spec.stdout_path, "task-usr1");
    assert!(process_running(bystander.sleep_pid));
}

/// The TaskEpilog runs as the job's user; it used to be started in the job's working directory entered as root,
/// so a user whose job named a directory closed to them got a handle inside it. Now it starts where the user may
/// go (`/tmp`, as slurmstepd falls back).
#[test]
fn the_task_epilog_enters_the_work_dir_as_the_user() {
    if euid() != 0 {
        eprintln!("skipped: needs root to run the supervisor for another user");
        return;
    }
    let mut job = TestJob::new("hostile-epilog", "true");
    let closed = dir_for(&mut job, "epilog-closed", 0o700);
    fs::write(closed.join("secret"), "root only").unwrap();
    let out = dir_for(&mut job, "epilog-out", 0o777);
    let scripts = dir_for(&mut job, "epilog-scripts", 0o755);
    let epilog = scripts.join("task_epilog.sh");
    fs::write(
        &epilog,
        format!(
            "#!/bin/sh\npwd > {0}/pwd.txt\ncat secret > {0}/stolen.txt 2>/dev/null\n",
            out.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&epilog, fs::Permissions::from_mode(0o755)).unwrap();
    as_nobody(&mut job, &out);
    job.spec.work_dir = closed.clone();
    job.spec.node_scripts = Some(NodeScripts {
        prolog: None,
        epilog: None,
        env: Vec::new(),
        task_prolog: None,
        task_epilog: Some(epilog),
    });
    job.launch();
    job.wait_result();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !out.join("pwd.txt").exists() {
        assert!(Instant::now() < deadline, "the task epilog never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        fs::read_to_string(out.join("pwd.txt")).unwrap().trim(),
        "/tmp"
    );
    assert_eq!(
        fs::read_to_string(out.join("stolen.txt")).unwrap_or_default(),
        "",
        "the epilog read a file in a directory closed to its user"
    );
}
