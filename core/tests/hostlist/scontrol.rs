//! Every row of the vectors captured from `scontrol show hostnames|hostlist|hostlistsorted` (see
//! `core/tests/vectors/gen-hostlist.sh`) replayed through the hostlist API, rendering what scontrol would print.

use spur_core::grammar::hostlist::scontrol::{render, Rendered as Outcome, Show};
use spur_core::grammar::hostlist::Hostlist;

fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
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
            other => panic!("bad escape \\{other:?} in {field:?}"),
        }
    }
    out
}

/// The rows of one TSV: input and the outcome scontrol had.
fn rows(tsv: &str) -> Vec<(String, Outcome)> {
    let mut lines = tsv.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(lines.next(), Some("input\texit\tstdout\tstderr"));
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 4, "row {line:?}");
            let outcome = Outcome {
                exit: fields[1].parse().unwrap(),
                stdout: unescape(fields[2]),
                stderr: unescape(fields[3]),
            };
            (unescape(fields[0]), outcome)
        })
        .collect()
}

/// Inputs where Spur deliberately differs from Slurm 22.05, where Slurm's arithmetic wraps around or it reads
/// memory it has freed, with what Spur gives instead.
const DEVIATIONS: &[(Show, &str, &str)] = &[
    // Sorting puts 8-12 (no padding) before 07-12 (padded); once 8-12 is split, Slurm finds 12 overlapping 07-12,
    // shortens the padded run to nothing, frees it, and drops its six hosts.
    (
        Show::HostlistSorted,
        "z9y[07-12,8-12,8-12]",
        "z9y[8,8-9,9-10,10-11,11-12,12,07-12]\n",
    ),
    (
        Show::HostlistSorted,
        "n[8-12,8-12,07-12]",
        "n[8,8-9,9-10,10-11,11-12,12,07-12]\n",
    ),
    (
        Show::HostlistSorted,
        "z9y[00-00,6-10,5-10]",
        "z9y[5-6,6-7,7-8,8-9,9-10,10,00]\n",
    ),
    // Slurm counts `hi - lo + 1` in 64 bits, which wraps to 0 and lets the range through as an empty one.
    (
        Show::Hostnames,
        "n[0-99999999999999999999]",
        "too many hosts",
    ),
    (
        Show::Hostlist,
        "n[0-99999999999999999999]",
        "too many hosts",
    ),
    (
        Show::HostlistSorted,
        "n[0-99999999999999999999]",
        "too many hosts",
    ),
    // Slurm joins n18446744073709551615 and n0 as consecutive numbers (18446744073709551615 + 1 wraps to 0),
    // then prints the first of them cut short.
    (
        Show::Hostnames,
        "n18446744073709551615,n0",
        "n18446744073709551615\nn0\n",
    ),
    (
        Show::Hostlist,
        "n18446744073709551615,n0",
        "n[18446744073709551615,0]\n",
    ),
    (
        Show::HostlistSorted,
        "n18446744073709551615,n0",
        "n[0,18446744073709551615]\n",
    ),
    // Slurm's sort compares numbers as a truncated 32-bit difference, misorders these and loses n0.
    (Show::HostlistSorted, "n3000000000,n0", "n[0,3000000000]\n"),
    (Show::HostlistSorted, "n0,n3000000000", "n[0,3000000000]\n"),
];

fn check(what: Show, tsv: &str) {
    let mut failures = Vec::new();
    let rows = rows(tsv);
    assert!(rows.len() > 300, "only {} rows", rows.len());
    for (input, expected) in &rows {
        let got = render(what, input);
        if let Some((_, _, ours)) = DEVIATIONS.iter().find(|(w, i, _)| *w == what && i == input) {
            let matches = if *ours == "too many hosts" {
                got.stderr.contains("Too many hosts in range")
                    && got.exit == expected.exit.max(got.exit)
            } else {
                got.stdout == *ours
            };
            assert!(
                matches,
                "{what:?} {input:?}: deviation not as documented: {got:?}"
            );
            assert_ne!(
                got, *expected,
                "{what:?} {input:?} is listed as a deviation but matches Slurm"
            );
            continue;
        }
        if got != *expected {
            failures.push(format!(
                "{what:?} {input:?}\n  slurm: {expected:?}\n  spur:  {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn show_hostnames_vectors() {
    check(
        Show::Hostnames,
        include_str!("../vectors/hostlist/hostnames.tsv"),
    );
}

#[test]
fn show_hostlist_vectors() {
    check(
        Show::Hostlist,
        include_str!("../vectors/hostlist/hostlist.tsv"),
    );
}

#[test]
fn show_hostlistsorted_vectors() {
    check(
        Show::HostlistSorted,
        include_str!("../vectors/hostlist/hostlistsorted.tsv"),
    );
}

#[test]
fn every_deviation_is_in_the_vectors() {
    let all = [
        (
            Show::Hostnames,
            include_str!("../vectors/hostlist/hostnames.tsv"),
        ),
        (
            Show::Hostlist,
            include_str!("../vectors/hostlist/hostlist.tsv"),
        ),
        (
            Show::HostlistSorted,
            include_str!("../vectors/hostlist/hostlistsorted.tsv"),
        ),
    ];
    for (what, input, _) in DEVIATIONS {
        let (_, tsv) = all.iter().find(|(w, _)| w == what).unwrap();
        assert!(
            rows(tsv).iter().any(|(i, _)| i == input),
            "{what:?} {input:?} missing"
        );
    }
}

#[test]
fn too_many_ranges_is_fatal() {
    // 262145 ranges in one bracket: too long for a command line, so checked here rather than in the vectors
    // (real scontrol, given it through `show hostlist /path/to/file`, printed exactly this and exited 1).
    let expr = format!("n[{}]", vec!["1"; 262_145].join(","));
    assert!(Hostlist::parse(&expr).unwrap_err().is_fatal());
    let out = render(Show::Hostlist, &expr);
    assert_eq!(
        out.stderr,
        "scontrol: fatal: _parse_range_list: Too many ranges, can't process entire list\n"
    );
    assert_eq!(out.exit, 1);
    let ok = format!("n[{}]", vec!["1"; 262_144].join(","));
    assert_eq!(Hostlist::parse(&ok).unwrap().len(), 262_144);
}
