//! The comparison report: Markdown for people (totals, wall time per target, one row per case, then each
//! difference as a unified diff) and JSON for tools, plus a short summary for the terminal.

use std::fmt::Write as _;

use crate::compare::{Comparison, Outcome};

const OUTCOMES: [Outcome; 6] = [
    Outcome::Pass,
    Outcome::Diff,
    Outcome::KnownDifference,
    Outcome::Error,
    Outcome::Skipped,
    Outcome::PassOnRetry,
];

fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// `pass 98, diff 2, known-difference 1, error 0, skipped 1`.
pub fn totals(c: &Comparison) -> String {
    OUTCOMES
        .iter()
        .map(|o| format!("{} {}", o, c.count(*o)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The whole report in Markdown.
pub fn markdown(c: &Comparison) -> String {
    let (l, r) = (&c.left_target, &c.right_target);
    let mut s = String::new();
    let _ = writeln!(s, "# Conformance: {l} vs {r}\n");
    let _ = writeln!(s, "{} cases: {}\n", c.cases.len(), totals(c));
    let _ = writeln!(s, "| target | wall time |\n| --- | --- |");
    let _ = writeln!(
        s,
        "| {l} | {} |\n| {r} | {} |\n",
        secs(c.left_wall_ms),
        secs(c.right_wall_ms)
    );
    let _ = writeln!(
        s,
        "| case | result | {l} exit | {r} exit | {l} time | {r} time | note |"
    );
    let _ = writeln!(s, "| --- | --- | --- | --- | --- | --- | --- |");
    for case in &c.cases {
        let exit = |side: &Option<crate::compare::Side>| {
            side.as_ref().map(|s| s.exit.clone()).unwrap_or("-".into())
        };
        let time = |side: &Option<crate::compare::Side>| {
            side.as_ref()
                .map(|s| secs(s.duration_ms))
                .unwrap_or("-".into())
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            case.name,
            case.outcome,
            exit(&case.left),
            exit(&case.right),
            time(&case.left),
            time(&case.right),
            case.note
                .as_deref()
                .unwrap_or("")
                .replace('|', "\\|")
                .replace('\n', " ")
        );
    }
    for case in c
        .cases
        .iter()
        .filter(|c| c.diff.is_some() || c.outcome == Outcome::Error)
    {
        let _ = writeln!(s, "\n## {}: {}\n", case.name, case.outcome);
        if let Some(note) = &case.note {
            let _ = writeln!(s, "{note}\n");
        }
        if let Some(diff) = &case.diff {
            let _ = writeln!(s, "```diff\n{}```", ensure_newline(diff));
        }
        for (target, side) in [(l, &case.left), (r, &case.right)] {
            if let Some(side) = side.as_ref().filter(|sd| !sd.leaked_jobs.is_empty()) {
                let _ = writeln!(
                    s,
                    "\n{target} left jobs behind: {}",
                    side.leaked_jobs.join(", ")
                );
            }
        }
    }
    s
}

fn ensure_newline(s: &str) -> String {
    if s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

/// What the terminal gets: one line per case that did not pass, then the totals.
pub fn summary(c: &Comparison) -> String {
    let mut s = String::new();
    for case in c.cases.iter().filter(|c| c.outcome != Outcome::Pass) {
        let _ = writeln!(
            s,
            "{:<18} {}{}",
            case.outcome,
            case.name,
            case.note
                .as_deref()
                .map(|n| format!(": {n}"))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(
        s,
        "{} vs {}: {} cases: {} (wall time {} / {})",
        c.left_target,
        c.right_target,
        c.cases.len(),
        totals(c),
        secs(c.left_wall_ms),
        secs(c.right_wall_ms)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{CaseComparison, Side};

    fn comparison() -> Comparison {
        let side = |exit: &str| Side {
            exit: exit.into(),
            duration_ms: 1500,
            leaked_jobs: vec![],
            normalised: String::new(),
        };
        Comparison {
            left_target: "slurm".into(),
            right_target: "spur".into(),
            left_wall_ms: 61_000,
            right_wall_ms: 30_000,
            cases: vec![
                CaseComparison {
                    name: "001-a".into(),
                    outcome: Outcome::Pass,
                    diff: None,
                    note: None,
                    left: Some(side("0")),
                    right: Some(side("0")),
                },
                CaseComparison {
                    name: "002-b".into(),
                    outcome: Outcome::Diff,
                    diff: Some("--- slurm\n+++ spur\n@@ -1 +1 @@\n-a\n+b\n".into()),
                    note: None,
                    left: Some(side("0")),
                    right: Some(side("1")),
                },
            ],
        }
    }

    #[test]
    fn markdown_has_totals_rows_and_diffs() {
        let c = comparison();
        let md = markdown(&c);
        assert!(
            md.contains("2 cases: pass 1, diff 1, known-difference 0, error 0, skipped 0"),
            "{md}"
        );
        assert!(md.contains("| slurm | 61.0 s |"), "{md}");
        assert!(
            md.contains("| 002-b | diff | 0 | 1 | 1.5 s | 1.5 s |  |"),
            "{md}"
        );
        assert!(
            md.contains("## 002-b: diff\n\n```diff\n--- slurm\n+++ spur\n"),
            "{md}"
        );
        assert!(!md.contains("## 001-a"), "{md}");
        assert!(c.failed());
    }

    #[test]
    fn summary_lists_only_failures() {
        let s = summary(&comparison());
        assert!(s.starts_with("diff               002-b\n"), "{s}");
        assert!(!s.contains("001-a"));
        assert!(s.ends_with("(wall time 61.0 s / 30.0 s)\n"), "{s}");
    }
}
