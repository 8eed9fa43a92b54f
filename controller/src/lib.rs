//! spurctld: Spur's controller. A deterministic state machine ([`state`]) behind a replicated log ([`raft`]),
//! a pure scheduler ([`scheduler`]) and the checks both share ([`rules`]), and a thin runtime ([`runtime`], [`server`]) that commits commands and
//! carries out their effects.

// Issue 29: nothing another process sends (requests, frames, /proc, spool files, Raft entries) may panic this
// daemon, so outside tests every unwrap/expect/index is a compile error; use `.get()`, patterns or `?` instead.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

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

/// The lint above is what keeps foreign data from panicking this daemon; this fails if a crate root loses it.
#[cfg(test)]
#[test]
fn crate_roots_deny_panicking_access_outside_tests() {
    for (file, text) in [
        ("lib.rs", include_str!("lib.rs")),
        ("main.rs", include_str!("main.rs")),
        ("bin/spur-ha-bench.rs", include_str!("bin/spur-ha-bench.rs")),
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
