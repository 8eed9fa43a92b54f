//! What libslurm answers from slurmctld's accounting cache on a cluster without slurmdbd, which is what a Spur
//! cluster is: `slurm_load_assoc_mgr_info` gives no associations, QOS or users but the TRES names, and
//! `slurm_load_federation` finds no federation (success, NULL). The request and message frees release what the
//! caller or these loads allocated.

use std::ffi::{c_char, c_int, c_void};

use slurm_headers::{
    assoc_mgr_info_msg_t, assoc_mgr_info_request_msg_t, slurmdb_federation_rec_t, List,
};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc, c_free, c_string, guard};

/// The TRES slurmctld always tracks, in its order; `AccountingStorageTRES` adds to them.
const DEFAULT_TRES: [&str; 8] = [
    "cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
];

/// The cluster's TRES names: the defaults, then the configured extra ones in their configured order.
pub fn tres_names(accounting_storage_tres: Option<&str>) -> Vec<String> {
    let mut names: Vec<String> = DEFAULT_TRES.iter().map(|s| s.to_string()).collect();
    for t in accounting_storage_tres
        .unwrap_or("")
        .split(',')
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty())
    {
        if !names.contains(&t) {
            names.push(t);
        }
    }
    names
}

/// # Safety
/// `*l` is NULL or a live list.
unsafe fn destroy_list(l: &mut List) {
    if !l.is_null() {
        // SAFETY: the caller's contract.
        unsafe { crate::list::slurm_list_destroy(*l) };
        *l = std::ptr::null_mut();
    }
}

fn assoc_mgr_msg(names: &[String]) -> *mut assoc_mgr_info_msg_t {
    let msg = c_calloc::<assoc_mgr_info_msg_t>(1);
    let array = c_calloc::<*mut c_char>(names.len());
    if msg.is_null() || array.is_null() {
        // SAFETY: fresh allocations or NULL.
        unsafe {
            c_free(msg);
            c_free(array);
        }
        return std::ptr::null_mut();
    }
    for (i, name) in names.iter().enumerate() {
        // SAFETY: `array` holds names.len() slots.
        unsafe { *array.add(i) = c_string(name) };
    }
    // SAFETY: fresh, zeroed message.
    unsafe {
        (*msg).tres_cnt = names.len() as u32;
        (*msg).tres_names = array;
    }
    msg
}

/// The request's filters cannot select anything (there are no associations), so only the controller's answer
/// matters: an unreachable controller fails as every load does.
///
/// # Safety
/// `arg1` is NULL or a valid request; `arg2` a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_assoc_mgr_info(
    _arg1: *mut assoc_mgr_info_request_msg_t,
    arg2: *mut *mut assoc_mgr_info_msg_t,
) -> c_int {
    guard("slurm_load_assoc_mgr_info", ffi::SLURM_ERROR, || {
        let answer = client::ping().map(|()| {
            let conf = client::load_conf();
            tres_names(
                conf.as_ref()
                    .and_then(|c| c.get_str("AccountingStorageTRES")),
            )
        });
        ffi::deliver_message(arg2, answer, |names| assoc_mgr_msg(&names))
    })
}

/// # Safety
/// `arg1` is NULL or a message from `slurm_load_assoc_mgr_info`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_assoc_mgr_info_msg(arg1: *mut assoc_mgr_info_msg_t) {
    guard("slurm_free_assoc_mgr_info_msg", (), || {
        if arg1.is_null() {
            return;
        }
        // SAFETY: the caller's contract: every member is ours or NULL.
        unsafe {
            let msg = &mut *arg1;
            if !msg.tres_names.is_null() {
                for i in 0..msg.tres_cnt as usize {
                    c_free(*msg.tres_names.add(i));
                }
                c_free(msg.tres_names);
            }
            destroy_list(&mut msg.assoc_list);
            destroy_list(&mut msg.qos_list);
            destroy_list(&mut msg.user_list);
            c_free(arg1);
        }
    })
}

/// Destroys the request's filter lists and leaves them NULL; the request itself stays the caller's.
///
/// # Safety
/// `arg1` is NULL or a request whose lists are live or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_assoc_mgr_info_request_members(
    arg1: *mut assoc_mgr_info_request_msg_t,
) {
    guard("slurm_free_assoc_mgr_info_request_members", (), || {
        // SAFETY: the caller's contract.
        if let Some(req) = unsafe { arg1.as_mut() } {
            // SAFETY: as above.
            unsafe {
                destroy_list(&mut req.acct_list);
                destroy_list(&mut req.qos_list);
                destroy_list(&mut req.user_list);
            }
        }
    })
}

/// # Safety
/// `arg1` is NULL or a malloc'd request whose lists are live or NULL, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_assoc_mgr_info_request_msg(
    arg1: *mut assoc_mgr_info_request_msg_t,
) {
    guard("slurm_free_assoc_mgr_info_request_msg", (), || {
        if arg1.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            slurm_free_assoc_mgr_info_request_members(arg1);
            c_free(arg1);
        }
    })
}

/// Spur clusters are never federated: success with no record, as slurmctld answers outside a federation.
///
/// # Safety
/// `fed_pptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_federation(fed_pptr: *mut *mut c_void) -> c_int {
    guard("slurm_load_federation", ffi::SLURM_ERROR, || {
        if fed_pptr.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        match client::ping() {
            Ok(()) => {
                // SAFETY: the caller's slot.
                unsafe { *fed_pptr = std::ptr::null_mut() };
                ffi::SLURM_SUCCESS
            }
            Err(e) => e.fail(),
        }
    })
}

/// # Safety
/// `fed` is NULL or a malloc'd `slurmdb_federation_rec_t` whose members are live malloc'd memory or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurm_destroy_federation_rec(fed: *mut c_void) {
    guard("slurm_destroy_federation_rec", (), || {
        // SAFETY: the caller's contract.
        unsafe { crate::slurmdb_init::destroy_federation(fed as *mut slurmdb_federation_rec_t) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tres_names_are_the_defaults_then_the_configured() {
        assert_eq!(tres_names(None), DEFAULT_TRES.map(String::from).to_vec());
        let names = tres_names(Some("gres/gpu, cpu,license/iop1"));
        assert_eq!(&names[8..], ["gres/gpu", "license/iop1"]);
        assert_eq!(names.len(), 10);
    }

    #[test]
    fn message_and_request_are_released() {
        let msg = assoc_mgr_msg(&tres_names(None));
        assert!(!msg.is_null());
        unsafe {
            assert_eq!((*msg).tres_cnt, 8);
            slurm_free_assoc_mgr_info_msg(msg);
        }
        let req = c_calloc::<assoc_mgr_info_request_msg_t>(1);
        unsafe {
            (*req).user_list = crate::list::create(Some(libc::free));
            crate::list::append((*req).user_list, c_string("root") as *mut c_void);
            let mut on_stack = *req;
            slurm_free_assoc_mgr_info_request_members(&mut on_stack);
            assert!(on_stack.user_list.is_null());
            c_free(req);
        }
    }
}
