//! Option table rows `Help` to `PlaneSize`.

use super::super::ArgKind::{None as Flag, Optional as Opt, Required as Req};
use super::super::Command::{Salloc as SA, Sbatch as SB, Srun as SR};
use super::super::OptId::*;
use super::super::Section as S;
use super::super::{env, OptDef as D};
use super::cmds::*;

/// These rows, in `OptId` order.
pub(super) const ROWS: [D; 50] = [
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
        NONE,
        "=n",
        "tasks per plane for -m plane",
    )
    .env(&[env(SR, "SLURM_DIST_PLANESIZE")])
    .hidden(),
];
