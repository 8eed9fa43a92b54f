//! Normalisation: maps everything that legitimately differs between two runs of the same case (job ids, times,
//! durations, PIDs, hostnames, ports, paths, priorities) to placeholders, so that what remains can be compared as
//! text. Pure string functions; the runner records the context a case ran in and the comparison applies these.

mod ids;
mod rules;

use serde::{Deserialize, Serialize};

use crate::case::{CompareMode, Replacement};

pub use ids::IdMap;

/// Facts about where a case ran, needed to recognise run-specific values in its output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Context {
    /// The node's name (the short hostname).
    pub host: String,
    /// The case's fresh work directory (shown as `$SUBMIT_DIR`).
    pub work_dir: String,
    /// The target's run directory (shown as `$RUNDIR`).
    pub run_dir: String,
    /// The case's own directory (shown as `$CASE_DIR`).
    pub case_dir: String,
    /// The runner's scratch directory for the case (shown as `$CASE_TMP`).
    pub case_tmp: String,
    /// `SlurmctldPort` and `SlurmdPort` of the target's slurm.conf, as written there.
    pub ctld_port: Option<String>,
    pub slurmd_port: Option<String>,
    /// The controller's address (`SlurmctldHost=host(ADDR)`). On a multi-node target it lies on a private /24 of
    /// that target's own, whose addresses become `{NET}.N`.
    #[serde(default)]
    pub ctld_addr: Option<String>,
    /// Job ids the case's helpers recorded as submitted (`$CASE_TMP/jobs`), known to be ids wherever they appear.
    #[serde(default)]
    pub job_ids: Vec<String>,
}

/// What a case printed and how it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transcript {
    pub stdout: String,
    pub stderr: String,
    /// `0`, `3`, `signal 9`, `timeout`, ...
    pub exit: String,
}

impl Transcript {
    /// The form that is diffed and shown in reports.
    pub fn render(&self) -> String {
        let mut s = String::with_capacity(self.stdout.len() + self.stderr.len() + 64);
        s.push_str("--- stdout ---\n");
        push_block(&mut s, &self.stdout);
        s.push_str("--- stderr ---\n");
        push_block(&mut s, &self.stderr);
        s.push_str("--- exit: ");
        s.push_str(&self.exit);
        s.push_str(" ---\n");
        s
    }
}

fn push_block(s: &mut String, block: &str) {
    s.push_str(block);
    if !block.is_empty() && !block.ends_with('\n') {
        s.push_str("\n\\ no newline at end\n");
    }
}

/// Normalises a transcript: the case's own replacements first, then the built-in rules, then job ids (numbered
/// in order of first appearance across stdout and stderr, so the same id gets the same placeholder in both).
pub fn normalise(t: &Transcript, ctx: &Context, case_rules: &[Replacement]) -> Transcript {
    let apply = |text: &str| {
        let mut s = text.to_string();
        for r in case_rules {
            s = r.regex.replace_all(&s, r.with.as_str()).into_owned();
        }
        rules::apply_all(&s, ctx)
    };
    let stdout = apply(&t.stdout);
    let stderr = apply(&t.stderr);
    let ids = IdMap::learn_with(&[&stdout, &stderr], &ctx.job_ids);
    Transcript {
        stdout: ids.apply(&stdout),
        stderr: ids.apply(&stderr),
        exit: t.exit.clone(),
    }
}

/// Brings a rendered transcript to the form compared under `mode`.
pub fn for_comparison(rendered: &str, mode: CompareMode) -> String {
    match mode {
        CompareMode::Exact => rendered.to_string(),
        CompareMode::Whitespace => rendered
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use regex::Regex;

    fn ctx() -> Context {
        Context {
            host: "vm".into(),
            work_dir: "/tmp/out/work/001-x".into(),
            run_dir: "/tmp/spur-conf-slurm".into(),
            case_dir: "/repo/conformance/cases/001-x".into(),
            case_tmp: "/tmp/out/tmp/001-x".into(),
            ctld_port: Some("6870".into()),
            slurmd_port: Some("6871".into()),
            ctld_addr: None,
            job_ids: Vec::new(),
        }
    }

    #[test]
    fn ids_are_consistent_across_stdout_and_stderr() {
        let t = Transcript {
            stdout: "Submitted batch job 5003\nSubmitted batch job 5001\n".into(),
            stderr: "scancel: error: Kill job error on job id 5001: x\ncat: slurm-5003.out\n"
                .into(),
            exit: "0".into(),
        };
        let n = normalise(&t, &ctx(), &[]);
        assert_eq!(
            n.stdout,
            "Submitted batch job {JOB1}\nSubmitted batch job {JOB2}\n"
        );
        assert_eq!(
            n.stderr,
            "scancel: error: Kill job error on job id {JOB2}: x\ncat: slurm-{JOB1}.out\n"
        );
    }

    #[test]
    fn scontrol_show_job_normalises() {
        let raw = "JobId=5001 JobName=wrap\n   Priority=4294901759 Nice=0\n   RunTime=00:00:01 TimeLimit=00:05:00\n   \
                   SubmitTime=2026-11-30T14:57:35 EligibleTime=2026-11-30T14:57:35\n   Partition=debug \
                   AllocNode:Sid=vm:2653\n   NodeList=vm\n   StdOut=/tmp/out/work/001-x/slurm-5001.out\n";
        let t = Transcript {
            stdout: raw.into(),
            ..Transcript::default()
        };
        let n = normalise(&t, &ctx(), &[]);
        assert_eq!(
            n.stdout,
            "JobId={JOB1} JobName=wrap\n   Priority={PRIO} Nice=0\n   RunTime={DUR} TimeLimit=00:05:00\n   \
             SubmitTime={TIME} EligibleTime={TIME}\n   Partition=debug AllocNode:Sid={HOST}:{PID}\n   \
             NodeList={HOST}\n   StdOut=$SUBMIT_DIR/slurm-{JOB1}.out\n"
        );
    }

    #[test]
    fn case_rules_run_first() {
        let rules = [Replacement {
            regex: Regex::new(r"(?m)^\d+ ").unwrap(),
            with: "{PID} ".into(),
        }];
        let t = Transcript {
            stdout: "12345 5001 batch\n".into(),
            stderr: "JobId=5001\n".into(),
            exit: "0".into(),
        };
        let n = normalise(&t, &ctx(), &rules);
        assert_eq!(n.stdout, "{PID} {JOB1} batch\n");
    }

    #[test]
    fn render_marks_missing_newline() {
        let t = Transcript {
            stdout: "a".into(),
            stderr: String::new(),
            exit: "signal 9".into(),
        };
        assert_eq!(
            t.render(),
            "--- stdout ---\na\n\\ no newline at end\n--- stderr ---\n--- exit: signal 9 ---\n"
        );
    }

    #[test]
    fn whitespace_mode_ignores_column_padding() {
        let a = "  JOBID  NAME\n   {JOB1}  wrap  \n";
        let b = "JOBID NAME\n {JOB1} wrap\n";
        assert_eq!(
            for_comparison(a, CompareMode::Whitespace),
            for_comparison(b, CompareMode::Whitespace)
        );
        assert_ne!(
            for_comparison(a, CompareMode::Exact),
            for_comparison(b, CompareMode::Exact)
        );
    }
}
