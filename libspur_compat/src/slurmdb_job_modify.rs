//! `slurmdb_job_modify`: an edit of jobs' accounting records (what `sacctmgr modify job` sends slurmdbd): the
//! record's `derived_ec` (unless `NO_VAL`), `derived_es` (sacct's `Comment`), `admin_comment`, `system_comment`
//! and `wckey` (each unless NULL), on the jobs the condition's step list, user ids and accounts select.
//!
//! As with slurmdbd the answer comes at once — one `JOBID submitted at TIME` string per job changed, an empty list
//! (and libslurm's log line) when nothing was to be set or nothing matched, NULL with errno when the caller may
//! not make the edit — but the change is only made when the caller commits the connection
//! (`slurmdb_connection_commit(conn, 1)`, slurmdb_conn.rs); rolling back or closing drops it. The controller
//! checks the edit again when it applies it (controller/src/state/job_edit.rs, the same function).

use std::ffi::{c_char, c_void};

use slurm_headers::{slurm_selected_step_t, slurmdb_job_cond_t, slurmdb_job_rec_t, List};
use spur_core::model::job_edit::{JobEditCond, JobEditRequest, JobEdits};
use spur_core::wire::api::{ControlRequest, Query, QueryReply, SlurmErrno};

use crate::client;
use crate::ffi::{self, c_string, guard, opt_str, NO_VAL};
use crate::slurmdb_jobs::string_list;

const PLUGIN: &str = "accounting_storage/slurmdbd: acct_storage_p_modify_job";

/// # Safety
/// `cond` is a valid condition whose lists are NULL or hold what slurmdb.h says.
unsafe fn edit_cond(cond: &slurmdb_job_cond_t) -> JobEditCond {
    let mut out = JobEditCond::default();
    // SAFETY: the step list is NULL or holds slurm_selected_step_t records.
    unsafe {
        if !cond.step_list.is_null() {
            crate::list::for_each(cond.step_list, |item| {
                let s = &*(item as *const slurm_selected_step_t);
                out.job_ids.push(s.step_id.job_id);
            });
        }
    }
    // SAFETY: these lists hold strings.
    let (users, accounts) = unsafe { (string_list(cond.userid_list), string_list(cond.acct_list)) };
    out.user_ids = users.iter().filter_map(|u| u.trim().parse().ok()).collect();
    out.accounts = accounts.iter().map(|a| a.to_ascii_lowercase()).collect();
    out
}

/// # Safety
/// `rec`'s strings are NULL or NUL-terminated.
unsafe fn edits(rec: &slurmdb_job_rec_t) -> JobEdits {
    // SAFETY: the caller's contract.
    let text = |p: *mut c_char| unsafe { opt_str(p) }.map(|s| s.into_owned());
    JobEdits {
        derived_ec: (rec.derived_ec != NO_VAL).then_some(rec.derived_ec),
        derived_ec_before_end: false,
        comment: text(rec.derived_es),
        admin_comment: text(rec.admin_comment),
        system_comment: text(rec.system_comment),
        wckey: text(rec.wckey),
    }
}

/// `JOBID submitted at TIME`, the time as `slurm_make_time_str` writes it.
fn job_line(job_id: u32, submit: i64) -> String {
    let mut buf = [0 as c_char; 32];
    let mut t: libc::time_t = submit;
    // SAFETY: a valid time and a buffer of the length given.
    unsafe { crate::time_strings::slurm_make_time_str(&mut t, buf.as_mut_ptr(), buf.len() as i32) };
    // SAFETY: slurm_make_time_str NUL-terminates within the buffer.
    let time = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
    format!("{job_id} submitted at {time}")
}

/// # Safety
/// `job_cond` is NULL or a valid condition; `job` NULL or a valid record.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_job_modify(
    db_conn: *mut c_void,
    job_cond: *mut slurmdb_job_cond_t,
    job: *mut slurmdb_job_rec_t,
) -> List {
    guard("slurmdb_job_modify", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let (Some(cond), Some(rec)) = (unsafe { job_cond.as_ref() }, unsafe { job.as_ref() })
        else {
            // slurmdbd's "we need something to change".
            ffi::set_errno(ffi::SLURM_ERROR);
            return std::ptr::null_mut();
        };
        // SAFETY: as above.
        let request = unsafe {
            JobEditRequest {
                cond: edit_cond(cond),
                set: edits(rec),
            }
        };
        let result = match client::query(&Query::JobRecordEdit {
            request: request.clone(),
        }) {
            Ok(QueryReply::JobRecordEdit { result }) => result,
            Ok(_) => {
                ffi::set_errno(ffi::SLURM_ERROR);
                return std::ptr::null_mut();
            }
            Err(e) => {
                ffi::set_errno(e.errno);
                return std::ptr::null_mut();
            }
        };
        let edited = match result {
            Ok(edited) => edited,
            Err(e) if e.errno == SlurmErrno::NoChangeInData => {
                let comment = e.detail.as_deref().unwrap_or(
                    "Request didn't affect anything or your user doesn't have privilege to perform this action",
                );
                ffi::log_plain(&format!(
                    "{}: {PLUGIN}: {comment}",
                    crate::submit::program_name()
                ));
                return crate::list::create(Some(libc::free));
            }
            Err(e) => {
                let comment = match e.errno {
                    SlurmErrno::AccessDenied => {
                        "Your user doesn't have privilege to perform this action"
                    }
                    SlurmErrno::Error => "Something was wrong with your query",
                    other => other.text(),
                };
                // slurmdbd's comment, logged by libslurm without the plugin's prefix its info line has.
                ffi::log_plain(&format!(
                    "{}: error: {comment}",
                    crate::submit::program_name()
                ));
                ffi::set_errno(e.errno.code());
                return std::ptr::null_mut();
            }
        };
        let change = ControlRequest::ModifyJobRecords { request };
        if !crate::slurmdb_conn::stage(db_conn, change.clone()) {
            // Not a connection of ours (NULL, or a caller's own pointer): nothing could commit it later.
            if let Err(e) = client::control(&change) {
                ffi::set_errno(e.errno);
                return std::ptr::null_mut();
            }
        }
        let list = crate::list::create(Some(libc::free));
        for job in &edited {
            let p = c_string(&job_line(job.job_id, job.submit));
            if !p.is_null() {
                // SAFETY: a live list made above; it owns the string.
                unsafe { crate::list::append(list, p as *mut c_void) };
            }
        }
        list
    })
}
