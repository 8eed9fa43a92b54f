//! sreport's options (Slurm 22.05's `aM:hnpPQs:t:T:vV` and its long names). `-t` has no long form there, so
//! none here. Its own help text (the command list) is not reproduced: `--help` prints the usage line.

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
