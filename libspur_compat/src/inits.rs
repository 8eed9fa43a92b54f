//! `slurm_init_*` for request structs other modules do not own (reservations, triggers, front ends, steps, step
//! launches): each sets libslurm's "unset" markers, measured on libslurm 22.05, so a caller's later update sees
//! the same values.

use slurm_headers::{
    resv_desc_msg_t, slurm_step_io_fds__bindgen_ty_1, slurm_step_launch_params_t,
    step_update_request_msg_t, trigger_info_t, update_front_end_msg_t,
};

use crate::ffi::{guard, NO_VAL, NO_VAL64};

/// # Safety
/// `p` is NULL or writable; zero is a valid value of `T` (plain C data).
pub(crate) unsafe fn zeroed<T>(p: *mut T) -> Option<&'static mut T> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller's contract.
    unsafe {
        std::ptr::write_bytes(p, 0, 1);
        Some(&mut *p)
    }
}

/// # Safety
/// `update_resv_msg` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_resv_desc_msg(update_resv_msg: *mut resv_desc_msg_t) {
    guard("slurm_init_resv_desc_msg", (), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { zeroed(update_resv_msg) } {
            r.duration = NO_VAL;
            r.end_time = i64::from(NO_VAL);
            r.flags = NO_VAL64;
            r.max_start_delay = NO_VAL;
            r.purge_comp_time = NO_VAL;
            r.start_time = i64::from(NO_VAL);
            r.resv_watts = NO_VAL;
        }
    })
}

/// # Safety
/// `trigger_info_msg` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_trigger_msg(trigger_info_msg: *mut trigger_info_t) {
    guard("slurm_init_trigger_msg", (), || {
        // SAFETY: the caller's contract.
        if let Some(t) = unsafe { zeroed(trigger_info_msg) } {
            t.user_id = NO_VAL;
        }
    })
}

/// # Safety
/// `update_front_end_msg` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_update_front_end_msg(
    update_front_end_msg: *mut update_front_end_msg_t,
) {
    guard("slurm_init_update_front_end_msg", (), || {
        // SAFETY: the caller's contract.
        if let Some(f) = unsafe { zeroed(update_front_end_msg) } {
            f.node_state = NO_VAL;
        }
    })
}

/// # Safety
/// `step_msg` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_update_step_msg(step_msg: *mut step_update_request_msg_t) {
    guard("slurm_init_update_step_msg", (), || {
        // SAFETY: the caller's contract.
        if let Some(s) = unsafe { zeroed(step_msg) } {
            s.job_id = NO_VAL;
            s.step_id = NO_VAL;
            s.time_limit = NO_VAL;
        }
    })
}

/// Standard input, output and error of a launch: the caller's own descriptors, for every task (`-1`) of every
/// node (`-1`).
fn local_fd(fd: i32) -> slurm_step_io_fds__bindgen_ty_1 {
    slurm_step_io_fds__bindgen_ty_1 {
        fd,
        taskid: u32::MAX,
        nodeid: u32::MAX,
    }
}

/// # Safety
/// `ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_step_launch_params_t_init(ptr: *mut slurm_step_launch_params_t) {
    guard("slurm_step_launch_params_t_init", (), || {
        // SAFETY: the caller's contract.
        if let Some(p) = unsafe { zeroed(ptr) } {
            p.buffered_stdio = true;
            p.local_fds.input = local_fd(0);
            p.local_fds.out = local_fd(1);
            p.local_fds.err = local_fd(2);
            p.het_job_node_offset = NO_VAL;
            p.het_job_id = NO_VAL;
            p.het_job_nnodes = NO_VAL;
            p.het_job_ntasks = NO_VAL;
            p.het_job_step_cnt = NO_VAL;
            p.het_job_offset = NO_VAL;
            p.het_job_task_offset = NO_VAL;
            p.cpu_freq_min = NO_VAL;
            p.cpu_freq_max = NO_VAL;
            p.cpu_freq_gov = NO_VAL;
        }
    })
}
