//! Control requests over `ctl.sock` against real jobs: status, signals with both scopes, termination with
//! Slurm's message and the SIGTERM→SIGKILL grace, refusals.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{group_exists, wait_for_text, TestJob};
use spur_core::wire::supervisor::{
    Outcome, Request, Response, SignalScope, TerminateReason, ALREADY_DONE, INVALID_SIGNAL,
};
use spur_stepd::client::send_request;
use spur_stepd::messages::format_local_time;

/// A script whose shell and background child each report SIGUSR1 on stdout.
const USR1_SCRIPT: &str = r#"trap 'echo shell-usr1' USR1
( trap 'echo child-usr1; exit 0' USR1; echo child-ready; while :; do sleep 0.05; done ) &
echo ready
while :; do sleep 0.05; done"#;

fn terminate(job: &TestJob, reason: TerminateReason, at: Option<i64>) {
    let r = send_request(
        &job.dir,
        &Request::Terminate {
            reason,
            at_epoch_secs: at,
        },
    )
    .unwrap();
    assert_eq!(r, Response::Ok);
}

#[test]
fn time_limit_kills_after_kill_wait_and_writes_slurms_line() {
    let job = TestJob::new("timelimit", r#"trap "" TERM; echo start; sleep 100"#);
    job.launch();
    let started = job.wait_started();
    wait_for_text(&job.spec.stdout_path, "start");
    let at = 1_796_000_374;
    let t0 = Instant::now();
    terminate(&job, TerminateReason::TimeLimit, Some(at));
    // Termination is idempotent: a second request neither changes the reason nor writes another line.
    terminate(&job, TerminateReason::Cancelled, Some(at));
    let r = job.wait_result();
    let took = t0.elapsed();
    assert!(
        took >= Duration::from_millis(950),
        "killed after {took:?}, before kill_wait"
    );
    assert!(took < Duration::from_secs(8), "killed only after {took:?}");
    assert_eq!(r.outcome, Outcome::TimedOut);
    assert_eq!(r.signal, Some(9));
    assert_eq!(
        job.stderr(),
        format!(
            "slurmstepd-vm: error: *** JOB 41 ON vm CANCELLED AT {} DUE TO TIME LIMIT ***\n",
            format_local_time(at).unwrap()
        )
    );
    assert!(!group_exists(started.pid), "the job's sleep survived");
}

#[test]
fn cancel_ends_a_plain_script_with_sigterm() {
    let mut job = TestJob::new("cancel", "echo start; sleep 100");
    job.spec.kill_wait_secs = 30;
    job.launch();
    wait_for_text(&job.spec.stdout_path, "start");
    let before = common::now_epoch();
    let t0 = Instant::now();
    terminate(&job, TerminateReason::Cancelled, None);
    let r = job.wait_result();
    assert!(
        t0.elapsed() < Duration::from_secs(10),
        "SIGTERM was not enough: {:?}",
        t0.elapsed()
    );
    assert_eq!(r.outcome, Outcome::Cancelled);
    assert_eq!(r.exit_code_pair(), (0, 15));
    let err = job.stderr();
    let after = common::now_epoch();
    let ok = (before..=after).any(|t| {
        err == format!(
            "slurmstepd-vm: error: *** JOB 41 ON vm CANCELLED AT {} ***\n",
            format_local_time(t).unwrap()
        )
    });
    assert!(ok, "{err:?}");
}

#[test]
fn status_reports_the_running_script() {
    let job = TestJob::new("status", "echo start; sleep 100");
    job.launch();
    let started = job.wait_started();
    match send_request(&job.dir, &Request::Status).unwrap() {
        Response::Status {
            running,
            pid,
            start_time,
            terminating,
        } => {
            assert!(running);
            assert_eq!(pid, Some(started.pid));
            assert_eq!(start_time, Some(started.start_time));
            assert_eq!(terminating, None);
        }
        other => panic!("unexpected {other:?}"),
    }
    let bad = send_request(
        &job.dir,
        &Request::Signal {
            signo: 0,
            scope: SignalScope::BatchShell,
            step_pids: Vec::new(),
        },
    )
    .unwrap();
    assert_eq!(
        bad,
        Response::Error {
            message: INVALID_SIGNAL.into()
        }
    );
    let bad = send_request(
        &job.dir,
        &Request::Signal {
            signo: 65,
            scope: SignalScope::AllProcesses,
            step_pids: Vec::new(),
        },
    )
    .unwrap();
    assert_eq!(
        bad,
        Response::Error {
            message: INVALID_SIGNAL.into()
        }
    );
    terminate(&job, TerminateReason::Cancelled, None);
    job.wait_result();
}

#[test]
fn usr1_to_the_batch_shell_only() {
    let job = TestJob::new("usr1shell", USR1_SCRIPT);
    job.launch();
    wait_for_text(&job.spec.stdout_path, "child-ready");
    wait_for_text(&job.spec.stdout_path, "ready");
    let r = send_request(
        &job.dir,
        &Request::Signal {
            signo: libc::SIGUSR1,
            scope: SignalScope::BatchShell,
            step_pids: Vec::new(),
        },
    );
    assert_eq!(r.unwrap(), Response::Ok);
    wait_for_text(&job.spec.stdout_path, "shell-usr1");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!job.stdout().contains("child-usr1"), "{}", job.stdout());
    match send_request(&job.dir, &Request::Status).unwrap() {
        Response::Status { running, .. } => {
            assert!(running, "the trap should have kept the shell alive")
        }
        other => panic!("unexpected {other:?}"),
    }
    terminate(&job, TerminateReason::Cancelled, None);
    assert_eq!(job.wait_result().outcome, Outcome::Cancelled);
}

#[test]
fn usr1_to_all_processes() {
    let job = TestJob::new("usr1all", USR1_SCRIPT);
    job.launch();
    wait_for_text(&job.spec.stdout_path, "child-ready");
    wait_for_text(&job.spec.stdout_path, "ready");
    let r = send_request(
        &job.dir,
        &Request::Signal {
            signo: libc::SIGUSR1,
            scope: SignalScope::AllProcesses,
            step_pids: Vec::new(),
        },
    );
    assert_eq!(r.unwrap(), Response::Ok);
    wait_for_text(&job.spec.stdout_path, "shell-usr1");
    wait_for_text(&job.spec.stdout_path, "child-usr1");
    terminate(&job, TerminateReason::Cancelled, None);
    assert_eq!(job.wait_result().outcome, Outcome::Cancelled);
}

#[test]
fn requests_between_script_end_and_cleanup_get_already_done() {
    // The shell dies of SIGTERM but its child ignores it, so the job lingers until kill_wait is over.
    let mut job = TestJob::new(
        "late",
        r#"(trap "" TERM; echo child-ready; sleep 100) & wait"#,
    );
    job.spec.kill_wait_secs = 3;
    job.launch();
    let started = job.wait_started();
    wait_for_text(&job.spec.stdout_path, "child-ready");
    let t0 = Instant::now();
    terminate(&job, TerminateReason::Cancelled, None);
    let deadline = Instant::now() + common::WAIT;
    loop {
        match send_request(&job.dir, &Request::Status).unwrap() {
            Response::Status {
                running: false,
                terminating,
                ..
            } => {
                assert_eq!(terminating, Some(TerminateReason::Cancelled));
                break;
            }
            Response::Status { .. } => assert!(Instant::now() < deadline, "the shell never died"),
            other => panic!("unexpected {other:?}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        group_exists(started.pid),
        "the TERM-ignoring child should still be there"
    );
    let done = Response::Error {
        message: ALREADY_DONE.into(),
    };
    let sig = Request::Signal {
        signo: libc::SIGUSR1,
        scope: SignalScope::AllProcesses,
        step_pids: Vec::new(),
    };
    assert_eq!(send_request(&job.dir, &sig).unwrap(), done);
    let again = Request::Terminate {
        reason: TerminateReason::TimeLimit,
        at_epoch_secs: None,
    };
    assert_eq!(send_request(&job.dir, &again).unwrap(), done);
    let r = job.wait_result();
    assert!(
        t0.elapsed() >= Duration::from_millis(2900),
        "SIGKILL came after {:?}",
        t0.elapsed()
    );
    assert_eq!(r.outcome, Outcome::Cancelled);
    assert_eq!(r.signal, Some(libc::SIGTERM));
    assert!(!group_exists(started.pid));
    // Once the result is there nobody listens any more: a late request fails fast instead of hanging.
    let t1 = Instant::now();
    let err = send_request(&job.dir, &Request::Status).unwrap_err();
    assert!(err.to_string().contains("cannot reach spurstepd"), "{err}");
    assert!(t1.elapsed() < Duration::from_secs(2));
}

#[test]
fn long_job_directory_paths_work() {
    let base = std::env::temp_dir().join(format!("spur-stepd-it-long-{}", std::process::id()));
    let dir = base.join("a".repeat(60)).join("b".repeat(60));
    std::fs::create_dir_all(&dir).unwrap();
    let mut job = TestJob::in_dir(dir, "echo start; sleep 100");
    job.extra.push(base);
    assert!(job.dir.join("ctl.sock").as_os_str().len() > 108);
    job.launch();
    wait_for_text(&job.spec.stdout_path, "start");
    assert!(matches!(
        send_request(&job.dir, &Request::Status).unwrap(),
        Response::Status { running: true, .. }
    ));
    terminate(&job, TerminateReason::NodeFail, Some(0));
    assert_eq!(job.wait_result().outcome, Outcome::NodeFail);
    assert!(job
        .stderr()
        .ends_with("DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n"));
}
