//! Heterogeneous jobs through the C API: a `List` of `job_desc_msg_t`, one per component, becomes one
//! `SubmitRequest` (the first description as `spec`, the others as `het_components`), so the controller queues
//! every component or none and numbers them from the leader's id, as slurmctld does.

use std::ffi::c_int;

use slurm_headers::{job_desc_msg_t, submit_response_msg_t, time_t, List};
use spur_core::model::job::JobSpec;
use spur_core::wire::api::{SubmitRequest, TrialPlacement};

use crate::client::{self, CallError};
use crate::ffi::{self, guard};
use crate::submit::{allocation_response, answer_submit, job_spec, program_name, wait_for_grant};

/// The descriptions a list holds, in order (NULL items are skipped).
///
/// # Safety
/// `list` is NULL or a live list of `job_desc_msg_t` pointers.
unsafe fn descriptions(list: List) -> Vec<*const job_desc_msg_t> {
    let mut out = Vec::new();
    if list.is_null() {
        return out;
    }
    // SAFETY: the caller's contract.
    unsafe {
        crate::list::for_each(list, |item| {
            if !item.is_null() {
                out.push(item as *const job_desc_msg_t);
            }
        })
    };
    out
}

/// One `SubmitRequest` for the whole job; `None` for an empty list.
///
/// # Safety
/// Every pointer is a valid description.
unsafe fn het_request(descs: &[*const job_desc_msg_t], interactive: bool) -> Option<SubmitRequest> {
    let mut specs: Vec<JobSpec> = descs
        .iter()
        // SAFETY: the caller's contract.
        .map(|&d| unsafe { job_spec(&*d) })
        .collect();
    if specs.is_empty() {
        return None;
    }
    let spec = specs.remove(0);
    // SAFETY: as above; the list is not empty.
    let immediate = unsafe { (*descs[0]).immediate } != 0;
    Some(SubmitRequest {
        spec,
        test_only: false,
        immediate,
        interactive,
        het_components: specs,
    })
}

/// # Safety
/// `job_req_list` is a live list of valid descriptions; `slurm_alloc_msg` a valid slot for the response.
#[no_mangle]
pub unsafe extern "C" fn slurm_submit_batch_het_job(
    job_req_list: List,
    slurm_alloc_msg: *mut *mut submit_response_msg_t,
) -> c_int {
    guard("slurm_submit_batch_het_job", ffi::SLURM_ERROR, || {
        if slurm_alloc_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: the caller's contract.
        let descs = unsafe { descriptions(job_req_list) };
        // SAFETY: as above.
        let Some(request) = (unsafe { het_request(&descs, false) }) else {
            // libslurm sends nothing for an empty list and reports its own SLURM_ERROR as the errno.
            return CallError::new(ffi::SLURM_ERROR).fail();
        };
        match client::submit(&request) {
            // SAFETY: the caller's slot was checked non-NULL; the leader's description is valid.
            Ok(reply) => unsafe { answer_submit(slurm_alloc_msg, reply.job_id, descs[0]) },
            Err(e) => e.fail(),
        }
    })
}

/// Tries each component on its own (`--test-only`) and reports, as libslurm does, when the last of them could
/// start, on how many processors and which nodes in all. Each component is tried against the cluster as it is,
/// without the others: a component that would have to share nodes with another is not noticed here.
///
/// # Safety
/// `job_req_list` is a live list of valid descriptions.
#[no_mangle]
pub unsafe extern "C" fn slurm_het_job_will_run(job_req_list: List) -> c_int {
    guard("slurm_het_job_will_run", ffi::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let descs = unsafe { descriptions(job_req_list) };
        if descs.is_empty() {
            ffi::log_plain(&format!(
                "{}: error: No job descriptors input",
                program_name()
            ));
            return ffi::SLURM_ERROR;
        }
        let mut first_id = None;
        let mut trials: Vec<TrialPlacement> = Vec::with_capacity(descs.len());
        for &d in &descs {
            let request = SubmitRequest {
                // SAFETY: the caller's contract.
                spec: unsafe { job_spec(&*d) },
                test_only: true,
                immediate: false,
                interactive: false,
                het_components: Vec::new(),
            };
            match client::submit(&request) {
                Ok(reply) => {
                    first_id.get_or_insert(reply.job_id);
                    trials.extend(reply.test_only);
                }
                Err(e) => return e.fail(),
            }
        }
        if let Some(start_time) = trials.iter().map(|t| t.start_time).max() {
            let mut nodes: Vec<String> = trials.iter().flat_map(|t| t.nodes.clone()).collect();
            nodes.sort();
            nodes.dedup();
            let processors: u32 = trials.iter().map(|t| t.processors).sum();
            let when = spur_core::grammar::values::begin::format_local_time(
                start_time,
                crate::submit::local_utc_offset(),
            );
            ffi::log_plain(&format!(
                "{}: Job {} to start at {when} using {processors} processors on {}",
                program_name(),
                first_id.unwrap_or(0),
                spur_core::grammar::hostlist::compress(&nodes)
            ));
        }
        ffi::SLURM_SUCCESS
    })
}

/// Submits every component as one allocation and waits (up to `timeout` seconds, 0 for ever) until they are
/// granted, which happens to all at once; returns one allocation response per component, leader first, in a
/// list whose destructor frees them.
///
/// # Safety
/// `job_req_list` is a live list of valid descriptions.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocate_het_job_blocking(
    job_req_list: List,
    timeout: time_t,
    pending_callback: Option<unsafe extern "C" fn(job_id: u32)>,
) -> List {
    guard(
        "slurm_allocate_het_job_blocking",
        std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            let descs = unsafe { descriptions(job_req_list) };
            // SAFETY: as above.
            let Some(request) = (unsafe { het_request(&descs, true) }) else {
                ffi::set_errno(ffi::SLURM_ERROR);
                return std::ptr::null_mut();
            };
            let count = u32::try_from(request.het_components.len() + 1).unwrap_or(u32::MAX);
            let leader = match client::submit(&request) {
                Ok(reply) => reply.job_id,
                Err(e) => {
                    ffi::set_errno(e.errno);
                    return std::ptr::null_mut();
                }
            };
            if let Err(errno) = wait_for_grant(leader, timeout, pending_callback) {
                ffi::set_errno(errno);
                return std::ptr::null_mut();
            }
            let list = crate::list::create(Some(crate::jobs_extra::free_allocation_item));
            for job_id in leader..leader.saturating_add(count) {
                let alloc = allocation_response(job_id);
                if !alloc.is_null() {
                    // SAFETY: a live list we just made.
                    unsafe { crate::list::append(list, alloc as *mut std::ffi::c_void) };
                }
            }
            list
        },
    )
}
