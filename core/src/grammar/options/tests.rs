//! End-to-end checks of the parsers against what Slurm 22.05.8 did with the same inputs.

use proptest::prelude::*;

use super::*;

const ARGV_TSV: &str = include_str!("../../../tests/vectors/argv_errors.tsv");
const DIRECTIVES_TSV: &str = include_str!("../../../tests/vectors/directives.tsv");

fn rows(tsv: &str) -> Vec<Vec<String>> {
    tsv.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').map(unescape).collect())
        .collect()
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

fn env_of(s: &str) -> Vec<(String, String)> {
    s.split(';')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn no_env() -> Vec<(String, String)> {
    Vec::new()
}

/// Runs sbatch with `script` standing for every script path (and for stdin).
fn sbatch(args: &[String], env: &[(String, String)], script: &[u8]) -> Result<Outcome, OptError> {
    parse_sbatch(args, env, |path| match path {
        Some(p) if p.starts_with("/nonexistent") => None,
        _ => Some(script.to_vec()),
    })
}

fn run(outcome: Result<Outcome, OptError>) -> Parsed {
    match outcome {
        Ok(Outcome::Run(p)) => p,
        other => panic!("expected a parse, got {other:?}"),
    }
}

#[test]
fn argv_errors_match_slurm() {
    for r in rows(ARGV_TSV) {
        let (cmd, args, exit, stderr) = (&r[0], words(&r[1]), &r[2], &r[3]);
        let result = match cmd.as_str() {
            // As when generated: job.sh is a valid script, stdin is empty.
            "sbatch" => parse_sbatch(&args, &no_env(), |path| match path {
                Some("job.sh") => Some(b"#!/bin/sh\ntrue\n".to_vec()),
                Some(_) => None,
                None => Some(Vec::new()),
            }),
            "srun" => parse_srun(&args, &no_env()),
            _ => parse_salloc(&args, &no_env()),
        };
        let err = result.expect_err(&format!("{cmd} {args:?} should fail"));
        assert_eq!(err.lines.join("\n"), *stderr, "{cmd} {args:?}");
        assert_eq!(err.exit_code.to_string(), *exit, "{cmd} {args:?}");
    }
}

/// `-v` shows some values after Slurm normalised them; these are shown as given.
const VERBATIM: &[&str] = &[
    "account",
    "array",
    "comment",
    "dependency",
    "exclude",
    "export",
    "job-name",
    "mail-type",
    "mail-user",
    "mincpus",
    "nice",
    "nodes",
    "ntasks",
    "partition",
    "qos",
    "tmp",
    "wckey",
];
const PAIRS: &[(&str, &str)] = &[("requeue", "no-requeue"), ("exclusive", "oversubscribe")];

fn opt_named(name: &str) -> OptId {
    if name == "(null)" {
        return OptId::Umask;
    }
    table::by_long(Command::Sbatch, name)
        .map(|d| d.id)
        .unwrap_or_else(|| panic!("no option {name}"))
}

fn check_component(case: &str, shown: &str, got: &OptionSet) {
    let mut expected_ids = std::collections::BTreeSet::new();
    for item in shown.split(';').filter(|s| !s.is_empty()) {
        let (name, value) = item.split_once('=').unwrap_or((item, ""));
        if let Some((a, b)) = PAIRS.iter().find(|(a, b)| *a == name || *b == name) {
            // Slurm shows both options of a pair with the winner's name (or the value) as value.
            let winner = if value == *a || value == *b { value } else { a };
            expected_ids.insert(opt_named(winner));
            if winner == *a && value != *a {
                assert_eq!(got.value(opt_named(a)), Some(value), "{case}: {name}");
            }
            continue;
        }
        let id = opt_named(name);
        expected_ids.insert(id);
        if name == "verbose" {
            assert_eq!(got.verbosity().to_string(), value, "{case}: verbosity");
        } else if VERBATIM.contains(&name) {
            assert_eq!(got.value(id), Some(value), "{case}: {name}");
        }
    }
    let ours: std::collections::BTreeSet<OptId> = got
        .iter()
        .filter(|(_, e)| !(e.count == 0 && e.value.is_none()))
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ours, expected_ids, "{case}");
}

#[test]
fn scripts_match_slurm() {
    for r in rows(DIRECTIVES_TSV) {
        let (script, args, env, components, stderr) =
            (&r[0], words(&r[1]), env_of(&r[2]), &r[4], &r[5]);
        let mut argv = args.clone();
        argv.push("t.sh".into());
        let case = format!("{args:?} {script:?}");
        let result = sbatch(&argv, &env, script.as_bytes());
        if components.is_empty() {
            let err = result.expect_err(&case);
            assert_eq!(err.lines.join("\n"), *stderr, "{case}");
            assert_eq!(err.exit_code.to_string(), r[3], "{case}");
            continue;
        }
        let parsed = run(result);
        assert_eq!(parsed.warnings.join("\n"), *stderr, "{case}");
        let shown: Vec<&str> = components.split(" || ").collect();
        assert_eq!(parsed.components.len(), shown.len(), "{case}");
        for (c, s) in parsed.components.iter().zip(shown) {
            check_component(&case, s, &c.options);
        }
    }
}

#[test]
fn precedence_command_line_over_environment_over_script() {
    let script = b"#!/bin/sh\n#SBATCH -p sp -J sj --comment=script -t 10\n";
    let env = env_of("SBATCH_PARTITION=ep;SBATCH_JOB_NAME=ej");
    let p = run(sbatch(&words("-p cp job.sh a b"), &env, script));
    let o = &p.components[0].options;
    assert_eq!(o.value(OptId::Partition), Some("cp"));
    assert_eq!(
        o.source(OptId::Partition),
        Some(Source::CommandLine { index: 0 })
    );
    assert_eq!(o.value(OptId::JobName), Some("ej"));
    assert_eq!(
        o.source(OptId::JobName),
        Some(Source::Env {
            var: "SBATCH_JOB_NAME"
        })
    );
    assert_eq!(o.value(OptId::Comment), Some("script"));
    assert_eq!(
        o.source(OptId::Comment),
        Some(Source::Directive { line: 2 })
    );
    assert_eq!(p.positional, words("job.sh a b"));
    let s = p
        .script
        .unwrap_or_else(|| panic!("sbatch keeps its script"));
    assert_eq!((s.name.as_str(), s.wrapped), ("job.sh", false));
}

#[test]
fn script_arguments_are_not_options() {
    let p = run(sbatch(
        &words("-N1 dir/job.sh --frob -N 9"),
        &no_env(),
        b"#!/bin/sh\n",
    ));
    assert_eq!(p.positional, words("dir/job.sh --frob -N 9"));
    assert_eq!(p.components[0].options.value(OptId::Nodes), Some("1"));
    assert_eq!(p.script.map(|s| s.name), Some("job.sh".to_string()));
}

#[test]
fn stdin_script_and_wrap() {
    let p = run(sbatch(
        &words("-N1"),
        &no_env(),
        b"#!/bin/sh\n#SBATCH -J fromstdin\n",
    ));
    assert_eq!(p.script.as_ref().map(|s| s.name.as_str()), Some("stdin"));
    assert_eq!(
        p.components[0].options.value(OptId::JobName),
        Some("fromstdin")
    );

    let p = run(sbatch(&words("--wrap=hostname -J w"), &no_env(), b""));
    let s = p.script.unwrap_or_else(|| panic!("wrap builds a script"));
    assert!(s.wrapped);
    assert_eq!(
        s.body,
        b"#!/bin/sh\n# This script was created by sbatch --wrap.\n\nhostname\n".to_vec()
    );

    let e = sbatch(
        &words("--wrap true job1.sh"),
        &env_of("SLURM_EXIT_ERROR=7"),
        b"",
    )
    .unwrap_err();
    assert_eq!(
        e.lines,
        vec!["sbatch: error: Script arguments not permitted with --wrap option"]
    );
    assert_eq!(e.exit_code, 7);
}

#[test]
fn early_actions() {
    assert_eq!(
        sbatch(&words("--help --frob"), &no_env(), b"").ok(),
        None,
        "getopt errors come first"
    );
    assert_eq!(
        sbatch(&words("-N1 --help"), &no_env(), b""),
        Ok(Outcome::Early(EarlyAction::Help))
    );
    assert_eq!(
        parse_srun(&words("--usage"), &no_env()),
        Ok(Outcome::Early(EarlyAction::Usage))
    );
    assert_eq!(
        parse_salloc(&words("-V -N x"), &no_env()),
        Ok(Outcome::Early(EarlyAction::Version))
    );
    // Script problems never get a chance when --help comes first.
    assert_eq!(
        sbatch(&words("--help /nonexistent.sh"), &no_env(), b""),
        Ok(Outcome::Early(EarlyAction::Help))
    );
}

#[test]
fn srun_and_salloc_commands() {
    let p = run(parse_srun(
        &words("-N1 -l hostname -s : -n2 date"),
        &no_env(),
    ));
    assert_eq!(p.components.len(), 2);
    assert_eq!(p.components[0].command, words("hostname -s"));
    assert!(p.components[0].options.is_set(OptId::Label));
    assert_eq!(p.components[1].options.value(OptId::Ntasks), Some("2"));
    assert_eq!(p.positional, words("date"));

    let p = run(parse_salloc(
        &words("-N2 bash -c true"),
        &env_of("SALLOC_PARTITION=z;SLURM_PARTITION=x"),
    ));
    assert_eq!(p.positional, words("bash -c true"));
    assert_eq!(p.components[0].options.value(OptId::Partition), Some("z"));
    assert!(p.script.is_none());

    let p = run(parse_salloc(&[], &no_env()));
    assert!(p.positional.is_empty() && p.components[0].options.is_empty());
}

#[test]
fn verbosity_rules_per_command() {
    let v = |p: Parsed| p.components[0].options.verbosity();
    assert_eq!(
        v(run(parse_srun(
            &words("-vv true"),
            &env_of("SLURM_DEBUG=2")
        ))),
        4
    );
    assert_eq!(
        v(run(parse_salloc(&words("-v"), &env_of("SALLOC_DEBUG=1")))),
        2
    );
    assert_eq!(
        v(run(sbatch(
            &words("-vvv job.sh"),
            &env_of("SBATCH_DEBUG=1"),
            b"#!/bin/sh\n"
        ))),
        1
    );
    assert_eq!(
        v(run(sbatch(
            &words("-v job.sh"),
            &env_of("SBATCH_DEBUG=0"),
            b"#!/bin/sh\n"
        ))),
        0
    );
    assert_eq!(
        v(run(sbatch(
            &words("-v -v job.sh"),
            &no_env(),
            b"#!/bin/sh\n#SBATCH -vvvv\n"
        ))),
        2
    );
}

#[test]
fn late_checks_follow_script_checks() {
    let e = sbatch(&words("--hint=bogus"), &no_env(), b"").unwrap_err();
    assert_eq!(e.lines, vec!["sbatch: error: Batch script is empty!"]);
    let e = sbatch(&words("--hint=bogus job.sh"), &no_env(), b"#!/bin/sh\n").unwrap_err();
    assert_eq!(
        e.lines,
        vec!["sbatch: error: unrecognized --hint argument \"bogus\", see --hint=help"]
    );
    assert_eq!(e.exit_code, 1);
    // Only the winning value is checked.
    assert!(sbatch(
        &words("--hint=nomultithread job.sh"),
        &no_env(),
        b"#!/bin/sh\n#SBATCH --hint=x\n"
    )
    .is_ok());
}

#[test]
fn heterogeneous_components_merge_by_index() {
    let script = b"#!/bin/sh\n#SBATCH -J a\n#SBATCH hetjob\n#SBATCH -J b\n";
    let p = run(sbatch(
        &words("-p p0 : -p p1 : -p p2 job.sh"),
        &env_of("SBATCH_QOS=q"),
        script,
    ));
    assert_eq!(p.components.len(), 3);
    let got: Vec<(Option<&str>, Option<&str>, Option<&str>)> = p
        .components
        .iter()
        .map(|c| {
            (
                c.options.value(OptId::JobName),
                c.options.value(OptId::Partition),
                c.options.value(OptId::Qos),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (Some("a"), Some("p0"), Some("q")),
            (Some("b"), Some("p1"), Some("q")),
            // `--job-name` runs on from the component before (Slurm's propagated options).
            (Some("b"), Some("p2"), Some("q"))
        ]
    );
}

#[test]
fn exit_error_warning_is_reported() {
    let p = run(sbatch(
        &words("job.sh"),
        &env_of("SLURM_EXIT_ERROR=0"),
        b"#!/bin/sh\n#SLURM -N1\n",
    ));
    assert_eq!(
        p.warnings,
        vec![
            "sbatch: error: SLURM_EXIT_ERROR has zero value",
            "sbatch: error: Change from #SLURM to #SBATCH in your script and verify the options are valid in sbatch",
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_argv_never_panics(args in proptest::collection::vec("[-=:a-zA-Z0-9_ ]{0,12}|--[a-z-]{0,14}(=[a-z0-9]{0,4})?|-[a-zA-Z]{1,4}", 0..8)) {
        let _ = sbatch(&args, &no_env(), b"#!/bin/sh\n");
        let _ = parse_srun(&args, &no_env());
        let _ = parse_salloc(&args, &no_env());
    }

    #[test]
    fn arbitrary_scripts_never_panic(body in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = sbatch(&words("job.sh"), &no_env(), &body);
    }

    #[test]
    fn arbitrary_directive_lines_never_panic(lines in proptest::collection::vec("(#SBATCH|#PBS|#BSUB|#SLURM|# |)[ -~\t]{0,30}", 0..6)) {
        let body = format!("#!/bin/sh\n{}\n", lines.join("\n"));
        let _ = sbatch(&words("job.sh"), &no_env(), body.as_bytes());
    }

    #[test]
    fn arbitrary_environment_never_panics(values in proptest::collection::vec("[ -~]{0,10}", 8)) {
        let names = ["SBATCH_TIMELIMIT", "SBATCH_NO_KILL", "SBATCH_DEBUG", "SLURM_EXIT_ERROR", "SBATCH_CPU_FREQ_REQ",
                     "SBATCH_MEM_BIND", "SBATCH_EXCLUSIVE", "SBATCH_WAIT_ALL_NODES"];
        let env: Vec<(String, String)> = names.iter().map(|n| n.to_string()).zip(values).collect();
        let _ = sbatch(&words("job.sh"), &env, b"#!/bin/sh\n");
    }
}
