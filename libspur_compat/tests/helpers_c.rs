//! libslurm's helper families (bitstrings, `slurm_x*` memory and strings, logging) against C programs: each program
//! in `tests/c/{bits_c,xstr_c,log_c}.c` is compiled with gcc and linked with the real `-lslurm`, then run twice —
//! on the real libslurm.so.38 and on libspur_compat.so (through the `libslurm.so.38` link cargo leaves next to it)
//! — and both outputs must equal the committed `*.expected`, which the real library printed. No cluster is needed.
//!
//! Needs gcc and libslurm-dev (Debian's headers and libslurm.so.38).

// Test code: a failed unwrap or expect is the test failing with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn c_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c")
}

/// `target/<profile>`, where cargo puts libspur_compat.so and build.rs the `libslurm.so.38` link to it.
fn shim_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>")
        .to_path_buf();
    let so = dir.join("libspur_compat.so");
    assert!(
        so.exists(),
        "{} missing: build libspur_compat first",
        so.display()
    );
    let link = dir.join("libslurm.so.38");
    if std::fs::symlink_metadata(&link).is_err() {
        std::os::unix::fs::symlink("libspur_compat.so", &link).expect("soname link");
    }
    dir
}

fn compile(name: &str, out_dir: &Path) -> PathBuf {
    // The binary keeps the program's name: log_c's default log lines carry it.
    let out = out_dir.join(name);
    let status = Command::new("gcc")
        .args(["-Wall", "-Werror", "-o"])
        .arg(&out)
        .arg(c_dir().join(format!("{name}.c")))
        .arg("-lslurm")
        .status()
        .expect("gcc (install gcc and libslurm-dev)");
    assert!(status.success(), "gcc failed for {name}.c");
    out
}

fn run(program: &Path, lib_dir: Option<&Path>) -> String {
    let mut cmd = Command::new(program);
    cmd.env_remove("LD_PRELOAD").env_remove("LD_LIBRARY_PATH");
    if let Some(dir) = lib_dir {
        cmd.env("LD_LIBRARY_PATH", dir);
    }
    let out = cmd.output().expect("run C program");
    assert!(
        out.status.success(),
        "{} ({}) failed: {}\n{}",
        program.display(),
        lib_dir.map_or("real libslurm".into(), |d| d.display().to_string()),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn check(name: &str) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let program = compile(name, tmp.path());
    let expected =
        std::fs::read_to_string(c_dir().join(format!("{name}.expected"))).expect("expected output");
    // The expected text is the real library's: make sure it still is, then hold the shim to it.
    pretty_assertions::assert_eq!(run(&program, None), expected, "real libslurm");
    pretty_assertions::assert_eq!(run(&program, Some(&shim_dir())), expected, "libspur_compat");
}

#[test]
fn bitstrings_match_libslurm() {
    check("bits_c");
}

#[test]
fn xmalloc_and_xstring_match_libslurm() {
    check("xstr_c");
}

#[test]
fn logging_matches_libslurm() {
    check("log_c");
}
