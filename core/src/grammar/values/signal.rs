//! Signals: names and numbers as `scancel -s` takes them, and the `--signal=[{R|B}:]<sig>[@<time>]` warning
//! specification of sbatch, srun and salloc.
//!
//! Slurm 22.05 knows a fixed table of names (`HUP INT QUIT ABRT KILL USR1 USR2 ALRM TERM CONT STOP TSTP TTIN TTOU
//! URG XCPU`), matched in any case, with an optional `SIG` prefix and surrounding whitespace. Anything that starts
//! like a number is read as one. Zero means "no signal" and is never accepted.

use std::fmt;

/// Signal names Slurm accepts and prints, with their Linux numbers.
const SIGNALS: &[(&str, u16)] = &[
    ("HUP", 1),
    ("INT", 2),
    ("QUIT", 3),
    ("ABRT", 6),
    ("KILL", 9),
    ("USR1", 10),
    ("USR2", 12),
    ("ALRM", 14),
    ("TERM", 15),
    ("CONT", 18),
    ("STOP", 19),
    ("TSTP", 20),
    ("TTIN", 21),
    ("TTOU", 22),
    ("URG", 23),
    ("XCPU", 24),
];

/// Seconds before the time limit at which `--signal` fires when no `@time` is given.
pub const DEFAULT_WARN_TIME: u16 = 60;

/// A rejected signal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignalError {
    /// `scancel -s` got something that is not a signal.
    #[error("Unknown job signal: {0}")]
    UnknownJobSignal(String),
    /// `--signal` is malformed, names no signal, or its time is out of range.
    #[error("Invalid --signal specification")]
    InvalidSpec,
}

fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// Reads a decimal number the way `strtol` does (leading whitespace, optional sign); `None` when no digits start
/// the text. Returns the value (`None` when it overflows) and the unread rest.
fn strtol(text: &str) -> Option<(Option<i64>, &str)> {
    let body = text.trim_start_matches(is_c_space);
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    let digits_len = unsigned.bytes().take_while(u8::is_ascii_digit).count();
    if digits_len == 0 {
        return None;
    }
    let sign_len = body.len() - unsigned.len();
    let (number, rest) = body.split_at(sign_len + digits_len);
    Some((number.parse::<i64>().ok(), rest))
}

/// Converts a signal name or number to its number (Slurm's `sig_name2num`); `None` where Slurm returns 0.
/// Numbers outside a C `int` are refused rather than wrapped.
pub fn sig_name2num(text: &str) -> Option<i32> {
    if let Some((value, rest)) = strtol(text) {
        if !rest.chars().all(is_c_space) {
            return None;
        }
        return value
            .and_then(|v| i32::try_from(v).ok())
            .filter(|v| *v != 0);
    }
    let name = text.trim_matches(is_c_space);
    let name = match name.get(..3) {
        Some(prefix) if prefix.eq_ignore_ascii_case("SIG") => &name[3..],
        _ => name,
    };
    SIGNALS
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name))
        .map(|(_, num)| i32::from(*num))
}

/// The name Slurm prints for a signal number (`USR1`), or the number itself when it has no name.
pub fn sig_num2name(signal: u16) -> String {
    SIGNALS
        .iter()
        .find(|(_, num)| *num == signal)
        .map(|(name, _)| (*name).to_string())
        .unwrap_or_else(|| signal.to_string())
}

/// Parses `scancel -s/--signal`: any name or non-zero number, kept (as Slurm does) in 16 bits.
pub fn parse_scancel_signal(text: &str) -> Result<u16, SignalError> {
    let unknown = || SignalError::UnknownJobSignal(text.to_string());
    // Slurm stores the number in a uint16_t and only then rejects zero, so 65536 is unknown and -1 is 65535.
    let signal = sig_name2num(text).ok_or_else(unknown)? as u16;
    if signal == 0 {
        return Err(unknown());
    }
    Ok(signal)
}

/// A `--signal` request: which signal to send, how long before the time limit, and to whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SignalSpec {
    /// Signal number, 1 to 65535.
    pub signal: u16,
    /// Seconds before the end of the time limit.
    pub time: u16,
    /// `B:` signal only the batch shell (sbatch only).
    pub batch_only: bool,
    /// `R:` allow the job to run into a reservation that would otherwise stop it early.
    pub reservation: bool,
}

impl fmt::Display for SignalSpec {
    /// The form `sbatch -v` shows and Slurm passes on command lines: `RB:USR1@30`, `USR1` (default time omitted).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reservation {
            f.write_str("R")?;
        }
        if self.batch_only {
            f.write_str("B")?;
        }
        if self.reservation || self.batch_only {
            f.write_str(":")?;
        }
        f.write_str(&sig_num2name(self.signal))?;
        if self.time != DEFAULT_WARN_TIME {
            write!(f, "@{}", self.time)?;
        }
        Ok(())
    }
}

/// Strips an optional one-letter flag, case-insensitively.
fn take_flag(text: &str, flag: char) -> Option<&str> {
    let mut chars = text.chars();
    chars
        .next()
        .filter(|c| c.eq_ignore_ascii_case(&flag))
        .map(|_| chars.as_str())
}

/// Parses `--signal`. `batch_allowed` is true for sbatch, the only command where `B` is a flag; elsewhere a
/// leading `B` is part of the signal name. As in Slurm, the flag letters need no colon after them (`RUSR1`).
pub fn parse_signal_spec(text: &str, batch_allowed: bool) -> Result<SignalSpec, SignalError> {
    let mut spec = SignalSpec {
        signal: 0,
        time: DEFAULT_WARN_TIME,
        batch_only: false,
        reservation: false,
    };
    let mut rest = text;
    // Slurm looks for R, then (sbatch only) B, then R again: so both RB: and BR: work.
    if let Some(after) = take_flag(rest, 'R') {
        spec.reservation = true;
        rest = after;
    }
    if batch_allowed {
        if let Some(after) = take_flag(rest, 'B') {
            spec.batch_only = true;
            rest = after;
        }
        if let Some(after) = take_flag(rest, 'R') {
            spec.reservation = true;
            rest = after;
        }
    }
    rest = rest.strip_prefix(':').unwrap_or(rest);
    let (name, time) = match rest.split_once('@') {
        Some((name, time)) => (name, Some(time)),
        None => (rest, None),
    };
    // The number is stored in 16 bits before the range check, so 65536 reads as 0 and -1 as 65535.
    let signal = sig_name2num(name).map(|n| n as u16).unwrap_or(0);
    if signal == 0 {
        return Err(SignalError::InvalidSpec);
    }
    spec.signal = signal;
    if let Some(time) = time {
        spec.time = parse_warn_time(time)?;
    }
    Ok(spec)
}

/// The `@time` part: a `strtol` number 0..=65535 with nothing after it; an empty time is zero.
fn parse_warn_time(text: &str) -> Result<u16, SignalError> {
    // With no digits strtol reads nothing, and then only an empty time leaves nothing unread.
    match strtol(text) {
        None if text.is_empty() => Ok(0),
        None => Err(SignalError::InvalidSpec),
        Some((Some(n), "")) => u16::try_from(n).map_err(|_| SignalError::InvalidSpec),
        Some(_) => Err(SignalError::InvalidSpec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers() {
        assert_eq!(sig_name2num("SIGUSR1"), Some(10));
        assert_eq!(sig_name2num("usr1"), Some(10));
        assert_eq!(sig_name2num(" USR1 "), Some(10));
        assert_eq!(sig_name2num("9"), Some(9));
        assert_eq!(sig_name2num("-1"), Some(-1));
        assert_eq!(sig_name2num("0"), None);
        assert_eq!(sig_name2num("SEGV"), None);
        assert_eq!(sig_name2num("9x"), None);
        assert_eq!(sig_name2num("B:USR1"), None);
        assert_eq!(sig_num2name(10), "USR1");
        assert_eq!(sig_num2name(11), "11");
    }

    #[test]
    fn scancel_signal() {
        assert_eq!(parse_scancel_signal("KILL"), Ok(9));
        assert_eq!(parse_scancel_signal("-1"), Ok(65535));
        assert_eq!(parse_scancel_signal("99999"), Ok(34463));
        assert_eq!(
            parse_scancel_signal("FOO").unwrap_err().to_string(),
            "Unknown job signal: FOO"
        );
        assert_eq!(
            parse_scancel_signal("65536").unwrap_err().to_string(),
            "Unknown job signal: 65536"
        );
    }

    #[test]
    fn signal_specs() {
        let spec = parse_signal_spec("R:USR1@30", false).unwrap();
        assert_eq!(
            (spec.signal, spec.time, spec.reservation, spec.batch_only),
            (10, 30, true, false)
        );
        assert_eq!(spec.to_string(), "R:USR1@30");
        assert_eq!(
            parse_signal_spec("b:usr1", true).unwrap().to_string(),
            "B:USR1"
        );
        assert_eq!(
            parse_signal_spec("BR:USR1", true).unwrap().to_string(),
            "RB:USR1"
        );
        assert_eq!(parse_signal_spec("USR1", true).unwrap().to_string(), "USR1");
        assert_eq!(parse_signal_spec("USR1@", true).unwrap().time, 0);
        assert_eq!(
            parse_signal_spec("B:USR1", false),
            Err(SignalError::InvalidSpec)
        );
        assert_eq!(
            parse_signal_spec("R:B:USR1", true),
            Err(SignalError::InvalidSpec)
        );
        assert_eq!(
            parse_signal_spec("USR1@65536", true),
            Err(SignalError::InvalidSpec)
        );
        assert_eq!(
            parse_signal_spec("USR1@30 ", true),
            Err(SignalError::InvalidSpec)
        );
        assert_eq!(
            SignalError::InvalidSpec.to_string(),
            "Invalid --signal specification"
        );
    }
}
