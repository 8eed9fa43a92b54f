//! Partition information: `slurm_load_partitions*` fill Slurm's `partition_info_t` array from the controller's
//! partition records; `slurm_free_partition_info_msg` releases them.

use std::ffi::c_int;

use slurm_headers::{partition_info_msg_t, partition_info_t, slurmdb_cluster_rec_t, time_t};
use spur_core::model::records::{NodeRecord, PartitionRecord, PartitionState};
use spur_core::wire::api::{Query, QueryReply};

use crate::client::{self, CallError};
use crate::ffi::{
    self, c_calloc, c_calloc_msg, c_free, c_opt_string, c_string, guard, INFINITE, NO_VAL,
};

/// Slurm's partition flag bits (`PART_FLAG_*`).
const PART_FLAG_DEFAULT: u16 = 1 << 0;
const PART_FLAG_HIDDEN: u16 = 1 << 1;
const PART_FLAG_NO_ROOT: u16 = 1 << 2;
const PART_FLAG_ROOT_ONLY: u16 = 1 << 3;
/// `SHARED_FORCE`: `OverSubscribe=FORCE` sets this bit on `max_share`.
const SHARED_FORCE: u16 = 0x8000;

fn fetch() -> Result<(Vec<PartitionRecord>, Vec<NodeRecord>, i64), CallError> {
    match client::query(&Query::Partitions)? {
        QueryReply::Partitions {
            partitions,
            nodes,
            now,
        } => Ok((partitions, nodes, now)),
        _ => Err(CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR)),
    }
}

/// `OverSubscribe=` as Slurm's `max_share`: EXCLUSIVE 0, NO 1, YES:n n, FORCE:n n|SHARED_FORCE.
fn max_share(text: &str) -> u16 {
    let upper = text.to_ascii_uppercase();
    let (kind, count) = match upper.split_once(':') {
        Some((k, n)) => (k.to_string(), n.parse().unwrap_or(4)),
        None => (upper.clone(), 4),
    };
    match kind.as_str() {
        "EXCLUSIVE" => 0,
        "YES" => count,
        "FORCE" => count | SHARED_FORCE,
        _ => 1,
    }
}

/// Index pairs of the `member` nodes in the node table, -1 terminated (Slurm's `node_inx` of partitions and
/// reservations).
pub(crate) fn node_index(nodes: &[NodeRecord], member: impl Fn(&str) -> bool) -> *mut i32 {
    let mut idx: Vec<i32> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| member(&n.name))
        .map(|(i, _)| i as i32)
        .collect();
    idx.sort_unstable();
    let mut pairs: Vec<i32> = Vec::new();
    for i in idx {
        match pairs.last_mut() {
            Some(end) if *end + 1 == i => *end = i,
            _ => {
                pairs.push(i);
                pairs.push(i);
            }
        }
    }
    pairs.push(-1);
    let out = c_calloc::<i32>(pairs.len());
    if !out.is_null() {
        // SAFETY: `out` holds pairs.len() slots.
        unsafe { std::ptr::copy_nonoverlapping(pairs.as_ptr(), out, pairs.len()) };
    }
    out
}

fn fill_partition(
    out: &mut partition_info_t,
    p: &PartitionRecord,
    nodes: &[NodeRecord],
    cluster: &str,
) {
    let members: Vec<&NodeRecord> = nodes.iter().filter(|n| p.nodes.contains(&n.name)).collect();
    out.allow_accounts = c_string(p.allow_accounts.as_deref().unwrap_or("ALL"));
    out.allow_groups = c_string(p.allow_groups.as_deref().unwrap_or("ALL"));
    out.allow_qos = c_string(p.allow_qos.as_deref().unwrap_or("ALL"));
    out.deny_accounts = c_opt_string(p.deny_accounts.as_deref());
    out.deny_qos = c_opt_string(p.deny_qos.as_deref());
    out.cluster_name = c_opt_string(Some(cluster).filter(|s| !s.is_empty()));
    out.def_mem_per_cpu = match (p.def_mem_per_cpu_mb, p.def_mem_per_node_mb) {
        (Some(m), _) => m | ffi::MEM_PER_CPU,
        (None, Some(m)) => m,
        (None, None) => 0,
    };
    out.default_time = p.default_time_min.unwrap_or(NO_VAL);
    let mut flags = 0;
    if p.default {
        flags |= PART_FLAG_DEFAULT;
    }
    if p.hidden {
        flags |= PART_FLAG_HIDDEN;
    }
    if p.root_only {
        flags |= PART_FLAG_ROOT_ONLY;
    }
    if p.disable_root_jobs {
        flags |= PART_FLAG_NO_ROOT;
    }
    out.flags = flags;
    out.grace_time = 0;
    out.max_cpus_per_node = INFINITE;
    out.max_mem_per_cpu = p.max_mem_per_node_mb.unwrap_or(0);
    out.max_nodes = p.max_nodes.unwrap_or(INFINITE);
    out.max_share = max_share(&p.oversubscribe);
    out.max_time = p.max_time_min.unwrap_or(INFINITE);
    out.min_nodes = p.min_nodes;
    out.name = c_string(&p.name);
    out.node_inx = node_index(nodes, |n| p.nodes.iter().any(|m| m == n));
    out.nodes = c_opt_string(Some(p.nodes_expr.as_str()).filter(|s| !s.is_empty()));
    out.over_time_limit = ffi::NO_VAL16;
    out.preempt_mode = 0;
    out.priority_job_factor = u16::try_from(p.priority_job_factor).unwrap_or(u16::MAX);
    out.priority_tier = u16::try_from(p.priority_tier).unwrap_or(u16::MAX);
    out.state_up = match p.state {
        PartitionState::Up => 3,
        PartitionState::Down => 1,
        PartitionState::Drain => 2,
        PartitionState::Inactive => 0,
    };
    out.suspend_time = NO_VAL;
    out.suspend_timeout = ffi::NO_VAL16;
    out.resume_timeout = ffi::NO_VAL16;
    out.total_cpus = members.iter().map(|n| n.cpus).sum();
    out.total_nodes = members.len() as u32;
    let mem: u64 = members.iter().map(|n| n.real_memory_mb).sum();
    out.tres_fmt_str = c_string(&format!(
        "cpu={},mem={},node={},billing={}",
        out.total_cpus,
        spur_core::format::units::mem_mb(mem),
        out.total_nodes,
        out.total_cpus
    ));
}

/// # Safety
/// The strings are NULL or malloc'd and owned by this record.
pub(crate) unsafe fn free_partition_fields(p: &mut partition_info_t) {
    // SAFETY: the caller's contract (job_defaults_list is never set by this library).
    unsafe {
        for s in [
            p.allow_alloc_nodes,
            p.allow_accounts,
            p.allow_groups,
            p.allow_qos,
            p.alternate,
            p.billing_weights_str,
            p.cluster_name,
            p.deny_accounts,
            p.deny_qos,
            p.job_defaults_str,
            p.name,
            p.nodes,
            p.nodesets,
            p.qos_char,
            p.tres_fmt_str,
        ] {
            c_free(s);
        }
        c_free(p.node_inx);
    }
}

fn deliver(resp: *mut *mut partition_info_msg_t) -> c_int {
    if resp.is_null() {
        return CallError::new(libc::EINVAL).fail();
    }
    let (parts, nodes, now) = match fetch() {
        Ok(r) => r,
        Err(e) => return e.fail(),
    };
    let cluster = client::cluster_name();
    let Some((msg, array)) = c_calloc_msg::<partition_info_msg_t, partition_info_t>(parts.len())
    else {
        return CallError::new(libc::ENOMEM).fail();
    };
    // SAFETY: `array` holds parts.len() zeroed records; `resp` checked non-NULL.
    unsafe {
        for (i, p) in parts.iter().enumerate() {
            fill_partition(&mut *array.add(i), p, &nodes, &cluster);
        }
        (*msg).last_update = now;
        (*msg).record_count = parts.len() as u32;
        (*msg).partition_array = array;
        *resp = msg;
    }
    let count = parts.len();
    crate::print::remember(
        array,
        count,
        crate::print::Records::Partitions(parts, nodes),
        now,
    );
    ffi::SLURM_SUCCESS
}

/// # Safety
/// `part_buffer_ptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_partitions(
    _update_time: time_t,
    part_buffer_ptr: *mut *mut partition_info_msg_t,
    _show_flags: u16,
) -> c_int {
    guard("slurm_load_partitions", ffi::SLURM_ERROR, || {
        deliver(part_buffer_ptr)
    })
}

/// # Safety
/// `resp` is a valid slot for the result; the cluster is ignored (one cluster).
#[no_mangle]
pub unsafe extern "C" fn slurm_load_partitions2(
    _update_time: time_t,
    resp: *mut *mut partition_info_msg_t,
    _show_flags: u16,
    _cluster: *mut slurmdb_cluster_rec_t,
) -> c_int {
    guard("slurm_load_partitions2", ffi::SLURM_ERROR, || deliver(resp))
}

/// # Safety
/// `part_info_ptr` is NULL or a message from `slurm_load_partitions*`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_partition_info_msg(part_info_ptr: *mut partition_info_msg_t) {
    guard("slurm_free_partition_info_msg", (), || {
        if part_info_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract: a message this library built.
        unsafe {
            let msg = &mut *part_info_ptr;
            if !msg.partition_array.is_null() {
                for i in 0..msg.record_count as usize {
                    free_partition_fields(&mut *msg.partition_array.add(i));
                }
                crate::print::forget(msg.partition_array);
                c_free(msg.partition_array);
            }
            c_free(part_info_ptr);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversubscribe_as_max_share() {
        assert_eq!(max_share("NO"), 1);
        assert_eq!(max_share("EXCLUSIVE"), 0);
        assert_eq!(max_share("YES:2"), 2);
        assert_eq!(max_share("FORCE:4"), 4 | SHARED_FORCE);
    }
}
