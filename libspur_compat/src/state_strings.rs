//! libslurm's job and node state names (`slurm_job_state_string`, `slurm_node_state_string`, their compact,
//! complete and reverse forms) and `slurm_job_reason_string`/`_num`, answered from spur-core's state model
//! (`spur_core::model::states`), the one table the controller, the CLI and this library share.
//!
//! Return conventions follow libslurm's: the plain and compact names are pointers to static text (never freed),
//! `slurm_node_state_string_complete` and `slurm_node_state_flag_string` are allocated (plain `malloc` here; `free()` or
//! `slurm_xfree` releases them).

use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::sync::{Mutex, OnceLock};

use spur_core::model::states::{
    Flag, JobBaseState, JobReason, JobState, JobStateFlag, NodeBaseState, NodeState, NodeStateFlag,
};

use crate::ffi::{c_string, guard, opt_str, NO_VAL};

const JOB_STATE_BASE: u32 = 0xff;
const NODE_STATE_BASE: u32 = 0xf;
/// Node state bits above the last flag spur-core knows (`NODE_STATE_DYNAMIC_NORM`, bit 26): Slurm names them `?`.
const NODE_UNNAMED_HIGH_BITS: [u32; 5] = [1 << 27, 1 << 28, 1 << 29, 1 << 30, 1 << 31];

/// A NUL-terminated copy of a static text that lives as long as the process, so a `const char *` to it can be
/// handed to C like libslurm's string literals. Each distinct text is copied once.
pub(crate) fn static_c(text: &'static str) -> *mut c_char {
    static TEXTS: OnceLock<Mutex<HashMap<&'static str, CString>>> = OnceLock::new();
    let Ok(mut texts) = TEXTS.get_or_init(|| Mutex::new(HashMap::new())).lock() else {
        return std::ptr::null_mut();
    };
    let entry = texts
        .entry(text)
        .or_insert_with(|| CString::new(text.replace('\0', "")).unwrap_or_default());
    // The CString's heap buffer never moves or drops while the map lives (forever), whatever the map does.
    entry.as_ptr() as *mut c_char
}

/// The job state's base as spur-core models it, or `None` past `JOB_OOM`, where libslurm prints `?`.
fn job_state(raw: u32) -> (JobState, bool) {
    match JobState::from_raw(raw) {
        Some(state) => (state, true),
        // The flags alone decide the plain and compact names; a Pending base stands in and is replaced below.
        None => (
            JobState::from_raw(raw & !JOB_STATE_BASE)
                .unwrap_or(JobState::new(JobBaseState::Pending)),
            false,
        ),
    }
}

fn job_state_long(raw: u32) -> &'static str {
    let (state, known) = job_state(raw);
    let name = state.long_name();
    if !known && name == JobBaseState::Pending.long_name() {
        "?"
    } else {
        name
    }
}

fn job_state_compact(raw: u32) -> &'static str {
    let (state, known) = job_state(raw);
    let name = state.compact_name();
    if !known && name == JobBaseState::Pending.compact_name() {
        "?"
    } else {
        name
    }
}

/// The flags `job_state_num` accepts by name after the base states, in libslurm's order.
const JOB_NUM_FLAGS: [JobStateFlag; 12] = [
    JobStateFlag::Completing,
    JobStateFlag::Configuring,
    JobStateFlag::Resizing,
    JobStateFlag::ResvDelHold,
    JobStateFlag::Requeue,
    JobStateFlag::RequeueFed,
    JobStateFlag::RequeueHold,
    JobStateFlag::Revoked,
    JobStateFlag::Signaling,
    JobStateFlag::SpecialExit,
    JobStateFlag::StageOut,
    JobStateFlag::Stopped,
];

/// `job_state_num`: a base state or flag by its long or compact name, any case; `NO_VAL` if none matches.
pub fn job_state_num(name: &str) -> u32 {
    let matches = |raw: u32| {
        name.eq_ignore_ascii_case(job_state_long(raw))
            || name.eq_ignore_ascii_case(job_state_compact(raw))
    };
    JobBaseState::ALL
        .iter()
        .map(|b| b.as_raw())
        .chain(JOB_NUM_FLAGS.iter().map(|f| f.bit()))
        .find(|&raw| matches(raw))
        .unwrap_or(NO_VAL)
}

/// The node state as spur-core models it. Base values past `FUTURE` take every branch of libslurm's printers that
/// `ERROR` takes (neither matches a named base), so they render as `ERROR` does.
fn node_state(raw: u32) -> NodeState {
    NodeState::from_raw(raw).unwrap_or_else(|| {
        NodeState::from_raw((raw & !NODE_STATE_BASE) | NodeBaseState::Error.as_raw())
            .unwrap_or(NodeState::new(NodeBaseState::Error))
    })
}

/// libslurm keeps `job_reason_string` of an unknown value in one function-static buffer; here each thread has its
/// own fixed buffer, rewritten in place, so an earlier pointer stays valid (and shows the latest text, as there).
fn thread_buffer_c(text: &str) -> *mut c_char {
    thread_local! {
        static BUFFER: std::cell::UnsafeCell<[u8; 32]> = const { std::cell::UnsafeCell::new([0; 32]) };
    }
    BUFFER.with(|b| {
        let buf = b.get() as *mut u8;
        let bytes = text.as_bytes();
        let len = bytes.len().min(31);
        // SAFETY: this thread's 32-byte buffer; we write len < 32 bytes and a NUL.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, len);
            *buf.add(len) = 0;
        }
        buf as *mut c_char
    })
}

fn node_base_name(raw: u32) -> &'static str {
    NodeBaseState::from_raw(raw & NODE_STATE_BASE).map_or("INVALID", NodeBaseState::name)
}

/// The named node flags in libslurm's listing order, then each unnamed bit (`?`) from the lowest up.
fn node_flag_names(raw: u32) -> Vec<&'static str> {
    let flags = node_state(raw).flags;
    let mut names: Vec<&'static str> = flags.iter().map(NodeStateFlag::name).collect();
    names.extend(
        NODE_UNNAMED_HIGH_BITS
            .iter()
            .filter(|&&bit| raw & bit != 0)
            .map(|_| "?"),
    );
    names
}

#[no_mangle]
pub extern "C" fn slurm_job_state_string(inx: u32) -> *mut c_char {
    guard("slurm_job_state_string", std::ptr::null_mut(), || {
        static_c(job_state_long(inx))
    })
}

#[no_mangle]
pub extern "C" fn slurm_job_state_string_compact(inx: u32) -> *mut c_char {
    guard(
        "slurm_job_state_string_compact",
        std::ptr::null_mut(),
        || static_c(job_state_compact(inx)),
    )
}

/// # Safety
/// `state_name` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_state_num(state_name: *const c_char) -> u32 {
    guard("slurm_job_state_num", NO_VAL, || {
        // SAFETY: the caller's contract.
        unsafe { opt_str(state_name) }.map_or(NO_VAL, |name| job_state_num(&name))
    })
}

#[no_mangle]
pub extern "C" fn slurm_job_reason_string(inx: u32) -> *mut c_char {
    guard("slurm_job_reason_string", std::ptr::null_mut(), || {
        match JobReason::from_raw(inx) {
            Some(reason) => static_c(reason.name()),
            // libslurm prints the enum with %d.
            None => thread_buffer_c(&(inx as i32).to_string()),
        }
    })
}

/// # Safety
/// `reason` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_reason_num(reason: *const c_char) -> u32 {
    guard("slurm_job_reason_num", NO_VAL, || {
        // SAFETY: the caller's contract.
        unsafe { opt_str(reason) }
            .and_then(|name| JobReason::from_name(&name))
            .map_or(NO_VAL, JobReason::as_raw)
    })
}

#[no_mangle]
pub extern "C" fn slurm_node_state_string(inx: u32) -> *mut c_char {
    guard("slurm_node_state_string", std::ptr::null_mut(), || {
        leak_name(node_state(inx).long_name())
    })
}

#[no_mangle]
pub extern "C" fn slurm_node_state_string_compact(inx: u32) -> *mut c_char {
    guard(
        "slurm_node_state_string_compact",
        std::ptr::null_mut(),
        || leak_name(node_state(inx).compact_name()),
    )
}

/// spur-core renders node state names as `String`s from a fixed vocabulary; each distinct one is kept once for
/// the process, like libslurm's literals.
fn leak_name(name: String) -> *mut c_char {
    static NAMES: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();
    let Ok(mut names) = NAMES.get_or_init(|| Mutex::new(HashMap::new())).lock() else {
        return std::ptr::null_mut();
    };
    let text: &'static str = match names.get(&name) {
        Some(text) => text,
        None => {
            let text: &'static str = Box::leak(name.clone().into_boxed_str());
            names.insert(name, text);
            text
        }
    };
    drop(names);
    static_c(text)
}

#[no_mangle]
pub extern "C" fn slurm_node_state_string_complete(state: u32) -> *mut c_char {
    guard(
        "slurm_node_state_string_complete",
        std::ptr::null_mut(),
        || {
            let mut text = node_base_name(state).to_string();
            for name in node_flag_names(state) {
                text.push('+');
                text.push_str(name);
            }
            c_string(&text)
        },
    )
}

#[no_mangle]
pub extern "C" fn slurm_node_state_base_string(state: u32) -> *const c_char {
    guard("slurm_node_state_base_string", std::ptr::null(), || {
        static_c(node_base_name(state)) as *const c_char
    })
}

/// Takes the first flag (libslurm's listing order) off `*state` and returns its name; NULL when no flag is left.
///
/// # Safety
/// `state` points to a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_node_state_flag_string_single(state: *mut u32) -> *const c_char {
    guard(
        "slurm_node_state_flag_string_single",
        std::ptr::null(),
        || {
            if state.is_null() {
                return std::ptr::null();
            }
            // SAFETY: the caller's contract.
            let raw = unsafe { *state };
            let flags = raw & !NODE_STATE_BASE;
            if flags == 0 {
                return std::ptr::null();
            }
            let named = NodeStateFlag::LISTING_ORDER
                .iter()
                .find(|f| f.name() != "?" && flags & f.bit() != 0);
            let (bit, name) = match named {
                Some(flag) => (flag.bit(), flag.name()),
                // Unnamed bits go lowest first, so repeated calls always empty the flags.
                None => (flags & flags.wrapping_neg(), "?"),
            };
            // SAFETY: as above.
            unsafe { *state = raw & !bit };
            static_c(name) as *const c_char
        },
    )
}

/// `+FLAG+FLAG...`, allocated; NULL when no flag is set.
#[no_mangle]
pub extern "C" fn slurm_node_state_flag_string(state: u32) -> *mut c_char {
    guard("slurm_node_state_flag_string", std::ptr::null_mut(), || {
        let names = node_flag_names(state);
        if names.is_empty() {
            return std::ptr::null_mut();
        }
        c_string(&names.iter().map(|n| format!("+{n}")).collect::<String>())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_states_follow_flag_precedence() {
        assert_eq!(job_state_long(1), "RUNNING");
        assert_eq!(job_state_long(1 | 0x8000), "COMPLETING");
        assert_eq!(job_state_compact(0x8000 | 3), "CG");
        assert_eq!(job_state_long(200), "?");
        assert_eq!(job_state_long(200 | 0x8000), "COMPLETING");
        assert_eq!(job_state_num("cd"), 3);
        assert_eq!(job_state_num("stopped"), 0x10000);
        assert_eq!(job_state_num("nope"), NO_VAL);
    }

    #[test]
    fn node_flags_name_unknown_bits() {
        assert_eq!(node_flag_names(2 | 0x200 | (1 << 30)), vec!["DRAIN", "?"]);
        assert_eq!(node_base_name(9), "INVALID");
    }
}
