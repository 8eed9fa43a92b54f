//! Option table rows `AccelBind` to `GresFlags`.

use super::super::ArgKind::{None as Flag, Optional as Opt, Required as Req};
use super::super::Command::{Salloc as SA, Sbatch as SB, Srun as SR};
use super::super::OptId::*;
use super::super::Section as S;
use super::super::{env, OptDef as D};
use super::cmds::*;

/// These rows, in `OptId` order.
pub(super) const ROWS: [D; 50] = [
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
];
