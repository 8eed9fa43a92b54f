//! sreport's options (Slurm 22.05's `aM:hnpPQs:t:T:vV` and its long names). `-t` has no long form there, so
//! none here. `--help`, `--usage` and the `help` command print [`SREPORT_HELP`], not a text built from the rows:
//! sreport's help is one fixed page (options, commands, reports and their conditions and fields).

use super::{flag, value, Help, QueryTable, Scan::Getopt, Usage};

pub const SREPORT: QueryTable = QueryTable {
    program: "sreport",
    rows: &[
        flag("all_clusters", Some('a')),
        value("cluster", Some('M')),
        flag("federation", None),
        flag("help", Some('h')),
        flag("immediate", None),
        flag("local", None),
        flag("noheader", Some('n')),
        flag("parsable", Some('p')),
        flag("parsable2", Some('P')),
        flag("quiet", Some('Q')),
        value("sort", Some('s')),
        value("time", Some('t')),
        value("tres", Some('T')),
        flag("usage", None),
        flag("verbose", Some('v')),
        flag("version", Some('V')),
    ],
    getopt_order: &[],
    scan: Getopt,
    usage: Usage::plain("sreport [<OPTION>] [<COMMAND>]"),
    help: Help::Usage,
};

/// sreport's help page as Slurm 22.05 prints it, byte for byte (its lines are padded with spaces to the width it
/// was typed at, and it ends with an empty line), kept as a file so no editor trims those spaces.
pub const SREPORT_HELP: &str = include_str!("sreport_help.txt");
