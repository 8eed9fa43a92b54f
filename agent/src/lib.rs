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
pub mod stepd_socket;
pub mod users;
