//! Batch supervisors forked by `spurstepd --fork-server` (the agent's way of starting them): they run jobs as an
//! executed supervisor does, outlive the server, and the server is replaced when it dies or its binary changes.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{process_running, wait_for_text, TestJob, STEPD, WAIT};
use spur_core::wire::supervisor::Outcome;
use spur_stepd::fork_client::ForkServer;
use spur_stepd::{client, files, ClientError};

fn start(server: &ForkServer, job: &TestJob) -> Result<u32, ClientError> {
    client::write_launch_spec(&job.dir, &job.spec).unwrap();
    server.start(&job.dir)
}

/// Field `n` of `/proc/PID/stat`, numbered as in proc(5).
fn stat_field(pid: u32, n: usize) -> u32 {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    files::proc_stat_field(&stat, n).unwrap().parse().unwrap()
}

fn ppid(pid: u32) -> u32 {
    stat_field(pid, 4)
}

fn pgid(pid: u32) -> u32 {
    stat_field(pid, 5)
}

fn sid(pid: u32) -> u32 {
    stat_field(pid, 6)
}

/// CAP_SYS_RESOURCE (capability 24) is in this process's effective set: the supervisor can retitle itself.
fn has_sys_resource() -> bool {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let eff = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or(0);
    eff & (1 << 24) != 0
}

fn wait_gone(pid: u32) {
    let deadline = Instant::now() + WAIT;
    while process_running(pid) {
        assert!(Instant::now() < deadline, "process {pid} did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_forked_supervisor_runs_the_job_as_an_executed_one_does() {
    let server = ForkServer::new(STEPD.into());
    let mut job = TestJob::new("fork-basic", "echo \"hello $1\"; touch \"$JOB_DIR/go\"; while [ ! -e \"$JOB_DIR/stop\" ]; do sleep 0.02; done; exit 3");
    job.spec.argv = vec!["world".into()];
    let pid = start(&server, &job).unwrap();
    assert_eq!(files::read_pid_file(&job.dir), Some(pid));
    assert!(files::is_stepd_for(pid, &job.dir));
    wait_for_text(&job.spec.stdout_path, "hello world");

    let server_pid = server.server_pid().expect("the server runs");
    assert_eq!(ppid(pid), server_pid, "forked by the server, not executed");
    assert_eq!(pgid(pid), pid, "a process group of its own");
    assert_ne!(sid(pid), pid, "in the server's session without leading it");
    assert_eq!(sid(pid), sid(server_pid));
    // SAFETY: getsid(0) only reads.
    let own_sid = u32::try_from(unsafe { libc::getsid(0) }).unwrap();
    assert_ne!(sid(server_pid), own_sid, "out of the agent's session");
    // Retitled where the capability allows it; the server's command line otherwise (this VM has no
    // CAP_SYS_RESOURCE), never anything else.
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let want = if has_sys_resource() {
        format!("{STEPD}\0{}\0", job.dir.display())
    } else {
        format!("{STEPD}\0--fork-server\0")
    };
    assert_eq!(String::from_utf8_lossy(&cmdline), want);

    fs::write(job.dir.join("stop"), "").unwrap();
    let result = job.wait_result();
    assert_eq!(result.outcome, Outcome::Failed);
    assert_eq!((result.exit_code, result.signal), (Some(3), None));
    // The kernel reaps it for the server: no zombie is left behind.
    wait_gone(pid);
}

#[test]
fn supervisors_outlive_their_fork_server() {
    let server = ForkServer::new(STEPD.into());
    let job = TestJob::new(
        "fork-outlive",
        "while [ ! -e \"$JOB_DIR/stop\" ]; do sleep 0.02; done; echo done",
    );
    let pid = start(&server, &job).unwrap();
    let server_pid = server.server_pid().unwrap();
    job.wait_started();
    drop(server);
    wait_gone(server_pid);
    assert!(
        process_running(pid),
        "the supervisor lives on without its server"
    );
    fs::write(job.dir.join("stop"), "").unwrap();
    let result = job.wait_result();
    assert_eq!(result.outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "done\n");
}

#[test]
fn a_dead_server_is_replaced_on_the_next_launch() {
    let server = ForkServer::new(STEPD.into());
    let first = TestJob::new("fork-dead-1", "true");
    start(&server, &first).unwrap();
    let old = server.server_pid().unwrap();
    // SAFETY: the server this test started.
    unsafe { libc::kill(i32::try_from(old).unwrap(), libc::SIGKILL) };
    // It stays a zombie until the handle reaps it, which process_running counts as gone.
    wait_gone(old);
    let second = TestJob::new("fork-dead-2", "echo second");
    let pid = start(&server, &second).unwrap();
    let new = server.server_pid().unwrap();
    assert_ne!(new, old);
    assert_eq!(ppid(pid), new);
    assert_eq!(second.wait_result().outcome, Outcome::Completed);
    assert_eq!(second.stdout(), "second\n");
    assert_eq!(first.wait_result().outcome, Outcome::Completed);
}

#[test]
fn a_replaced_binary_gets_a_new_server() {
    let bin_dir = std::env::temp_dir().join(format!("spur-fork-bin-{}", std::process::id()));
    let _ = fs::remove_dir_all(&bin_dir);
    fs::create_dir_all(&bin_dir).unwrap();
    let binary = bin_dir.join("spurstepd");
    install(Path::new(STEPD), &binary);
    let server = ForkServer::new(binary.clone());
    let first = TestJob::new("fork-upgrade-1", "true");
    start(&server, &first).unwrap();
    let old = server.server_pid().unwrap();
    // An upgrade installs a new file in the old one's place.
    install(Path::new(STEPD), &binary);
    let second = TestJob::new("fork-upgrade-2", "true");
    let pid = start(&server, &second).unwrap();
    let new = server.server_pid().unwrap();
    assert_ne!(new, old, "the old binary's server was retired");
    assert_eq!(ppid(pid), new);
    wait_gone(old);
    assert_eq!(second.wait_result().outcome, Outcome::Completed);
    assert_eq!(first.wait_result().outcome, Outcome::Completed);
    drop(server);
    let _ = fs::remove_dir_all(&bin_dir);
}

fn install(from: &Path, to: &PathBuf) {
    let staged = to.with_extension("new");
    fs::copy(from, &staged).unwrap();
    fs::rename(&staged, to).unwrap();
}

#[test]
fn the_supervisors_own_refusal_comes_back_as_it_would_from_an_exec() {
    let server = ForkServer::new(STEPD.into());
    let job = TestJob::new("fork-refused", "true");
    fs::write(job.dir.join("result.json"), "{}").unwrap();
    let err = start(&server, &job).unwrap_err();
    assert!(
        matches!(&err, ClientError::NotReady(msg) if msg.contains("already holds a result")),
        "{err}"
    );
    // The server is fine and takes the next job.
    let next = TestJob::new("fork-after-refusal", "true");
    start(&server, &next).unwrap();
    assert_eq!(next.wait_result().outcome, Outcome::Completed);
}

#[test]
fn a_binary_that_cannot_serve_is_left_alone_until_it_changes() {
    // A program that exits at once, as an old spurstepd given `--fork-server` would.
    let server = ForkServer::new("/bin/false".into());
    let job = TestJob::new("fork-off", "true");
    assert!(matches!(
        start(&server, &job),
        Err(ClientError::ForkServer(_))
    ));
    assert!(matches!(
        start(&server, &job),
        Err(ClientError::ForkServerOff)
    ));
    assert_eq!(server.server_pid(), None);
    assert!(client::read_started(&job.dir).unwrap().is_none());
}

#[test]
fn concurrent_launches_each_get_their_supervisor() {
    let server = ForkServer::new(STEPD.into());
    let jobs: Vec<TestJob> = (0..8)
        .map(|i| TestJob::new(&format!("fork-many-{i}"), &format!("echo job {i}")))
        .collect();
    std::thread::scope(|scope| {
        for job in &jobs {
            let server = &server;
            scope.spawn(move || start(server, job).unwrap());
        }
    });
    for (i, job) in jobs.iter().enumerate() {
        assert_eq!(job.wait_result().outcome, Outcome::Completed);
        assert_eq!(job.stdout(), format!("job {i}\n"));
    }
}
