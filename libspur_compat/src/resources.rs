//! `job_resources_t` (opaque in Slurm's public headers): which CPUs a running job holds on each node. Filled for
//! `SHOW_DETAIL` loads, as slurmctld sends it only then, and read by `slurm_job_cpus_allocated_*`.

use std::ffi::{c_char, c_int};

use slurm_headers::job_resources_t;
use spur_core::model::job::JobRecord;

use crate::ffi::{self, guard, opt_str};

/// The shim's layout behind `job_info_t.job_resrcs`.
/// What `job_info_t.job_resrcs` points to. `<slurm/slurm.h>` declares the type opaque, but Debian's Perl API
/// reads Slurm's internal layout (src/common/job_resources.h) and walks the resources only when its first field,
/// `core_bitmap`, is set: keeping that word NULL makes it skip them (the API functions below answer instead)
/// rather than read this struct as Slurm's.
#[repr(C)]
struct Opaque {
    core_bitmap: *mut std::ffi::c_void,
    res: JobResources,
}

pub struct JobResources {
    nodes: Vec<String>,
    cpus: Vec<u32>,
    /// CPU ids per node as Slurm writes them (`0-1`).
    cpu_ids: Vec<String>,
}

/// The resources of a job with an allocation, boxed for `job_resrcs` (freed by [`free`]); NULL otherwise.
pub fn of(job: &JobRecord) -> *mut job_resources_t {
    let Some(alloc) = job.alloc.as_ref().filter(|a| !a.node_names.is_empty()) else {
        return std::ptr::null_mut();
    };
    let n = alloc.node_names.len() as u32;
    let per_node = alloc.cpus / n.max(1);
    let ids: Vec<u32> = if alloc.core_ids.is_empty() {
        (0..per_node).collect()
    } else {
        alloc.core_ids.clone()
    };
    let text = spur_core::format::format_task_ids(&ids);
    let res = JobResources {
        nodes: alloc.node_names.clone(),
        cpus: vec![per_node; alloc.node_names.len()],
        cpu_ids: vec![text; alloc.node_names.len()],
    };
    Box::into_raw(Box::new(Opaque {
        core_bitmap: std::ptr::null_mut(),
        res,
    })) as *mut job_resources_t
}

/// # Safety
/// `p` is NULL or from [`of`], not used afterwards.
pub unsafe fn free(p: *mut job_resources_t) {
    if !p.is_null() {
        // SAFETY: the caller's contract.
        drop(unsafe { Box::from_raw(p as *mut Opaque) });
    }
}

/// # Safety
/// `p` is NULL or from [`of`].
unsafe fn get<'a>(p: *mut job_resources_t) -> Option<&'a JobResources> {
    // SAFETY: the caller's contract.
    (!p.is_null()).then(|| unsafe { &(*(p as *const Opaque)).res })
}

/// # Safety
/// `name` is NULL or a C string.
unsafe fn index_of(res: &JobResources, name: *const c_char) -> Option<usize> {
    // SAFETY: the caller's contract.
    let name = unsafe { opt_str(name) }?;
    res.nodes.iter().position(|n| *n == name)
}

/// CPUs on the node, 0 for a node outside the job, -1 without resources (libslurm's answers).
///
/// # Safety
/// `job_resrcs_ptr` is NULL or from a job record this library loaded; `node_name` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_cpus_allocated_on_node(
    job_resrcs_ptr: *mut job_resources_t,
    node_name: *const c_char,
) -> c_int {
    guard("slurm_job_cpus_allocated_on_node", -1, || {
        // SAFETY: the caller's contract.
        let Some(res) = (unsafe { get(job_resrcs_ptr) }) else {
            return -1;
        };
        // SAFETY: the caller's contract.
        unsafe { index_of(res, node_name) }.map_or(0, |i| res.cpus[i] as c_int)
    })
}

/// # Safety
/// `job_resrcs_ptr` is NULL or from a job record this library loaded.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_cpus_allocated_on_node_id(
    job_resrcs_ptr: *mut job_resources_t,
    node_id: c_int,
) -> c_int {
    guard("slurm_job_cpus_allocated_on_node_id", -1, || {
        // SAFETY: the caller's contract.
        let Some(res) = (unsafe { get(job_resrcs_ptr) }) else {
            return -1;
        };
        usize::try_from(node_id)
            .ok()
            .and_then(|i| res.cpus.get(i))
            .map_or(0, |c| *c as c_int)
    })
}

/// # Safety
/// `cpus` has `cpus_len` bytes.
unsafe fn write_ids(cpus: *mut c_char, cpus_len: usize, text: &str) -> c_int {
    if cpus.is_null() || cpus_len == 0 {
        return ffi::SLURM_ERROR;
    }
    let bytes = text.as_bytes();
    let fit = bytes.len().min(cpus_len - 1);
    // SAFETY: `cpus` has cpus_len bytes; we write fit < cpus_len bytes and a NUL.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), cpus as *mut u8, fit);
        *cpus.add(fit) = 0;
    }
    ffi::SLURM_SUCCESS
}

/// The node's CPU ids (`0-1`) into `cpus`; SLURM_ERROR (buffer untouched) for a node outside the job, and with
/// errno EINVAL without resources.
///
/// # Safety
/// `cpus` has `cpus_len` bytes; `job_resrcs_ptr` NULL or from this library; `node_name` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_cpus_allocated_str_on_node(
    cpus: *mut c_char,
    cpus_len: usize,
    job_resrcs_ptr: *mut job_resources_t,
    node_name: *const c_char,
) -> c_int {
    guard(
        "slurm_job_cpus_allocated_str_on_node",
        ffi::SLURM_ERROR,
        || {
            // SAFETY: the caller's contract.
            let Some(res) = (unsafe { get(job_resrcs_ptr) }) else {
                ffi::set_errno(libc::EINVAL);
                return ffi::SLURM_ERROR;
            };
            // SAFETY: the caller's contract.
            match unsafe { index_of(res, node_name) } {
                // SAFETY: the caller's contract.
                Some(i) => unsafe { write_ids(cpus, cpus_len, &res.cpu_ids[i]) },
                None => ffi::SLURM_ERROR,
            }
        },
    )
}

/// # Safety
/// `cpus` has `cpus_len` bytes; `job_resrcs_ptr` NULL or from this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_cpus_allocated_str_on_node_id(
    cpus: *mut c_char,
    cpus_len: usize,
    job_resrcs_ptr: *mut job_resources_t,
    node_id: c_int,
) -> c_int {
    guard(
        "slurm_job_cpus_allocated_str_on_node_id",
        ffi::SLURM_ERROR,
        || {
            // SAFETY: the caller's contract.
            let Some(res) = (unsafe { get(job_resrcs_ptr) }) else {
                ffi::set_errno(libc::EINVAL);
                return ffi::SLURM_ERROR;
            };
            match usize::try_from(node_id)
                .ok()
                .and_then(|i| res.cpu_ids.get(i))
            {
                // SAFETY: the caller's contract.
                Some(text) => unsafe { write_ids(cpus, cpus_len, text) },
                None => ffi::SLURM_ERROR,
            }
        },
    )
}
