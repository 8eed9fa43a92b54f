use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::*;

const LONG_TSV: &str = include_str!("../../../../tests/vectors/options_long.tsv");
const SHORT_TSV: &str = include_str!("../../../../tests/vectors/options_short.tsv");
const ENV_TSV: &str = include_str!("../../../../tests/vectors/env_inputs.tsv");

/// Data rows of a generated vector file (comments and the column header skipped).
fn rows(tsv: &str) -> Vec<Vec<&str>> {
    tsv.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect()
}

fn kind_name(k: ArgKind) -> &'static str {
    match k {
        ArgKind::None => "none",
        ArgKind::Required => "required",
        ArgKind::Optional => "optional",
    }
}

#[test]
fn every_id_has_exactly_one_row_at_its_index() {
    assert_eq!(OPTIONS.len(), OptId::ALL.len());
    for (i, id) in OptId::ALL.iter().enumerate() {
        assert_eq!(OPTIONS[i].id, *id, "row {i} is out of order");
        assert_eq!(def(*id).id, *id);
    }
}

#[test]
fn names_and_letters_are_unique_per_command() {
    for cmd in Command::ALL {
        let mut longs = HashSet::new();
        let mut shorts = HashSet::new();
        for d in options_for(cmd) {
            for n in d.long_names() {
                assert!(longs.insert(n), "{cmd}: --{n} twice");
            }
            if let Some(c) = d.short {
                assert!(shorts.insert(c), "{cmd}: -{c} twice");
            }
        }
    }
}

#[test]
fn environment_variables_are_unique_per_command() {
    for cmd in Command::ALL {
        let mut seen = HashSet::new();
        for d in OPTIONS {
            for v in d.env_vars(cmd) {
                assert!(seen.insert(v), "{cmd}: {v} used twice");
                let prefix_ok =
                    v.starts_with("SLURM") || v.starts_with(&cmd.name().to_ascii_uppercase());
                assert!(prefix_ok, "{cmd}: odd variable {v}");
            }
        }
    }
}

#[test]
fn rows_are_consistent() {
    for d in OPTIONS {
        assert!(
            !d.help.is_empty() && !d.help.ends_with('.'),
            "{}: help text",
            d.long
        );
        if let Some(n) = d.negates {
            assert_eq!(
                def(n).negates,
                Some(d.id),
                "{} and {} must negate each other",
                d.long,
                def(n).long
            );
        }
        // Hidden rows are environment-only settings; everything else is a real option.
        assert_eq!(d.hidden, d.cmds == Cmds::NONE, "{}", d.long);
        match d.arg {
            ArgKind::None => assert!(d.metavar.is_empty(), "{}", d.long),
            ArgKind::Required => assert!(d.metavar.starts_with('='), "{}", d.long),
            ArgKind::Optional => assert!(
                d.metavar.is_empty() || d.metavar.starts_with("[="),
                "{}",
                d.long
            ),
        }
    }
}

#[test]
fn getopt_order_lists_every_long_name_once() {
    let table: BTreeSet<&str> = OPTIONS
        .iter()
        .filter(|d| d.cmds != Cmds::NONE)
        .flat_map(|d| d.long_names())
        .collect();
    let order: BTreeSet<&str> = GETOPT_ORDER.iter().copied().collect();
    assert_eq!(
        order.len(),
        GETOPT_ORDER.len(),
        "duplicates in GETOPT_ORDER"
    );
    assert_eq!(table, order);
}

#[test]
fn long_options_match_slurm() {
    let mut expected: BTreeMap<(&str, Command), &str> = BTreeMap::new();
    for r in rows(LONG_TSV) {
        for (cmd, kind) in Command::ALL.into_iter().zip(&r[1..]) {
            if *kind != "-" {
                expected.insert((r[0], cmd), kind);
            }
        }
    }
    let mut ours: BTreeMap<(&str, Command), &str> = BTreeMap::new();
    for cmd in Command::ALL {
        for d in options_for(cmd) {
            for n in d.long_names() {
                ours.insert((n, cmd), kind_name(d.arg));
            }
        }
    }
    assert_eq!(ours, expected);
}

#[test]
fn short_options_match_slurm() {
    let mut expected = BTreeMap::new();
    for r in rows(SHORT_TSV) {
        let c = r[0].chars().next().unwrap_or(' ');
        for (cmd, kind) in Command::ALL.into_iter().zip(&r[1..]) {
            if *kind != "-" {
                expected.insert((c, cmd), kind.to_string());
            }
        }
    }
    let mut ours = BTreeMap::new();
    for cmd in Command::ALL {
        for d in options_for(cmd) {
            if let Some(c) = d.short {
                ours.insert((c, cmd), kind_name(d.arg).to_string());
            }
        }
    }
    assert_eq!(ours, expected);
}

#[test]
fn environment_inputs_match_slurm() {
    let cmd_of = |s: &str| Command::ALL.into_iter().find(|c| c.name() == s);
    let observed: BTreeSet<(Command, &str)> = rows(ENV_TSV)
        .iter()
        .filter_map(|r| Some((cmd_of(r[0])?, r[1])))
        .collect();
    let ours: BTreeSet<(Command, &str)> = OPTIONS
        .iter()
        .flat_map(|d| d.env.iter().map(|e| (e.cmd, e.name)))
        .collect();
    // Read, but invisible to the probe: its `-v` line mentions "debug", it only acts with -m plane, or its value 1
    // equals the probe's own -v level (sbatch lets SBATCH_DEBUG replace the -v count).
    let unprobed: BTreeSet<(Command, &str)> = [
        (Command::Srun, "SLURMD_DEBUG"),
        (Command::Srun, "SLURM_DIST_PLANESIZE"),
        (Command::Sbatch, "SBATCH_DEBUG"),
    ]
    .into_iter()
    .collect();
    let missing: Vec<_> = observed.difference(&ours).collect();
    assert!(
        missing.is_empty(),
        "variables Slurm reads that the table lacks: {missing:?}"
    );
    let extra: Vec<_> = ours
        .difference(&observed)
        .filter(|v| !unprobed.contains(v))
        .collect();
    assert!(
        extra.is_empty(),
        "variables the table has but Slurm ignores: {extra:?}"
    );
}

#[test]
fn lookups() {
    assert_eq!(
        by_long(Command::Sbatch, "cluster").map(|d| d.id),
        Some(OptId::Clusters)
    );
    assert_eq!(
        by_long(Command::Sbatch, "wait").map(|d| d.id),
        Some(OptId::Wait)
    );
    assert_eq!(
        by_long(Command::Srun, "wait").map(|d| d.id),
        Some(OptId::WaitAfterExit)
    );
    assert_eq!(
        by_short(Command::Srun, 'K').map(|d| d.id),
        Some(OptId::KillOnBadExit)
    );
    assert_eq!(
        by_short(Command::Salloc, 'K').map(|d| d.id),
        Some(OptId::KillCommand)
    );
    assert!(by_long(Command::Salloc, "output").is_none());
    assert!(by_long(Command::Sbatch, "plane-size").is_none());
}
