//! strigger's options (Slurm 22.05's `aAbBcCdDeFfgGhHi:Ij:M:n::No:p:QrtuvV` and its long names, searched in
//! Slurm's order for abbreviations). `--help` is Slurm's hand-made layout, one verbatim entry per row, with the
//! blank lines it puts after `--clear` and `--flags`; `-n` takes its node list only attached (`-nNODE`,
//! `--node=NODE`), as getopt's optional arguments do.

use super::{flag, optional, value, EntryStyle, Help, HelpList, QueryTable, Scan::Getopt, Usage};

pub const STRIGGER: QueryTable = QueryTable {
    program: "strigger",
    rows: &[
        flag("set", None).help("", "      --set           create a trigger"),
        flag("get", None).help("", "      --get           get trigger information"),
        flag("clear", None).help("", "      --clear         delete a trigger\n"),
        flag("burst_buffer", None)
            .help("", "      --burst_buffer  trigger event on burst buffer error"),
        flag("front_end", None)
            .help("", "      --front_end     trigger event on FrontEnd node state changes"),
        flag("primary_slurmctld_failure", Some('a')).help(
            "",
            "  -a, --primary_slurmctld_failure\n                      trigger event when primary slurmctld fails",
        ),
        flag("primary_slurmctld_resumed_operation", Some('A')).help(
            "",
            "  -A, --primary_slurmctld_resumed_operation\n                      trigger event on primary slurmctld resumed operation\n                      after failure",
        ),
        flag("primary_slurmctld_resumed_control", Some('b')).help(
            "",
            "  -b, --primary_slurmctld_resumed_control\n                      trigger event on primary slurmctld resumed control",
        ),
        flag("backup_slurmctld_failure", Some('B')).help(
            "",
            "  -B, --backup_slurmctld_failure\n                      trigger event when backup slurmctld fails",
        ),
        flag("backup_slurmctld_resumed_operation", Some('c')).help(
            "",
            "  -c, --backup_slurmctld_resumed_operation\n                      trigger event when backup slurmctld resumed operation\n                      after failure",
        ),
        flag("backup_slurmctld_assumed_control", Some('C')).help(
            "",
            "  -C, --backup_slurmctld_assumed_control\n                      trigger event when backup slurmctld assumed control",
        ),
        flag("down", Some('d')).help("", "  -d, --down          trigger event when node goes DOWN"),
        flag("drained", Some('D'))
            .help("", "  -D, --drained       trigger event when node becomes DRAINED"),
        flag("primary_slurmctld_acct_buffer_full", Some('e')).help(
            "",
            "  -e, --primary_slurmctld_acct_buffer_full\n                      trigger event when primary slurmctld acct buffer full",
        ),
        flag("fail", Some('F'))
            .help("", "  -F, --fail          trigger event when node is expected to FAIL"),
        flag("fini", Some('f')).help("", "  -f, --fini          trigger event when job finishes"),
        value("flags", None)
            .help("", "      --flags=perm    trigger event flag (perm = permanent)\n"),
        flag("primary_slurmdbd_failure", Some('g')).help(
            "",
            "  -g, --primary_slurmdbd_failure\n                      trigger when primary slurmdbd fails",
        ),
        flag("primary_slurmdbd_resumed_operation", Some('G')).help(
            "",
            "  -G, --primary_slurmdbd_resumed_operation\n                      trigger when primary slurmdbd resumed operation after\n                      failure",
        ),
        flag("primary_database_failure", Some('h')).help(
            "",
            "  -h, --primary_database_failure\n                      trigger when primary database fails",
        ),
        flag("primary_database_resumed_operation", Some('H')).help(
            "",
            "  -H, --primary_database_resumed_operation\n                      trigger when primary database resumed operation after\n                      failure",
        ),
        value("id", Some('i')).help("", "  -i, --id=#          a trigger's ID number"),
        flag("idle", Some('I'))
            .help("", "  -I, --idle          trigger event when node remains IDLE"),
        value("jobid", Some('j'))
            .help("", "  -j, --jobid=#       trigger related to specific jobid"),
        value("cluster", Some('M')).aliases(&["clusters"]).help(
            "",
            "  -M, --cluster=name  cluster to issue commands to.  Default is\n                      current cluster.  cluster with no name will\n                      reset to default.\n                      NOTE: SlurmDBD must up.",
        ),
        optional("node", Some('n')).help(
            "",
            "  -n, --node[=host]   trigger related to specific node, all nodes by default",
        ),
        flag("noheader", Some('N'))
            .help("", "  -N, --noheader      Do not print the message header"),
        value("offset", Some('o')).help(
            "",
            "  -o, --offset=#      trigger's offset time from event, negative to precede",
        ),
        value("program", Some('p'))
            .help("", "  -p, --program=path  pathname of program to execute when triggered"),
        flag("quiet", Some('Q'))
            .help("", "  -Q, --quiet         quiet mode (suppress informational messages)"),
        flag("reconfig", Some('r'))
            .help("", "  -r, --reconfig      trigger event on configuration changes"),
        flag("time", Some('t')).help("", "  -t, --time          trigger event on job's time limit"),
        flag("up", Some('u')).help(
            "",
            "  -u, --up            trigger event when node returned to service from DOWN \n                      state",
        ),
        value("user", None)
            .help("", "      --user          a user name or ID to filter triggers by"),
        flag("verbose", Some('v')).help("", "  -v, --verbose       print detailed event logging"),
        flag("version", Some('V'))
            .help("", "  -V, --version       print version information and exit"),
        flag("help", None).help("", "show this help message"),
        flag("usage", None).help("", "display brief usage message"),
    ],
    // Slurm's `long_options` order, which decides what an ambiguous abbreviation lists.
    getopt_order: &[
        "primary_slurmctld_failure",
        "primary_slurmctld_resumed_operation",
        "primary_slurmctld_resumed_control",
        "backup_slurmctld_failure",
        "backup_slurmctld_resumed_operation",
        "backup_slurmctld_assumed_control",
        "down",
        "drained",
        "primary_slurmctld_acct_buffer_full",
        "fini",
        "fail",
        "primary_slurmdbd_failure",
        "primary_slurmdbd_resumed_operation",
        "primary_database_failure",
        "primary_database_resumed_operation",
        "id",
        "idle",
        "jobid",
        "cluster",
        "clusters",
        "node",
        "noheader",
        "offset",
        "program",
        "quiet",
        "reconfig",
        "time",
        "up",
        "verbose",
        "version",
        "burst_buffer",
        "clear",
        "flags",
        "front_end",
        "get",
        "help",
        "set",
        "usage",
        "user",
    ],
    scan: Getopt,
    usage: Usage::plain(
        "Usage: strigger [--set | --get | --clear | --version] [-aAbBcCdDefFgGhHiIjnNopQrtuv]",
    ),
    help: Help::List(HelpList {
        usage_first: false,
        head: &["Usage: strigger [--set | --get | --clear] [OPTIONS]"],
        style: EntryStyle::Verbatim,
        column: 22,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[],
        help_options: &["help", "usage"],
        between: &[],
        keywords: &[],
    }),
};
