use super::*;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn tables_are_consistent() {
    for table in TABLES {
        let p = table.program;
        let mut shorts: Vec<char> = table.rows.iter().filter_map(|r| r.short).collect();
        let count = shorts.len();
        shorts.sort_unstable();
        shorts.dedup();
        assert_eq!(shorts.len(), count, "{p}: a short letter used twice");
        // The getopt order, when given, names every long name once.
        if !table.getopt_order.is_empty() {
            let mut names: Vec<&str> = table
                .rows
                .iter()
                .flat_map(|r| std::iter::once(r.long).chain(r.aliases.iter().copied()))
                .collect();
            names.sort_unstable();
            names.dedup();
            let mut order = table.getopt_order.to_vec();
            order.sort_unstable();
            assert_eq!(order, names, "{p}: getopt order");
        }
        for row in table.rows {
            if matches!(table.scan, Scan::Words { .. }) {
                assert_ne!(
                    row.arg,
                    ArgKind::Optional,
                    "{p}: word options take a value or none"
                );
            } else {
                assert!(!row.early, "{p}: early only means something to word tables");
            }
        }
        for name in ["help", "usage", "version"] {
            assert!(
                table.rows.iter().any(|r| r.long == name),
                "{p} lacks --{name}"
            );
        }
        assert!(table.usage_text().ends_with('\n'), "{p}");
        for row in table.rows.iter().filter(|r| r.letter) {
            assert!(row.short.is_some(), "{p}: --{} has no letter", row.long);
        }
        assert!(table.help_text().ends_with('\n'), "{p}");
    }
}

#[test]
fn long_short_clusters_and_prefixes() {
    let p = SQUEUE
        .parse(&args(&["-hl", "-o%i", "--jobs=3", "--form", "%j", "x"]))
        .unwrap();
    assert!(p.has("noheader") && p.has("long"));
    assert_eq!(p.value("format"), Some("%j"));
    assert_eq!(p.value("jobs"), Some("3"));
    assert_eq!(p.positional, vec!["x".to_string()]);
    // Options after operands, and `--` ending the options.
    let p = SQUEUE.parse(&args(&["x", "--start", "--", "-l"])).unwrap();
    assert!(p.has("start") && !p.has("long"));
    assert_eq!(p.positional, args(&["x", "-l"]));
}

#[test]
fn optional_values_only_attached() {
    let p = SPRIO
        .parse(&args(&["-j", "5", "-lj7", "--jobs=8", "--jobs"]))
        .unwrap();
    let values: Vec<Option<&str>> = p
        .options
        .iter()
        .filter(|(n, _)| *n == "jobs")
        .map(|(_, v)| v.as_deref())
        .collect();
    assert_eq!(values, vec![None, Some("7"), Some("8"), None]);
    assert_eq!(p.positional, args(&["5"]));
}

#[test]
fn getopt_errors_read_as_getopt_prints_them() {
    let lines = |table: &QueryTable, list: &[&str]| table.parse(&args(list)).unwrap_err().lines;
    assert_eq!(
        lines(&SQUEUE, &["--frob=1"]),
        vec![
            "squeue: unrecognized option '--frob'",
            "Try \"squeue --help\" for more information"
        ]
    );
    assert_eq!(lines(&SQUEUE, &["-Z"])[0], "squeue: invalid option -- 'Z'");
    assert_eq!(
        lines(&SQUEUE, &["-o"])[0],
        "squeue: option requires an argument -- 'o'"
    );
    assert_eq!(
        lines(&SQUEUE, &["--format"])[0],
        "squeue: option '--format' requires an argument"
    );
    assert_eq!(
        lines(&SQUEUE, &["--no"])[0],
        "squeue: option '--no' is ambiguous; possibilities: '--noconvert' '--noheader' '--nodelist'"
    );
    assert_eq!(
        lines(&SQUEUE, &["--long=1"])[0],
        "squeue: option '--long' doesn't allow an argument"
    );
    // sshare's two letters for one option do not make `--nohead` ambiguous; the getopt order lists candidates.
    assert!(SSHARE
        .parse(&args(&["--nohead", "-h"]))
        .unwrap()
        .has("noheader"));
    assert_eq!(
        lines(&SSHARE, &["--a"])[0],
        "sshare: option '--a' is ambiguous; possibilities: '--accounts' '--all'"
    );
    assert_eq!(SQUEUE.parse(&args(&["-Z"])).unwrap_err().exit_code, 1);
}

#[test]
fn word_tables_match_whole_words() {
    let p = SCONTROL
        .parse(&args(&["-o", "show", "job", "-d", "--one"]))
        .unwrap();
    assert!(p.has("oneliner") && p.has("details"));
    assert_eq!(p.positional, args(&["show", "job", "--one"]));
    assert_eq!(
        SCONTROL.parse(&args(&["--one"])).unwrap_err().lines[0],
        "scontrol: unrecognized option '--one'"
    );
    // The first early option ends the scan: what follows is never looked at.
    assert!(SCONTROL
        .parse(&args(&["--help", "-Z"]))
        .unwrap()
        .has("help"));
    assert!(SCONTROL.parse(&args(&["-Z", "--help"])).is_err());
    // A word option with a value takes the next word or its attached value.
    let p = SCONTROL
        .parse(&args(&["-M", "c1", "show", "--cluster=c2", "-uroot"]))
        .unwrap();
    assert_eq!(p.values(&["cluster"]).collect::<Vec<_>>(), ["c1", "c2"]);
    assert_eq!(p.value("uid"), Some("root"));
    assert_eq!(p.positional, args(&["show"]));
    assert_eq!(
        SCONTROL.parse(&args(&["show", "-M"])).unwrap_err().lines[0],
        "scontrol: option requires an argument -- 'M'"
    );
    let p = SACCTMGR.parse(&args(&["-Z", "-n", "show", "qos"])).unwrap();
    assert_eq!(p.positional, args(&["-Z", "show", "qos"]));
}

#[test]
fn help_lists_entries_at_the_column() {
    // sacct's entries as Slurm lays them out by hand, padded to 76 with tabs stopping every 8 columns.
    let text = SACCT.help_text();
    assert!(text.starts_with(&format!("{:76}\n", "sacct [<OPTION>]")));
    assert!(text.contains(&format!(
        "\n{:76}\n\t{:68}\n",
        "     -b, --brief:", "           Equivalent to '--format=jobstep,state,error'."
    )));
    assert!(text.contains("\n                   clusters.\n"));
    assert!(text.ends_with("weeks]]\n\n"));
    let text = SSHARE.help_text();
    // Padded to 75, a `"` counting twice as in Slurm's source; the text ends with an
    // empty line.
    assert!(text
        .lines()
        .filter(|l| !l.is_empty())
        .all(|l| l.len() + l.matches('"').count() >= 75));
    assert!(text.contains("    -M or --cluster=names  clusters to issue commands to."));
    assert!(text.ends_with(&format!("{:75}\n\n", "")));
    // squeue's --help: its own order (not the usage lines'), `--name` once under `-n` and once alone, lines
    // Slurm indents with tabs kept, then the `Help options:` section.
    let text = SQUEUE.help_text();
    assert!(text.starts_with("Usage: squeue [OPTIONS]\n  -A, --account=account(s)        comma"));
    assert!(text.contains("\n  -n, --name=job_name(s)          comma"));
    assert!(text.contains("\n      --name=job_name(s)          comma"));
    assert!(text.contains("\n\t\t\t\t  to view, default is all accounts\n"));
    assert!(text.ends_with("\n\nHelp options:\n  --help                          show this help message\n  \
                            --usage                         display a brief summary of squeue options\n"));
    // sinfo's `--hide` has no slot for a letter.
    assert!(SINFO
        .help_text()
        .contains("\n  --hide                     do not show"));
}

#[test]
fn usage_lines_are_built_from_the_rows() {
    assert_eq!(
        SPRIO.usage_text(),
        "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n   \
         [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n"
    );
    let sinfo = SINFO.usage_text();
    assert!(sinfo.starts_with("Usage: sinfo [-abdelNRrsTv] [-i seconds]"));
    assert!(sinfo.lines().all(|l| l.len() <= SINFO.usage.width));
    // squeue's group on a line of its own, after a tab.
    assert!(SQUEUE
        .usage_text()
        .ends_with(" [--local] [--sibling]\n\t      [-ahjlrsv]\n"));
    // A group Slurm writes by hand names every letter the rows put in it.
    for table in TABLES {
        let group = table.usage.group;
        for row in table.rows.iter().filter(|r| r.letter && !group.is_empty()) {
            let c = row.short.unwrap_or(' ');
            assert!(group.contains(c), "{}: -{c}", table.program);
        }
    }
    assert!(SCANCEL
        .usage_text()
        .ends_with("\n               [job_id[_array_id][.step_id]]\n"));
    assert_eq!(SCONTROL.usage_text(), "scontrol [<OPTION>] [<COMMAND>]\n");
}

#[test]
fn verbatim_entries_name_their_rows() {
    // An entry Slurm lays out by hand still belongs to the option the parser knows: its first line names the
    // row's long name (or an alias) and the row's letter.
    for table in TABLES {
        let Help::List(list) = &table.help else {
            continue;
        };
        if list.style != EntryStyle::Verbatim {
            continue;
        }
        // Rows under `Help options:` are laid out from their names (strigger's `--help`, `--usage`).
        for row in table
            .rows
            .iter()
            .filter(|r| !r.help.is_empty() && !list.help_options.contains(&r.long))
        {
            let first = row.help.lines().next().unwrap_or_default();
            let names = std::iter::once(row.long).chain(row.aliases.iter().copied());
            assert!(
                names.into_iter().any(|n| first.contains(&format!("--{n}"))),
                "{}: {first}",
                table.program
            );
            // The letter, where the entry shows one (sacct's --usage hides its -U).
            let shown_letter = first
                .trim_start()
                .strip_prefix('-')
                .and_then(|t| t.chars().next());
            if let Some(l) = shown_letter.filter(|l| *l != '-') {
                assert_eq!(row.short, Some(l), "{}: {first}", table.program);
            }
        }
        for keyword in list.keywords {
            assert_eq!(
                keyword.entry.split_whitespace().next(),
                Some(keyword.name),
                "{}",
                table.program
            );
        }
    }
}
