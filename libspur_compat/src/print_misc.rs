//! `slurm_print_*`/`slurm_sprint_*` for front-end nodes and switch topology: Spur's loads of these are always
//! empty, so what gets printed is what a caller built; the text is libslurm 22.05's (measured in conformance case
//! 307), including the error line an empty topology gets.

use std::ffi::{c_char, c_int};

use slurm_headers::{
    front_end_info_msg_t, front_end_info_t, topo_info_response_msg_t, topo_info_t, FILE,
};
use spur_core::format::time::iso_or;
use spur_core::model::states::NodeState;

use crate::ffi::{c_string, guard, opt_str};
use crate::print::{header, local_utc_offset, write};

/// `NODE_STATE_DRAIN`: front ends show it as a `+DRAIN` suffix of the base state, not as DRAINED/DRAINING.
const NODE_STATE_DRAIN: u32 = 1 << 9;

/// `(null)` for a NULL string, as libslurm's printf renders it.
fn text(p: *const c_char) -> String {
    // SAFETY: the print functions' callers pass NULL or valid strings.
    unsafe { opt_str(p) }.map_or_else(|| "(null)".to_string(), |s| s.into_owned())
}

fn set(p: *const c_char) -> Option<String> {
    // SAFETY: as in `text`.
    unsafe { opt_str(p) }.map(|s| s.into_owned())
}

/// Slurm's `uid_to_string`: the account name, `nobody` when the uid has none.
fn user_name(uid: u32) -> String {
    nix::unistd::User::from_uid(uid.into())
        .ok()
        .flatten()
        .map_or_else(|| "nobody".to_string(), |u| u.name)
}

fn time_or_unknown(t: i64) -> String {
    iso_or((t != 0).then_some(t), local_utc_offset(), "Unknown")
}

fn front_end_state(state: u32) -> String {
    let drain = if state & NODE_STATE_DRAIN != 0 {
        "+DRAIN"
    } else {
        ""
    };
    let base = NodeState::from_raw(state & !NODE_STATE_DRAIN)
        .map_or_else(|| "?".to_string(), NodeState::long_name);
    format!("{base}{drain}")
}

/// One front end as `scontrol show frontend` prints it.
pub fn front_end_text(fe: &front_end_info_t, one_liner: bool) -> String {
    let sep = if one_liner { " " } else { "\n   " };
    let mut out = format!(
        "FrontendName={} State={} Version={} Reason={}",
        text(fe.name),
        front_end_state(fe.node_state),
        text(fe.version),
        text(fe.reason)
    );
    if fe.reason_time != 0 {
        out.push_str(&format!(
            " [{}@{}]",
            user_name(fe.reason_uid),
            time_or_unknown(fe.reason_time)
        ));
    }
    out.push_str(sep);
    out.push_str(&format!(
        "BootTime={} SlurmdStartTime={}",
        time_or_unknown(fe.boot_time),
        time_or_unknown(fe.slurmd_start_time)
    ));
    out.push_str(sep);
    let access: Vec<String> = [
        ("AllowGroups", fe.allow_groups),
        ("AllowUsers", fe.allow_users),
        ("DenyGroups", fe.deny_groups),
        ("DenyUsers", fe.deny_users),
    ]
    .into_iter()
    .filter_map(|(key, value)| set(value).map(|v| format!("{key}={v} ")))
    .collect();
    if !access.is_empty() {
        out.push_str(sep);
        out.push_str(&access.concat());
    }
    out.push_str(if one_liner { "\n" } else { "\n\n" });
    out
}

/// One switch as `scontrol show topology` prints it (the same on one line or several).
pub fn topo_text(t: &topo_info_t) -> String {
    let mut out = format!(
        "SwitchName={} Level={} LinkSpeed={}",
        text(t.name),
        t.level,
        t.link_speed
    );
    for (key, value) in [("Nodes", t.nodes), ("Switches", t.switches)] {
        if let Some(v) = set(value).filter(|v| !v.is_empty()) {
            out.push_str(&format!(" {key}={v}"));
        }
    }
    out.push('\n');
    out
}

/// The program's name, as libslurm's default logger prefixes its lines.
fn program_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_default()
}

/// libslurm's `error()` for a program that did not set up logging: `PROG: error: TEXT` on stderr.
pub fn log_error(message: &str) {
    crate::ffi::log_plain(&format!("{}: error: {message}", program_name()));
}

/// # Safety
/// `front_end_ptr` is NULL or a valid record.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_front_end_table(
    front_end_ptr: *mut front_end_info_t,
    one_liner: c_int,
) -> *mut c_char {
    guard("slurm_sprint_front_end_table", std::ptr::null_mut(), || {
        if front_end_ptr.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: non-NULL; the caller's contract.
        c_string(&front_end_text(unsafe { &*front_end_ptr }, one_liner != 0))
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `front_end_ptr` NULL or a valid record.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_front_end_table(
    out: *mut FILE,
    front_end_ptr: *mut front_end_info_t,
    one_liner: c_int,
) {
    guard("slurm_print_front_end_table", (), || {
        if front_end_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { write(out, &front_end_text(&*front_end_ptr, one_liner != 0)) }
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `front_end_info_msg_ptr` NULL or a message whose array holds `record_count`
/// valid records.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_front_end_info_msg(
    out: *mut FILE,
    front_end_info_msg_ptr: *mut front_end_info_msg_t,
    one_liner: c_int,
) {
    guard("slurm_print_front_end_info_msg", (), || {
        if front_end_info_msg_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let msg = unsafe { &*front_end_info_msg_ptr };
        let mut text = header("front_end", msg.last_update, msg.record_count);
        if !msg.front_end_array.is_null() {
            for i in 0..msg.record_count as usize {
                // SAFETY: the array holds record_count records.
                let fe = unsafe { &*msg.front_end_array.add(i) };
                text.push_str(&front_end_text(fe, one_liner != 0));
            }
        }
        // SAFETY: the caller's contract.
        unsafe { write(out, &text) }
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `topo_ptr` NULL or a valid record.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_topo_record(
    out: *mut FILE,
    topo_ptr: *mut topo_info_t,
    _one_liner: c_int,
) {
    guard("slurm_print_topo_record", (), || {
        if topo_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { write(out, &topo_text(&*topo_ptr)) }
    })
}

/// An empty topology (what `slurm_load_topo` gives without a topology plugin) is reported, not printed.
///
/// # Safety
/// `out` is a writable `FILE *`; `topo_info_msg_ptr` NULL or a message whose array holds `record_count` records.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_topo_info_msg(
    out: *mut FILE,
    topo_info_msg_ptr: *mut topo_info_response_msg_t,
    _one_liner: c_int,
) {
    guard("slurm_print_topo_info_msg", (), || {
        // SAFETY: the caller's contract.
        let msg = unsafe { topo_info_msg_ptr.as_ref() };
        let records = match msg {
            Some(m) if m.record_count > 0 && !m.topo_array.is_null() => {
                // SAFETY: the array holds record_count records.
                unsafe { std::slice::from_raw_parts(m.topo_array, m.record_count as usize) }
            }
            _ => {
                log_error("No topology information available");
                return;
            }
        };
        let text: String = records.iter().map(topo_text).collect();
        // SAFETY: the caller's contract.
        unsafe { write(out, &text) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fe() -> front_end_info_t {
        // SAFETY: plain C data, valid zeroed.
        unsafe { std::mem::zeroed() }
    }

    #[test]
    fn front_end_lines_and_access_block() {
        let mut f = fe();
        f.name = c"fe1".as_ptr() as *mut c_char;
        f.node_state = 2; // IDLE
        assert_eq!(
            front_end_text(&f, false),
            "FrontendName=fe1 State=IDLE Version=(null) Reason=(null)\n   \
             BootTime=Unknown SlurmdStartTime=Unknown\n   \n\n"
        );
        f.node_state = 2 | NODE_STATE_DRAIN;
        f.allow_users = c"u1".as_ptr() as *mut c_char;
        f.deny_users = c"u2".as_ptr() as *mut c_char;
        assert_eq!(
            front_end_text(&f, true),
            "FrontendName=fe1 State=IDLE+DRAIN Version=(null) Reason=(null) BootTime=Unknown \
             SlurmdStartTime=Unknown  AllowUsers=u1 DenyUsers=u2 \n"
        );
    }

    #[test]
    fn reason_stamp_only_with_a_time() {
        let mut f = fe();
        f.reason = c"maint".as_ptr() as *mut c_char;
        f.reason_uid = 0;
        assert!(front_end_text(&f, true).contains("Reason=maint BootTime"));
        f.reason_time = 1_700_000_000;
        assert!(front_end_text(&f, true).contains("Reason=maint [root@20"));
    }

    #[test]
    fn topo_lists_only_present_children() {
        // SAFETY: zero is a valid value of this plain C record (NULL strings, zero numbers).
        let mut t: topo_info_t = unsafe { std::mem::zeroed() };
        t.name = c"s0".as_ptr() as *mut c_char;
        t.link_speed = 1;
        t.nodes = c"n[1-2]".as_ptr() as *mut c_char;
        assert_eq!(
            topo_text(&t),
            "SwitchName=s0 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
        );
        t.nodes = std::ptr::null_mut();
        t.switches = c"s1".as_ptr() as *mut c_char;
        t.level = 1;
        assert_eq!(
            topo_text(&t),
            "SwitchName=s0 Level=1 LinkSpeed=1 Switches=s1\n"
        );
    }
}
