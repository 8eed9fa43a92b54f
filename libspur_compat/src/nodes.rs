//! Node information: `slurm_load_node*` fill Slurm's `node_info_t` array from the controller's node records;
//! `slurm_free_node_info_msg` releases them.

use std::ffi::{c_char, c_int};

use slurm_headers::{
    node_info_msg_t, node_info_t, partition_info_msg_t, slurmdb_cluster_rec_t, time_t,
};
use spur_core::format::node_view;
use spur_core::model::records::NodeRecord;
use spur_core::wire::api::{Query, QueryReply};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc_msg, c_free, c_opt_string, c_string, guard, opt_str};

pub fn fetch_nodes() -> Result<(Vec<NodeRecord>, i64), CallError> {
    match client::query(&Query::Nodes)? {
        QueryReply::Nodes { nodes, now } => Ok((nodes, now)),
        _ => Err(CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR)),
    }
}

fn fill_node(out: &mut node_info_t, n: &NodeRecord, cluster: &str) {
    out.arch = c_opt_string(Some(n.arch.as_str()).filter(|s| !s.is_empty()));
    out.boards = u16::try_from(n.boards).unwrap_or(1);
    out.boot_time = n.boot_time.unwrap_or(0);
    out.cluster_name = c_opt_string(Some(cluster).filter(|s| !s.is_empty()));
    out.cores = u16::try_from(n.cores_per_socket).unwrap_or(u16::MAX);
    // Slurm reports load times 100; NO_VAL when unknown.
    out.cpu_load = n.cpu_load.map_or(ffi::NO_VAL, |l| (l * 100.0) as u32);
    out.free_mem = n.free_mem_mb.unwrap_or(ffi::NO_VAL64);
    out.cpus = u16::try_from(n.cpus).unwrap_or(u16::MAX);
    out.cpus_efctv = out.cpus;
    out.features = c_opt_string(node_view::features(n).as_deref());
    out.features_act = c_opt_string(node_view::features(n).as_deref());
    out.gres = c_opt_string(node_view::gres(n).as_deref());
    out.gres_used = c_opt_string(node_view::gres_used(n).as_deref());
    out.last_busy = n.last_busy_time.unwrap_or(0);
    out.name = c_string(&n.name);
    out.next_state = ffi::NO_VAL;
    out.node_addr = c_string(&n.addr);
    out.node_hostname = c_string(&n.hostname);
    out.node_state = n.full_state().to_raw();
    out.os = c_opt_string(Some(n.os.as_str()).filter(|s| !s.is_empty()));
    out.owner = ffi::NO_VAL;
    out.partitions = c_opt_string(
        Some(n.partitions.join(","))
            .filter(|s| !s.is_empty())
            .as_deref(),
    );
    out.port = n.port.unwrap_or(0);
    out.real_memory = n.real_memory_mb;
    out.reason = c_opt_string(n.reason.as_deref());
    out.reason_time = n.reason_time.unwrap_or(0);
    out.reason_uid = n.reason_uid.unwrap_or(ffi::NO_VAL);
    out.slurmd_start_time = n.agent_start_time.unwrap_or(0);
    out.sockets = u16::try_from(n.sockets).unwrap_or(u16::MAX);
    out.threads = u16::try_from(n.threads_per_core).unwrap_or(u16::MAX);
    out.tmp_disk = u32::try_from(n.tmp_disk_mb).unwrap_or(u32::MAX);
    out.weight = n.weight;
    out.tres_fmt_str = c_string(&node_view::cfg_tres(n));
    out.version = c_opt_string(Some(n.version.as_str()).filter(|s| !s.is_empty()));
    out.select_nodeinfo = crate::select_nodeinfo::of(n);
}

/// # Safety
/// The strings are NULL or malloc'd and owned by this record.
pub(crate) unsafe fn free_node_fields(n: &mut node_info_t) {
    // SAFETY: the caller's contract.
    unsafe {
        for p in [
            n.arch,
            n.bcast_address,
            n.cluster_name,
            n.cpu_spec_list,
            n.extra,
            n.features,
            n.features_act,
            n.gres,
            n.gres_drain,
            n.gres_used,
            n.mcs_label,
            n.name,
            n.node_addr,
            n.node_hostname,
            n.os,
            n.partitions,
            n.comment,
            n.reason,
            n.tres_fmt_str,
            n.version,
        ] {
            c_free(p);
        }
        crate::select_nodeinfo::free(n.select_nodeinfo);
    }
}

pub fn node_info_msg(nodes: Vec<NodeRecord>, now: i64) -> *mut node_info_msg_t {
    let cluster = client::cluster_name();
    let Some((msg, array)) = c_calloc_msg::<node_info_msg_t, node_info_t>(nodes.len()) else {
        return std::ptr::null_mut();
    };
    // SAFETY: `array` holds nodes.len() zeroed records.
    unsafe {
        for (i, node) in nodes.iter().enumerate() {
            fill_node(&mut *array.add(i), node, &cluster);
        }
        (*msg).last_update = now;
        (*msg).record_count = nodes.len() as u32;
        (*msg).node_array = array;
    }
    crate::print::remember(array, nodes.len(), crate::print::Records::Nodes(nodes), now);
    msg
}

fn deliver(
    resp: *mut *mut node_info_msg_t,
    nodes: Result<(Vec<NodeRecord>, i64), CallError>,
) -> c_int {
    ffi::deliver_message(resp, nodes, |(nodes, now)| node_info_msg(nodes, now))
}

/// # Safety
/// `resp` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node(
    _update_time: time_t,
    resp: *mut *mut node_info_msg_t,
    _show_flags: u16,
) -> c_int {
    guard("slurm_load_node", ffi::SLURM_ERROR, || {
        deliver(resp, fetch_nodes())
    })
}

/// The cluster argument selects a federation member; Spur has one cluster, so it is ignored.
///
/// # Safety
/// `resp` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node2(
    _update_time: time_t,
    resp: *mut *mut node_info_msg_t,
    _show_flags: u16,
    _cluster: *mut slurmdb_cluster_rec_t,
) -> c_int {
    guard("slurm_load_node2", ffi::SLURM_ERROR, || {
        deliver(resp, fetch_nodes())
    })
}

fn single(node_name: *mut c_char) -> Result<(Vec<NodeRecord>, i64), CallError> {
    // SAFETY: the exports' contract: NULL or a C string.
    let name = unsafe { opt_str(node_name) }.map(|s| s.into_owned());
    let (nodes, now) = fetch_nodes()?;
    let found: Vec<NodeRecord> = nodes
        .into_iter()
        .filter(|n| name.as_deref().is_none_or(|want| n.name == want))
        .collect();
    // libslurm answers an unknown name with an empty list, not an error.
    Ok((found, now))
}

/// # Safety
/// `resp` is a valid slot; `node_name` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node_single(
    resp: *mut *mut node_info_msg_t,
    node_name: *mut c_char,
    _show_flags: u16,
) -> c_int {
    guard("slurm_load_node_single", ffi::SLURM_ERROR, || {
        deliver(resp, single(node_name))
    })
}

/// # Safety
/// `resp` is a valid slot; `node_name` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node_single2(
    resp: *mut *mut node_info_msg_t,
    node_name: *mut c_char,
    _show_flags: u16,
    _cluster: *mut slurmdb_cluster_rec_t,
) -> c_int {
    guard("slurm_load_node_single2", ffi::SLURM_ERROR, || {
        deliver(resp, single(node_name))
    })
}

/// # Safety
/// `node_buffer_ptr` is NULL or a message from `slurm_load_node*`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_node_info_msg(node_buffer_ptr: *mut node_info_msg_t) {
    guard("slurm_free_node_info_msg", (), || {
        if node_buffer_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract: a message this library built.
        unsafe {
            let msg = &mut *node_buffer_ptr;
            if !msg.node_array.is_null() {
                for i in 0..msg.record_count as usize {
                    free_node_fields(&mut *msg.node_array.add(i));
                }
                crate::print::forget(msg.node_array);
                c_free(msg.node_array);
            }
            c_free(node_buffer_ptr);
        }
    })
}

/// Sets each node's `partitions` from the partitions' node lists (what scontrol does before printing nodes).
///
/// # Safety
/// Both are NULL or messages from this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_populate_node_partitions(
    node_buffer_ptr: *mut node_info_msg_t,
    part_buffer_ptr: *mut partition_info_msg_t,
) {
    guard("slurm_populate_node_partitions", (), || {
        if node_buffer_ptr.is_null() || part_buffer_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let nodes = &mut *node_buffer_ptr;
            let parts = &*part_buffer_ptr;
            let mut members: Vec<(String, Vec<String>)> = Vec::new();
            for i in 0..parts.record_count as usize {
                let p = &*parts.partition_array.add(i);
                let name = opt_str(p.name).map(|s| s.into_owned()).unwrap_or_default();
                let list = opt_str(p.nodes)
                    .and_then(|s| spur_core::grammar::hostlist::expand(&s).ok())
                    .unwrap_or_default();
                members.push((name, list));
            }
            for i in 0..nodes.record_count as usize {
                let n = &mut *nodes.node_array.add(i);
                let Some(name) = opt_str(n.name).map(|s| s.into_owned()) else {
                    continue;
                };
                let names: Vec<&str> = members
                    .iter()
                    .filter(|(_, list)| list.contains(&name))
                    .map(|(p, _)| p.as_str())
                    .collect();
                c_free(n.partitions);
                n.partitions =
                    c_opt_string(Some(names.join(",")).filter(|s| !s.is_empty()).as_deref());
            }
        }
    })
}
