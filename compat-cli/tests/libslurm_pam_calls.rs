//! The libslurm calls of `pam_slurm_adopt` that need no cluster (`libspur_compat/tests/c/pam_calls_c.c`:
//! `slurm_cgroup_conf` field by field around init/destroy, with and without a cgroup.conf beside slurm.conf,
//! `slurm_autodetect_cgroup_version`, `slurm_callerid_get_own_netinfo` on a loopback connection, and the
//! `slurm_stepd_*` calls on a directory without steps and on descriptors that are not step connections), run
//! against the real libslurm.so.38 and against libspur_compat (LD_PRELOAD): the printed results and the log lines
//! on stderr must be equal.
//!
//! Needs `cargo build -p libspur_compat` first, gcc and libslurm-dev.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn program(dir: &Path) -> PathBuf {
    let source =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../libspur_compat/tests/c/pam_calls_c.c");
    let out = dir.join("pam_calls_c");
    let status = Command::new("gcc")
        .args(["-Wall", "-Werror", "-o"])
        .arg(&out)
        .arg(source)
        .arg("-lslurm")
        .status()
        .expect("gcc (install gcc and libslurm-dev)");
    assert!(status.success(), "gcc failed for pam_calls_c.c");
    out
}

/// The program's output, run once with the steps directory missing and once with an empty one.
fn run(program: &Path, conf_dir: &Path, shim: bool) -> String {
    let mut all = String::new();
    for args in [vec![], vec![conf_dir.display().to_string()]] {
        let mut cmd = Command::new(program);
        cmd.args(&args)
            .env("SLURM_CONF", conf_dir.join("slurm.conf"))
            .env_remove("LD_PRELOAD");
        if shim {
            cmd.env("LD_PRELOAD", common::bin_dir().join("libspur_compat.so"));
        }
        let out = cmd.output().expect("run pam_calls_c");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        all.push_str(&String::from_utf8_lossy(&out.stdout));
        all.push_str("stderr:\n");
        all.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    all
}

#[test]
fn pam_slurm_adopts_local_calls_answer_as_libslurm() {
    let so = common::bin_dir().join("libspur_compat.so");
    assert!(
        so.exists(),
        "{} missing: run `cargo build -p libspur_compat` first",
        so.display()
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let program = program(dir.path());
    std::fs::write(
        dir.path().join("slurm.conf"),
        "ClusterName=c\nSlurmctldHost=h\n",
    )
    .unwrap();
    for cgroup_conf in [
        None,
        Some("CgroupMountpoint=/cg/\nConstrainRAMSpace=yes\nIgnoreSystemd=yes\nMemorySwappiness=300\nAllowedKmemSpace=5\n"),
        Some("CgroupPlugin=cgroup/v2\nConstrainCores=yes ConstrainDevices=yes\nMaxRAMPercent=80 MinKmemSpace=7\n"),
    ] {
        let path = dir.path().join("cgroup.conf");
        match cgroup_conf {
            Some(text) => std::fs::write(&path, text).unwrap(),
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
        let real = run(&program, dir.path(), false);
        let shim = run(&program, dir.path(), true);
        assert_eq!(shim, real, "cgroup.conf {cgroup_conf:?}");
        assert!(real.contains("init again=-1"), "{real}");
    }
}
