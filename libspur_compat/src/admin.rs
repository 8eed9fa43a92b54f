//! Partition and node administration, step time limits and job notes: `slurm_create_partition`,
//! `slurm_update_partition`, `slurm_delete_partition`, `slurm_create_node`, `slurm_delete_node`,
//! `slurm_update_step`, `slurm_notify_job`, each one `ControlRequest` the controller checks as slurmctld does.

use std::ffi::{c_char, c_int};

use slurm_headers::{
    delete_part_msg_t, step_update_request_msg_t, update_node_msg_t, update_part_msg_t,
    PART_FLAG_DEFAULT, PART_FLAG_DEFAULT_CLR, PART_FLAG_HIDDEN, PART_FLAG_HIDDEN_CLR,
    PART_FLAG_NO_ROOT, PART_FLAG_NO_ROOT_CLR, PART_FLAG_ROOT_ONLY, PART_FLAG_ROOT_ONLY_CLR,
    PREEMPT_MODE_CANCEL, PREEMPT_MODE_OFF, PREEMPT_MODE_REQUEUE, PREEMPT_MODE_SUSPEND,
};
use spur_core::model::partition_spec::{access_list, PartitionSpec};
use spur_core::model::records::{PartitionState, PreemptMode};
use spur_core::wire::api::{ControlRequest, SlurmErrno};

use crate::client::{self, CallError};
use crate::ffi::{self, guard, opt_str, INFINITE, NO_VAL, NO_VAL16};

/// `SHARED_FORCE`: `OverSubscribe=FORCE` sets this bit on `max_share`.
const SHARED_FORCE: u16 = 0x8000;

fn run(request: ControlRequest) -> c_int {
    match client::control(&request) {
        Ok(()) => ffi::SLURM_SUCCESS,
        Err(e) => e.fail(),
    }
}

/// NO_VAL: unchanged; INFINITE: unlimited.
fn limit(value: u32) -> Option<Option<u32>> {
    match value {
        NO_VAL => None,
        INFINITE => Some(None),
        v => Some(Some(v)),
    }
}

fn flag(flags: u16, set: u32, clear: u32) -> Option<bool> {
    let flags = u32::from(flags);
    if flags & set != 0 {
        Some(true)
    } else if flags & clear != 0 {
        Some(false)
    } else {
        None
    }
}

/// `max_share` as `OverSubscribe=`: 0 EXCLUSIVE, 1 NO, n YES:n, n|SHARED_FORCE FORCE:n.
fn oversubscribe(max_share: u16) -> Option<String> {
    match max_share {
        NO_VAL16 => None,
        0 => Some("EXCLUSIVE".to_string()),
        1 => Some("NO".to_string()),
        n if n & SHARED_FORCE != 0 => Some(format!("FORCE:{}", n & !SHARED_FORCE)),
        n => Some(format!("YES:{n}")),
    }
}

fn preempt_mode(mode: u16) -> Result<Option<PreemptMode>, CallError> {
    if mode == NO_VAL16 {
        return Ok(None);
    }
    // GANG and WITHIN are modifiers; the mode is in the other bits.
    match u32::from(mode) & !(slurm_headers::PREEMPT_MODE_GANG | slurm_headers::PREEMPT_MODE_WITHIN)
    {
        PREEMPT_MODE_OFF => Ok(Some(PreemptMode::Off)),
        PREEMPT_MODE_CANCEL => Ok(Some(PreemptMode::Cancel)),
        PREEMPT_MODE_REQUEUE => Ok(Some(PreemptMode::Requeue)),
        PREEMPT_MODE_SUSPEND => Ok(Some(PreemptMode::Suspend)),
        _ => Err(CallError::new(ffi::ESLURM_NOT_SUPPORTED)),
    }
}

/// # Safety
/// The strings are NULL or NUL-terminated.
unsafe fn text(p: *const c_char) -> Option<String> {
    // SAFETY: the caller's contract.
    unsafe { opt_str(p) }.map(|s| s.into_owned())
}

/// Slurm's `update_part_msg_t` (fields left as `slurm_init_part_desc_msg` set them are unchanged) as a spec.
///
/// # Safety
/// `p`'s strings are NULL or NUL-terminated.
unsafe fn spec_of(p: &update_part_msg_t) -> Result<PartitionSpec, CallError> {
    // SAFETY: the caller's contract, for every string below.
    let name = unsafe { text(p.name) }
        .filter(|n| !n.is_empty())
        .ok_or_else(|| CallError::new(SlurmErrno::InvalidPartitionName.code()))?;
    let state = match p.state_up {
        NO_VAL16 => None,
        3 => Some(PartitionState::Up),
        1 => Some(PartitionState::Down),
        2 => Some(PartitionState::Drain),
        0 => Some(PartitionState::Inactive),
        _ => return Err(CallError::new(ffi::ESLURM_NOT_SUPPORTED)),
    };
    let u16_field = |v: u16| (v != NO_VAL16).then_some(u32::from(v));
    // Spur keeps a per-node memory limit only; a per-CPU one is not accepted.
    let max_mem_per_node_mb = match p.max_mem_per_cpu {
        ffi::NO_VAL64 => None,
        m if m & ffi::MEM_PER_CPU != 0 => return Err(CallError::new(ffi::ESLURM_NOT_SUPPORTED)),
        0 | ffi::INFINITE64 => Some(None),
        m => Some(Some(m)),
    };
    let (def_mem_per_cpu_mb, def_mem_per_node_mb) = match p.def_mem_per_cpu {
        ffi::NO_VAL64 => (None, None),
        m if m & ffi::MEM_PER_CPU != 0 => (Some(m & !ffi::MEM_PER_CPU), None),
        m => (None, Some(m)),
    };
    // SAFETY: as above.
    let deny = |s: *const c_char| unsafe { text(s) }.map(|v| Some(v).filter(|v| !v.is_empty()));
    Ok(PartitionSpec {
        name,
        // SAFETY: as above.
        nodes: unsafe { text(p.nodes) },
        default: flag(p.flags, PART_FLAG_DEFAULT, PART_FLAG_DEFAULT_CLR),
        hidden: flag(p.flags, PART_FLAG_HIDDEN, PART_FLAG_HIDDEN_CLR),
        disable_root_jobs: flag(p.flags, PART_FLAG_NO_ROOT, PART_FLAG_NO_ROOT_CLR),
        root_only: flag(p.flags, PART_FLAG_ROOT_ONLY, PART_FLAG_ROOT_ONLY_CLR),
        max_time_min: limit(p.max_time),
        default_time_min: limit(p.default_time),
        max_nodes: limit(p.max_nodes),
        min_nodes: (p.min_nodes != NO_VAL).then_some(p.min_nodes),
        state,
        priority_tier: u16_field(p.priority_tier),
        priority_job_factor: u16_field(p.priority_job_factor),
        // SAFETY: as above.
        allow_groups: unsafe { text(p.allow_groups) }.map(|v| access_list(&v)),
        // SAFETY: as above.
        allow_accounts: unsafe { text(p.allow_accounts) }.map(|v| access_list(&v)),
        // SAFETY: as above.
        allow_qos: unsafe { text(p.allow_qos) }.map(|v| access_list(&v)),
        deny_accounts: deny(p.deny_accounts),
        deny_qos: deny(p.deny_qos),
        oversubscribe: oversubscribe(p.max_share),
        preempt_mode: preempt_mode(p.preempt_mode)?,
        max_mem_per_node_mb,
        def_mem_per_cpu_mb,
        def_mem_per_node_mb,
    })
}

fn partition_request(
    part_msg: *mut update_part_msg_t,
    make: fn(PartitionSpec) -> ControlRequest,
) -> c_int {
    if part_msg.is_null() {
        return CallError::new(libc::EINVAL).fail();
    }
    // SAFETY: non-NULL; the caller's contract.
    match unsafe { spec_of(&*part_msg) } {
        Ok(spec) => run(make(spec)),
        Err(e) => e.fail(),
    }
}

/// # Safety
/// `part_msg` is a valid partition description.
#[no_mangle]
pub unsafe extern "C" fn slurm_create_partition(part_msg: *mut update_part_msg_t) -> c_int {
    guard("slurm_create_partition", ffi::SLURM_ERROR, || {
        partition_request(part_msg, |spec| ControlRequest::CreatePartition { spec })
    })
}

/// # Safety
/// `part_msg` is a valid update.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_partition(part_msg: *mut update_part_msg_t) -> c_int {
    guard("slurm_update_partition", ffi::SLURM_ERROR, || {
        partition_request(part_msg, |spec| ControlRequest::ModifyPartition { spec })
    })
}

/// # Safety
/// `part_msg` is a valid request.
#[no_mangle]
pub unsafe extern "C" fn slurm_delete_partition(part_msg: *mut delete_part_msg_t) -> c_int {
    guard("slurm_delete_partition", ffi::SLURM_ERROR, || {
        if part_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: non-NULL; the caller's contract.
        let Some(name) = (unsafe { text((*part_msg).name) }) else {
            return CallError::new(SlurmErrno::InvalidPartitionName.code()).fail();
        };
        run(ControlRequest::DeletePartition { name })
    })
}

/// The node line scontrol sends in `extra` (`NodeName=n1 CPUs=1 State=FUTURE`), else the names alone.
///
/// # Safety
/// `node_msg` is a valid update.
#[no_mangle]
pub unsafe extern "C" fn slurm_create_node(node_msg: *mut update_node_msg_t) -> c_int {
    guard("slurm_create_node", ffi::SLURM_ERROR, || {
        if node_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: non-NULL; the caller's contract.
        let m = unsafe { &*node_msg };
        // SAFETY: as above.
        let line = unsafe { text(m.extra) }
            .or_else(|| unsafe { text(m.node_names) }.map(|n| format!("NodeName={n}")));
        let Some(definition) = line else {
            return CallError::new(SlurmErrno::InvalidNodeName.code()).fail();
        };
        match client::control(&ControlRequest::CreateNode { definition }) {
            Ok(()) => ffi::SLURM_SUCCESS,
            Err(e) => {
                // libslurm logs the message slurmctld sends back with its refusal; for a creation refused for its
                // state that is this one (an administrator's request; others get no message).
                // Through libslurm's error() (the program's stdout flushed first, as there).
                if e.errno == SlurmErrno::InvalidNodeState.code() {
                    crate::log::log_msg(
                        crate::log::LEVEL_ERROR,
                        false,
                        false,
                        "Only State=FUTURE and State=CLOUD allowed for nodes created by scontrol",
                    );
                }
                e.fail()
            }
        }
    })
}

/// # Safety
/// `node_msg` is a valid update naming the nodes.
#[no_mangle]
pub unsafe extern "C" fn slurm_delete_node(node_msg: *mut update_node_msg_t) -> c_int {
    guard("slurm_delete_node", ffi::SLURM_ERROR, || {
        if node_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: non-NULL; the caller's contract.
        let Some(nodes) = (unsafe { text((*node_msg).node_names) }) else {
            return CallError::new(SlurmErrno::InvalidNodeName.code()).fail();
        };
        run(ControlRequest::DeleteNode { nodes })
    })
}

/// `step_id` NO_VAL: every step of the job; `time_limit` INFINITE: unlimited, NO_VAL: nothing to change.
///
/// # Safety
/// `step_msg` is a valid update.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_step(step_msg: *mut step_update_request_msg_t) -> c_int {
    guard("slurm_update_step", ffi::SLURM_ERROR, || {
        if step_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: non-NULL; the caller's contract.
        let m = unsafe { &*step_msg };
        let time_limit_min = match limit(m.time_limit) {
            Some(limit) => limit,
            None => return ffi::SLURM_SUCCESS,
        };
        run(ControlRequest::UpdateStep {
            job_id: m.job_id,
            step_id: (m.step_id != NO_VAL).then_some(m.step_id),
            time_limit_min,
        })
    })
}

/// # Safety
/// `message` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_notify_job(job_id: u32, message: *mut c_char) -> c_int {
    guard("slurm_notify_job", ffi::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let message = unsafe { text(message) }.unwrap_or_default();
        run(ControlRequest::NotifyJob { job_id, message })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_share_as_oversubscribe() {
        assert_eq!(oversubscribe(NO_VAL16), None);
        assert_eq!(oversubscribe(0).as_deref(), Some("EXCLUSIVE"));
        assert_eq!(oversubscribe(1).as_deref(), Some("NO"));
        assert_eq!(oversubscribe(4).as_deref(), Some("YES:4"));
        assert_eq!(oversubscribe(2 | SHARED_FORCE).as_deref(), Some("FORCE:2"));
    }

    #[test]
    fn unset_fields_stay_unset() {
        // SAFETY: zero is a valid value of this plain C record; init then writes a valid one.
        let mut msg: update_part_msg_t = unsafe { std::mem::zeroed() };
        // SAFETY: a valid, writable record.
        unsafe { crate::control::slurm_init_part_desc_msg(&mut msg) };
        let name = std::ffi::CString::new("p2").unwrap();
        msg.name = name.as_ptr().cast_mut();
        msg.max_time = 30;
        msg.flags = PART_FLAG_DEFAULT as u16;
        // SAFETY: strings are NULL or live CStrings.
        let spec = unsafe { spec_of(&msg) }.unwrap();
        assert_eq!(spec.name, "p2");
        assert_eq!(spec.max_time_min, Some(Some(30)));
        assert_eq!(spec.default, Some(true));
        assert_eq!(spec.state, None);
        assert_eq!(spec.min_nodes, None);
        assert_eq!(spec.nodes, None);
        assert_eq!(spec.oversubscribe, None);
        assert_eq!(spec.preempt_mode, None);
    }
}
