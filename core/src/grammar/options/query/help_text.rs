//! The parts of scontrol's and sacctmgr's `--help` that describe no option: their keywords (each with its own
//! entry) and the notes on the words those keywords take, in Slurm 22.05's words and layout.

use super::Keyword;

/// The lines before scontrol's options.
pub(super) const SCONTROL_HEAD: &[&str] = &[
    "scontrol [<OPTION>] [<COMMAND>]",
    "    Valid <OPTION> values are:",
];

/// Between scontrol's options and its keywords.
pub(super) const SCONTROL_BETWEEN: &[&str] = &[
    "\t\t\t\t\t\t\t\t\t   ",
    "  <keyword> may be omitted from the execute line and scontrol will execute",
    "  in interactive mode. It will process commands as entered until explicitly",
    "  terminated.",
    "\t\t\t\t\t\t\t\t\t   ",
    "    Valid <COMMAND> values are:",
];

/// scontrol's keywords.
pub(super) const SCONTROL_KEYWORDS: &[Keyword] = &[
    Keyword {
        name: "abort",
        entry: concat!(
            "     abort                    shutdown slurm controller immediately\n",
            "\t\t\t      generating a core file."
        ),
    },
    Keyword {
        name: "all",
        entry: concat!(
            "     all                      display information about all partitions,\n",
            "\t\t\t      including hidden partitions."
        ),
    },
    Keyword {
        name: "cancel_reboot",
        entry: "     cancel_reboot <nodelist> Cancel pending reboot on nodes.",
    },
    Keyword {
        name: "cluster",
        entry: concat!(
            "     cluster                  cluster to issue commands to.  Default is\n",
            "\t\t\t      current cluster.  cluster with no name will\n",
            "\t\t\t      reset to default.\n",
            "                              NOTE: SlurmDBD must be up."
        ),
    },
    Keyword {
        name: "completing",
        entry: concat!(
            "     completing               display jobs in completing state along with\n",
            "\t\t\t      their completing or down nodes"
        ),
    },
    Keyword {
        name: "create",
        entry: "     create <SPECIFICATIONS>  create a new partition or reservation",
    },
    Keyword {
        name: "details",
        entry: concat!(
            "     details                  evokes additional details from the \"show\"\n",
            "\t\t\t      command"
        ),
    },
    Keyword {
        name: "delete",
        entry: "     delete <SPECIFICATIONS>  delete the specified partition or reservation",
    },
    Keyword {
        name: "errnumstr",
        entry: concat!(
            "     errnumstr <ERRNO>        Given a Slurm error number, return a\n",
            "                              descriptive string."
        ),
    },
    Keyword {
        name: "exit",
        entry: "     exit                     terminate scontrol",
    },
    Keyword {
        name: "fsdampeningfactor",
        entry: "     fsdampeningfactor <factor> Set the FairShareDampeningFactor in slurmctld",
    },
    Keyword {
        name: "help",
        entry: "     help                     print this description of use.",
    },
    Keyword {
        name: "hold",
        entry: concat!(
            "     hold <job_list>          prevent specified job from starting. <job_list>\n",
            "\t\t\t      is either a space separate list of job IDs or\n",
            "\t\t\t      job names "
        ),
    },
    Keyword {
        name: "holdu",
        entry: "     holdu <job_list>         place user hold on specified job (see hold)",
    },
    Keyword {
        name: "hide",
        entry: concat!(
            "     hide                     do not display information about hidden\n",
            "\t\t\t      partitions"
        ),
    },
    Keyword {
        name: "listpids",
        entry: concat!(
            "     listpids <job_id<.step>> List pids associated with the given jobid, or\n",
            "\t\t\t      all jobs if no id is given (This will only\n",
            "\t\t\t      display the processes on the node which the\n",
            "\t\t\t      scontrol is ran on, and only for those\n",
            "\t\t\t      processes spawned by Slurm and their\n",
            "\t\t\t      descendants)"
        ),
    },
    Keyword {
        name: "notify",
        entry: "     notify <job_id> msg      send message to specified job",
    },
    Keyword {
        name: "oneliner",
        entry: "     oneliner                 report output one record per line.",
    },
    Keyword {
        name: "pidinfo",
        entry: "     pidinfo <pid>            return slurm job information for given pid.",
    },
    Keyword {
        name: "ping",
        entry: "     ping                     print status of slurmctld daemons.",
    },
    Keyword {
        name: "quiet",
        entry: "     quiet                    print no messages other than error messages.",
    },
    Keyword {
        name: "quit",
        entry: "     quit                     terminate this command.",
    },
    Keyword {
        name: "reboot",
        entry: concat!(
            "     reboot [ASAP] [nextstate=] [reason=] <ALL|nodelist>\t\t   \n",
            "\t\t\t      reboot the nodes when they become idle."
        ),
    },
    Keyword {
        name: "reconfigure",
        entry: "     reconfigure              re-read configuration files.",
    },
    Keyword {
        name: "release",
        entry: "     release <job_list>       permit specified job to start (see hold)",
    },
    Keyword {
        name: "requeue",
        entry: "     requeue <job_id>         re-queue a batch job",
    },
    Keyword {
        name: "requeuehold",
        entry: "     requeuehold <job_id>     re-queue and hold a batch",
    },
    Keyword {
        name: "resume",
        entry: "     resume <jobid_list>      resume previously suspended job (see suspend)",
    },
    Keyword {
        name: "setdebug",
        entry: "     setdebug <level>         set slurmctld debug level",
    },
    Keyword {
        name: "setdebugflags",
        entry: "     setdebugflags [+|-]<flag>  add or remove slurmctld DebugFlags",
    },
    Keyword {
        name: "schedloglevel",
        entry: "     schedloglevel <level>    set scheduler log level",
    },
    Keyword {
        name: "show",
        entry: concat!(
            "     show <ENTITY> [<ID>]     display state of identified entity, default\n",
            "\t\t\t      is all records."
        ),
    },
    Keyword {
        name: "shutdown",
        entry: concat!(
            "     shutdown <OPTS>          shutdown slurm daemons\n",
            "\t\t\t      (the primary controller will be stopped)"
        ),
    },
    Keyword {
        name: "suspend",
        entry: "     suspend <job_list>       susend specified job (see resume)",
    },
    Keyword {
        name: "top",
        entry: "     top <job_list>           Put specified job first in queue for user",
    },
    Keyword {
        name: "token",
        entry: "     token [lifespan=] [username=] fetch an auth token",
    },
    Keyword {
        name: "takeover",
        entry: "     takeover                 ask slurm backup controller to take over",
    },
    Keyword {
        name: "uhold",
        entry: "     uhold <jobid_list>       place user hold on specified job (see hold)",
    },
    Keyword {
        name: "update",
        entry: concat!(
            "     update <SPECIFICATIONS>  update job, node, partition, reservation, or\n",
            "\t\t\t      step"
        ),
    },
    Keyword {
        name: "verbose",
        entry: "     verbose                  enable detailed logging.",
    },
    Keyword {
        name: "version",
        entry: "     version                  display tool version number.",
    },
    Keyword {
        name: "wait_job",
        entry: concat!(
            "     wait_job <job_id>        wait until the nodes allocated to the job\n",
            "\t\t\t      are booted and usable"
        ),
    },
    Keyword {
        name: "write",
        entry: concat!(
            "     write batch_script <job_id> <optional filename>\n",
            "                              Write the batch script for a given job to a\n",
            "                              local file. Default is slurm-<job_id>.sh if\n",
            "                              the (optional) filename is not given."
        ),
    },
    Keyword {
        name: "write",
        entry: concat!(
            "     write config <optional filename>\n",
            "                              Write the current configuration to a file\n",
            "                              with the naming convention of\n",
            "                              slurm.conf.<datetime> in the same directory\n",
            "                              as the original slurm.conf.\n",
            "                              If a filename is given that file location\n",
            "                              with a .<datetime> suffix is created."
        ),
    },
    Keyword {
        name: "!!",
        entry: "     !!                       Repeat the last command entered.",
    },
];

/// After scontrol's keywords: the words they take.
pub(super) const SCONTROL_NOTES: &[&str] = &[
    "\t\t\t\t\t\t\t\t\t   ",
    "  <ENTITY> may be \"aliases\", \"assoc_mgr\", \"bbstat\", \"burstBuffer\",",
    "       \"config\", \"daemons\", \"dwstat\", \"federation\", \"frontend\",",
    "       \"hostlist\", \"hostlistsorted\", \"hostnames\", \"job\",",
    "       \"licenses\", \"node\", \"partition\", \"reservation\", \"slurmd\",",
    "       \"step\", or \"topology\"",
    "\t\t\t\t\t\t\t\t\t   ",
    "  <ID> may be a configuration parameter name, job id, node name, partition",
    "       name, reservation name, job step id, license name or hostlist or",
    "       pathname to a list of host names.",
    "\t\t\t\t\t\t\t\t\t   ",
    "  <HOSTLIST> may either be a comma separated list of host names or the",
    "       absolute pathname of a file (with leading '/' containing host names",
    "       either separated by commas or new-lines",
    "\t\t\t\t\t\t\t\t\t   ",
    "  <LEVEL> may be an integer value like SlurmctldDebug in the slurm.conf",
    "       file or the name of the most detailed errors to report (e.g. \"info\",",
    "       \"verbose\", \"debug\", \"debug2\", etc.).",
    "\t\t\t\t\t\t\t\t\t   ",
    "  <SLEVEL> may be an integer value like SlurmSchedLogLevel in the",
    "       slurm.conf file or \"enable\" or \"disable\".",
    "\t\t\t\t\t\t\t\t\t   ",
    "  <OPTS> may be \"slurmctld\" to shutdown just the slurmctld daemon,",
    "       otherwise all slurm daemons are shutdown",
    "\t\t\t\t\t\t\t\t\t   ",
    "  Node names may be specified using simple range expressions,",
    "  (e.g. \"lx[10-20]\" corresponds to lx10, lx11, lx12, ...)",
    "  The job step id is the job id followed by a period and the step id.",
    "\t\t\t\t\t\t\t\t\t   ",
    "  <SPECIFICATIONS> are specified in the same format as the configuration",
    "  file. You may wish to use the \"show\" keyword then use its output as",
    "  input for the update keyword, editing as needed.",
    "\t\t\t\t\t\t\t\t\t   ",
    "  All commands and options are case-insensitive, although node names and",
    "  partition names tests are case-sensitive (node names \"LX\" and \"lx\"",
    "  are distinct).                                                       ",
];
