//! Compares two runs case by case: normalises both transcripts with the context each ran in, compares them as the
//! case asks (exact or whitespace-insensitive) and classifies the result.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use similar::TextDiff;
use thiserror::Error;

use crate::case::{load_case, Case, CaseError, CaseSpec};
use crate::normalise::{for_comparison, normalise, Transcript};
use crate::runner::{load_run, CaseRecord, LoadedRun, RunError};

#[derive(Debug, Error)]
pub enum CompareError {
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Case(#[from] CaseError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Pass,
    Diff,
    /// Differs, and the case declares the difference intentional.
    KnownDifference,
    /// A side timed out, could not run, or lacks the case.
    Error,
    Skipped,
    /// Differed, then was identical when run again on fresh clusters of both: a timing artefact of one side (the
    /// first run's diff stays in the report).
    PassOnRetry,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Diff => "diff",
            Outcome::KnownDifference => "known-difference",
            Outcome::Error => "error",
            Outcome::Skipped => "skipped",
            Outcome::PassOnRetry => "pass-on-retry",
        }
    }

    /// Whether this outcome fails the suite.
    pub fn fails(self) -> bool {
        matches!(self, Outcome::Diff | Outcome::Error)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One side of a case as the report shows it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Side {
    pub exit: String,
    pub duration_ms: u64,
    pub leaked_jobs: Vec<String>,
    /// The normalised transcript.
    pub normalised: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseComparison {
    pub name: String,
    pub outcome: Outcome,
    /// A unified diff of the normalised transcripts (left `---`, right `+++`) when they differ.
    pub diff: Option<String>,
    /// The known difference's reason, the error, or why the case was skipped.
    pub note: Option<String>,
    pub left: Option<Side>,
    pub right: Option<Side>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub left_target: String,
    pub right_target: String,
    pub left_wall_ms: u64,
    pub right_wall_ms: u64,
    pub cases: Vec<CaseComparison>,
}

impl Comparison {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.cases.iter().filter(|c| c.outcome == outcome).count()
    }

    /// Whether any case has an unexpected difference or an error.
    pub fn failed(&self) -> bool {
        self.cases.iter().any(|c| c.outcome.fails())
    }
}

/// Compares the runs in `left` and `right`. Case specs come from `cases_dir`, else from the directory the left
/// run recorded; a case whose directory is gone compares exactly.
/// The cases that differed in `first` and passed in `again` (a run of just those) become `PassOnRetry`; the
/// others keep their first outcome.
pub fn settle_retries(first: &mut Comparison, again: &Comparison) {
    for case in first
        .cases
        .iter_mut()
        .filter(|c| c.outcome == Outcome::Diff)
    {
        let passed = again
            .cases
            .iter()
            .any(|a| a.name == case.name && a.outcome == Outcome::Pass);
        if passed {
            case.outcome = Outcome::PassOnRetry;
            case.note = Some("differed on the first run, identical when run again".to_string());
        }
    }
}

pub fn compare_runs(
    left: &Path,
    right: &Path,
    cases_dir: Option<&Path>,
) -> Result<Comparison, CompareError> {
    let l = load_run(left)?;
    let r = load_run(right)?;
    let dir = cases_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(&l.record.cases_dir));
    let names: BTreeSet<&String> = l.record.cases.iter().chain(r.record.cases.iter()).collect();
    let mut cases = Vec::new();
    for name in names {
        let case_dir = dir.join(name);
        let case = if case_dir.join("run.sh").is_file() {
            load_case(&case_dir)?
        } else {
            Case {
                name: name.clone(),
                dir: case_dir,
                spec: CaseSpec::default(),
            }
        };
        cases.push(compare_case(&case, side(&l, name), side(&r, name), &l, &r));
    }
    Ok(Comparison {
        left_target: l.record.target.clone(),
        right_target: r.record.target.clone(),
        left_wall_ms: l.record.wall_ms,
        right_wall_ms: r.record.wall_ms,
        cases,
    })
}

fn side<'a>(run: &'a LoadedRun, name: &str) -> Option<&'a (CaseRecord, Transcript)> {
    run.cases.get(name)
}

fn make_side(case: &Case, rec: &CaseRecord, t: &Transcript) -> Side {
    Side {
        exit: rec.exit.clone(),
        duration_ms: rec.duration_ms,
        leaked_jobs: rec.leaked_jobs.clone(),
        normalised: normalise(t, &rec.context, &case.spec.replace).render(),
    }
}

/// Classifies one case from its two sides (either may be missing).
pub fn compare_case(
    case: &Case,
    left: Option<&(CaseRecord, Transcript)>,
    right: Option<&(CaseRecord, Transcript)>,
    lrun: &LoadedRun,
    rrun: &LoadedRun,
) -> CaseComparison {
    let l = left.map(|(rec, t)| make_side(case, rec, t));
    let r = right.map(|(rec, t)| make_side(case, rec, t));
    let mut cmp = CaseComparison {
        name: case.name.clone(),
        outcome: Outcome::Pass,
        diff: None,
        note: None,
        left: l.clone(),
        right: r.clone(),
    };
    let (Some((lrec, _)), Some((rrec, _)), Some(ls), Some(rs)) = (left, right, &l, &r) else {
        let missing = if left.is_none() {
            &lrun.record.target
        } else {
            &rrun.record.target
        };
        cmp.outcome = Outcome::Error;
        cmp.note = Some(format!("not run on {missing}"));
        return cmp;
    };
    if let (Some(a), Some(_)) | (None, Some(a)) | (Some(a), None) = (&lrec.skipped, &rrec.skipped) {
        cmp.outcome = Outcome::Skipped;
        cmp.note = Some(a.clone());
        return cmp;
    }
    let problems: Vec<String> = [(lrec, &lrun.record.target), (rrec, &rrun.record.target)]
        .iter()
        .filter_map(|(rec, target)| match (&rec.error, rec.exit.as_str()) {
            (Some(e), _) => Some(format!("{target}: {e}")),
            (None, "timeout") => Some(format!(
                "{target}: timed out after {} s",
                case.spec.timeout_s
            )),
            _ => None,
        })
        .collect();
    let a = for_comparison(&ls.normalised, case.spec.compare);
    let b = for_comparison(&rs.normalised, case.spec.compare);
    if a != b {
        cmp.diff = Some(unified_diff(
            &ls.normalised,
            &rs.normalised,
            &lrun.record.target,
            &rrun.record.target,
        ));
    }
    if !problems.is_empty() {
        cmp.outcome = Outcome::Error;
        cmp.note = Some(problems.join("; "));
    } else if a != b {
        match &case.spec.known_difference {
            Some(reason) => {
                cmp.outcome = Outcome::KnownDifference;
                cmp.note = Some(reason.clone());
            }
            None => cmp.outcome = Outcome::Diff,
        }
    } else if case.spec.known_difference.is_some() {
        cmp.note = Some(
            "declared a known difference, but the outputs are equal: drop the declaration".into(),
        );
    }
    cmp
}

/// A unified diff with three lines of context.
pub fn unified_diff(a: &str, b: &str, a_label: &str, b_label: &str) -> String {
    TextDiff::from_lines(a, b)
        .unified_diff()
        .context_radius(3)
        .header(a_label, b_label)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::CompareMode;
    use crate::normalise::Context;
    use crate::runner::RunRecord;

    fn run(target: &str) -> LoadedRun {
        LoadedRun {
            record: RunRecord {
                target: target.into(),
                cases_dir: String::new(),
                wall_ms: 0,
                cases: vec![],
            },
            cases: Default::default(),
        }
    }

    fn side(work: &str, stdout: &str, exit: &str) -> (CaseRecord, Transcript) {
        (
            CaseRecord {
                name: "001-x".into(),
                context: Context {
                    work_dir: work.into(),
                    ..Context::default()
                },
                exit: exit.into(),
                ..CaseRecord::default()
            },
            Transcript {
                stdout: stdout.into(),
                stderr: String::new(),
                exit: exit.into(),
            },
        )
    }

    fn case(spec: CaseSpec) -> Case {
        Case {
            name: "001-x".into(),
            dir: PathBuf::new(),
            spec,
        }
    }

    /// One case compared between a Slurm run and a Spur run.
    fn compare_pair(
        case: &Case,
        slurm: Option<&(CaseRecord, Transcript)>,
        spur: Option<&(CaseRecord, Transcript)>,
    ) -> CaseComparison {
        compare_case(case, slurm, spur, &run("slurm"), &run("spur"))
    }

    #[test]
    fn equal_after_normalisation_passes() {
        let a = side(
            "/a/w",
            "Submitted batch job 5001\n/a/w/slurm-5001.out\n",
            "0",
        );
        let b = side("/bb/w", "Submitted batch job 7\n/bb/w/slurm-7.out\n", "0");
        let c = compare_pair(&case(CaseSpec::default()), Some(&a), Some(&b));
        assert_eq!(c.outcome, Outcome::Pass, "{:?}", c.diff);
        assert!(c.diff.is_none());
    }

    #[test]
    fn a_difference_gives_a_readable_diff() {
        let a = side("/a", "JobState=COMPLETED\n", "0");
        let b = side("/a", "JobState=COMPLETE\n", "0");
        let c = compare_pair(&case(CaseSpec::default()), Some(&a), Some(&b));
        assert_eq!(c.outcome, Outcome::Diff);
        let d = c.diff.unwrap();
        assert!(d.contains("--- slurm\n+++ spur\n"), "{d}");
        assert!(
            d.contains("-JobState=COMPLETED\n+JobState=COMPLETE\n"),
            "{d}"
        );
    }

    #[test]
    fn exit_status_counts() {
        let a = side("/a", "x\n", "0");
        let b = side("/a", "x\n", "1");
        let c = compare_pair(&case(CaseSpec::default()), Some(&a), Some(&b));
        assert_eq!(c.outcome, Outcome::Diff);
    }

    #[test]
    fn known_difference_and_stale_declaration() {
        let spec = CaseSpec {
            known_difference: Some("Spur refuses at submit".into()),
            ..CaseSpec::default()
        };
        let a = side("/a", "pending\n", "0");
        let b = side("/a", "refused\n", "1");
        let c = compare_pair(&case(spec.clone()), Some(&a), Some(&b));
        assert_eq!(c.outcome, Outcome::KnownDifference);
        assert!(!c.outcome.fails());
        let c = compare_case(&case(spec), Some(&a), Some(&a), &run("slurm"), &run("spur"));
        assert_eq!(c.outcome, Outcome::Pass);
        assert!(c.note.unwrap().contains("drop the declaration"));
    }

    #[test]
    fn whitespace_mode() {
        let spec = CaseSpec {
            compare: CompareMode::Whitespace,
            ..CaseSpec::default()
        };
        let a = side("/a", "  ID  NAME\n  JobId=5001  wrap\n", "0");
        let b = side("/a", "ID NAME\n JobId=7 wrap\n", "0");
        let c = compare_case(&case(spec), Some(&a), Some(&b), &run("slurm"), &run("spur"));
        assert_eq!(c.outcome, Outcome::Pass);
        let c = compare_pair(&case(CaseSpec::default()), Some(&a), Some(&b));
        assert_eq!(c.outcome, Outcome::Diff);
    }

    #[test]
    fn timeouts_missing_and_skipped() {
        let a = side("/a", "", "timeout");
        let b = side("/a", "", "0");
        let c = compare_pair(&case(CaseSpec::default()), Some(&a), Some(&b));
        assert_eq!(c.outcome, Outcome::Error);
        assert!(c.note.unwrap().starts_with("slurm: timed out"));
        let c = compare_pair(&case(CaseSpec::default()), Some(&b), None);
        assert_eq!(
            (c.outcome, c.note.as_deref()),
            (Outcome::Error, Some("not run on spur"))
        );
        let mut s = side("/a", "", "skipped");
        s.0.skipped = Some("needs multinode".into());
        let c = compare_pair(&case(CaseSpec::default()), Some(&s), Some(&s));
        assert_eq!(c.outcome, Outcome::Skipped);
    }

    #[test]
    fn a_difference_gone_on_the_second_run_passes_on_retry_and_a_lasting_one_fails() {
        let of = |outcomes: &[(&str, Outcome)]| Comparison {
            left_target: "slurm".into(),
            right_target: "spur".into(),
            left_wall_ms: 0,
            right_wall_ms: 0,
            cases: outcomes
                .iter()
                .map(|(name, outcome)| CaseComparison {
                    name: name.to_string(),
                    outcome: *outcome,
                    diff: None,
                    note: None,
                    left: None,
                    right: None,
                })
                .collect(),
        };
        let mut first = of(&[
            ("1-timing", Outcome::Diff),
            ("2-real", Outcome::Diff),
            ("3-fine", Outcome::Pass),
        ]);
        let again = of(&[("1-timing", Outcome::Pass), ("2-real", Outcome::Diff)]);
        settle_retries(&mut first, &again);
        let outcomes: Vec<Outcome> = first.cases.iter().map(|c| c.outcome).collect();
        assert_eq!(
            outcomes,
            vec![Outcome::PassOnRetry, Outcome::Diff, Outcome::Pass]
        );
        assert!(first.failed());
        assert!(!Outcome::PassOnRetry.fails());
    }
}
