//! `srun --task-prolog`/`--task-epilog` as an unprivileged user reaches them: the paths come from the user, and
//! the node's step supervisor (root) runs them, so they must run as the job's user and no one else, with the
//! user's own right to execute them.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::attack::{is_root, text};
use common::users::TestUser;
use common::{Cluster, ClusterOptions};

fn script(path: &Path, body: &str, mode: u32) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn a_users_task_prolog_and_epilog_run_as_that_user_only() {
    if !is_root() {
        eprintln!("skipped: needs root (useradd, a supervisor that could run scripts as root)");
        return;
    }
    // The user first: locals drop in reverse, so the cluster (and the user's jobs) is gone before userdel.
    let eve = TestUser::create("tp");
    let cluster = Cluster::start_with(ClusterOptions::default());
    for (path, mode) in [(cluster.dir.path(), 0o755), (cluster.conf.as_path(), 0o644)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    let secret_dir = cluster.subdir("root-only");
    std::fs::set_permissions(&secret_dir, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let secret = secret_dir.join("secret");
    std::fs::write(&secret, "root's").expect("secret");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let work = &eve.work;
    let (prolog, epilog) = (work.join("prolog.sh"), work.join("epilog.sh"));
    for (path, name) in [(&prolog, "prolog"), (&epilog, "epilog")] {
        script(
            path,
            &format!(
                "id -u > {w}/{name}.uid.$SLURM_PROCID\ncat {s} > {w}/{name}.stolen 2>/dev/null\n\
                 touch {d}/{name}.planted 2>/dev/null\nexit 0",
                w = work.display(),
                s = secret.display(),
                d = secret_dir.display()
            ),
            0o755,
        );
        nix::unistd::chown(
            path,
            Some(nix::unistd::Uid::from_raw(eve.uid)),
            Some(nix::unistd::Gid::from_raw(eve.gid)),
        )
        .expect("chown");
    }
    let out = eve.run(
        &cluster,
        "srun",
        &[
            "-n2",
            &format!("--task-prolog={}", prolog.display()),
            &format!("--task-epilog={}", epilog.display()),
            "true",
        ],
    );
    assert!(out.status.success(), "srun failed: {}", text(&out.stderr));
    for name in ["prolog", "epilog"] {
        for rank in 0..2 {
            let uid = std::fs::read_to_string(work.join(format!("{name}.uid.{rank}")))
                .unwrap_or_else(|_| panic!("the {name} of task {rank} never ran"));
            assert_eq!(
                uid.trim(),
                eve.uid.to_string(),
                "the {name} ran as another user"
            );
        }
        let stolen =
            std::fs::read_to_string(work.join(format!("{name}.stolen"))).unwrap_or_default();
        assert!(stolen.is_empty(), "the {name} read root's file: {stolen}");
        assert!(
            !secret_dir.join(format!("{name}.planted")).exists(),
            "the {name} wrote into root's directory"
        );
    }

    // A script root may run but the user may not: the supervisor does not run it on the user's behalf.
    let roots = cluster.subdir("roots-scripts");
    std::fs::set_permissions(&roots, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let closed = roots.join("closed.sh");
    script(
        &closed,
        &format!("touch {}/closed.ran", roots.display()),
        0o700,
    );
    let out = eve.run(
        &cluster,
        "srun",
        &[
            "-n1",
            &format!("--task-prolog={}", closed.display()),
            "true",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "run_command: user task_prolog can not be executed ({}) Permission denied",
            closed.display()
        )),
        "{err}"
    );
    assert!(
        !roots.join("closed.ran").exists(),
        "root's closed script ran"
    );
    let out = eve.run(
        &cluster,
        "srun",
        &[
            "-n1",
            &format!("--task-epilog={}", closed.display()),
            "true",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !roots.join("closed.ran").exists(),
        "root's closed epilog ran"
    );
}
