//! `srun --pty`: task 0 gets a terminal of its own, driven here through a pseudo-terminal as a user's terminal
//! would drive it: keystrokes in, the shell's output back, its exit code as srun's. Across nodes:
//! srun_multinode.rs.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{drive_pty, Cluster};

#[test]
fn an_interactive_shell_runs_on_its_own_terminal() {
    let cluster = Cluster::start();
    let mut command = cluster.command(
        cluster.dir.path(),
        "srun",
        &["--pty", "bash", "--norc", "--noprofile"],
    );
    command.env("PS1", "prompt$ ");
    let (seen, code) = drive_pty(
        command,
        b"[ -t 0 ] && [ -t 1 ] && echo on-a-tty-$((40+2))\nexit 3\n",
    );
    assert!(seen.contains("on-a-tty-42"), "{seen:?}");
    assert_eq!(code, Some(3), "{seen:?}\n{}", cluster.logs());
}
