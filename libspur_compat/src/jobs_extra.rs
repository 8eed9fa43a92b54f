//! Smaller job functions: expanded stdio paths (`slurm_get_job_std*`), allocation lookup, node readiness, job id
//! translation, the batch script, and terminating the batch step.

use std::ffi::{c_char, c_int, CString};

use slurm_headers::{job_info_t, resource_allocation_response_msg_t, List, FILE};
use spur_core::format::job_view::JobView;
use spur_core::format::FormatContext;
use spur_core::model::job::{JobRecord, JobSpec};
use spur_core::wire::api::SlurmErrno;

use crate::client::{self, CallError};
use crate::ffi::{self, guard, opt_str};

/// `READY_NODE_STATE | READY_JOB_STATE | READY_PROLOG_STATE`, and `READY_JOB_FATAL` for an unknown job.
const READY_NODE_STATE: c_int = 0x01;
const READY_JOB_STATE: c_int = 0x02;
const READY_PROLOG_STATE: c_int = 0x04;
const READY_JOB_FATAL: c_int = -2;

/// The fields of a `job_info_t` the stdio expansion reads, as a job record for spur-core's `JobView`.
///
/// # Safety
/// `j`'s strings are NULL or valid.
unsafe fn record_of(j: &job_info_t) -> JobRecord {
    // SAFETY: the caller's contract.
    let s = |p: *mut c_char| unsafe { opt_str(p) }.map(|c| c.into_owned());
    let spec = JobSpec {
        name: s(j.name).unwrap_or_default(),
        user_id: j.user_id,
        group_id: j.group_id,
        work_dir: s(j.work_dir).unwrap_or_default(),
        stdout: s(j.std_out),
        stderr: s(j.std_err),
        stdin: s(j.std_in),
        script: (j.batch_flag != 0).then(String::new),
        ..JobSpec::default()
    };
    let mut record = JobRecord::pending(
        j.job_id,
        spec,
        s(j.partition).unwrap_or_default(),
        j.submit_time,
        0,
    );
    if j.array_task_id != ffi::NO_VAL {
        record.array_job_id = Some(j.array_job_id);
        record.array_task_id = Some(j.array_task_id);
    }
    record
}

#[derive(Clone, Copy)]
enum Stdio {
    Out,
    Err,
    In,
}

/// # Safety
/// `buf` has `buf_size` bytes; `job_ptr` is NULL or a valid job record.
unsafe fn job_stdio(buf: *mut c_char, buf_size: c_int, job_ptr: *mut job_info_t, which: Stdio) {
    if buf.is_null() || buf_size <= 0 || job_ptr.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let record = unsafe { record_of(&*job_ptr) };
    let mut ctx = FormatContext::new(0, 0);
    if let Some(user) = spur_auth::names::user_name(record.spec.user_id) {
        ctx.users.insert(record.spec.user_id, user);
    }
    let view = JobView::single(&record);
    let path = match which {
        Stdio::Out => view.stdout_path(&ctx),
        Stdio::Err => view.stderr_path(&ctx),
        Stdio::In => view.stdin_path(&ctx),
    };
    let bytes = path.as_bytes();
    let fit = bytes.len().min(buf_size as usize - 1);
    // SAFETY: `buf` has buf_size bytes; we write fit < buf_size bytes and a NUL.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf as *mut u8, fit);
        *buf.add(fit) = 0;
    }
}

/// # Safety
/// `buf` has `buf_size` bytes; `job_ptr` is NULL or a valid job record.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_stdout(
    buf: *mut c_char,
    buf_size: c_int,
    job_ptr: *mut job_info_t,
) {
    // SAFETY: the caller's contract.
    guard("slurm_get_job_stdout", (), || unsafe {
        job_stdio(buf, buf_size, job_ptr, Stdio::Out)
    })
}

/// # Safety
/// `buf` has `buf_size` bytes; `job_ptr` is NULL or a valid job record.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_stderr(
    buf: *mut c_char,
    buf_size: c_int,
    job_ptr: *mut job_info_t,
) {
    // SAFETY: the caller's contract.
    guard("slurm_get_job_stderr", (), || unsafe {
        job_stdio(buf, buf_size, job_ptr, Stdio::Err)
    })
}

/// # Safety
/// `buf` has `buf_size` bytes; `job_ptr` is NULL or a valid job record.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_stdin(
    buf: *mut c_char,
    buf_size: c_int,
    job_ptr: *mut job_info_t,
) {
    // SAFETY: the caller's contract.
    guard("slurm_get_job_stdin", (), || unsafe {
        job_stdio(buf, buf_size, job_ptr, Stdio::In)
    })
}

fn find_job(job_id: u32) -> Result<JobRecord, CallError> {
    crate::client::job_list(spur_core::wire::api::JobListing::job(job_id))?
        .jobs
        .into_iter()
        .find(|j| j.job_id == job_id)
        .ok_or(CallError::new(SlurmErrno::InvalidJobId.code()))
}

/// The job's whole record: listings leave the batch script out.
pub(crate) fn find_job_with_script(job_id: u32) -> Result<JobRecord, CallError> {
    crate::client::job_list(spur_core::wire::api::JobListing::whole_job(job_id))?
        .jobs
        .into_iter()
        .find(|j| j.job_id == job_id)
        .ok_or(CallError::new(SlurmErrno::InvalidJobId.code()))
}

/// Ready bits as slurmctld reports them: a pending job only has its (absent) prolog done.
#[no_mangle]
pub extern "C" fn slurm_job_node_ready(job_id: u32) -> c_int {
    guard("slurm_job_node_ready", READY_JOB_FATAL, || {
        match find_job(job_id) {
            Ok(job) => {
                let view = JobView::single(&job);
                if view.is_running() {
                    READY_NODE_STATE | READY_JOB_STATE | READY_PROLOG_STATE
                } else {
                    READY_PROLOG_STATE
                }
            }
            Err(_) => READY_JOB_FATAL,
        }
    })
}

/// The allocation of a running job; a pending job fails with ESLURM_JOB_PENDING.
///
/// # Safety
/// `resp` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocation_lookup(
    job_id: u32,
    resp: *mut *mut resource_allocation_response_msg_t,
) -> c_int {
    guard("slurm_allocation_lookup", ffi::SLURM_ERROR, || {
        if resp.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        let job = match find_job(job_id) {
            Ok(job) => job,
            Err(e) => return e.fail(),
        };
        let view = JobView::single(&job);
        if view.is_pending() {
            return CallError::new(SlurmErrno::JobPending.code()).fail();
        }
        if !view.is_running() {
            return CallError::new(SlurmErrno::AlreadyDone.code()).fail();
        }
        let msg = crate::submit::allocation_response(job_id);
        if msg.is_null() {
            return CallError::new(libc::ENOMEM).fail();
        }
        // SAFETY: the caller's slot, checked non-NULL.
        unsafe { *resp = msg };
        ffi::SLURM_SUCCESS
    })
}

/// The list destructor for `slurm_het_job_lookup`'s items.
pub(crate) unsafe extern "C" fn free_allocation_item(item: *mut std::ffi::c_void) {
    // SAFETY: the list holds only responses made by `slurm_allocation_lookup`.
    unsafe {
        crate::submit::slurm_free_resource_allocation_response_msg(
            item as *mut resource_allocation_response_msg_t,
        )
    }
}

/// The allocation of each component of a heterogeneous job named by its leader's id, leader first; any other
/// running job is a one-component one: its allocation alone in a list, as slurmctld answers for a regular job
/// (pending and unknown jobs fail as `slurm_allocation_lookup`). The caller frees the list with
/// `slurm_list_destroy`.
///
/// # Safety
/// `resp` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_het_job_lookup(job_id: u32, resp: *mut List) -> c_int {
    guard("slurm_het_job_lookup", ffi::SLURM_ERROR, || {
        if resp.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        let ids = match crate::jobs::fetch_jobs() {
            Ok((jobs, _)) => jobs
                .iter()
                .find(|j| j.job_id == job_id)
                .and_then(|j| j.het.as_ref())
                .filter(|h| h.is_leader())
                .map_or_else(|| vec![job_id], |h| h.component_ids().collect()),
            Err(e) => return e.fail(),
        };
        let list = crate::list::create(Some(free_allocation_item));
        for id in ids {
            let mut alloc = std::ptr::null_mut();
            // SAFETY: a valid slot of our own.
            let rc = unsafe { slurm_allocation_lookup(id, &mut alloc) };
            if rc != ffi::SLURM_SUCCESS {
                // SAFETY: our own list, not handed out.
                unsafe { crate::list::slurm_list_destroy(list) };
                return rc;
            }
            // SAFETY: a live list we just made.
            unsafe { crate::list::append(list, alloc as *mut std::ffi::c_void) };
        }
        // SAFETY: the caller's slot, checked non-NULL.
        unsafe { *resp = list };
        ffi::SLURM_SUCCESS
    })
}

/// `12_3` to the job id of array task 3 of job 12; a plain number is returned as given (as libslurm does).
///
/// # Safety
/// `job_id_str` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xlate_job_id(job_id_str: *mut c_char) -> u32 {
    guard("slurm_xlate_job_id", 0, || {
        // SAFETY: the caller's contract.
        let Some(text) = (unsafe { opt_str(job_id_str) }) else {
            return 0;
        };
        let Some((array, task)) = text.split_once('_') else {
            return text.trim().parse().unwrap_or(0);
        };
        let (Ok(array), Ok(task)) = (array.parse::<u32>(), task.parse::<u32>()) else {
            return 0;
        };
        crate::jobs::fetch_jobs()
            .ok()
            .and_then(|(jobs, _)| {
                jobs.into_iter()
                    .find(|j| j.array_job_id == Some(array) && j.array_task_id == Some(task))
                    .map(|j| j.job_id)
            })
            .unwrap_or(0)
    })
}

/// Writes the job's batch script to `out`.
///
/// # Safety
/// `out` is a valid, writable `FILE *`.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_batch_script(out: *mut FILE, jobid: u32) -> c_int {
    guard("slurm_job_batch_script", ffi::SLURM_ERROR, || {
        if out.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        let job = match find_job_with_script(jobid) {
            Ok(job) => job,
            Err(e) => return e.fail(),
        };
        let Some(script) = job.spec.script.as_deref() else {
            // ESLURM_NOT_BATCH_JOB isn't in Spur's errno table; libslurm reports a missing script this way.
            return CallError::new(SlurmErrno::InvalidJobId.code()).fail();
        };
        let Ok(text) = CString::new(script) else {
            return CallError::new(libc::EINVAL).fail();
        };
        // SAFETY: `out` is the caller's open FILE; `text` is NUL-terminated.
        if unsafe { libc::fputs(text.as_ptr(), out as *mut libc::FILE) } < 0 {
            return CallError::new(libc::EIO).fail();
        }
        ffi::SLURM_SUCCESS
    })
}

/// Terminates a step: SIGKILL to the batch step's shell, or an srun step cancelled.
#[no_mangle]
pub extern "C" fn slurm_terminate_job_step(job_id: u32, step_id: u32) -> c_int {
    guard("slurm_terminate_job_step", ffi::SLURM_ERROR, || {
        let request = match crate::control::step_request(job_id, step_id, libc::SIGKILL) {
            Ok(request) => request,
            Err(e) => return e.fail(),
        };
        match client::control(&request) {
            Ok(()) => ffi::SLURM_SUCCESS,
            Err(e) => e.fail(),
        }
    })
}
