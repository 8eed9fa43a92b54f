//! `slurm_send_recv_controller_msg`: libslurm's raw RPC entry, which programs reach past the public API with
//! `slurm_msg_t` (src/common/slurm_protocol_defs.h) — pyslurm's `Job.get_batch_script` sends
//! `REQUEST_BATCH_SCRIPT` this way. The request types Spur can answer are served from its controller API and the
//! answer laid out as slurmctld's (`RESPONSE_BATCH_SCRIPT` carries the script as a plain C string); any other type
//! is answered as slurmctld answers a request it refuses, `RESPONSE_SLURM_RC` with `ESLURM_NOT_SUPPORTED`.
//!
//! `slurm_msg_t_init` (which prepares the messages), `slurm_free_return_code_msg` (which frees an RC answer) and
//! the `slurm_msg_t` layout are with the other message helpers in free_msgs.rs.

use std::ffi::{c_int, c_void};

use crate::client::CallError;
use crate::ffi::{self, c_calloc, c_string, guard};
use crate::free_msgs::SlurmMsg;

const REQUEST_BATCH_SCRIPT: u16 = 2051;
const RESPONSE_BATCH_SCRIPT: u16 = 2052;
const RESPONSE_SLURM_RC: u16 = 8001;

/// Slurm's `job_id_msg_t`, the body of `REQUEST_BATCH_SCRIPT`.
#[repr(C)]
struct JobIdMsg {
    job_id: u32,
    show_flags: u16,
}

/// Slurm's `return_code_msg_t`.
#[repr(C)]
struct ReturnCodeMsg {
    return_code: u32,
}

/// The answer's type and body, or the failure of the call itself (the controller not reached).
enum Answer {
    Script(String),
    Rc(i32),
}

fn batch_script(job_id: u32) -> Result<Answer, CallError> {
    match crate::jobs_extra::find_job_with_script(job_id) {
        Ok(job) => Ok(match job.spec.script {
            Some(script) => Answer::Script(script),
            // ESLURM_INVALID_JOB_ID, as slurm_job_batch_script reports a job without a script.
            None => Answer::Rc(spur_core::wire::api::SlurmErrno::InvalidJobId.code()),
        }),
        Err(e) if is_transport(e.errno) => Err(e),
        Err(e) => Ok(Answer::Rc(e.errno)),
    }
}

/// Failures of the call rather than answers of the controller: libslurm returns these from the send itself.
fn is_transport(errno: i32) -> bool {
    errno == ffi::SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR
        || errno == ffi::SLURM_PROTOCOL_AUTHENTICATION_ERROR
}

/// Sends `request_msg` to the controller and fills `response_msg` with the answer (its `msg_type` and a `data`
/// the caller frees: the script with `xfree`, a `return_code_msg_t` with `slurm_free_return_code_msg`). Returns
/// `SLURM_ERROR` with errno set only when no answer came back. `working_cluster_rec` must be NULL (Spur serves the
/// local cluster only).
///
/// # Safety
/// `request_msg` and `response_msg` are NULL or `slurm_msg_t`s (as `slurm_msg_t_init` leaves them); the request's
/// `data` is its type's body.
#[no_mangle]
pub unsafe extern "C" fn slurm_send_recv_controller_msg(
    request_msg: *mut SlurmMsg,
    response_msg: *mut SlurmMsg,
    working_cluster_rec: *mut c_void,
) -> c_int {
    guard("slurm_send_recv_controller_msg", ffi::SLURM_ERROR, || {
        if request_msg.is_null() || response_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        // SAFETY: the caller's slurm_msg_t.
        let (msg_type, data) = unsafe { ((*request_msg).msg_type, (*request_msg).data) };
        let answer = if !working_cluster_rec.is_null() {
            Answer::Rc(ffi::ESLURM_NOT_SUPPORTED)
        } else {
            match msg_type {
                REQUEST_BATCH_SCRIPT if !data.is_null() => {
                    // SAFETY: the body of REQUEST_BATCH_SCRIPT is a job_id_msg_t.
                    let job_id = unsafe { (*(data as *const JobIdMsg)).job_id };
                    match batch_script(job_id) {
                        Ok(a) => a,
                        Err(e) => return e.fail(),
                    }
                }
                REQUEST_BATCH_SCRIPT => Answer::Rc(libc::EINVAL),
                _ => Answer::Rc(ffi::ESLURM_NOT_SUPPORTED),
            }
        };
        let (kind, body, size) = match answer {
            Answer::Script(script) => {
                let size = u32::try_from(script.len()).unwrap_or(u32::MAX);
                (
                    RESPONSE_BATCH_SCRIPT,
                    c_string(&script) as *mut c_void,
                    size,
                )
            }
            Answer::Rc(rc) => {
                let msg = c_calloc::<ReturnCodeMsg>(1);
                if msg.is_null() {
                    return CallError::new(libc::ENOMEM).fail();
                }
                // SAFETY: fresh allocation; slurmctld sends the code as an unsigned 32-bit value.
                unsafe { (*msg).return_code = rc as u32 };
                (
                    RESPONSE_SLURM_RC,
                    msg as *mut c_void,
                    std::mem::size_of::<ReturnCodeMsg>() as u32,
                )
            }
        };
        // SAFETY: the caller's slurm_msg_t.
        unsafe {
            (*response_msg).msg_type = kind;
            (*response_msg).data = body;
            (*response_msg).data_size = size;
        }
        ffi::SLURM_SUCCESS
    })
}
