//! spurctld: Spur's controller. A deterministic state machine ([`state`]) behind a replicated log ([`raft`]),
//! a pure scheduler ([`scheduler`]) and the checks both share ([`rules`]), and a thin runtime ([`runtime`], [`server`]) that commits commands and
//! carries out their effects.

// Issue 29: nothing another process sends (requests, frames, /proc, spool files, Raft entries) may panic this
// daemon, so outside tests every unwrap/expect/index is a compile error; use `.get()`, patterns or `?` instead.
// unwrap and expect are denied by the workspace's lints (root Cargo.toml); indexing is denied here.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

pub mod app;
pub mod config;
pub mod controllers;
pub mod raft;
pub mod rules;
pub mod runtime;
pub mod scheduler;
pub mod server;
pub mod state;
pub mod state_dir;

/// The lints are what keep foreign data from panicking this daemon; this fails if a crate root loses the
/// indexing lint above or the crate stops taking the workspace's unwrap/expect lints.
#[cfg(test)]
#[test]
fn crate_roots_deny_panicking_access_outside_tests() {
    for (file, text) in [
        ("lib.rs", include_str!("lib.rs")),
        ("main.rs", include_str!("main.rs")),
        ("bin/spur-ha-bench.rs", include_str!("bin/spur-ha-bench.rs")),
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
