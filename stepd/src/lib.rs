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

pub mod bcast;
pub mod cgroup;
pub mod client;
pub mod daemon;
pub mod fabric;
pub mod files;
pub mod fork_client;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod gather;
pub mod messages;
pub mod pmi;
pub mod pty;
pub mod rlimit;
pub mod step_attach;
pub mod step_cray;
pub mod step_gather;
pub mod step_mpi;
pub mod step_pmix;
pub mod step_tasks;
pub mod task_launch;
pub mod task_script;

pub use client::{is_alive, launch, read_result, read_started, send_request, ClientError};
