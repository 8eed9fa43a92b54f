//! spurstepd: Spur's per-job supervisor (the counterpart of Slurm's slurmstepd for the batch step).
//!
//! The node agent writes a [`spur_core::wire::supervisor::LaunchSpec`] and the script into a job directory and has its
//! fork server fork a supervisor for it (see [`fork_client`]), or runs `spurstepd <job_dir>` (see [`client::launch`]),
//! which detaches. Either way the supervisor outlives the agent, runs the script as the job's user, answers control
//! requests on `<job_dir>/ctl.sock` and finally leaves `result.json` behind. The agent only ever talks to it
//! through that directory, which is what lets the agent restart while jobs keep running.

// Issue 29: nothing another process sends (requests, frames, /proc, spool files, Raft entries) may panic this
// daemon, so outside tests every unwrap/expect/index is a compile error; use `.get()`, patterns or `?` instead.
// unwrap and expect are denied by the workspace's lints (root Cargo.toml); indexing is denied here.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

pub mod cgroup;
pub mod client;
pub mod daemon;
pub mod files;
pub mod fork_client;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod messages;
pub mod pty;
pub mod rlimit;
pub mod step_attach;
pub mod step_tasks;
pub mod task_launch;
pub mod task_script;

pub use client::{is_alive, launch, read_result, read_started, send_request, ClientError};

/// The lints are what keep foreign data from panicking this daemon; this fails if a crate root loses the
/// indexing lint above or the crate stops taking the workspace's unwrap/expect lints.
#[cfg(test)]
#[test]
fn crate_roots_deny_panicking_access_outside_tests() {
    for (file, text) in [
        ("lib.rs", include_str!("lib.rs")),
        ("main.rs", include_str!("main.rs")),
    ] {
        assert!(
            text.lines()
                .any(|l| l.trim() == "#![cfg_attr(not(test), deny(clippy::indexing_slicing))]"),
            "{file} lost its indexing lint"
        );
    }
    // unwrap and expect: denied for every crate by the workspace (tests excepted by clippy.toml), and this crate
    // takes the workspace's lints.
    let workspace = include_str!("../../Cargo.toml");
    for lint in ["unwrap_used = \"deny\"", "expect_used = \"deny\""] {
        assert!(
            workspace.lines().any(|l| l.trim() == lint),
            "the workspace lost `{lint}`"
        );
    }
    let clippy_toml = include_str!("../../clippy.toml");
    for setting in [
        "allow-unwrap-in-tests = true",
        "allow-expect-in-tests = true",
    ] {
        assert!(
            clippy_toml.contains(setting),
            "clippy.toml lost `{setting}`"
        );
    }
    let manifest = include_str!("../Cargo.toml");
    assert!(
        manifest.contains("[lints]\nworkspace = true"),
        "this crate no longer takes the workspace's lints"
    );
}
