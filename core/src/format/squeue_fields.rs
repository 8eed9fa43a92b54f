//! squeue's job fields: the `-o` letters and `-O` names that select them, their headers, and each field's text for
//! a job (with Slurm's `(null)`, `N/A` and `INVALID` placeholders).

use crate::format::columns::Cell;
use crate::format::job_view::{JobView, NO_VAL};
use crate::format::time::{compact_secs, squeue_secs};
use crate::format::units::mem_mb;
use crate::format::FormatContext;
use crate::grammar::hostlist::compress as compress_names;

/// One squeue column's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobField {
    Account,
    AccrueTime,
    AdminComment,
    AllocNodes,
    AllocSid,
    ArrayJobId,
    ArrayTaskId,
    AssocId,
    BatchFlag,
    BatchHost,
    BoardsPerNode,
    BurstBuffer,
    BurstBufferState,
    Cluster,
    ClusterFeatures,
    Command,
    Comment,
    Container,
    Contiguous,
    Cores,
    CoreSpec,
    CpusPerTask,
    CpusPerTres,
    Deadline,
    DelayBoot,
    Dependency,
    DerivedExitCode,
    EligibleTime,
    EndTime,
    ExcNodes,
    ExitCode,
    Features,
    GroupId,
    GroupName,
    HetJobId,
    HetJobIdSet,
    HetJobOffset,
    /// `%i`: `24_3`, `24_[1-3]`.
    JobArrayId,
    /// `%A`/`JobID`: the plain job id.
    JobId,
    LastSchedEval,
    Licenses,
    MaxCpus,
    MaxNodes,
    McsLabel,
    MemPerTres,
    MinCpus,
    MinMemory,
    MinTime,
    MinTmpDisk,
    Name,
    Network,
    Nice,
    NodeList,
    NtasksPerBoard,
    NtasksPerCore,
    NtasksPerNode,
    NtasksPerSocket,
    NumCpus,
    NumNodes,
    NumTasks,
    Origin,
    OriginRaw,
    OverSubscribe,
    Partition,
    PendingTime,
    PreemptTime,
    Prefer,
    Priority,
    PriorityLong,
    Profile,
    Qos,
    Reason,
    ReasonList,
    Reboot,
    ReqNodes,
    ReqSwitch,
    Requeue,
    Reservation,
    ResizeTime,
    RestartCount,
    SchedNodes,
    Sct,
    SelectJobInfo,
    SiblingsActive,
    SiblingsActiveRaw,
    SiblingsViable,
    SiblingsViableRaw,
    Sockets,
    SocketsPerBoard,
    StartTime,
    State,
    StateCompact,
    StdErr,
    StdIn,
    StdOut,
    SubmitTime,
    SystemComment,
    Threads,
    TimeLeft,
    TimeLimit,
    TimeUsed,
    TresAlloc,
    TresBind,
    TresFreq,
    TresPerJob,
    TresPerNode,
    TresPerSocket,
    TresPerTask,
    UserId,
    UserName,
    Wait4Switch,
    WcKey,
    WorkDir,
}

use JobField as F;

impl JobField {
    /// The field a `-o` letter selects.
    pub fn from_letter(letter: char) -> Option<JobField> {
        Some(match letter {
            'a' => F::Account,
            'A' => F::JobId,
            'b' => F::TresPerNode,
            'B' => F::BatchHost,
            'c' => F::MinCpus,
            'C' => F::NumCpus,
            'd' => F::MinTmpDisk,
            'D' => F::NumNodes,
            'e' => F::EndTime,
            'E' => F::Dependency,
            'f' => F::Features,
            'F' => F::ArrayJobId,
            'g' => F::GroupName,
            'G' => F::GroupId,
            'h' => F::OverSubscribe,
            'H' => F::Sockets,
            'i' => F::JobArrayId,
            'I' => F::Cores,
            'j' => F::Name,
            'J' => F::Threads,
            'k' => F::Comment,
            'K' => F::ArrayTaskId,
            'l' => F::TimeLimit,
            'L' => F::TimeLeft,
            'm' => F::MinMemory,
            'M' => F::TimeUsed,
            'n' => F::ReqNodes,
            'N' => F::NodeList,
            'o' => F::Command,
            'O' => F::Contiguous,
            'p' => F::Priority,
            'P' => F::Partition,
            'q' => F::Qos,
            'Q' => F::PriorityLong,
            'r' => F::Reason,
            'R' => F::ReasonList,
            's' => F::SelectJobInfo,
            'S' => F::StartTime,
            't' => F::StateCompact,
            'T' => F::State,
            'u' => F::UserName,
            'U' => F::UserId,
            'v' => F::Reservation,
            'V' => F::SubmitTime,
            'w' => F::WcKey,
            'W' => F::Licenses,
            'x' => F::ExcNodes,
            'X' => F::CoreSpec,
            'y' => F::Nice,
            'Y' => F::SchedNodes,
            'z' => F::Sct,
            'Z' => F::WorkDir,
            _ => return None,
        })
    }

    /// The field a lower-cased `-O` name selects.
    pub fn from_name(name: &str) -> Option<JobField> {
        if name.starts_with("numtask") {
            return Some(F::NumTasks);
        }
        Some(match name {
            "account" => F::Account,
            "accruetime" => F::AccrueTime,
            "admin_comment" => F::AdminComment,
            "allocnodes" => F::AllocNodes,
            "allocsid" => F::AllocSid,
            "arrayjobid" => F::ArrayJobId,
            "arraytaskid" => F::ArrayTaskId,
            "associd" => F::AssocId,
            "batchflag" => F::BatchFlag,
            "batchhost" => F::BatchHost,
            "boardspernode" => F::BoardsPerNode,
            "burstbuffer" => F::BurstBuffer,
            "burstbufferstate" => F::BurstBufferState,
            "cluster" => F::Cluster,
            "clusterfeature" => F::ClusterFeatures,
            "command" => F::Command,
            "comment" => F::Comment,
            "container" => F::Container,
            "contiguous" => F::Contiguous,
            "cores" => F::Cores,
            "corespec" => F::CoreSpec,
            "cpuspertask" | "cpus-per-task" => F::CpusPerTask,
            "cpus-per-tres" => F::CpusPerTres,
            "deadline" => F::Deadline,
            "delayboot" => F::DelayBoot,
            "dependency" => F::Dependency,
            "derivedec" => F::DerivedExitCode,
            "eligibletime" => F::EligibleTime,
            "endtime" => F::EndTime,
            "exit_code" => F::ExitCode,
            "feature" => F::Features,
            "gres" | "tres-per-node" => F::TresPerNode,
            "groupid" => F::GroupId,
            "groupname" => F::GroupName,
            "hetjobid" | "packjobid" => F::HetJobId,
            "hetjobidset" | "packjobidset" => F::HetJobIdSet,
            "hetjoboffset" | "packjoboffset" => F::HetJobOffset,
            "jobarrayid" => F::JobArrayId,
            "jobid" => F::JobId,
            "lastschedeval" => F::LastSchedEval,
            "licenses" => F::Licenses,
            "maxcpus" => F::MaxCpus,
            "maxnodes" => F::MaxNodes,
            "mcslabel" => F::McsLabel,
            "mem-per-tres" => F::MemPerTres,
            "mincpus" => F::MinCpus,
            "minmemory" => F::MinMemory,
            "mintime" => F::MinTime,
            "mintmpdisk" => F::MinTmpDisk,
            "name" => F::Name,
            "network" => F::Network,
            "nice" => F::Nice,
            "nodelist" => F::NodeList,
            "ntperboard" => F::NtasksPerBoard,
            "ntpercore" => F::NtasksPerCore,
            "ntpernode" => F::NtasksPerNode,
            "ntpersocket" => F::NtasksPerSocket,
            "numcpus" => F::NumCpus,
            "numnodes" => F::NumNodes,
            "origin" => F::Origin,
            "originraw" => F::OriginRaw,
            "oversubscribe" | "shared" => F::OverSubscribe,
            "partition" => F::Partition,
            "pendingtime" => F::PendingTime,
            "preempttime" => F::PreemptTime,
            "prefer" => F::Prefer,
            "priority" => F::Priority,
            "prioritylong" => F::PriorityLong,
            "profile" => F::Profile,
            "qos" => F::Qos,
            "reason" => F::Reason,
            "reasonlist" => F::ReasonList,
            "reboot" => F::Reboot,
            "reqnodes" => F::ReqNodes,
            "reqswitch" => F::ReqSwitch,
            "requeue" => F::Requeue,
            "reservation" => F::Reservation,
            "resizetime" => F::ResizeTime,
            "restartcnt" => F::RestartCount,
            "schednodes" => F::SchedNodes,
            "sct" => F::Sct,
            "selectjobinfo" => F::SelectJobInfo,
            "siblingsactive" => F::SiblingsActive,
            "siblingsactiveraw" => F::SiblingsActiveRaw,
            "siblingsviable" => F::SiblingsViable,
            "siblingsviableraw" => F::SiblingsViableRaw,
            "sockets" => F::Sockets,
            "sperboard" => F::SocketsPerBoard,
            "starttime" => F::StartTime,
            "state" => F::State,
            "statecompact" => F::StateCompact,
            "stderr" => F::StdErr,
            "stdin" => F::StdIn,
            "stdout" => F::StdOut,
            "submittime" => F::SubmitTime,
            "system_comment" => F::SystemComment,
            "threads" => F::Threads,
            "timeleft" => F::TimeLeft,
            "timelimit" => F::TimeLimit,
            "timeused" => F::TimeUsed,
            "tres" | "tres-alloc" => F::TresAlloc,
            "tres-bind" => F::TresBind,
            "tres-freq" => F::TresFreq,
            "tres-per-job" => F::TresPerJob,
            "tres-per-socket" => F::TresPerSocket,
            "tres-per-task" => F::TresPerTask,
            "userid" => F::UserId,
            "username" => F::UserName,
            "wait4switch" => F::Wait4Switch,
            "wckey" => F::WcKey,
            "workdir" => F::WorkDir,
            _ => return None,
        })
    }

    /// The column header, and whether a right-justified header may be cut.
    pub fn header(self) -> Cell<'static> {
        let text = match self {
            F::Account => "ACCOUNT",
            F::AccrueTime => "ACCRUE_TIME",
            F::AdminComment => "ADMIN_COMMENT",
            F::AllocNodes => "ALLOC_NODES",
            F::AllocSid => "ALLOC_SID",
            F::ArrayJobId => "ARRAY_JOB_ID",
            F::ArrayTaskId => "ARRAY_TASK_ID",
            F::AssocId => "ASSOC_ID",
            F::BatchFlag => "BATCH_FLAG",
            F::BatchHost => "EXEC_HOST",
            F::BoardsPerNode => "BOARDS_PER_NODE",
            F::BurstBuffer => "BURST_BUFFER",
            F::BurstBufferState => "BURST_BUFFER_STATE",
            F::Cluster => "CLUSTER",
            F::ClusterFeatures => "CLUSTER_FEATURES",
            F::Command => "COMMAND",
            F::Comment => "COMMENT",
            F::Container => "CONTAINER",
            F::Contiguous => "CONTIGUOUS",
            F::Cores => "CORES_PER_SOCKET",
            F::CoreSpec => "CORE_SPEC",
            F::CpusPerTask => "CPUS_PER_TASK",
            F::CpusPerTres => "CPUS_PER_TRES",
            F::Deadline => "DEADLINE",
            F::DelayBoot => "DELAY_BOOT",
            F::Dependency => "DEPENDENCY",
            F::DerivedExitCode => "DERIVED_EC",
            F::EligibleTime => "ELIGIBLE_TIME",
            F::EndTime => "END_TIME",
            F::ExcNodes => "EXC_NODES",
            F::ExitCode => "EXIT_CODE",
            F::Features => "FEATURES",
            F::GroupId | F::GroupName => "GROUP",
            F::HetJobId => "HET_JOB_ID",
            F::HetJobIdSet => "HET_JOB_ID_SET",
            F::HetJobOffset => "HET_JOB_OFFSET",
            F::JobArrayId | F::JobId => "JOBID",
            F::LastSchedEval => "LAST_SCHED_EVAL",
            F::Licenses => "LICENSES",
            F::MaxCpus => "MAX_CPUS",
            F::MaxNodes => "MAX_NODES",
            F::McsLabel => "MCSLABEL",
            F::MemPerTres => "MEM_PER_TRES",
            F::MinCpus => "MIN_CPUS",
            F::MinMemory => "MIN_MEMORY",
            F::MinTime => "TIME_MIN",
            F::MinTmpDisk => "MIN_TMP_DISK",
            F::Name => "NAME",
            F::Network => "NETWORK",
            F::Nice => "NICE",
            F::NodeList => return Cell::whole("NODELIST"),
            F::NtasksPerBoard => "NTASKS_PER_BOARD",
            F::NtasksPerCore => "NTASKS_PER_CORE",
            F::NtasksPerNode => "NTASKS_PER_NODE",
            F::NtasksPerSocket => "NTASKS_PER_SOCKET",
            F::NumCpus => "CPUS",
            F::NumNodes => "NODES",
            F::NumTasks => "TASKS",
            F::Origin => "ORIGIN",
            F::OriginRaw => "ORIGIN_RAW",
            F::OverSubscribe => "OVER_SUBSCRIBE",
            F::Partition => "PARTITION",
            F::PendingTime => "PENDING_TIME",
            F::PreemptTime => "PREEMPT_TIME",
            F::Prefer => "PREFER",
            F::Priority | F::PriorityLong => "PRIORITY",
            F::Profile => "PROFILE",
            F::Qos => "QOS",
            F::Reason => "REASON",
            F::ReasonList => return Cell::whole("NODELIST(REASON)"),
            F::Reboot => "REBOOT",
            F::ReqNodes => "REQ_NODES",
            F::ReqSwitch => "REQ_SWITCH",
            F::Requeue => "REQUEUE",
            F::Reservation => "RESERVATION",
            F::ResizeTime => "RESIZE_TIME",
            F::RestartCount => "RESTART_COUNT",
            F::SchedNodes => return Cell::whole("SCHEDNODES"),
            F::Sct => "S:C:T",
            F::SelectJobInfo => "",
            F::SiblingsActive => "ACTIVE_SIBLINGS",
            F::SiblingsActiveRaw => "ACTIVE_SIBLINGS_RAW",
            F::SiblingsViable => "VIABLE_SIBLINGS",
            // Slurm's header carries this typo.
            F::SiblingsViableRaw => "VIALBLE_SIBLINGS_RAW",
            F::Sockets => "SOCKETS_PER_NODE",
            F::SocketsPerBoard => "SOCKETS_PER_BOARD",
            F::StartTime => "START_TIME",
            F::State => "STATE",
            F::StateCompact => "ST",
            F::StdErr => "STDERR",
            F::StdIn => "STDIN",
            F::StdOut => "STDOUT",
            F::SubmitTime => "SUBMIT_TIME",
            F::SystemComment => "SYSTEM_COMMENT",
            F::Threads => "THREADS_PER_CORE",
            F::TimeLeft => "TIME_LEFT",
            F::TimeLimit => "TIME_LIMIT",
            F::TimeUsed => "TIME",
            F::TresAlloc => "TRES_ALLOC",
            F::TresBind => "TRES_BIND",
            F::TresFreq => "TRES_FREQ",
            F::TresPerJob => "TRES_PER_JOB",
            F::TresPerNode => "TRES_PER_NODE",
            F::TresPerSocket => "TRES_PER_SOCKET",
            F::TresPerTask => "TRES_PER_TASK",
            F::UserId => "UID",
            F::UserName => "USER",
            F::Wait4Switch => "WAIT4SWITCH",
            F::WcKey => "WCKEY",
            F::WorkDir => "WORK_DIR",
        };
        Cell::cut(text)
    }

    /// The field's text for one job.
    pub(crate) fn value<'v>(self, job: &'v JobView<'_>, ctx: &'v FormatContext) -> Cell<'v> {
        let spec = &job.job.spec;
        let na = |v: Option<String>| Cell::cut(v.unwrap_or_else(|| "N/A".to_string()));
        let time = |t: Option<i64>| Cell::cut(ctx.time_or(t, "N/A"));
        match self {
            F::Account => null(&spec.account),
            F::AccrueTime => time(job.job.accrue_time),
            F::AdminComment
            | F::BurstBuffer
            | F::BurstBufferState
            | F::ClusterFeatures
            | F::Container => Cell::cut("(null)"),
            F::AllocNodes => Cell::cut(spec.alloc_node().to_string()),
            F::AllocSid => Cell::cut(job.job.alloc_sid.to_string()),
            F::ArrayJobId => Cell::cut(job.array_job_id().to_string()),
            F::ArrayTaskId => Cell::cut(job.array_task_text()),
            F::AssocId | F::Contiguous | F::Reboot | F::SocketsPerBoard => Cell::cut("0"),
            F::ReqSwitch => Cell::cut(spec.switches.map_or(0, |s| s.count).to_string()),
            F::BatchFlag => Cell::cut(u8::from(job.batch_flag()).to_string()),
            F::BatchHost => {
                let host = if job.batch_flag() {
                    job.batch_host()
                } else {
                    Some(spec.alloc_node())
                };
                Cell::cut(host.filter(|h| !h.is_empty()).unwrap_or("n/a"))
            }
            F::BoardsPerNode | F::NtasksPerBoard => Cell::cut("0"),
            F::Cluster => Cell::cut(ctx.cluster_name.clone()),
            F::Command => null(&spec.command),
            F::Comment => null(&spec.comment),
            F::Cores => Cell::cut(option_or_star(spec, "cores-per-socket")),
            F::Sockets => Cell::cut(option_or_star(spec, "sockets-per-node")),
            F::Threads => Cell::cut(option_or_star(spec, "threads-per-core")),
            F::Sct => Cell::cut(format!(
                "{}:{}:{}",
                option_or_star(spec, "sockets-per-node"),
                option_or_star(spec, "cores-per-socket"),
                option_or_star(spec, "threads-per-core")
            )),
            F::HetJobId | F::HetJobIdSet | F::HetJobOffset => {
                Cell::cut(job.job.het.as_ref().map_or_else(
                    || "N/A".to_string(),
                    |h| match self {
                        F::HetJobId => h.job_id.to_string(),
                        F::HetJobIdSet => h.id_set(),
                        _ => h.offset.to_string(),
                    },
                ))
            }
            F::CoreSpec | F::NtasksPerCore | F::NtasksPerSocket | F::TresBind | F::TresFreq => {
                Cell::cut("N/A")
            }
            F::TresPerSocket => Cell::cut(tres_per_socket(job).unwrap_or_else(|| "N/A".into())),
            F::CpusPerTres => Cell::cut(cpus_per_tres(job).unwrap_or_else(|| "N/A".into())),
            F::MemPerTres => Cell::cut(mem_per_tres(job).unwrap_or_else(|| "N/A".into())),
            F::ResizeTime => Cell::whole("N/A"),
            F::CpusPerTask => Cell::cut(job.cpus_per_task().to_string()),
            F::Deadline => time(job.job.spec.deadline),
            F::PreemptTime => Cell::cut("N/A"),
            F::DelayBoot | F::MinTime => Cell::cut(squeue_secs(0)),
            F::Wait4Switch => Cell::cut(squeue_secs(i64::from(
                spec.switches.and_then(|s| s.wait_secs).unwrap_or(0),
            ))),
            F::Dependency => Cell::cut(job.dependency().unwrap_or_else(|| "(null)".to_string())),
            F::DerivedExitCode => Cell::cut("0"),
            F::EligibleTime => time(job.job.eligible_time),
            F::EndTime => {
                let end = job.end_time();
                match end {
                    Some(e) if job.job.time_limit_min.is_none() && e > ctx.now => Cell::cut("NONE"),
                    _ => time(end),
                }
            }
            F::ExcNodes => Cell::cut(node_expr(&spec.excluded_nodes)),
            F::ReqNodes => Cell::cut(node_expr(&spec.required_nodes)),
            F::ExitCode => Cell::cut((job.exit_raw() as i32).to_string()),
            F::Features => null(&spec.constraint),
            F::GroupId => Cell::cut(spec.group_id.to_string()),
            F::GroupName => Cell::cut(ctx.group_name_text(spec.group_id)),
            F::JobArrayId => Cell::cut(job.id_text()),
            F::JobId => Cell::cut(job.job.job_id.to_string()),
            F::LastSchedEval => time(job.job.last_sched_eval),
            F::Reservation => Cell::cut(job.job.spec.reservation.as_deref().unwrap_or("(null)")),
            F::Licenses => null(&spec.licenses),
            F::Network | F::McsLabel | F::Prefer | F::WcKey => Cell::cut("(null)"),
            F::MaxCpus => Cell::cut(job.num_cpus().to_string()),
            F::MaxNodes => Cell::cut(
                spec.nodes_max
                    .unwrap_or_else(|| job.num_nodes())
                    .to_string(),
            ),
            F::MinCpus => Cell::cut(job.min_cpus_per_node().to_string()),
            F::MinMemory => Cell::cut(mem_mb(job.min_memory().0)),
            F::MinTmpDisk => Cell::cut(mem_mb(spec.tmp_disk_mb)),
            F::Name => Cell::cut(spec.name.as_str()),
            F::Nice => Cell::cut(spec.nice.to_string()),
            F::NodeList => Cell::whole(job.node_list()),
            F::NtasksPerNode => Cell::cut(spec.ntasks_per_node.unwrap_or(0).to_string()),
            F::NumCpus => Cell::cut(job.num_cpus().to_string()),
            F::NumNodes => Cell::cut(job.num_nodes().to_string()),
            F::NumTasks => Cell::cut(job.num_tasks().unwrap_or(NO_VAL).to_string()),
            F::Origin
            | F::OriginRaw
            | F::SiblingsActive
            | F::SiblingsActiveRaw
            | F::SiblingsViable
            | F::SiblingsViableRaw => Cell::cut("NA"),
            F::OverSubscribe => Cell::cut(oversubscribe(job)),
            F::Partition => Cell::cut(job.job.partition.as_str()),
            F::PendingTime => Cell::cut(pending_secs(job, ctx.now).to_string()),
            F::Priority => Cell::cut(format!(
                "{:16.14}",
                f64::from(job.job.priority) / f64::from(u32::MAX)
            )),
            F::PriorityLong => Cell::cut(job.job.priority.to_string()),
            F::Profile => Cell::cut("NotSet"),
            F::Qos => null(&spec.qos),
            F::Reason => Cell::cut(job.reason_text()),
            F::ReasonList => reason_list(job),
            F::Requeue => Cell::cut(u8::from(spec.requeue).to_string()),
            F::RestartCount => Cell::cut(job.job.restarts.to_string()),
            F::SchedNodes => Cell::whole(job.job.sched_nodes.as_deref().unwrap_or("(null)")),
            F::SelectJobInfo => Cell::cut(""),
            F::StartTime => time(job.start_time_shown(ctx.now)),
            F::State => Cell::cut(job.state_long()),
            F::StateCompact => Cell::cut(job.state_compact()),
            F::StdErr => Cell::cut(raw_stdio(job, StdStream::Err)),
            F::StdIn => Cell::cut(match (&spec.stdin, job.batch_flag()) {
                (Some(path), _) => path.as_str(),
                (None, true) => "/dev/null",
                (None, false) => "(null)",
            }),
            F::StdOut => Cell::cut(raw_stdio(job, StdStream::Out)),
            F::SubmitTime => time(Some(job.job.submit_time)),
            F::SystemComment => Cell::cut("(null)"),
            F::TimeLeft => match job.job.time_limit_min {
                None => Cell::cut("UNLIMITED"),
                Some(limit) => {
                    Cell::whole(squeue_secs(i64::from(limit) * 60 - job.time_used(ctx.now)))
                }
            },
            F::TimeLimit => match job.job.time_limit_min {
                None => Cell::cut("UNLIMITED"),
                Some(limit) => Cell::whole(compact_secs(i64::from(limit) * 60)),
            },
            F::TimeUsed => Cell::whole(squeue_secs(job.time_used(ctx.now))),
            F::TresAlloc => Cell::cut(job.tres_alloc().unwrap_or_else(|| job.tres_req())),
            F::TresPerJob => na(tres_per_job(job)),
            F::TresPerNode => na(tres_per_node(job)),
            F::TresPerTask => na(tres_per_task(job)),
            F::UserId => Cell::cut(spec.user_id.to_string()),
            F::UserName => Cell::cut(ctx.user_name_text(spec.user_id)),
            F::WorkDir => Cell::cut(spec.work_dir.as_str()),
        }
    }
}

/// An unset text field as Slurm prints it.
fn null(v: &Option<String>) -> Cell<'_> {
    Cell::cut(v.as_deref().unwrap_or("(null)"))
}

fn option_or_star(spec: &crate::model::job::JobSpec, key: &str) -> String {
    spec.options
        .get(key)
        .cloned()
        .unwrap_or_else(|| "*".to_string())
}

fn node_expr(nodes: &Option<String>) -> String {
    match nodes {
        Some(expr) => {
            let names: Vec<&str> = expr.split(',').filter(|n| !n.is_empty()).collect();
            if expr.contains('[') {
                expr.clone()
            } else {
                compress_names(&names)
            }
        }
        None => String::new(),
    }
}

fn oversubscribe(job: &JobView<'_>) -> &'static str {
    crate::policy::oversubscribe::label(&job.job.spec, job.job.sharing)
}

fn pending_secs(job: &JobView<'_>, now: i64) -> i64 {
    match job.job.start_time {
        Some(start) if start != 0 && start < now => start - job.job.submit_time,
        _ => now - job.job.submit_time,
    }
}

/// `%R`: `(Reason)` for jobs waiting or ended in failure, the node list otherwise.
fn reason_list(job: &JobView<'_>) -> Cell<'static> {
    use crate::model::states::JobBaseState as S;
    let failed = matches!(
        job.job.state,
        S::Pending | S::Timeout | S::OutOfMemory | S::Deadline | S::Failed
    );
    if failed && !job.job.is_completing() {
        Cell::cut(format!("({})", job.reason_text()))
    } else {
        Cell::whole(job.node_list())
    }
}

enum StdStream {
    Out,
    Err,
}

/// squeue shows the stdio patterns unexpanded, with Slurm's `slurm-%j.out` default spelled out.
fn raw_stdio(job: &JobView<'_>, stream: StdStream) -> String {
    let spec = &job.job.spec;
    if matches!(stream, StdStream::Err) && !job.batch_flag() {
        return "N/A".to_string();
    }
    let pattern = match stream {
        StdStream::Out => spec.stdout.clone(),
        StdStream::Err => spec.stderr.clone().or_else(|| spec.stdout.clone()),
    };
    pattern.unwrap_or_else(|| format!("{}/slurm-{}.out", spec.work_dir, job.job.job_id))
}

/// `CpusPerTres=`: `--cpus-per-gpu`, else the `DefCpuPerGPU` the job got (which slurmctld writes without the
/// `gres:` prefix).
pub(crate) fn cpus_per_tres(job: &JobView<'_>) -> Option<String> {
    let spec = &job.job.spec;
    match (spec.cpus_per_gpu, spec.def_cpus_per_gpu) {
        (Some(n), _) => Some(format!("gres:gpu:{n}")),
        (None, Some(n)) => Some(format!("gpu:{n}")),
        (None, None) => None,
    }
}

/// `MemPerTres=`: `--mem-per-gpu` in MB, else the `DefMemPerGPU` the job got (shown even when `--mem` sizes it).
pub(crate) fn mem_per_tres(job: &JobView<'_>) -> Option<String> {
    let spec = &job.job.spec;
    match (spec.mem_per_gpu_mb, spec.def_mem_per_gpu_mb) {
        (Some(mb), _) => Some(format!("gres:gpu:{mb}")),
        (None, Some(mb)) => Some(format!("gpu:{mb}")),
        (None, None) => None,
    }
}

/// `TresPerJob=`: `--gpus`.
pub(crate) fn tres_per_job(job: &JobView<'_>) -> Option<String> {
    job.job.spec.options.get("gpus").map(|g| gpu_tres(g))
}

/// `TresPerNode=`: `--gres` (each entry prefixed `gres:`) or `--gpus-per-node`.
pub(crate) fn tres_per_node(job: &JobView<'_>) -> Option<String> {
    let spec = &job.job.spec;
    if let Some(text) = spec.gres_text.as_deref().filter(|t| !t.is_empty()) {
        let parts: Vec<String> = text
            .split(',')
            .map(|g| {
                if g.starts_with("gres:") {
                    g.to_string()
                } else {
                    format!("gres:{g}")
                }
            })
            .collect();
        return Some(parts.join(","));
    }
    spec.options.get("gpus-per-node").map(|g| gpu_tres(g))
}

/// `TresPerSocket=`: `--gpus-per-socket`.
pub(crate) fn tres_per_socket(job: &JobView<'_>) -> Option<String> {
    job.job
        .spec
        .options
        .get("gpus-per-socket")
        .map(|g| gpu_tres(g))
}

/// `TresPerTask=`: `--gpus-per-task`.
pub(crate) fn tres_per_task(job: &JobView<'_>) -> Option<String> {
    job.job
        .spec
        .options
        .get("gpus-per-task")
        .map(|g| gpu_tres(g))
}

fn gpu_tres(value: &str) -> String {
    format!("gres:gpu:{value}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::{ctx, pending, running};

    fn text(field: JobField, job: &crate::model::job::JobRecord) -> String {
        field.value(&JobView::single(job), &ctx()).text.into_owned()
    }

    #[test]
    fn every_letter_of_a_running_job() {
        let job = running();
        let expected = [
            ('a', "proj"),
            ('A', "42"),
            ('b', "N/A"),
            ('B', "n1"),
            ('c', "1"),
            ('C', "4"),
            ('d', "0"),
            ('D', "2"),
            ('e', "2026-11-30T15:27:00"),
            ('E', "(null)"),
            ('f', "(null)"),
            ('F', "42"),
            ('g', "users"),
            ('G', "100"),
            ('h', "OK"),
            ('H', "*"),
            ('i', "42"),
            ('I', "*"),
            ('j', "train"),
            ('J', "*"),
            ('k', "nightly"),
            ('K', "N/A"),
            ('l', "30:00"),
            ('L', "28:55"),
            ('m', "2G"),
            ('M', "1:05"),
            ('n', ""),
            ('N', "n[1-2]"),
            ('o', "/home/alice/train.sh"),
            ('O', "0"),
            ('p', "0.99998474144376"),
            ('P', "gpu"),
            ('q', "(null)"),
            ('Q', "4294901760"),
            ('r', "None"),
            ('R', "n[1-2]"),
            ('s', ""),
            ('S', "2026-11-30T14:57:00"),
            ('t', "R"),
            ('T', "RUNNING"),
            ('u', "alice"),
            ('U', "1000"),
            ('v', "(null)"),
            ('V', "2026-11-30T14:56:25"),
            ('w', "(null)"),
            ('W', "(null)"),
            ('x', ""),
            ('X', "N/A"),
            ('y', "0"),
            ('Y', "(null)"),
            ('z', "*:*:*"),
            ('Z', "/home/alice"),
        ];
        assert_eq!(expected.len(), 52);
        for (letter, want) in expected {
            let field = JobField::from_letter(letter).unwrap();
            assert_eq!(text(field, &job), want, "%{letter}");
        }
    }

    #[test]
    fn pending_job_placeholders() {
        let job = pending();
        let cases = [
            ('B', "n/a"),
            ('C', "2"),
            ('D', "1"),
            ('e', "N/A"),
            ('l', "UNLIMITED"),
            ('L', "UNLIMITED"),
            ('M', "0:00"),
            ('N', ""),
            ('p', "0.00000002328306"),
            ('R', "(Resources)"),
            ('S', "N/A"),
            ('t', "PD"),
        ];
        for (letter, want) in cases {
            assert_eq!(
                text(JobField::from_letter(letter).unwrap(), &job),
                want,
                "%{letter}"
            );
        }
    }

    #[test]
    fn end_time_of_unlimited_running_job_is_none() {
        let mut job = running();
        job.time_limit_min = None;
        job.end_time = Some(super::super::test_records::NOW + 10);
        assert_eq!(text(JobField::EndTime, &job), "NONE");
    }

    #[test]
    fn reason_list_of_failed_and_completing_jobs() {
        let mut job = running();
        job.state = crate::model::states::JobBaseState::Failed;
        job.reason = crate::model::states::JobReason::FailExitCode;
        assert_eq!(text(JobField::ReasonList, &job), "(NonZeroExitCode)");
        job.completing = true;
        assert_eq!(text(JobField::ReasonList, &job), "n[1-2]");
        assert_eq!(text(JobField::StateCompact, &job), "CG");
        assert_eq!(text(JobField::State, &job), "COMPLETING");
    }

    #[test]
    fn long_names_cover_their_letters() {
        let pairs = [
            ("jobid", 'A'),
            ("jobarrayid", 'i'),
            ("name", 'j'),
            ("state", 'T'),
            ("statecompact", 't'),
            ("reason", 'r'),
            ("reasonlist", 'R'),
            ("numcpus", 'C'),
            ("numnodes", 'D'),
            ("timelimit", 'l'),
            ("timeused", 'M'),
            ("nodelist", 'N'),
            ("username", 'u'),
            ("partition", 'P'),
            ("schednodes", 'Y'),
            ("workdir", 'Z'),
        ];
        for (name, letter) in pairs {
            assert_eq!(
                JobField::from_name(name),
                JobField::from_letter(letter),
                "{name}"
            );
        }
        assert_eq!(JobField::from_name("numtasks"), Some(JobField::NumTasks));
        assert_eq!(JobField::from_name("numtask"), Some(JobField::NumTasks));
        assert_eq!(JobField::from_name("bogus"), None);
    }

    #[test]
    fn long_only_fields() {
        let job = running();
        let cases = [
            ("accruetime", "2026-11-30T14:56:25"),
            ("allocnodes", "login1"),
            ("allocsid", "77"),
            ("batchflag", "1"),
            ("cluster", "c1"),
            ("cpus-per-task", "1"),
            ("exit_code", "0"),
            ("numtasks", "4"),
            ("pendingtime", "35"),
            ("requeue", "1"),
            ("stdout", "/home/alice/slurm-42.out"),
            ("stderr", "/home/alice/slurm-42.out"),
            ("stdin", "/dev/null"),
            ("tres-alloc", "cpu=4,mem=8G,node=2,billing=4"),
            ("siblingsviableraw", "NA"),
        ];
        for (name, want) in cases {
            assert_eq!(
                text(JobField::from_name(name).unwrap(), &job),
                want,
                "{name}"
            );
        }
        assert_eq!(
            JobField::SiblingsViableRaw.header().text,
            "VIALBLE_SIBLINGS_RAW"
        );
    }
}
