//! The usage reports (`slurmdb_report_cluster_account_by_user`, `_cluster_user_by_account`, `_user_top_usage`,
//! what `sreport cluster AccountUtilizationByUser`, `UserUtilizationByAccount` and `user TopUsage` print). libslurm
//! builds them from slurmdbd's hourly usage rollups of the cluster and its associations, and leaves out a cluster
//! with no rollup in the window: that is every cluster a fresh slurmdbd knows, and always Spur's, which keeps job
//! records but no rollups (docs/accounting.md). So, as from slurmdbd before its first rollup, each is an empty
//! list of `slurmdb_report_cluster_rec_t` once the controller answered; NULL with errno and libslurm's line on
//! stderr when it cannot be asked.

use std::ffi::c_void;

use slurm_headers::{
    slurmdb_assoc_cond_t, slurmdb_report_assoc_rec_t, slurmdb_report_cluster_rec_t,
    slurmdb_report_user_rec_t, slurmdb_user_cond_t, List,
};

use crate::client;
use crate::ffi::{self, c_free, guard};
use crate::slurmdb_init::{free_lists, free_strings};

/// An empty report once the controller answered; otherwise NULL, errno and libslurm's complaint.
fn report(complaint: &str) -> List {
    match client::ping() {
        Ok(()) => crate::list::create(Some(slurmdb_destroy_report_cluster_rec)),
        Err(e) => {
            ffi::log_plain(complaint);
            ffi::set_errno(e.errno);
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// `assoc_cond` is NULL or a valid condition (it is not changed).
#[no_mangle]
pub unsafe extern "C" fn slurmdb_report_cluster_account_by_user(
    _db_conn: *mut c_void,
    _assoc_cond: *mut slurmdb_assoc_cond_t,
) -> List {
    guard(
        "slurmdb_report_cluster_account_by_user",
        std::ptr::null_mut(),
        || report("slurmdb_report_cluster_account_by_user: Problem with cluster query."),
    )
}

/// # Safety
/// `assoc_cond` is NULL or a valid condition (it is not changed).
#[no_mangle]
pub unsafe extern "C" fn slurmdb_report_cluster_user_by_account(
    _db_conn: *mut c_void,
    _assoc_cond: *mut slurmdb_assoc_cond_t,
) -> List {
    guard(
        "slurmdb_report_cluster_user_by_account",
        std::ptr::null_mut(),
        || report("slurmdb_report_cluster_user_by_account: Problem with cluster query."),
    )
}

/// # Safety
/// `user_cond` is NULL or a valid condition (it is not changed).
#[no_mangle]
pub unsafe extern "C" fn slurmdb_report_user_top_usage(
    _db_conn: *mut c_void,
    _user_cond: *mut slurmdb_user_cond_t,
    _group_accounts: bool,
) -> List {
    guard(
        "slurmdb_report_user_top_usage",
        std::ptr::null_mut(),
        || report(" Problem with user query."),
    )
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_report_assoc_rec_t` whose members are live or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_report_assoc_rec(object: *mut c_void) {
    guard("slurmdb_destroy_report_assoc_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { (object as *mut slurmdb_report_assoc_rec_t).as_mut() } {
            // SAFETY: the record's own members, then the record.
            unsafe {
                free_strings(&mut [&mut r.acct, &mut r.cluster, &mut r.parent_acct, &mut r.user]);
                free_lists(&mut [&mut r.tres_list]);
                c_free(object);
            }
        }
    })
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_report_user_rec_t` whose members are live or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_report_user_rec(object: *mut c_void) {
    guard("slurmdb_destroy_report_user_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { (object as *mut slurmdb_report_user_rec_t).as_mut() } {
            // SAFETY: the record's own members, then the record.
            unsafe {
                free_strings(&mut [&mut r.acct, &mut r.name]);
                free_lists(&mut [&mut r.acct_list, &mut r.assoc_list, &mut r.tres_list]);
                c_free(object);
            }
        }
    })
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_report_cluster_rec_t` whose members are live or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_report_cluster_rec(object: *mut c_void) {
    guard("slurmdb_destroy_report_cluster_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { (object as *mut slurmdb_report_cluster_rec_t).as_mut() } {
            // SAFETY: the record's own members, then the record.
            unsafe {
                free_strings(&mut [&mut r.name]);
                free_lists(&mut [
                    &mut r.accounting_list,
                    &mut r.assoc_list,
                    &mut r.tres_list,
                    &mut r.user_list,
                ]);
                c_free(object);
            }
        }
    })
}
