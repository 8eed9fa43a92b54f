//! spurstepd: Spur's per-job supervisor (the counterpart of Slurm's slurmstepd for the batch step).
//!
//! The node agent writes a [`protocol::LaunchSpec`] and the script into a job directory and has its fork server
//! fork a supervisor for it (see [`fork_client`]), or runs `spurstepd <job_dir>` (see [`client::launch`]), which
//! detaches. Either way the supervisor outlives the agent, runs the script as the job's user, answers control
//! requests on `<job_dir>/ctl.sock` and finally leaves `result.json` behind. The agent only ever talks to it
//! through that directory, which is what lets the agent restart while jobs keep running.

// Issue 29: nothing another process sends (requests, frames, /proc, spool files, Raft entries) may panic this
// daemon, so outside tests every unwrap/expect/index is a compile error; use `.get()`, patterns or `?` instead.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

pub mod cgroup;
pub mod client;
pub mod daemon;
pub mod files;
pub mod fork_client;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod messages;
pub mod protocol;
pub mod pty;
pub mod rlimit;
pub mod step_attach;
pub mod step_io;
pub mod step_tasks;
pub mod task_launch;
pub mod task_script;

pub use client::{is_alive, launch, read_result, read_started, send_request, ClientError};

/// The lint above is what keeps foreign data from panicking this daemon; this fails if a crate root loses it.
#[cfg(test)]
#[test]
fn crate_roots_deny_panicking_access_outside_tests() {
    for (file, text) in [
        ("lib.rs", include_str!("lib.rs")),
        ("main.rs", include_str!("main.rs")),
    ] {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let attribute = [
            "#![cfg_attr(",
            "not(test),",
            "deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)",
        ];
        assert!(
            lines.windows(3).any(|w| w == attribute),
            "{file} lost its panic lint"
        );
    }
}
