//! `--help` and `--usage` text of sbatch, srun and salloc in Slurm 22.05's layouts, naming the option table's
//! rows; and the Markdown option reference for the docs, from the rows' own descriptions.

#[cfg(test)]
use super::table::by_long;
use super::table::{ArgKind, Command, OptDef};

/// The full `--help` text for `cmd` on a cluster without a task plugin, ending with a newline.
pub fn help_text(cmd: Command) -> String {
    help_text_for(cmd, "")
}

/// The full `--help` text for `cmd` on a cluster whose slurm.conf names `task_plugin` (Slurm lists its binding
/// options only where a task plugin honours them), in Slurm's layout ([`super::slurm_help`]).
pub fn help_text_for(cmd: Command, task_plugin: &str) -> String {
    super::slurm_help::help_text(cmd, task_plugin)
}

/// One item of a usage layout: an option of the table by its long name, shown by its letter and an argument word
/// (`[-N nnodes]`) or by its long name and what follows it (`[--mem=MB]`, `[--hold]`).
#[derive(Clone, Copy)]
enum UsageItem {
    Short(&'static str, &'static str),
    Long(&'static str, &'static str),
    /// A word Slurm's usage shows that names no option of the table as written.
    Raw(&'static str),
}

use UsageItem::{Long as L, Raw as R, Short as S};

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

/// srun's `--usage` as Slurm 22.05 lays it out. It names three words srun does not parse (`--slurmd_debug`, whose
/// option is `--slurmd-debug`, `--ctrl-comm-ifhn`, `--mpi-combine`), a reservation without dashes and a
/// `--propagate` missing its bracket; those are kept as words ([`UsageItem::Raw`]).
const SRUN_USAGE: &[&[UsageItem]] = &[
    &[
        S("nodes", "nnodes"),
        S("ntasks", "ntasks"),
        S("input", "in"),
        S("output", "out"),
        S("error", "err"),
    ],
    &[
        S("cpus-per-task", "ncpus"),
        S("relative", "n"),
        S("partition", "partition"),
        L("hold", ""),
        S("time", "minutes"),
    ],
    &[
        S("chdir", "path"),
        L("immediate", "[=secs]"),
        L("overcommit", ""),
        L("overlap", ""),
        L("no-kill", ""),
    ],
    &[
        L("oversubscribe", ""),
        L("label", ""),
        L("unbuffered", ""),
        S("distribution", "dist"),
        S("job-name", "jobname"),
    ],
    &[
        L("jobid", "=id"),
        L("verbose", ""),
        R("[--slurmd_debug=#]"),
        L("gres", "=list"),
    ],
    &[
        S("threads", "threads"),
        S("wait", "sec"),
        L("gres-flags", "=opts"),
    ],
    &[L("licenses", "=names"), L("clusters", "=cluster_names")],
    &[L("qos", "=qos"), L("time-min", "=minutes")],
    &[
        L("contiguous", ""),
        L("mincpus", "=n"),
        L("mem", "=MB"),
        L("tmp", "=MB"),
        S("constraint", "list"),
    ],
    &[
        L("mpi", "=type"),
        L("account", "=name"),
        L("dependency", "=type:jobid[+time]"),
    ],
    &[
        L("kill-on-bad-exit", ""),
        R("[--propagate[=rlimits]"),
        L("comment", "=name"),
    ],
    &[
        L("cpu-bind", "=..."),
        L("mem-bind", "=..."),
        L("network", "=type"),
    ],
    &[
        L("ntasks-per-node", "=n"),
        L("ntasks-per-socket", "=n"),
        R("[reservation=name]"),
    ],
    &[
        L("ntasks-per-core", "=n"),
        L("mem-per-cpu", "=MB"),
        L("preserve-env", ""),
    ],
    &[L("profile", "=..."), L("exact", "")],
    &[
        L("mail-type", "=type"),
        L("mail-user", "=user"),
        L("nice", "[=value]"),
    ],
    &[L("prolog", "=fname"), L("epilog", "=fname")],
    &[L("task-prolog", "=fname"), L("task-epilog", "=fname")],
    &[
        R("[--ctrl-comm-ifhn=addr]"),
        L("multi-prog", ""),
        L("mcs-label", "=mcs"),
    ],
    &[
        L("cpu-freq", "=min[-max[:gov]]"),
        L("power", "=flags"),
        L("spread-job", ""),
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
        L("bcast", "=<dest_path>"),
        L("bcast-exclude", "=<NONE|path1,...,pathN>"),
    ],
    &[L("send-libs", "[=y|n]"), L("compress", "[=library]")],
    &[
        L("acctg-freq", "=<datatype>=<interval>"),
        L("delay-boot", "=mins"),
    ],
    &[
        S("nodelist", "hosts..."),
        S("exclude", "hosts..."),
        L("use-min-nodes", ""),
    ],
    &[R("[--mpi-combine=yes|no]"), L("het-group", "=value")],
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

/// salloc's `--usage` as Slurm 22.05 lays it out (its first item spells out the node range).
const SALLOC_USAGE: &[&[UsageItem]] = &[
    &[
        R("[-N numnodes|[min nodes]-[max nodes]]"),
        S("ntasks", "num-processors"),
    ],
    &[
        S("cpus-per-task", "cpus-per-node"),
        S("relative", "n"),
        S("partition", "partition"),
        L("hold", ""),
        S("time", "minutes"),
    ],
    &[
        L("immediate", "[=secs]"),
        L("no-kill", ""),
        L("overcommit", ""),
        S("chdir", "path"),
    ],
    &[L("oversubscribe", ""), S("job-name", "jobname")],
    &[
        L("verbose", ""),
        L("gid", "=group"),
        L("uid", "=user"),
        L("licenses", "=names"),
    ],
    &[L("clusters", "=cluster_names")],
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
    ],
    &[
        L("bell", ""),
        L("no-bell", ""),
        L("kill-command", "[=signal]"),
        L("spread-job", ""),
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
    ],
    &[
        L("mem-bind", "=..."),
        L("reservation", "=name"),
        L("mcs-label", "=mcs"),
    ],
    &[
        L("time-min", "=minutes"),
        L("gres", "=list"),
        L("gres-flags", "=opts"),
    ],
    &[
        L("cpu-freq", "=min[-max[:gov]]"),
        L("power", "=flags"),
        L("profile", "=..."),
    ],
    &[L("switches", "=max-switches[@max-time-to-wait]")],
    &[
        L("core-spec", "=cores"),
        L("thread-spec", "=threads"),
        L("reboot", ""),
    ],
    &[
        L("bb", "=burst_buffer_spec"),
        L("bbf", "=burst_buffer_file"),
    ],
    &[L("delay-boot", "=mins"), L("use-min-nodes", "")],
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
        UsageItem::Raw(word) => word.to_string(),
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

/// The `--usage` text for `cmd`, ending with a newline, in Slurm's own layout.
pub fn usage_text(cmd: Command) -> String {
    match cmd {
        Command::Sbatch => layout_usage(cmd, SBATCH_USAGE, "executable [args...]"),
        Command::Srun => layout_usage(cmd, SRUN_USAGE, "executable [args...]"),
        Command::Salloc => layout_usage(cmd, SALLOC_USAGE, "[command [args...]]"),
    }
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
    fn help_is_slurms_layout() {
        let text = help_text(Command::Sbatch);
        assert!(text.starts_with(
            "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n\n"
        ));
        assert!(text.contains("\n  -A, --account=name          charge job to specified account\n"));
        assert!(text.contains(
            "\n      --wrap[=command string] wrap command string in a sh script and submit\n"
        ));
        // Options other commands own are not offered.
        assert!(!text.contains("--bcast"));
        assert!(help_text(Command::Srun).contains("--bcast"));
        // The binding options show only where the task plugin honours them.
        assert!(!help_text(Command::Salloc).contains("--mem-bind"));
        assert!(help_text_for(Command::Salloc, "task/affinity").contains("--mem-bind"));
    }

    #[test]
    fn sbatch_usage_is_slurms_layout() {
        // Every option the layout names is a row of the table.
        for (cmd, layout) in [
            (Command::Sbatch, SBATCH_USAGE),
            (Command::Srun, SRUN_USAGE),
            (Command::Salloc, SALLOC_USAGE),
        ] {
            for line in layout {
                for item in *line {
                    match *item {
                        UsageItem::Short(long, _) | UsageItem::Long(long, _) => {
                            assert!(row_named(long).is_some(), "{cmd}: {long}");
                        }
                        // A word is not written as an option the command parses (else it would be an item).
                        UsageItem::Raw(word) => {
                            let name = word.trim_start_matches("[--").trim_end_matches(']');
                            assert!(by_long(cmd, name).is_none(), "{cmd}: {word}");
                        }
                    }
                }
            }
        }
        let text = usage_text(Command::Sbatch);
        assert!(text
            .starts_with("Usage: sbatch [-N nnodes] [-n ntasks]\n              [-c ncpus] [-r n]"));
        assert!(text
            .ends_with("\n              [--mem-per-gpu=MB]\n              executable [args...]\n"));
        assert!(usage_text(Command::Srun)
            .contains("\n            [--jobid=id] [--verbose] [--slurmd_debug=#]"));
        assert!(usage_text(Command::Salloc).starts_with(
            "Usage: salloc [-N numnodes|[min nodes]-[max nodes]] [-n num-processors]\n"
        ));
    }
}
