//! The rows of the option table, one per [`OptId`], in `OptId` order.
//!
//! Help texts are our own wording. Value kinds, accepting commands and environment variables follow what Slurm
//! 22.05.8's sbatch, srun and salloc binaries do (which is sometimes more than their man pages document).

use super::ArgKind::{None as Flag, Optional as Opt, Required as Req};
use super::Command::{Salloc as SA, Sbatch as SB, Srun as SR};
use super::OptId::*;
use super::Section as S;
use super::{env, Cmds, OptDef as D};

const ALL: Cmds = Cmds::ALL;
const SBATCH: Cmds = Cmds::SBATCH;
const SRUN: Cmds = Cmds::SRUN;
const SALLOC: Cmds = Cmds::SALLOC;
const SB_SR: Cmds = Cmds::SBATCH_SRUN;
const SB_SA: Cmds = Cmds::SBATCH_SALLOC;
const SR_SA: Cmds = Cmds::SRUN_SALLOC;

/// Every option, in `OptId` order (so an id indexes its row).
pub static OPTIONS: &[D] = &[
    D::new(
        AccelBind,
        "accel-bind",
        None,
        Req,
        SRUN,
        "=type",
        "bind tasks to nearby generic accelerators",
    )
    .sec(S::Gpu),
    D::new(
        Account,
        "account",
        Some('A'),
        Req,
        ALL,
        "=name",
        "account charged for the resources used",
    )
    .env(&[
        env(SB, "SBATCH_ACCOUNT"),
        env(SR, "SLURM_ACCOUNT"),
        env(SA, "SALLOC_ACCOUNT"),
    ]),
    D::new(
        AcctgFreq,
        "acctg-freq",
        None,
        Req,
        ALL,
        "=type=secs[,...]",
        "sampling intervals for accounting and profiling\n(task, energy, network, filesystem)",
    )
    .env(&[
        env(SB, "SBATCH_ACCTG_FREQ"),
        env(SR, "SLURM_ACCTG_FREQ"),
        env(SA, "SALLOC_ACCTG_FREQ"),
    ]),
    D::new(
        Array,
        "array",
        Some('a'),
        Req,
        SBATCH,
        "=indexes",
        "submit a job array with these task ids (0-15%4)",
    )
    .env(&[env(SB, "SBATCH_ARRAY_INX")]),
    D::new(
        Batch,
        "batch",
        None,
        Req,
        SBATCH,
        "=features",
        "node features the batch step's node must have",
    )
    .env(&[env(SB, "SBATCH_BATCH")]),
    D::new(Bb, "bb", None, Req, ALL, "=spec", "burst buffer request").env(&[
        env(SB, "SBATCH_BURST_BUFFER"),
        env(SR, "SLURM_BURST_BUFFER"),
        env(SA, "SALLOC_BURST_BUFFER"),
    ]),
    D::new(
        Bbf,
        "bbf",
        None,
        Req,
        ALL,
        "=file",
        "read the burst buffer request from a file",
    ),
    D::new(
        Bcast,
        "bcast",
        None,
        Opt,
        SRUN,
        "[=dest]",
        "copy the program to the nodes first (to dest)",
    )
    .env(&[env(SR, "SLURM_BCAST")]),
    D::new(
        BcastExclude,
        "bcast-exclude",
        None,
        Req,
        SRUN,
        "=paths",
        "library directories that --send-libs leaves out (or NONE)",
    )
    .env(&[env(SR, "SLURM_BCAST_EXCLUDE")]),
    D::new(
        Begin,
        "begin",
        Some('b'),
        Req,
        ALL,
        "=time",
        "start no earlier than this (16:00, now+1hour, ...)",
    ),
    D::new(
        Bell,
        "bell",
        None,
        Flag,
        SALLOC,
        "",
        "beep when the allocation is granted",
    )
    .env(&[env(SA, "SALLOC_BELL")])
    .negates(NoBell),
    D::new(
        Chdir,
        "chdir",
        Some('D'),
        Req,
        ALL,
        "=path",
        "working directory of the job or of its tasks",
    )
    .env(&[env(SR, "SLURM_WORKING_DIR"), env(SR, "SLURM_REMOTE_CWD")]),
    D::new(
        ClusterConstraint,
        "cluster-constraint",
        None,
        Req,
        ALL,
        "=[!]list",
        "federation clusters with (or, with !, without)\nthese features",
    )
    .sec(S::Constraint)
    .env(&[
        env(SB, "SBATCH_CLUSTER_CONSTRAINT"),
        env(SR, "SLURM_CLUSTER_CONSTRAINT"),
        env(SA, "SALLOC_CLUSTER_CONSTRAINT"),
    ]),
    D::new(
        Clusters,
        "clusters",
        Some('M'),
        Req,
        ALL,
        "=names",
        "clusters to send the request to (all: every one)",
    )
    .aliases(&["cluster"])
    .env(&[
        env(SB, "SLURM_CLUSTERS"),
        env(SB, "SBATCH_CLUSTERS"),
        env(SR, "SLURM_CLUSTERS"),
        env(SA, "SLURM_CLUSTERS"),
        env(SA, "SALLOC_CLUSTERS"),
    ]),
    D::new(
        Comment,
        "comment",
        None,
        Req,
        ALL,
        "=text",
        "free-form text kept with the job",
    ),
    D::new(
        Compress,
        "compress",
        None,
        Opt,
        SRUN,
        "[=lz4|zlib]",
        "compress what --bcast sends",
    )
    .env(&[env(SR, "SLURM_COMPRESS")]),
    D::new(
        Constraint,
        "constraint",
        Some('C'),
        Req,
        ALL,
        "=list",
        "node features required (e.g. intel&ib)",
    )
    .sec(S::Constraint)
    .env(&[
        env(SB, "SBATCH_CONSTRAINT"),
        env(SR, "SLURM_CONSTRAINT"),
        env(SA, "SALLOC_CONSTRAINT"),
    ]),
    D::new(
        Container,
        "container",
        None,
        Req,
        ALL,
        "=path",
        "run inside this OCI container bundle",
    )
    .env(&[
        env(SB, "SBATCH_CONTAINER"),
        env(SR, "SRUN_CONTAINER"),
        env(SA, "SALLOC_CONTAINER"),
    ]),
    D::new(
        Context,
        "context",
        None,
        Req,
        ALL,
        "=context",
        "SELinux context to run the job in",
    ),
    D::new(
        Contiguous,
        "contiguous",
        None,
        Flag,
        ALL,
        "",
        "the nodes must be next to each other",
    )
    .sec(S::Constraint),
    D::new(
        CoreSpec,
        "core-spec",
        Some('S'),
        Req,
        ALL,
        "=cores",
        "cores per node set aside for system use",
    )
    .env(&[
        env(SB, "SBATCH_CORE_SPEC"),
        env(SR, "SLURM_CORE_SPEC"),
        env(SA, "SALLOC_CORE_SPEC"),
    ]),
    D::new(
        CoresPerSocket,
        "cores-per-socket",
        None,
        Req,
        ALL,
        "=C",
        "at least C cores in each socket",
    )
    .sec(S::Affinity),
    D::new(
        CpuBind,
        "cpu-bind",
        None,
        Req,
        SRUN,
        "=type",
        "how tasks are bound to CPUs (none, cores, map_cpu:...)",
    )
    .aliases(&["cpu_bind"])
    .sec(S::Affinity)
    .env(&[env(SR, "SLURM_CPU_BIND")]),
    D::new(
        CpuFreq,
        "cpu-freq",
        None,
        Req,
        ALL,
        "=min[-max][:gov]",
        "CPU frequency range and governor",
    )
    .env(&[
        env(SB, "SBATCH_CPU_FREQ_REQ"),
        env(SR, "SLURM_CPU_FREQ_REQ"),
        env(SA, "SALLOC_CPU_FREQ_REQ"),
    ]),
    D::new(
        CpusPerGpu,
        "cpus-per-gpu",
        None,
        Req,
        ALL,
        "=n",
        "CPUs for each allocated GPU",
    )
    .sec(S::Gpu)
    .env(&[
        env(SB, "SBATCH_CPUS_PER_GPU"),
        env(SR, "SLURM_CPUS_PER_GPU"),
        env(SA, "SALLOC_CPUS_PER_GPU"),
    ]),
    D::new(
        CpusPerTask,
        "cpus-per-task",
        Some('c'),
        Req,
        ALL,
        "=n",
        "CPUs each task needs",
    )
    .env(&[env(SR, "SRUN_CPUS_PER_TASK")]),
    D::new(
        Deadline,
        "deadline",
        None,
        Req,
        ALL,
        "=time",
        "drop the job if it cannot end by this time",
    ),
    D::new(
        DebuggerTest,
        "debugger-test",
        None,
        Flag,
        SRUN,
        "",
        "start tasks stopped, as for a debugger (testing)",
    ),
    D::new(
        DelayBoot,
        "delay-boot",
        None,
        Req,
        ALL,
        "=minutes",
        "wait this long before rebooting nodes for features",
    )
    .env(&[
        env(SB, "SBATCH_DELAY_BOOT"),
        env(SR, "SLURM_DELAY_BOOT"),
        env(SA, "SALLOC_DELAY_BOOT"),
    ]),
    D::new(
        Dependency,
        "dependency",
        Some('d'),
        Req,
        ALL,
        "=list",
        "start only once these job conditions hold",
    )
    .env(&[env(SR, "SLURM_DEPENDENCY")]),
    D::new(
        DisableStatus,
        "disable-status",
        Some('X'),
        Flag,
        SRUN,
        "",
        "one Ctrl-C does not print task status",
    )
    .env(&[env(SR, "SLURM_DISABLE_STATUS")]),
    D::new(
        Distribution,
        "distribution",
        Some('m'),
        Req,
        ALL,
        "=dist",
        "task layout over nodes, sockets and cores\n(block, cyclic, plane=N, arbitrary)",
    )
    .env(&[
        env(SB, "SBATCH_DISTRIBUTION"),
        env(SR, "SLURM_DISTRIBUTION"),
    ]),
    D::new(
        Epilog,
        "epilog",
        None,
        Req,
        SRUN,
        "=program",
        "run program here after the step ends",
    )
    .env(&[env(SR, "SLURM_EPILOG")]),
    D::new(
        Error,
        "error",
        Some('e'),
        Req,
        SB_SR,
        "=file",
        "where standard error goes (a name pattern)",
    )
    .env(&[env(SB, "SBATCH_ERROR"), env(SR, "SLURM_STDERRMODE")]),
    D::new(
        Exact,
        "exact",
        None,
        Flag,
        SRUN,
        "",
        "give the step only the resources it asks for",
    )
    .sec(S::Consumable)
    .env(&[env(SR, "SLURM_EXACT")]),
    D::new(
        Exclude,
        "exclude",
        Some('x'),
        Req,
        ALL,
        "=nodes",
        "never use these nodes",
    )
    .sec(S::Constraint),
    D::new(
        Exclusive,
        "exclusive",
        None,
        Opt,
        ALL,
        "[=user|mcs]",
        "share no node with other jobs (or only with the\nsame user or MCS label)",
    )
    .sec(S::Consumable)
    .negates(Oversubscribe)
    .env(&[
        env(SB, "SBATCH_EXCLUSIVE"),
        env(SR, "SLURM_EXCLUSIVE"),
        env(SA, "SALLOC_EXCLUSIVE"),
    ]),
    D::new(
        Export,
        "export",
        None,
        Req,
        SB_SR,
        "=ALL|NONE|vars",
        "environment variables passed to the job",
    )
    .env(&[
        env(SB, "SBATCH_EXPORT"),
        env(SR, "SRUN_EXPORT_ENV"),
        env(SR, "SLURM_EXPORT_ENV"),
    ]),
    D::new(
        ExportFile,
        "export-file",
        None,
        Req,
        SBATCH,
        "=file|fd",
        "also export the variables in this file",
    ),
    D::new(
        ExtraNodeInfo,
        "extra-node-info",
        Some('B'),
        Req,
        ALL,
        "=S[:C[:T]]",
        "sockets per node, cores per socket and threads per\ncore in one option (* for any)",
    )
    .sec(S::Affinity),
    D::new(
        GetUserEnv,
        "get-user-env",
        None,
        Opt,
        SB_SA,
        "[=secs][S|L]",
        "load the user's login environment",
    )
    .env(&[env(SB, "SBATCH_GET_USER_ENV")]),
    D::new(
        Gid,
        "gid",
        None,
        Req,
        ALL,
        "=group",
        "group to run the job as (root only)",
    ),
    D::new(
        GpuBind,
        "gpu-bind",
        None,
        Req,
        ALL,
        "=[verbose,]type",
        "how tasks are bound to GPUs",
    )
    .sec(S::Gpu)
    .env(&[
        env(SB, "SBATCH_GPU_BIND"),
        env(SR, "SLURM_GPU_BIND"),
        env(SA, "SALLOC_GPU_BIND"),
    ]),
    D::new(
        GpuFreq,
        "gpu-freq",
        None,
        Req,
        ALL,
        "=spec",
        "GPU and GPU memory frequency",
    )
    .sec(S::Gpu)
    .env(&[
        env(SB, "SBATCH_GPU_FREQ"),
        env(SR, "SLURM_GPU_FREQ"),
        env(SA, "SALLOC_GPU_FREQ"),
    ]),
    D::new(
        Gpus,
        "gpus",
        Some('G'),
        Req,
        ALL,
        "=[type:]n",
        "GPUs for the whole job",
    )
    .sec(S::Gpu)
    .env(&[
        env(SB, "SBATCH_GPUS"),
        env(SR, "SLURM_GPUS"),
        env(SA, "SALLOC_GPUS"),
    ]),
    D::new(
        GpusPerNode,
        "gpus-per-node",
        None,
        Req,
        ALL,
        "=[type:]n",
        "GPUs on each node",
    )
    .sec(S::Gpu)
    .env(&[
        env(SB, "SBATCH_GPUS_PER_NODE"),
        env(SR, "SLURM_GPUS_PER_NODE"),
        env(SA, "SALLOC_GPUS_PER_NODE"),
    ]),
    D::new(
        GpusPerSocket,
        "gpus-per-socket",
        None,
        Req,
        ALL,
        "=[type:]n",
        "GPUs on each socket",
    )
    .sec(S::Gpu)
    .env(&[
        env(SB, "SBATCH_GPUS_PER_SOCKET"),
        env(SR, "SLURM_GPUS_PER_SOCKET"),
        env(SA, "SALLOC_GPUS_PER_SOCKET"),
    ]),
    D::new(
        GpusPerTask,
        "gpus-per-task",
        None,
        Req,
        ALL,
        "=[type:]n",
        "GPUs for each task",
    )
    .sec(S::Gpu)
    .env(&[
        env(SB, "SBATCH_GPUS_PER_TASK"),
        env(SR, "SLURM_GPUS_PER_TASK"),
        env(SA, "SALLOC_GPUS_PER_TASK"),
    ]),
    D::new(
        Gres,
        "gres",
        None,
        Req,
        ALL,
        "=list",
        "generic resources per node (gpu:2, ...)",
    )
    .env(&[
        env(SB, "SBATCH_GRES"),
        env(SR, "SLURM_GRES"),
        env(SA, "SALLOC_GRES"),
    ]),
    D::new(
        GresFlags,
        "gres-flags",
        None,
        Req,
        ALL,
        "=flag",
        "GRES to CPU matching (disable-binding, ...)",
    )
    .env(&[
        env(SB, "SBATCH_GRES_FLAGS"),
        env(SR, "SLURM_GRES_FLAGS"),
        env(SA, "SALLOC_GRES_FLAGS"),
    ]),
    D::new(
        Help,
        "help",
        Some('h'),
        Flag,
        ALL,
        "",
        "print this list and exit",
    )
    .sec(S::Help)
    .early(),
    D::new(
        HetGroup,
        "het-group",
        None,
        Req,
        SRUN,
        "=list",
        "heterogeneous job components that run the step",
    )
    .aliases(&["pack-group"]),
    D::new(
        Hint,
        "hint",
        None,
        Req,
        ALL,
        "=hint",
        "place tasks by application hint (compute_bound,\nmemory_bound, [no]multithread)",
    )
    .sec(S::Affinity)
    .env(&[
        env(SB, "SBATCH_HINT"),
        env(SB, "SLURM_HINT"),
        env(SR, "SLURM_HINT"),
        env(SA, "SLURM_HINT"),
        env(SA, "SALLOC_HINT"),
    ]),
    D::new(
        Hold,
        "hold",
        Some('H'),
        Flag,
        ALL,
        "",
        "submit the job held until released",
    ),
    D::new(
        IgnorePbs,
        "ignore-pbs",
        None,
        Flag,
        SBATCH,
        "",
        "skip #PBS and #BSUB lines in the script",
    )
    .env(&[env(SB, "SBATCH_IGNORE_PBS")]),
    D::new(
        Immediate,
        "immediate",
        Some('I'),
        Opt,
        SR_SA,
        "[=secs]",
        "give up unless resources come (within secs)",
    )
    .env(&[env(SA, "SALLOC_IMMEDIATE")]),
    D::new(
        Input,
        "input",
        Some('i'),
        Req,
        SB_SR,
        "=file",
        "where standard input comes from",
    )
    .env(&[env(SB, "SBATCH_INPUT"), env(SR, "SLURM_STDINMODE")]),
    D::new(
        Interactive,
        "interactive",
        None,
        Flag,
        SRUN,
        "",
        "run as salloc's interactive step (internal use)",
    ),
    D::new(
        JobId,
        "jobid",
        None,
        Req,
        SRUN,
        "=id",
        "run the step in this existing job",
    )
    .env(&[env(SR, "SLURM_JOB_ID")]),
    D::new(
        JobName,
        "job-name",
        Some('J'),
        Req,
        ALL,
        "=name",
        "name of the job",
    )
    .env(&[env(SB, "SBATCH_JOB_NAME"), env(SR, "SLURM_JOB_NAME")]),
    D::new(
        KillCommand,
        "kill-command",
        Some('K'),
        Opt,
        SALLOC,
        "[=signal]",
        "signal for the command when time runs out",
    )
    .env(&[env(SA, "SALLOC_KILL_CMD")]),
    D::new(
        KillOnBadExit,
        "kill-on-bad-exit",
        Some('K'),
        Opt,
        SRUN,
        "[=0|1]",
        "end the step if a task fails",
    )
    .env(&[env(SR, "SLURM_KILL_BAD_EXIT")]),
    D::new(
        KillOnInvalidDep,
        "kill-on-invalid-dep",
        None,
        Req,
        SBATCH,
        "=yes|no",
        "cancel the job if its dependency can never be met",
    ),
    D::new(
        Label,
        "label",
        Some('l'),
        Flag,
        SRUN,
        "",
        "prefix output lines with the task number",
    )
    .env(&[env(SR, "SLURM_LABELIO")]),
    D::new(
        Licenses,
        "licenses",
        Some('L'),
        Req,
        ALL,
        "=names",
        "licenses needed (name[:count],...)",
    ),
    D::new(
        MailType,
        "mail-type",
        None,
        Req,
        ALL,
        "=types",
        "events that send mail (BEGIN, END, FAIL, ALL, ...)",
    ),
    D::new(
        MailUser,
        "mail-user",
        None,
        Req,
        ALL,
        "=user",
        "who gets the mail",
    ),
    D::new(
        McsLabel,
        "mcs-label",
        None,
        Req,
        ALL,
        "=label",
        "MCS label of the job (mcs/group plugin)",
    ),
    D::new(
        Mem,
        "mem",
        None,
        Req,
        ALL,
        "=size[units]",
        "memory per node (MB unless a unit is given)",
    )
    .sec(S::Constraint)
    .env(&[
        env(SB, "SBATCH_MEM_PER_NODE"),
        env(SR, "SLURM_MEM_PER_NODE"),
        env(SA, "SALLOC_MEM_PER_NODE"),
    ]),
    D::new(
        MemBind,
        "mem-bind",
        None,
        Req,
        ALL,
        "=type",
        "how tasks are bound to memory (local, rank, ...)",
    )
    .sec(S::Affinity)
    .env(&[
        env(SB, "SBATCH_MEM_BIND"),
        env(SR, "SLURM_MEM_BIND"),
        env(SA, "SALLOC_MEM_BIND"),
    ]),
    D::new(
        MemPerCpu,
        "mem-per-cpu",
        None,
        Req,
        ALL,
        "=size[units]",
        "memory for each allocated CPU",
    )
    .sec(S::Consumable)
    .env(&[
        env(SB, "SBATCH_MEM_PER_CPU"),
        env(SR, "SLURM_MEM_PER_CPU"),
        env(SA, "SALLOC_MEM_PER_CPU"),
    ]),
    D::new(
        MemPerGpu,
        "mem-per-gpu",
        None,
        Req,
        ALL,
        "=size[units]",
        "memory for each allocated GPU",
    )
    .sec(S::Gpu)
    .env(&[
        env(SB, "SBATCH_MEM_PER_GPU"),
        env(SR, "SLURM_MEM_PER_GPU"),
        env(SA, "SALLOC_MEM_PER_GPU"),
    ]),
    D::new(
        Mincpus,
        "mincpus",
        None,
        Req,
        ALL,
        "=n",
        "at least n CPUs on each node",
    )
    .sec(S::Constraint),
    D::new(
        Mpi,
        "mpi",
        None,
        Req,
        SRUN,
        "=type",
        "MPI plugin to start the tasks with (list: show them)",
    )
    .env(&[env(SR, "SLURM_MPI_TYPE")]),
    D::new(
        MsgTimeout,
        "msg-timeout",
        None,
        Req,
        SRUN,
        "=secs",
        "timeout for srun's messages (testing)",
    ),
    D::new(
        MultiProg,
        "multi-prog",
        None,
        Flag,
        SRUN,
        "",
        "the command is a file mapping task ranks to programs",
    ),
    D::new(
        Network,
        "network",
        None,
        Req,
        ALL,
        "=type",
        "network resources for the job",
    )
    .env(&[
        env(SB, "SBATCH_NETWORK"),
        env(SR, "SLURM_NETWORK"),
        env(SA, "SALLOC_NETWORK"),
    ]),
    D::new(
        Nice,
        "nice",
        None,
        Opt,
        ALL,
        "[=adjustment]",
        "lower the job's priority by this much (100)",
    ),
    D::new(
        NoAllocate,
        "no-allocate",
        Some('Z'),
        Flag,
        SRUN,
        "",
        "launch without an allocation (admins, needs -w)",
    )
    .sec(S::Constraint),
    D::new(
        NoBell,
        "no-bell",
        None,
        Flag,
        SALLOC,
        "",
        "never beep when the allocation is granted",
    )
    .env(&[env(SA, "SALLOC_NO_BELL")])
    .negates(Bell),
    D::new(
        NoKill,
        "no-kill",
        Some('k'),
        Opt,
        ALL,
        "[=off]",
        "keep running if an allocated node fails",
    )
    .env(&[
        env(SB, "SBATCH_NO_KILL"),
        env(SR, "SLURM_NO_KILL"),
        env(SA, "SALLOC_NO_KILL"),
    ]),
    D::new(
        NoRequeue,
        "no-requeue",
        None,
        Flag,
        SBATCH,
        "",
        "never requeue the job",
    )
    .env(&[env(SB, "SBATCH_NO_REQUEUE")])
    .negates(Requeue),
    D::new(
        NoShell,
        "no-shell",
        None,
        Flag,
        SALLOC,
        "",
        "exit once allocated, without running a command",
    ),
    D::new(
        Nodefile,
        "nodefile",
        Some('F'),
        Req,
        ALL,
        "=file",
        "file naming the nodes to use",
    )
    .sec(S::Constraint),
    D::new(
        Nodelist,
        "nodelist",
        Some('w'),
        Req,
        ALL,
        "=nodes",
        "use these nodes (a hostlist)",
    )
    .sec(S::Constraint),
    D::new(
        Nodes,
        "nodes",
        Some('N'),
        Req,
        ALL,
        "=min[-max]",
        "number of nodes",
    )
    .env(&[env(SR, "SLURM_JOB_NUM_NODES")]),
    D::new(
        Ntasks,
        "ntasks",
        Some('n'),
        Req,
        ALL,
        "=n",
        "number of tasks",
    )
    .env(&[env(SR, "SLURM_NTASKS"), env(SR, "SLURM_NPROCS")]),
    D::new(
        NtasksPerCore,
        "ntasks-per-core",
        None,
        Req,
        ALL,
        "=n",
        "at most n tasks on each core",
    )
    .sec(S::Affinity),
    D::new(
        NtasksPerGpu,
        "ntasks-per-gpu",
        None,
        Req,
        ALL,
        "=n",
        "n tasks for each GPU",
    )
    .sec(S::Gpu)
    .env(&[env(SR, "SLURM_NTASKS_PER_GPU")]),
    D::new(
        NtasksPerNode,
        "ntasks-per-node",
        None,
        Req,
        ALL,
        "=n",
        "n tasks on each node",
    )
    .aliases(&["tasks-per-node"])
    .env(&[env(SR, "SLURM_NTASKS_PER_NODE")]),
    D::new(
        NtasksPerSocket,
        "ntasks-per-socket",
        None,
        Req,
        ALL,
        "=n",
        "at most n tasks on each socket",
    )
    .sec(S::Affinity),
    D::new(
        NtasksPerTres,
        "ntasks-per-tres",
        None,
        Req,
        ALL,
        "=n",
        "n tasks for each trackable resource (GPU)",
    )
    .sec(S::Gpu)
    .env(&[env(SR, "SLURM_NTASKS_PER_TRES")]),
    D::new(
        OpenMode,
        "open-mode",
        None,
        Req,
        SB_SR,
        "=append|truncate",
        "how output files are opened",
    )
    .env(&[env(SB, "SBATCH_OPEN_MODE"), env(SR, "SLURM_OPEN_MODE")]),
    D::new(
        Output,
        "output",
        Some('o'),
        Req,
        SB_SR,
        "=file",
        "where standard output goes (a name pattern)",
    )
    .env(&[env(SB, "SBATCH_OUTPUT"), env(SR, "SLURM_STDOUTMODE")]),
    D::new(
        Overcommit,
        "overcommit",
        Some('O'),
        Flag,
        ALL,
        "",
        "allow more tasks than CPUs",
    )
    .env(&[
        env(SB, "SBATCH_OVERCOMMIT"),
        env(SR, "SLURM_OVERCOMMIT"),
        env(SA, "SALLOC_OVERCOMMIT"),
    ]),
    D::new(
        Overlap,
        "overlap",
        None,
        Opt,
        SRUN,
        "",
        "let this step share resources with other steps",
    )
    .env(&[env(SR, "SLURM_OVERLAP")]),
    D::new(
        Oversubscribe,
        "oversubscribe",
        Some('s'),
        Flag,
        ALL,
        "",
        "allow sharing nodes with other jobs",
    )
    .negates(Exclusive),
    D::new(
        Parsable,
        "parsable",
        None,
        Flag,
        SBATCH,
        "",
        "print only the job id (and cluster) on success",
    ),
    D::new(
        Partition,
        "partition",
        Some('p'),
        Req,
        ALL,
        "=names",
        "partition(s) to run in",
    )
    .env(&[
        env(SB, "SBATCH_PARTITION"),
        env(SR, "SLURM_PARTITION"),
        env(SA, "SALLOC_PARTITION"),
    ]),
    D::new(
        PlaneSize,
        "plane-size",
        None,
        Req,
        Cmds::NONE,
        "=n",
        "tasks per plane for -m plane",
    )
    .env(&[env(SR, "SLURM_DIST_PLANESIZE")])
    .hidden(),
    D::new(
        Power,
        "power",
        None,
        Req,
        ALL,
        "=flags",
        "power management flags",
    )
    .env(&[
        env(SB, "SBATCH_POWER"),
        env(SR, "SLURM_POWER"),
        env(SA, "SALLOC_POWER"),
    ]),
    D::new(
        Prefer,
        "prefer",
        None,
        Req,
        ALL,
        "=list",
        "node features wanted but not required",
    )
    .sec(S::Constraint),
    D::new(
        PreserveEnv,
        "preserve-env",
        Some('E'),
        Flag,
        SRUN,
        "",
        "keep the node and task counts of the job",
    ),
    D::new(
        Priority,
        "priority",
        None,
        Req,
        ALL,
        "=value",
        "job priority (admins; top: run first)",
    ),
    D::new(
        Profile,
        "profile",
        None,
        Req,
        ALL,
        "=types",
        "profiling data to gather (all, none, energy, task, ...)",
    )
    .env(&[
        env(SB, "SBATCH_PROFILE"),
        env(SR, "SLURM_PROFILE"),
        env(SA, "SALLOC_PROFILE"),
    ]),
    D::new(
        Prolog,
        "prolog",
        None,
        Req,
        SRUN,
        "=program",
        "run program here before the step starts",
    )
    .env(&[env(SR, "SLURM_PROLOG")]),
    D::new(
        Propagate,
        "propagate",
        None,
        Opt,
        SB_SR,
        "[=rlimits]",
        "resource limits copied to the job (all)",
    ),
    D::new(
        Pty,
        "pty",
        None,
        Flag,
        SRUN,
        "",
        "run task zero in a pseudo-terminal",
    ),
    D::new(
        Qos,
        "qos",
        Some('q'),
        Req,
        ALL,
        "=qos",
        "quality of service",
    )
    .env(&[
        env(SB, "SBATCH_QOS"),
        env(SR, "SLURM_QOS"),
        env(SA, "SALLOC_QOS"),
    ]),
    D::new(
        Quiet,
        "quiet",
        Some('Q'),
        Flag,
        ALL,
        "",
        "print errors only",
    )
    .early(),
    D::new(
        QuitOnInterrupt,
        "quit-on-interrupt",
        None,
        Flag,
        SRUN,
        "",
        "quit on the first Ctrl-C",
    ),
    D::new(
        Reboot,
        "reboot",
        None,
        Flag,
        ALL,
        "",
        "reboot the nodes before the job starts",
    ),
    D::new(
        Relative,
        "relative",
        Some('r'),
        Req,
        SRUN,
        "=n",
        "start the step at node n of the allocation",
    ),
    D::new(
        Requeue,
        "requeue",
        None,
        Flag,
        SBATCH,
        "",
        "let the job be requeued",
    )
    .env(&[env(SB, "SBATCH_REQUEUE")])
    .negates(NoRequeue),
    D::new(
        Reservation,
        "reservation",
        None,
        Req,
        ALL,
        "=names",
        "run in this reservation",
    )
    .sec(S::Constraint)
    .env(&[
        env(SB, "SBATCH_RESERVATION"),
        env(SR, "SLURM_RESERVATION"),
        env(SA, "SALLOC_RESERVATION"),
    ]),
    D::new(
        ResvPorts,
        "resv-ports",
        None,
        Opt,
        SRUN,
        "[=count]",
        "reserve communication ports for the step",
    )
    .sec(S::Consumable)
    .env(&[env(SR, "SLURM_RESV_PORTS")]),
    D::new(
        SendLibs,
        "send-libs",
        None,
        Opt,
        SRUN,
        "[=yes|no]",
        "send the program's libraries along with --bcast",
    )
    .env(&[env(SR, "SLURM_SEND_LIBS")]),
    D::new(
        Signal,
        "signal",
        None,
        Req,
        ALL,
        "=[R|B:]sig[@secs]",
        "send sig this many seconds before the time limit",
    )
    .env(&[
        env(SB, "SBATCH_SIGNAL"),
        env(SR, "SLURM_SIGNAL"),
        env(SA, "SALLOC_SIGNAL"),
    ]),
    D::new(
        SlurmdDebug,
        "slurmd-debug",
        None,
        Req,
        SRUN,
        "=level",
        "slurmd log level for the step",
    )
    .env(&[env(SR, "SLURMD_DEBUG")]),
    D::new(
        SocketsPerNode,
        "sockets-per-node",
        None,
        Req,
        ALL,
        "=S",
        "at least S sockets on each node",
    )
    .sec(S::Affinity),
    D::new(
        SpreadJob,
        "spread-job",
        None,
        Flag,
        ALL,
        "",
        "use as many nodes as possible",
    )
    .env(&[
        env(SB, "SBATCH_SPREAD_JOB"),
        env(SR, "SLURM_SPREAD_JOB"),
        env(SA, "SALLOC_SPREAD_JOB"),
    ]),
    D::new(
        SwitchReq,
        "switch-req",
        None,
        Req,
        Cmds::NONE,
        "=count",
        "wanted maximum of leaf switches",
    )
    .env(&[
        env(SB, "SBATCH_REQ_SWITCH"),
        env(SR, "SLURM_REQ_SWITCH"),
        env(SA, "SALLOC_REQ_SWITCH"),
    ])
    .hidden(),
    D::new(
        SwitchWait,
        "switch-wait",
        None,
        Req,
        Cmds::NONE,
        "=time",
        "how long to wait for those switches",
    )
    .env(&[
        env(SB, "SBATCH_WAIT4SWITCH"),
        env(SR, "SLURM_WAIT4SWITCH"),
        env(SA, "SALLOC_WAIT4SWITCH"),
    ])
    .hidden(),
    D::new(
        Switches,
        "switches",
        None,
        Req,
        ALL,
        "=count[@time]",
        "wanted maximum of leaf switches, and how long\nto wait for them",
    ),
    D::new(
        TaskEpilog,
        "task-epilog",
        None,
        Req,
        SRUN,
        "=program",
        "run program on the node after each task",
    )
    .env(&[env(SR, "SLURM_TASK_EPILOG")]),
    D::new(
        TaskProlog,
        "task-prolog",
        None,
        Req,
        SRUN,
        "=program",
        "run program on the node before each task",
    )
    .env(&[env(SR, "SLURM_TASK_PROLOG")]),
    D::new(
        TestOnly,
        "test-only",
        None,
        Flag,
        SB_SR,
        "",
        "only say when the job would start; submit nothing",
    ),
    D::new(
        ThreadSpec,
        "thread-spec",
        None,
        Req,
        ALL,
        "=threads",
        "threads per node set aside for system use",
    )
    .env(&[
        env(SB, "SBATCH_THREAD_SPEC"),
        env(SR, "SLURM_THREAD_SPEC"),
        env(SA, "SALLOC_THREAD_SPEC"),
    ]),
    D::new(
        Threads,
        "threads",
        Some('T'),
        Req,
        SRUN,
        "=n",
        "threads srun uses to launch tasks",
    )
    .env(&[env(SR, "SLURM_THREADS")]),
    D::new(
        ThreadsPerCore,
        "threads-per-core",
        None,
        Req,
        ALL,
        "=T",
        "use T threads of each core",
    )
    .sec(S::Affinity)
    .env(&[
        env(SB, "SBATCH_THREADS_PER_CORE"),
        env(SR, "SLURM_THREADS_PER_CORE"),
        env(SA, "SALLOC_THREADS_PER_CORE"),
    ]),
    D::new(
        Time,
        "time",
        Some('t'),
        Req,
        ALL,
        "=time",
        "time limit (minutes or [days-]hours:minutes:seconds)",
    )
    .env(&[
        env(SB, "SBATCH_TIMELIMIT"),
        env(SR, "SLURM_TIMELIMIT"),
        env(SA, "SALLOC_TIMELIMIT"),
    ]),
    D::new(
        TimeMin,
        "time-min",
        None,
        Req,
        ALL,
        "=time",
        "shortest acceptable time limit",
    ),
    D::new(
        Tmp,
        "tmp",
        None,
        Req,
        ALL,
        "=size[units]",
        "at least this much temporary disk per node",
    )
    .sec(S::Constraint),
    D::new(
        Uid,
        "uid",
        None,
        Req,
        ALL,
        "=user",
        "user to run the job as (root only)",
    ),
    D::new(
        Umask,
        "umask",
        None,
        Req,
        Cmds::NONE,
        "=mask",
        "umask for the job's files (from #PBS -W umask=)",
    )
    .hidden(),
    D::new(
        Unbuffered,
        "unbuffered",
        Some('u'),
        Flag,
        SRUN,
        "",
        "pass task output on without line buffering",
    )
    .env(&[env(SR, "SLURM_UNBUFFEREDIO")]),
    D::new(
        Usage,
        "usage",
        None,
        Flag,
        ALL,
        "",
        "print a short usage summary and exit",
    )
    .sec(S::Help)
    .early(),
    D::new(
        UseMinNodes,
        "use-min-nodes",
        None,
        Flag,
        ALL,
        "",
        "prefer the low end of a node count range",
    )
    .env(&[
        env(SB, "SBATCH_USE_MIN_NODES"),
        env(SR, "SLURM_USE_MIN_NODES"),
        env(SA, "SALLOC_USE_MIN_NODES"),
    ]),
    D::new(
        Verbose,
        "verbose",
        Some('v'),
        Flag,
        ALL,
        "",
        "say more (repeat for more detail)",
    )
    .early()
    .env(&[
        env(SB, "SBATCH_DEBUG"),
        env(SR, "SLURM_DEBUG"),
        env(SA, "SALLOC_DEBUG"),
    ]),
    D::new(
        Version,
        "version",
        Some('V'),
        Flag,
        ALL,
        "",
        "print the version and exit",
    )
    .sec(S::Other)
    .early(),
    D::new(
        Wait,
        "wait",
        Some('W'),
        Flag,
        SBATCH,
        "",
        "return when the job ends, with its exit code",
    )
    .env(&[env(SB, "SBATCH_WAIT")]),
    D::new(
        WaitAllNodes,
        "wait-all-nodes",
        None,
        Req,
        SB_SA,
        "=0|1",
        "start only once every node is ready",
    )
    .env(&[
        env(SB, "SBATCH_WAIT_ALL_NODES"),
        env(SA, "SALLOC_WAIT_ALL_NODES"),
    ]),
    D::new(
        WaitAfterExit,
        "wait",
        Some('W'),
        Req,
        SRUN,
        "=secs",
        "end the step this long after a first task exits",
    )
    .env(&[env(SR, "SLURM_WAIT")]),
    D::new(
        Wckey,
        "wckey",
        None,
        Req,
        ALL,
        "=wckey",
        "workload characterization key",
    )
    .env(&[
        env(SB, "SBATCH_WCKEY"),
        env(SR, "SLURM_WCKEY"),
        env(SA, "SALLOC_WCKEY"),
    ]),
    D::new(
        Whole,
        "whole",
        None,
        Flag,
        SRUN,
        "",
        "give the step whole nodes of the allocation",
    )
    .sec(S::Consumable),
    D::new(
        Wrap,
        "wrap",
        None,
        Req,
        SBATCH,
        "=command",
        "submit this command wrapped in a /bin/sh script",
    )
    .early(),
    D::new(
        X11,
        "x11",
        None,
        Opt,
        SR_SA,
        "[=all|first|last]",
        "forward X11 from these nodes",
    ),
];
