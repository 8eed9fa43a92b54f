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

/// One item of a usage layout: an option of the table by its long name, shown by its letter and an argument word
/// (`[-N nnodes]`) or by its long name and what follows it (`[--mem=MB]`, `[--hold]`).
#[derive(Clone, Copy)]
enum UsageItem {
    Short(&'static str, &'static str),
    Long(&'static str, &'static str),
}

use UsageItem::{Long as L, Short as S};

/// sbatch's `--usage` as Slurm 22.05 lays it out: hand-broken lines naming a selection of the options (including
/// `-r`, which only srun accepts), ending with `executable [args...]`. The names and letters come from the table.
const SBATCH_USAGE: &[&[UsageItem]] = &[
    &[S("nodes", "nnodes"), S("ntasks", "ntasks")],
    &[
        S("cpus-per-task", "ncpus"),
        S("relative", "n"),
        S("partition", "partition"),
        L("hold", ""),
        L("parsable", ""),
        S("time", "minutes"),
    ],
    &[S("chdir", "path"), L("no-kill", ""), L("overcommit", "")],
    &[
        L("input", " file"),
        L("output", " file"),
        L("error", " file"),
    ],
    &[
        L("time-min", "=minutes"),
        L("licenses", "=names"),
        L("clusters", "=cluster_names"),
    ],
    &[
        L("chdir", "=directory"),
        L("oversubscribe", ""),
        S("distribution", "dist"),
        S("job-name", "jobname"),
    ],
    &[L("verbose", ""), L("gid", "=group"), L("uid", "=user")],
    &[
        L("contiguous", ""),
        L("mincpus", "=n"),
        L("mem", "=MB"),
        L("tmp", "=MB"),
        S("constraint", "list"),
    ],
    &[
        L("account", "=name"),
        L("dependency", "=type:jobid[+time]"),
        L("comment", "=name"),
    ],
    &[
        L("mail-type", "=type"),
        L("mail-user", "=user"),
        L("nice", "[=value]"),
        L("wait", ""),
    ],
    &[
        L("requeue", ""),
        L("no-requeue", ""),
        L("ntasks-per-node", "=n"),
        L("propagate", ""),
    ],
    &[
        L("nodefile", "=file"),
        L("nodelist", "=hosts"),
        L("exclude", "=hosts"),
    ],
    &[
        L("network", "=type"),
        L("mem-per-cpu", "=MB"),
        L("qos", "=qos"),
        L("gres", "=list"),
    ],
    &[
        L("mem-bind", "=..."),
        L("reservation", "=name"),
        L("mcs-label", "=mcs"),
    ],
    &[
        L("cpu-freq", "=min[-max[:gov]]"),
        L("power", "=flags"),
        L("gres-flags", "=opts"),
    ],
    &[
        L("switches", "=max-switches{@max-time-to-wait}"),
        L("reboot", ""),
    ],
    &[L("core-spec", "=cores"), L("thread-spec", "=threads")],
    &[
        L("bb", "=burst_buffer_spec"),
        L("bbf", "=burst_buffer_file"),
    ],
    &[
        L("array", "=index_values"),
        L("profile", "=..."),
        L("ignore-pbs", ""),
        L("spread-job", ""),
    ],
    &[
        L("export", "[=names]"),
        L("export-file", "=file|fd"),
        L("delay-boot", "=mins"),
    ],
    &[L("use-min-nodes", "")],
    &[
        L("cpus-per-gpu", "=n"),
        L("gpus", "=n"),
        L("gpu-bind", "=..."),
        L("gpu-freq", "=..."),
    ],
    &[
        L("gpus-per-node", "=n"),
        L("gpus-per-socket", "=n"),
        L("gpus-per-task", "=n"),
    ],
    &[L("mem-per-gpu", "=MB")],
];

/// The row of any command with this long name (the layouts name options by it).
fn row_named(long: &str) -> Option<&'static OptDef> {
    super::table::OPTIONS.iter().find(|d| d.long == long)
}

fn layout_item(item: UsageItem) -> String {
    match item {
        UsageItem::Short(long, arg) => match row_named(long).and_then(|d| d.short) {
            Some(c) => format!("[-{c} {arg}]"),
            None => format!("[--{long}={arg}]"),
        },
        UsageItem::Long(long, rest) => format!("[--{long}{rest}]"),
    }
}

/// A usage text from a layout: the lead on the first line, the others indented under its first option.
fn layout_usage(cmd: Command, layout: &[&[UsageItem]], tail: &str) -> String {
    let lead = format!("Usage: {cmd} ");
    let indent = " ".repeat(lead.len());
    let mut out = String::new();
    for (i, line) in layout.iter().enumerate() {
        out.push_str(if i == 0 { &lead } else { &indent });
        let items: Vec<String> = line.iter().map(|it| layout_item(*it)).collect();
        out.push_str(&items.join(" "));
        out.push('\n');
    }
    out.push_str(&indent);
    out.push_str(tail);
    out.push('\n');
    out
}

/// The `--usage` text for `cmd`, ending with a newline: sbatch's in Slurm's own layout, the others wrapped from
/// every option.
pub fn usage_text(cmd: Command) -> String {
    if cmd == Command::Sbatch {
        return layout_usage(cmd, SBATCH_USAGE, "executable [args...]");
    }
    wrapped_usage(cmd)
}

fn wrapped_usage(cmd: Command) -> String {
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
                if cmd != Command::Sbatch {
                    assert!(
                        usage_text(cmd).contains(&format!("[--{}", d.long)),
                        "{cmd} --usage lacks {needle}"
                    );
                }
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
    fn sbatch_usage_is_slurms_layout() {
        // Every option the layout names is a row of the table.
        for line in SBATCH_USAGE {
            for item in *line {
                let (UsageItem::Short(long, _) | UsageItem::Long(long, _)) = *item;
                assert!(row_named(long).is_some(), "{long}");
            }
        }
        let text = usage_text(Command::Sbatch);
        assert!(text
            .starts_with("Usage: sbatch [-N nnodes] [-n ntasks]\n              [-c ncpus] [-r n]"));
        assert!(text
            .ends_with("\n              [--mem-per-gpu=MB]\n              executable [args...]\n"));
    }

    #[test]
    fn usage_wraps_and_ends_with_the_positional() {
        for cmd in [Command::Srun, Command::Salloc] {
            let text = usage_text(cmd);
            assert!(text.starts_with(&format!("Usage: {cmd} [")));
            assert!(text.trim_end().ends_with(usage_tail(cmd)));
            for l in text.lines() {
                assert!(l.len() <= USAGE_WIDTH || !l.trim().contains(' '), "{l}");
            }
        }
    }
}
