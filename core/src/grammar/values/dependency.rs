//! Job dependencies: `-d/--dependency=<type:job_id[:job_id]...>[,|?...]` and the way scontrol (`Dependency=`) and
//! squeue (`%E`) print them: `afterok:12_*(unfulfilled),singleton(unfulfilled)`.
//!
//! Slurm 22.05 semantics, as slurmctld applies them: types `after`, `afterany`, `afternotok`, `afterok`,
//! `aftercorr`, `afterburstbuffer` (any case) take `:`-separated job ids, each optionally `_<task>` or `_*` and
//! `+<minutes>` (a time carries over to the following ids of the same clause); `singleton` stands alone; a bare job
//! id means `afterany`, but only when no `:` follows anywhere. Clauses are separated by `,` (all must be satisfied)
//! or `?` (any one); a single `?` makes the whole list "any". Repeated entries are dropped. Text after a `+time` that
//! is not a separator ends the specification (Slurm ignores the rest).

use std::fmt;

/// The kind of a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum DepKind {
    /// `after`: the job has started (or been cancelled), plus an optional delay.
    After,
    /// `afterany`: the job has ended in any way.
    AfterAny,
    /// `afternotok`: the job has failed.
    AfterNotOk,
    /// `afterok`: the job has completed successfully.
    AfterOk,
    /// `aftercorr`: the array task with the same index has completed successfully.
    AfterCorr,
    /// `afterburstbuffer`: the job has ended and its burst buffer stage-out is done.
    AfterBurstBuffer,
    /// `singleton`: no other job of the same name and user is running or suspended.
    Singleton,
}

impl DepKind {
    /// The name Slurm prints.
    pub fn name(self) -> &'static str {
        match self {
            DepKind::After => "after",
            DepKind::AfterAny => "afterany",
            DepKind::AfterNotOk => "afternotok",
            DepKind::AfterOk => "afterok",
            DepKind::AfterCorr => "aftercorr",
            DepKind::AfterBurstBuffer => "afterburstbuffer",
            DepKind::Singleton => "singleton",
        }
    }

    fn from_name(name: &str) -> Option<DepKind> {
        [
            DepKind::After,
            DepKind::AfterAny,
            DepKind::AfterNotOk,
            DepKind::AfterOk,
            DepKind::AfterCorr,
            DepKind::AfterBurstBuffer,
        ]
        .into_iter()
        .find(|k| k.name().eq_ignore_ascii_case(name))
    }
}

/// Which part of an array job a dependency names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ArraySel {
    /// `_<n>`: one task.
    Task(u32),
    /// `_*`: every task (slurmctld also shows a plain id of an array job this way).
    All,
}

/// The job a dependency waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct DepJob {
    /// The job id.
    pub job_id: u32,
    /// The array task part, if any.
    pub array: Option<ArraySel>,
}

impl fmt::Display for DepJob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.job_id)?;
        match self.array {
            Some(ArraySel::Task(t)) => write!(f, "_{t}"),
            Some(ArraySel::All) => f.write_str("_*"),
            None => Ok(()),
        }
    }
}

/// One dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Dependency {
    /// Its kind.
    pub kind: DepKind,
    /// The job waited for (none for `singleton`).
    pub job: Option<DepJob>,
    /// `+<minutes>` delay.
    pub minutes: Option<u32>,
}

/// A parsed `--dependency`.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct DependencySpec {
    /// The dependencies, in order, without repeats.
    pub deps: Vec<Dependency>,
    /// True when any one dependency suffices (`?`), false when all are needed (`,`).
    pub any: bool,
}

/// How far a dependency is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum DepState {
    /// Not yet satisfied.
    Unfulfilled,
    /// Satisfied.
    Fulfilled,
    /// Can never be satisfied.
    Failed,
}

impl DepState {
    /// The word Slurm prints in parentheses.
    pub fn name(self) -> &'static str {
        match self {
            DepState::Unfulfilled => "unfulfilled",
            DepState::Fulfilled => "fulfilled",
            DepState::Failed => "failed",
        }
    }
}

/// A rejected dependency (sbatch prints it after "Batch job submission failed: ").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DependencyError {
    /// Malformed.
    #[error("Job dependency problem")]
    Invalid,
    /// `expand`, which Slurm 22.05 no longer supports.
    #[error("Requested operation not supported on this system")]
    NotSupported,
}

/// Slurm stores the delay in seconds in 32 bits; longer delays are refused rather than wrapped.
const MAX_MINUTES: i64 = (u32::MAX / 60) as i64;

fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// `strtol`: the value (saturated) and the rest, or `(0, text)` without digits.
fn strtol(text: &str) -> (i64, &str) {
    let body = text.trim_start_matches(is_c_space);
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    let digits = unsigned.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return (0, text);
    }
    let magnitude = unsigned[..digits].parse::<i64>().unwrap_or(i64::MAX);
    (
        if body.starts_with('-') {
            -magnitude
        } else {
            magnitude
        },
        &unsigned[digits..],
    )
}

/// A job id with its optional array part; returns it and the rest.
fn job_ref(text: &str) -> Result<(DepJob, &str), DependencyError> {
    let (id, rest) = strtol(text);
    let job_id = u32::try_from(id)
        .ok()
        .filter(|id| *id > 0)
        .ok_or(DependencyError::Invalid)?;
    let Some(after) = rest.strip_prefix('_') else {
        return Ok((
            DepJob {
                job_id,
                array: None,
            },
            rest,
        ));
    };
    if let Some(rest) = after.strip_prefix('*') {
        return Ok((
            DepJob {
                job_id,
                array: Some(ArraySel::All),
            },
            rest,
        ));
    }
    let (task, rest) = strtol(after);
    let task = u32::try_from(task).map_err(|_| DependencyError::Invalid)?;
    // NO_VAL as a task means the whole job.
    let array = (task != super::NO_VAL).then_some(ArraySel::Task(task));
    Ok((DepJob { job_id, array }, rest))
}

/// Where parsing goes after a clause.
enum Next<'a> {
    /// Another clause follows this separator.
    Clause(char, &'a str),
    /// Nothing more is read.
    Done,
}

fn after_item(rest: &str) -> Result<Next<'_>, DependencyError> {
    let mut chars = rest.chars();
    match chars.next() {
        None => Ok(Next::Done),
        Some(sep @ (',' | '?')) => Ok(Next::Clause(sep, chars.as_str())),
        Some(_) => Err(DependencyError::Invalid),
    }
}

fn push_unique(deps: &mut Vec<Dependency>, dep: Dependency) {
    if !deps.iter().any(|d| d.kind == dep.kind && d.job == dep.job) {
        deps.push(dep);
    }
}

/// `type:id[:id...]`, from just after the colon.
fn typed_clause<'a>(
    kind: DepKind,
    mut rest: &'a str,
    deps: &mut Vec<Dependency>,
) -> Result<Next<'a>, DependencyError> {
    let mut minutes = None;
    loop {
        let (job, after) = job_ref(rest)?;
        rest = after;
        let timed = rest.strip_prefix('+');
        if let Some(time) = timed {
            let (m, after) = strtol(time);
            if m <= 0 || m > MAX_MINUTES {
                return Err(DependencyError::Invalid);
            }
            minutes = u32::try_from(m).ok();
            rest = after;
        }
        push_unique(
            deps,
            Dependency {
                kind,
                job: Some(job),
                minutes,
            },
        );
        if let Some(next) = rest.strip_prefix(':') {
            rest = next;
            continue;
        }
        return match after_item(rest) {
            // Slurm stops reading at whatever follows a time.
            Err(_) if timed.is_some() => Ok(Next::Done),
            other => other,
        };
    }
}

fn clause<'a>(text: &'a str, deps: &mut Vec<Dependency>) -> Result<Next<'a>, DependencyError> {
    if text
        .get(..9)
        .is_some_and(|w| w.eq_ignore_ascii_case("singleton"))
    {
        push_unique(
            deps,
            Dependency {
                kind: DepKind::Singleton,
                job: None,
                minutes: None,
            },
        );
        return after_item(&text[9..]);
    }
    match text.split_once(':') {
        // The old bare form, only recognised when no ':' follows anywhere.
        None if text.starts_with(|c: char| c.is_ascii_digit()) => {
            let (job, rest) = job_ref(text)?;
            push_unique(
                deps,
                Dependency {
                    kind: DepKind::AfterAny,
                    job: Some(job),
                    minutes: None,
                },
            );
            match after_item(rest)? {
                Next::Clause('?', _) => Err(DependencyError::Invalid),
                next => Ok(next),
            }
        }
        None => Err(DependencyError::Invalid),
        Some((name, _)) if name.eq_ignore_ascii_case("expand") => {
            Err(DependencyError::NotSupported)
        }
        Some((name, rest)) => {
            let kind = DepKind::from_name(name).ok_or(DependencyError::Invalid)?;
            typed_clause(kind, rest, deps)
        }
    }
}

/// Parses `--dependency`; an empty value means no dependency.
pub fn parse_dependency(input: &str) -> Result<DependencySpec, DependencyError> {
    let mut spec = DependencySpec::default();
    if input.is_empty() {
        return Ok(spec);
    }
    let mut rest = input;
    loop {
        match clause(rest, &mut spec.deps)? {
            Next::Done => return Ok(spec),
            Next::Clause(sep, next) => {
                spec.any |= sep == '?';
                if next.is_empty() {
                    return Err(DependencyError::Invalid);
                }
                rest = next;
            }
        }
    }
}

impl fmt::Display for Dependency {
    /// One entry without its state: `afterok:12_*`, `after:5+10`, `singleton`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        if let Some(job) = self.job {
            write!(f, ":{job}")?;
        }
        if let Some(m) = self.minutes {
            write!(f, "+{m}")?;
        }
        Ok(())
    }
}

/// Formats dependencies with their states as scontrol's `Dependency=` and squeue's `%E`:
/// `afterok:21(unfulfilled),afterany:33(unfulfilled)`, joined by `?` when any one suffices, `(null)` when empty.
pub fn format_dependency(entries: &[(Dependency, DepState)], any: bool) -> String {
    if entries.is_empty() {
        return "(null)".to_string();
    }
    let sep = if any { "?" } else { "," };
    entries
        .iter()
        .map(|(dep, state)| format!("{dep}({})", state.name()))
        .collect::<Vec<_>>()
        .join(sep)
}

impl fmt::Display for DependencySpec {
    /// The specification as submitted, every entry unfulfilled (what scontrol shows right after submission).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries: Vec<(Dependency, DepState)> = self
            .deps
            .iter()
            .map(|d| (*d, DepState::Unfulfilled))
            .collect();
        f.write_str(&format_dependency(&entries, self.any))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(input: &str) -> Result<String, DependencyError> {
        parse_dependency(input).map(|s| s.to_string())
    }

    #[test]
    fn clauses_and_separators() {
        assert_eq!(shown("afterok:21").unwrap(), "afterok:21(unfulfilled)");
        assert_eq!(
            shown("afterany:32:33").unwrap(),
            "afterany:32(unfulfilled),afterany:33(unfulfilled)"
        );
        assert_eq!(
            shown("afterok:1?afternotok:2").unwrap(),
            "afterok:1(unfulfilled)?afternotok:2(unfulfilled)"
        );
        assert_eq!(
            shown("afterok:1?afterok:2,afterany:1")
                .unwrap()
                .matches('?')
                .count(),
            2
        );
        assert_eq!(shown("singleton").unwrap(), "singleton(unfulfilled)");
        assert_eq!(
            shown("SINGLETON,12").unwrap(),
            "singleton(unfulfilled),afterany:12(unfulfilled)"
        );
        assert_eq!(shown("").unwrap(), "(null)");
    }

    #[test]
    fn job_forms_and_times() {
        assert_eq!(shown("afterok:12_3").unwrap(), "afterok:12_3(unfulfilled)");
        assert_eq!(shown("afterok:12_*").unwrap(), "afterok:12_*(unfulfilled)");
        assert_eq!(
            shown("after:5+10:6").unwrap(),
            "after:5+10(unfulfilled),after:6+10(unfulfilled)"
        );
        assert_eq!(
            shown("after:5:6+10").unwrap(),
            "after:5(unfulfilled),after:6+10(unfulfilled)"
        );
        assert_eq!(shown("after:5+10x:6").unwrap(), "after:5+10(unfulfilled)");
        assert_eq!(
            shown("afterok:5:5,afterok:5").unwrap(),
            "afterok:5(unfulfilled)"
        );
    }

    #[test]
    fn errors() {
        for bad in [
            "bogus:1",
            "afterok",
            "afterok:",
            "afterok:abc",
            "afterok:1,",
            ",afterok:1",
            "afterok:1 ",
            "1:2",
            "1+5",
            "1?2",
            "singleton:5",
            "singleton ",
            "after:1+0",
            "after:1+-5",
            "afterok:0",
            "1,afterok:2",
            "afterok:1_x",
        ] {
            assert_eq!(
                parse_dependency(bad),
                Err(DependencyError::Invalid),
                "{bad:?}"
            );
        }
        assert_eq!(
            parse_dependency("expand:1"),
            Err(DependencyError::NotSupported)
        );
        assert_eq!(
            DependencyError::Invalid.to_string(),
            "Job dependency problem"
        );
    }

    #[test]
    fn states_print_as_scontrol() {
        let dep = Dependency {
            kind: DepKind::AfterOk,
            job: Some(DepJob {
                job_id: 21,
                array: None,
            }),
            minutes: None,
        };
        assert_eq!(
            format_dependency(&[(dep, DepState::Failed)], false),
            "afterok:21(failed)"
        );
        let all = Dependency {
            job: Some(DepJob {
                job_id: 12,
                array: Some(ArraySel::All),
            }),
            ..dep
        };
        assert_eq!(
            format_dependency(&[(all, DepState::Unfulfilled)], false),
            "afterok:12_*(unfulfilled)"
        );
    }
}
