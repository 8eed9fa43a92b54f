//! `slurm_load_licenses`: slurm.conf's licenses with what running jobs use (`scontrol show licenses`), freed by
//! `slurm_free_license_info_msg`.

use std::ffi::c_int;

use slurm_headers::{license_info_msg_t, slurm_license_info_t, time_t};
use spur_core::model::records::LicenseRecord;
use spur_core::wire::api::{Query, QueryReply};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc_msg, c_free, c_string, guard};

fn load() -> Result<Vec<LicenseRecord>, CallError> {
    match client::query(&Query::Licenses)? {
        QueryReply::Licenses { licenses } => Ok(licenses),
        _ => Err(CallError::new(libc::EINVAL)),
    }
}

fn build(licenses: Vec<LicenseRecord>) -> *mut license_info_msg_t {
    let Some((msg, array)) =
        c_calloc_msg::<license_info_msg_t, slurm_license_info_t>(licenses.len())
    else {
        return std::ptr::null_mut();
    };
    for (i, license) in licenses.iter().enumerate() {
        // SAFETY: `array` holds `licenses.len()` zeroed records.
        let record = unsafe { &mut *array.add(i) };
        record.name = c_string(&license.name);
        record.total = license.total;
        record.in_use = license.used;
        record.available = license.total.saturating_sub(license.used);
        record.reserved = 0;
        record.remote = 0;
    }
    // SAFETY: `msg` is a fresh zeroed message.
    unsafe {
        (*msg).last_update = ffi::now();
        (*msg).num_lic = u32::try_from(licenses.len()).unwrap_or(u32::MAX);
        (*msg).lic_array = array;
    }
    msg
}

/// # Safety
/// `msg` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_licenses(
    _update_time: time_t,
    msg: *mut *mut license_info_msg_t,
    _show_flags: u16,
) -> c_int {
    guard("slurm_load_licenses", ffi::SLURM_ERROR, || {
        ffi::deliver_message(msg, load(), build)
    })
}

/// # Safety
/// `msg` is NULL or a message from `slurm_load_licenses`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_license_info_msg(msg: *mut license_info_msg_t) {
    guard("slurm_free_license_info_msg", (), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: the caller's contract: `msg` and its array came from `build`.
        unsafe {
            let array = (*msg).lic_array;
            if !array.is_null() {
                for i in 0..(*msg).num_lic as usize {
                    c_free((*array.add(i)).name);
                }
            }
            c_free(array);
            c_free(msg);
        }
    })
}
