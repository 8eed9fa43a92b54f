//! The error every stage of option handling returns: what went wrong, the exact stderr lines Slurm prints for it,
//! and the exit status Slurm ends with.
//!
//! Slurm's clients end in one of four ways, and which one depends on the error, not on the command: getopt
//! failures and most value checks call `exit(-1)` (status 255), numeric checks and `fatal()` exit with 1, and script
//! problems exit with `error_exit`, which `SLURM_EXIT_ERROR` can change.

use super::table::{Command, OptId};

/// How a failure ends the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitClass {
    /// `exit(-1)`: status 255 whatever the environment says.
    Minus1,
    /// `exit(1)` (numeric value errors, `fatal()`).
    One,
    /// `exit(error_exit)`: 1 unless `SLURM_EXIT_ERROR` says otherwise.
    ErrorExit,
}

/// What went wrong, for callers that need to tell errors apart without reading the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// `--frob` or `--frob=1`: no such long option (the text as typed).
    UnrecognizedOption(String),
    /// `-j`: no such short option.
    InvalidShortOption(char),
    /// A long option that needs a value got none (its full name).
    MissingArgument(String),
    /// A short option that needs a value got none.
    MissingShortArgument(char),
    /// An abbreviation that fits several options: what was typed and the candidates.
    AmbiguousOption {
        typed: String,
        candidates: Vec<String>,
    },
    /// `--hold=1`: a flag given a value (its full name).
    UnexpectedArgument(String),
    /// A value an option does not accept.
    InvalidValue(OptId),
    /// A word in `#SBATCH` lines that is not an option.
    InvalidDirective(String),
    /// An unmatched quote or a stray `:` in a directive line.
    DirectiveSyntax { line: usize },
    /// A `#PBS`/`#BSUB` line sbatch could not translate.
    InvalidWrapperDirective,
    /// `--wrap` together with a script name.
    WrapWithScript,
    /// The script is empty, blank, lacks `#!`, contains NUL or DOS line breaks.
    BadScript,
    /// The caller could not read the script (its own message).
    ScriptUnreadable,
    /// srun was given no command to run.
    NoCommand,
}

/// A failed parse: the stderr lines Slurm prints, in order, and its exit status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", lines.join("\n"))]
pub struct OptError {
    pub kind: ErrorKind,
    /// Every line as printed, each with its `sbatch: ` style prefix, without trailing newlines.
    pub lines: Vec<String>,
    /// The process exit status (0-255).
    pub exit_code: i32,
}

/// What error messages depend on: the command (for the prefix) and `error_exit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrCtx {
    pub cmd: Command,
    /// The status for [`ExitClass::ErrorExit`] failures, as `SLURM_EXIT_ERROR` set it.
    pub error_exit: i32,
}

impl ErrCtx {
    pub fn new(cmd: Command) -> ErrCtx {
        ErrCtx { cmd, error_exit: 1 }
    }

    fn status(&self, class: ExitClass) -> i32 {
        let raw = match class {
            ExitClass::Minus1 => -1,
            ExitClass::One => 1,
            ExitClass::ErrorExit => self.error_exit,
        };
        // A process status is the low byte of what exit() got.
        raw.rem_euclid(256)
    }

    /// An error whose lines are already complete.
    pub fn raw(&self, kind: ErrorKind, lines: Vec<String>, class: ExitClass) -> OptError {
        OptError {
            kind,
            lines,
            exit_code: self.status(class),
        }
    }

    /// `sbatch: error: <msg>` lines.
    pub fn error(&self, kind: ErrorKind, class: ExitClass, msgs: &[&str]) -> OptError {
        let lines = msgs
            .iter()
            .map(|m| format!("{}: error: {m}", self.cmd))
            .collect();
        self.raw(kind, lines, class)
    }

    /// `sbatch: fatal: <msg>`, which always exits with 1.
    pub fn fatal(&self, kind: ErrorKind, msg: &str) -> OptError {
        self.raw(
            kind,
            vec![format!("{}: fatal: {msg}", self.cmd)],
            ExitClass::One,
        )
    }

    /// A getopt complaint followed by Slurm's pointer to `--help`; status 255.
    pub fn getopt(&self, kind: ErrorKind) -> OptError {
        let lines = getopt_lines(self.cmd.name(), &kind);
        self.raw(kind, lines, ExitClass::Minus1)
    }
}

/// getopt's complaint about `kind` and the pointer to `--help`, as every command (`program`) prints them.
pub fn getopt_lines(program: &str, kind: &ErrorKind) -> Vec<String> {
    let p = program;
    let first = match kind {
        ErrorKind::UnrecognizedOption(t) => format!("{p}: unrecognized option '{t}'"),
        ErrorKind::InvalidShortOption(c) => format!("{p}: invalid option -- '{c}'"),
        ErrorKind::MissingArgument(n) => format!("{p}: option '--{n}' requires an argument"),
        ErrorKind::MissingShortArgument(c) => {
            format!("{p}: option requires an argument -- '{c}'")
        }
        ErrorKind::AmbiguousOption { typed, candidates } => {
            let list: Vec<String> = candidates.iter().map(|c| format!(" '--{c}'")).collect();
            format!(
                "{p}: option '{typed}' is ambiguous; possibilities:{}",
                list.concat()
            )
        }
        ErrorKind::UnexpectedArgument(n) => {
            format!("{p}: option '--{n}' doesn't allow an argument")
        }
        _ => format!("{p}: error"),
    };
    vec![first, format!("Try \"{p} --help\" for more information")]
}

/// Reads `SLURM_EXIT_ERROR` the way Slurm's clients do (C `atoi`), returning the status for
/// [`ExitClass::ErrorExit`] and the warning line Slurm prints when the value is zero.
pub fn error_exit_from(cmd: Command, value: Option<&str>) -> (i32, Option<String>) {
    let Some(v) = value else { return (1, None) };
    match atoi(v) {
        0 => (
            1,
            Some(format!("{cmd}: error: SLURM_EXIT_ERROR has zero value")),
        ),
        n => (n, None),
    }
}

/// C's `atoi`: leading blanks, a sign, then as many digits as there are; anything else ends the number.
pub fn atoi(s: &str) -> i32 {
    let t = s.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut n: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        n = n.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    let n = if neg { -n } else { n };
    // glibc's atoi is strtol cast to int, which keeps the low 32 bits.
    n as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getopt_messages_match_slurm() {
        let ctx = ErrCtx::new(Command::Sbatch);
        let e = ctx.getopt(ErrorKind::UnrecognizedOption("--bogus-option".into()));
        assert_eq!(
            e.lines,
            vec![
                "sbatch: unrecognized option '--bogus-option'",
                "Try \"sbatch --help\" for more information"
            ]
        );
        assert_eq!(e.exit_code, 255);
        let e = ctx.getopt(ErrorKind::MissingShortArgument('p'));
        assert_eq!(e.lines[0], "sbatch: option requires an argument -- 'p'");
    }

    #[test]
    fn exit_error_follows_atoi() {
        let c = Command::Sbatch;
        assert_eq!(error_exit_from(c, None), (1, None));
        assert_eq!(error_exit_from(c, Some("7x")).0, 7);
        assert_eq!(error_exit_from(c, Some(" 9")).0, 9);
        let (code, warn) = error_exit_from(c, Some("abc"));
        assert_eq!(code, 1);
        assert_eq!(
            warn.as_deref(),
            Some("sbatch: error: SLURM_EXIT_ERROR has zero value")
        );
        let ctx = ErrCtx {
            cmd: c,
            error_exit: 300,
        };
        assert_eq!(
            ctx.error(ErrorKind::BadScript, ExitClass::ErrorExit, &["x"])
                .exit_code,
            44
        );
        let ctx = ErrCtx {
            cmd: c,
            error_exit: -2,
        };
        assert_eq!(
            ctx.error(ErrorKind::BadScript, ExitClass::ErrorExit, &["x"])
                .exit_code,
            254
        );
    }
}
