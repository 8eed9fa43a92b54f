//! Time limits and durations: `--time`, `--time-min`, partition `MaxTime`, and the way squeue and scontrol print
//! run times and limits.
//!
//! Accepted forms (Slurm 22.05 `time_str2secs`): `MM`, `MM:SS`, `HH:MM:SS`, `D-`, `D-HH`, `D-HH:MM`, `D-HH:MM:SS`,
//! and `-1`, `INFINITE`, `UNLIMITED` (any case) for no limit. Fields are not range-checked (`1:60:15` is 2h0m15s).
//! Limits are kept in minutes, seconds rounding up to the next minute.

use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case};
use nom::character::complete::{char, digit1};
use nom::combinator::{all_consuming, map, opt, value};
use nom::sequence::{pair, preceded, tuple};
use nom::IResult;

use super::INFINITE;

/// Largest number of seconds Slurm's `int`-based arithmetic holds without wrapping.
const MAX_SECS: u64 = i32::MAX as u64;
/// Largest number of seconds that still rounds up to a minute count without wrapping.
const MAX_SECS_FOR_MINUTES: u64 = MAX_SECS - 59;
/// squeue prints `INVALID` for anything longer than a (non-leap) year.
const SQUEUE_MAX_SECS: i64 = 365 * 24 * 3600;

/// A time limit as Slurm stores it: whole minutes, or no limit at all.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum TimeLimit {
    /// A limit of this many minutes.
    Minutes(u32),
    /// No limit (`UNLIMITED`, `INFINITE`, `-1`).
    Unlimited,
}

impl TimeLimit {
    /// The value Slurm keeps in its 32-bit `time_limit` fields (`INFINITE` for no limit).
    pub fn to_slurm_u32(self) -> u32 {
        match self {
            TimeLimit::Minutes(m) => m,
            TimeLimit::Unlimited => INFINITE,
        }
    }

    /// Reads a 32-bit `time_limit` field, where `INFINITE` means no limit.
    pub fn from_slurm_u32(minutes: u32) -> Self {
        if minutes == INFINITE {
            TimeLimit::Unlimited
        } else {
            TimeLimit::Minutes(minutes)
        }
    }

    /// The limit in seconds, or `None` for no limit.
    pub fn as_secs(self) -> Option<u64> {
        match self {
            TimeLimit::Minutes(m) => Some(u64::from(m) * 60),
            TimeLimit::Unlimited => None,
        }
    }
}

/// A rejected time specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// The text is not one of the accepted forms, or is too large for Slurm's 32-bit arithmetic.
    #[error("Invalid --time specification")]
    Invalid,
}

/// A parsed time string before unit conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spec {
    Unlimited,
    /// `-N` with N all zeros: Slurm reads it as minus zero days.
    NegativeZero,
    /// `-N` with N non-zero: Slurm reads minus N days (`None` when N overflows its `int`).
    Negative(Option<u64>),
    Days(u64, Option<u64>, Option<u64>, Option<u64>),
    Colons(u64, Option<u64>, Option<u64>),
}

fn number(input: &str) -> IResult<&str, u64> {
    // Slurm reads each field with `%d`; anything that overflows an int is garbage there, so refuse it here.
    nom::combinator::map_opt(digit1, |d: &str| {
        d.parse::<u64>().ok().filter(|n| *n <= MAX_SECS)
    })(input)
}

fn unlimited(input: &str) -> IResult<&str, Spec> {
    value(
        Spec::Unlimited,
        alt((tag("-1"), tag_no_case("INFINITE"), tag_no_case("UNLIMITED"))),
    )(input)
}

fn negative(input: &str) -> IResult<&str, Spec> {
    map(preceded(char('-'), digit1), |d: &str| {
        if d.bytes().all(|b| b == b'0') {
            Spec::NegativeZero
        } else {
            // Checked: a day count past u64::MAX / 86400 (`--time=-213503982334602`) wrapped, a panic.
            Spec::Negative(
                d.parse::<u64>()
                    .ok()
                    .filter(|n| n.checked_mul(86_400).is_some_and(|secs| secs <= MAX_SECS)),
            )
        }
    })(input)
}

fn with_days(input: &str) -> IResult<&str, Spec> {
    let hms = pair(
        number,
        opt(pair(
            preceded(char(':'), number),
            opt(preceded(char(':'), number)),
        )),
    );
    map(
        tuple((number, char('-'), opt(hms))),
        |(d, _, rest)| match rest {
            None => Spec::Days(d, None, None, None),
            Some((h, None)) => Spec::Days(d, Some(h), None, None),
            Some((h, Some((m, s)))) => Spec::Days(d, Some(h), Some(m), s),
        },
    )(input)
}

fn with_colons(input: &str) -> IResult<&str, Spec> {
    map(
        tuple((
            number,
            opt(preceded(char(':'), number)),
            opt(preceded(char(':'), number)),
        )),
        |(a, b, c)| Spec::Colons(a, b, c),
    )(input)
}

fn spec(input: &str) -> Option<Spec> {
    alt((
        all_consuming(unlimited),
        all_consuming(negative),
        all_consuming(with_days),
        all_consuming(with_colons),
    ))(input)
    .ok()
    .map(|(_, s)| s)
}

/// Seconds for a parsed spec, or `None` for no limit.
fn spec_secs(spec: Spec) -> Result<Option<u64>, TimeError> {
    let secs = match spec {
        Spec::Unlimited => return Ok(None),
        Spec::NegativeZero => 0,
        Spec::Negative(_) => return Err(TimeError::Invalid),
        Spec::Days(d, h, m, s) => {
            d * 86_400 + h.unwrap_or(0) * 3_600 + m.unwrap_or(0) * 60 + s.unwrap_or(0)
        }
        // Three fields are H:M:S; one or two are minutes[:seconds].
        Spec::Colons(h, Some(m), Some(s)) => h * 3_600 + m * 60 + s,
        Spec::Colons(m, s, None) => m * 60 + s.unwrap_or(0),
        Spec::Colons(_, None, Some(_)) => return Err(TimeError::Invalid),
    };
    Ok(Some(secs))
}

/// Parses a time string to seconds (Slurm's `time_str2secs`); `Ok(None)` means no limit.
pub fn parse_time_secs(input: &str) -> Result<Option<u32>, TimeError> {
    let secs = spec(input).ok_or(TimeError::Invalid).and_then(spec_secs)?;
    match secs {
        None => Ok(None),
        Some(s) if s <= MAX_SECS => u32::try_from(s).map(Some).map_err(|_| TimeError::Invalid),
        Some(_) => Err(TimeError::Invalid),
    }
}

/// Parses a time string to a limit in minutes, seconds rounding up (Slurm's `time_str2mins`). `0` stays zero
/// minutes; see [`parse_job_time_limit`] for the job options, where zero means no limit.
pub fn parse_time_limit(input: &str) -> Result<TimeLimit, TimeError> {
    let spec = spec(input).ok_or(TimeError::Invalid)?;
    if let Spec::Negative(days) = spec {
        return negative_days_minutes(days.ok_or(TimeError::Invalid)?);
    }
    let secs = spec_secs(spec)?;
    match secs {
        None => Ok(TimeLimit::Unlimited),
        Some(s) if s <= MAX_SECS_FOR_MINUTES => u32::try_from(s.div_ceil(60))
            .map(TimeLimit::Minutes)
            .map_err(|_| TimeError::Invalid),
        Some(_) => Err(TimeError::Invalid),
    }
}

/// `-N` as a minute limit: Slurm rounds the negative seconds up with C's truncating division and keeps the result
/// in an unsigned field, so `-5` becomes a limit of about 8000 years (`2982611-04:17:00`), which sbatch accepts.
fn negative_days_minutes(days: u64) -> Result<TimeLimit, TimeError> {
    let secs = i64::try_from(days * 86_400).map_err(|_| TimeError::Invalid)?;
    let minutes = (59 - secs) / 60;
    let wrapped = i32::try_from(minutes).map_err(|_| TimeError::Invalid)?;
    Ok(TimeLimit::Minutes(u32::from_ne_bytes(
        wrapped.to_ne_bytes(),
    )))
}

/// Parses `--time`/`--time-min` of sbatch, srun and salloc, where a limit of zero means no limit.
pub fn parse_job_time_limit(input: &str) -> Result<TimeLimit, TimeError> {
    match parse_time_limit(input)? {
        TimeLimit::Minutes(0) => Ok(TimeLimit::Unlimited),
        other => Ok(other),
    }
}

fn days_hms(days: i64, hours: i64, minutes: i64, seconds: i64) -> String {
    if days > 0 {
        format!("{days}-{hours:02}:{minutes:02}:{seconds:02}")
    } else {
        format!("{hours:02}:{minutes:02}:{seconds:02}")
    }
}

/// Formats seconds as scontrol prints `RunTime=` (Slurm's `secs2time_str`): `00:00:05`, `1-02:03:04`,
/// `UNLIMITED` for the 32-bit INFINITE value, `INVALID` when negative.
pub fn format_duration(secs: i64) -> String {
    if secs == i64::from(INFINITE) {
        return "UNLIMITED".to_string();
    }
    if secs < 0 {
        return "INVALID".to_string();
    }
    days_hms(
        secs / 86_400,
        (secs / 3_600) % 24,
        (secs / 60) % 60,
        secs % 60,
    )
}

/// Formats a minute count as scontrol prints `TimeLimit=` (Slurm's `mins2time_str`): `00:10:00`, `1-00:01:00`,
/// `UNLIMITED` for INFINITE.
pub fn format_minutes(minutes: u32) -> String {
    if minutes == INFINITE {
        return "UNLIMITED".to_string();
    }
    let m = i64::from(minutes);
    days_hms(m / 1_440, (m / 60) % 24, m % 60, 0)
}

/// Formats a limit as scontrol prints `TimeLimit=`: `UNLIMITED` or `HH:MM:SS` / `D-HH:MM:SS`.
pub fn format_time_limit(limit: TimeLimit) -> String {
    format_minutes(limit.to_slurm_u32())
}

/// Formats seconds as squeue prints its TIME column: `0:05`, `1:02:03`, `1-02:03:04`, and `INVALID` when
/// negative or over 365 days.
pub fn format_squeue_secs(secs: i64) -> String {
    if !(0..=SQUEUE_MAX_SECS).contains(&secs) {
        return "INVALID".to_string();
    }
    let (days, hours, minutes, seconds) = (
        secs / 86_400,
        (secs / 3_600) % 24,
        (secs / 60) % 60,
        secs % 60,
    );
    if days > 0 {
        format!("{days}-{hours:02}:{minutes:02}:{seconds:02}")
    } else if hours > 0 {
        format!("{hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

/// Formats a limit as squeue prints TIME_LIMIT: `UNLIMITED`, `10:00`, `1-00:00:00`.
pub fn format_squeue_time_limit(limit: TimeLimit) -> String {
    match limit.as_secs() {
        None => "UNLIMITED".to_string(),
        Some(secs) => format_squeue_secs(i64::try_from(secs).unwrap_or(i64::MAX)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_round_up_seconds() {
        assert_eq!(parse_time_limit("0:0:1"), Ok(TimeLimit::Minutes(1)));
        assert_eq!(parse_time_limit("0:0:59"), Ok(TimeLimit::Minutes(1)));
        assert_eq!(parse_time_limit("1:1"), Ok(TimeLimit::Minutes(2)));
        assert_eq!(parse_time_limit("10:00"), Ok(TimeLimit::Minutes(10)));
    }

    #[test]
    fn all_documented_forms() {
        assert_eq!(parse_time_secs("5"), Ok(Some(300)));
        assert_eq!(parse_time_secs("5:30"), Ok(Some(330)));
        assert_eq!(parse_time_secs("1:02:03"), Ok(Some(3723)));
        assert_eq!(parse_time_secs("1-"), Ok(Some(86_400)));
        assert_eq!(parse_time_secs("1-2"), Ok(Some(93_600)));
        assert_eq!(parse_time_secs("1-2:3"), Ok(Some(93_780)));
        assert_eq!(parse_time_secs("1-2:3:4"), Ok(Some(93_784)));
        assert_eq!(parse_time_limit("UNLIMITED"), Ok(TimeLimit::Unlimited));
        assert_eq!(parse_time_limit("infinite"), Ok(TimeLimit::Unlimited));
        assert_eq!(parse_time_limit("-1"), Ok(TimeLimit::Unlimited));
    }

    #[test]
    fn negative_days_wrap_like_slurm_and_minus_zero_is_zero() {
        assert_eq!(parse_time_limit("-0"), Ok(TimeLimit::Minutes(0)));
        assert_eq!(parse_time_limit("-00"), Ok(TimeLimit::Minutes(0)));
        assert_eq!(
            parse_time_limit("-2"),
            Ok(TimeLimit::Minutes(4_294_964_417))
        );
        assert_eq!(
            format_time_limit(parse_time_limit("-5").unwrap()),
            "2982611-04:17:00"
        );
        assert_eq!(parse_time_secs("-2"), Err(TimeError::Invalid));
        assert_eq!(parse_time_limit("-24856"), Err(TimeError::Invalid));
    }

    #[test]
    fn malformed_forms_are_refused() {
        for bad in [
            "", "60:", ":1", "1::1", "1-1:", "1:2:3:4", "1-2-3", "1:2-3", " 1", "1 ", "1.5", "+5",
            "a",
        ] {
            assert_eq!(parse_time_limit(bad), Err(TimeError::Invalid), "{bad:?}");
        }
    }

    #[test]
    fn overflow_is_refused() {
        assert_eq!(parse_time_secs("35791394"), Ok(Some(2_147_483_640)));
        assert_eq!(parse_time_limit("35791394"), Err(TimeError::Invalid));
        assert_eq!(parse_time_secs("35791395"), Err(TimeError::Invalid));
        assert_eq!(parse_time_secs("99999999999"), Err(TimeError::Invalid));
    }

    #[test]
    fn job_option_zero_means_unlimited() {
        assert_eq!(parse_job_time_limit("0"), Ok(TimeLimit::Unlimited));
        assert_eq!(parse_job_time_limit("60"), Ok(TimeLimit::Minutes(60)));
        assert_eq!(
            TimeError::Invalid.to_string(),
            "Invalid --time specification"
        );
    }

    #[test]
    fn scontrol_forms_match_captures() {
        assert_eq!(format_duration(2), "00:00:02");
        assert_eq!(format_duration(64), "00:01:04");
        assert_eq!(format_time_limit(TimeLimit::Minutes(10)), "00:10:00");
        assert_eq!(format_time_limit(TimeLimit::Minutes(1)), "00:01:00");
        assert_eq!(format_time_limit(TimeLimit::Unlimited), "UNLIMITED");
        assert_eq!(format_duration(90_061), "1-01:01:01");
        assert_eq!(format_duration(-1), "INVALID");
        assert_eq!(format_duration(i64::from(INFINITE)), "UNLIMITED");
    }

    #[test]
    fn squeue_forms_match_captures() {
        assert_eq!(format_squeue_secs(0), "0:00");
        assert_eq!(format_squeue_secs(2), "0:02");
        assert_eq!(format_squeue_secs(3_723), "1:02:03");
        assert_eq!(format_squeue_secs(93_784), "1-02:03:04");
        assert_eq!(format_squeue_secs(-5), "INVALID");
        assert_eq!(format_squeue_secs(SQUEUE_MAX_SECS + 1), "INVALID");
        assert_eq!(format_squeue_time_limit(TimeLimit::Minutes(10)), "10:00");
        assert_eq!(format_squeue_time_limit(TimeLimit::Unlimited), "UNLIMITED");
    }

    #[test]
    fn slurm_u32_round_trip() {
        assert_eq!(TimeLimit::from_slurm_u32(INFINITE), TimeLimit::Unlimited);
        assert_eq!(TimeLimit::from_slurm_u32(5).to_slurm_u32(), 5);
    }

    /// Found by fuzzing: a negative day count past u64::MAX / 86400 overflowed the check of its size (a panic
    /// in every build, overflow checks being on in release). It is now refused like any count too large.
    #[test]
    fn a_huge_negative_day_count_is_refused_not_a_panic() {
        assert_eq!(
            parse_time_limit("-213503982334602"),
            parse_time_limit("-4294967296")
        );
        assert_eq!(
            parse_time_secs("-213503982334602"),
            parse_time_secs("-4294967296")
        );
    }
}
