//! Reservation information: `slurm_load_reservations` fills Slurm's `reserve_info_t` array from the controller's
//! reservation records (the query `scontrol show reservation` makes), `slurm_free_reservation_info_msg` releases
//! it, and the printers render the loaded records with spur-core's `scontrol show reservation` formatter.

use std::ffi::{c_char, c_int};

use slurm_headers::{reserve_info_msg_t, reserve_info_t, time_t, FILE};
use spur_core::model::records::NodeRecord;
use spur_core::model::reservation::{ReservationFlags, ReservationRecord};
use spur_core::wire::api::{Query, QueryReply};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc_msg, c_free, c_opt_string, c_string, guard};
use crate::print::{self, Records};

/// Slurm's `RESERVE_FLAG_*` bits (`SLURM_BIT(n)` macros, which bindgen does not expand).
pub(crate) mod flag {
    pub const MAINT: u64 = 1 << 0;
    pub const NO_MAINT: u64 = 1 << 1;
    pub const IGN_JOBS: u64 = 1 << 6;
    pub const NO_IGN_JOB: u64 = 1 << 7;
    pub const PART_NODES: u64 = 1 << 12;
    pub const SPEC_NODES: u64 = 1 << 15;
    pub const ALL_NODES: u64 = 1 << 19;
}

/// What slurmctld reports as `purge_comp_time` of a reservation without `PURGE_COMP`: its default, 5 minutes.
const PURGE_COMP_DEFAULT_MIN: u32 = 300;

fn fetch() -> Result<(Vec<ReservationRecord>, i64), CallError> {
    match client::query(&Query::Reservations)? {
        QueryReply::Reservations { reservations, now } => Ok((reservations, now)),
        _ => Err(CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR)),
    }
}

/// Spur's flags as Slurm's `RESERVE_FLAG_*` bits.
pub(crate) fn flag_bits(flags: &ReservationFlags) -> u64 {
    [
        (flags.maint, flag::MAINT),
        (flags.ignore_jobs, flag::IGN_JOBS),
        (flags.spec_nodes, flag::SPEC_NODES),
        (flags.all_nodes, flag::ALL_NODES),
        (flags.part_nodes, flag::PART_NODES),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .fold(0, |bits, (_, bit)| bits | bit)
}

fn joined(items: &[String]) -> Option<String> {
    (!items.is_empty()).then(|| items.join(","))
}

fn fill_reservation(out: &mut reserve_info_t, r: &ReservationRecord, nodes: &[NodeRecord]) {
    out.accounts = c_opt_string(joined(&r.accounts).as_deref());
    out.core_cnt = r.cpus;
    out.end_time = r.end;
    out.flags = flag_bits(&r.flags);
    out.max_start_delay = 0;
    out.name = c_string(&r.name);
    out.node_cnt = u32::try_from(r.nodes.len()).unwrap_or(u32::MAX);
    out.node_inx = crate::partitions::node_index(nodes, |n| r.holds_node(n));
    let node_list = (!r.nodes.is_empty()).then(|| spur_core::grammar::hostlist::compress(&r.nodes));
    out.node_list = c_opt_string(node_list.as_deref());
    out.partition = c_opt_string(r.partition.as_deref());
    out.purge_comp_time = PURGE_COMP_DEFAULT_MIN;
    out.start_time = r.start;
    out.resv_watts = ffi::NO_VAL;
    // The formatter's `TRES=` line: Spur reserves whole nodes, counted by their CPUs.
    out.tres_str = c_string(&format!("cpu={}", r.cpus));
    out.users = c_opt_string(joined(&r.users).as_deref());
}

/// # Safety
/// The pointers are NULL or malloc'd and owned by this record.
unsafe fn free_reservation_fields(r: &mut reserve_info_t) {
    // SAFETY: the caller's contract (core_spec is never set by this library).
    unsafe {
        for s in [
            r.accounts,
            r.burst_buffer,
            r.features,
            r.groups,
            r.licenses,
            r.name,
            r.node_list,
            r.partition,
            r.tres_str,
            r.users,
        ] {
            c_free(s);
        }
        c_free(r.node_inx);
    }
}

fn deliver(resp: *mut *mut reserve_info_msg_t) -> c_int {
    if resp.is_null() {
        return CallError::new(libc::EINVAL).fail();
    }
    let (reservations, now) = match fetch() {
        Ok(r) => r,
        Err(e) => return e.fail(),
    };
    // The node table `node_inx` points into; no reservation, no need to ask.
    let nodes = if reservations.is_empty() {
        Vec::new()
    } else {
        match crate::nodes::fetch_nodes() {
            Ok((nodes, _)) => nodes,
            Err(e) => return e.fail(),
        }
    };
    let Some((msg, array)) = c_calloc_msg::<reserve_info_msg_t, reserve_info_t>(reservations.len())
    else {
        return CallError::new(libc::ENOMEM).fail();
    };
    // SAFETY: `array` holds reservations.len() zeroed records; `resp` checked non-NULL.
    unsafe {
        for (i, r) in reservations.iter().enumerate() {
            fill_reservation(&mut *array.add(i), r, &nodes);
        }
        (*msg).last_update = now;
        (*msg).record_count = u32::try_from(reservations.len()).unwrap_or(u32::MAX);
        (*msg).reservation_array = array;
        *resp = msg;
    }
    let count = reservations.len();
    print::remember(array, count, Records::Reservations(reservations), now);
    ffi::SLURM_SUCCESS
}

/// Every reservation; `update_time` is not compared (the controller keeps no change time for them), so the
/// answer is always the full list, never `SLURM_NO_CHANGE_IN_DATA`.
///
/// # Safety
/// `resp` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_reservations(
    _update_time: time_t,
    resp: *mut *mut reserve_info_msg_t,
) -> c_int {
    guard("slurm_load_reservations", ffi::SLURM_ERROR, || {
        deliver(resp)
    })
}

/// # Safety
/// `resv_info_ptr` is NULL or a message from `slurm_load_reservations`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_reservation_info_msg(resv_info_ptr: *mut reserve_info_msg_t) {
    guard("slurm_free_reservation_info_msg", (), || {
        if resv_info_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract: a message this library built.
        unsafe {
            let msg = &mut *resv_info_ptr;
            if !msg.reservation_array.is_null() {
                for i in 0..msg.record_count as usize {
                    free_reservation_fields(&mut *msg.reservation_array.add(i));
                }
                print::forget(msg.reservation_array);
                c_free(msg.reservation_array);
            }
            c_free(resv_info_ptr);
        }
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `resv_info_ptr` NULL or a message from `slurm_load_reservations`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_reservation_info_msg(
    out: *mut FILE,
    resv_info_ptr: *mut reserve_info_msg_t,
    one_liner: c_int,
) {
    guard("slurm_print_reservation_info_msg", (), || {
        if resv_info_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let msg = unsafe { &*resv_info_ptr };
        let mut text = print::header("Reservation", msg.last_update, msg.record_count);
        if msg.record_count > 0 {
            let records = print::render(msg.reservation_array, true, one_liner != 0);
            text.push_str(&records.unwrap_or_default());
        }
        // SAFETY: the caller's contract.
        unsafe { print::write(out, &text) };
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `resv_ptr` NULL or a record of a message from `slurm_load_reservations`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_reservation_info(
    out: *mut FILE,
    resv_ptr: *mut reserve_info_t,
    one_liner: c_int,
) {
    guard("slurm_print_reservation_info", (), || {
        let text = print::render(resv_ptr, false, one_liner != 0).unwrap_or_default();
        // SAFETY: the caller's contract.
        unsafe { print::write(out, &text) };
    })
}

/// The text `slurm_print_reservation_info` prints, malloc'd (`free()` or `slurm_xfree` release it); NULL for a
/// record this library did not load.
///
/// # Safety
/// `resv_ptr` is NULL or a record of a message from `slurm_load_reservations`.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_reservation_info(
    resv_ptr: *mut reserve_info_t,
    one_liner: c_int,
) -> *mut c_char {
    guard(
        "slurm_sprint_reservation_info",
        std::ptr::null_mut(),
        || {
            print::render(resv_ptr, false, one_liner != 0)
                .map_or(std::ptr::null_mut(), |t| c_string(&t))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_as_slurm_bits() {
        let flags = ReservationFlags {
            maint: true,
            ignore_jobs: true,
            spec_nodes: true,
            ..Default::default()
        };
        // What slurmctld reported for `Flags=MAINT,IGNORE_JOBS` on named nodes.
        assert_eq!(flag_bits(&flags), 0x8041);
        let all = ReservationFlags {
            all_nodes: true,
            part_nodes: true,
            ..Default::default()
        };
        assert_eq!(flag_bits(&all), (1 << 19) | (1 << 12));
        assert_eq!(flag_bits(&ReservationFlags::default()), 0);
    }

    #[test]
    fn records_fill_and_free() {
        let record = ReservationRecord {
            name: "r1".into(),
            start: 100,
            end: 3700,
            nodes: vec!["n2".into(), "n3".into()],
            cpus: 4,
            users: vec!["root".into(), "alice".into()],
            user_ids: vec![0, 1000],
            accounts: vec![],
            partition: Some("debug".into()),
            flags: ReservationFlags {
                spec_nodes: true,
                ..Default::default()
            },
            created: 1,
        };
        // SAFETY: a zeroed record is valid plain C data.
        let mut out: reserve_info_t = unsafe { std::mem::zeroed() };
        fill_reservation(&mut out, &record, &[]);
        // SAFETY: the strings were just made by c_string; node_inx is -1 terminated.
        unsafe {
            let text = |p: *mut c_char| std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
            assert_eq!(text(out.name), "r1");
            assert_eq!(text(out.node_list), "n[2-3]");
            assert_eq!(text(out.users), "root,alice");
            assert_eq!(text(out.partition), "debug");
            assert_eq!(text(out.tres_str), "cpu=4");
            assert!(out.accounts.is_null());
            // Not in the (empty) node table: no index pairs.
            assert_eq!(*out.node_inx, -1);
            free_reservation_fields(&mut out);
        }
        assert_eq!((out.node_cnt, out.core_cnt), (2, 4));
        assert_eq!((out.start_time, out.end_time), (100, 3700));
        assert_eq!(out.flags, flag::SPEC_NODES);
        assert_eq!(out.resv_watts, ffi::NO_VAL);
    }
}
