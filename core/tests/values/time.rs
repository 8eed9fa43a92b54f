use spur_core::grammar::values::time::*;
use spur_core::grammar::values::{INFINITE, NO_VAL};

use super::tsv::load;

/// Inputs where Slurm's `int` arithmetic wraps; Spur refuses them instead of returning the wrapped number.
const OVERFLOWS: &[&str] = &[
    "2147483588",
    "2147483647",
    "99999999999",
    "4294967295",
    "35791395",
    "24855-3:14:8",
];

fn to_slurm_mins(r: Result<TimeLimit, TimeError>) -> Option<u32> {
    r.ok().map(TimeLimit::to_slurm_u32)
}

/// Checks one of Slurm's results against ours: equal when we accept; when we refuse, Slurm must have said NO_VAL,
/// produced a negative (unusable) value, or the input must be a known overflow.
fn check(input: &str, slurm: u32, ours: Option<u32>, what: &str, line: usize) {
    match ours {
        Some(v) => assert_eq!(v, slurm, "line {line}: {what}({input:?})"),
        None => assert!(
            slurm == NO_VAL
                || (slurm as i32) < 0
                || OVERFLOWS.contains(&input)
                || slurm > i32::MAX as u32,
            "line {line}: {what}({input:?}) refused but Slurm gave {slurm}"
        ),
    }
}

#[test]
fn generated_time_str2mins_and_secs() {
    for row in load("time_str.tsv", true) {
        let input = row.get(0);
        let mins: u32 = row.get(1).parse().unwrap();
        let secs: u32 = row.get(2).parse().unwrap();
        check(
            input,
            mins,
            to_slurm_mins(parse_time_limit(input)),
            "time_str2mins",
            row.line,
        );
        let ours_secs = parse_time_secs(input).ok().map(|s| s.unwrap_or(INFINITE));
        check(input, secs, ours_secs, "time_str2secs", row.line);
        if OVERFLOWS.contains(&input) {
            assert!(parse_time_limit(input).is_err(), "{input} should overflow");
        }
    }
}

#[test]
fn reference_time_str2secs() {
    for row in load("reference/unit_parse_time_time_str2secs.tsv", false) {
        let input = if row.get(0) == "(NULL)" {
            ""
        } else {
            row.get(0)
        };
        let ours = parse_time_secs(input);
        match row.get(1) {
            "NO_VAL" => assert_eq!(
                ours,
                Err(TimeError::Invalid),
                "line {}: {input:?}",
                row.line
            ),
            "INFINITE" => assert_eq!(ours, Ok(None), "line {}: {input:?}", row.line),
            n => assert_eq!(
                ours,
                Ok(Some(n.parse().unwrap())),
                "line {}: {input:?}",
                row.line
            ),
        }
    }
}

#[test]
fn generated_secs2time_and_mins2time() {
    for row in load("time_fmt.tsv", true) {
        let value: i64 = row.get(1).parse().unwrap();
        let ours = match row.get(0) {
            "secs2time_str" => format_duration(value),
            "mins2time_str" => format_minutes(u32::try_from(value).unwrap()),
            other => panic!("unknown function {other}"),
        };
        assert_eq!(
            ours,
            row.get(2),
            "line {}: {}({value})",
            row.line,
            row.get(0)
        );
    }
}

#[test]
fn private_controller_displays() {
    // scontrol TimeLimit= and squeue %l seen on a private slurmctld 22.05.8.
    let limit = parse_job_time_limit("1-02:03:04").unwrap();
    assert_eq!(
        (format_time_limit(limit), format_squeue_time_limit(limit)),
        ("1-02:04:00".into(), "1-02:04:00".into())
    );
    let limit = parse_job_time_limit("90").unwrap();
    assert_eq!(
        (format_time_limit(limit), format_squeue_time_limit(limit)),
        ("01:30:00".into(), "1:30:00".into())
    );
}
