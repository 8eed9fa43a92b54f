//! `slurm_create_reservation`, `slurm_update_reservation`, `slurm_delete_reservation`: Slurm's `resv_desc_msg_t`
//! (fields left as `slurm_init_resv_desc_msg` set them are not sent) read into the `ReservationRequest`
//! `scontrol create|update reservation` sends; the controller checks it as slurmctld does.

use std::ffi::{c_char, c_int};

use slurm_headers::{reservation_name_msg_t, resv_desc_msg_t};
use spur_core::model::reservation::{ReservationFlag, ReservationRequest, UNLIMITED_DURATION_MIN};
use spur_core::wire::api::{ControlRequest, SlurmErrno};

use crate::client::{self, CallError};
use crate::ffi::{self, c_string, guard, opt_str, INFINITE, NO_VAL, NO_VAL64};
use crate::reservations::flag;

/// `ESLURM_RESERVATION_EMPTY`: slurmctld's answer to a create naming neither users nor accounts.
pub const ESLURM_RESERVATION_EMPTY: i32 = 2080;

/// Flag bits slurmctld derives from the node list and partition; a caller echoing a loaded record's flags back
/// may carry them, and they change nothing.
const DERIVED_FLAGS: u64 = flag::SPEC_NODES | flag::ALL_NODES | flag::PART_NODES;

fn not_supported() -> CallError {
    CallError::new(ffi::ESLURM_NOT_SUPPORTED)
}

/// # Safety
/// `p` is NULL or NUL-terminated.
unsafe fn text(p: *const c_char) -> Option<String> {
    // SAFETY: the caller's contract.
    unsafe { opt_str(p) }.map(|s| s.into_owned())
}

/// `root,alice` as a list; `+name`/`-name` (add to or remove from the list) are not supported.
fn name_list(value: String) -> Result<Vec<String>, CallError> {
    let list: Vec<String> = value
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if list.iter().any(|n| n.starts_with(['+', '-'])) {
        return Err(not_supported());
    }
    Ok(list)
}

/// `RESERVE_FLAG_*` bits as flags to set and to clear; bits for features Spur lacks are refused.
fn flag_changes(bits: u64) -> Result<(Vec<ReservationFlag>, Vec<ReservationFlag>), CallError> {
    if bits == NO_VAL64 {
        return Ok((Vec::new(), Vec::new()));
    }
    let known = flag::MAINT | flag::NO_MAINT | flag::IGN_JOBS | flag::NO_IGN_JOB | DERIVED_FLAGS;
    if bits & !known != 0 {
        return Err(not_supported());
    }
    let (mut set, mut clear) = (Vec::new(), Vec::new());
    for (on, off, f) in [
        (flag::MAINT, flag::NO_MAINT, ReservationFlag::Maint),
        (
            flag::IGN_JOBS,
            flag::NO_IGN_JOB,
            ReservationFlag::IgnoreJobs,
        ),
    ] {
        if bits & on != 0 {
            set.push(f);
        } else if bits & off != 0 {
            clear.push(f);
        }
    }
    Ok((set, clear))
}

/// The request a description makes. Fields Spur's reservations do not have (cores, licenses, burst buffers,
/// features, groups, TRES, watts, start delays) fail with `ESLURM_NOT_SUPPORTED` when set.
///
/// # Safety
/// `d`'s strings are NULL or NUL-terminated; `node_cnt` and `core_cnt` are NULL or 0-terminated arrays.
unsafe fn request_of(d: &resv_desc_msg_t) -> Result<ReservationRequest, CallError> {
    // SAFETY: the caller's contract, for every string and array below.
    unsafe {
        let set = |p: *const c_char| text(p).is_some_and(|v| !v.is_empty());
        if set(d.burst_buffer)
            || set(d.features)
            || set(d.groups)
            || set(d.licenses)
            || set(d.tres_str)
            || (!d.core_cnt.is_null() && *d.core_cnt != 0)
            || !matches!(d.resv_watts, NO_VAL | 0)
            || !matches!(d.max_start_delay, NO_VAL | 0)
        {
            return Err(not_supported());
        }
        let (flags_set, flags_clear) = flag_changes(d.flags)?;
        let time = |t: i64| (t != i64::from(NO_VAL)).then_some(t);
        Ok(ReservationRequest {
            name: text(d.name),
            start: time(d.start_time),
            end: time(d.end_time),
            duration_min: match d.duration {
                NO_VAL => None,
                INFINITE => Some(UNLIMITED_DURATION_MIN),
                minutes => Some(minutes),
            },
            nodes: text(d.node_list),
            node_count: node_count(d.node_cnt),
            users: text(d.users).map(name_list).transpose()?,
            user_ids: Vec::new(),
            accounts: text(d.accounts).map(name_list).transpose()?,
            partition: text(d.partition),
            flags_set,
            flags_clear,
        })
    }
}

/// `node_cnt`: job sizes ending in 0, which together make the count (Slurm sums them).
///
/// # Safety
/// `counts` is NULL or a 0-terminated array.
unsafe fn node_count(counts: *const u32) -> Option<u32> {
    if counts.is_null() {
        return None;
    }
    let mut total: u32 = 0;
    let mut i = 0;
    // SAFETY: the caller's contract: read up to the terminating 0.
    while let n @ 1.. = unsafe { *counts.add(i) } {
        total = total.saturating_add(n);
        i += 1;
    }
    (total > 0).then_some(total)
}

fn desc(resv_msg: *mut resv_desc_msg_t) -> Result<ReservationRequest, CallError> {
    if resv_msg.is_null() {
        return Err(CallError::new(libc::EINVAL));
    }
    // SAFETY: non-NULL; the caller's contract.
    unsafe { request_of(&*resv_msg) }
}

fn create(resv_msg: *mut resv_desc_msg_t) -> Result<String, CallError> {
    let request = desc(resv_msg)?;
    let none = |l: &Option<Vec<String>>| l.as_ref().is_none_or(Vec::is_empty);
    // Spur's controller answers this with its access error; slurmctld has a number of its own for it.
    if none(&request.users) && none(&request.accounts) {
        return Err(CallError::new(ESLURM_RESERVATION_EMPTY));
    }
    let reply = client::control_reply(&ControlRequest::CreateReservation { request })?;
    if let Some((_, e)) = reply.failures.into_iter().next() {
        return Err(e.into());
    }
    reply
        .reservation
        .ok_or(CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR))
}

/// The name of the reservation made, malloc'd (the caller frees it), or NULL with errno set.
///
/// # Safety
/// `resv_msg` is a valid description.
#[no_mangle]
pub unsafe extern "C" fn slurm_create_reservation(resv_msg: *mut resv_desc_msg_t) -> *mut c_char {
    guard(
        "slurm_create_reservation",
        std::ptr::null_mut(),
        || match create(resv_msg) {
            Ok(name) => c_string(&name),
            Err(e) => {
                ffi::set_errno(e.errno);
                std::ptr::null_mut()
            }
        },
    )
}

/// # Safety
/// `resv_msg` is a valid description naming the reservation.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_reservation(resv_msg: *mut resv_desc_msg_t) -> c_int {
    guard("slurm_update_reservation", ffi::SLURM_ERROR, || {
        let request = match desc(resv_msg) {
            Ok(r) if r.name.is_some() => r,
            Ok(_) => return CallError::new(SlurmErrno::ReservationInvalid.code()).fail(),
            Err(e) => return e.fail(),
        };
        match client::control(&ControlRequest::UpdateReservation { request }) {
            Ok(()) => ffi::SLURM_SUCCESS,
            Err(e) => e.fail(),
        }
    })
}

/// # Safety
/// `resv_msg` is a valid request.
#[no_mangle]
pub unsafe extern "C" fn slurm_delete_reservation(resv_msg: *mut reservation_name_msg_t) -> c_int {
    guard("slurm_delete_reservation", ffi::SLURM_ERROR, || {
        if resv_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: non-NULL; the caller's contract.
        let Some(name) = (unsafe { text((*resv_msg).name) }) else {
            return CallError::new(SlurmErrno::ReservationInvalid.code()).fail();
        };
        match client::control(&ControlRequest::DeleteReservation { name }) {
            Ok(()) => ffi::SLURM_SUCCESS,
            Err(e) => e.fail(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn initialised() -> resv_desc_msg_t {
        // SAFETY: zero is valid plain C data; init writes a valid record.
        let mut d: resv_desc_msg_t = unsafe { std::mem::zeroed() };
        // SAFETY: `d` is a valid, writable record.
        unsafe { crate::inits::slurm_init_resv_desc_msg(&mut d) };
        d
    }

    #[test]
    fn unset_fields_are_not_sent() {
        let d = initialised();
        // SAFETY: all pointers NULL.
        assert_eq!(unsafe { request_of(&d) }, Ok(ReservationRequest::default()));
    }

    #[test]
    fn set_fields_become_the_request() {
        let mut d = initialised();
        let name = c"r1";
        let users = c"root,alice";
        let nodes = c"n[1-2]";
        let counts = [2u32, 1, 0];
        d.name = name.as_ptr().cast_mut();
        d.users = users.as_ptr().cast_mut();
        d.node_list = nodes.as_ptr().cast_mut();
        d.node_cnt = counts.as_ptr().cast_mut();
        d.start_time = 1000;
        d.duration = INFINITE;
        d.flags = flag::IGN_JOBS | flag::NO_MAINT | flag::SPEC_NODES;
        // SAFETY: live C strings and a 0-terminated array.
        let r = unsafe { request_of(&d) }.unwrap();
        assert_eq!(r.name.as_deref(), Some("r1"));
        assert_eq!(r.users, Some(vec!["root".into(), "alice".into()]));
        assert_eq!(r.nodes.as_deref(), Some("n[1-2]"));
        assert_eq!(r.node_count, Some(3));
        assert_eq!((r.start, r.end), (Some(1000), None));
        assert_eq!(r.duration_min, Some(UNLIMITED_DURATION_MIN));
        assert_eq!(r.flags_set, vec![ReservationFlag::IgnoreJobs]);
        assert_eq!(r.flags_clear, vec![ReservationFlag::Maint]);
    }

    #[test]
    fn what_spur_lacks_is_refused() {
        let refused = |change: &dyn Fn(&mut resv_desc_msg_t)| {
            let mut d = initialised();
            change(&mut d);
            // SAFETY: NULL or static C strings and arrays.
            unsafe { request_of(&d) }.unwrap_err().errno
        };
        let cores = [4u32, 0];
        assert_eq!(refused(&|d| d.core_cnt = cores.as_ptr().cast_mut()), 2036);
        assert_eq!(
            refused(&|d| d.licenses = c"fluent:1".as_ptr().cast_mut()),
            2036
        );
        assert_eq!(refused(&|d| d.flags = 1 << 2), 2036); // DAILY
        assert_eq!(refused(&|d| d.users = c"+alice".as_ptr().cast_mut()), 2036);
        assert_eq!(refused(&|d| d.resv_watts = 100), 2036);
    }
}
