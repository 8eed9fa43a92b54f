//! `slurm_print_*`/`slurm_sprint_*` for jobs, nodes and partitions (reservations: `reservations.rs`): the text `scontrol show` prints, rendered by
//! spur-core's scontrol formatters (the same code as Spur's scontrol, which the conformance suite compares with
//! Slurm's). Each loaded message keeps the records it was built from until its `slurm_free_*`, so printing shows
//! exactly the snapshot the caller holds.

use std::collections::HashMap;
use std::ffi::{c_char, c_int};
use std::sync::Mutex;

use slurm_headers::{
    job_info_msg_t, node_info_msg_t, node_info_t, partition_info_msg_t, partition_info_t,
    slurm_job_info_t, FILE,
};
use spur_core::format::{
    scontrol_job, scontrol_node, scontrol_partition, scontrol_reservation, FormatContext,
};
use spur_core::model::job::JobRecord;
use spur_core::model::records::{NodeRecord, PartitionRecord};
use spur_core::model::reservation::ReservationRecord;

use crate::ffi::{c_string, guard};

/// The records behind one loaded message.
pub enum Records {
    Jobs(Vec<JobRecord>),
    Nodes(Vec<NodeRecord>),
    Partitions(Vec<PartitionRecord>, Vec<NodeRecord>),
    Reservations(Vec<ReservationRecord>),
}

struct Snapshot {
    records: Records,
    now: i64,
    /// Size of one C record, to find which record a pointer into the array names.
    record_size: usize,
    len: usize,
}

/// Snapshots by the address of the message's record array.
static SNAPSHOTS: Mutex<Option<HashMap<usize, Snapshot>>> = Mutex::new(None);

/// Remembers the records a message's array (`array`, `len` C records of type `T`) was filled from.
pub fn remember<T>(array: *const T, len: usize, records: Records, now: i64) {
    if let Ok(mut map) = SNAPSHOTS.lock() {
        map.get_or_insert_with(HashMap::new).insert(
            array as usize,
            Snapshot {
                records,
                now,
                record_size: std::mem::size_of::<T>(),
                len,
            },
        );
    }
}

/// Forgets a message's records (its `slurm_free_*`).
pub fn forget<T>(array: *const T) {
    if let Ok(mut map) = SNAPSHOTS.lock() {
        if let Some(m) = map.as_mut() {
            m.remove(&(array as usize));
        }
    }
}

/// Renders the records of the array holding `record` (all of them when `whole`), or None for unknown memory.
pub(crate) fn render<T>(record: *const T, whole: bool, one_liner: bool) -> Option<String> {
    let map = SNAPSHOTS.lock().ok()?;
    let addr = record as usize;
    let (base, snap) = map
        .as_ref()?
        .iter()
        .find(|(base, s)| addr >= **base && addr < **base + s.len.max(1) * s.record_size)?;
    let index = (addr - base) / snap.record_size;
    let range = if whole { 0..snap.len } else { index..index + 1 };
    render_range(snap, range, one_liner)
}

/// Renders job `job_id` from whichever loaded message holds it: what a record copied out of its message's array
/// (a struct assignment, as pyslurm and Perl's API make) is printed from. None when no message holds the job.
pub(crate) fn render_job_by_id(job_id: u32, one_liner: bool) -> Option<String> {
    let map = SNAPSHOTS.lock().ok()?;
    map.as_ref()?.values().find_map(|snap| match &snap.records {
        Records::Jobs(jobs) => {
            let index = jobs.iter().position(|j| j.job_id == job_id)?;
            render_range(snap, index..index + 1, one_liner)
        }
        _ => None,
    })
}

fn render_range(snap: &Snapshot, range: std::ops::Range<usize>, one_liner: bool) -> Option<String> {
    let mut ctx = FormatContext::new(snap.now, local_utc_offset());
    if let Some(name) =
        crate::client::load_conf().and_then(|c| c.get_str("ClusterName").map(str::to_string))
    {
        ctx = ctx.with_cluster(&name);
    }
    Some(match &snap.records {
        Records::Jobs(jobs) => {
            let jobs = jobs.get(range)?;
            for j in jobs {
                if let Some(user) = spur_auth::names::user_name(j.spec.user_id) {
                    ctx = ctx.with_user(j.spec.user_id, &user);
                }
                if let Some(group) = spur_auth::names::group_name(j.spec.group_id) {
                    ctx = ctx.with_group(j.spec.group_id, &group);
                }
            }
            scontrol_job::render(jobs, one_liner, &ctx)
        }
        Records::Nodes(nodes) => scontrol_node::render(nodes.get(range)?, one_liner, &ctx),
        Records::Partitions(parts, nodes) => {
            scontrol_partition::render(parts.get(range)?, nodes, one_liner, &ctx)
        }
        Records::Reservations(resvs) => {
            scontrol_reservation::render(resvs.get(range)?, one_liner, &ctx)
        }
    })
}

pub fn local_utc_offset() -> i32 {
    // SAFETY: localtime_r with a valid time and out-struct.
    unsafe {
        let now = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&now, &mut tm).is_null() {
            0
        } else {
            tm.tm_gmtoff as i32
        }
    }
}

/// `Job data as of 2026-11-30T19:50:00, record count 2` as libslurm heads a whole message.
pub(crate) fn header(what: &str, last_update: i64, count: u32) -> String {
    let when =
        spur_core::grammar::values::begin::format_local_time(last_update, local_utc_offset());
    format!("{what} data as of {when}, record count {count}\n")
}

/// # Safety
/// `out` is a writable `FILE *`.
pub(crate) unsafe fn write(out: *mut FILE, text: &str) {
    if out.is_null() {
        return;
    }
    if let Ok(c) = std::ffi::CString::new(text) {
        // SAFETY: the caller's contract; `c` is NUL-terminated.
        unsafe { libc::fputs(c.as_ptr(), out as *mut libc::FILE) };
    }
}

/// # Safety
/// `out` is a writable `FILE *`; `job_info_msg_ptr` NULL or a message from `slurm_load_job*`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_job_info_msg(
    out: *mut FILE,
    job_info_msg_ptr: *mut job_info_msg_t,
    one_liner: c_int,
) {
    guard("slurm_print_job_info_msg", (), || {
        if job_info_msg_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let msg = unsafe { &*job_info_msg_ptr };
        let mut text = header("Job", msg.last_update, msg.record_count);
        if msg.record_count > 0 {
            text.push_str(&render(msg.job_array, true, one_liner != 0).unwrap_or_default());
        }
        // SAFETY: the caller's contract.
        unsafe { write(out, &text) };
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `job_ptr` NULL or a record of a message from `slurm_load_job*`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_job_info(
    out: *mut FILE,
    job_ptr: *mut slurm_job_info_t,
    one_liner: c_int,
) {
    guard("slurm_print_job_info", (), || {
        let text = render(job_ptr, false, one_liner != 0).unwrap_or_default();
        // SAFETY: the caller's contract.
        unsafe { write(out, &text) };
    })
}

/// The text `slurm_print_job_info` prints, malloc'd (the caller frees it). A record copied out of its message is
/// found by its job id among the loaded messages; NULL only for a NULL record, since callers `strlen` the answer
/// as libslurm's is never NULL.
///
/// # Safety
/// `job_ptr` is NULL or points to a `slurm_job_info_t` (a record of a message from `slurm_load_job*`, or a copy).
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_job_info(
    job_ptr: *mut slurm_job_info_t,
    one_liner: c_int,
) -> *mut c_char {
    guard("slurm_sprint_job_info", std::ptr::null_mut(), || {
        if job_ptr.is_null() {
            return std::ptr::null_mut();
        }
        let text = render(job_ptr, false, one_liner != 0).or_else(|| {
            // SAFETY: the caller's contract: a readable record.
            let job_id = unsafe { (*job_ptr).job_id };
            render_job_by_id(job_id, one_liner != 0)
        });
        c_string(&text.unwrap_or_default())
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `node_info_msg_ptr` NULL or a message from `slurm_load_node*`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_node_info_msg(
    out: *mut FILE,
    node_info_msg_ptr: *mut node_info_msg_t,
    one_liner: c_int,
) {
    guard("slurm_print_node_info_msg", (), || {
        if node_info_msg_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let msg = unsafe { &*node_info_msg_ptr };
        let mut text = header("Node", msg.last_update, msg.record_count);
        if msg.record_count > 0 {
            text.push_str(&render(msg.node_array, true, one_liner != 0).unwrap_or_default());
        }
        // SAFETY: the caller's contract.
        unsafe { write(out, &text) };
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `node_ptr` NULL or a record of a message from `slurm_load_node*`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_node_table(
    out: *mut FILE,
    node_ptr: *mut node_info_t,
    one_liner: c_int,
) {
    guard("slurm_print_node_table", (), || {
        let text = render(node_ptr, false, one_liner != 0).unwrap_or_default();
        // SAFETY: the caller's contract.
        unsafe { write(out, &text) };
    })
}

/// # Safety
/// `node_ptr` is NULL or a record of a message from `slurm_load_node*`.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_node_table(
    node_ptr: *mut node_info_t,
    one_liner: c_int,
) -> *mut c_char {
    guard("slurm_sprint_node_table", std::ptr::null_mut(), || {
        render(node_ptr, false, one_liner != 0).map_or(std::ptr::null_mut(), |t| c_string(&t))
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `part_info_ptr` NULL or a message from `slurm_load_partitions*`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_partition_info_msg(
    out: *mut FILE,
    part_info_ptr: *mut partition_info_msg_t,
    one_liner: c_int,
) {
    guard("slurm_print_partition_info_msg", (), || {
        if part_info_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let msg = unsafe { &*part_info_ptr };
        let mut text = header("Partition", msg.last_update, msg.record_count);
        if msg.record_count > 0 {
            text.push_str(&render(msg.partition_array, true, one_liner != 0).unwrap_or_default());
        }
        // SAFETY: the caller's contract.
        unsafe { write(out, &text) };
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `part_ptr` NULL or a record of a message from `slurm_load_partitions*`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_partition_info(
    out: *mut FILE,
    part_ptr: *mut partition_info_t,
    one_liner: c_int,
) {
    guard("slurm_print_partition_info", (), || {
        let text = render(part_ptr, false, one_liner != 0).unwrap_or_default();
        // SAFETY: the caller's contract.
        unsafe { write(out, &text) };
    })
}

/// # Safety
/// `part_ptr` is NULL or a record of a message from `slurm_load_partitions*`.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_partition_info(
    part_ptr: *mut partition_info_t,
    one_liner: c_int,
) -> *mut c_char {
    guard("slurm_sprint_partition_info", std::ptr::null_mut(), || {
        render(part_ptr, false, one_liner != 0).map_or(std::ptr::null_mut(), |t| c_string(&t))
    })
}
