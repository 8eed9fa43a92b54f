//! The slurmdb side of libspur_compat.so against a real C program: `libspur_compat/tests/c/slurmdb_c.c`, compiled
//! with gcc against Debian's `<slurm/slurmdb.h>` and linked with the real `-lslurm`, runs against a Spur cluster
//! through the shim (`libslurm.so.38` first on LD_LIBRARY_PATH) under valgrind. Its output must equal what it
//! printed against real Slurm 22.05 with slurmdbd (`slurmdb_c.expected`; conformance case 481 compares both live),
//! and every list and condition it frees with `slurm_list_destroy`/`slurmdb_destroy_*` must leave no leak.
//!
//! Needs `cargo build --workspace` first (daemons and libspur_compat.so), gcc, libslurm-dev and valgrind.

// Test code: a failed unwrap or expect is the test failing with its message (clippy.toml allows them in #[test]
// functions; this extends that to the helpers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::{Cluster, ClusterOptions};

fn c_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../libspur_compat/tests/c")
}

#[test]
fn slurmdb_queries_match_real_slurm_and_leak_nothing() {
    // The reference cluster's name and memory default, so association lines and the jobs' TRES strings are the
    // ones Slurm printed.
    let cluster = Cluster::start_with(ClusterOptions {
        def_mem_per_cpu: 1024,
        extra_conf: "ClusterName=refcluster\n".into(),
        ..Default::default()
    });
    let so = common::bin_dir().join("libspur_compat.so");
    assert!(
        so.exists(),
        "{} missing: run `cargo build --workspace` first",
        so.display()
    );
    let lib = cluster.dir.path().join("shimlib");
    std::fs::create_dir_all(&lib).expect("lib dir");
    std::os::unix::fs::symlink(&so, lib.join("libslurm.so.38")).expect("soname link");
    let program = cluster.dir.path().join("slurmdb_c");
    let status = Command::new("gcc")
        .args(["-Wall", "-Werror", "-o"])
        .arg(&program)
        .arg(c_dir().join("slurmdb_c.c"))
        .arg("-lslurm")
        .status()
        .expect("gcc (install gcc and libslurm-dev)");
    assert!(status.success(), "gcc failed for slurmdb_c.c");

    // What conformance case 481 makes before running the program.
    for args in [
        "-i add qos c481q Description=c481 Priority=7 MaxWall=1:00:00 MaxJobsPerUser=2 MaxSubmitJobsPerUser=3 \
         GrpJobs=5 GrpTRES=cpu=4,mem=2G MaxTRESPerJob=node=1 GraceTime=30 Flags=DenyOnLimit PreemptMode=requeue",
        "-i add account c481acct Description=c481 Organization=c481",
        "-i add user root Account=c481acct QOS=normal,c481q DefaultQOS=normal MaxJobs=4 GrpTRES=cpu=2",
    ] {
        cluster.ok("sacctmgr", &args.split_whitespace().collect::<Vec<_>>());
    }
    let spur = cluster.spur_bin().display().to_string();
    let a = cluster.submit(
        &format!("#!/bin/sh\n{spur} srun sleep 1\n"),
        &["-J", "c481a", "-o", "/dev/null", "-n1"],
    );
    let b = cluster.submit(
        "#!/bin/sh\nsleep 1\nexit 3\n",
        &["-J", "c481b", "-o", "/dev/null", "-n1"],
    );
    cluster.wait_for_state(a, "COMPLETED", Duration::from_secs(30));
    cluster.wait_for_state(b, "FAILED", Duration::from_secs(30));

    let out = Command::new("valgrind")
        .args([
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--error-exitcode=99",
        ])
        .arg(&program)
        .args([&a.to_string(), &b.to_string(), "c481q", "c481acct"])
        .current_dir(cluster.dir.path())
        .env("SLURM_CONF", &cluster.conf)
        .env_remove("SPUR_CONTROLLER")
        .env("LD_LIBRARY_PATH", &lib)
        .output()
        .expect("valgrind (install valgrind)");
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "slurmdb_c under valgrind:\n{report}\n{}",
        cluster.logs()
    );
    assert!(
        report.contains("definitely lost: 0 bytes") || report.contains("no leaks are possible"),
        "{report}"
    );
    let expected =
        std::fs::read_to_string(c_dir().join("slurmdb_c.expected")).expect("expected output");
    pretty_assertions::assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
}
