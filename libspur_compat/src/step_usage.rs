//! `slurm_job_step_get_pids` and `slurm_job_step_stat`: a running step's processes and tasks on each of its nodes,
//! measured now by the nodes' agents (the same answer `sstat` prints). Slurm's `jobacctinfo_t` is an opaque type
//! of libslurm's internals that no public function reads, so `job_step_stat_t.jobacct` stays NULL; the task
//! count, return code and pids are filled.

use std::ffi::{c_char, c_int, c_void};

use slurm_headers::{
    job_step_pids_response_msg_t, job_step_pids_t, job_step_stat_response_msg_t, job_step_stat_t,
    slurm_step_id_t,
};
use spur_core::model::step_usage::{NodeUsage, StepPick, StepRef};
use spur_core::wire::api::{Query, QueryReply};

use crate::client::CallError;
use crate::ffi::{self, c_calloc, c_free, c_string, guard, opt_str};

/// `SLURM_BATCH_SCRIPT`: the step id of a job's batch shell.
const SLURM_BATCH_SCRIPT: u32 = 0xffff_fffb;

/// The step's usage on the nodes of `node_list` (every node of the step for NULL). A step that does not run is
/// reported as Slurm does: a logged line naming the call and `ESLURM_INVALID_JOB_ID`.
///
/// # Safety
/// `step_id` is valid; `node_list` NULL or a C string.
unsafe fn measure(
    call: &str,
    step_id: &slurm_step_id_t,
    node_list: *const c_char,
) -> Result<Vec<NodeUsage>, CallError> {
    let step = match step_id.step_id {
        SLURM_BATCH_SCRIPT => StepRef::Batch,
        n => StepRef::Numbered(n),
    };
    let query = Query::StepUsage {
        job_id: step_id.job_id,
        pick: StepPick::Step(step),
    };
    let steps = match crate::client::query(&query)? {
        QueryReply::StepUsage { steps } => steps,
        _ => return Err(CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR)),
    };
    let Some(usage) = steps.into_iter().next() else {
        let invalid = spur_core::wire::api::SlurmErrno::InvalidJobId;
        crate::print_misc::log_error(&format!(
            "{call}: problem getting step_layout for StepId={}.{}: {}",
            step_id.job_id,
            step.suffix(),
            invalid.text()
        ));
        return Err(CallError::new(invalid.code()));
    };
    // SAFETY: the caller's contract.
    let wanted = unsafe { opt_str(node_list) }
        .map(|list| spur_core::grammar::hostlist::expand(&list).unwrap_or_default());
    Ok(usage
        .nodes
        .into_iter()
        .filter(|n| wanted.as_ref().is_none_or(|w| w.contains(&n.node)))
        .collect())
}

/// These two calls return the error code itself (and set errno to it), as Slurm's do, where most calls return
/// -1.
fn fail_with_code(e: CallError) -> c_int {
    let code = e.errno;
    e.fail();
    code
}

/// A malloc'd `job_step_pids_t` for one node, freed by `slurm_job_step_pids_free`.
fn pids_object(node: &NodeUsage) -> *mut job_step_pids_t {
    let obj = c_calloc::<job_step_pids_t>(1);
    if obj.is_null() {
        return obj;
    }
    let pids = c_calloc::<u32>(node.pids.len());
    // SAFETY: `obj` is fresh and zeroed; `pids` holds pids.len() slots when non-NULL.
    unsafe {
        (*obj).node_name = c_string(&node.node);
        if !pids.is_null() {
            for (i, pid) in node.pids.iter().enumerate() {
                *pids.add(i) = *pid;
            }
            (*obj).pid = pids;
            (*obj).pid_cnt = node.pids.len() as u32;
        }
    }
    obj
}

unsafe extern "C" fn free_pids_item(x: *mut c_void) {
    // SAFETY: items of our lists are `job_step_pids_t`s we made.
    unsafe { slurm_job_step_pids_free(x as *mut job_step_pids_t) }
}

unsafe extern "C" fn free_stat_item(x: *mut c_void) {
    // SAFETY: items of our lists are `job_step_stat_t`s we made.
    unsafe { slurm_job_step_stat_free(x as *mut job_step_stat_t) }
}

/// # Safety
/// `step_id` is valid; `node_list` NULL or a C string; `resp` a valid slot.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_get_pids(
    step_id: *mut slurm_step_id_t,
    node_list: *mut c_char,
    resp: *mut *mut job_step_pids_response_msg_t,
) -> c_int {
    guard("slurm_job_step_get_pids", ffi::SLURM_ERROR, || {
        if step_id.is_null() || resp.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: checked non-NULL; the caller's contract.
        let nodes = match unsafe { measure("slurm_job_step_get_pids", &*step_id, node_list) } {
            Ok(nodes) => nodes,
            Err(e) => return fail_with_code(e),
        };
        let msg = c_calloc::<job_step_pids_response_msg_t>(1);
        if msg.is_null() {
            return CallError::new(libc::ENOMEM).fail();
        }
        let list = crate::list::create(Some(free_pids_item));
        for node in &nodes {
            let obj = pids_object(node);
            if !obj.is_null() {
                // SAFETY: a live list we just made.
                unsafe { crate::list::append(list, obj as *mut c_void) };
            }
        }
        // SAFETY: fresh zeroed message; the slot is valid.
        unsafe {
            (*msg).pid_list = list;
            (*msg).step_id = *step_id;
            *resp = msg;
        }
        ffi::SLURM_SUCCESS
    })
}

/// # Safety
/// `step_id` is valid; `node_list` NULL or a C string; `resp` a valid slot.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_stat(
    step_id: *mut slurm_step_id_t,
    node_list: *mut c_char,
    _use_protocol_ver: u16,
    resp: *mut *mut job_step_stat_response_msg_t,
) -> c_int {
    guard("slurm_job_step_stat", ffi::SLURM_ERROR, || {
        if step_id.is_null() || resp.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: checked non-NULL; the caller's contract.
        let nodes = match unsafe { measure("slurm_job_step_stat", &*step_id, node_list) } {
            Ok(nodes) => nodes,
            Err(e) => return fail_with_code(e),
        };
        let msg = c_calloc::<job_step_stat_response_msg_t>(1);
        if msg.is_null() {
            return CallError::new(libc::ENOMEM).fail();
        }
        let list = crate::list::create(Some(free_stat_item));
        for node in &nodes {
            let stat = c_calloc::<job_step_stat_t>(1);
            if stat.is_null() {
                continue;
            }
            // SAFETY: fresh zeroed record; a live list we just made.
            unsafe {
                (*stat).num_tasks = node.tasks.len() as u32;
                (*stat).return_code = ffi::SLURM_SUCCESS as u32;
                (*stat).step_pids = pids_object(node);
                crate::list::append(list, stat as *mut c_void);
            }
        }
        // SAFETY: fresh zeroed message; the slot is valid.
        unsafe {
            (*msg).stats_list = list;
            (*msg).step_id = *step_id;
            *resp = msg;
        }
        ffi::SLURM_SUCCESS
    })
}

/// # Safety
/// `object` is NULL or a record from `slurm_job_step_get_pids`/`slurm_job_step_stat`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_pids_free(object: *mut job_step_pids_t) {
    guard("slurm_job_step_pids_free", (), || {
        if object.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            c_free((*object).node_name);
            c_free((*object).pid);
            c_free(object);
        }
    })
}

/// # Safety
/// `object` is NULL or a message from `slurm_job_step_get_pids`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_pids_response_msg_free(object: *mut c_void) {
    guard("slurm_job_step_pids_response_msg_free", (), || {
        let msg = object as *mut job_step_pids_response_msg_t;
        if msg.is_null() {
            return;
        }
        // SAFETY: the caller's contract; the list destroys its items.
        unsafe {
            crate::list::slurm_list_destroy((*msg).pid_list);
            c_free(msg);
        }
    })
}

/// # Safety
/// `object` is NULL or a record from `slurm_job_step_stat`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_stat_free(object: *mut job_step_stat_t) {
    guard("slurm_job_step_stat_free", (), || {
        if object.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            slurm_job_step_pids_free((*object).step_pids);
            c_free(object);
        }
    })
}

/// # Safety
/// `object` is NULL or a message from `slurm_job_step_stat`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_stat_response_msg_free(object: *mut c_void) {
    guard("slurm_job_step_stat_response_msg_free", (), || {
        let msg = object as *mut job_step_stat_response_msg_t;
        if msg.is_null() {
            return;
        }
        // SAFETY: the caller's contract; the list destroys its items.
        unsafe {
            crate::list::slurm_list_destroy((*msg).stats_list);
            c_free(msg);
        }
    })
}
