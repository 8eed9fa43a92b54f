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
pub mod history;
pub mod raft;
pub mod rules;
pub mod runtime;
pub mod scheduler;
pub mod server;
pub mod state;
pub mod state_dir;
