//! `spur scontrol show hostnames|hostlist|hostlistsorted` as a process, without any controller or slurm.conf,
//! against every row captured from real scontrol 22.05 (core/tests/vectors/hostlist/).

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn unescape(field: &str) -> String {
    let mut out = String::new();
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('v') => out.push('\x0b'),
            Some('f') => out.push('\x0c'),
            other => panic!("bad escape {other:?} in {field:?}"),
        }
    }
    out
}

fn check(what: &str, tsv: &str) {
    let mut failures = Vec::new();
    let mut rows = 0;
    for line in tsv.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [input, exit, stdout, stderr] = fields[..] else {
            panic!("malformed row {line:?}");
        };
        let input = unescape(input);
        // Rows whose input holds a newline or starts with '-' cannot be passed the same way on every shell; the
        // pure renderer covers them (core/tests/hostlist).
        if input.contains('\n') || input.starts_with('-') || input.is_empty() {
            continue;
        }
        if spur_core::grammar::hostlist::scontrol::DELIBERATE_DEVIATIONS.contains(&input.as_str()) {
            continue;
        }
        rows += 1;
        let out = Command::new(env!("CARGO_BIN_EXE_spur"))
            .args(["scontrol", "show", what, &input])
            .env_remove("SLURM_CONF")
            .env_remove("SLURM_JOB_NODELIST")
            .output()
            .expect("run spur");
        let got = (
            out.status.code().unwrap_or(-1).to_string(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        let want = (exit.to_string(), unescape(stdout), unescape(stderr));
        if got != want {
            failures.push(format!("{what} {input:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(rows > 100, "too few rows checked for {what}");
    assert!(
        failures.is_empty(),
        "{} of {rows} rows differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn show_hostnames_matches_scontrol() {
    check(
        "hostnames",
        include_str!("../../core/tests/vectors/hostlist/hostnames.tsv"),
    );
}

#[test]
fn show_hostlist_matches_scontrol() {
    check(
        "hostlist",
        include_str!("../../core/tests/vectors/hostlist/hostlist.tsv"),
    );
}

#[test]
fn show_hostlistsorted_matches_scontrol() {
    check(
        "hostlistsorted",
        include_str!("../../core/tests/vectors/hostlist/hostlistsorted.tsv"),
    );
}

#[test]
fn hostnames_defaults_to_the_job_nodelist() {
    let out = Command::new(env!("CARGO_BIN_EXE_spur"))
        .args(["scontrol", "show", "hostnames"])
        .env("SLURM_JOB_NODELIST", "n[1-2]")
        .output()
        .expect("run spur");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "n1\nn2\n");
    assert!(out.status.success());
}
