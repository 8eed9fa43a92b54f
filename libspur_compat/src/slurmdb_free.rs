//! `slurmdb_destroy_*`: release a condition or record and everything it owns, as libslurm's do. The crate's
//! convention holds on both sides: what `slurmdb_*_get` returns and what a caller builds with `slurm_xcalloc`,
//! `slurm_xstrdup` and `slurm_list_create` are plain libc `malloc` memory, and each list frees its own items with
//! the destructor it was created with. Each takes `void *` (they are list destructors) and accepts NULL.

use std::ffi::c_void;

use slurm_headers::{
    slurmdb_assoc_cond_t, slurmdb_assoc_rec_t, slurmdb_cluster_cond_t, slurmdb_cluster_rec_t,
    slurmdb_coord_rec_t, slurmdb_event_cond_t, slurmdb_event_rec_t, slurmdb_job_cond_t,
    slurmdb_job_rec_t, slurmdb_qos_cond_t, slurmdb_qos_rec_t, slurmdb_reservation_cond_t,
    slurmdb_reservation_rec_t, slurmdb_stats_t, slurmdb_step_rec_t, slurmdb_tres_cond_t,
    slurmdb_tres_rec_t, slurmdb_user_cond_t, slurmdb_user_rec_t,
};

use crate::ffi::{c_free, guard};
use crate::slurmdb_init::{
    free_assoc, free_cluster, free_cluster_cond, free_lists, free_qos, free_strings,
    free_tres_cond, release,
};

/// Runs `members` on the record, then frees the record itself.
///
/// # Safety
/// `object` is NULL or a malloc'd `T` whose owned members are live malloc'd memory or NULL.
unsafe fn destroy<T>(name: &str, object: *mut c_void, members: unsafe fn(&mut T)) {
    guard(name, (), || {
        if object.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            members(&mut *(object as *mut T));
            c_free(object);
        }
    })
}

pub(crate) unsafe fn assoc_cond_members(c: &mut slurmdb_assoc_cond_t) {
    // SAFETY: the condition's own lists.
    unsafe {
        free_lists(&mut [
            &mut c.acct_list,
            &mut c.cluster_list,
            &mut c.def_qos_id_list,
            &mut c.format_list,
            &mut c.id_list,
            &mut c.parent_acct_list,
            &mut c.partition_list,
            &mut c.qos_list,
            &mut c.user_list,
        ])
    };
}

unsafe fn assoc_members(a: &mut slurmdb_assoc_rec_t) {
    // SAFETY: the record's own members; the usage block is never filled by this library and a caller's is one
    // allocation (its members are slurmctld-side data).
    unsafe {
        free_assoc(a);
        release(&mut a.usage);
    }
}

unsafe fn qos_members(q: &mut slurmdb_qos_rec_t) {
    // SAFETY: the record's own members: a preemption bitmap and usage block are single malloc'd blocks here
    // (this library never fills either).
    unsafe {
        free_qos(q);
        release(&mut q.preempt_bitstr);
        release(&mut q.usage);
    }
}

unsafe fn job_cond_members(c: &mut slurmdb_job_cond_t) {
    // SAFETY: the condition's own lists and string.
    unsafe {
        free_lists(&mut [
            &mut c.acct_list,
            &mut c.associd_list,
            &mut c.cluster_list,
            &mut c.constraint_list,
            &mut c.format_list,
            &mut c.groupid_list,
            &mut c.jobname_list,
            &mut c.partition_list,
            &mut c.qos_list,
            &mut c.reason_list,
            &mut c.resv_list,
            &mut c.resvid_list,
            &mut c.state_list,
            &mut c.step_list,
            &mut c.userid_list,
            &mut c.wckey_list,
        ]);
        release(&mut c.used_nodes);
    }
}

pub(crate) unsafe fn job_members(j: &mut slurmdb_job_rec_t) {
    // SAFETY: the record's own strings and step list (whose destructor frees the steps).
    unsafe {
        free_lists(&mut [&mut j.steps]);
        free_strings(&mut [
            &mut j.account,
            &mut j.admin_comment,
            &mut j.array_task_str,
            &mut j.blockid,
            &mut j.cluster,
            &mut j.constraints,
            &mut j.container,
            &mut j.derived_es,
            &mut j.env,
            &mut j.jobname,
            &mut j.mcs_label,
            &mut j.partition,
            &mut j.nodes,
            &mut j.resv_name,
            &mut j.script,
            &mut j.submit_line,
            &mut j.system_comment,
            &mut j.tres_alloc_str,
            &mut j.tres_req_str,
            &mut j.used_gres,
            &mut j.user,
            &mut j.wckey,
            &mut j.work_dir,
        ]);
    }
}

unsafe fn stats_members(s: &mut slurmdb_stats_t) {
    // SAFETY: the statistics' own strings.
    unsafe {
        free_strings(&mut [
            &mut s.tres_usage_in_ave,
            &mut s.tres_usage_in_max,
            &mut s.tres_usage_in_max_nodeid,
            &mut s.tres_usage_in_max_taskid,
            &mut s.tres_usage_in_min,
            &mut s.tres_usage_in_min_nodeid,
            &mut s.tres_usage_in_min_taskid,
            &mut s.tres_usage_in_tot,
            &mut s.tres_usage_out_ave,
            &mut s.tres_usage_out_max,
            &mut s.tres_usage_out_max_nodeid,
            &mut s.tres_usage_out_max_taskid,
            &mut s.tres_usage_out_min,
            &mut s.tres_usage_out_min_nodeid,
            &mut s.tres_usage_out_min_taskid,
            &mut s.tres_usage_out_tot,
        ])
    };
}

unsafe fn step_members(s: &mut slurmdb_step_rec_t) {
    // SAFETY: the step's own strings; `job_ptr` points back at its job, which is not the step's.
    unsafe {
        stats_members(&mut s.stats);
        free_strings(&mut [
            &mut s.container,
            &mut s.nodes,
            &mut s.pid_str,
            &mut s.stepname,
            &mut s.submit_line,
            &mut s.tres_alloc_str,
        ]);
    }
}

unsafe fn qos_cond_members(c: &mut slurmdb_qos_cond_t) {
    // SAFETY: the condition's own lists.
    unsafe {
        free_lists(&mut [
            &mut c.description_list,
            &mut c.id_list,
            &mut c.format_list,
            &mut c.name_list,
        ])
    };
}

unsafe fn user_cond_members(c: &mut slurmdb_user_cond_t) {
    // SAFETY: the condition's own lists and association condition.
    unsafe {
        if !c.assoc_cond.is_null() {
            assoc_cond_members(&mut *c.assoc_cond);
        }
        release(&mut c.assoc_cond);
        free_lists(&mut [&mut c.def_acct_list, &mut c.def_wckey_list]);
    }
}

unsafe fn user_members(u: &mut slurmdb_user_rec_t) {
    // SAFETY: the record's own members; `bf_usage` is a single block (never filled by this library).
    unsafe {
        free_lists(&mut [&mut u.assoc_list, &mut u.coord_accts, &mut u.wckey_list]);
        free_strings(&mut [
            &mut u.default_acct,
            &mut u.default_wckey,
            &mut u.name,
            &mut u.old_name,
        ]);
        release(&mut u.bf_usage);
    }
}

unsafe fn event_cond_members(c: &mut slurmdb_event_cond_t) {
    // SAFETY: the condition's own lists and string.
    unsafe {
        free_lists(&mut [
            &mut c.cluster_list,
            &mut c.format_list,
            &mut c.reason_list,
            &mut c.reason_uid_list,
            &mut c.state_list,
        ]);
        release(&mut c.node_list);
    }
}

unsafe fn event_members(e: &mut slurmdb_event_rec_t) {
    // SAFETY: the record's own strings.
    unsafe {
        free_strings(&mut [
            &mut e.cluster,
            &mut e.cluster_nodes,
            &mut e.node_name,
            &mut e.reason,
            &mut e.tres_str,
        ])
    };
}

unsafe fn reservation_cond_members(c: &mut slurmdb_reservation_cond_t) {
    // SAFETY: the condition's own lists and string.
    unsafe {
        free_lists(&mut [
            &mut c.cluster_list,
            &mut c.format_list,
            &mut c.id_list,
            &mut c.name_list,
        ]);
        release(&mut c.nodes);
    }
}

unsafe fn reservation_members(r: &mut slurmdb_reservation_rec_t) {
    // SAFETY: the record's own strings and TRES list.
    unsafe {
        free_strings(&mut [
            &mut r.assocs,
            &mut r.cluster,
            &mut r.name,
            &mut r.nodes,
            &mut r.node_inx,
            &mut r.tres_str,
        ]);
        free_lists(&mut [&mut r.tres_list]);
    }
}

unsafe fn tres_members(t: &mut slurmdb_tres_rec_t) {
    // SAFETY: the record's own strings.
    unsafe { free_strings(&mut [&mut t.name, &mut t.type_]) };
}

unsafe fn coord_members(c: &mut slurmdb_coord_rec_t) {
    // SAFETY: the record's own string.
    unsafe { release(&mut c.name) };
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_assoc_cond_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_assoc_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy::<slurmdb_assoc_cond_t>("slurmdb_destroy_assoc_cond", object, assoc_cond_members)
    }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_assoc_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_assoc_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_assoc_rec_t>("slurmdb_destroy_assoc_rec", object, assoc_members) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_cluster_cond_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_cluster_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy::<slurmdb_cluster_cond_t>("slurmdb_destroy_cluster_cond", object, free_cluster_cond)
    }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_cluster_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_cluster_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_cluster_rec_t>("slurmdb_destroy_cluster_rec", object, free_cluster) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_coord_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_coord_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_coord_rec_t>("slurmdb_destroy_coord_rec", object, coord_members) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_event_cond_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_event_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy::<slurmdb_event_cond_t>("slurmdb_destroy_event_cond", object, event_cond_members)
    }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_event_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_event_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_event_rec_t>("slurmdb_destroy_event_rec", object, event_members) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_job_cond_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_job_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_job_cond_t>("slurmdb_destroy_job_cond", object, job_cond_members) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_job_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_job_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_job_rec_t>("slurmdb_destroy_job_rec", object, job_members) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_qos_cond_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_qos_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_qos_cond_t>("slurmdb_destroy_qos_cond", object, qos_cond_members) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_qos_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_qos_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_qos_rec_t>("slurmdb_destroy_qos_rec", object, qos_members) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_reservation_cond_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_reservation_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy::<slurmdb_reservation_cond_t>(
            "slurmdb_destroy_reservation_cond",
            object,
            reservation_cond_members,
        )
    }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_reservation_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_reservation_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy::<slurmdb_reservation_rec_t>(
            "slurmdb_destroy_reservation_rec",
            object,
            reservation_members,
        )
    }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_step_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_step_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_step_rec_t>("slurmdb_destroy_step_rec", object, step_members) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_tres_cond_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_tres_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_tres_cond_t>("slurmdb_destroy_tres_cond", object, free_tres_cond) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_tres_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_tres_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_tres_rec_t>("slurmdb_destroy_tres_rec", object, tres_members) }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_user_cond_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_user_cond(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe {
        destroy::<slurmdb_user_cond_t>("slurmdb_destroy_user_cond", object, user_cond_members)
    }
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_user_rec_t` whose members are live malloc'd memory or NULL; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_user_rec(object: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { destroy::<slurmdb_user_rec_t>("slurmdb_destroy_user_rec", object, user_members) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::{c_calloc, c_string};

    #[test]
    fn a_job_with_steps_and_a_caller_built_condition_are_released() {
        let job = c_calloc::<slurmdb_job_rec_t>(1);
        let step = c_calloc::<slurmdb_step_rec_t>(1);
        let cond = c_calloc::<slurmdb_job_cond_t>(1);
        // SAFETY: fresh zeroed records; every member set here is malloc'd and owned by its record.
        unsafe {
            (*step).stepname = c_string("batch");
            (*step).stats.tres_usage_in_ave = c_string("");
            (*job).jobname = c_string("j");
            (*job).steps = crate::list::create(Some(slurmdb_destroy_step_rec));
            crate::list::append((*job).steps, step as *mut c_void);
            (*cond).acct_list = crate::list::create(Some(libc::free));
            crate::list::append((*cond).acct_list, c_string("a") as *mut c_void);
            (*cond).used_nodes = c_string("n1");
            slurmdb_destroy_job_rec(job as *mut c_void);
            slurmdb_destroy_job_cond(cond as *mut c_void);
            slurmdb_destroy_user_cond(std::ptr::null_mut());
        }
    }
}
