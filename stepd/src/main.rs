//! spurstepd: Spur's per-job supervisor. Usage: `spurstepd <job_dir>` for a batch job (see the `spur_stepd`
//! library), `spurstepd --step` with a step launch on stdin for one node's tasks of an srun step,
//! `spurstepd --bcast` with an sbcast order on stdin for one node's copy of a file,
//! `spurstepd --fork-server` beside the agent, forking batch jobs' supervisors on its request.

// Issue 29: nothing another process sends (requests, frames, /proc, spool files, Raft entries) may panic this
// daemon, so outside tests every unwrap/expect/index is a compile error; use `.get()`, patterns or `?` instead.
// unwrap and expect are denied by the workspace's lints (root Cargo.toml); indexing is denied here.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use spur_stepd::daemon::fork_server;

fn main() {
    let first = std::env::args_os().nth(1);
    let code = if first.as_ref().is_some_and(|a| a == "--step") {
        spur_stepd::step_tasks::main_entry()
    } else if first.as_ref().is_some_and(|a| a == "--bcast") {
        spur_stepd::bcast::main_entry()
    } else if first
        .as_ref()
        .is_some_and(|a| a == fork_server::FORK_SERVER_ARG)
    {
        fork_server::main_entry()
    } else {
        spur_stepd::daemon::main_entry(std::env::args_os())
    };
    std::process::exit(code);
}
