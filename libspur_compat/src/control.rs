//! Job, node and partition control: cancel, signal, hold/release through `slurm_update_job`, requeue, complete,
//! node and partition state changes, each as one `ControlRequest` to the controller.

use std::ffi::{c_char, c_int};

use slurm_headers::{job_array_resp_msg_t, job_desc_msg_t, update_node_msg_t, update_part_msg_t};
use spur_core::wire::api::{
    feature_list, ControlReply, ControlRequest, JobSelector, JobUpdate, NodeUpdateState,
    SignalScope, SlurmErrno,
};

use crate::client::{self, CallError};
use crate::ffi::{self, guard, opt_str, INFINITE, NO_VAL, NO_VAL16};

/// `KILL_JOB_BATCH`: signal only the batch shell.
const KILL_JOB_BATCH: u16 = 1 << 0;
/// `JOB_REQUEUE_HOLD`: requeue and hold.
const JOB_REQUEUE_HOLD: u32 = 1 << 11;
/// `JOB_SPECIAL_EXIT`: requeue in the special-exit hold.
const JOB_SPECIAL_EXIT: u32 = 1 << 12;
/// `SLURM_BATCH_SCRIPT`: the step id of a job's batch shell.
const SLURM_BATCH_SCRIPT: u32 = 0xffff_fffb;
/// `NODE_STATE_UNDRAIN`, `NODE_RESUME`, `NODE_STATE_DRAIN` (flag bits of `node_state` in an update).
const NODE_STATE_UNDRAIN: u32 = 1 << 6;
const NODE_RESUME: u32 = 1 << 8;
const NODE_STATE_DRAIN: u32 = 1 << 9;
/// Base node states a node update may ask for (`NODE_STATE_DOWN`, `NODE_STATE_IDLE`).
const NODE_STATE_DOWN: u32 = 1;
const NODE_STATE_IDLE: u32 = 2;

fn job(job_id: u32) -> JobSelector {
    JobSelector {
        job_id,
        array_task: None,
    }
}

/// `12` or `12_3`, as `slurm_kill_job2` and `slurm_requeue2` take job ids.
fn parse_job_text(text: &str) -> Option<JobSelector> {
    let (id, task) = match text.split_once('_') {
        Some((id, task)) => (id, Some(task.parse().ok()?)),
        None => (text, None),
    };
    Some(JobSelector {
        job_id: id.trim().parse().ok()?,
        array_task: task,
    })
}

fn run(request: ControlRequest) -> c_int {
    match client::control(&request) {
        Ok(()) => ffi::SLURM_SUCCESS,
        Err(e) => e.fail(),
    }
}

/// SIGKILL without flags cancels (scancel's default); other signals are delivered and the job keeps its state.
fn kill_or_signal(job: JobSelector, signal: u16, flags: u16) -> c_int {
    if i32::from(signal) == libc::SIGKILL && flags & KILL_JOB_BATCH == 0 {
        return run(ControlRequest::Cancel { job });
    }
    let scope = if flags & KILL_JOB_BATCH != 0 {
        SignalScope::BatchShell
    } else {
        SignalScope::All
    };
    run(ControlRequest::Signal {
        job,
        signal: i32::from(signal),
        scope,
    })
}

#[no_mangle]
pub extern "C" fn slurm_kill_job(job_id: u32, signal: u16, flags: u16) -> c_int {
    guard("slurm_kill_job", ffi::SLURM_ERROR, || {
        kill_or_signal(job(job_id), signal, flags)
    })
}

/// # Safety
/// `job_id` is a NUL-terminated string; `sibling` is ignored (no federation).
#[no_mangle]
pub unsafe extern "C" fn slurm_kill_job2(
    job_id: *const c_char,
    signal: u16,
    flags: u16,
    _sibling: *const c_char,
) -> c_int {
    guard("slurm_kill_job2", ffi::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        match unsafe { opt_str(job_id) }.and_then(|t| parse_job_text(&t)) {
            Some(sel) => kill_or_signal(sel, signal, flags),
            None => CallError::new(SlurmErrno::InvalidJobId.code()).fail(),
        }
    })
}

/// What signalling one step means to Spur's controller: the batch step is the job's batch shell; an srun step is
/// cancelled by SIGKILL (what `scancel JOB.STEP` sends) and sent any other signal for its tasks.
pub(crate) fn step_request(
    job_id: u32,
    step_id: u32,
    signal: i32,
) -> Result<ControlRequest, CallError> {
    match step_id {
        SLURM_BATCH_SCRIPT => Ok(ControlRequest::Signal {
            job: job(job_id),
            signal,
            scope: SignalScope::BatchShell,
        }),
        _ if signal == libc::SIGKILL && step_id < SLURM_BATCH_SCRIPT => {
            Ok(ControlRequest::CancelStep { job_id, step_id })
        }
        _ if step_id < SLURM_BATCH_SCRIPT => Ok(ControlRequest::SignalStep {
            job_id,
            step_id,
            signal,
        }),
        _ => Err(CallError::new(ffi::ESLURM_NOT_SUPPORTED)),
    }
}

#[no_mangle]
pub extern "C" fn slurm_kill_job_step(job_id: u32, step_id: u32, signal: u16) -> c_int {
    guard(
        "slurm_kill_job_step",
        ffi::SLURM_ERROR,
        || match step_request(job_id, step_id, i32::from(signal)) {
            Ok(request) => run(request),
            Err(e) => e.fail(),
        },
    )
}

#[no_mangle]
pub extern "C" fn slurm_signal_job(job_id: u32, signal: u16) -> c_int {
    guard("slurm_signal_job", ffi::SLURM_ERROR, || {
        run(ControlRequest::Signal {
            job: job(job_id),
            signal: i32::from(signal),
            scope: SignalScope::All,
        })
    })
}

#[no_mangle]
pub extern "C" fn slurm_signal_job_step(job_id: u32, step_id: u32, signal: u32) -> c_int {
    guard(
        "slurm_signal_job_step",
        ffi::SLURM_ERROR,
        || match step_request(job_id, step_id, signal as i32) {
            Ok(request) => run(request),
            Err(e) => e.fail(),
        },
    )
}

fn requeue(sel: JobSelector, flags: u32) -> c_int {
    run(ControlRequest::Requeue {
        job: sel,
        hold: flags & (JOB_REQUEUE_HOLD | JOB_SPECIAL_EXIT) != 0,
    })
}

#[no_mangle]
pub extern "C" fn slurm_requeue(job_id: u32, flags: u32) -> c_int {
    guard("slurm_requeue", ffi::SLURM_ERROR, || {
        requeue(job(job_id), flags)
    })
}

/// # Safety
/// `job_id` is a NUL-terminated string; `resp` NULL or a valid slot (left NULL: no per-task errors).
#[no_mangle]
pub unsafe extern "C" fn slurm_requeue2(
    job_id: *mut c_char,
    flags: u32,
    resp: *mut *mut job_array_resp_msg_t,
) -> c_int {
    guard("slurm_requeue2", ffi::SLURM_ERROR, || {
        if !resp.is_null() {
            // SAFETY: caller's slot.
            unsafe { *resp = std::ptr::null_mut() };
        }
        // SAFETY: the caller's contract.
        match unsafe { opt_str(job_id) }.and_then(|t| parse_job_text(&t)) {
            Some(sel) => requeue(sel, flags),
            None => CallError::new(SlurmErrno::InvalidJobId.code()).fail(),
        }
    })
}

/// `job_return_code` is a wait status: exit code in the high byte, terminating signal in the low bits.
#[no_mangle]
pub extern "C" fn slurm_complete_job(job_id: u32, job_return_code: u32) -> c_int {
    guard("slurm_complete_job", ffi::SLURM_ERROR, || {
        run(ControlRequest::Complete {
            job: job(job_id),
            exit_code: (job_return_code >> 8) & 0xff,
            signal: job_return_code & 0x7f,
        })
    })
}

/// The changes a job description asks for, as scontrol update's fields; hold/release ride on `priority`.
///
/// # Safety
/// Pointers in `d` are NULL or valid.
unsafe fn job_update(d: &job_desc_msg_t) -> (JobUpdate, Option<bool>) {
    // SAFETY: the caller's contract.
    let s = |p: *mut c_char| unsafe { opt_str(p) }.map(|c| c.into_owned());
    let mut u = JobUpdate::default();
    if d.time_limit != NO_VAL {
        u.time_limit_min = Some((d.time_limit != INFINITE).then_some(d.time_limit));
    }
    u.name = s(d.name);
    u.partition = s(d.partition);
    if d.nice != NO_VAL {
        u.nice = Some((i64::from(d.nice) - 0x8000_0000) as i32);
    }
    let hold = match d.priority {
        0 => Some(true),
        INFINITE => Some(false),
        NO_VAL => None,
        p => {
            u.priority = Some(p);
            None
        }
    };
    u.comment = s(d.comment);
    if d.num_tasks != NO_VAL {
        u.num_tasks = Some(d.num_tasks);
    }
    u.dependency = s(d.dependency);
    if d.begin_time != 0 {
        u.begin_time = Some(d.begin_time);
    }
    (u, hold)
}

/// # Safety
/// `job_msg` is a valid description naming the job by `job_id` or `job_id_str`.
unsafe fn update_job(job_msg: *mut job_desc_msg_t) -> c_int {
    if job_msg.is_null() {
        return CallError::new(libc::EINVAL).fail();
    }
    // SAFETY: non-NULL; the caller's contract.
    let d = unsafe { &*job_msg };
    // SAFETY: as above.
    let by_text = unsafe { opt_str(d.job_id_str) }.and_then(|t| parse_job_text(&t));
    let sel = match by_text {
        Some(sel) => sel,
        None if d.job_id != NO_VAL => job(d.job_id),
        None => return CallError::new(SlurmErrno::InvalidJobId.code()).fail(),
    };
    // SAFETY: as above.
    let (update, hold) = unsafe { job_update(d) };
    if update != JobUpdate::default() {
        let rc = run(ControlRequest::UpdateJob {
            job: sel.clone(),
            update,
        });
        if rc != ffi::SLURM_SUCCESS {
            return rc;
        }
    }
    match hold {
        Some(true) => run(ControlRequest::Hold {
            job: sel,
            by_user: nix::unistd::getuid().as_raw() != 0,
        }),
        Some(false) => run(ControlRequest::Release { job: sel }),
        None => ffi::SLURM_SUCCESS,
    }
}

/// # Safety
/// `job_msg` is a valid description.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_job(job_msg: *mut job_desc_msg_t) -> c_int {
    // SAFETY: the caller's contract.
    guard("slurm_update_job", ffi::SLURM_ERROR, || unsafe {
        update_job(job_msg)
    })
}

/// # Safety
/// `job_msg` is a valid description; `resp` NULL or a valid slot (left NULL).
#[no_mangle]
pub unsafe extern "C" fn slurm_update_job2(
    job_msg: *mut job_desc_msg_t,
    resp: *mut *mut job_array_resp_msg_t,
) -> c_int {
    guard("slurm_update_job2", ffi::SLURM_ERROR, || {
        if !resp.is_null() {
            // SAFETY: caller's slot.
            unsafe { *resp = std::ptr::null_mut() };
        }
        // SAFETY: the caller's contract.
        unsafe { update_job(job_msg) }
    })
}

/// # Safety
/// `msg` is NULL or a response this library never allocates (always NULL here), so only NULL-safe freeing.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_array_resp(msg: *mut job_array_resp_msg_t) {
    guard("slurm_free_job_array_resp", (), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: a caller-built response with malloc'd arrays, as libslurm's own layout.
        unsafe {
            let m = &mut *msg;
            for i in 0..m.job_array_count as usize {
                if !m.job_array_id.is_null() {
                    ffi::c_free(*m.job_array_id.add(i));
                }
            }
            ffi::c_free(m.job_array_id);
            ffi::c_free(m.error_code);
            ffi::c_free(msg);
        }
    })
}

/// # Safety
/// `update_node_msg` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_update_node_msg(update_node_msg: *mut update_node_msg_t) {
    guard("slurm_init_update_node_msg", (), || {
        if update_node_msg.is_null() {
            return;
        }
        // SAFETY: writable by the caller's contract; all-zero is valid C data.
        unsafe {
            *update_node_msg = std::mem::zeroed();
            (*update_node_msg).cpu_bind = 0;
            (*update_node_msg).node_state = NO_VAL;
            (*update_node_msg).weight = NO_VAL;
        }
    })
}

fn node_update_state(state: u32) -> Option<NodeUpdateState> {
    if state == NO_VAL {
        None
    } else if state & NODE_STATE_DRAIN != 0 {
        Some(NodeUpdateState::Drain)
    } else if state & NODE_RESUME != 0 {
        Some(NodeUpdateState::Resume)
    } else if state & NODE_STATE_UNDRAIN != 0 {
        Some(NodeUpdateState::Undrain)
    } else if state == NODE_STATE_DOWN {
        Some(NodeUpdateState::Down)
    } else if state == NODE_STATE_IDLE {
        Some(NodeUpdateState::Idle)
    } else {
        None
    }
}

/// # Safety
/// `node_msg` is a valid update.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_node(node_msg: *mut update_node_msg_t) -> c_int {
    guard("slurm_update_node", ffi::SLURM_ERROR, || {
        if node_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: non-NULL; the caller's contract.
        let m = unsafe { &*node_msg };
        // SAFETY: as above.
        let names = unsafe { opt_str(m.node_names) }.map(|s| s.into_owned());
        let Some(names) = names else {
            return CallError::new(SlurmErrno::InvalidNodeName.code()).fail();
        };
        let Ok(nodes) = spur_core::grammar::hostlist::expand(&names) else {
            return CallError::new(SlurmErrno::InvalidNodeName.code()).fail();
        };
        // Spur changes a node's state (with its reason), weight and features (active ones only as the available
        // ones: one list); its other fields are fixed by slurm.conf, so a request for them is refused rather than
        // answered success with nothing done.
        let other_fields = [m.comment, m.extra, m.gres, m.node_addr, m.node_hostname];
        if other_fields.iter().any(|p| !p.is_null()) || m.cpu_bind != 0 {
            return CallError::new(ffi::ESLURM_NOT_SUPPORTED).fail();
        }
        // NO_VAL leaves the state as it is, as in libslurm.
        let state = match (m.node_state, node_update_state(m.node_state)) {
            (NO_VAL, _) => None,
            (_, Some(state)) => Some(state),
            (_, None) => return CallError::new(ffi::ESLURM_NOT_SUPPORTED).fail(),
        };
        run(ControlRequest::UpdateNode {
            nodes,
            state,
            // SAFETY: as above.
            reason: unsafe { opt_str(m.reason) }.map(|s| s.into_owned()),
            weight: Some(m.weight).filter(|w| *w != NO_VAL),
            // SAFETY: as above.
            features: unsafe { opt_str(m.features) }.map(|f| feature_list(&f)),
            // SAFETY: as above.
            active_features: unsafe { opt_str(m.features_act) }.map(|f| feature_list(&f)),
        })
    })
}

/// # Safety
/// `update_part_msg` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_part_desc_msg(update_part_msg: *mut update_part_msg_t) {
    guard("slurm_init_part_desc_msg", (), || {
        if update_part_msg.is_null() {
            return;
        }
        // SAFETY: writable by the caller's contract; all-zero is valid C data.
        unsafe {
            let p = &mut *update_part_msg;
            *p = std::mem::zeroed();
            p.default_time = NO_VAL;
            p.def_mem_per_cpu = ffi::NO_VAL64;
            p.grace_time = NO_VAL;
            p.max_cpus_per_node = NO_VAL;
            p.max_mem_per_cpu = ffi::NO_VAL64;
            p.max_nodes = NO_VAL;
            p.max_share = NO_VAL16;
            p.max_time = NO_VAL;
            p.min_nodes = NO_VAL;
            p.over_time_limit = NO_VAL16;
            p.preempt_mode = NO_VAL16;
            p.priority_job_factor = NO_VAL16;
            p.priority_tier = NO_VAL16;
            p.resume_timeout = NO_VAL16;
            p.state_up = NO_VAL16;
            p.suspend_time = NO_VAL;
            p.suspend_timeout = NO_VAL16;
        }
    })
}

/// `slurm_suspend`: stop a running job (operators only), as `scontrol suspend` does.
#[no_mangle]
pub extern "C" fn slurm_suspend(job_id: u32) -> c_int {
    guard("slurm_suspend", ffi::SLURM_ERROR, || {
        run(ControlRequest::Suspend { job: job(job_id) })
    })
}

/// `slurm_resume`: continue a suspended job.
#[no_mangle]
pub extern "C" fn slurm_resume(job_id: u32) -> c_int {
    guard("slurm_resume", ffi::SLURM_ERROR, || {
        run(ControlRequest::Resume { job: job(job_id) })
    })
}

/// libslurm's answer to a suspend or resume by job id text: one job's failure is the return code (and errno);
/// failures of array tasks come back as a `job_array_resp_msg_t` with success, as slurmctld reports them.
fn per_job_answer(
    sel: &JobSelector,
    reply: Result<ControlReply, CallError>,
    resp: *mut *mut job_array_resp_msg_t,
) -> c_int {
    let failures = match reply {
        Ok(r) => r.failures,
        Err(e) => return single_failure(e.errno),
    };
    let plain = sel.job_id.to_string();
    match failures.as_slice() {
        [] => ffi::SLURM_SUCCESS,
        [(id, e)] if *id == plain || sel.array_task.is_some() => single_failure(e.errno.code()),
        many => {
            if !resp.is_null() {
                // SAFETY: the caller's slot.
                unsafe { *resp = array_resp(many) };
            }
            ffi::SLURM_SUCCESS
        }
    }
}

/// One job's failure: its code, returned and in errno. An unknown job is the exception: slurmctld answers it in a
/// form libslurm does not expect, so the caller sees `SLURM_ERROR` with `SLURM_UNEXPECTED_MSG_ERROR` (Spur's
/// controller already reports that code for it, so scontrol prints Slurm's text).
fn single_failure(code: i32) -> c_int {
    if code == SlurmErrno::InvalidJobId.code() || code == ffi::SLURM_UNEXPECTED_MSG_ERROR {
        return CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR).fail();
    }
    ffi::set_errno(code);
    code
}

/// A `job_array_resp_msg_t` of `(task id, error)` pairs, freed by `slurm_free_job_array_resp`.
fn array_resp(failures: &[(String, spur_core::wire::api::ApiError)]) -> *mut job_array_resp_msg_t {
    let msg = ffi::c_calloc::<job_array_resp_msg_t>(1);
    let ids = ffi::c_calloc::<*mut c_char>(failures.len());
    let codes = ffi::c_calloc::<u32>(failures.len());
    if msg.is_null() || ids.is_null() || codes.is_null() {
        // SAFETY: fresh allocations or NULL.
        unsafe {
            ffi::c_free(msg);
            ffi::c_free(ids);
            ffi::c_free(codes);
        }
        return std::ptr::null_mut();
    }
    for (i, (id, e)) in failures.iter().enumerate() {
        // SAFETY: both arrays hold failures.len() elements.
        unsafe {
            *ids.add(i) = ffi::c_string(id);
            *codes.add(i) = e.errno.code() as u32;
        }
    }
    // SAFETY: fresh zeroed message.
    unsafe {
        (*msg).job_array_count = failures.len() as u32;
        (*msg).job_array_id = ids;
        (*msg).error_code = codes;
    }
    msg
}

/// # Safety
/// `job_id` is NULL or a NUL-terminated job id (`12`, `12_3`); `resp` NULL or a valid slot.
unsafe fn suspend_or_resume(
    job_id: *mut c_char,
    resp: *mut *mut job_array_resp_msg_t,
    make: fn(JobSelector) -> ControlRequest,
) -> c_int {
    if !resp.is_null() {
        // SAFETY: caller's slot.
        unsafe { *resp = std::ptr::null_mut() };
    }
    // SAFETY: the caller's contract.
    let Some(sel) = unsafe { opt_str(job_id) }.and_then(|t| parse_job_text(&t)) else {
        // slurmctld cannot parse the id and libslurm reports the answer it then gets as unexpected.
        return CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR).fail();
    };
    let reply = client::control_reply(&make(sel.clone()));
    per_job_answer(&sel, reply, resp)
}

/// # Safety
/// As [`suspend_or_resume`].
#[no_mangle]
pub unsafe extern "C" fn slurm_suspend2(
    job_id: *mut c_char,
    resp: *mut *mut job_array_resp_msg_t,
) -> c_int {
    guard("slurm_suspend2", ffi::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        unsafe { suspend_or_resume(job_id, resp, |job| ControlRequest::Suspend { job }) }
    })
}

/// # Safety
/// As [`suspend_or_resume`].
#[no_mangle]
pub unsafe extern "C" fn slurm_resume2(
    job_id: *mut c_char,
    resp: *mut *mut job_array_resp_msg_t,
) -> c_int {
    guard("slurm_resume2", ffi::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        unsafe { suspend_or_resume(job_id, resp, |job| ControlRequest::Resume { job }) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_texts() {
        assert_eq!(parse_job_text("12"), Some(job(12)));
        assert_eq!(
            parse_job_text("12_3"),
            Some(JobSelector {
                job_id: 12,
                array_task: Some(3)
            })
        );
        assert_eq!(parse_job_text("x"), None);
    }

    #[test]
    fn node_states() {
        assert_eq!(
            node_update_state(NODE_STATE_DRAIN),
            Some(NodeUpdateState::Drain)
        );
        assert_eq!(
            node_update_state(NODE_RESUME),
            Some(NodeUpdateState::Resume)
        );
        assert_eq!(node_update_state(NO_VAL), None);
    }
}
