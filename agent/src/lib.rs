//! spurd: Spur's node agent. It registers the node with the controller, starts one spurstepd per job, forwards
//! signals and terminations to them, and reports their results. Its only state is the spool directory, so it can
//! be restarted at any time without disturbing running jobs.

// Issue 29: nothing another process sends (requests, frames, /proc, spool files, Raft entries) may panic this
// daemon, so outside tests every unwrap/expect/index is a compile error; use `.get()`, patterns or `?` instead.
// unwrap and expect are denied by the workspace's lints (root Cargo.toml); indexing is denied here.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

pub mod config;
pub mod controller_trust;
pub mod discover;
mod effects;
pub mod error;
pub mod gpus;
pub mod in_flight;
pub mod isolation;
pub mod jobs;
pub mod login_env;
pub mod machine;
#[cfg(test)]
mod machine_parity;
pub mod runs;
pub mod session;
pub mod sim;
pub mod step_attach;
pub mod step_usage;
pub mod users;

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
