//! Option table rows `Power` to `X11`.

use super::super::ArgKind::{None as Flag, Optional as Opt, Required as Req};
use super::super::Command::{Salloc as SA, Sbatch as SB, Srun as SR};
use super::super::OptId::*;
use super::super::Section as S;
use super::super::{env, OptDef as D};
use super::cmds::*;

/// These rows, in `OptId` order.
pub(super) const ROWS: [D; 47] = [
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
        NONE,
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
        NONE,
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
        NONE,
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
