//! Slurm's own unit test of option values (`slurm_opt-test.c`, transcribed in
//! `tests/vectors/reference/unit_slurm_opt.tsv`), run through stage 1 (`check`) and stage 2 (`resolve`).

use super::*;
use crate::grammar::options::error::ErrCtx;
use crate::grammar::options::resolve::{
    resolve, OpenMode, Priority, ResolveConfig, Resolved, Sharing,
};
use crate::grammar::options::set::{OptionSet, Source};
use crate::grammar::options::table::{by_long, Command};
use crate::grammar::values::size::Megabytes;
use crate::grammar::values::time::{parse_time_secs, TimeLimit};

const TSV: &str = include_str!("../../../../tests/vectors/reference/unit_slurm_opt.tsv");

/// Rows where the real sbatch 22.05.8 binary disagrees with the unit test's expectation (the unit test calls
/// Slurm's internal setter, not the command line). The binary is the oracle; see tests/vectors/argv_errors.tsv.
const BINARY_DISAGREES: &[(&str, &str)] = &[
    // `sbatch --kill-on-invalid-dep=true` prints "Invalid --kill-on-invalid-dep specification": only yes/no work.
    ("kill-on-invalid-dep", "true"),
    ("kill-on-invalid-dep", "false"),
    // `sbatch --nice=invalid` is accepted as 0 (strtol without an end check).
    ("nice", "invalid"),
    // `sbatch --cpus-per-gpu=0` prints "Invalid numeric value "0" for --cpus-per-gpu.".
    ("cpus-per-gpu", "0"),
];

/// Rows that cannot happen on a command line: a required value missing (getopt stops that earlier), or input
/// that is not a string at all.
const NOT_COMMAND_LINE: &[(&str, &str)] = &[
    ("kill-on-invalid-dep", "(null)"),
    ("switches", "(null) [wait4switch preset 12345]"),
    ("nodes", "[\"10\",\"100\"] (list)"),
];

/// Rows that need the account database (user and group names); pure parsing keeps `--uid`/`--gid` as given.
const NEEDS_ACCOUNTS: &[&str] = &["uid", "gid"];

struct Row<'a> {
    name: &'a str,
    raw_input: &'a str,
    input: Option<&'a str>,
    ok: bool,
}

fn rows() -> Vec<Row<'static>> {
    TSV.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let long = f.first()?.rsplit('/').next()?.trim_start_matches('-');
            let name = long.trim_end_matches(" (internal)");
            let raw_input = *f.get(1)?;
            let input = match raw_input {
                "(null)" => None,
                i if i.starts_with("(null) ") => None,
                i => Some(i.trim_end_matches(" (int)")),
            };
            Some(Row {
                name,
                raw_input,
                input,
                ok: *f.get(2)? == "ok",
            })
        })
        .collect()
}

/// Stage 1 then stage 2 for one option value, as the first command that accepts the option would do it.
fn evaluate(name: &str, input: Option<&str>) -> Result<Resolved, OptError> {
    let (cmd, def) = Command::ALL
        .into_iter()
        .find_map(|c| by_long(c, name).map(|d| (c, d)))
        .unwrap_or_else(|| panic!("no option --{name}"));
    let ctx = ErrCtx::new(cmd);
    check(&ctx, def.id, input)?;
    let mut set = OptionSet::new();
    set.set(
        def.id,
        input.map(String::from),
        Source::CommandLine { index: 0 },
    );
    let config = ResolveConfig {
        gres_types: vec!["gpu".into()],
        ..ResolveConfig::default()
    };
    resolve(&ctx, &set, &config)
}

#[test]
fn slurm_unit_test_rows() {
    let mut checked = 0;
    for row in rows() {
        let key = (row.name, row.raw_input);
        if BINARY_DISAGREES.contains(&key)
            || NOT_COMMAND_LINE.contains(&key)
            || NEEDS_ACCOUNTS.contains(&row.name)
        {
            continue;
        }
        let got = match row.name {
            "umask" => match row.input.and_then(parse_umask) {
                Some(_) => Ok(Resolved::default()),
                None => Err(()),
            },
            // Internal to slurm_opt.c (the environment's *_WAIT4SWITCH): a time, -1 meaning no limit.
            "switch-wait" => match row.input.map(parse_time_secs) {
                None | Some(Ok(_)) => Ok(Resolved::default()),
                Some(Err(_)) => Err(()),
            },
            // sbatch prints the configured GRES types and exits instead of taking these as a value
            // (EarlyAction::GresList); the unit test sees that as a failed setter.
            "gres" if matches!(row.input, Some("help" | "list")) => Err(()),
            _ => evaluate(row.name, row.input).map_err(drop),
        };
        assert_eq!(got.is_ok(), row.ok, "--{} {:?}", row.name, row.raw_input);
        if let Ok(r) = got {
            expect_value(row.name, row.raw_input, &r);
        }
        checked += 1;
    }
    assert!(checked >= 95, "only {checked} rows checked");
}

/// The typed result for rows whose TSV names a value.
fn expect_value(name: &str, input: &str, r: &Resolved) {
    let case = format!("--{name} {input}");
    match (name, input) {
        ("wckey", _) => assert_eq!(r.wckey.as_deref(), Some("wckey"), "{case}"),
        ("tmp", "1" | "1k") => assert_eq!(r.tmp, Some(Megabytes(1)), "{case}"),
        ("tmp", "10M") => assert_eq!(r.tmp, Some(Megabytes(10)), "{case}"),
        ("core-spec", "2") => assert_eq!(r.core_spec, Some(2), "{case}"),
        ("core-spec", "0") => assert_eq!(r.core_spec, Some(0), "{case}"),
        ("cpu-freq", "10-100:PowerSave") => {
            let f = r.cpu_freq.unwrap_or_default();
            assert_eq!(
                (f.min, f.max),
                (Some(CpuFreqValue::Khz(10)), Some(CpuFreqValue::Khz(100))),
                "{case}"
            );
            assert_eq!(f.governor, Some(Governor::PowerSave), "{case}");
        }
        ("cpu-freq", "low-highm1:Performance") => {
            let f = r.cpu_freq.unwrap_or_default();
            assert_eq!(
                (f.min, f.max),
                (Some(CpuFreqValue::Low), Some(CpuFreqValue::HighM1)),
                "{case}"
            );
        }
        ("cpu-freq", "Performance") => {
            let f = r.cpu_freq.unwrap_or_default();
            assert_eq!(
                (f.min, f.max, f.governor),
                (None, None, Some(Governor::Performance)),
                "{case}"
            );
        }
        ("cpus-per-task", _) => assert_eq!(r.cpus_per_task, Some(10), "{case}"),
        ("delay-boot", "60") => assert_eq!(r.delay_boot_secs, Some(3600), "{case}"),
        ("distribution", "plane=10") => {
            assert_eq!(
                r.distribution.as_ref().and_then(|d| d.plane_size()),
                Some(10),
                "{case}"
            )
        }
        ("error" | "output" | "input", "none") => {
            let v = r
                .error
                .as_deref()
                .or(r.output.as_deref())
                .or(r.input.as_deref());
            assert_eq!(v, Some("/dev/null"), "{case}");
        }
        ("exclusive", _) => assert_eq!(r.sharing, Some(Sharing::Exclusive), "{case}"),
        ("oversubscribe", _) => assert_eq!(r.sharing, Some(Sharing::Oversubscribe), "{case}"),
        ("get-user-env", "(null)") => assert_eq!(
            r.get_user_env.map(|g| (g.timeout_secs, g.mode)),
            Some((None, None))
        ),
        ("get-user-env", "10l") => assert_eq!(
            r.get_user_env.map(|g| (g.timeout_secs, g.mode)),
            Some((Some(10), Some('L')))
        ),
        ("mail-type", "none") => assert_eq!(r.mail_type.map(|m| m.0), Some(0), "{case}"),
        ("mail-type", "BEGIN,END") => assert!(r.mail_type.is_some_and(|m| m.0 != 0), "{case}"),
        ("mem", _) => assert_eq!(r.mem_per_node, Some(Megabytes(10)), "{case}"),
        ("mem-bind", "MAP_MEM:0,1") => assert_eq!(
            r.mem_bind.as_ref().and_then(|m| m.list.as_deref()),
            Some("0,1")
        ),
        ("mem-bind", "rank") => assert_eq!(
            r.mem_bind.as_ref().and_then(|m| m.kind.as_deref()),
            Some("rank")
        ),
        ("nice", "(null)") => assert_eq!(r.nice, Some(100), "{case}"),
        ("no-kill", "set" | "(null)") => assert_eq!(r.no_kill, Some(true), "{case}"),
        ("no-kill", "off") => assert_eq!(r.no_kill, Some(false), "{case}"),
        ("no-requeue", _) => assert_eq!(r.requeue, Some(false), "{case}"),
        ("requeue", _) => assert_eq!(r.requeue, Some(true), "{case}"),
        ("nodelist", _) => assert_eq!(r.nodelist.as_deref(), Some("hostlist"), "{case}"),
        ("nodes", "1-2") => assert_eq!(r.nodes.map(|n| (n.min, n.max)), Some((1, 2)), "{case}"),
        ("ntasks", "100") => assert_eq!(r.ntasks, Some(100), "{case}"),
        ("open-mode", "append") => assert_eq!(r.open_mode, Some(OpenMode::Append), "{case}"),
        ("open-mode", "truncate") => assert_eq!(r.open_mode, Some(OpenMode::Truncate), "{case}"),
        ("priority", "top") => assert_eq!(r.priority, Some(Priority::Top), "{case}"),
        ("priority", "100") => assert_eq!(r.priority, Some(Priority::Value(100)), "{case}"),
        ("spread-job", _) => assert!(r.spread_job, "{case}"),
        ("test-only", _) => assert!(r.test_only, "{case}"),
        ("use-min-nodes", _) => assert!(r.use_min_nodes, "{case}"),
        ("switches", "10@16") => assert_eq!(
            r.switches.map(|s| (s.count, s.wait_secs)),
            Some((10, Some(960)))
        ),
        ("switches", "10") => {
            assert_eq!(r.switches.map(|s| (s.count, s.wait_secs)), Some((10, None)))
        }
        ("thread-spec", "1245") => assert_eq!(r.thread_spec, Some(1245), "{case}"),
        ("time" | "time-min", "0") => {
            assert_eq!(
                r.time_limit.or(r.time_min),
                Some(TimeLimit::Unlimited),
                "{case}"
            )
        }
        ("time" | "time-min", "60") => {
            assert_eq!(
                r.time_limit.or(r.time_min),
                Some(TimeLimit::Minutes(60)),
                "{case}"
            )
        }
        ("gres", "gpu:10") => {
            let reqs = r.gres_requests.as_deref().unwrap_or_default();
            assert_eq!(
                reqs.iter()
                    .map(|q| (q.name.as_str(), q.count_value()))
                    .collect::<Vec<_>>(),
                vec![("gpu", 10)]
            );
        }
        ("wait-all-nodes", v) => assert_eq!(r.wait_all_nodes, Some(v == "1"), "{case}"),
        _ => {}
    }
}

#[test]
fn umask_values() {
    assert_eq!(parse_umask("0770"), Some(0o770));
    assert_eq!(parse_umask("0"), Some(0));
    assert_eq!(parse_umask("invalid"), None);
    assert_eq!(parse_umask("0778"), None);
    assert_eq!(parse_umask("1777"), None);
}

fn err(cmd: Command, id: OptId, v: Option<&str>) -> (Vec<String>, i32) {
    let e = check(&ErrCtx::new(cmd), id, v).unwrap_err();
    (e.lines, e.exit_code)
}

#[test]
fn numeric_values_follow_parse_int() {
    let ok = |id, v: &str| check(&ErrCtx::new(Command::Sbatch), id, Some(v)).is_ok();
    for v in ["1", " 5", "+5", "010", "99999999999"] {
        assert!(ok(OptId::CpusPerTask, v), "{v:?}");
    }
    for v in ["0", "-1", "abc", "5x", "0x10", "", "1.5", "5 "] {
        assert!(!ok(OptId::CpusPerTask, v), "{v:?}");
    }
    assert!(ok(OptId::CoreSpec, "0") && !ok(OptId::CoreSpec, "-1"));
    assert!(ok(OptId::WaitAllNodes, "") && ok(OptId::WaitAllNodes, "0"));
    assert_eq!(
        err(
            Command::Sbatch,
            OptId::CpusPerTask,
            Some("99999999999999999999999999999999999999999999999999999999")
        ),
        (
            vec![
                "sbatch: error: Numeric argument (9223372036854775807) to big for --cpus-per-task."
                    .into()
            ],
            1
        )
    );
    assert_eq!(
        err(Command::Sbatch, OptId::WaitAllNodes, Some("2")),
        (
            vec!["sbatch: error: Invalid --wait-all-nodes specification".into()],
            255
        )
    );
    assert_eq!(
        err(Command::Srun, OptId::ResvPorts, Some("z")),
        (
            vec!["srun: error: Invalid numeric value \"z\" for --resv-port.".into()],
            1
        )
    );
    assert_eq!(
        err(Command::Srun, OptId::Immediate, Some("z")).0[0],
        "srun: error: Invalid numeric value \"z\" for immediate."
    );
    assert!(check(&ErrCtx::new(Command::Srun), OptId::Immediate, None).is_ok());
}

#[test]
fn keyword_values() {
    let ok = |id, v: Option<&str>| check(&ErrCtx::new(Command::Sbatch), id, v).is_ok();
    assert!(
        ok(OptId::Exclusive, None)
            && ok(OptId::Exclusive, Some("USER"))
            && ok(OptId::Exclusive, Some(""))
    );
    assert!(!ok(OptId::Exclusive, Some(" user")));
    assert!(
        ok(OptId::GetUserEnv, Some("10s"))
            && ok(OptId::GetUserEnv, Some("L"))
            && !ok(OptId::GetUserEnv, Some("10x"))
    );
    assert!(ok(OptId::GresFlags, Some("DISABLE-BINDING")) && !ok(OptId::GresFlags, Some("")));
    assert!(ok(OptId::OpenMode, Some("ap")) && !ok(OptId::OpenMode, Some("")));
    assert!(
        ok(OptId::NoKill, Some("OFF"))
            && ok(OptId::NoKill, Some(""))
            && !ok(OptId::NoKill, Some("on"))
    );
    assert!(ok(OptId::Profile, Some("energy,Task")) && !ok(OptId::Profile, Some("")));
    assert!(ok(OptId::AcctgFreq, Some("30")) && ok(OptId::AcctgFreq, Some("task=1,energy=5")));
    assert!(!ok(OptId::AcctgFreq, Some("task=x")));
    assert!(ok(OptId::Nice, Some("abc")) && ok(OptId::Nice, Some("-2147483645")));
    assert!(!ok(OptId::Nice, Some("2147483646")));
    assert!(ok(OptId::Priority, Some("TOP")) && ok(OptId::Priority, Some("4294967293")));
    let srun = |id, v| check(&ErrCtx::new(Command::Srun), id, Some(v)).is_ok();
    assert!(
        srun(OptId::SendLibs, "yEs") && srun(OptId::SendLibs, "N") && !srun(OptId::SendLibs, "1")
    );
    assert!(srun(OptId::HetGroup, "0-2,4") && !srun(OptId::HetGroup, "z"));
    let salloc = |v| check(&ErrCtx::new(Command::Salloc), OptId::KillCommand, Some(v)).is_ok();
    assert!(salloc("9") && salloc("USR1") && salloc("SIGTERM") && !salloc("0") && !salloc("z"));
}

#[test]
fn extra_node_info_parts() {
    let ok = |v| check(&ErrCtx::new(Command::Sbatch), OptId::ExtraNodeInfo, Some(v)).is_ok();
    for v in ["2", "2:4", "2:4:1", "*:2", "1-2", "0", ":2", "2:4:1:x"] {
        assert!(ok(v), "{v}");
    }
    assert_eq!(
        err(Command::Sbatch, OptId::ExtraNodeInfo, Some("2:x")).0,
        vec!["sbatch: error: Invalid numeric value \"x\" for second arg of -B."]
    );
    assert_eq!(
        err(Command::Sbatch, OptId::ExtraNodeInfo, Some("1-x")).0,
        vec!["sbatch: error: Invalid numeric value \"1-x\" for first arg of -B."]
    );
}

#[test]
fn grammar_values() {
    assert_eq!(
        err(Command::Sbatch, OptId::Time, Some("3x")).0,
        vec!["sbatch: error: Invalid --time specification"]
    );
    assert_eq!(
        err(Command::Sbatch, OptId::TimeMin, Some("x")).0,
        vec!["sbatch: error: Invalid --time-min specification"]
    );
    assert_eq!(
        err(Command::Sbatch, OptId::Nodes, Some("5-2")).0,
        vec!["sbatch: error: Maximum node count 2 is less than minimum node count 5"]
    );
    assert_eq!(
        err(Command::Sbatch, OptId::Distribution, Some("plane")).0,
        vec![
            "sbatch: error: Invalid plane size or size not specified",
            "sbatch: error: Invalid --distribution specification"
        ]
    );
    assert_eq!(
        err(Command::Sbatch, OptId::MemPerGpu, Some("x")),
        (
            vec!["sbatch: error: Invalid --mem-per-gpu specification".into()],
            255
        )
    );
    assert_eq!(
        err(Command::Sbatch, OptId::Begin, Some("xyz")),
        (
            vec![
                "Invalid time specification (pos=0): xyz".to_string(),
                "sbatch: error: Invalid --begin specification".to_string()
            ],
            255
        )
    );
    assert_eq!(
        err(Command::Sbatch, OptId::Deadline, Some("")).0,
        vec!["sbatch: error: Invalid --deadline specification"]
    );
    assert!(check(
        &ErrCtx::new(Command::Sbatch),
        OptId::Begin,
        Some("16:00 tomorrow")
    )
    .is_ok());
    // `B:` is a flag only for sbatch.
    assert!(check(&ErrCtx::new(Command::Sbatch), OptId::Signal, Some("B:USR1")).is_ok());
    assert_eq!(
        err(Command::Srun, OptId::Signal, Some("B:USR1")).0,
        vec!["srun: error: Invalid --signal specification"]
    );
}
