//! `sacct`'s table: Slurm 22.05's fields and their default widths, `name%N` widths (a name matches by prefix, as
//! sacct reads it), the `----` line, `-p`/`-P`, and what each field shows on a job's row and on its steps' rows.
//! Usage fields (`MaxRSS`, `TotalCPU`, `TRESUsageInMax`, ...) come from what the steps' supervisors measured
//! (`jobacct_gather`): a step's row shows its own figures, the job's row only the CPU times summed over its steps,
//! as sacct prints slurmdbd's records; a step without a measurement prints them empty.

use crate::model::accounting::{Row, RowKind};
use crate::model::states::JobBaseState;

use super::print_fields;
use super::time::{iso, long_minutes, long_secs};
use super::units;

/// Every field `sacct --helpformat` lists, in its order, with the default width (negative: left-justified).
const FIELDS: &[(&str, i32)] = &[
    ("Account", 10),
    ("AdminComment", 15),
    ("AllocCPUS", 10),
    ("AllocNodes", 10),
    ("AllocTRES", 10),
    ("AssocID", 10),
    ("AveCPU", 10),
    ("AveCPUFreq", 10),
    ("AveDiskRead", 14),
    ("AveDiskWrite", 14),
    ("AvePages", 10),
    ("AveRSS", 10),
    ("AveVMSize", 10),
    ("BlockID", 16),
    ("Cluster", 10),
    ("Comment", 14),
    ("Constraints", 19),
    ("ConsumedEnergy", 14),
    ("ConsumedEnergyRaw", 17),
    ("Container", 19),
    ("CPUTime", 10),
    ("CPUTimeRAW", 10),
    ("DBIndex", -10),
    ("DerivedExitCode", 15),
    ("Elapsed", 10),
    ("ElapsedRaw", 10),
    ("Eligible", 19),
    ("End", 19),
    ("ExitCode", 8),
    ("Flags", 19),
    ("GID", 6),
    ("Group", 9),
    ("JobID", -12),
    ("JobIDRaw", -12),
    ("JobName", 10),
    ("Layout", 9),
    ("MaxDiskRead", 12),
    ("MaxDiskReadNode", 15),
    ("MaxDiskReadTask", 15),
    ("MaxDiskWrite", 12),
    ("MaxDiskWriteNode", 16),
    ("MaxDiskWriteTask", 16),
    ("MaxPages", 8),
    ("MaxPagesNode", 12),
    ("MaxPagesTask", 14),
    ("MaxRSS", 10),
    ("MaxRSSNode", 10),
    ("MaxRSSTask", 10),
    ("MaxVMSize", 10),
    ("MaxVMSizeNode", 14),
    ("MaxVMSizeTask", 14),
    ("McsLabel", 12),
    ("MinCPU", 10),
    ("MinCPUNode", 10),
    ("MinCPUTask", 10),
    ("NCPUS", 10),
    ("NNodes", 8),
    ("NodeList", 15),
    ("NTasks", 8),
    ("Partition", 10),
    ("Priority", 10),
    ("QOS", 10),
    ("QOSRAW", 6),
    ("Reason", 22),
    ("ReqCPUFreq", 10),
    ("ReqCPUFreqGov", 13),
    ("ReqCPUFreqMax", 13),
    ("ReqCPUFreqMin", 13),
    ("ReqCPUS", 8),
    ("ReqMem", 10),
    ("ReqNodes", 8),
    ("ReqTRES", 10),
    ("Reservation", 20),
    ("ReservationId", 8),
    ("Reserved", 10),
    ("ResvCPU", 10),
    ("ResvCPURAW", 10),
    ("Start", 19),
    ("State", 10),
    ("Submit", 19),
    ("SubmitLine", 20),
    ("Suspended", 10),
    ("SystemComment", 15),
    ("SystemCPU", 10),
    ("Timelimit", 10),
    ("TimelimitRaw", 10),
    ("TotalCPU", 10),
    ("TRESUsageInAve", 14),
    ("TRESUsageInMax", 14),
    ("TRESUsageInMaxNode", 18),
    ("TRESUsageInMaxTask", 18),
    ("TRESUsageInMin", 14),
    ("TRESUsageInMinNode", 18),
    ("TRESUsageInMinTask", 18),
    ("TRESUsageInTot", 14),
    ("TRESUsageOutAve", 15),
    ("TRESUsageOutMax", 15),
    ("TRESUsageOutMaxNode", 19),
    ("TRESUsageOutMaxTask", 19),
    ("TRESUsageOutMin", 15),
    ("TRESUsageOutMinNode", 19),
    ("TRESUsageOutMinTask", 19),
    ("TRESUsageOutTot", 15),
    ("UID", 6),
    ("User", 9),
    ("UserCPU", 10),
    ("WCKey", 10),
    ("WCKeyID", 10),
    ("WorkDir", 20),
];

/// The fields sacct prints without `-o`.
pub const DEFAULT_FORMAT: &str = "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode";

/// `-b`/`--brief`.
pub const BRIEF_FORMAT: &str = "JobID,State,ExitCode";

/// `-l`/`--long`.
pub const LONG_FORMAT: &str = "JobID,JobIDRaw,JobName,Partition,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,\
     MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,\
     AveCPU,NTasks,AllocCPUS,Elapsed,State,ExitCode,AveCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov,ReqMem,\
     ConsumedEnergy,MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,MaxDiskWriteNode,\
     MaxDiskWriteTask,AveDiskWrite,ReqTRES,AllocTRES,TRESUsageInAve,TRESUsageInMax,TRESUsageInMaxNode,\
     TRESUsageInMaxTask,TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutMax,\
     TRESUsageOutMaxNode,TRESUsageOutMaxTask,TRESUsageOutAve,TRESUsageOutTot";

pub use super::print_fields::{Column, Layout};

/// What the rows need besides the records: names of users and groups, the cluster, the clock's UTC offset.
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub utc_offset_secs: i32,
    pub cluster: String,
    pub users: std::collections::BTreeMap<u32, String>,
    pub groups: std::collections::BTreeMap<u32, String>,
    /// `--delimiter`: what separates `-p`/`-P` fields; `None` is `|` (an empty delimiter given is kept).
    pub delimiter: Option<String>,
    /// `--noconvert`: sizes in bytes, without units.
    pub no_convert: bool,
}

/// Parses `-o`'s list (`jobid,state%20`). A name matches the first field it is a prefix of (case-insensitive),
/// as sacct reads it; an explicit width is right-justified unless negative. The error is sacct's message.
pub fn parse_format(list: &str) -> Result<Vec<Column>, String> {
    list.split(',')
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (name, width) = match item.split_once('%') {
                Some((name, width)) => (name, Some(width.parse::<i32>().unwrap_or(0))),
                None => (item, None),
            };
            let &(canonical, default_width) = FIELDS
                .iter()
                .find(|(field, _)| field.eq_ignore_ascii_case(name))
                .or_else(|| {
                    FIELDS.iter().find(|(field, _)| {
                        !name.is_empty()
                            && field.len() >= name.len()
                            && field[..name.len()].eq_ignore_ascii_case(name)
                    })
                })
                .ok_or_else(|| format!("Invalid field requested: \"{name}\""))?;
            Ok(Column {
                name: canonical,
                width: width.unwrap_or(default_width),
            })
        })
        .collect()
}

/// `--helpformat`: the field names, four to a line.
pub fn help_format() -> String {
    print_fields::help_format(FIELDS)
}

/// The header and the dashes (`-n` prints neither).
pub fn header(columns: &[Column], layout: Layout, ctx: &Context) -> String {
    print_fields::header(columns, layout, delimiter(ctx))
}

/// One row's line.
pub fn line(row: &Row<'_>, columns: &[Column], layout: Layout, ctx: &Context) -> String {
    let values: Vec<String> = columns.iter().map(|c| value(c.name, row, ctx)).collect();
    print_fields::line(columns, &values, layout, delimiter(ctx))
}

/// A line of values already printed (`line` then `--units` applied to some of them).
pub fn join_line(columns: &[Column], values: &[String], layout: Layout, ctx: &Context) -> String {
    print_fields::line(columns, values, layout, delimiter(ctx))
}

/// `--delimiter`, `|` when not given.
fn delimiter(ctx: &Context) -> &str {
    ctx.delimiter.as_deref().unwrap_or("|")
}

/// The row's id: `12`, `12_3`, `12.batch`, `12_3.0`; `raw` uses the job's own id for array tasks.
fn id_text(row: &Row<'_>, raw: bool) -> String {
    let job = if raw {
        row.job.job_id.to_string()
    } else {
        row.job.id_text()
    };
    match row.kind {
        RowKind::Job => job,
        RowKind::Batch => format!("{job}.batch"),
        RowKind::Extern => format!("{job}.extern"),
        RowKind::Step(id) => format!("{job}.{id}"),
    }
}

/// `CANCELLED by 0` on a job's row when a user cancelled it; the state's name otherwise.
fn state_text(row: &Row<'_>) -> String {
    match (row.kind, row.state, row.job.cancelled_by) {
        (RowKind::Job, JobBaseState::Cancelled, Some(uid)) => format!("CANCELLED by {uid}"),
        _ => row.state.long_name().to_string(),
    }
}

/// A TRES string with its parts in name order, as slurmdbd hands them back.
fn sorted_tres(tres: &str) -> String {
    let mut parts: Vec<&str> = tres.split(',').filter(|p| !p.is_empty()).collect();
    parts.sort_by_key(|p| p.split('=').next().unwrap_or_default().to_string());
    parts.join(",")
}

/// A step's TRES: its CPUs, the job's memory on its nodes, its nodes.
fn step_tres(row: &Row<'_>) -> String {
    let mem = row.job.mem_per_node_mb * u64::from(row.nodes);
    units::tres(
        Some(row.cpus.into()),
        (mem > 0).then_some(mem),
        Some(row.nodes.into()),
        None,
    )
}

fn value(name: &str, row: &Row<'_>, ctx: &Context) -> String {
    let job = row.job;
    let is_job = row.kind == RowKind::Job;
    let job_only = |text: String| if is_job { text } else { String::new() };
    let never_ran = job.start.is_none();
    let time = |t: Option<i64>, none: &str| match t {
        Some(t) if t != 0 => iso(t, ctx.utc_offset_secs),
        _ => none.to_string(),
    };
    match name {
        "Account" => job.account_shown().to_string(),
        "AllocCPUS" | "NCPUS" | "ReqCPUS" => row.cpus.to_string(),
        "AllocNodes" => {
            if never_ran && is_job {
                "0".to_string()
            } else {
                row.nodes.to_string()
            }
        }
        "AllocTRES" if is_job => sorted_tres(&job.alloc_tres),
        "AllocTRES" => step_tres(row),
        "Cluster" => ctx.cluster.clone(),
        "CPUTime" => long_secs(row.elapsed_secs * i64::from(row.cpus)),
        "CPUTimeRAW" => (row.elapsed_secs * i64::from(row.cpus)).to_string(),
        "DerivedExitCode" => job_only({
            let (code, signal) = derived_exit(job);
            format!("{code}:{signal}")
        }),
        "Elapsed" => long_secs(row.elapsed_secs),
        "ElapsedRaw" => row.elapsed_secs.to_string(),
        "Eligible" if is_job => time(job.eligible.or(Some(job.submit)), "Unknown"),
        "Submit" if is_job => time(Some(job.submit), "Unknown"),
        // A step is submitted and eligible when it starts.
        "Eligible" | "Submit" => time(row.start, "Unknown"),
        // A job that ended without running: one that was eligible had its row written then, without a start,
        // and shows `None`; one never eligible (held) is written when it ends, starting then.
        "Start" if is_job && never_ran && job.is_finished() && job.eligible.is_some() => {
            "None".to_string()
        }
        "Start" if is_job && never_ran && job.is_finished() => time(job.end, "None"),
        "Start" => time(row.start, "Unknown"),
        "End" => time(row.end, "Unknown"),
        "ExitCode" => format!("{}:{}", row.exit_code, row.exit_signal),
        "GID" => job_only(job.group_id.to_string()),
        "Group" => job_only(
            ctx.groups
                .get(&job.group_id)
                .cloned()
                .unwrap_or_else(|| job.group_id.to_string()),
        ),
        "JobID" => id_text(row, false),
        "JobIDRaw" => id_text(row, true),
        "JobName" => row.name.to_string(),
        "NNodes" | "ReqNodes" => row.nodes.to_string(),
        "NodeList" if row.node_list.is_empty() => "None assigned".to_string(),
        "NodeList" => row.node_list.to_string(),
        "NTasks" => row.tasks.map(|t| t.to_string()).unwrap_or_default(),
        "Partition" => job_only(job.partition.clone()),
        "Priority" => job_only(job.priority.to_string()),
        "QOS" => job_only(job.qos.clone().unwrap_or_else(|| "normal".to_string())),
        "QOSRAW" => job_only("1".to_string()),
        "Reason" => job_only(reason_text(job).to_string()),
        "ReqMem" => job_only(
            units::tres_value(&job.req_tres, "mem")
                .map(units::mem_mb)
                .unwrap_or_else(|| mem_text(&job.req_tres)),
        ),
        "ReqTRES" => job_only(sorted_tres(&job.req_tres)),
        // No --cpu-freq is kept (NO_VAL), which Slurm's cpu_freq_to_string prints as `Unknown`, on every row.
        "ReqCPUFreqMin" | "ReqCPUFreqMax" | "ReqCPUFreqGov" => "Unknown".to_string(),
        "State" => state_text(row),
        "Timelimit" | "TimelimitRaw" if is_job && job.limit_from_partition => {
            "Partition_Limit".to_string()
        }
        "Timelimit" => job_only(long_minutes(job.time_limit_min)),
        "TimelimitRaw" => job_only(
            job.time_limit_min
                .map_or_else(|| "UNLIMITED".to_string(), |m| m.to_string()),
        ),
        "UID" => job_only(job.user_id.to_string()),
        "User" => job_only(
            ctx.users
                .get(&job.user_id)
                .cloned()
                .or_else(|| (!job.user_name.is_empty()).then(|| job.user_name.clone()))
                .unwrap_or_else(|| job.user_id.to_string()),
        ),
        "WorkDir" => job_only(job.work_dir.clone()),
        // Set by `sacctmgr modify job` (Spur records none of them from the job itself).
        "Comment" => job_only(job.edits.comment.clone().unwrap_or_default()),
        "AdminComment" => job_only(job.edits.admin_comment.clone().unwrap_or_default()),
        "SystemComment" => job_only(job.edits.system_comment.clone().unwrap_or_default()),
        "WCKey" => job_only(job.edits.wckey.clone().unwrap_or_default()),
        _ => usage_value(name, row, ctx).unwrap_or_default(),
    }
}

/// The usage fields: CPU times on every row (the job's sums its steps'), the rest on measured steps' rows.
fn usage_value(name: &str, row: &Row<'_>, ctx: &Context) -> Option<String> {
    use crate::model::step_acct::cpu_time_text;
    let (user, sys) = match (row.kind, row.usage) {
        (RowKind::Job, _) => row.job.cpu_us(),
        (_, Some(usage)) => (usage.user_cpu_us, usage.sys_cpu_us),
        (_, None) => return None,
    };
    match name {
        "TotalCPU" => return Some(cpu_time_text(user.saturating_add(sys))),
        "UserCPU" => return Some(cpu_time_text(user)),
        "SystemCPU" => return Some(cpu_time_text(sys)),
        _ => {}
    }
    if row.kind == RowKind::Job {
        // slurmctld starts the job's energy TRES at 0 when the first numbered step's accounting comes back with
        // its end (the batch step's does not count), so the job's row shows 0 from then on, else nothing.
        let measured_step = row.job.steps.iter().any(|s| s.usage.is_some());
        return match name {
            "ConsumedEnergy" | "ConsumedEnergyRaw" if measured_step => Some("0".to_string()),
            _ => None,
        };
    }
    let usage = row.usage?;
    if usage.totals.tasks == 0 {
        // No sample saw the step's processes (it ended within the first interval): slurmdbd keeps no figures,
        // only the energy (0) and the frequency (0).
        return match name {
            "AveCPUFreq" | "ConsumedEnergy" | "ConsumedEnergyRaw" => Some("0".to_string()),
            "TRESUsageInTot" | "TRESUsageInAve" | "TRESUsageOutTot" => Some("energy=0".to_string()),
            _ => None,
        };
    }
    let t = &usage.totals;
    let tasks = |pick: fn(&crate::model::step_usage::Figure) -> u32| {
        format!(
            "cpu={},fs/disk={},mem={},pages={},vmem={}",
            pick(&t.cpu_ms),
            pick(&t.read_bytes),
            pick(&t.rss_kib),
            pick(&t.pages),
            pick(&t.vmem_kib)
        )
    };
    match name {
        // No energy plugin: Slurm's record holds 0.
        "ConsumedEnergyRaw" => Some("0".to_string()),
        // sacct prints the task of every extreme as a number (sstat puts the CPU one through its time format).
        "TRESUsageInMaxTask" => Some(tasks(|f| f.max.task)),
        "TRESUsageInMinTask" => Some(tasks(|f| f.min.task)),
        _ => super::sstat::figure_value(name, &usage.totals, ctx.no_convert, true),
    }
}

/// slurmdbd keeps the reason a job waited for only when it was held back (a hold, a dependency, ...): waiting
/// for resources or priority, and the reasons a job ended with, show `None`.
pub fn reason_text(job: &crate::model::accounting::JobAccounting) -> &'static str {
    use crate::model::states::JobReason;
    match job.reason {
        JobReason::NoReason | JobReason::Resources | JobReason::Priority => "None",
        reason if job.state == JobBaseState::Pending => reason.name(),
        _ => "None",
    }
}

/// `mem=` of a TRES string as written (`mem=1G`), for strings that carry a unit.
fn mem_text(tres: &str) -> String {
    tres.split(',')
        .find_map(|p| p.strip_prefix("mem="))
        .unwrap_or_default()
        .to_string()
}

/// `DerivedExitCode`: the one `sacctmgr modify job` set, else the highest exit code among the job's steps, with
/// that step's signal.
fn derived_exit(job: &crate::model::accounting::JobAccounting) -> (u32, u32) {
    if let Some(status) = job.edits.derived_ec {
        return crate::model::job_edit::JobEdits::wait_status_parts(status);
    }
    job.steps
        .iter()
        .filter(|s| s.state != JobBaseState::Running)
        .map(|s| (s.exit_code, s.exit_signal))
        .max()
        .unwrap_or((0, 0))
}

#[cfg(test)]
#[path = "sacct_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "sacct_usage_tests.rs"]
mod usage_tests;
