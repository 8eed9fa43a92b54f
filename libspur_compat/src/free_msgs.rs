//! The `slurm_free_*` functions libslurm exports beyond `<slurm/slurm.h>` that pyslurm calls on records it holds
//! one at a time (`slurm_free_job_info`, the `_members` forms), on messages it builds itself
//! (`update_node_msg_t`, `step_update_request_msg_t`), and `slurm_msg_t_init` for the raw RPC path.
//!
//! Records this library fills are plain `malloc` memory, so these release with `free()` exactly what
//! `slurm_load_*` allocated (the same field lists the message frees use), and what a caller allocated with
//! `slurm_xmalloc` (also `malloc` here).

use std::ffi::{c_char, c_int, c_void};

use slurm_headers::{
    job_info_t, job_step_info_t, node_info_t, partition_info_t, stats_info_response_msg_t,
    step_update_request_msg_t, update_node_msg_t, List,
};

use crate::ffi::{c_free, guard, NO_VAL16};

/// `slurm_addr_t`: `struct sockaddr_storage`.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct SockaddrStorage {
    pub bytes: [u8; 128],
}

/// `forward_t` of src/common/slurm_protocol_defs.h.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Forward {
    pub cnt: u16,
    pub init: u16,
    pub nodelist: *mut c_char,
    pub timeout: u32,
    pub tree_width: u16,
}

/// `slurm_msg_t` of Slurm 22.05's src/common/slurm_protocol_defs.h (not in the public headers; pyslurm declares
/// it to send raw RPCs), field for field.
#[repr(C)]
pub struct SlurmMsg {
    pub address: SockaddrStorage,
    pub auth_cred: *mut c_void,
    pub auth_index: c_int,
    pub auth_uid: u32,
    pub auth_uid_set: bool,
    pub restrict_uid: u32,
    pub restrict_uid_set: bool,
    pub body_offset: u32,
    pub buffer: *mut c_void,
    pub conn: *mut c_void,
    pub conn_fd: c_int,
    pub data: *mut c_void,
    pub data_size: u32,
    pub flags: u16,
    pub hash_index: u8,
    pub msg_type: u16,
    pub protocol_version: u16,
    pub forward: Forward,
    pub forward_struct: *mut c_void,
    pub orig_addr: SockaddrStorage,
    pub ret_list: List,
}

const _: () = assert!(std::mem::size_of::<SlurmMsg>() == 376);
const _: () = assert!(std::mem::offset_of!(SlurmMsg, msg_type) == 200);
const _: () = assert!(std::mem::offset_of!(SlurmMsg, forward) == 208);
const _: () = assert!(std::mem::offset_of!(SlurmMsg, ret_list) == 368);

/// `SLURM_AUTH_NOBODY`: the uid a message carries until its credential is verified.
const SLURM_AUTH_NOBODY: u32 = 99;
/// `FORWARD_INIT`.
const FORWARD_INIT: u16 = 0xfffe;

/// # Safety
/// `msg` is NULL or points to a writable `slurm_msg_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_msg_t_init(msg: *mut SlurmMsg) {
    guard("slurm_msg_t_init", (), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: the caller's contract; every field is valid when zeroed.
        unsafe {
            std::ptr::write_bytes(msg, 0, 1);
            let m = &mut *msg;
            m.auth_uid = SLURM_AUTH_NOBODY;
            m.conn_fd = -1;
            m.msg_type = NO_VAL16;
            m.protocol_version = NO_VAL16;
            m.forward.init = FORWARD_INIT;
        }
    })
}

/// `return_code_msg_t` (one `uint32_t return_code`, not in the public headers) holds nothing to free but itself.
///
/// # Safety
/// `msg` is NULL or a malloc'd message, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_return_code_msg(msg: *mut c_void) {
    // SAFETY: the caller's contract.
    guard("slurm_free_return_code_msg", (), || unsafe { c_free(msg) })
}

/// # Safety
/// `msg` is NULL or a malloc'd message, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_update_step_msg(msg: *mut step_update_request_msg_t) {
    // SAFETY: the caller's contract.
    guard("slurm_free_update_step_msg", (), || unsafe { c_free(msg) })
}

/// # Safety
/// `msg` is NULL or a malloc'd message whose strings are NULL or malloc'd, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_update_node_msg(msg: *mut update_node_msg_t) {
    guard("slurm_free_update_node_msg", (), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let m = &mut *msg;
            for p in [
                m.comment,
                m.extra,
                m.features,
                m.features_act,
                m.gres,
                m.node_addr,
                m.node_hostname,
                m.node_names,
                m.reason,
            ] {
                c_free(p);
            }
            c_free(msg);
        }
    })
}

/// # Safety
/// `msg` is NULL or a malloc'd message whose arrays are NULL or malloc'd, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_stats_response_msg(msg: *mut stats_info_response_msg_t) {
    guard("slurm_free_stats_response_msg", (), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let m = &mut *msg;
            c_free(m.rpc_type_id);
            c_free(m.rpc_type_cnt);
            c_free(m.rpc_type_time);
            c_free(m.rpc_user_id);
            c_free(m.rpc_user_cnt);
            c_free(m.rpc_user_time);
            c_free(m.rpc_queue_type_id);
            c_free(m.rpc_queue_count);
            c_free(m.rpc_dump_types);
            if !m.rpc_dump_hostlist.is_null() {
                for i in 0..m.rpc_dump_count as usize {
                    c_free(*m.rpc_dump_hostlist.add(i));
                }
                c_free(m.rpc_dump_hostlist);
            }
            c_free(msg);
        }
    })
}

/// Frees a job record's members and the record itself.
///
/// # Safety
/// `job` is NULL or a malloc'd record whose members this library (or the caller, with malloc) allocated.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_info(job: *mut job_info_t) {
    guard("slurm_free_job_info", (), || {
        if job.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            crate::jobs::free_job_fields(&mut *job);
            c_free(job);
        }
    })
}

/// # Safety
/// `job` is NULL or a record whose members are NULL or malloc'd; the record itself stays.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_info_members(job: *mut job_info_t) {
    guard("slurm_free_job_info_members", (), || {
        if !job.is_null() {
            // SAFETY: the caller's contract.
            unsafe { crate::jobs::free_job_fields(&mut *job) }
        }
    })
}

/// # Safety
/// As [`slurm_free_job_info_members`], for a step record.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_step_info_members(msg: *mut job_step_info_t) {
    guard("slurm_free_job_step_info_members", (), || {
        if !msg.is_null() {
            // SAFETY: the caller's contract.
            unsafe { crate::steps::free_step_fields(&mut *msg) }
        }
    })
}

/// # Safety
/// As [`slurm_free_job_info_members`], for a node record.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_node_info_members(node: *mut node_info_t) {
    guard("slurm_free_node_info_members", (), || {
        if !node.is_null() {
            // SAFETY: the caller's contract.
            unsafe { crate::nodes::free_node_fields(&mut *node) }
        }
    })
}

/// # Safety
/// As [`slurm_free_job_info_members`], for a partition record.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_partition_info_members(part: *mut partition_info_t) {
    guard("slurm_free_partition_info_members", (), || {
        if !part.is_null() {
            // SAFETY: the caller's contract.
            unsafe { crate::partitions::free_partition_fields(&mut *part) }
        }
    })
}
