//! Every row of the state-name vectors taken from real Slurm 22.05 (`tests/vectors/`), checked against
//! `spur_core::model::states`.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use spur_core::model::states::{JobReason, JobState, JobStateName, NodeState};

/// Data rows of a TSV vector file: comment lines and the column header are skipped.
fn rows(text: &str) -> Vec<Vec<&str>> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect()
}

fn hex(s: &str) -> u32 {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

fn check_job_rows(text: &str, with_complete: bool) -> usize {
    let rows = rows(text);
    for r in &rows {
        let state = JobState::from_raw(hex(r[1])).unwrap_or_else(|| panic!("decode {}", r[0]));
        assert_eq!(state.to_raw(), hex(r[1]), "{}", r[0]);
        assert_eq!(state.long_name(), r[2], "long {}", r[0]);
        assert_eq!(state.compact_name(), r[3], "compact {}", r[0]);
        if with_complete {
            assert_eq!(state.complete_name(), r[4], "complete {}", r[0]);
        }
    }
    rows.len()
}

fn check_node_rows(text: &str) -> usize {
    let rows = rows(text);
    for r in &rows {
        let state = NodeState::from_raw(hex(r[1])).unwrap_or_else(|| panic!("decode {}", r[0]));
        assert_eq!(state.to_raw(), hex(r[1]), "{}", r[0]);
        assert_eq!(state.long_name(), r[2], "long {}", r[0]);
        assert_eq!(state.compact_name(), r[3], "compact {}", r[0]);
        assert_eq!(state.complete_name(), r[4], "complete {}", r[0]);
        assert_eq!(state.sinfo_compact(), r[3].to_ascii_lowercase());
    }
    rows.len()
}

#[test]
fn reference_job_state_strings() {
    let n = check_job_rows(
        include_str!("vectors/reference/job_state_strings.tsv"),
        false,
    );
    assert_eq!(n, 64);
}

#[test]
fn generated_job_state_combinations() {
    let n = check_job_rows(include_str!("vectors/job_state_combos.tsv"), true);
    assert!(n > 2000, "{n}");
}

#[test]
fn reference_node_state_strings() {
    assert_eq!(
        check_node_rows(include_str!("vectors/reference/node_state_strings.tsv")),
        63
    );
}

#[test]
fn generated_node_state_combinations() {
    let n = check_node_rows(include_str!("vectors/node_state_combos.tsv"));
    assert!(n > 3000, "{n}");
}

#[test]
fn job_state_num() {
    for r in rows(include_str!("vectors/job_state_num.tsv")) {
        let got = JobStateName::parse(r[0]).map(JobStateName::to_raw);
        let want = (r[1] != "-1").then(|| hex(r[1]));
        assert_eq!(got, want, "{:?}", r[0]);
    }
}

#[test]
fn node_state_str2int() {
    for r in rows(include_str!("vectors/node_state_str2int.tsv")) {
        let got = NodeState::from_config_str(r[0], "n1")
            .ok()
            .map(NodeState::to_raw);
        let want = (r[1] != "error").then(|| hex(r[1]));
        assert_eq!(got, want, "{:?}", r[0]);
    }
}

#[test]
fn job_reason_strings() {
    let rows = rows(include_str!("vectors/job_reason_strings.tsv"));
    assert_eq!(rows.len(), JobReason::ALL.len());
    for r in rows {
        let value: u32 = r[0].parse().unwrap();
        let reason = JobReason::from_raw(value).unwrap();
        assert_eq!(reason.as_raw(), value);
        assert_eq!(reason.c_name(), r[1]);
        assert_eq!(reason.name(), r[2], "{}", r[1]);
        let num: i64 = r[3].parse().unwrap();
        let want = u32::try_from(num).ok();
        assert_eq!(
            JobReason::from_name(r[2]).map(JobReason::as_raw),
            want,
            "{}",
            r[2]
        );
        assert_eq!(
            JobReason::from_name(&r[2].to_ascii_lowercase()).map(JobReason::as_raw),
            want
        );
    }
}
