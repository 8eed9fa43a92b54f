//! The rows of each query command. Option sets follow Slurm 22.05's commands; the help descriptions of sacct,
//! sstat, sattach and sacctmgr are Spur's own summaries, sshare's follow the layout of Slurm's `sshare --help`.

use super::{
    flag, optional, value, EntryStyle, Help, HelpList, Letters, QueryTable, Scan, Scan::Getopt,
    Usage,
};

/// Every query command's table.
pub const TABLES: &[&QueryTable] = &[
    &SQUEUE, &SINFO, &SCONTROL, &SCANCEL, &SACCT, &SACCTMGR, &SPRIO, &SSHARE, &SSTAT, &SATTACH,
    &SBCAST,
];

pub const SQUEUE: QueryTable = QueryTable {
    program: "squeue",
    rows: &[
        value("account", Some('A')).env(&["SQUEUE_ACCOUNT"]).usage("[-A account]").help(
            "=account(s)",
            "comma separated list of accounts\n\t\t\t\t  to view, default is all accounts",
        ),
        value("clusters", Some('M')).usage("[--clusters names]").help(
            "=cluster_name",
            "cluster to issue commands to.  Default is\ncurrent cluster.  cluster with no name will\n\
             reset to default. Implies --local.",
        ),
        value("iterate", Some('i'))
            .usage("[-i seconds]")
            .help("=seconds", "specify an interation period"),
        value("jobs", Some('j'))
            .usage("[--job jobid]")
            .shown("job")
            .help("=job(s)", "comma separated list of jobs IDs\nto view, default is all"),
        flag("json", None)
            .usage("[--json]")
            .help("", "Produce JSON output"),
        value("name", Some('n')).env(&["SQUEUE_NAMES"])
            .usage("[-n name]")
            .help("=job_name(s)", "comma separated list of job names to view"),
        value("format", Some('o')).env(&["SQUEUE_FORMAT"])
            .usage("[-o format]")
            .help("=format", "format specification"),
        value("Format", Some('O')).env(&["SQUEUE_FORMAT2"])
            .usage("[-O fields]")
            .help("=format", "format specification"),
        value("partition", Some('p')).env(&["SQUEUE_PARTITION"]).usage("[-p partitions]").help(
            "=partition(s)",
            "comma separated list of partitions\n\t\t\t\t  to view, default is all partitions",
        ),
        value("qos", Some('q')).env(&["SQUEUE_QOS"]).usage("[--qos qos]").help(
            "=qos(s)",
            "comma separated list of qos's\n\t\t\t\t  to view, default is all qos's",
        ),
        value("reservation", Some('R'))
            .usage("[--reservation reservation]")
            .help("=name", "reservation to view, default is all"),
        value("sort", Some('S')).env(&["SQUEUE_SORT"])
            .usage("[--sort fields]")
            .help("=fields", "comma separated list of fields to sort on"),
        flag("start", None)
            .usage("[--start]")
            .help("", "print expected start times of pending jobs"),
        value("states", Some('t')).env(&["SQUEUE_STATES"]).usage("[--states states]").help(
            "=states",
            "comma separated list of states to view,\n\t\t\t\t  default is pending and running,\n\
             \t\t\t\t  '--states=all' reports all states",
        ),
        value("user", Some('u')).env(&["SQUEUE_USERS"])
            .usage("[-u user_name]")
            .help("=user_name(s)", "comma separated list of users to view"),
        flag("usage", None)
            .usage("[--usage]")
            .help("", "display a brief summary of squeue options"),
        flag("all", Some('a')).env(&["SQUEUE_ALL"])
            .letter()
            .help("", "display jobs in hidden partitions"),
        flag("noheader", Some('h'))
            .letter()
            .help("", "no headers on output"),
        flag("long", Some('l')).letter().help("", "long report"),
        flag("array", Some('r')).env(&["SQUEUE_ARRAY"])
            .letter()
            .help("", "display one job array element per line"),
        flag("steps", Some('s'))
            .letter()
            .shown("step")
            .help("=step(s)", "comma separated list of job steps\n\t\t\t\t  to view, default is all"),
        flag("verbose", Some('v')).letter().help("", "verbosity level"),
        flag("array-unique", None).env(&["SQUEUE_ARRAY_UNIQUE"]).help(
            "",
            "display one unique pending job array\nelement per line",
        ),
        flag("federation", None).env(&["SQUEUE_FEDERATION"]).help("", "Report federated information if a member\nof one"),
        flag("help", None).help("", "show this help message"),
        flag("hide", None).help("", "do not display jobs in hidden partitions"),
        value("licenses", Some('L')).env(&["SQUEUE_LICENSES"]).help(
            "=(license names)",
            "comma separated list of license names to view",
        ),
        flag("local", None).env(&["SQUEUE_LOCAL"]).help(
            "",
            "Report information only about jobs on the\nlocal cluster. Overrides --federation.",
        ),
        flag("me", None),
        flag("noconvert", None).help(
            "",
            "don't convert units from their original type\n(e.g. 2048M won't be converted to 2G).",
        ),
        value("nodelist", Some('w')).help(
            "=hostlist",
            "list of nodes to view, default is \n\t\t\t\t  all nodes",
        ),
        flag("priority", Some('P')).env(&["SQUEUE_PRIORITY"]),
        flag("sibling", None).env(&["SQUEUE_SIBLING", "SQUEUE_SIB"]).help(
            "",
            "Report information about all sibling jobs\non a federated cluster. Implies --federation.",
        ),
        flag("version", Some('V')).help("", "output version information and exit"),
        flag("yaml", None).help("", "Produce YAML output"),
    ],
    getopt_order: &[
        "account",
        "all",
        "array",
        "array-unique",
        "clusters",
        "federation",
        "format",
        "Format",
        "help",
        "hide",
        "iterate",
        "jobs",
        "json",
        "licenses",
        "local",
        "long",
        "me",
        "name",
        "noconvert",
        "noheader",
        "nodelist",
        "partition",
        "priority",
        "qos",
        "reservation",
        "sibling",
        "sort",
        "start",
        "states",
        "steps",
        "usage",
        "user",
        "verbose",
        "version",
        "yaml",
    ],
    scan: Getopt,
    usage: Usage {
        lead: "Usage: squeue",
        letters: Letters::Last,
        operands: "",
        indent: 14,
        width: 100,
    },
    help: Help::List(HelpList {
        usage_first: false,
        head: &["Usage: squeue [OPTIONS]"],
        style: EntryStyle::Comma,
        column: 34,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[
            "account",
            "all",
            "array-unique",
            "federation",
            "noheader",
            "hide",
            "iterate",
            "jobs",
            "json",
            "local",
            "long",
            "licenses",
            "clusters",
            "name",
            "noconvert",
            "format",
            "Format",
            "partition",
            "qos",
            "reservation",
            "array",
            "sibling",
            "steps",
            "sort",
            "start",
            "states",
            "user",
            "name",
            "verbose",
            "version",
            "nodelist",
            "yaml",
        ],
        help_options: &["help", "usage"],
    }),
};

pub const SINFO: QueryTable = QueryTable {
    program: "sinfo",
    rows: &[
        flag("all", Some('a')).env(&["SINFO_ALL"]).letter().help(
            "",
            "show all partitions (including hidden and those\n\t\t\t     not accessible)",
        ),
        flag("dead", Some('d'))
            .letter()
            .help("", "show only non-responding nodes"),
        flag("exact", Some('e'))
            .letter()
            .help("", "group nodes only on exact match of configuration"),
        flag("long", Some('l'))
            .letter()
            .help("", "long output - displays more information"),
        flag("Node", Some('N')).letter().help("", "Node-centric format"),
        flag("list-reasons", Some('R'))
            .letter()
            .help("", "list reason nodes are down or drained"),
        flag("responding", Some('r'))
            .letter()
            .help("", "report only responding nodes"),
        flag("summarize", Some('s'))
            .letter()
            .help("", "report state summary only"),
        flag("reservation", Some('T'))
            .letter()
            .help("", "show only reservation information"),
        flag("verbose", Some('v')).letter().help("", "verbosity level"),
        value("iterate", Some('i'))
            .usage("[-i seconds]")
            .help("=seconds", "specify an iteration period"),
        value("states", Some('t'))
            .usage("[-t states]")
            .help("=node_state", "specify the what states of nodes to view"),
        value("partition", Some('p')).env(&["SINFO_PARTITION"])
            .usage("[-p partition]")
            .help("=PARTITION", "report on specific partition"),
        value("nodes", Some('n'))
            .usage("[-n nodes]")
            .help("=NODES", "report on specific node(s)"),
        value("sort", Some('S')).env(&["SINFO_SORT"])
            .usage("[-S fields]")
            .help("=fields", "comma separated list of fields to sort on"),
        value("format", Some('o')).env(&["SINFO_FORMAT"])
            .usage("[-o format]")
            .help("=format", "format specification"),
        value("Format", Some('O'))
            .usage("[-O Format]")
            .help("=format", "long format specification"),
        flag("json", None)
            .usage("[--json]")
            .help("", "Produce JSON output"),
        flag("usage", None)
            .usage("[--usage]")
            .help("", "display brief usage message"),
        flag("help", None)
            .usage("[--help]")
            .help("", "show this help message"),
        value("clusters", Some('M')).help(
            "=names",
            "clusters to issue commands to. Implies --local.\nNOTE: SlurmDBD must be up.",
        ),
        flag("federation", None).env(&["SINFO_FEDERATION"]).help("", "Report federated information if a member of one"),
        flag("future", Some('F')),
        flag("hide", None)
            .bare()
            .help("", "do not show hidden or non-accessible partitions"),
        flag("local", None).env(&["SINFO_LOCAL"]).help(
            "",
            "show only local cluster in a federation.\nOverrides --federation.",
        ),
        flag("noconvert", None).bare().help(
            "",
            "don't convert units from their original type\n\t\t\t     (e.g. 2048M won't be converted to 2G).",
        ),
        flag("noheader", Some('h')).help("", "no headers on output"),
        flag("version", Some('V')).help("", "output version information and exit"),
        flag("yaml", None).help("", "Produce YAML output"),
    ],
    getopt_order: &[
        "all",
        "clusters",
        "dead",
        "exact",
        "federation",
        "format",
        "Format",
        "future",
        "help",
        "hide",
        "iterate",
        "json",
        "list-reasons",
        "local",
        "long",
        "Node",
        "noconvert",
        "noheader",
        "nodes",
        "partition",
        "responding",
        "reservation",
        "sort",
        "states",
        "summarize",
        "usage",
        "verbose",
        "version",
        "yaml",
    ],
    scan: Getopt,
    usage: Usage {
        lead: "Usage: sinfo",
        letters: Letters::First,
        operands: "",
        indent: 13,
        width: 80,
    },
    help: Help::List(HelpList {
        usage_first: false,
        head: &["Usage: sinfo [OPTIONS]"],
        style: EntryStyle::Comma,
        column: 29,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[
            "all",
            "dead",
            "exact",
            "federation",
            "noheader",
            "hide",
            "iterate",
            "json",
            "local",
            "long",
            "clusters",
            "nodes",
            "noconvert",
            "Node",
            "format",
            "Format",
            "partition",
            "responding",
            "list-reasons",
            "summarize",
            "sort",
            "states",
            "reservation",
            "verbose",
            "version",
            "yaml",
        ],
        help_options: &["help", "usage"],
    }),
};

/// scontrol's leading options; its commands (`show job 5`) are a grammar of their own, read by the command.
pub const SCONTROL: QueryTable = QueryTable {
    program: "scontrol",
    rows: &[
        flag("oneliner", Some('o')),
        flag("details", Some('d')),
        flag("quiet", Some('Q')),
        flag("all", Some('a')).env(&["SCONTROL_ALL"]),
        flag("verbose", Some('v')),
        flag("local", None).env(&["SCONTROL_LOCAL"]),
        flag("sibling", None).env(&["SCONTROL_SIBLING", "SCONTROL_SIB"]),
        flag("federation", None).env(&["SCONTROL_FEDERATION"]),
        flag("hide", None),
        flag("future", Some('F')).env(&["SCONTROL_FUTURE"]),
        flag("version", Some('V')).early(),
        flag("help", Some('h')).early(),
        flag("usage", None).early(),
    ],
    getopt_order: &[],
    scan: Scan::Words {
        reject_unknown_leading_dash: true,
    },
    usage: Usage::plain("scontrol [<OPTION>] [<COMMAND>]"),
    help: Help::Usage,
};

pub const SCANCEL: QueryTable = QueryTable {
    program: "scancel",
    rows: &[
        value("account", Some('A')).env(&["SCANCEL_ACCOUNT"])
            .usage("[-A account]")
            .help("=account", "act only on jobs charging this account"),
        flag("batch", Some('b')).env_true_false(&["SCANCEL_BATCH"])
            .usage("[--batch]")
            .help("", "signal batch shell for specified job"),
        flag("full", Some('f')).env_true_false(&["SCANCEL_FULL"])
            .usage("[--full]")
            .help("", "signal batch shell and all steps for specified job"),
        flag("interactive", Some('i'))
            .usage("[--interactive]")
            .help("", "require response from user for each job"),
        value("name", Some('n')).env(&["SCANCEL_NAME"])
            .usage("[-n job_name]")
            .help("=job_name", "act only on jobs with this name"),
        value("partition", Some('p')).env(&["SCANCEL_PARTITION"])
            .usage("[-p partition]")
            .help("=partition", "act only on jobs in this partition"),
        flag("quiet", Some('Q')).usage("[-Q]").help("", "disable warnings"),
        value("qos", Some('q')).env(&["SCANCEL_QOS"])
            .usage("[-q qos]")
            .help("=qos", "act only on jobs with this quality of service"),
        value("reservation", Some('R'))
            .usage("[-R reservation]")
            .help("=reservation", "act only on jobs with this reservation"),
        value("signal", Some('s'))
            .usage("[-s signal | integer]")
            .help("=name | integer", "signal to send to job, default is SIGKILL"),
        value("state", Some('t')).env(&["SCANCEL_STATE"])
            .usage("[-t PENDING | RUNNING | SUSPENDED]")
            .help(
                "=states",
                "act only on jobs in this state.  Valid job\nstates are PENDING, RUNNING and SUSPENDED",
            ),
        flag("usage", None)
            .usage("[--usage]")
            .help("", "display brief usage message"),
        value("user", Some('u')).env(&["SCANCEL_USER"])
            .usage("[-u user_name]")
            .help("=user_name", "act only on jobs of this user"),
        flag("hurry", Some('H')).env(&["SCANCEL_HURRY"])
            .usage("[--hurry]")
            .help("", "avoid burst buffer stage out"),
        flag("version", Some('V'))
            .usage("[-V]")
            .help("", "output version information and exit"),
        flag("verbose", Some('v')).env_true_false(&["SCANCEL_VERBOSE"]).usage("[-v]").help("", "verbosity level"),
        value("nodelist", Some('w'))
            .usage("[-w hosts...]")
            .help("", "act only on jobs on these nodes"),
        value("wckey", None).env(&["SCANCEL_WCKEY"])
            .usage("[--wckey=wckey]")
            .help("=wckey", "act only on jobs with this workload\ncharactization key"),
        value("cluster", Some('M'))
            .shown("clusters")
            .help("", "clusters to issue commands to.\nNOTE: SlurmDBD must be up."),
        value("clusters", None),
        flag("ctld", None).env(&["SCANCEL_CTLD"]),
        flag("help", None).help("", "show this help message"),
        value("jobname", None),
        value("sibling", None).help("=cluster_name", "remove an active sibling job from a federated job"),
    ],
    getopt_order: &[
        "account",
        "batch",
        "cluster",
        "clusters",
        "ctld",
        "full",
        "help",
        "hurry",
        "interactive",
        "jobname",
        "name",
        "nodelist",
        "partition",
        "qos",
        "quiet",
        "reservation",
        "sibling",
        "signal",
        "state",
        "usage",
        "user",
        "verbose",
        "version",
        "wckey",
    ],
    scan: Getopt,
    usage: Usage {
        lead: "Usage: scancel",
        letters: Letters::None,
        operands: "[job_id[_array_id][.step_id]]",
        indent: 15,
        width: 82,
    },
    help: Help::List(HelpList {
        usage_first: false,
        head: &["Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]"],
        style: EntryStyle::Comma,
        column: 34,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[
            "account",
            "batch",
            "full",
            "hurry",
            "interactive",
            "cluster",
            "name",
            "partition",
            "quiet",
            "qos",
            "reservation",
            "sibling",
            "signal",
            "state",
            "user",
            "version",
            "verbose",
            "nodelist",
            "wckey",
        ],
        help_options: &["help", "usage"],
    }),
};

pub const SACCT: QueryTable = QueryTable {
    program: "sacct",
    rows: &[
        flag("allusers", Some('a')).help(
            "",
            "every user's jobs (users other than root see only their own by default)",
        ),
        value("accounts", Some('A')).help(" LIST", "jobs charged to these accounts"),
        flag("brief", Some('b')).help("", "the fields JobID,State,ExitCode"),
        value("delimiter", None).help(" TEXT", "what separates -p/-P fields (default '|')"),
        flag("duplicates", Some('D')).help("", "accepted: Spur keeps one record per job"),
        flag("helpformat", Some('e'))
            .help("", "list the fields -o accepts")
            .aliases(&["help-fields"]),
        value("endtime", Some('E')).help(" TIME", "jobs known before TIME (default: now)"),
        flag("help", Some('h')).help("", "this summary"),
        value("jobs", Some('j')).help(
            " LIST",
            "these jobs, array tasks (J_T) or steps (J.S); no default time window then",
        ),
        flag("long", Some('l')).help("", "the long field list"),
        value("name", None).help(" LIST", "jobs with these names"),
        flag("noheader", Some('n')).help("", "no header lines"),
        value("format", Some('o'))
            .env(&["SACCT_FORMAT"])
            .aliases(&["fields"])
            .help(
                " LIST",
                "the fields to show (NAME or NAME%WIDTH; names may be shortened)",
            ),
        flag("parsable", Some('p')).help("", "fields separated and ended by '|'"),
        flag("parsable2", Some('P')).help("", "fields separated by '|'"),
        value("partition", Some('r')).help(" LIST", "jobs in these partitions"),
        value("state", Some('s')).help(" LIST", "jobs in these states during the window"),
        value("starttime", Some('S')).help(" TIME", "jobs known after TIME (default: 00:00 today)"),
        value("user", Some('u'))
            .help(" LIST", "these users' jobs")
            .aliases(&["uid"]),
        flag("usage", Some('U')).help("", "one-line usage"),
        flag("version", Some('V')).help("", "the Slurm release reproduced"),
        flag("allocations", Some('X')).help("", "the jobs only, not their steps"),
        value("cluster", Some('M')).aliases(&["clusters"]).help(
            " LIST",
            "jobs of these clusters (`all` or -L: every cluster); Spur knows its own only",
        ),
        value("gid", Some('g'))
            .aliases(&["group"])
            .help(" LIST", "jobs of these groups (names or numbers)"),
        value("ncpus", Some('I')).help(" N[-M]", "jobs allocated N (to M) CPUs"),
        value("nnodes", Some('i')).help(" N[-M]", "jobs allocated N (to M) nodes"),
        value("nodelist", Some('N')).help(" HOSTLIST", "jobs that ran on any of these nodes"),
        value("qos", Some('q')).help(" LIST", "jobs of these QOS"),
        value("timelimit-min", Some('k')).help(
            " TIME",
            "jobs whose time limit is TIME (or at least TIME with -K)",
        ),
        value("timelimit-max", Some('K'))
            .help(" TIME", "with -k: jobs whose time limit is at most TIME"),
        flag("truncate", Some('T')).help("", "start and end times cut to the window"),
        value("units", None).help(
            " K|M|G|T|P",
            "memory sizes in this unit (ReqMem, ReqTRES, AllocTRES)",
        ),
        flag("noconvert", None).help("", "memory sizes as stored, not converted to a larger unit"),
        flag("allclusters", Some('L')).help("", "jobs of every cluster"),
        flag("local", None)
            .env(&["SACCT_LOCAL"])
            .help("", "this cluster's jobs only (the default here)"),
        flag("federation", None)
            .env(&["SACCT_FEDERATION"])
            .help("", "the federation's jobs (Spur: this cluster's)"),
        value("wckeys", Some('W')).help(" LIST", "jobs of these wckeys (Spur records none)"),
        value("associations", Some('x'))
            .help(" LIST", "jobs of these association ids (Spur records none)"),
        optional("whole-hetjob", None)
            .help("[=yes|no]", "accepted: Spur records no heterogeneous jobs"),
        flag("json", None).help(
            "",
            "the jobs as slurmdbd's v0.0.38 JSON (ignores -o, -n, -p)",
        ),
        flag("completion", Some('c')),
        flag("verbose", Some('v')),
    ],
    // Slurm's sacct long_options order: an ambiguous abbreviation lists its candidates in it.
    getopt_order: &[
        "allusers",
        "accounts",
        "allocations",
        "brief",
        "completion",
        "delimiter",
        "duplicates",
        "federation",
        "helpformat",
        "help-fields",
        "endtime",
        "gid",
        "group",
        "help",
        "local",
        "name",
        "nnodes",
        "ncpus",
        "jobs",
        "timelimit-min",
        "timelimit-max",
        "long",
        "allclusters",
        "cluster",
        "clusters",
        "nodelist",
        "noconvert",
        "units",
        "noheader",
        "fields",
        "format",
        "parsable",
        "parsable2",
        "qos",
        "partition",
        "state",
        "starttime",
        "truncate",
        "uid",
        "usage",
        "user",
        "verbose",
        "version",
        "wckeys",
        "whole-hetjob",
        "associations",
        "json",
    ],
    scan: Getopt,
    usage: Usage::plain("Usage: sacct [options]\n\tUse --help for help"),
    help: Help::List(HelpList {
        usage_first: false,
        head: &["sacct [OPTIONS]"],
        style: EntryStyle::Comma,
        column: 24,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[],
        help_options: &[],
    }),
};

/// sacctmgr's leading options; its commands (`add account x`) are a grammar of their own, read by the command.
pub const SACCTMGR: QueryTable = QueryTable {
    program: "sacctmgr",
    rows: &[
        flag("immediate", Some('i')).help("", "commit without asking"),
        flag("noheader", Some('n')).help("", "no header line"),
        flag("parsable", Some('p')).help("", "'|' after every field"),
        flag("parsable2", Some('P')).help("", "'|' between fields"),
        flag("version", Some('V')).help("", "the version").early(),
        flag("quiet", Some('Q')),
        flag("verbose", Some('v')),
        flag("readonly", Some('r')),
        flag("help", Some('h')).early(),
        flag("usage", None).early(),
    ],
    getopt_order: &[],
    scan: Scan::Words {
        reject_unknown_leading_dash: false,
    },
    usage: Usage::plain(
        "sacctmgr [OPTIONS] COMMAND ENTITY [NAMES] [where CONDITIONS] [set SETTINGS]",
    ),
    help: Help::List(HelpList {
        usage_first: true,
        head: &[
            "  commands: add|create, modify|update, delete|remove, show|list",
            "  entities: qos, account, user, association (show), cluster (show)",
        ],
        style: EntryStyle::Comma,
        column: 20,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[],
        help_options: &[],
    }),
};

pub const SPRIO: QueryTable = QueryTable {
    program: "sprio",
    rows: &[
        optional("jobs", Some('j'))
            .usage("[-j jid[s]]")
            .help("", "comma separated list of jobs\nto view, default is all"),
        value("user", Some('u'))
            .usage("[-u user_name[s]]")
            .help("=user_name", "comma separated list of users to view"),
        value("format", Some('o')).env(&["SPRIO_FORMAT"])
            .usage("[-o format]")
            .help("=format", "format specification"),
        value("partition", Some('p'))
            .usage("[-p partitions]")
            .help("=partition_name", "comma separated list of partitions"),
        flag("federation", None).env(&["SPRIO_FEDERATION"])
            .usage("[--federation]")
            .help("", "display jobs in federation if a member of one"),
        flag("local", None).env(&["SPRIO_LOCAL"])
            .usage("[--local]")
            .help("", "display jobs on local cluster only"),
        flag("sibling", None).env(&["SPRIO_SIBLING"]).usage("[--sibling]").help(
            "",
            "display job records separately for each federation cluster",
        ),
        flag("usage", None)
            .usage("[--usage]")
            .help("", "display a brief summary of sprio options"),
        flag("noheader", Some('h'))
            .letter()
            .help("", "no headers on output"),
        flag("long", Some('l')).letter().help("", "long report"),
        flag("norm", Some('n'))
            .letter()
            .help("", "display normalized values"),
        flag("verbose", Some('v')).letter().help("", "verbosity level"),
        flag("version", Some('V'))
            .letter()
            .help("", "output version information and exit"),
        flag("weights", Some('w'))
            .letter()
            .help("", "show the weights for each priority factor"),
        value("clusters", Some('M')).shown("cluster").help(
            "=cluster_name",
            "cluster to issue commands to.  Default is\ncurrent cluster.  cluster with no name will\n\
             reset to default.\nNOTE: SlurmDBD must be up.",
        ),
        value("cluster", None),
        flag("help", None).help("", "show this help message"),
        value("sort", Some('S')),
        value("users", None),
    ],
    getopt_order: &[
        "clusters",
        "cluster",
        "federation",
        "format",
        "help",
        "jobs",
        "local",
        "long",
        "noheader",
        "norm",
        "partition",
        "sibling",
        "sort",
        "usage",
        "user",
        "users",
        "verbose",
        "version",
        "weights",
    ],
    scan: Getopt,
    usage: Usage {
        lead: "Usage: sprio",
        letters: Letters::Last,
        operands: "",
        indent: 3,
        width: 80,
    },
    help: Help::List(HelpList {
        usage_first: false,
        head: &["Usage: sprio [OPTIONS]"],
        style: EntryStyle::Comma,
        column: 34,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[
            "federation",
            "noheader",
            "jobs",
            "local",
            "long",
            "clusters",
            "norm",
            "format",
            "sibling",
            "partition",
            "user",
            "verbose",
            "version",
            "weights",
        ],
        help_options: &["help", "usage"],
    }),
};

pub const SSHARE: QueryTable = QueryTable {
    program: "sshare",
    rows: &[
        flag("all", Some('a')).help("", "list all users"),
        value("accounts", Some('A'))
            .help("=", "display specific accounts (comma separated list)"),
        flag("helpformat", Some('e')).help(
            "",
            "Print a list of fields that can be specified\nwith the '--format' option",
        ),
        flag("long", Some('l')).help("", "include normalized usage in output"),
        flag("partition", Some('m')).help("", "print the partition part of the association"),
        value("cluster", Some('M'))
            .help("=names", "clusters to issue commands to.\nNOTE: SlurmDBD must be up."),
        flag("noheader", Some('n')).help("", "omit header from output"),
        value("format", Some('o')).help(
            "=",
            "Comma separated list of fields (use\n\"--helpformat\" for a list of available fields).",
        ),
        flag("parsable", Some('p')).help("", "'|' delimited output with a trailing '|'"),
        flag("parsable2", Some('P')).help("", "'|' delimited output without a trailing '|'"),
        value("users", Some('u')).help("=", "display specific users (comma separated list)"),
        flag("Users", Some('U')).help("", "display only user information"),
        flag("verbose", Some('v')).help("", "display more information"),
        flag("version", Some('V')).help("", "display tool version number"),
        flag("help", None).help("", "display this usage description"),
        flag("usage", None).help("", "display this usage description"),
        // `-h` is a second letter for `--noheader`, which help lists once.
        flag("noheader", Some('h')),
    ],
    getopt_order: &[
        "accounts",
        "all",
        "helpformat",
        "long",
        "partition",
        "cluster",
        "noheader",
        "format",
        "parsable",
        "parsable2",
        "users",
        "Users",
        "verbose",
        "version",
        "help",
        "usage",
    ],
    scan: Getopt,
    usage: Usage::plain("Usage:  sshare [OPTION]"),
    help: Help::List(HelpList {
        usage_first: true,
        head: &["  Valid OPTIONs are:"],
        style: EntryStyle::Or,
        column: 27,
        pad_to: 75,
        tail: &[""],
        end: "\n",
        order: &[],
        help_options: &[],
    }),
};

pub const SSTAT: QueryTable = QueryTable {
    program: "sstat",
    rows: &[
        flag("allsteps", Some('a')).help("", "every running step of a job given without a step"),
        flag("helpformat", Some('e')).help("", "list the fields -o accepts"),
        flag("help", Some('h')).help("", "this summary"),
        flag("pidformat", Some('i')).help("", "the fields JobID,Nodelist,Pids"),
        value("jobs", Some('j')).help(
            " LIST",
            "the jobs or steps to show (required); a job alone means its lowest running step",
        ),
        flag("noconvert", None).help("", "sizes in bytes, unconverted"),
        flag("noheader", Some('n')).help("", "no header lines"),
        value("format", Some('o')).help(
            " LIST",
            "the fields to show (NAME or NAME%WIDTH, negative widths left-justify)",
        ),
        flag("parsable", Some('p')).help("", "fields separated and ended by '|'"),
        flag("parsable2", Some('P')).help("", "fields separated by '|'"),
        flag("usage", None).help("", "one-line usage"),
        flag("verbose", Some('v')).help("", "accepted"),
        flag("version", Some('V')).help("", "the Slurm release reproduced"),
        value("fields", None),
    ],
    getopt_order: &[
        "allsteps",
        "format",
        "fields",
        "help",
        "helpformat",
        "jobs",
        "noconvert",
        "noheader",
        "parsable",
        "parsable2",
        "pidformat",
        "usage",
        "verbose",
        "version",
    ],
    scan: Getopt,
    usage: Usage::plain("Usage: sstat [options] -j <job(.stepid)>\n\tUse --help for help"),
    help: Help::List(HelpList {
        usage_first: false,
        head: &["sstat [OPTIONS] -j JOB[.STEP][,...]"],
        style: EntryStyle::Comma,
        column: 22,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[],
        help_options: &[],
    }),
};

pub const SATTACH: QueryTable = QueryTable {
    program: "sattach",
    rows: &[
        value("input-filter", None).help("=TASK", "stdin to this task only"),
        value("output-filter", None).help("=TASK", "stdout of this task only"),
        value("error-filter", None).help("=TASK", "stderr of this task only"),
        flag("label", Some('l')).help("", "prefix each line with its task number"),
        flag("layout", None).help("", "show the step's task layout and exit"),
        flag("pty", None),
        flag("quiet", Some('Q')).help("", "no informational messages"),
        flag("verbose", Some('v')).help("", "accepted"),
        flag("version", Some('V')).help("", "the Slurm release reproduced"),
        flag("help", Some('h')).help("", "this summary"),
        flag("usage", Some('u')).help("", "one-line usage"),
    ],
    getopt_order: &[],
    scan: Getopt,
    usage: Usage::plain("Usage: sattach [options] <jobid.stepid>"),
    help: Help::List(HelpList {
        usage_first: true,
        head: &[],
        style: EntryStyle::Comma,
        column: 28,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[],
        help_options: &[],
    }),
};

pub const SBCAST: QueryTable = QueryTable {
    program: "sbcast",
    rows: &[
        optional("compress", Some('C')).help("[=lib]", "compress the file being transmitted"),
        value("exclude", None)
            .bare()
            .help("=<path_list>", "shared object paths to be excluded"),
        flag("force", Some('f')).help("", "replace destination file as required"),
        value("fanout", Some('F')).help("=num", "specify message fanout"),
        value("jobid", Some('j')).help(
            "=#[+#][.#]",
            "specify job ID with optional hetjob offset and/or step ID",
        ),
        flag("preserve", Some('p')).help("", "preserve modes and times of source file"),
        optional("send-libs", None).bare().help(
            "[=yes|no]",
            "autodetect and broadcast executable's shared objects",
        ),
        value("size", Some('s')).help("=num", "block size in bytes (rounded off)"),
        value("timeout", Some('t')).help("=secs", "specify message timeout (seconds)"),
        flag("verbose", Some('v')).help("", "provide detailed event logging"),
        flag("version", Some('V')).help("", "print version information and exit"),
        flag("help", None).help("", "show this help message"),
        flag("usage", None).help("", "display brief usage message"),
    ],
    getopt_order: &[],
    scan: Getopt,
    usage: Usage::plain("Usage: sbcast [-CfFjpvV] SOURCE DEST"),
    help: Help::List(HelpList {
        usage_first: false,
        head: &["Usage: sbcast [OPTIONS] SOURCE DEST"],
        style: EntryStyle::Comma,
        column: 24,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[],
        help_options: &["help", "usage"],
    }),
};
