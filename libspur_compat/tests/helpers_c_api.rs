//! libspur_compat.so's exported helpers beyond `<slurm/slurm.h>` (state and reason names, flag texts, time
//! printers and parsers, environment arrays, char/step lists, single-record frees, `slurm_msg_t_init`, slurmdb
//! helpers, deranged hostlists) against real C programs: `tests/c/strings_c.c` and `tests/c/helpers_c.c` are
//! compiled with gcc and run with `libslurm.so.38 -> libspur_compat.so` first on `LD_LIBRARY_PATH`, with
//! `TZ=UTC`. Their output must equal `*.expected`, which the same programs printed against Debian's real
//! libslurm.so.38; where that library is installed, each program also runs against it and the two outputs must
//! agree (this covers the clock-relative `SLURM_TIME_FORMAT=relative` texts, which no committed file can hold).
//!
//! Needs no cluster: these functions compute locally. Needs gcc and libslurm-dev (`.ci/deps.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const REAL_LIBSLURM: &str = "/usr/lib/x86_64-linux-gnu/libslurm.so.38";

fn c_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c")
}

/// The built cdylib (`target/<profile>/libspur_compat.so`). `cargo test` builds only the rlib for a test, so the
/// test brings the cdylib up to date itself (a no-op when it is current), with the cargo that runs it.
fn shim() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test executable path");
            let profile = exe
                .parent()
                .and_then(Path::parent)
                .expect("target/<profile>")
                .to_path_buf();
            let mut build = Command::new(env!("CARGO"));
            build.args(["build", "-p", "libspur_compat", "--lib"]);
            if profile.file_name().is_some_and(|n| n == "release") {
                build.arg("--release");
            }
            let status = build.status().expect("cargo build -p libspur_compat");
            assert!(status.success(), "cargo build -p libspur_compat failed");
            let so = profile.join("libspur_compat.so");
            assert!(so.exists(), "{} not built", so.display());
            so
        })
        .clone()
}

struct Programs {
    dir: tempfile::TempDir,
}

impl Programs {
    /// Compiles the programs and lays out `lib/libslurm.so.38 -> libspur_compat.so` and a minimal slurm.conf
    /// (real libslurm loads its select plugin to free a step or node record).
    fn build(names: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in names {
            let status = Command::new("gcc")
                .args(["-Wall", "-Werror", "-o"])
                .arg(dir.path().join(name))
                .arg(c_dir().join(format!("{name}.c")))
                .arg("-lslurm")
                .status()
                .expect("gcc (install gcc and libslurm-dev)");
            assert!(status.success(), "gcc failed for {name}.c");
        }
        std::fs::create_dir(dir.path().join("lib")).expect("lib dir");
        std::os::unix::fs::symlink(shim(), dir.path().join("lib/libslurm.so.38"))
            .expect("soname link");
        std::fs::write(
            dir.path().join("slurm.conf"),
            "ClusterName=strings\nSlurmctldHost=localhost\nNodeName=n1\nPartitionName=p Nodes=n1\n",
        )
        .expect("slurm.conf");
        Self { dir }
    }

    fn run(&self, name: &str, args: &[&str], real: bool, env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(self.dir.path().join(name));
        cmd.args(args)
            .env("TZ", "UTC")
            .env_remove("SLURM_TIME_FORMAT")
            .env_remove("LD_PRELOAD")
            .env("SLURM_CONF", self.dir.path().join("slurm.conf"));
        if real {
            cmd.env_remove("LD_LIBRARY_PATH");
        } else {
            cmd.env("LD_LIBRARY_PATH", self.dir.path().join("lib"));
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("run the C program")
    }
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(c_dir().join(format!("{name}.expected"))).expect("expected output")
}

fn real_installed() -> bool {
    Path::new(REAL_LIBSLURM).exists()
}

const FORMATS: [&str; 5] = [
    "standard",
    "%Y/%m/%d %H:%M",
    "%a %b %e %H:%M:%S %Y",
    "%s",
    "noformat",
];

#[test]
fn state_flag_and_time_texts_match_libslurm() {
    let p = Programs::build(&["strings_c"]);
    let out = p.run("strings_c", &[], false, &[]);
    assert!(out.status.success(), "{out:?}");
    pretty_assertions::assert_eq!(text(&out), expected("strings_c"));

    let formats: String = FORMATS
        .iter()
        .map(|f| text(&p.run("strings_c", &[f], false, &[("SLURM_TIME_FORMAT", f)])))
        .collect();
    pretty_assertions::assert_eq!(formats, expected("strings_c_formats"));

    if real_installed() {
        // Live comparison, including the day-relative format (its texts depend on today's date).
        for f in FORMATS.iter().chain(&["relative", ""]) {
            let env = [("SLURM_TIME_FORMAT", *f)];
            let ours = p.run("strings_c", &[f], false, &env);
            let real = p.run("strings_c", &[f], true, &env);
            pretty_assertions::assert_eq!(text(&ours), text(&real), "SLURM_TIME_FORMAT={f}");
        }
        let real = p.run("strings_c", &[], true, &[]);
        pretty_assertions::assert_eq!(text(&out), text(&real));
    }
}

#[test]
fn env_lists_frees_and_slurmdb_helpers_match_libslurm() {
    let p = Programs::build(&["helpers_c"]);
    let out = p.run("helpers_c", &[], false, &[]);
    assert!(out.status.success(), "{out:?}");
    pretty_assertions::assert_eq!(text(&out), expected("helpers_c"));
    if real_installed() {
        let real = p.run("helpers_c", &[], true, &[]);
        pretty_assertions::assert_eq!(text(&out), text(&real));
    }
}

#[test]
fn bad_step_ids_are_fatal_like_libslurm() {
    let p = Programs::build(&["helpers_c"]);
    for (arg, line) in [
        ("18.bogus", "helpers_c: fatal: Bad step specified: 18\n"),
        ("x1", "helpers_c: fatal: Bad job/step specified: x1\n"),
        (
            "12_x",
            "helpers_c: fatal: Bad job array element specified: 12\n",
        ),
        (
            "12+x",
            "helpers_c: fatal: Bad hetjob offset specified: 12\n",
        ),
        ("5,x", "helpers_c: fatal: Bad job/step specified: x\n"),
        ("12.1+x", "rc=1\n"),
    ] {
        let out = p.run("helpers_c", &[arg], false, &[]);
        assert_eq!(text(&out), line, "{arg}");
        let code = if line.starts_with("rc=") { 0 } else { 1 };
        assert_eq!(out.status.code(), Some(code), "{arg}");
        if real_installed() {
            let real = p.run("helpers_c", &[arg], true, &[]);
            assert_eq!(
                (text(&real), real.status.code()),
                (text(&out), out.status.code())
            );
        }
    }
}

#[test]
fn helpers_leave_no_memory_errors_under_valgrind() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        // valgrind is a CI dependency (.ci/deps.sh); the other tests still check every answer.
        eprintln!("valgrind not installed; skipped");
        return;
    }
    let p = Programs::build(&["strings_c", "helpers_c"]);
    for name in ["strings_c", "helpers_c"] {
        let out = Command::new("valgrind")
            .args(["-q", "--error-exitcode=9", "--leak-check=no"])
            .arg(p.dir.path().join(name))
            .env("TZ", "UTC")
            .env_remove("SLURM_TIME_FORMAT")
            .env("LD_LIBRARY_PATH", p.dir.path().join("lib"))
            .output()
            .expect("valgrind");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
