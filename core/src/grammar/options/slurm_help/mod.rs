//! `--help` of sbatch, srun and salloc in Slurm 22.05's layout: titled sections of entries
//! (`  -N, --nodes=N               description`), descriptions from column 31.
//!
//! Each command's layout lists its entries in Slurm's order, each naming a row of the option table by its long
//! name: the letter comes from the row, the value word and the description are the entry's own, since Slurm
//! describes the same option differently per command (`-D, --chdir=path` of srun, `--chdir=directory` of
//! sbatch). The tests check both ways that a layout and the table agree: every entry is an option the command
//! parses, and every option the command parses is either listed or named as one Slurm's help leaves out.

mod salloc;
mod sbatch;
mod srun;

use super::table::{by_long, Command};

/// Where descriptions start.
const COLUMN: usize = 30;

/// When slurm.conf's `TaskPlugin` lets a group of entries show (Slurm lists the binding options only when a
/// task plugin can honour them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    /// task/affinity or task/cgroup.
    AffinityOrCgroup,
    /// task/affinity.
    Affinity,
}

impl Plugin {
    fn holds(self, task_plugin: &str) -> bool {
        match self {
            Plugin::AffinityOrCgroup => {
                task_plugin.contains("affinity") || task_plugin.contains("cgroup")
            }
            Plugin::Affinity => task_plugin.contains("affinity"),
        }
    }
}

/// One item of a help layout.
#[derive(Debug, Clone, Copy)]
pub enum Item {
    /// A line that describes no option: a section title or a blank line.
    Text(&'static str),
    /// A line of prose under a title, indented to the description column.
    Note(&'static str),
    /// An option's entry.
    Opt(Entry),
    /// Entries shown only with this task plugin.
    If(Plugin, &'static [Item]),
}

/// An option's entry: the row's long name, the value word after it (`=N`, `[=secs]`), and its description,
/// whose lines after the first are indented to the description column (an empty first line puts the whole
/// description under the name).
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub long: &'static str,
    pub value: &'static str,
    pub help: &'static str,
    /// Slurm writes this one's letter and name without the comma, and two blanks before the description
    /// (`-B  --extra-node-info=S[:C[:T]]  combine ...`).
    pub no_comma: bool,
}

/// Shorthand for the layouts.
pub(crate) const fn o(long: &'static str, value: &'static str, help: &'static str) -> Item {
    Item::Opt(Entry {
        long,
        value,
        help,
        no_comma: false,
    })
}

/// An entry Slurm writes without the comma after the letter.
pub(crate) const fn o_no_comma(
    long: &'static str,
    value: &'static str,
    help: &'static str,
) -> Item {
    Item::Opt(Entry {
        long,
        value,
        help,
        no_comma: true,
    })
}

/// A command's help: the layout and the options its help leaves out on purpose.
pub(crate) struct Layout {
    pub synopsis: &'static str,
    pub items: &'static [Item],
    /// Options the command parses that Slurm's help does not list (undocumented, or documented only in the man
    /// page). Only the tests read it: it is the table's side of their agreement check.
    #[cfg_attr(not(test), allow(dead_code))]
    pub unlisted: &'static [&'static str],
}

fn layout(cmd: Command) -> &'static Layout {
    match cmd {
        Command::Sbatch => &sbatch::LAYOUT,
        Command::Srun => &srun::LAYOUT,
        Command::Salloc => &salloc::LAYOUT,
    }
}

/// The help text of `cmd` in Slurm's layout, for a cluster whose slurm.conf names `task_plugin`.
pub fn help_text(cmd: Command, task_plugin: &str) -> String {
    let layout = layout(cmd);
    let mut out = String::new();
    out.push_str(layout.synopsis);
    out.push('\n');
    render(cmd, layout.items, task_plugin, &mut out);
    out
}

fn render(cmd: Command, items: &[Item], task_plugin: &str, out: &mut String) {
    for item in items {
        match item {
            Item::Text(t) => {
                out.push_str(t);
                out.push('\n');
            }
            Item::Note(t) => {
                out.push_str(&format!("{:COLUMN$}{t}\n", ""));
            }
            Item::Opt(e) => push_entry(cmd, e, out),
            Item::If(plugin, inner) => {
                if plugin.holds(task_plugin) {
                    render(cmd, inner, task_plugin, out);
                }
            }
        }
    }
}

fn push_entry(cmd: Command, e: &Entry, out: &mut String) {
    let short = by_long(cmd, e.long).and_then(|d| d.short);
    let left = match (short, e.no_comma) {
        (Some(c), false) => format!("  -{c}, --{}{}", e.long, e.value),
        (Some(c), true) => format!("  -{c}  --{}{}", e.long, e.value),
        (None, _) => format!("      --{}{}", e.long, e.value),
    };
    let mut lines = e.help.split('\n');
    let first = lines.next().unwrap_or_default();
    if first.is_empty() {
        out.push_str(&left);
    } else if left.len() < COLUMN {
        out.push_str(&format!("{left:<COLUMN$}{first}"));
    } else {
        let gap = if e.no_comma { "  " } else { " " };
        out.push_str(&format!("{left}{gap}{first}"));
    }
    out.push('\n');
    for more in lines {
        out.push_str(&format!("{:COLUMN$}{more}\n", ""));
    }
}

/// Every option entry of a layout, conditional ones included.
#[cfg(test)]
fn entries(items: &'static [Item]) -> Vec<&'static Entry> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Opt(e) => out.push(e),
            Item::If(_, inner) => out.extend(entries(inner)),
            Item::Text(_) | Item::Note(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests;
