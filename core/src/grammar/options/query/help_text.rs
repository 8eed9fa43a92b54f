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

/// The lines before sacctmgr's options.
pub(super) const SACCTMGR_HEAD: &[&str] = &[
    "sacctmgr [<OPTION>] [<COMMAND>]",
    "    Valid <OPTION> values are:",
];

/// Between sacctmgr's options and its keywords.
pub(super) const SACCTMGR_BETWEEN: &[&str] = &[
    "",
    "  <keyword> may be omitted from the execute line and sacctmgr will execute",
    "  in interactive mode. It will process commands as entered until explicitly",
    "  terminated.",
    "",
    "  Valid <COMMAND> values are:",
];

/// sacctmgr's keywords.
pub(super) const SACCTMGR_KEYWORDS: &[Keyword] = &[
    Keyword {
        name: "add",
        entry: "     add <ENTITY> <SPECS>     add entity",
    },
    Keyword {
        name: "archive",
        entry: concat!(
            "     archive <DUMP/LOAD> <SPECS>\n",
            "                              Archive past jobs and/or steps, or load them\n",
            "                              back into the databse."
        ),
    },
    Keyword {
        name: "associations",
        entry: concat!(
            "     associations             when using show/list will list the\n",
            "                              associations associated with the entity."
        ),
    },
    Keyword {
        name: "clear",
        entry: "     clear stats              clear server statistics",
    },
    Keyword {
        name: "delete",
        entry: "     delete <ENTITY> <SPECS>  delete the specified entity(s)",
    },
    Keyword {
        name: "dump",
        entry: concat!(
            "     dump <CLUSTER> [File=<FILENAME>]\n",
            "                              dump database information of the\n",
            "                              specified cluster to the flat file.\n",
            "                              Will default to clustername.cfg if no file\n",
            "                              is given."
        ),
    },
    Keyword {
        name: "exit",
        entry: "     exit                     terminate sacctmgr",
    },
    Keyword {
        name: "help",
        entry: "     help                     print this description of use.",
    },
    Keyword {
        name: "list",
        entry: concat!(
            "     list <ENTITY> [<SPECS>]  display info of identified entity, default\n",
            "                              is display all."
        ),
    },
    Keyword {
        name: "load",
        entry: concat!(
            "     load <FILE> [<SPECS>]    read in the file to update the database\n",
            "                              with the file contents. <SPECS> here consist\n",
            "                              of 'cluster=', and 'clean'.  The 'cluster='\n",
            "                              will override the cluster name given in the\n",
            "                              file.  The 'clean' option will remove what is\n",
            "                              already in the system for this cluster and\n",
            "                              replace it with the file.  If the clean option\n",
            "                              is not given only new additions or\n",
            "                              modifications will be done, no deletions."
        ),
    },
    Keyword {
        name: "modify",
        entry: "     modify <ENTITY> <SPECS>  modify entity",
    },
    Keyword {
        name: "oneliner",
        entry: "     oneliner                 report output one record per line.",
    },
    Keyword {
        name: "parsable",
        entry: "     parsable                 output will be | delimited with an ending '|'",
    },
    Keyword {
        name: "parsable2",
        entry: "     parsable2                output will be | delimited without an ending '|'",
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
        name: "readonly",
        entry: "     readonly                 makes it so no modification can happen.",
    },
    Keyword {
        name: "reconfigure",
        entry: "     reconfigure              reread the slurmdbd.conf on the DBD.",
    },
    Keyword {
        name: "shutdown",
        entry: "     shutdown                 shutdown the server.",
    },
    Keyword {
        name: "show",
        entry: "     show                     same as list",
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
        name: "!!",
        entry: "     !!                       Repeat the last command entered.",
    },
];

/// After sacctmgr's keywords: its entities, the specifications of each command and entity, and the format fields.
pub(super) const SACCTMGR_NOTES: &[&str] = &[
    "",
    "  <ENTITY> may be \"account\", \"association\", \"cluster\",",
    "                  \"configuration\", \"coordinator\", \"event\",",
    "                  \"federation\", \"job\", \"problem\", \"qos\",",
    "                  \"resource\", \"reservation\", \"runawayjobs\", \"stats\"",
    "                  \"transaction\", \"tres\", \"user\" or \"wckey\"",
    "",
    "  <SPECS> are different for each command entity pair.",
    "       list account       - Clusters=, Descriptions=, Format=,",
    "                            Names=, Organizations=, Parents=, WithAssoc,",
    "                            WithDeleted, WithCoordinators, WithRawQOS,",
    "                            and WOPLimits",
    "       add account        - Clusters=, DefaultQOS=, Description=, Fairshare=,",
    "                            GrpTRESMins=, GrpTRES=, GrpJobs=, GrpMemory=,   ",
    "                            GrpNodes=, GrpSubmitJob=, GrpWall=, MaxTRESMins=,",
    "                            MaxTRES=, MaxJobs=, MaxNodes=, MaxSubmitJobs=,",
    "                            MaxWall=, Names=, Organization=, Parent=,",
    "                            Priority= and QosLevel=",
    "       modify account     - (set options) DefaultQOS=, Description=,",
    "                            Fairshare=, GrpTRESMins=, GrpTRESRunMins=,       ",
    "                            GrpTRES=, GrpJobs=, GrpMemory=, GrpNodes=,",
    "                            GrpSubmitJob=, GrpWall=, MaxTRESMins=, MaxTRES=,",
    "                            MaxJobs=, MaxNodes=, MaxSubmitJobs=, MaxWall=,",
    "                            Names=, Organization=, Parent=, and QosLevel=",
    "                            RawUsage= (with admin privileges only)",
    "                            (where options) Clusters=, DefaultQOS=,",
    "                            Descriptions=, Names=, Organizations=,",
    "                            Parent=,Priority= and QosLevel=",
    "       delete account     - Clusters=, DefaultQOS=, Descriptions=, Names=,",
    "                            Organizations=, and Parents=",
    "",
    "       list associations  - Accounts=, Clusters=, Format=, ID=, OnlyDefaults,",
    "                            Partitions=, Parent=, Tree, Users=,",
    "                            WithSubAccounts, WithDeleted, WOLimits,",
    "                            WOPInfo, and WOPLimits",
    "",
    "       list cluster       - Classification=, DefaultQOS=, Federation=,",
    "                            Flags=, Format=, Names=, RPC= WithFed and",
    "                            WOLimits",
    "       add cluster        - DefaultQOS=, Fairshare=, Federation=, FedState=,",
    "                            GrpTRES=, GrpJobs=, GrpMemory=, GrpNodes=,",
    "                            GrpSubmitJob=, MaxTRESMins=, MaxJobs=,",
    "                            MaxNodes=, MaxSubmitJobs=, MaxWall=, Name=,",
    "                            QosLevel= and Weight=",
    "       modify cluster     - (set options) DefaultQOS=, Fairshare=,",
    "                            Federation=, FedState=, GrpTRES=, GrpJobs=,",
    "                            GrpMemory=, GrpNodes=, GrpSubmitJob=,",
    "                            MaxTRESMins=, MaxJobs=, MaxNodes=,",
    "                            MaxSubmitJobs=, MaxWall=, QosLevel= and Weight=",
    "                            (where options) Classification=, Federation=,",
    "                            Flags=, and Names=",
    "       delete cluster     - Classification=, DefaultQOS=, Flags=, and Names=",
    "",
    "       add coordinator    - Accounts=, and Names=",
    "       delete coordinator - Accounts=, and Names=",
    "",
    "       list events        - All_Clusters, All_Time, Clusters=, CondFlags=,",
    "                            End=, Events=, Format=, MaxCPUs=, MinCPUs=,",
    "                            Nodes=, Reason=, Start=, States=, and User=",
    "",
    "       list federation    - Names=, Format= and Tree",
    "       add federation     - Flags=, Clusters= and Name=",
    "       modify federation  - (set options) Clusters= and Flags=",
    "                            (where options) Names=",
    "       delete federation  - Names=",
    "",
    "       modify job         - (set options) DerivedExitCode=, Comment=,",
    "                            NewWCKey=",
    "                            (where options) JobID=, Cluster=, EndTime=,",
    "                            StartTime=, WCKey=, User=",
    "",
    "       list qos           - Descriptions=, Format=, Id=, Names=,",
    "                            PreemptMode=, and WithDeleted",
    "       add qos            - Description=, Flags=, GraceTime=, GrpJobs=,",
    "                            GrpSubmitJob=, GrpTRES=, GrpTRESMins=, GrpWall=,",
    "                            MaxJobs=, MaxSubmitJobsPerUser=, MaxTRESMins=,",
    "                            MaxTRESPerJob=, MaxTRESPerNode=, MaxTRESPerUser=,",
    "                            MaxWall=, Names=, Preempt=, PreemptMode=,",
    "                            Priority=, UsageFactor=, and UsageThreshold=",
    "       modify qos         - (set options) Description=, Flags=, GraceTime=,",
    "                            GrpJobs=, GrpSubmitJob=, GrpTRES=, GrpTRESMins=,",
    "                            GrpWall=,\u{1}",
    "                            MaxJobs=, MaxSubmitJobsPerUser=, MaxTRESMins=,",
    "                            MaxTRESPerJob=, MaxTRESPerNode=, MaxTRESPerUser=,",
    "                            MaxWall=, Names=, Preempt=, PreemptMode=,",
    "                            Priority=, RawUsage= (admin only),",
    "                            UsageFactor=, and UsageThreshold=",
    "                            (where options) Descriptions=, ID=, Names=",
    "                            and PreemptMode=",
    "       delete qos         - Descriptions=, ID=, Names=, and PreemptMode=",
    "",
    "       list resource      - Clusters=, Descriptions=, Flags=, Format=, Ids=,",
    "                            Names=, PercentAllowed=, ServerType=, Servers=,",
    "                            and WithClusters",
    "       add resource       - Clusters=, Count=, Descriptions=, Flags=,",
    "                            ServerType=, Names=, PercentAllowed=, Server=,",
    "                            and Type=",
    "       modify resource    - (set options) Count=, Flags=, Manager=,",
    "                            PercentAllowed=,",
    "                            (where options) Clusters=, Names=, Servers=,",
    "       delete resource    - Clusters=, Names=",
    "",
    "       list reservation   - Clusters=, End=, ID=, Names=, Nodes=, Start=",
    "",
    "       list runawayjobs   - Cluster=, Format=",
    "",
    "       clear stats",
    "       list stats",
    "",
    "       list transactions  - Accounts=, Action=, Actor=, Clusters=, End=,",
    "                            Format=, ID=, Start=, User=, and WithAssoc",
    "",
    "       list tres          - ID=, Name=, Type=, WithDeleted",
    "",
    "       list user          - AdminLevel=, DefaultAccount=,",
    "                            DefaultWCKey=, Format=, Names=,",
    "                            QosLevel=, WithAssoc, WithCoordinators,",
    "                            WithDeleted, WithRawQOS, and WOPLimits",
    "       add user           - Accounts=, AdminLevel=, Clusters=,",
    "                            DefaultAccount=, DefaultQOS=, DefaultWCKey=,",
    "                            Fairshare=, MaxTRESMins=, MaxTRES=,",
    "                            MaxJobs=, MaxNodes=, MaxSubmitJobs=, MaxWall=,",
    "                            Names=, Partitions=, Priority= and QosLevel=",
    "       modify user        - (set options) AdminLevel=, DefaultAccount=,",
    "                            DefaultQOS=, DefaultWCKey=, Fairshare=,",
    "                            MaxTRESMins=, MaxTRES=, MaxJobs=, MaxNodes=,",
    "                            MaxSubmitJobs=, MaxWall=, NewName=,",
    "                            and QosLevel=,",
    "                            RawUsage= (with admin privileges only)",
    "                            (where options) Accounts=, AdminLevel=,",
    "                            Clusters=, DefaultAccount=, Names=,",
    "                            Partitions=, Priority= and QosLevel=",
    "       delete user        - Accounts=, AdminLevel=, Clusters=,",
    "                            DefaultAccount=, DefaultWCKey=, and Names=",
    "",
    "       list wckey         - Clusters=, End=, Format=, ID=, Names=,",
    "                            Start=, User=, and WithDeleted",
    "",
    "       archive dump       - Directory=, Events, Jobs,",
    "                            PurgeEventAfter=, PurgeJobAfter=,",
    "                            PurgeStepAfter=, PurgeSuspendAfter=,",
    "                            Script=, Steps, and Suspend",
    "",
    "       archive load       - File=, or Insert=",
    "",
    "  Format options are different for listing each entity pair.",
    "",
    "  One can get an number of characters by following the field option with",
    "  a %NUMBER option.  i.e. format=name%30 will print 30 chars of field name.",
    "",
    "       Account            - Account, Coordinators, Description, Organization",
    "",
    "       Association        - Account, Cluster, DefaultQOS, Fairshare,",
    "                            GrpTRESMins, GrpTRESRunMins, GrpTRES, GrpJobs,",
    "                            GrpMemory, GrpNodes, GrpSubmitJob, GrpWall,",
    "                            ID, LFT, MaxTRESMins, MaxTRES,",
    "                            MaxJobs, MaxNodes, MaxSubmitJobs, MaxWall, QOS,",
    "                            ParentID, ParentName, Partition, RGT,",
    "                            User, WithRawQOS",
    "",
    "       Cluster            - Classification, Cluster, ClusterNodes,",
    "                            ControlHost, ControlPort, DefaultQOS,",
    "                            Fairshare, Flags, GrpTRESMins, GrpTRES GrpJobs,",
    "                            GrpMemory, GrpNodes, GrpSubmitJob, MaxTRESMins, ",
    "                            MaxTRES, MaxJobs, MaxNodes, MaxSubmitJobs,",
    "                            MaxWall, NodeCount, PluginIDSelect, RPC, TRES",
    "",
    "       Event              - Cluster, ClusterNodes, Duration, End,",
    "                            Event, EventRaw, NodeName, Reason, Start,",
    "                            State, StateRaw, TRES, User",
    "",
    "       QOS                - Description, Flags, GraceTime, GrpJobs,",
    "                            GrpSubmitJob, GrpTRES, GrpTRESMins, GrpWall,",
    "                            MaxJobs, MaxSubmitJobsPerUser, MaxTRESMins,",
    "                            MaxTRESPerJob, MaxTRESPerNode, MaxTRESPerUser,",
    "                            MaxWall, Name, Preempt, PreemptMode,",
    "                            Priority, UsageFactor, UsageThreshold",
    "",
    "       Resource           - Cluster, Count, CountAllowed, CountUsed,",
    "                            Description, Flags, Manager, Name,",
    "                            PercentAllowed, PercentUsed, Server, Type",
    "",
    "       Reservation        - Assoc, Cluster, End, Flags, ID, Name,",
    "                            NodeNames, Start, TRES, UnusedWall",
    "",
    "       RunAwayJobs        - Cluster, ID, Name, Partition, State,",
    "                            TimeStart, TimeEnd",
    "",
    "       Transactions       - Action, Actor, Info, TimeStamp, Where",
    "",
    "       TRES               - ID, Name, Type",
    "",
    "       User               - AdminLevel, Coordinators, DefaultAccount,",
    "                            DefaultWCKey, User",
    "",
    "       WCKey              - Cluster, ID, Name, User",
    "",
    "       Account/User WithAssoc option will also honor",
    "       all of the options for Association.",
    "",
    "",
    "  All commands entitys, and options are case-insensitive.               ",
];
