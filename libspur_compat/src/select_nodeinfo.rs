//! `select_nodeinfo` of `node_info_t` (opaque in Slurm's headers) and `slurm_get_select_nodeinfo`: what sinfo-like
//! tools read for a node's allocated CPUs, memory and TRES.

use std::ffi::{c_char, c_int, c_void};

use slurm_headers::dynamic_plugin_data_t;
use spur_core::format::node_view;
use spur_core::model::records::NodeRecord;

use crate::ffi::{self, c_string, guard};

/// `select_nodedata_type` values the shim answers.
const SELECT_NODEDATA_SUBCNT: u32 = 2;
const SELECT_NODEDATA_MEM_ALLOC: u32 = 8;
const SELECT_NODEDATA_TRES_ALLOC_FMT_STR: u32 = 9;
const SELECT_NODEDATA_TRES_ALLOC_WEIGHTED: u32 = 10;
/// `NODE_STATE_ALLOCATED`: the only state whose CPU sub-count select/cons_tres reports.
const NODE_STATE_ALLOCATED: u32 = 3;

/// The shim's layout behind `node_info_t.select_nodeinfo`.
pub struct SelectNodeInfo {
    alloc_cpus: u16,
    alloc_mem_mb: u64,
    /// `cpu=1,mem=1G`; None while nothing is allocated (libslurm answers NULL then).
    alloc_tres: Option<String>,
}

/// Boxed for `select_nodeinfo` (freed by [`free`]).
pub fn of(node: &NodeRecord) -> *mut dynamic_plugin_data_t {
    let tres = node_view::alloc_tres(node);
    let info = SelectNodeInfo {
        alloc_cpus: u16::try_from(node.cpus_in_use()).unwrap_or(u16::MAX),
        alloc_mem_mb: node.alloc_mem_mb,
        alloc_tres: (!tres.is_empty()).then_some(tres),
    };
    Box::into_raw(Box::new(info)) as *mut dynamic_plugin_data_t
}

/// # Safety
/// `p` is NULL or from [`of`], not used afterwards.
pub unsafe fn free(p: *mut dynamic_plugin_data_t) {
    if !p.is_null() {
        // SAFETY: the caller's contract.
        drop(unsafe { Box::from_raw(p as *mut SelectNodeInfo) });
    }
}

/// # Safety
/// `nodeinfo` is NULL or a node record's `select_nodeinfo` from this library; `data` points to the type the
/// data type names (`uint16_t`, `uint64_t`, `char *`, `double`).
#[no_mangle]
pub unsafe extern "C" fn slurm_get_select_nodeinfo(
    nodeinfo: *mut dynamic_plugin_data_t,
    data_type: u32,
    state: u32,
    data: *mut c_void,
) -> c_int {
    guard("slurm_get_select_nodeinfo", ffi::SLURM_ERROR, || {
        if nodeinfo.is_null() || data.is_null() {
            ffi::log("error: nodeinfo not set");
            ffi::set_errno(libc::EINVAL);
            return ffi::SLURM_ERROR;
        }
        // SAFETY: the caller's contract.
        let info = unsafe { &*(nodeinfo as *const SelectNodeInfo) };
        // SAFETY: the caller's contract: `data` points to the type this data type documents (each write below).
        unsafe {
            match data_type {
                SELECT_NODEDATA_SUBCNT => {
                    *(data as *mut u16) = if state == NODE_STATE_ALLOCATED {
                        info.alloc_cpus
                    } else {
                        0
                    };
                }
                SELECT_NODEDATA_MEM_ALLOC => *(data as *mut u64) = info.alloc_mem_mb,
                SELECT_NODEDATA_TRES_ALLOC_FMT_STR => {
                    *(data as *mut *mut c_char) = info
                        .alloc_tres
                        .as_deref()
                        .map_or(std::ptr::null_mut(), c_string);
                }
                SELECT_NODEDATA_TRES_ALLOC_WEIGHTED => {
                    *(data as *mut f64) = f64::from(info.alloc_cpus);
                }
                _ => {
                    ffi::set_errno(ffi::ESLURM_NOT_SUPPORTED);
                    return ffi::SLURM_ERROR;
                }
            }
        }
        ffi::SLURM_SUCCESS
    })
}
