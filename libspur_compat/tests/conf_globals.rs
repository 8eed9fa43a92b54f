//! `slurm_conf` and the `slurm_conf_*` calls against libslurm itself: `tests/c/conf_c.c` is compiled with gcc
//! against Debian's headers and linked with the real `-lslurm`, then run twice on the same slurm.conf — with the
//! real library, and with `libslurm.so.38 -> libspur_compat.so` first on LD_LIBRARY_PATH — and the outputs must be
//! identical. No cluster is needed: both libraries only read the file.
//!
//! Needs gcc, libslurm-dev and libslurm38 (CI installs them); `cargo test -p libspur_compat` builds the cdylib.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/<profile>/libspur_compat.so`, next to this test's `deps/` directory.
fn shim() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().unwrap().parent().unwrap();
    let so = profile.join("libspur_compat.so");
    assert!(so.exists(), "{} not built", so.display());
    so
}

fn hostname() -> String {
    nix::unistd::gethostname()
        .unwrap()
        .to_string_lossy()
        .split('.')
        .next()
        .unwrap()
        .to_string()
}

/// The conformance cluster's slurm.conf template, made concrete for this host, plus `extra` lines.
fn write_conf(dir: &Path, name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let template = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/conf/slurm.conf"),
    )
    .unwrap();
    let text = template
        .replace("@NODE@", &hostname())
        .replace("@RUNDIR@", &dir.join("run").display().to_string())
        .replace("@CTLD_PORT@", "7817")
        .replace("@SLURMD_PORT@", "7818")
        .replace("@CPUS@", "2")
        .replace("@CORES@", "2")
        .replace("@MEM@", "1000");
    let path = dir.join(name);
    std::fs::write(&path, edit(text)).unwrap();
    path
}

fn run(program: &Path, conf: &Path, shim_dir: Option<&Path>) -> String {
    let mut cmd = Command::new(program);
    cmd.env("SLURM_CONF", conf).env_remove("LD_PRELOAD");
    match shim_dir {
        Some(d) => cmd.env("LD_LIBRARY_PATH", d),
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    };
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{} failed: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn slurm_conf_global_and_lookups_match_libslurm() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("conf_c");
    let status = Command::new("gcc")
        .args(["-Wall", "-Werror", "-o"])
        .arg(&program)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/conf_c.c"))
        .arg("-lslurm")
        .status()
        .expect("gcc (install gcc and libslurm-dev)");
    assert!(status.success());
    let shim_dir = dir.path().join("shim");
    std::fs::create_dir_all(&shim_dir).unwrap();
    std::os::unix::fs::symlink(shim(), shim_dir.join("libslurm.so.38")).unwrap();

    let plain = write_conf(dir.path(), "slurm.conf", |t| t);
    // Keys the template leaves out or sets differently: flags, ranges, programs, defaults left to the library.
    let varied = write_conf(dir.path(), "slurm2.conf", |t| {
        t.replace("SelectTypeParameters=CR_Core_Memory", "SelectTypeParameters=CR_CPU")
            .replace(
                "SlurmctldPort=7817",
                "SlurmctldPort=7000-7003\nPrologFlags=Contain,Serial\nSuspendProgram=/bin/true\n\
                 ResumeProgram=/bin/true\nPreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG\n\
                 TCPTimeout=7\nProlog=/bin/true",
            )
            .replace("SlurmdPort=7818\n", "")
            .replace("DefMemPerCPU=1024\n", "")
    });
    for conf in [plain, varied] {
        let real = run(&program, &conf, None);
        let ours = run(&program, &conf, Some(&shim_dir));
        assert!(real.contains("cluster_name=refcluster"), "{real}");
        pretty_assertions::assert_eq!(ours, real, "{}", conf.display());
    }
}
