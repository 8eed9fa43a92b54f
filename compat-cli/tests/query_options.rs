//! The query commands' option handling as a user sees it: `--help`, `--usage`, `--version`, getopt's error texts,
//! abbreviations, clusters of short options, values attached or separate, options after operands and the exit
//! codes, for every query command (squeue, sinfo, scontrol, scancel, sacct, sacctmgr, sprio, sshare, sstat,
//! sattach). The expected outputs (`query_options.golden`) were recorded from the binary before the commands'
//! parsing moved onto core's option tables, so any change in what a user sees shows here byte for byte.
//!
//! No controller runs: every invocation either ends in the parser or fails to reach `SPUR_CONTROLLER`, which
//! points at a port nothing listens on. `SPUR_BLESS_QUERY_OPTIONS=1` rewrites the golden file (only ever wanted when
//! a change to the commands' observable behaviour is intended).

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const COMMANDS: &[&str] = &[
    "squeue", "sinfo", "scontrol", "scancel", "sacct", "sacctmgr", "sprio", "sshare", "sstat",
    "sattach",
];

/// Every long option name any query command knows (and a few it does not), so each command meets names of its own
/// and of the others.
const LONG_NAMES: &[&str] = &[
    "account",
    "accounts",
    "all",
    "allocations",
    "allsteps",
    "allusers",
    "array",
    "array-unique",
    "batch",
    "brief",
    "cluster",
    "clusters",
    "completion",
    "ctld",
    "dead",
    "delimiter",
    "details",
    "duplicates",
    "endtime",
    "error-filter",
    "exact",
    "federation",
    "fields",
    "format",
    "Format",
    "full",
    "future",
    "help",
    "helpformat",
    "hide",
    "hurry",
    "immediate",
    "input-filter",
    "interactive",
    "iterate",
    "jobname",
    "jobs",
    "json",
    "label",
    "layout",
    "licenses",
    "list-reasons",
    "local",
    "long",
    "me",
    "name",
    "Node",
    "nodelist",
    "nodes",
    "noconvert",
    "noheader",
    "norm",
    "oneliner",
    "output-filter",
    "parsable",
    "parsable2",
    "partition",
    "pidformat",
    "priority",
    "pty",
    "qos",
    "quiet",
    "readonly",
    "reservation",
    "responding",
    "sibling",
    "signal",
    "sort",
    "start",
    "starttime",
    "state",
    "states",
    "steps",
    "summarize",
    "uid",
    "usage",
    "user",
    "users",
    "Users",
    "verbose",
    "version",
    "weights",
    "wckey",
    "yaml",
];

/// Invocations that are the same for every command.
const FIXED: &[&[&str]] = &[
    &[],
    &["--help"],
    &["--usage"],
    &["-V"],
    &["--version"],
    &["-h"],
    &["-Z"],
    &["--frob"],
    &["--frob=1"],
    &["--=x"],
    &["--", "--help"],
    &["-", "--usage"],
    &["x", "--help"],
    &["--help", "x"],
    &["x", "--usage"],
    &["x", "y", "--usage"],
    &["-v", "--usage"],
    &["--usage", "-Z"],
    &["-Z", "--usage"],
    &["--usage", "--frob"],
    &["--he"],
    &["--us"],
    &["--ver"],
    &["--v"],
    &["-vV"],
    &["-Vv"],
    &["-vvV"],
    &["--version=1"],
    &["--help=1"],
    &["--usage=1"],
    &["--usage", "--version"],
    &["--version", "--help"],
    &["-hV"],
    &["-Vh"],
    &["-o", "--usage"],
    &["-o"],
    &["--format"],
    &["--format=%i", "--usage"],
    &["--format", "%i", "--usage"],
    &["-o%i", "--usage"],
    &["-o", "%i", "--usage"],
    &["-j", "5", "--usage"],
    &["-j5", "--usage"],
    &["--jobs=5", "--usage"],
    &["--jobs", "5", "--usage"],
    &["-j"],
    &["--jobs"],
    &["--jobs="],
    &["-i", "--help"],
    &["show", "job", "5", "-Z"],
    &["-o", "show", "hostnames", "n[1-2]"],
    &["show", "hostnames", "n[1-2]", "-o"],
    &["--oneliner", "show", "hostlist", "n1,n2"],
    &["--one", "show", "hostlist", "n1,n2"],
    &["-do", "show", "hostlist", "n1,n2"],
    &["-Q", "--details", "--usage"],
    &["-n", "-P", "-p", "-i", "-Q", "--help"],
    &["--noheader", "--parsable2", "--immediate", "--usage"],
    &["--nohead", "--usage"],
    &["show", "--help"],
    &["5.0", "--help"],
    &["5.0", "-Z"],
    &["-l", "5.0", "--usage"],
    &["--input-filter", "1", "--usage"],
    &[
        "--input-filter=1",
        "--output-filter=2",
        "--error-filter=3",
        "--usage",
    ],
    &["-l", "-Q", "-lQ", "--usage"],
    &["--layout"],
    &["--label", "x.y"],
    &["-s", "KILL", "--usage"],
    &["-sKILL", "--usage"],
    &["--signal=KILL", "--usage"],
    &["-s", "BOGUS"],
    &["--signal=BOGUS"],
    &["-t", "PENDING", "--usage"],
    &["-b", "-f", "-H", "-Q", "--usage"],
    &["5", "6_7", "--usage"],
    &["abc"],
    &["-n"],
    &["-j", "1,2", "-u", "x", "-j3", "--usage"],
    &["-w", "--help"],
    &["-e"],
    &["--helpformat"],
    &["--helpf"],
    &["-o", "Bogus"],
    &["--format=Bogus"],
    &["-S", "bad-time"],
    &["-j", "x"],
    &["-a", "-j", "abc"],
    &["--jobs=1.x"],
    &["--delimiter"],
    &["--delimiter=:", "--usage"],
    &["-hl"],
    &["-lh"],
];

fn letters() -> impl Iterator<Item = char> {
    ('a'..='z').chain('A'..='Z').chain(['0', '?', '%'])
}

/// Every case, as (command, arguments).
fn cases() -> Vec<(String, Vec<String>)> {
    let mut per_command: Vec<Vec<String>> = Vec::new();
    for fixed in FIXED {
        per_command.push(fixed.iter().map(|s| s.to_string()).collect());
    }
    for c in letters() {
        per_command.push(vec![format!("-{c}")]);
        per_command.push(vec!["--usage".into(), format!("-{c}")]);
        per_command.push(vec![format!("-{c}5"), "--usage".into()]);
    }
    let mut prefixes = BTreeSet::new();
    for name in LONG_NAMES {
        // Abbreviations are where getopt's ambiguity rules show; longer ones behave like the full names.
        for end in 1..=name.len().min(3) {
            prefixes.insert(name[..end].to_string());
        }
    }
    for prefix in &prefixes {
        per_command.push(vec![format!("--{prefix}"), "--usage".into()]);
    }
    for name in LONG_NAMES {
        per_command.push(vec![format!("--{name}")]);
        per_command.push(vec!["--usage".into(), format!("--{name}")]);
        per_command.push(vec![format!("--{name}=v"), "--usage".into()]);
    }
    let mut all = Vec::new();
    for command in COMMANDS {
        for args in &per_command {
            all.push((command.to_string(), args.clone()));
        }
    }
    all
}

fn escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
    out
}

/// Runs one case; a case that does not end within the limit is recorded as such (it should never happen).
fn run(command: &str, args: &[String], scratch: &std::path::Path) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spur"))
        .arg(command)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", scratch)
        .env("SLURM_CONF", scratch.join("no-slurm.conf"))
        .env("SPUR_CONTROLLER", "http://127.0.0.1:1")
        // A token, so no credential daemon is asked whether or not one runs here.
        .env("SLURM_JWT", "query-options-test")
        .current_dir(scratch)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run spur");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for spur") {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    let code = match status {
        Some(s) => s.code().map_or("signal".to_string(), |c| c.to_string()),
        None => "timeout".to_string(),
    };
    let scratch_text = scratch.display().to_string();
    let mask = |text: &str| escape(&text.replace(&scratch_text, "$SCRATCH"));
    format!("{code}\t{}\t{}", mask(&stdout), mask(&stderr))
}

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/query_options.golden")
}

/// The golden file: each distinct outcome once (`@N`, exit code, stdout, stderr), then each case and its outcome.
fn render(results: &[(String, String)]) -> String {
    let mut outcomes: Vec<&str> = Vec::new();
    let mut cases = String::new();
    for (key, outcome) in results {
        let n = match outcomes.iter().position(|o| o == outcome) {
            Some(n) => n,
            None => {
                outcomes.push(outcome);
                outcomes.len() - 1
            }
        };
        cases.push_str(&format!("{key}\t@{n}\n"));
    }
    let mut out = String::from("# outcomes: @N, exit code, stdout, stderr (escaped)\n");
    for (n, outcome) in outcomes.iter().enumerate() {
        out.push_str(&format!("@{n}\t{outcome}\n"));
    }
    out.push_str("# cases: command and arguments, outcome\n");
    out + &cases
}

/// Each case of a golden file with its outcome spelled out.
fn expand(golden: &str) -> Vec<(String, String)> {
    let mut outcomes = std::collections::HashMap::new();
    let mut cases = Vec::new();
    for line in golden.lines().filter(|l| !l.starts_with('#')) {
        let (head, rest) = line.split_once('\t').expect("a tab in every line");
        if head.starts_with('@') {
            outcomes.insert(head.to_string(), rest.to_string());
        } else {
            cases.push((head.to_string(), rest.to_string()));
        }
    }
    cases
        .into_iter()
        .map(|(key, n)| {
            let outcome = outcomes.get(&n).cloned().unwrap_or_default();
            (key, outcome)
        })
        .collect()
}

#[test]
fn query_command_options_behave_as_recorded() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let mut results = Vec::new();
    for (command, args) in cases() {
        let key = format!(
            "{command} {}",
            args.iter().map(|a| escape(a)).collect::<Vec<_>>().join(" ")
        );
        results.push((escape(&key), run(&command, &args, scratch.path())));
    }
    if std::env::var_os("SPUR_BLESS_QUERY_OPTIONS").is_some() {
        std::fs::write(golden_path(), render(&results)).expect("write golden file");
        return;
    }
    let want = expand(&std::fs::read_to_string(golden_path()).expect("read golden file"));
    assert_eq!(results.len(), want.len(), "case count changed");
    let failures: Vec<String> = results
        .iter()
        .zip(&want)
        .filter(|(g, w)| g != w)
        .map(|((key, got), (_, want))| format!("{key}\n  got:  {got}\n  want: {want}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        results.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
