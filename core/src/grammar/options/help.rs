//! `--help` and `--usage` text, generated from the option table in the layout of Slurm's own output (a usage
//! line, then sections of options with descriptions starting in column 31) but in our words; and the Markdown
//! option reference for the docs, from the same rows.

use super::table::{options_for, ArgKind, Command, OptDef, Section};

/// Column where descriptions start in `--help`.
const HELP_COLUMN: usize = 30;
/// Width `--usage` wraps at.
const USAGE_WIDTH: usize = 80;

fn section_title(s: Section) -> &'static str {
    match s {
        Section::ParallelRun => "Job and step options:",
        Section::Constraint => "Node selection:",
        Section::Consumable => "Sharing and consumable resources:",
        Section::Affinity => "Sockets, cores, threads and binding:",
        Section::Gpu => "GPU options:",
        Section::Help => "Help:",
        Section::Other => "Other:",
    }
}

/// The synopsis line `--help` starts with.
fn synopsis(cmd: Command) -> &'static str {
    match cmd {
        Command::Sbatch => "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]",
        Command::Srun => {
            "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] executable(N) [args(N)...]"
        }
        Command::Salloc => "Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)]] [command(0) [args(0)...]]",
    }
}

/// The positional part `--usage` ends with.
fn usage_tail(cmd: Command) -> &'static str {
    match cmd {
        Command::Sbatch => "script [args...]",
        Command::Srun => "executable [args...]",
        Command::Salloc => "[command [args...]]",
    }
}

/// The options `--help` and `--usage` list for `cmd`.
fn listed(cmd: Command) -> impl Iterator<Item = &'static OptDef> {
    options_for(cmd).filter(|d| !d.hidden)
}

/// The left column of one `--help` entry: `  -A, --account=name`.
fn help_left(d: &OptDef) -> String {
    let short = d
        .short
        .map_or_else(|| "    ".to_string(), |c| format!("-{c}, "));
    format!("  {short}--{}{}", d.long, d.metavar)
}

/// The full `--help` text for `cmd`, ending with a newline.
pub fn help_text(cmd: Command) -> String {
    let mut out = String::new();
    out.push_str(synopsis(cmd));
    out.push_str("\n\n");
    let mut sections: Vec<Section> = listed(cmd).map(|d| d.section).collect();
    sections.sort();
    sections.dedup();
    for s in sections {
        out.push_str(section_title(s));
        out.push('\n');
        for d in listed(cmd).filter(|d| d.section == s) {
            push_entry(&mut out, d);
        }
        out.push('\n');
    }
    out
}

fn push_entry(out: &mut String, d: &OptDef) {
    let left = help_left(d);
    let mut help_lines = d.help.split('\n');
    let first = help_lines.next().unwrap_or("");
    if left.len() < HELP_COLUMN {
        out.push_str(&format!("{left:<HELP_COLUMN$}{first}\n"));
    } else {
        out.push_str(&format!("{left} {first}\n"));
    }
    for more in help_lines {
        out.push_str(&format!("{:HELP_COLUMN$}{more}\n", ""));
    }
}

/// One `--usage` item: `[--account=name]`, `[--hold]`, `[--nice[=adjustment]]`.
fn usage_item(d: &OptDef) -> String {
    match d.arg {
        ArgKind::None => format!("[--{}]", d.long),
        _ => format!("[--{}{}]", d.long, d.metavar),
    }
}

/// The `--usage` text for `cmd`, wrapped like Slurm's, ending with a newline.
pub fn usage_text(cmd: Command) -> String {
    let lead = format!("Usage: {cmd} ");
    let indent = " ".repeat(lead.len());
    let mut out = String::new();
    let mut line = lead.clone();
    let items = listed(cmd)
        .map(usage_item)
        .chain(std::iter::once(usage_tail(cmd).to_string()));
    for item in items {
        let fresh = line.len() == lead.len();
        if !fresh && line.len() + 1 + item.len() > USAGE_WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.clone();
        }
        if line.len() > indent.len() {
            line.push(' ');
        }
        line.push_str(&item);
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// A Markdown reference of every option of `cmd`: names, value, input environment variables, whether `#SBATCH`
/// lines may set it, and the description.
pub fn reference_markdown(cmd: Command) -> String {
    let mut out =
        format!("# {cmd} options\n\n| Option | Value | Environment | #SBATCH | Description |\n");
    out.push_str("| --- | --- | --- | --- | --- |\n");
    for d in super::table::OPTIONS
        .iter()
        .filter(|d| d.accepted_by(cmd) || d.env_vars(cmd).next().is_some())
    {
        let mut names: Vec<String> = d.long_names().map(|n| format!("`--{n}`")).collect();
        if let Some(c) = d.short {
            names.insert(0, format!("`-{c}`"));
        }
        if !d.accepted_by(cmd) {
            names = vec![format!("({})", d.long)];
        }
        let value = match d.arg {
            ArgKind::None => String::new(),
            _ => format!(
                "`{}`",
                d.metavar
                    .trim_start_matches(['[', '='])
                    .trim_end_matches(']')
            ),
        };
        let env: Vec<String> = d.env_vars(cmd).map(|v| format!("`{v}`")).collect();
        let directive = match (cmd, d.directive) {
            (Command::Sbatch, true) if d.accepted_by(cmd) => "yes",
            (Command::Sbatch, _) if d.accepted_by(cmd) => "ignored",
            _ => "",
        };
        let help = d.help.replace('\n', " ");
        out.push_str(&format!(
            "| {} | {value} | {} | {directive} | {help} |\n",
            names.join(", "),
            env.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::options::table::OPTIONS;

    #[test]
    fn help_mentions_every_option_of_each_command() {
        for cmd in Command::ALL {
            let text = help_text(cmd);
            for d in OPTIONS.iter().filter(|d| d.accepted_by(cmd) && !d.hidden) {
                let needle = format!("--{}", d.long);
                assert!(
                    text.lines()
                        .any(|l| l.split_whitespace().any(|w| w.starts_with(&needle))),
                    "{cmd} --help lacks {needle}"
                );
                if let Some(c) = d.short {
                    assert!(
                        text.contains(&format!("-{c}, --{}", d.long)),
                        "{cmd} --help lacks -{c}"
                    );
                }
                assert!(
                    usage_text(cmd).contains(&format!("[--{}", d.long)),
                    "{cmd} --usage lacks {needle}"
                );
            }
        }
    }

    #[test]
    fn reference_lists_every_option_and_variable() {
        for cmd in Command::ALL {
            let md = reference_markdown(cmd);
            for d in OPTIONS {
                if d.accepted_by(cmd) {
                    assert!(md.contains(&format!("`--{}`", d.long)), "{cmd}: {}", d.long);
                }
                for v in d.env_vars(cmd) {
                    assert!(md.contains(&format!("`{v}`")), "{cmd}: {v}");
                }
            }
        }
        assert!(reference_markdown(Command::Sbatch)
            .contains("| `-J`, `--job-name` | `name` | `SBATCH_JOB_NAME` | yes |"));
    }

    #[test]
    fn help_layout_matches_slurm() {
        let text = help_text(Command::Sbatch);
        assert!(text.starts_with(
            "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n\n"
        ));
        let line = text
            .lines()
            .find(|l| l.contains("--account"))
            .unwrap_or_default();
        assert!(line.starts_with("  -A, --account=name"));
        assert_eq!(line.find("account charged"), Some(HELP_COLUMN));
        let line = text
            .lines()
            .find(|l| l.contains("--contiguous"))
            .unwrap_or_default();
        assert!(line.starts_with("      --contiguous"));
        // Options other commands own are not offered.
        assert!(!text.contains("--bcast"));
        assert!(help_text(Command::Srun).contains("--bcast"));
    }

    #[test]
    fn usage_wraps_and_ends_with_the_positional() {
        for cmd in Command::ALL {
            let text = usage_text(cmd);
            assert!(text.starts_with(&format!("Usage: {cmd} [")));
            assert!(text.trim_end().ends_with(usage_tail(cmd)));
            for l in text.lines() {
                assert!(l.len() <= USAGE_WIDTH || !l.trim().contains(' '), "{l}");
            }
        }
    }
}
