//! A command whose output pipe closes early (`squeue | head -1`) ends quietly, killed by SIGPIPE, as Slurm's C
//! commands do, instead of panicking with a backtrace on its next print.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

fn spur() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_spur"))
}

/// Runs `spur args` with its stdout a pipe whose reading end is already closed; its status and stderr.
fn with_closed_stdout(args: &[&str]) -> (std::process::ExitStatus, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut child = Command::new(spur())
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn spur");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    (child.wait().expect("wait"), stderr)
}

#[test]
fn a_report_to_a_closed_pipe_ends_by_sigpipe_without_a_panic() {
    for args in [
        &["sbatch", "--version"][..],
        &["--list"],
        &["scontrol", "show", "hostnames", "n[1-500]"],
    ] {
        let (status, stderr) = with_closed_stdout(args);
        assert_eq!(
            status.signal(),
            Some(libc::SIGPIPE),
            "{args:?}: {status:?} {stderr}"
        );
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}
