//! The `slurm_step_launch*` family and `slurm_get_node_energy`, as a program linked with `libslurm.so.38` sees
//! them.
//!
//! Every step-launch function takes a `slurm_step_ctx_t` made by `slurm_step_ctx_create`, which
//! `libslurm.so.38` neither declares nor exports (it lives in Slurm's private `libslurmfull`), so no program
//! linked against the public library can hold a valid context: libslurm answers each call as it answers an
//! invalid one (checked on Slurm 22.05). Where libslurm dereferences the NULL it was given and crashes
//! (`slurm_step_launch_wait_start`, `slurm_step_launch_fwd_signal`), we fail the same way without the crash.
//!
//! Spur gathers no energy readings, so `slurm_get_node_energy` answers as slurmd does on a cluster with
//! `AcctGatherEnergyType=acct_gather_energy/none`: the node is asked and nothing comes back.

use std::ffi::{c_char, c_int, CStr};

use slurm_headers::{acct_gather_energy_t, slurm_step_ctx_t, slurm_step_launch_params_t};
use spur_core::wire::api::SlurmErrno;

use crate::client::CallError;
use crate::ffi::{self, guard};
use crate::print_misc::log_error;

/// libslurm's refusal of a context that did not come from `slurm_step_ctx_create`.
fn invalid_context(function: &str) -> c_int {
    log_error(&format!("{function}: Not a valid slurm_step_ctx_t"));
    CallError::new(libc::EINVAL).fail()
}

/// # Safety
/// Any arguments: the context is never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn slurm_step_launch(
    _ctx: *mut slurm_step_ctx_t,
    _params: *const slurm_step_launch_params_t,
    _callbacks: *const slurm_headers::slurm_step_launch_callbacks_t,
) -> c_int {
    guard("slurm_step_launch", ffi::SLURM_ERROR, || {
        invalid_context("slurm_step_launch")
    })
}

/// # Safety
/// Any arguments: the contexts are never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn slurm_step_launch_add(
    _ctx: *mut slurm_step_ctx_t,
    _first_ctx: *mut slurm_step_ctx_t,
    _params: *const slurm_step_launch_params_t,
    _node_list: *mut c_char,
) -> c_int {
    guard("slurm_step_launch_add", ffi::SLURM_ERROR, || {
        invalid_context("slurm_step_launch_add")
    })
}

/// libslurm crashes on a NULL context here; with no launch ever started there is nothing to wait for.
///
/// # Safety
/// Any argument: the context is never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn slurm_step_launch_wait_start(_ctx: *mut slurm_step_ctx_t) -> c_int {
    guard("slurm_step_launch_wait_start", ffi::SLURM_ERROR, || {
        CallError::new(libc::EINVAL).fail()
    })
}

/// Returns at once, as libslurm does for an invalid context: no task of it can be running.
///
/// # Safety
/// Any argument: the context is never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn slurm_step_launch_wait_finish(_ctx: *mut slurm_step_ctx_t) {
    guard("slurm_step_launch_wait_finish", (), || ())
}

/// # Safety
/// Any argument: the context is never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn slurm_step_launch_abort(_ctx: *mut slurm_step_ctx_t) {
    guard("slurm_step_launch_abort", (), || ())
}

/// libslurm crashes on a NULL context here; there are no tasks to signal.
///
/// # Safety
/// Any argument: the context is never dereferenced.
#[no_mangle]
pub unsafe extern "C" fn slurm_step_launch_fwd_signal(_ctx: *mut slurm_step_ctx_t, _signo: c_int) {
    guard("slurm_step_launch_fwd_signal", (), || {
        ffi::set_errno(libc::EINVAL)
    })
}

/// What became of an energy request to a host.
#[derive(Debug, PartialEq, Eq)]
enum EnergyAnswer {
    /// A node of the cluster: it has no energy plugin, so it answers nothing (5005, as slurmd does).
    NoReadings,
    /// No node goes by that name: the request never left (libslurm leaves errno at 0).
    UnknownHost,
}

/// `host` as the nodes know it (name or host name); no host means this machine's node.
fn energy_answer(host: Option<&str>, nodes: &[(String, String)], this_host: &str) -> EnergyAnswer {
    let wanted = host.unwrap_or(this_host);
    if nodes
        .iter()
        .any(|(name, hostname)| name == wanted || hostname == wanted)
    {
        EnergyAnswer::NoReadings
    } else {
        EnergyAnswer::UnknownHost
    }
}

/// # Safety
/// `host` is NULL or a C string; `sensors_cnt` and `energy` are NULL or valid slots.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_node_energy(
    host: *mut c_char,
    _context_id: u16,
    _delta: u16,
    sensors_cnt: *mut u16,
    energy: *mut *mut acct_gather_energy_t,
) -> c_int {
    guard("slurm_get_node_energy", ffi::SLURM_ERROR, || {
        // SAFETY: NULL-checked slots of the caller's.
        unsafe {
            if !sensors_cnt.is_null() {
                *sensors_cnt = 0;
            }
            if !energy.is_null() {
                *energy = std::ptr::null_mut();
            }
        }
        let host = (!host.is_null()).then(|| {
            // SAFETY: `host` is not NULL here, so it is a C string, the caller's contract.
            unsafe { CStr::from_ptr(host) }
                .to_string_lossy()
                .into_owned()
        });
        let nodes = match crate::nodes::fetch_nodes() {
            Ok((nodes, _)) => nodes,
            Err(e) => return e.fail(),
        };
        let names: Vec<(String, String)> =
            nodes.into_iter().map(|n| (n.name, n.hostname)).collect();
        let this_host = nix::unistd::gethostname()
            .map(|h| {
                h.to_string_lossy()
                    .split('.')
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default();
        match energy_answer(host.as_deref(), &names, &this_host) {
            EnergyAnswer::NoReadings => {
                let e = SlurmErrno::ZeroBytes;
                log_error(&format!("slurm_get_node_energy: {}", e.text()));
                CallError::new(e.code()).fail()
            }
            EnergyAnswer::UnknownHost => {
                // libslurm's lines for a host it cannot resolve.
                log_error("slurm_get_port: Address family '0' not supported");
                log_error("Error connecting, bad data: family = 0, port = 0");
                log_error("slurm_get_node_energy: No error");
                CallError::new(0).fail()
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes() -> Vec<(String, String)> {
        vec![
            ("n1".to_string(), "host1".to_string()),
            ("n2".to_string(), "n2".to_string()),
        ]
    }

    #[test]
    fn a_node_is_found_by_name_or_host_name_and_no_host_means_this_machine() {
        assert_eq!(
            energy_answer(Some("n1"), &nodes(), "x"),
            EnergyAnswer::NoReadings
        );
        assert_eq!(
            energy_answer(Some("host1"), &nodes(), "x"),
            EnergyAnswer::NoReadings
        );
        assert_eq!(
            energy_answer(None, &nodes(), "n2"),
            EnergyAnswer::NoReadings
        );
        assert_eq!(
            energy_answer(None, &nodes(), "other"),
            EnergyAnswer::UnknownHost
        );
        assert_eq!(
            energy_answer(Some("nosuch"), &nodes(), "n1"),
            EnergyAnswer::UnknownHost
        );
    }
}
