//! The rows of each query command. Option sets follow Slurm 22.05's commands; the help descriptions of sacct,
//! sstat, sattach and sacctmgr are Spur's own summaries, sshare's follow the layout of Slurm's `sshare --help`.

use super::help_text;
use super::{
    flag, optional, value, EntryStyle, Help, HelpList, Letters, QueryTable, Scan, Scan::Getopt,
    Usage,
};

/// Every query command's table.
pub const TABLES: &[&QueryTable] = &[
    &SQUEUE,
    &SINFO,
    &SCONTROL,
    &SCANCEL,
    &SACCT,
    &SACCTMGR,
    &SPRIO,
    &SSHARE,
    &SSTAT,
    &SATTACH,
    &SBCAST,
    &super::SREPORT,
    &super::STRIGGER,
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
            .help("", "Produce JSON output"),
        value("name", Some('n')).env(&["SQUEUE_NAMES"])
            .usage("[-n name]")
            .help("=job_name(s)", "comma separated list of job names to view"),
        value("format", Some('o')).env(&["SQUEUE_FORMAT"])
            .usage("[-o format]")
            .help("=format", "format specification"),
        value("Format", Some('O')).env(&["SQUEUE_FORMAT2"])
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
        flag("steps", Some('s'))
            .letter()
            .usage("[--step step_id]")
            .shown("step")
            .help("=step(s)", "comma separated list of job steps\n\t\t\t\t  to view, default is all"),
        value("states", Some('t')).env(&["SQUEUE_STATES"]).usage("[-t states]").help(
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
        value("licenses", Some('L')).env(&["SQUEUE_LICENSES"]).usage("[-L licenses]").help(
            "=(license names)",
            "comma separated list of license names to view",
        ),
        value("nodelist", Some('w')).usage("[-w nodes]").help(
            "=hostlist",
            "list of nodes to view, default is \n\t\t\t\t  all nodes",
        ),
        flag("federation", None).env(&["SQUEUE_FEDERATION"]).usage("[--federation]").help("", "Report federated information if a member\nof one"),
        flag("local", None).env(&["SQUEUE_LOCAL"]).usage("[--local]").help(
            "",
            "Report information only about jobs on the\nlocal cluster. Overrides --federation.",
        ),
        flag("sibling", None).env(&["SQUEUE_SIBLING", "SQUEUE_SIB"]).usage("[--sibling]").help(
            "",
            "Report information about all sibling jobs\non a federated cluster. Implies --federation.",
        ),
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
        flag("verbose", Some('v')).letter().help("", "verbosity level"),
        flag("array-unique", None).env(&["SQUEUE_ARRAY_UNIQUE"]).help(
            "",
            "display one unique pending job array\nelement per line",
        ),
        flag("help", None).help("", "show this help message"),
        flag("hide", None).help("", "do not display jobs in hidden partitions"),
        flag("me", None),
        flag("noconvert", None).help(
            "",
            "don't convert units from their original type\n(e.g. 2048M won't be converted to 2G).",
        ),
        flag("priority", Some('P')).env(&["SQUEUE_PRIORITY"]),
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
        width: 80,
        // Slurm's group adds -j, and sits on a line of its own that starts with a tab.
        group: "ahjlrsv",
        group_line: "\t      ",
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
        between: &[],
        keywords: &[],
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
        flag("json", None).help("", "Produce JSON output"),
        flag("usage", None).help("", "display brief usage message"),
        flag("help", None).help("", "show this help message"),
        value("clusters", Some('M')).help(
            "=names",
            "clusters to issue commands to. Implies --local.\nNOTE: SlurmDBD must be up.",
        ),
        flag("federation", None).env(&["SINFO_FEDERATION"])
            .usage("[--federation]")
            .help("", "Report federated information if a member of one"),
        flag("future", Some('F')),
        flag("hide", None)
            .bare()
            .help("", "do not show hidden or non-accessible partitions"),
        flag("local", None).env(&["SINFO_LOCAL"]).usage("[--local]").help(
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
        // Slurm's usage names a -b that sinfo has no option for.
        group: "abdelNRrsTv",
        group_line: "",
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
        between: &[],
        keywords: &[],
    }),
};

/// scontrol's leading options; its commands (`show job 5`) are a grammar of their own, read by the command.
pub const SCONTROL: QueryTable = QueryTable {
    program: "scontrol",
    rows: &[
        flag("all", Some('a'))
            .env(&["SCONTROL_ALL"])
            .help("", "     -a, --all      Equivalent to \"all\" command"),
        flag("details", Some('d'))
            .help("", "     -d, --details  Equivalent to \"details\" command"),
        flag("federation", None).env(&["SCONTROL_FEDERATION"]).help(
            "",
            "     --federation   Report federated job information if a member of a  one",
        ),
        flag("future", Some('F')).env(&["SCONTROL_FUTURE"]).help(
            "",
            "     -F, --future   Report information about nodes in \"FUTURE\" state.",
        ),
        flag("help", Some('h'))
            .early()
            .help("", "     -h, --help     Equivalent to \"help\" command"),
        flag("hide", None).help("", "     --hide         Equivalent to \"hide\" command"),
        flag("local", None).env(&["SCONTROL_LOCAL"]).help(
            "",
            concat!(
                "     --local        Report information only about jobs on the local cluster.\n",
                "\t            Overrides --federation."
            ),
        ),
        value("cluster", Some('M')).aliases(&["clusters"]).help(
            "",
            concat!(
                "     -M, --cluster  Equivalent to \"cluster\" command. Implies --local.\n",
                "                    NOTE: SlurmDBD must be up."
            ),
        ),
        flag("oneliner", Some('o'))
            .help("", "     -o, --oneliner Equivalent to \"oneliner\" command"),
        flag("quiet", Some('Q')).help("", "     -Q, --quiet    Equivalent to \"quiet\" command"),
        flag("sibling", None)
            .env(&["SCONTROL_SIBLING", "SCONTROL_SIB"])
            .help(
                "",
                concat!(
                    "     --sibling      Report information about all sibling jobs on a\n",
                    "\t            federated cluster. Implies --federation option."
                ),
            ),
        value("uid", Some('u')).help(
            "",
            "     -u,--uid       Update job as user \"uid\" instead of the invoking user.",
        ),
        flag("verbose", Some('v'))
            .help("", "     -v, --verbose  Equivalent to \"verbose\" command"),
        flag("version", Some('V'))
            .early()
            .help("", "     -V, --version  Equivalent to \"version\" command"),
        flag("usage", None).early(),
    ],
    getopt_order: &[],
    scan: Scan::Words {
        reject_unknown_leading_dash: true,
    },
    usage: Usage::plain("scontrol [<OPTION>] [<COMMAND>]"),
    help: Help::List(HelpList {
        usage_first: false,
        head: help_text::SCONTROL_HEAD,
        style: EntryStyle::Verbatim,
        column: 0,
        pad_to: 75,
        tail: help_text::SCONTROL_NOTES,
        end: "\n",
        order: &[],
        help_options: &[],
        between: help_text::SCONTROL_BETWEEN,
        keywords: help_text::SCONTROL_KEYWORDS,
    }),
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
        group: "",
        group_line: "",
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
        between: &[],
        keywords: &[],
    }),
};

/// What sacct's help says after its options: the time formats -S and -E take.
const SACCT_TIME_FORMATS: &[&str] = &[
    "\t                                                                    ",
    "     Note, valid start/end time formats are...",
    "\t           HH:MM[:SS] [AM|PM]",
    "\t           MMDD[YY] or MM/DD[/YY] or MM.DD[.YY]",
    "\t           MM/DD[/YY]-HH:MM[:SS]",
    "\t           YYYY-MM-DD[THH:MM[:SS]]",
    "\t           now[{+|-}count[seconds(default)|minutes|hours|days|weeks]]",
];

pub const SACCT: QueryTable = QueryTable {
    program: "sacct",
    rows: &[
        flag("allusers", Some('a')).help(
            "",
            concat!(
                "     -a, --allusers:\n",
                "\t           Display jobs for all users. By default, only the\n",
                "                   current user's jobs are displayed.  If ran by user root\n",
                "                   this is the default."
            ),
        ),
        value("accounts", Some('A')).help(
            "",
            concat!(
                "     -A, --accounts:\n",
                "\t           Use this comma separated list of accounts to select jobs\n",
                "                   to display.  By default, all accounts are selected."
            ),
        ),
        flag("brief", Some('b')).help(
            "",
            concat!(
                "     -b, --brief:\n",
                "\t           Equivalent to '--format=jobstep,state,error'."
            ),
        ),
        // -B, --env-vars, -f, --yaml and the unlisted -C, -F, -R are parsed as Slurm parses them and refused by
        // sacct (Spur keeps no job scripts, environments or completion files, and has no YAML writer);
        // --use-local-uid changes nothing here.
        flag("batch-script", Some('B')).help(
            "",
            concat!(
                "     -B, --batch-script:\n",
                "\t           Print batch script of job.\n",
                "                   NOTE: AccountingStoreFlags=job_script is required for this\n",
                "                   NOTE: Requesting specific job(s) with '-j' is required\n",
                "                         for this."
            ),
        ),
        flag("completion", Some('c')).help(
            "",
            "     -c, --completion: Use job completion instead of accounting data.",
        ),
        value("delimiter", None).help(
            "",
            concat!(
                "         --delimiter:\n",
                "\t           ASCII characters used to separate the fields when\n",
                "\t           specifying the  -p  or  -P options. The default delimiter\n",
                "\t           is a '|'. This options is ignored if -p or -P options\n",
                "\t           are not specified."
            ),
        ),
        flag("duplicates", Some('D')).help(
            "",
            concat!(
                "     -D, --duplicates:\n",
                "\t           If Slurm job ids are reset, some job numbers may\n",
                "\t           appear more than once referring to different jobs.\n",
                "\t           Without this option only the most recent jobs will be\n",
                "                   displayed."
            ),
        ),
        flag("helpformat", Some('e'))
            .aliases(&["help-fields"])
            .help(
                "",
                concat!(
                    "     -e, --helpformat:\n",
                    "\t           Print a list of fields that can be specified with the\n",
                    "\t           '--format' option"
                ),
            ),
        value("endtime", Some('E')).help(
            "",
            concat!(
                "     -E, --endtime:\n",
                "                   Select jobs eligible before this time.  If states are\n",
                "                   given with the -s option return jobs in this state before\n",
                "                   this period."
            ),
        ),
        flag("env-vars", None).help(
            "",
            concat!(
                "         --env-vars:\n",
                "\t           Print the environment to launch the batch script of job.\n",
                "                   NOTE: AccountingStoreFlags=job_env is required for this\n",
                "                   NOTE: Requesting specific job(s) with '-j' is required\n",
                "                         for this."
            ),
        ),
        flag("federation", None).env(&["SACCT_FEDERATION"]).help(
            "",
            "         --federation: Report jobs from federation if a member of a one.",
        ),
        value("file", Some('f')).help(
            "",
            concat!(
                "     -f, --file=file:\n",
                "\t           Read data from the specified file, rather than Slurm's\n",
                "                   current accounting log file. (Only appliciable when\n",
                "                   running the jobcomp/filetxt plugin.)"
            ),
        ),
        value("gid", Some('g')).aliases(&["group"]).help(
            "",
            concat!(
                "     -g, --gid, --group:\n",
                "\t           Use this comma separated list of gids or group names\n",
                "                   to select jobs to display.  By default, all groups are\n",
                "                   selected."
            ),
        ),
        flag("help", Some('h')).help("", "     -h, --help:   Print this description of use."),
        value("nnodes", Some('i')).help(
            "",
            concat!(
                "     -i, --nnodes=N:\n",
                "                   Return jobs which ran on this many nodes (N = min[-max])"
            ),
        ),
        value("ncpus", Some('I')).help(
            "",
            concat!(
                "     -I, --ncpus=N:\n",
                "                   Return jobs which ran on this many cpus (N = min[-max])"
            ),
        ),
        value("jobs", Some('j')).help(
            "",
            concat!(
                "     -j, --jobs:\n",
                "\t           Format is <job(.step)>. Display information about this\n",
                "                   job or comma-separated list of jobs. The default is all\n",
                "                   jobs. Adding .step will display the specific job step of\n",
                "                   that job. (A step id of 'batch' will display the\n",
                "                   information about the batch step.)"
            ),
        ),
        flag("json", None).help(
            "",
            concat!("     --json:\n", "                   Produce JSON output"),
        ),
        value("timelimit-min", Some('k')).help(
            "",
            concat!(
                "     -k, --timelimit-min:\n",
                "                   Only send data about jobs with this timelimit.\n",
                "                   If used with timelimit_max this will be the minimum\n",
                "                   timelimit of the range.  Default is no restriction."
            ),
        ),
        value("timelimit-max", Some('K')).help(
            "",
            concat!(
                "     -K, --timelimit-max:\n",
                "                   Ignored by itself, but if timelimit_min is set this will\n",
                "                   be the maximum timelimit of the range.  Default is no\n",
                "                   restriction."
            ),
        ),
        flag("local", None).env(&["SACCT_LOCAL"]).help(
            "",
            concat!(
                "         --local   Report information only about jobs on the local cluster.\n",
                "\t           Overrides --federation."
            ),
        ),
        flag("long", Some('l')).help(
            "",
            concat!(
                "     -l, --long:\n",
                "\t           Equivalent to specifying\n",
                "\t           '--format=jobid,jobidraw,jobname,partition,maxvmsize,\n",
                "                             maxvmsizenode,maxvmsizetask,avevmsize,maxrss,\n",
                "                             maxrssnode,maxrsstask,averss,maxpages,\n",
                "                             maxpagesnode,maxpagestask,avepages,mincpu,\n",
                "                             mincpunode,mincputask,avecpu,ntasks,alloccpus,\n",
                "                             elapsed,state,exitcode,avecpufreq,reqcpufreqmin,\n",
                "                             reqcpufreqmax,reqcpufreqgov,reqmem,\n",
                "                             consumedenergy,maxdiskread,maxdiskreadnode,\n",
                "                             maxdiskreadtask,avediskread,maxdiskwrite,\n",
                "                             maxdiskwritenode,maxdiskwritetask,avediskwrite,\n",
                "                             reqtres,alloctres,\n",
                "                             tresusageinave,tresusageinmax,tresusageinmaxn,\n",
                "                             tresusageinmaxt,tresusageinmin,tresusageinminn,\n",
                "                             tresusageinmint,tresusageintot,tresusageoutmax,\n",
                "                             tresusageoutmaxn,tresusageoutmaxt,\n",
                "                             tresusageoutave,tresusageouttot"
            ),
        ),
        flag("allclusters", Some('L')).help(
            "",
            concat!(
                "     -L, --allclusters:\n",
                "\t           Display jobs ran on all clusters. By default, only jobs\n",
                "                   ran on the cluster from where sacct is called are\n",
                "                   displayed."
            ),
        ),
        value("cluster", Some('M')).aliases(&["clusters"]).help(
            "",
            concat!(
                "     -M, --clusters:\n",
                "                   Only send data about these clusters. Use \"all\" for all\n",
                "                   clusters.\u{1}"
            ),
        ),
        flag("noheader", Some('n')).help(
            "",
            concat!(
                "     -n, --noheader:\n",
                "\t           No header will be added to the beginning of output.\n",
                "                   The default is to print a header."
            ),
        ),
        flag("noconvert", None).help(
            "",
            concat!(
                "     --noconvert:\n",
                "\t\t   Don't convert units from their original type\n",
                "\t\t   (e.g. 2048M won't be converted to 2G)."
            ),
        ),
        value("nodelist", Some('N')).help(
            "",
            concat!(
                "     -N, --nodelist:\n",
                "                   Display jobs that ran on any of these nodes,\n",
                "                   can be one or more using a ranged string."
            ),
        ),
        value("name", None).help(
            "",
            concat!(
                "     --name:\n",
                "                   Display jobs that have any of these name(s)."
            ),
        ),
        value("format", Some('o'))
            .env(&["SACCT_FORMAT"])
            .aliases(&["fields"])
            .help(
                "",
                concat!(
                    "     -o, --format:\n",
                    "\t           Comma separated list of fields. (use \"--helpformat\"    \n",
                    "                   for a list of available fields)."
                ),
            ),
        flag("parsable", Some('p')).help(
            "",
            "     -p, --parsable: output will be '|' delimited with a '|' at the end",
        ),
        flag("parsable2", Some('P')).help(
            "",
            "     -P, --parsable2: output will be '|' delimited without a '|' at the end",
        ),
        value("qos", Some('q')).help(
            "",
            concat!(
                "     -q, --qos:\n",
                "                   Only send data about jobs using these qos.  Default is all."
            ),
        ),
        value("partition", Some('r')).help(
            "",
            concat!(
                "     -r, --partition:\n",
                "\t           Comma separated list of partitions to select jobs and\n",
                "                   job steps from. The default is all partitions."
            ),
        ),
        value("state", Some('s')).help(
            "",
            concat!(
                "     -s, --state:\n",
                "\t           Select jobs based on their current state or the state\n",
                "                   they were in during the time period given: running (r),\n",
                "                   completed (cd), failed (f), timeout (to), resizing (rs),\n",
                "                   deadline (dl) and node_fail (nf)."
            ),
        ),
        value("starttime", Some('S')).help(
            "",
            concat!(
                "     -S, --starttime:\n",
                "                   Select jobs eligible after this time.  Default is\n",
                "                   00:00:00 of the current day, unless '-s' is set then\n",
                "                   the default is 'now'."
            ),
        ),
        flag("truncate", Some('T')).help(
            "",
            concat!(
                "     -T, --truncate:\n",
                "                   Truncate time.  So if a job started before --starttime\n",
                "                   the start time would be truncated to --starttime.\n",
                "                   The same for end time and --endtime."
            ),
        ),
        value("user", Some('u')).aliases(&["uid"]).help(
            "",
            concat!(
                "     -u, --uid, --user:\n",
                "\t           Use this comma separated list of uids or user names\n",
                "                   to select jobs to display.  By default, the running\n",
                "                   user's uid is used."
            ),
        ),
        value("units", None).help(
            "",
            concat!(
                "     --units=[KMGTP]:\n",
                "                   Display values in specified unit type. Takes precedence\n",
                "\t\t   over --noconvert option."
            ),
        ),
        flag("usage", Some('U')).help("", "     --usage:      Display brief usage message."),
        flag("verbose", Some('v')).help(
            "",
            concat!(
                "     -v, --verbose:\n",
                "\t           Primarily for debugging purposes, report the state of\n",
                "                   various variables during processing."
            ),
        ),
        flag("version", Some('V')).help("", "     -V, --version: Print version."),
        value("wckeys", Some('W')).help(
            "",
            concat!(
                "     -W, --wckeys:\n",
                "                   Only send data about these wckeys.  Default is all."
            ),
        ),
        optional("whole-hetjob", None).help(
            "",
            concat!(
                "     --whole-hetjob[=yes|no]:\n",
                "\t\t   If set to 'yes' (or no argument), then information about\n",
                "\t\t   all the heterogeneous components will be retrieved. If\n",
                "\t\t   set to 'no' only the specific filtered components will\n",
                "\t\t   be retrieved. The default behavior without this option is\n",
                "\t\t   that all components are retrieved only if filtering the\n",
                "\t\t   leader component with --jobs."
            ),
        ),
        value("associations", Some('x')).help(
            "",
            concat!(
                "     -x, --associations:\n",
                "                   Only send data about these association id.  Default is all."
            ),
        ),
        flag("allocations", Some('X')).help(
            "",
            concat!(
                "     -X, --allocations:\n",
                "\t           Only show statistics relevant to the job allocation\n",
                "\t           itself, not taking steps into consideration."
            ),
        ),
        flag("yaml", None).help(
            "",
            concat!("     --yaml:\n", "                   Produce YAML output"),
        ),
        value("constraints", Some('C')),
        value("flags", Some('F')),
        value("reason", Some('R')),
        flag("use-local-uid", None),
    ],
    // Slurm's sacct long_options order: an ambiguous abbreviation lists its candidates in it.
    getopt_order: &[
        "allusers",
        "accounts",
        "allocations",
        "brief",
        "batch-script",
        "completion",
        "constraints",
        "delimiter",
        "duplicates",
        "federation",
        "helpformat",
        "help-fields",
        "endtime",
        "env-vars",
        "file",
        "flags",
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
        "reason",
        "state",
        "starttime",
        "truncate",
        "uid",
        "use-local-uid",
        "usage",
        "user",
        "verbose",
        "version",
        "wckeys",
        "whole-hetjob",
        "associations",
        "json",
        "yaml",
    ],
    scan: Getopt,
    usage: Usage::plain("Usage: sacct [options]\n\tUse --help for help"),
    help: Help::List(HelpList {
        usage_first: false,
        head: &[
            "sacct [<OPTION>]",
            "     Valid <OPTION> values are:                                              ",
        ],
        style: EntryStyle::Verbatim,
        column: 0,
        pad_to: 76,
        tail: SACCT_TIME_FORMATS,
        end: "\n",
        order: &[],
        help_options: &[],
        between: &[],
        keywords: &[],
    }),
};

/// sacctmgr's leading options; its commands (`add account x`) are a grammar of their own, read by the command.
pub const SACCTMGR: QueryTable = QueryTable {
    program: "sacctmgr",
    rows: &[
        flag("help", Some('h'))
            .early()
            .help("", "     -h or --help: equivalent to \"help\" command"),
        flag("immediate", Some('i')).help("", "     -i or --immediate: commit changes immediately"),
        flag("noheader", Some('n')).help(
            "",
            "     -n or --noheader: no header will be added to the beginning of output",
        ),
        flag("oneliner", Some('o')).help(
            "",
            "     -o or --oneliner: equivalent to \"oneliner\" command",
        ),
        flag("parsable", Some('p')).help(
            "",
            "     -p or --parsable: output will be '|' delimited with a '|' at the end",
        ),
        flag("parsable2", Some('P')).help(
            "",
            "     -P or --parsable2: output will be '|' delimited without a '|' at the end",
        ),
        flag("quiet", Some('Q')).help("", "     -Q or --quiet: equivalent to \"quiet\" command"),
        flag("readonly", Some('r')).help(
            "",
            "     -r or --readonly: equivalent to \"readonly\" command",
        ),
        flag("associations", Some('s')).help(
            "",
            "     -s or --associations: equivalent to \"associations\" command",
        ),
        flag("verbose", Some('v')).help(
            "",
            "     -v or --verbose: equivalent to \"verbose\" command",
        ),
        flag("version", Some('V')).early().help(
            "",
            "     -V or --version: equivalent to \"version\" command",
        ),
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
        usage_first: false,
        head: help_text::SACCTMGR_HEAD,
        style: EntryStyle::Verbatim,
        column: 0,
        pad_to: 75,
        tail: help_text::SACCTMGR_NOTES,
        end: "\n",
        order: &[],
        help_options: &[],
        between: help_text::SACCTMGR_BETWEEN,
        keywords: help_text::SACCTMGR_KEYWORDS,
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
        group: "",
        group_line: "",
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
        between: &[],
        keywords: &[],
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
        between: &[],
        keywords: &[],
    }),
};

pub const SSTAT: QueryTable = QueryTable {
    program: "sstat",
    rows: &[
        flag("allsteps", Some('a')).help(
            "",
            concat!(
                "      -a, --allsteps:\n",
                "                   Print all steps for the given job(s) when no step is\n",
                "                   specified."
            ),
        ),
        flag("helpformat", Some('e')).help(
            "",
            concat!(
                "      -e, --helpformat:\n",
                "\t           Print a list of fields that can be specified with the\n",
                "\t           '--format' option"
            ),
        ),
        flag("help", Some('h')).help("", "     -h, --help:   Print this description of use."),
        flag("pidformat", Some('i')).help(
            "",
            concat!(
                "     -i, --pidformat:\n",
                "                   Predefined format to list the pids running for each\n",
                "                   job step.  (JobId,Nodes,Pids)"
            ),
        ),
        value("jobs", Some('j')).help(
            "",
            concat!(
                "     -j, --jobs:\n",
                "\t           Format is <job(.step)>. Stat this job step\n",
                "                   or comma-separated list of job steps. This option is\n",
                "                   required.  The step portion will default to the lowest\n",
                "                   numbered (not batch, extern, etc) step running if not\n",
                "                   specified, unless the --allsteps flag is set where not\n",
                "                   specifying a step will result in all running steps\n",
                "                   to be displayed. A step id of 'batch' will display the\n",
                "                   information about the batch step. A step id of 'extern'\n",
                "                   will display the information about the extern step\n",
                "                   when using PrologFlags=contain."
            ),
        ),
        flag("noheader", Some('n')).help(
            "",
            concat!(
                "     -n, --noheader:\n",
                "\t           No header will be added to the beginning of output.\n",
                "                   The default is to print a header."
            ),
        ),
        flag("noconvert", None).help(
            "",
            concat!(
                "     --noconvert:  Don't convert units from their original type\n",
                "\t\t   (e.g. 2048M won't be converted to 2G)."
            ),
        ),
        value("format", Some('o')).help(
            "",
            concat!(
                "     -o, --format:\n",
                "\t           Comma separated list of fields. (use \"--helpformat\"    \n",
                "                   for a list of available fields)."
            ),
        ),
        flag("parsable", Some('p')).help(
            "",
            "     -p, --parsable: output will be '|' delimited with a '|' at the end",
        ),
        flag("parsable2", Some('P')).help(
            "",
            "     -P, --parsable2: output will be '|' delimited without a '|' at the end",
        ),
        flag("usage", None).help("", "     --usage:      Display brief usage message."),
        flag("verbose", Some('v')).help(
            "",
            concat!(
                "     -v, --verbose:\n",
                "\t           Primarily for debugging purposes, report the state of\n",
                "                   various variables during processing."
            ),
        ),
        flag("version", Some('V')).help("", "     -V, --version: Print version."),
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
        head: &[
            "sstat [<OPTION>] -j <job(.stepid)>",
            "    Valid <OPTION> values are:",
        ],
        style: EntryStyle::Verbatim,
        column: 0,
        pad_to: 76,
        tail: &[],
        end: "\n",
        order: &[],
        help_options: &[],
        between: &[],
        keywords: &[],
    }),
};

pub const SATTACH: QueryTable = QueryTable {
    program: "sattach",
    rows: &[
        // Slurm puts two blanks after the filters' names where they fit.
        value("input-filter", None).help("=taskid", " send stdin to only the specified task"),
        value("output-filter", None).help("=taskid", "only print stdout from the specified task"),
        value("error-filter", None).help("=taskid", " only print stderr from the specified task"),
        flag("label", Some('l')).help("", "prepend task number to lines of stdout & stderr"),
        flag("layout", None).help(
            "",
            "print task layout info and exit (does not attach to tasks)",
        ),
        flag("pty", None),
        flag("quiet", Some('Q')).help("", "quiet mode (suppress informational messages)"),
        flag("verbose", Some('v')).help("", "verbose mode (multiple -v's increase verbosity)"),
        flag("version", Some('V')).help("", "print the Slurm version and exit"),
        flag("help", Some('h')).help("", "print this help message"),
        flag("usage", Some('u')).help("", "print a brief usage message"),
    ],
    getopt_order: &[],
    scan: Getopt,
    usage: Usage::plain("Usage: sattach [options] <jobid.stepid>"),
    help: Help::List(HelpList {
        usage_first: true,
        head: &[],
        style: EntryStyle::Comma,
        column: 21,
        pad_to: 0,
        tail: &[],
        end: "",
        order: &[],
        help_options: &["help", "usage"],
        between: &[],
        keywords: &[],
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
        between: &[],
        keywords: &[],
    }),
};
