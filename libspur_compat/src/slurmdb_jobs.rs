//! `slurmdb_jobs_get`: the job records slurmdbd answers for a `slurmdb_job_cond_t`, made from the controller's
//! accounting (docs/accounting.md, the records `sacct` reads), with their steps (batch, extern, srun steps) as
//! `slurmdb_step_rec_t`s. TRES strings are written as slurmdbd writes them (`1=2,2=1000,4=1`: TRES ids, memory
//! in MB). Spur samples no usage, so CPU times and step statistics are zero or NULL.

use std::ffi::{c_char, c_void};

use slurm_headers::{
    slurm_selected_step_t, slurmdb_job_cond_t, slurmdb_job_rec_t, slurmdb_step_rec_t, List,
};
use spur_core::grammar::values::stepid::StepId;
use spur_core::model::accounting::{Filter, JobAccounting, Row, RowKind};
use spur_core::model::assoc::AcctDb;
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{Query, QueryReply};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc, c_string, guard, opt_str, INFINITE, NO_VAL};
use crate::slurmdb_free::{slurmdb_destroy_job_rec, slurmdb_destroy_step_rec};

/// `JOBCOND_FLAG_NO_STEP` and `JOBCOND_FLAG_NO_TRUNC` of `<slurm/slurmdb.h>`.
const JOBCOND_FLAG_NO_STEP: u32 = 1 << 1;
const JOBCOND_FLAG_NO_TRUNC: u32 = 1 << 2;
/// Slurm's reserved step ids.
/// `SLURMDB_JOB_FLAG_*`: a condition's `db_flags` of `NOTSET` selects any job, `NONE` (a zeroed condition) only
/// jobs without flags, others the jobs with one of those bits. Spur does not record which scheduler started a
/// job, so a started job has `SCHED | START_R` (what slurmdbd records for jobs the main scheduler starts).
const SLURMDB_JOB_FLAG_NOTSET: u32 = 1 << 0;
const SLURMDB_JOB_FLAG_SCHED: u32 = 1 << 2;
const SLURMDB_JOB_FLAG_START_R: u32 = 1 << 4;
const SLURM_BATCH_SCRIPT: u32 = 0xffff_fffb;
const SLURM_EXTERN_CONT: u32 = 0xffff_fffc;

/// The strings of a caller's `List` of `char *`.
///
/// # Safety
/// `l` is NULL or a live list of NUL-terminated strings.
pub(crate) unsafe fn string_list(l: List) -> Vec<String> {
    let mut out = Vec::new();
    // An absent list is no filter (and not the EINVAL a NULL list gets from the list functions).
    if l.is_null() {
        return out;
    }
    // SAFETY: the caller's contract.
    unsafe {
        crate::list::for_each(l, |item| {
            if let Some(s) = opt_str(item as *const c_char) {
                out.push(s.into_owned());
            }
        })
    };
    out
}

/// The TRES ids of the cluster: the eight defaults are 1 to 8, configured ones count from 1001 as slurmdbd
/// numbers them.
pub(crate) fn tres_ids() -> Vec<(String, u32)> {
    let conf = client::load_conf();
    let names = crate::accounting::tres_names(
        conf.as_ref()
            .and_then(|c| c.get_str("AccountingStorageTRES")),
    );
    names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let i = i as u32;
            let id = if i < 8 { i + 1 } else { 1001 + (i - 8) };
            (name, id)
        })
        .collect()
}

/// A count as the TRES string writes it; memory (`500M`, `2G`) becomes MB as slurmdbd stores it.
fn tres_count(name: &str, value: &str) -> Option<u64> {
    if name != "mem" {
        return value.parse().ok();
    }
    let (digits, unit) = match value.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((at, _)) => value.split_at(at),
        None => (value, "M"),
    };
    let n: f64 = digits.parse().ok()?;
    let factor = match unit.to_ascii_uppercase().as_str() {
        "K" => 1.0 / 1024.0,
        "M" => 1.0,
        "G" => 1024.0,
        "T" => 1024.0 * 1024.0,
        _ => return None,
    };
    Some((n * factor).round() as u64)
}

/// `cpu=2,mem=1G,node=1` as slurmdbd keeps it: `1=2,2=1024,4=1`, by id; TRES the cluster does not track are left
/// out, as slurmctld leaves them out.
pub(crate) fn tres_by_id(text: &str, ids: &[(String, u32)]) -> String {
    let mut pairs: Vec<(u32, u64)> = text
        .split(',')
        .filter_map(|item| {
            let (name, value) = item.split_once('=')?;
            let id = ids.iter().find(|(n, _)| n == name)?.1;
            Some((id, tres_count(name, value)?))
        })
        .collect();
    pairs.sort_unstable();
    pairs.dedup_by_key(|p| p.0);
    pairs
        .iter()
        .map(|(id, n)| format!("{id}={n}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The selection a condition asks for, in sacct's terms (which the controller applies).
///
/// # Safety
/// `cond` is NULL or a valid condition whose lists hold what slurmdb.h says.
unsafe fn filter_of(cond: *const slurmdb_job_cond_t) -> Filter {
    let mut filter = Filter::default();
    if cond.is_null() {
        return filter;
    }
    // SAFETY: the caller's contract.
    let c = unsafe { &*cond };
    // SAFETY: the step list is NULL (skipped, leaving errno alone) or holds slurm_selected_step_t records.
    unsafe {
        if !c.step_list.is_null() {
            crate::list::for_each(c.step_list, |item| {
                let s = &*(item as *const slurm_selected_step_t);
                filter.jobs.push(StepId {
                    job: s.step_id.job_id,
                    array_task: (s.array_task_id != NO_VAL).then_some(s.array_task_id),
                    het_offset: None,
                    step: None,
                    step_het_comp: None,
                });
            })
        }
    };
    // SAFETY: these lists hold strings.
    let users = unsafe { string_list(c.userid_list) };
    if !users.is_empty() {
        filter.users = Some(users.iter().filter_map(|u| u.trim().parse().ok()).collect());
    }
    // SAFETY: as above.
    unsafe {
        filter.accounts = string_list(c.acct_list)
            .into_iter()
            .map(|a| a.to_ascii_lowercase())
            .collect();
        filter.partitions = string_list(c.partition_list);
        filter.names = string_list(c.jobname_list);
        filter.states = string_list(c.state_list)
            .iter()
            .filter_map(|s| s.trim().parse::<u32>().ok())
            .filter_map(base_state)
            .collect();
    }
    if c.usage_start != 0 || c.usage_end != 0 {
        let end = if c.usage_end == 0 {
            ffi::now()
        } else {
            c.usage_end
        };
        filter.window = Some((c.usage_start, end));
    }
    filter.allocations = c.flags & JOBCOND_FLAG_NO_STEP != 0;
    filter
}

fn base_state(n: u32) -> Option<JobBaseState> {
    use JobBaseState::*;
    [
        Pending,
        Running,
        Suspended,
        Completed,
        Cancelled,
        Failed,
        Timeout,
        NodeFail,
        Preempted,
        BootFail,
        Deadline,
        OutOfMemory,
    ]
    .into_iter()
    .find(|s| *s as u32 == n)
}

/// What one query needs besides the records.
struct Context {
    cluster: String,
    db: AcctDb,
    tres: Vec<(String, u32)>,
    /// The window to clamp times to (without `JOBCOND_FLAG_NO_TRUNC`), as slurmdbd reports usage in it.
    truncate: Option<(i64, i64)>,
}

/// Slurm's wait status: exit code in the high byte, signal in the low bits.
fn wait_status(code: u32, signal: u32) -> u32 {
    ((code & 0xff) << 8) | (signal & 0x7f)
}

fn clamp(ctx: &Context, start: Option<i64>, end: Option<i64>) -> (i64, i64) {
    let (mut start, mut end) = (start.unwrap_or(0), end.unwrap_or(0));
    if let Some((from, to)) = ctx.truncate {
        if start != 0 && start < from {
            start = from;
        }
        if end == 0 || end > to {
            end = to;
        }
        if start == 0 {
            start = end;
        }
    }
    (start, end)
}

/// The association id slurmdbd would report: Spur numbers associations by their place in the list from 1.
fn assoc_id(db: &AcctDb, job: &JobAccounting) -> u32 {
    let account = job.account_shown();
    db.assocs
        .iter()
        .position(|a| {
            a.account == account
                && a.user.as_deref() == Some(job.user_name.as_str())
                && a.partition.as_ref().is_none_or(|p| *p == job.partition)
        })
        .map_or(0, |i| i as u32 + 1)
}

fn job_flags(job: &JobAccounting) -> u32 {
    if job.start.is_some() {
        SLURMDB_JOB_FLAG_SCHED | SLURMDB_JOB_FLAG_START_R
    } else {
        0
    }
}

/// Whether the condition's `db_flags` select the job.
fn flags_select(db_flags: u32, job: &JobAccounting) -> bool {
    match db_flags {
        SLURMDB_JOB_FLAG_NOTSET => true,
        0 => job_flags(job) == 0,
        bits => job_flags(job) & bits != 0,
    }
}

fn step_record(
    ctx: &Context,
    job: *mut slurmdb_job_rec_t,
    row: &Row<'_>,
) -> *mut slurmdb_step_rec_t {
    let step = c_calloc::<slurmdb_step_rec_t>(1);
    if step.is_null() {
        return step;
    }
    let step_id = match row.kind {
        RowKind::Batch => SLURM_BATCH_SCRIPT,
        RowKind::Extern => SLURM_EXTERN_CONT,
        RowKind::Step(n) => n,
        RowKind::Job => NO_VAL,
    };
    let (start, end) = clamp(ctx, row.start, row.end);
    // SAFETY: a fresh zeroed record; every string is malloc'd and owned by it.
    unsafe {
        let s = &mut *step;
        s.job_ptr = job;
        s.step_id.job_id = row.job.job_id;
        s.step_id.step_id = step_id;
        s.step_id.step_het_comp = NO_VAL;
        s.stepname = c_string(row.name);
        s.state = row.state as u32;
        s.start = start;
        s.end = end;
        s.elapsed = u32::try_from(row.elapsed_secs.max(0)).unwrap_or(u32::MAX);
        s.exitcode = wait_status(row.exit_code, row.exit_signal) as i32;
        s.nnodes = row.nodes;
        s.nodes = c_string(&row.node_list);
        s.ntasks = row.tasks.unwrap_or(row.nodes);
        s.requid = row.job.cancelled_by.unwrap_or(INFINITE);
        s.tres_alloc_str = c_string(&tres_by_id(
            &format!(
                "cpu={},mem={}M,node={}",
                row.cpus,
                row.job.mem_per_node_mb * u64::from(row.nodes),
                row.nodes
            ),
            &ctx.tres,
        ));
        s.task_dist = 0;
        s.suspended = 0;
    }
    step
}

fn job_record(ctx: &Context, job: &JobAccounting, with_steps: bool) -> *mut slurmdb_job_rec_t {
    let rec = c_calloc::<slurmdb_job_rec_t>(1);
    if rec.is_null() {
        return rec;
    }
    let rows = job.rows();
    let Some(first) = rows.first() else {
        return rec;
    };
    let (start, end) = clamp(ctx, job.start, job.end);
    let account = job.account_shown();
    // SAFETY: a fresh zeroed record; every string is malloc'd and owned by it, the step list frees its steps.
    unsafe {
        let r = &mut *rec;
        r.account = ffi::c_opt_string((!account.is_empty()).then_some(account));
        r.alloc_nodes = if job.start.is_some() { job.nodes } else { 0 };
        r.array_job_id = job.array_job_id.unwrap_or(0);
        r.array_task_id = job.array_task_id.unwrap_or(NO_VAL);
        r.associd = assoc_id(&ctx.db, job);
        r.cluster = c_string(&ctx.cluster);
        r.elapsed = u32::try_from(job.elapsed_secs.max(0)).unwrap_or(u32::MAX);
        r.eligible = job.eligible.unwrap_or(0);
        r.start = start;
        r.end = end;
        r.exitcode = wait_status(first.exit_code, first.exit_signal);
        r.flags = job_flags(job);
        r.gid = job.group_id;
        r.het_job_id = 0;
        r.het_job_offset = NO_VAL;
        r.jobid = job.job_id;
        r.jobname = c_string(&job.name);
        r.nodes = c_string(if job.node_list.is_empty() {
            "None assigned"
        } else {
            &job.node_list
        });
        r.partition = c_string(&job.partition);
        r.priority = job.priority;
        r.qosid = job
            .qos
            .as_deref()
            .and_then(|q| ctx.db.qos.iter().find(|x| x.name == q))
            .map_or(0, |q| q.id);
        r.req_cpus = job.cpus;
        r.req_mem = job.mem_per_node_mb;
        r.requid = job.cancelled_by.unwrap_or(INFINITE);
        r.state = job.state as u32;
        r.submit = job.submit;
        r.timelimit = job.time_limit_min.unwrap_or(INFINITE);
        r.tres_alloc_str = c_string(&tres_by_id(&job.alloc_tres, &ctx.tres));
        r.tres_req_str = c_string(&tres_by_id(&job.req_tres, &ctx.tres));
        r.uid = job.user_id;
        r.user = c_string(&job.user_name);
        r.work_dir = c_string(&job.work_dir);
        // What `slurmdb_job_modify` / `sacctmgr modify job` set.
        let edits = &job.edits;
        if let Some(ec) = edits.derived_ec {
            r.derived_ec = ec;
        }
        r.derived_es = ffi::c_opt_string(edits.comment.as_deref());
        r.admin_comment = ffi::c_opt_string(edits.admin_comment.as_deref());
        r.system_comment = ffi::c_opt_string(edits.system_comment.as_deref());
        r.wckey = ffi::c_opt_string(edits.wckey.as_deref());
        r.steps = crate::list::create(Some(slurmdb_destroy_step_rec));
        if with_steps {
            for row in rows.iter().skip(1) {
                let step = step_record(ctx, rec, row);
                if !step.is_null() {
                    crate::list::append(r.steps, step as *mut c_void);
                }
            }
        }
    }
    rec
}

fn fetch(filter: &Filter) -> Result<(Vec<JobAccounting>, String, AcctDb), CallError> {
    let query = Query::Accounting {
        job_ids: (!filter.jobs.is_empty()).then(|| filter.jobs.iter().map(|id| id.job).collect()),
        user_ids: filter.users.clone(),
        select: Some(filter.clone()),
    };
    let (records, cluster) = match client::query(&query)? {
        QueryReply::Accounting {
            records, cluster, ..
        } => (records, cluster),
        _ => return Err(CallError::new(ffi::SLURM_ERROR)),
    };
    let db = match client::query(&Query::AcctDb)? {
        QueryReply::AcctDb { db } => db,
        _ => return Err(CallError::new(ffi::SLURM_ERROR)),
    };
    Ok((records, cluster, db))
}

/// The job records a condition selects, ordered by job id as slurmdbd orders them, with the accounting entities
/// they were matched against; `ignore_accounts` leaves the condition's accounts out (the job size report
/// selects by the association tree instead). Err is the errno.
///
/// # Safety
/// `job_cond` is NULL or a valid condition.
pub(crate) unsafe fn load_jobs(
    job_cond: *const slurmdb_job_cond_t,
    ignore_accounts: bool,
    db_flags_override: Option<u32>,
) -> Result<(Vec<*mut slurmdb_job_rec_t>, AcctDb), i32> {
    // SAFETY: the caller's contract.
    let mut filter = unsafe { filter_of(job_cond) };
    if ignore_accounts {
        filter.accounts.clear();
    }
    let (mut records, cluster, db) = fetch(&filter).map_err(|e| e.errno)?;
    // SAFETY: the caller's contract: NULL or a valid condition.
    let cond = unsafe { job_cond.as_ref() };
    let db_flags = db_flags_override
        .or(cond.map(|c| c.db_flags))
        .unwrap_or(SLURMDB_JOB_FLAG_NOTSET);
    records.retain(|j| filter.selects(j) && flags_select(db_flags, j));
    records.sort_by_key(|j| (j.job_id, j.submit));
    let flags = cond.map_or(0, |c| c.flags);
    // Without JOBCOND_FLAG_NO_TRUNC slurmdbd reports times within the window (its end at most now).
    let truncate = cond
        .filter(|_| flags & JOBCOND_FLAG_NO_TRUNC == 0)
        .map(|c| {
            let now = ffi::now();
            let to = if c.usage_end == 0 || c.usage_end > now {
                now
            } else {
                c.usage_end
            };
            (c.usage_start, to)
        });
    let ctx = Context {
        cluster,
        db,
        tres: tres_ids(),
        truncate,
    };
    let recs = records
        .iter()
        .map(|job| job_record(&ctx, job, flags & JOBCOND_FLAG_NO_STEP == 0))
        .filter(|rec| !rec.is_null())
        .collect();
    Ok((recs, ctx.db))
}

/// The jobs of the condition, ordered by job id as slurmdbd orders them, each with its steps unless
/// `JOBCOND_FLAG_NO_STEP`; NULL with errno when the controller cannot be asked.
///
/// # Safety
/// `job_cond` is NULL or a valid condition.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_jobs_get(
    _db_conn: *mut c_void,
    job_cond: *mut slurmdb_job_cond_t,
) -> List {
    guard("slurmdb_jobs_get", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let recs = match unsafe { load_jobs(job_cond, false, None) } {
            Ok((recs, _)) => recs,
            Err(errno) => {
                ffi::set_errno(errno);
                return std::ptr::null_mut();
            }
        };
        let list = crate::list::create(Some(slurmdb_destroy_job_rec));
        for rec in recs {
            // SAFETY: a live list made above; it owns the record from here.
            unsafe { crate::list::append(list, rec as *mut c_void) };
        }
        list
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tres_strings_are_written_by_id_with_memory_in_megabytes() {
        let ids: Vec<(String, u32)> = ["cpu", "mem", "energy", "node", "billing"]
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), i as u32 + 1))
            .chain([("gres/gpu".to_string(), 1001)])
            .collect();
        assert_eq!(
            tres_by_id("cpu=2,mem=1G,node=1,billing=2,gres/gpu=1", &ids),
            "1=2,2=1024,4=1,5=2,1001=1"
        );
        assert_eq!(tres_by_id("mem=500M,cpu=1,license/x=1", &ids), "1=1,2=500");
        assert_eq!(tres_by_id("", &ids), "");
    }

    #[test]
    fn states_by_number_and_wait_status() {
        assert_eq!(base_state(3), Some(JobBaseState::Completed));
        assert_eq!(base_state(99), None);
        assert_eq!(wait_status(2, 0), 512);
        assert_eq!(wait_status(0, 9), 9);
    }
}
