//! Comparing command output with real Slurm's captures (`core/tests/golden/slurm-22.05`): reading a capture's
//! stdout, masking what changes from run to run, and line-by-line comparison that tolerates listed known gaps.

use std::path::Path;

/// The stdout section of a capture.
pub fn capture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/golden/slurm-22.05")
        .join(name);
    let full = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = full.lines().skip_while(|l| *l != "--- stdout ---").skip(1);
    let mut out = String::new();
    for line in lines.by_ref() {
        if line == "--- stderr ---" {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Masks what differs between two runs of the same commands.
pub fn normalise(text: &str, submit_dir: Option<&Path>, host: &str) -> String {
    let mut text = text.to_string();
    if let Some(dir) = submit_dir {
        text = text.replace(&dir.display().to_string(), "$SUBMIT_DIR");
    }
    let mut out = String::new();
    for line in text.lines() {
        let line = line
            .split(' ')
            .map(|w| host_as_vm(w, host))
            .collect::<Vec<_>>()
            .join(" ");
        let words: Vec<String> = line
            .split(' ')
            .map(|w| {
                let (key, value) = w.split_once('=').unwrap_or(("", w));
                match key {
                    "Priority" | "RunTime" | "AllocNode:Sid" | "LastSchedEval" => {
                        format!("{key}=*")
                    }
                    _ if is_timestamp(value) => format!("{}{{TIME}}", &w[..w.len() - value.len()]),
                    _ => w.to_string(),
                }
            })
            .collect();
        out.push_str(&mask_elapsed(&mask_date_line(&words.join(" "))));
        out.push('\n');
    }
    out
}

/// The capture's host was `vm`: a word that is this host's name (alone, as a value, or in slurmstepd's prefix)
/// is written as `vm`.
fn host_as_vm(word: &str, host: &str) -> String {
    if word == host {
        return "vm".to_string();
    }
    if word == format!("slurmstepd-{host}:") {
        return "slurmstepd-vm:".to_string();
    }
    match word.split_once('=') {
        Some((key, value)) if value == host => format!("{key}=vm"),
        _ => word.to_string(),
    }
}

pub fn is_timestamp(text: &str) -> bool {
    text.len() == 19
        && text.char_indices().all(|(i, c)| match i {
            4 | 7 => c == '-',
            10 => c == 'T',
            13 | 16 => c == ':',
            _ => c.is_ascii_digit(),
        })
}

/// `squeue -l` starts with the current date (`Mon Nov 30 14:58:05 2026`).
pub fn mask_date_line(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let weekday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    if words.len() == 5 && weekday.contains(&words[0]) && words[3].len() == 8 {
        "{DATE}".to_string()
    } else {
        line.to_string()
    }
}

/// A running job's elapsed time in squeue's TIME column (`0:02`): any `M:SS` right before the node count.
pub fn mask_elapsed(line: &str) -> String {
    if !(line.contains(" R ") || line.contains(" RUNNING ")) {
        return line.to_string();
    }
    let mut out: Vec<String> = Vec::new();
    for word in line.split(' ') {
        let is_elapsed = word.len() >= 4
            && word.contains(':')
            && word.chars().all(|c| c.is_ascii_digit() || c == ':')
            && word != "10:00";
        out.push(if is_elapsed {
            "#".repeat(word.len())
        } else {
            word.to_string()
        });
    }
    out.join(" ")
}

/// Known gaps: (capture, start of the capture's line, why). Such a line may differ, and is reported; one that
/// matches is an error, so that lists of gaps stay honest.
pub type KnownGaps<'a> = &'a [(&'a str, &'a str, &'a str)];

/// Compares line by line; the error lists every differing line that is not a known gap.
pub fn same(what: &str, ours: &str, theirs: &str, known: KnownGaps<'_>) -> Result<(), String> {
    let ours_lines: Vec<&str> = ours.lines().collect();
    let theirs_lines: Vec<&str> = theirs.lines().collect();
    let mut report = String::new();
    for i in 0..ours_lines.len().max(theirs_lines.len()) {
        let (o, t) = (ours_lines.get(i), theirs_lines.get(i));
        let gap = known.iter().find(|(capture, prefix, _)| {
            *capture == what && t.is_some_and(|t| t.starts_with(prefix))
        });
        match (o == t, gap) {
            (true, None) => {}
            (true, Some((_, prefix, _))) => {
                report.push_str(&format!("  known gap now matches, remove it: {prefix:?}\n"))
            }
            (false, Some((_, _, why))) => {
                eprintln!("{what}: known gap ({why}):\n  slurm: {t:?}\n  spur:  {o:?}")
            }
            (false, None) => report.push_str(&format!("  slurm: {t:?}\n  spur:  {o:?}\n")),
        }
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(format!("{what} differs from Slurm's capture:\n{report}"))
    }
}

pub fn assert_same(what: &str, ours: &str, theirs: &str, known: KnownGaps<'_>) {
    if let Err(e) = same(what, ours, theirs, known) {
        panic!("{e}");
    }
}

/// Replaces the number `from` by `to` wherever it stands alone (not inside a longer number).
pub fn replace_number(text: &str, from: u32, to: u32) -> String {
    let from = from.to_string();
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(&from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(|c| c.is_ascii_digit()) || after.is_some_and(|c| c.is_ascii_digit()) {
            out.push_str(&from);
        } else {
            out.push_str(&to.to_string());
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

/// Replaces the values of `Key=value` words for the given keys by `*`.
pub fn mask_keys(text: &str, keys: &[&str]) -> String {
    text.lines()
        .map(|line| {
            let words: Vec<String> = line
                .split(' ')
                .map(|w| match w.split_once('=') {
                    Some((k, _)) if keys.contains(&k) => format!("{k}=*"),
                    _ => w.to_string(),
                })
                .collect();
            format!("{}\n", words.join(" "))
        })
        .collect()
}

/// The first `n` lines, as `| head -n` keeps them.
pub fn head(text: &str, n: usize) -> String {
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}
