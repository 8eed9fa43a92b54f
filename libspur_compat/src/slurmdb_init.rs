//! `slurmdb_init_*`: the accounting records and conditions a caller fills before a slurmdb request. Each zeroes the
//! struct and sets libslurm's "unset" markers (measured byte for byte on libslurm 22.05, see conformance case
//! 307), so code that compares fields with `NO_VAL` behaves the same. With `free_it` the strings, lists and TRES
//! arrays the record owns are released first; records it points to (usage, association chains) are not its own.

use std::ffi::{c_char, c_void};

use slurm_headers::{
    slurmdb_assoc_rec_t, slurmdb_clus_res_rec_t, slurmdb_cluster_cond_t, slurmdb_cluster_rec_t,
    slurmdb_federation_cond_t, slurmdb_federation_rec_t, slurmdb_qos_rec_t, slurmdb_res_cond_t,
    slurmdb_res_rec_t, slurmdb_tres_cond_t, slurmdb_wckey_rec_t, List,
};

use crate::ffi::{c_free, guard, NO_VAL, NO_VAL16};
use crate::inits::zeroed;

/// `QOS_FLAG_NOTSET`, `CLUSTER_FLAG_*`'s "not set" is NO_VAL; `FEDERATION_FLAG_NOTSET`, `SLURMDB_RES_FLAG_NOTSET`.
const QOS_FLAG_NOTSET: u32 = 0x1000_0000;
const FEDERATION_FLAG_NOTSET: u32 = 0x1000_0000;
const SLURMDB_RES_FLAG_NOTSET: u32 = 0x1000_0000;

/// Frees an owned member and clears it, so a record released twice is harmless.
///
/// # Safety
/// `*p` is NULL or a live malloc'd pointer owned by the record.
pub(crate) unsafe fn release<T>(p: &mut *mut T) {
    // SAFETY: the caller's contract.
    unsafe { c_free(*p as *mut c_void) };
    *p = std::ptr::null_mut();
}

/// # Safety
/// `*l` is NULL or a live list owned by the record.
pub(crate) unsafe fn release_list(l: &mut List) {
    if !l.is_null() {
        // SAFETY: the caller's contract.
        unsafe { crate::list::slurm_list_destroy(*l) };
    }
    *l = std::ptr::null_mut();
}

/// Runs `free` on the record when asked, then zeroes it.
///
/// # Safety
/// `p` is NULL or writable; with `free_it`, its owned members are live or NULL.
unsafe fn reset<T>(p: *mut T, free_it: bool, free: unsafe fn(&mut T)) -> Option<&'static mut T> {
    if p.is_null() {
        return None;
    }
    if free_it {
        // SAFETY: non-NULL and the caller's contract.
        unsafe { free(&mut *p) };
    }
    // SAFETY: as above.
    unsafe { zeroed(p) }
}

pub(crate) unsafe fn free_strings(strings: &mut [&mut *mut c_char]) {
    for s in strings.iter_mut() {
        // SAFETY: the callers pass the record's owned strings.
        unsafe { release(s) };
    }
}

pub(crate) unsafe fn free_lists(lists: &mut [&mut List]) {
    for l in lists.iter_mut() {
        // SAFETY: the callers pass the record's owned lists.
        unsafe { release_list(l) };
    }
}

unsafe fn free_tres(arrays: &mut [&mut *mut u64]) {
    for a in arrays.iter_mut() {
        // SAFETY: the callers pass the record's owned arrays.
        unsafe { release(a) };
    }
}

pub(crate) unsafe fn free_assoc(a: &mut slurmdb_assoc_rec_t) {
    // SAFETY: members of a record the caller hands over with free_it.
    unsafe {
        free_lists(&mut [&mut a.accounting_list, &mut a.qos_list]);
        free_strings(&mut [
            &mut a.acct,
            &mut a.cluster,
            &mut a.grp_tres,
            &mut a.grp_tres_mins,
            &mut a.grp_tres_run_mins,
            &mut a.max_tres_mins_pj,
            &mut a.max_tres_run_mins,
            &mut a.max_tres_pj,
            &mut a.max_tres_pn,
            &mut a.parent_acct,
            &mut a.partition,
            &mut a.user,
        ]);
        free_tres(&mut [
            &mut a.grp_tres_ctld,
            &mut a.grp_tres_mins_ctld,
            &mut a.grp_tres_run_mins_ctld,
            &mut a.max_tres_mins_ctld,
            &mut a.max_tres_run_mins_ctld,
            &mut a.max_tres_ctld,
            &mut a.max_tres_pn_ctld,
        ]);
    }
}

pub(crate) unsafe fn free_qos(q: &mut slurmdb_qos_rec_t) {
    // SAFETY: as in free_assoc.
    unsafe {
        free_lists(&mut [&mut q.preempt_list]);
        free_strings(&mut [
            &mut q.description,
            &mut q.grp_tres,
            &mut q.grp_tres_mins,
            &mut q.grp_tres_run_mins,
            &mut q.max_tres_mins_pj,
            &mut q.max_tres_pa,
            &mut q.max_tres_pj,
            &mut q.max_tres_pn,
            &mut q.max_tres_pu,
            &mut q.max_tres_run_mins_pa,
            &mut q.max_tres_run_mins_pu,
            &mut q.min_tres_pj,
            &mut q.name,
        ]);
        free_tres(&mut [
            &mut q.grp_tres_ctld,
            &mut q.grp_tres_mins_ctld,
            &mut q.grp_tres_run_mins_ctld,
            &mut q.max_tres_mins_pj_ctld,
            &mut q.max_tres_pa_ctld,
            &mut q.max_tres_pj_ctld,
            &mut q.max_tres_pn_ctld,
            &mut q.max_tres_pu_ctld,
            &mut q.max_tres_run_mins_pa_ctld,
            &mut q.max_tres_run_mins_pu_ctld,
            &mut q.min_tres_pj_ctld,
        ]);
    }
}

pub(crate) unsafe fn free_cluster(c: &mut slurmdb_cluster_rec_t) {
    // SAFETY: as in free_assoc.
    unsafe {
        free_lists(&mut [
            &mut c.accounting_list,
            &mut c.send_rpc,
            &mut c.fed.feature_list,
        ]);
        free_strings(&mut [
            &mut c.control_host,
            &mut c.name,
            &mut c.nodes,
            &mut c.tres_str,
            &mut c.fed.name,
        ]);
        release(&mut c.dim_size);
    }
}

unsafe fn free_federation(f: &mut slurmdb_federation_rec_t) {
    // SAFETY: as in free_assoc.
    unsafe {
        release(&mut f.name);
        release_list(&mut f.cluster_list);
    }
}

unsafe fn free_clus_res(c: &mut slurmdb_clus_res_rec_t) {
    // SAFETY: as in free_assoc.
    unsafe { release(&mut c.cluster) };
}

unsafe fn free_res(r: &mut slurmdb_res_rec_t) {
    // SAFETY: as in free_assoc.
    unsafe {
        release_list(&mut r.clus_res_list);
        if !r.clus_res_rec.is_null() {
            free_clus_res(&mut *r.clus_res_rec);
            release(&mut r.clus_res_rec);
        }
        free_strings(&mut [
            &mut r.description,
            &mut r.manager,
            &mut r.name,
            &mut r.server,
        ]);
    }
}

unsafe fn free_wckey(w: &mut slurmdb_wckey_rec_t) {
    // SAFETY: as in free_assoc.
    unsafe {
        release_list(&mut w.accounting_list);
        free_strings(&mut [&mut w.cluster, &mut w.name, &mut w.user]);
    }
}

pub(crate) unsafe fn free_tres_cond(t: &mut slurmdb_tres_cond_t) {
    // SAFETY: as in free_assoc.
    unsafe {
        free_lists(&mut [
            &mut t.format_list,
            &mut t.id_list,
            &mut t.name_list,
            &mut t.type_list,
        ])
    };
}

pub(crate) unsafe fn free_cluster_cond(c: &mut slurmdb_cluster_cond_t) {
    // SAFETY: as in free_assoc.
    unsafe {
        free_lists(&mut [
            &mut c.cluster_list,
            &mut c.federation_list,
            &mut c.format_list,
            &mut c.plugin_id_select_list,
            &mut c.rpc_version_list,
        ])
    };
}

unsafe fn free_federation_cond(f: &mut slurmdb_federation_cond_t) {
    // SAFETY: as in free_assoc.
    unsafe {
        free_lists(&mut [
            &mut f.cluster_list,
            &mut f.federation_list,
            &mut f.format_list,
        ])
    };
}

unsafe fn free_res_cond(r: &mut slurmdb_res_cond_t) {
    // SAFETY: as in free_assoc.
    unsafe {
        free_lists(&mut [
            &mut r.cluster_list,
            &mut r.description_list,
            &mut r.format_list,
            &mut r.id_list,
            &mut r.manager_list,
            &mut r.name_list,
            &mut r.percent_list,
            &mut r.server_list,
            &mut r.type_list,
        ])
    };
}

/// # Safety
/// `assoc` is NULL or writable; with `free_it` its owned members are live malloc'd memory or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_assoc_rec(assoc: *mut slurmdb_assoc_rec_t, free_it: bool) {
    guard("slurmdb_init_assoc_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(a) = unsafe { reset(assoc, free_it, free_assoc) } {
            a.def_qos_id = NO_VAL;
            a.grp_jobs = NO_VAL;
            a.grp_jobs_accrue = NO_VAL;
            a.grp_submit_jobs = NO_VAL;
            a.grp_wall = NO_VAL;
            a.is_def = NO_VAL16;
            a.lft = NO_VAL;
            a.max_jobs = NO_VAL;
            a.max_jobs_accrue = NO_VAL;
            a.max_submit_jobs = NO_VAL;
            a.max_wall_pj = NO_VAL;
            a.min_prio_thresh = NO_VAL;
            a.priority = NO_VAL;
            a.rgt = NO_VAL;
            a.shares_raw = NO_VAL;
        }
    })
}

/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_clus_res_rec(
    clus_res: *mut slurmdb_clus_res_rec_t,
    free_it: bool,
) {
    guard("slurmdb_init_clus_res_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(c) = unsafe { reset(clus_res, free_it, free_clus_res) } {
            c.percent_allowed = NO_VAL16;
        }
    })
}

/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_cluster_rec(
    cluster: *mut slurmdb_cluster_rec_t,
    free_it: bool,
) {
    guard("slurmdb_init_cluster_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(c) = unsafe { reset(cluster, free_it, free_cluster) } {
            c.flags = NO_VAL;
            c.fed.state = NO_VAL;
        }
    })
}

/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_federation_rec(
    federation: *mut slurmdb_federation_rec_t,
    free_it: bool,
) {
    guard("slurmdb_init_federation_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(f) = unsafe { reset(federation, free_it, free_federation) } {
            f.flags = FEDERATION_FLAG_NOTSET;
        }
    })
}

/// Every limit starts at `init_val` (NO_VAL for "unset", INFINITE for "no limit"), the factors as doubles too.
///
/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_qos_rec(
    qos: *mut slurmdb_qos_rec_t,
    free_it: bool,
    init_val: u32,
) {
    guard("slurmdb_init_qos_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(q) = unsafe { reset(qos, free_it, free_qos) } {
            q.flags = QOS_FLAG_NOTSET;
            q.grace_time = init_val;
            q.grp_jobs_accrue = init_val;
            q.grp_jobs = init_val;
            q.grp_submit_jobs = init_val;
            q.grp_wall = init_val;
            q.limit_factor = f64::from(init_val);
            q.max_jobs_pa = init_val;
            q.max_jobs_pu = init_val;
            q.max_jobs_accrue_pa = init_val;
            q.max_jobs_accrue_pu = init_val;
            q.max_submit_jobs_pa = init_val;
            q.max_submit_jobs_pu = init_val;
            q.max_wall_pj = init_val;
            q.min_prio_thresh = init_val;
            // The 16-bit field keeps the low half, as C's implicit conversion does.
            q.preempt_mode = init_val as u16;
            q.preempt_exempt_time = init_val;
            q.priority = init_val;
            q.usage_factor = f64::from(init_val);
            q.usage_thres = f64::from(init_val);
        }
    })
}

/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_res_rec(res: *mut slurmdb_res_rec_t, free_it: bool) {
    guard("slurmdb_init_res_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { reset(res, free_it, free_res) } {
            r.count = NO_VAL;
            r.flags = SLURMDB_RES_FLAG_NOTSET;
            r.id = NO_VAL;
            r.percent_used = NO_VAL16;
        }
    })
}

/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_wckey_rec(wckey: *mut slurmdb_wckey_rec_t, free_it: bool) {
    guard("slurmdb_init_wckey_rec", (), || {
        // SAFETY: the caller's contract.
        if let Some(w) = unsafe { reset(wckey, free_it, free_wckey) } {
            w.is_def = NO_VAL16;
        }
    })
}

/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_tres_cond(tres: *mut slurmdb_tres_cond_t, free_it: bool) {
    guard("slurmdb_init_tres_cond", (), || {
        // SAFETY: the caller's contract.
        if let Some(t) = unsafe { reset(tres, free_it, free_tres_cond) } {
            t.count = u64::from(NO_VAL);
        }
    })
}

/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_cluster_cond(
    cluster: *mut slurmdb_cluster_cond_t,
    free_it: bool,
) {
    guard("slurmdb_init_cluster_cond", (), || {
        // SAFETY: the caller's contract.
        if let Some(c) = unsafe { reset(cluster, free_it, free_cluster_cond) } {
            c.flags = NO_VAL;
        }
    })
}

/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_federation_cond(
    federation: *mut slurmdb_federation_cond_t,
    free_it: bool,
) {
    guard("slurmdb_init_federation_cond", (), || {
        // SAFETY: the caller's contract; the condition has no markers besides zero.
        unsafe { reset(federation, free_it, free_federation_cond) };
    })
}

/// # Safety
/// As [`slurmdb_init_assoc_rec`].
#[no_mangle]
pub unsafe extern "C" fn slurmdb_init_res_cond(cluster: *mut slurmdb_res_cond_t, free_it: bool) {
    guard("slurmdb_init_res_cond", (), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { reset(cluster, free_it, free_res_cond) } {
            r.flags = SLURMDB_RES_FLAG_NOTSET;
        }
    })
}

/// Frees a federation record and everything it owns (`slurm_destroy_federation_rec` releases what
/// `slurm_load_federation` returns; Spur has no federations, so that is only ever a caller-built record).
///
/// # Safety
/// `rec` is NULL or a malloc'd record whose members are live malloc'd memory or NULL.
pub unsafe fn destroy_federation(rec: *mut slurmdb_federation_rec_t) {
    if rec.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    unsafe {
        free_federation(&mut *rec);
        c_free(rec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::{c_calloc, c_string, INFINITE};

    #[test]
    fn qos_limits_take_the_init_value() {
        // SAFETY: zero is a valid value of this plain C record.
        let mut q: slurmdb_qos_rec_t = unsafe { std::mem::zeroed() };
        // SAFETY: a valid, writable record on the stack.
        unsafe { slurmdb_init_qos_rec(&mut q, false, INFINITE) };
        assert_eq!(q.flags, QOS_FLAG_NOTSET);
        assert_eq!(q.max_wall_pj, INFINITE);
        assert_eq!(q.preempt_mode, 0xffff);
        assert_eq!(q.usage_factor, 4294967295.0);
        assert_eq!(q.id, 0);
        // SAFETY: a valid, writable record on the stack.
        unsafe { slurmdb_init_qos_rec(&mut q, true, 0) };
        assert_eq!(q.grace_time, 0);
        assert_eq!(q.flags, QOS_FLAG_NOTSET);
    }

    #[test]
    fn free_it_releases_owned_members() {
        // SAFETY: zero is a valid value of this plain C record.
        let mut a: slurmdb_assoc_rec_t = unsafe { std::mem::zeroed() };
        // SAFETY: a valid, writable record on the stack.
        unsafe { slurmdb_init_assoc_rec(&mut a, false) };
        a.acct = c_string("physics");
        a.grp_tres_ctld = c_calloc::<u64>(4);
        a.qos_list = crate::list::create(Some(libc::free));
        // SAFETY: the list was created just above; it takes ownership of the fresh C string.
        unsafe { crate::list::append(a.qos_list, c_string("normal") as *mut c_void) };
        // SAFETY: a valid, writable record on the stack.
        unsafe { slurmdb_init_assoc_rec(&mut a, true) };
        assert!(a.acct.is_null() && a.grp_tres_ctld.is_null() && a.qos_list.is_null());
        assert_eq!(a.max_jobs, NO_VAL);
        assert_eq!(a.is_def, NO_VAL16);
        assert_eq!(a.id, 0);
    }

    #[test]
    fn markers_of_the_small_records() {
        // SAFETY: zero is a valid value of this plain C record.
        let mut c: slurmdb_cluster_rec_t = unsafe { std::mem::zeroed() };
        c.name = c_string("c1");
        // SAFETY: a valid, writable record on the stack.
        unsafe { slurmdb_init_cluster_rec(&mut c, true) };
        assert!(c.name.is_null());
        assert_eq!((c.flags, c.fed.state, c.fed.id), (NO_VAL, NO_VAL, 0));
        // SAFETY: zero is a valid value of this plain C record.
        let mut t: slurmdb_tres_cond_t = unsafe { std::mem::zeroed() };
        // SAFETY: a valid, writable record on the stack.
        unsafe { slurmdb_init_tres_cond(&mut t, false) };
        assert_eq!(t.count, 0xffff_fffe);
        // SAFETY: zero is a valid value of this plain C record.
        let mut r: slurmdb_res_rec_t = unsafe { std::mem::zeroed() };
        // SAFETY: a valid, writable record on the stack.
        unsafe { slurmdb_init_res_rec(&mut r, false) };
        assert_eq!(
            (r.count, r.id, r.flags, r.percent_used),
            (NO_VAL, NO_VAL, SLURMDB_RES_FLAG_NOTSET, NO_VAL16)
        );
        let fed = c_calloc::<slurmdb_federation_rec_t>(1);
        // SAFETY: `fed` is a zeroed record fresh from c_calloc; init writes it and destroy_federation frees it once.
        unsafe {
            slurmdb_init_federation_rec(fed, false);
            assert_eq!((*fed).flags, FEDERATION_FLAG_NOTSET);
            (*fed).name = c_string("f");
            destroy_federation(fed);
        }
    }
}
