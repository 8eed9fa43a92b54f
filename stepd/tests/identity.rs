//! Running jobs as another user and refusing other users' requests. As root (CI) these switch to uid
//! 65534 (nobody); as an ordinary user they check the rule that applies there instead: a job for another
//! uid cannot be launched.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use common::{euid, wait_for_text, TestJob};
use spur_core::wire::supervisor::{Outcome, Request, Response, TerminateReason, ACCESS_DENIED};
use spur_stepd::client::send_request;

const NOBODY: u32 = 65534;
const STRANGER: u32 = 65533;

/// A directory under /tmp owned by `uid` (0755), removed with the job.
fn owned_dir(job: &mut TestJob, tag: &str, uid: u32, mode: u32) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spur-stepd-it-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    std::os::unix::fs::chown(&d, Some(uid), Some(uid)).unwrap();
    fs::set_permissions(&d, fs::Permissions::from_mode(mode)).unwrap();
    job.extra.push(d.clone());
    d
}

fn as_nobody(job: &mut TestJob, work: &Path) {
    job.spec.uid = NOBODY;
    job.spec.gid = NOBODY;
    job.spec.supplementary_gids = vec![NOBODY, 100];
    job.spec.user_name = "nobody".into();
    job.spec.work_dir = work.to_path_buf();
    job.spec.stdout_path = work.join("out.txt");
    job.spec.stderr_path = work.join("err.txt");
}

/// Sends `request` from a thread whose effective uid is `uid`. The raw syscall changes only that thread's
/// credentials (the C library would change the whole test process), and the saved uid stays root.
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

/// Opens `n` idle connections with effective uid `uid`.
fn connect_as(uid: u32, dir: &Path, n: usize) -> Vec<UnixStream> {
    let sock = dir.join("ctl.sock");
    std::thread::spawn(move || {
        let keep: libc::c_long = -1;
        // SAFETY: as in request_as.
        let rc = unsafe { libc::syscall(libc::SYS_setresuid, keep, libc::c_long::from(uid), keep) };
        assert_eq!(rc, 0, "setresuid");
        (0..n)
            .map(|_| UnixStream::connect(&sock).unwrap())
            .collect()
    })
    .join()
    .unwrap()
}

#[test]
fn job_runs_as_the_requested_user_with_its_groups() {
    let mut job = TestJob::new(
        "nobody",
        r#"id -u; id -g; id -G; touch made-by-job; pwd; echo err >&2"#,
    );
    if euid() != 0 {
        job.spec.uid = euid() + 1;
        job.launch();
        match job.wait_result().outcome {
            Outcome::LaunchFailed { message } => {
                assert!(
                    message.contains("not root, and cannot start a job for uid"),
                    "{message}"
                )
            }
            other => panic!("unexpected {other:?}"),
        }
        return;
    }
    let work = owned_dir(&mut job, "nobody-work", NOBODY, 0o755);
    as_nobody(&mut job, &work);
    job.launch();
    let r = job.wait_result();
    assert_eq!(r.outcome, Outcome::Completed, "stderr: {}", job.stderr());
    assert_eq!(
        job.stdout(),
        format!("{NOBODY}\n{NOBODY}\n{NOBODY} 100\n{}\n", work.display())
    );
    assert_eq!(job.stderr(), "err\n");
    for f in ["out.txt", "err.txt", "made-by-job"] {
        let m = fs::metadata(work.join(f)).unwrap();
        assert_eq!(
            (m.uid(), m.gid()),
            (NOBODY, NOBODY),
            "{f} not created as the job's user"
        );
        assert_eq!(m.mode() & 0o777, 0o644, "{f}");
    }
}

#[test]
fn output_files_are_opened_with_the_users_rights() {
    let mut job = TestJob::new("nobody-out", "echo never");
    if euid() != 0 {
        // Without root there is no other user to be; an unwritable path is the closest check.
        job.spec.stdout_path = "/proc/version".into();
        job.launch();
        assert!(matches!(
            job.wait_result().outcome,
            Outcome::LaunchFailed { .. }
        ));
        return;
    }
    let work = owned_dir(&mut job, "nobody-out-work", NOBODY, 0o755);
    let root_only = owned_dir(&mut job, "nobody-out-rootonly", 0, 0o755);
    as_nobody(&mut job, &work);
    job.spec.stdout_path = root_only.join("out.txt");
    job.launch();
    let want = format!(
        "Could not open stdout file {}: Permission denied",
        job.spec.stdout_path.display()
    );
    assert_eq!(
        job.wait_result().outcome,
        Outcome::LaunchFailed { message: want }
    );
    assert!(!job.spec.stdout_path.exists());
}

#[test]
fn unreadable_work_dir_falls_back_to_tmp_for_the_user() {
    let mut job = TestJob::new("nobody-wd", "pwd");
    if euid() != 0 {
        job.spec.work_dir = "/root/spur-no-access".into();
        job.launch();
        assert_eq!(job.wait_result().outcome, Outcome::Completed);
        assert_eq!(job.stdout(), "/tmp\n");
        return;
    }
    let work = owned_dir(&mut job, "nobody-wd-work", NOBODY, 0o755);
    let private = owned_dir(&mut job, "nobody-wd-private", 0, 0o700);
    as_nobody(&mut job, &work);
    job.spec.work_dir = private.clone();
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "/tmp\n");
    assert_eq!(
        job.stderr(),
        format!(
            "{line}{line}",
            line = format_args!(
                "slurmstepd-vm: error: couldn't chdir to `{}': Permission denied: going to /tmp instead\n",
                private.display()
            )
        )
    );
}

#[test]
fn only_root_and_the_owner_may_send_requests() {
    let mut job = TestJob::new("peercred", "echo start; sleep 100");
    if euid() != 0 {
        // Our own uid is the owner's: allowed. Other uids cannot be tried without root.
        job.launch();
        wait_for_text(&job.spec.stdout_path, "start");
        assert!(matches!(
            send_request(&job.dir, &Request::Status).unwrap(),
            Response::Status { .. }
        ));
        let cancel = Request::Terminate {
            reason: TerminateReason::Cancelled,
            at_epoch_secs: None,
        };
        assert_eq!(send_request(&job.dir, &cancel).unwrap(), Response::Ok);
        job.wait_result();
        return;
    }
    let work = owned_dir(&mut job, "peercred-work", NOBODY, 0o755);
    as_nobody(&mut job, &work);
    job.launch();
    wait_for_text(&job.spec.stdout_path, "start");
    let denied = Response::Error {
        message: ACCESS_DENIED.into(),
    };
    let cancel = Request::Terminate {
        reason: TerminateReason::Cancelled,
        at_epoch_secs: None,
    };
    assert_eq!(request_as(STRANGER, &job.dir, cancel.clone()), denied);
    assert_eq!(request_as(STRANGER, &job.dir, Request::Status), denied);
    assert!(matches!(
        request_as(NOBODY, &job.dir, Request::Status),
        Response::Status { running: true, .. }
    ));
    // Other users filling every connection slot cannot lock root or the owner out.
    let hogs = connect_as(STRANGER, &job.dir, 40);
    assert!(matches!(
        send_request(&job.dir, &Request::Status).unwrap(),
        Response::Status { .. }
    ));
    drop(hogs);
    assert!(matches!(
        send_request(&job.dir, &Request::Status).unwrap(),
        Response::Status { running: true, .. }
    ));
    assert_eq!(request_as(NOBODY, &job.dir, cancel), Response::Ok);
    assert_eq!(job.wait_result().outcome, Outcome::Cancelled);
}
