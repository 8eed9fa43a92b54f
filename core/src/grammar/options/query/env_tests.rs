//! The query tables' input environment variables: the command line wins, flags and scancel's true/false values,
//! and nothing an unprivileged user puts in the environment makes parsing fail or panic.

use super::*;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn environment_stands_in_for_options_the_command_line_leaves_out() {
    let e = env(&[
        ("SQUEUE_STATES", "PD"),
        ("SQUEUE_SORT", "-i"),
        ("SQUEUE_ALL", ""),
        ("SQUEUE_SIB", "0"),
    ]);
    let p = SQUEUE.parse_env(&args(&["-t", "R"]), &e).unwrap();
    // The command line's value is the one that counts; the environment's stays visible as such.
    assert_eq!(p.value("states"), Some("R"));
    assert_eq!(p.env_value("states"), Some("PD"));
    assert!(p.cli_has("states"));
    assert_eq!(p.value("sort"), Some("-i"));
    assert!(!p.cli_has("sort"));
    assert_eq!(p.env_var("sort"), Some("SQUEUE_SORT"));
    // A flag variable is on when set at all, even empty or "0" (Slurm tests getenv() only).
    assert!(p.has("all") && p.has("sibling"));
    assert_eq!(p.env_var("sibling"), Some("SQUEUE_SIB"));
    // A list option given on the command line replaces the environment's instead of adding to it.
    let e = env(&[("SACCT_FORMAT", "jobid")]);
    let p = SACCT.parse_env(&args(&["-o", "state"]), &e).unwrap();
    assert_eq!(p.values(&["format"]).collect::<Vec<_>>(), ["state"]);
    let p = SACCT.parse_env(&args(&[]), &e).unwrap();
    assert_eq!(p.values(&["format"]).collect::<Vec<_>>(), ["jobid"]);
}

#[test]
fn scancel_flags_take_true_or_false_and_report_anything_else() {
    let e = env(&[
        ("SCANCEL_BATCH", "T"),
        ("SCANCEL_FULL", "false"),
        ("SCANCEL_VERBOSE", "yes"),
    ]);
    let p = SCANCEL.parse_env(&args(&["12"]), &e).unwrap();
    assert!(p.has("batch"));
    assert!(!p.has("full"));
    assert!(!p.has("verbose"));
    assert_eq!(p.env_errors, ["Unrecognized SCANCEL_VERBOSE value: yes"]);
    assert_eq!(p.positional, ["12"]);
}

#[test]
fn hostile_environment_values_are_only_values() {
    // Option-looking, huge, multi-byte and control-character values are taken as plain values, never parsed as
    // options or split into arguments.
    let huge = "x".repeat(1 << 20);
    for value in [
        "--help",
        "-t",
        "%",
        "\u{e9}\u{6f22}",
        "\n\t\0",
        huge.as_str(),
    ] {
        let e = env(&[
            ("SQUEUE_FORMAT", value),
            ("SQUEUE_USERS", value),
            ("SCANCEL_NAME", value),
            ("SCANCEL_BATCH", value),
            ("SINFO_PARTITION", value),
        ]);
        let p = SQUEUE.parse_env(&args(&[]), &e).unwrap();
        assert_eq!(p.value("format"), Some(value));
        assert!(SQUEUE.help_or_usage(&p).is_none());
        let p = SCANCEL.parse_env(&args(&[]), &e).unwrap();
        assert_eq!(p.value("name"), Some(value));
        assert_eq!(p.env_errors.len(), 1);
        let p = SINFO.parse_env(&args(&[]), &e).unwrap();
        assert_eq!(p.value("partition"), Some(value));
    }
}

#[test]
fn every_environment_variable_names_its_command() {
    // One row per variable, and each variable carries its command's prefix or is one of Slurm's shared ones.
    for table in TABLES {
        let prefix = format!("{}_", table.program.to_ascii_uppercase());
        let mut seen: Vec<&str> = Vec::new();
        for var in table.rows.iter().flat_map(|r| r.env.iter()) {
            assert!(var.starts_with(&prefix), "{}: {var}", table.program);
            assert!(!seen.contains(var), "{}: {var} twice", table.program);
            seen.push(var);
        }
    }
}
