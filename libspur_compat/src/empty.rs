//! Loads of things a Spur cluster does not have (front-end nodes, topology, burst buffers, triggers): they answer an empty list, as libslurm does for a cluster configured without them, and the
//! matching frees release it. Since these messages never hold records, freeing the array and message is complete.

use std::ffi::c_int;

use slurm_headers::{
    burst_buffer_info_msg_t, front_end_info_msg_t, time_t, topo_info_response_msg_t,
    trigger_info_msg_t,
};

use crate::client::CallError;
use crate::ffi::{self, c_calloc, c_free, guard};

/// Stores a zeroed (empty) message in `*out`, stamped with `now` where the message has a time.
fn empty<T>(out: *mut *mut T, stamp: impl FnOnce(&mut T)) -> c_int {
    if out.is_null() {
        return CallError::new(libc::EINVAL).fail();
    }
    let msg = c_calloc::<T>(1);
    if msg.is_null() {
        return CallError::new(libc::ENOMEM).fail();
    }
    // SAFETY: fresh zeroed allocation (a valid empty message); the caller's slot checked non-NULL.
    unsafe {
        stamp(&mut *msg);
        *out = msg;
    }
    ffi::SLURM_SUCCESS
}

/// # Safety
/// `msg` is NULL or an empty message from this module, not used afterwards.
unsafe fn free_empty<T, A>(msg: *mut T, array: impl FnOnce(&T) -> *mut A) {
    if msg.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    unsafe {
        c_free(array(&*msg));
        c_free(msg);
    }
}

/// # Safety
/// `resp` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_front_end(
    _update_time: time_t,
    resp: *mut *mut front_end_info_msg_t,
) -> c_int {
    guard("slurm_load_front_end", ffi::SLURM_ERROR, || {
        empty(resp, |m: &mut front_end_info_msg_t| {
            m.last_update = ffi::now()
        })
    })
}

/// # Safety
/// `front_end_buffer_ptr` is NULL or a message from `slurm_load_front_end`.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_front_end_info_msg(
    front_end_buffer_ptr: *mut front_end_info_msg_t,
) {
    // SAFETY: the caller's contract.
    guard("slurm_free_front_end_info_msg", (), || unsafe {
        free_empty(front_end_buffer_ptr, |m| m.front_end_array)
    })
}

/// # Safety
/// `topo_info_msg_pptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_topo(
    topo_info_msg_pptr: *mut *mut topo_info_response_msg_t,
) -> c_int {
    guard("slurm_load_topo", ffi::SLURM_ERROR, || {
        empty(topo_info_msg_pptr, |_: &mut topo_info_response_msg_t| {})
    })
}

/// # Safety
/// `msg` is NULL or a message from `slurm_load_topo`.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_topo_info_msg(msg: *mut topo_info_response_msg_t) {
    // SAFETY: the caller's contract.
    guard("slurm_free_topo_info_msg", (), || unsafe {
        free_empty(msg, |m| m.topo_array)
    })
}

/// # Safety
/// `burst_buffer_info_msg_pptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_burst_buffer_info(
    burst_buffer_info_msg_pptr: *mut *mut burst_buffer_info_msg_t,
) -> c_int {
    guard("slurm_load_burst_buffer_info", ffi::SLURM_ERROR, || {
        empty(
            burst_buffer_info_msg_pptr,
            |_: &mut burst_buffer_info_msg_t| {},
        )
    })
}

/// # Safety
/// `burst_buffer_info_msg` is NULL or a message from `slurm_load_burst_buffer_info`.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_burst_buffer_info_msg(
    burst_buffer_info_msg: *mut burst_buffer_info_msg_t,
) {
    // SAFETY: the caller's contract.
    guard("slurm_free_burst_buffer_info_msg", (), || unsafe {
        free_empty(burst_buffer_info_msg, |m| m.burst_buffer_array)
    })
}

/// # Safety
/// `trigger_get` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_triggers(trigger_get: *mut *mut trigger_info_msg_t) -> c_int {
    guard("slurm_get_triggers", ffi::SLURM_ERROR, || {
        empty(trigger_get, |_: &mut trigger_info_msg_t| {})
    })
}

/// # Safety
/// `trigger_free` is NULL or a message from `slurm_get_triggers`.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_trigger_msg(trigger_free: *mut trigger_info_msg_t) {
    // SAFETY: the caller's contract.
    guard("slurm_free_trigger_msg", (), || unsafe {
        free_empty(trigger_free, |m| m.trigger_array)
    })
}

/// `scontrol show bbstat`: without a burst buffer plugin slurmctld has no status to report, which libslurm
/// returns as success with no text.
///
/// # Safety
/// `status_resp` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_burst_buffer_stat(
    _argc: c_int,
    _argv: *mut *mut std::ffi::c_char,
    status_resp: *mut *mut std::ffi::c_char,
) -> c_int {
    guard("slurm_load_burst_buffer_stat", ffi::SLURM_ERROR, || {
        if status_resp.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        match crate::client::ping() {
            Ok(()) => {
                // SAFETY: the caller's slot.
                unsafe { *status_resp = std::ptr::null_mut() };
                ffi::SLURM_SUCCESS
            }
            Err(e) => e.fail(),
        }
    })
}
