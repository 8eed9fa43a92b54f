//! libslurm's small value-to-text helpers: job share and preemption modes, reservation flags, the
//! `PrivateData`/`AccountingStorageEnforce` lists, task distribution names and CPU/memory binding flags.
//!
//! Texts and return conventions are libslurm 22.05's: share and preempt names are static; the reservation flag
//! list, the distribution name and the memory binding list are allocated (plain `malloc`; `free()` or
//! `slurm_xfree`); the private-data, enforce and CPU binding lists are written into the caller's buffer.

use std::ffi::{c_char, c_int};

use slurm_headers::reserve_info_t;

use crate::ffi::{c_string, guard, opt_str, NO_VAL16};
use crate::state_strings::static_c;
use crate::time_strings::secs2time;

const PREEMPT_MODE_OFF: u16 = 0;
const PREEMPT_MODE_SUSPEND: u16 = 1;
const PREEMPT_MODE_REQUEUE: u16 = 2;
const PREEMPT_MODE_CANCEL: u16 = 8;
const PREEMPT_MODE_WITHIN: u16 = 0x4000;
const PREEMPT_MODE_GANG: u16 = 0x8000;

/// `preempt_mode_string`.
pub fn preempt_mode_string(mode: u16) -> &'static str {
    match mode {
        PREEMPT_MODE_OFF => return "OFF",
        PREEMPT_MODE_GANG => return "GANG",
        PREEMPT_MODE_WITHIN => return "WITHIN",
        _ => {}
    }
    let named = |m: u16| match m {
        PREEMPT_MODE_CANCEL => Some("CANCEL"),
        PREEMPT_MODE_REQUEUE => Some("REQUEUE"),
        PREEMPT_MODE_SUSPEND => Some("SUSPEND"),
        _ => None,
    };
    if mode & PREEMPT_MODE_GANG != 0 {
        match named(mode & !PREEMPT_MODE_GANG) {
            Some("CANCEL") => "GANG,CANCEL",
            Some("REQUEUE") => "GANG,REQUEUE",
            Some(_) => "GANG,SUSPEND",
            None => "GANG,UNKNOWN",
        }
    } else if mode & PREEMPT_MODE_WITHIN != 0 {
        match named(mode & !PREEMPT_MODE_WITHIN) {
            Some("CANCEL") => "WITHIN,CANCEL",
            Some("REQUEUE") => "WITHIN,REQUEUE",
            Some(_) => "WITHIN,SUSPEND",
            None => "WITHIN,UNKNOWN",
        }
    } else {
        named(mode).unwrap_or("UNKNOWN")
    }
}

/// `preempt_mode_num`: comma-separated mode words, any case; `NO_VAL16` for an unknown word, two modes, or
/// GANG with WITHIN. The modes add up (libslurm adds rather than ORs them).
pub fn preempt_mode_num(text: &str) -> u16 {
    let mut num: u16 = 0;
    let mut modes = 0;
    for word in text.split(',').filter(|w| !w.is_empty()) {
        let is = |w: &str| word.eq_ignore_ascii_case(w);
        if is("gang") {
            num |= PREEMPT_MODE_GANG;
        } else if is("within") {
            num |= PREEMPT_MODE_WITHIN;
        } else if is("off") || is("cluster") {
            modes += 1;
        } else if is("cancel") {
            num = num.wrapping_add(PREEMPT_MODE_CANCEL);
            modes += 1;
        } else if is("requeue") {
            num = num.wrapping_add(PREEMPT_MODE_REQUEUE);
            modes += 1;
        } else if is("on") || is("suspend") {
            num = num.wrapping_add(PREEMPT_MODE_SUSPEND);
            modes += 1;
        } else {
            return NO_VAL16;
        }
    }
    if modes > 1 || (num & PREEMPT_MODE_GANG != 0 && num & PREEMPT_MODE_WITHIN != 0) {
        NO_VAL16
    } else {
        num
    }
}

/// Reservation flags as `scontrol show reservation` lists them, in libslurm's order (bit, name).
const RESERVATION_FLAGS: [(u32, &str); 27] = [
    (0, "MAINT"),
    (1, "NO_MAINT"),
    (25, "FLEX"),
    (14, "OVERLAP"),
    (6, "IGNORE_JOBS"),
    (35, "HOURLY"),
    (36, "NO_HOURLY"),
    (2, "DAILY"),
    (3, "NO_DAILY"),
    (21, "WEEKDAY"),
    (23, "WEEKEND"),
    (4, "WEEKLY"),
    (5, "NO_WEEKLY"),
    (15, "SPEC_NODES"),
    (19, "ALL_NODES"),
    (8, "ANY_NODES"),
    (9, "NO_ANY_NODES"),
    (10, "STATIC"),
    (11, "NO_STATIC"),
    (12, "PART_NODES"),
    (13, "NO_PART_NODES"),
    (16, "FIRST_CORES"),
    (17, "TIME_FLOAT"),
    (18, "REPLACE"),
    (30, "REPLACE_DOWN"),
    (20, "PURGE_COMP"),
    (29, "NO_HOLD_JOBS_AFTER_END"),
];
/// `MAGNETIC` and `NO_MAGNETIC`, listed last.
const RESERVATION_FLAGS_TAIL: [(u32, &str); 2] = [(32, "MAGNETIC"), (33, "NO_MAGNETIC")];
const RESERVE_FLAG_PURGE_COMP_BIT: u32 = 20;

/// `reservation_flags_string`: the comma-separated flag names; `PURGE_COMP=<time>` when a purge time is set.
pub fn reservation_flags(flags: u64, purge_comp_time: u32) -> String {
    let mut names: Vec<String> = Vec::new();
    for &(bit, name) in RESERVATION_FLAGS.iter().chain(&RESERVATION_FLAGS_TAIL) {
        if flags & (1u64 << bit) == 0 {
            continue;
        }
        if bit == RESERVE_FLAG_PURGE_COMP_BIT && purge_comp_time != 0 {
            names.push(format!(
                "PURGE_COMP={}",
                secs2time(i64::from(purge_comp_time))
            ));
        } else {
            names.push(name.to_string());
        }
    }
    names.join(",")
}

/// Writes `words` joined by commas (or `none`) into a caller's buffer that must hold at least `min` bytes,
/// as `private_data_string`/`accounting_enforce_string` do; a smaller buffer gets an empty string and
/// libslurm's error line.
///
/// # Safety
/// `buf` is NULL or has room for `len` bytes.
unsafe fn write_word_list(buf: *mut c_char, len: c_int, min: c_int, who: &str, words: Vec<&str>) {
    if len > 0 && !buf.is_null() {
        // SAFETY: at least one byte.
        unsafe { *buf = 0 };
    }
    if len < min {
        crate::print_misc::log_error(&format!("{who}: output buffer too small"));
        return;
    }
    let text = if words.is_empty() {
        "none".to_string()
    } else {
        words.join(",")
    };
    // SAFETY: the caller's contract.
    unsafe { crate::time_strings::write_c(buf, len, &text) };
}

fn words_for(value: u16, table: &[(u32, &'static str)]) -> Vec<&'static str> {
    table
        .iter()
        .filter(|(bit, _)| u32::from(value) & (1 << bit) != 0)
        .map(|(_, w)| *w)
        .collect()
}

/// The distribution names of `task_dist_states` (base value, name), including libslurm's repeated
/// `CCyclicFCyclic`.
const LAYOUT_NAMES: [(u32, &str); 28] = [
    (0x0001, "Cyclic"),
    (0x0002, "Block"),
    (0x0003, "arbitrary task distribution"),
    (0x0004, "Plane"),
    (0x0011, "CCyclic"),
    (0x0021, "CBlock"),
    (0x0012, "BCyclic"),
    (0x0022, "BBlock"),
    (0x0031, "CFCyclic"),
    (0x0032, "BFCyclic"),
    (0x0111, "CCyclicCyclic"),
    (0x0211, "CCyclicBlock"),
    (0x0311, "CCyclicFCyclic"),
    (0x0121, "CBlockCyclic"),
    (0x0221, "CBlockBlock"),
    (0x0321, "CCyclicFCyclic"),
    (0x0131, "CFCyclicCyclic"),
    (0x0231, "CFCyclicBlock"),
    (0x0331, "CFCyclicFCyclic"),
    (0x0112, "BCyclicCyclic"),
    (0x0212, "BCyclicBlock"),
    (0x0312, "BCyclicFCyclic"),
    (0x0122, "BBlockCyclic"),
    (0x0222, "BBlockBlock"),
    (0x0322, "BBlockFCyclic"),
    (0x0132, "BFCyclicCyclic"),
    (0x0232, "BFCyclicBlock"),
    (0x0332, "BFCyclicFCyclic"),
];

/// `slurm_step_layout_type_name`: the base distribution's name (`Unknown` if none) and `,Pack`/`,NoPack`.
pub fn layout_type_name(task_dist: u32) -> String {
    let base = task_dist & 0xffff;
    let mut name = LAYOUT_NAMES
        .iter()
        .find(|(value, _)| *value == base)
        .map_or("Unknown", |(_, n)| n)
        .to_string();
    if task_dist & 0x0080_0000 != 0 {
        name.push_str(",Pack");
    }
    if task_dist & 0x0040_0000 != 0 {
        name.push_str(",NoPack");
    }
    name
}

const CPU_BIND_WORDS: [(u32, &str); 17] = [
    (0x0001, "verbose"),
    (0x0002, "threads"),
    (0x0004, "cores"),
    (0x0008, "sockets"),
    (0x0010, "ldoms"),
    (0x0020, "none"),
    (0x0040, "rank"),
    (0x0080, "map_cpu"),
    (0x0100, "mask_cpu"),
    (0x0200, "rank_ldom"),
    (0x0400, "map_ldom"),
    (0x0800, "mask_ldom"),
    (0x2000, "one_thread"),
    (0x04000, "autobind=threads"),
    (0x10000, "autobind=cores"),
    (0x20000, "autobind=sockets"),
    (0x80000, "off"),
];

const MEM_BIND_WORDS: [(u32, &str); 8] = [
    (0x01, "verbose"),
    (0x80, "prefer"),
    (0x40, "sort"),
    (0x02, "none"),
    (0x04, "rank"),
    (0x20, "local"),
    (0x08, "map_mem"),
    (0x10, "mask_mem"),
];

fn bind_words(value: u32, table: &[(u32, &'static str)]) -> Vec<&'static str> {
    table
        .iter()
        .filter(|(bit, _)| value & bit != 0)
        .map(|(_, w)| *w)
        .collect()
}

#[no_mangle]
pub extern "C" fn slurm_job_share_string(shared: u16) -> *mut c_char {
    guard("slurm_job_share_string", std::ptr::null_mut(), || {
        static_c(match shared {
            0 => "NO",
            1 => "YES",
            2 => "USER",
            3 => "MCS",
            _ => "OK",
        })
    })
}

#[no_mangle]
pub extern "C" fn slurm_preempt_mode_string(preempt_mode: u16) -> *const c_char {
    guard("slurm_preempt_mode_string", std::ptr::null(), || {
        static_c(preempt_mode_string(preempt_mode)) as *const c_char
    })
}

/// # Safety
/// `preempt_mode` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_preempt_mode_num(preempt_mode: *const c_char) -> u16 {
    guard("slurm_preempt_mode_num", NO_VAL16, || {
        // SAFETY: the caller's contract.
        unsafe { opt_str(preempt_mode) }.map_or(0, |t| preempt_mode_num(&t))
    })
}

/// # Safety
/// `resv_ptr` points to a reservation record.
#[no_mangle]
pub unsafe extern "C" fn slurm_reservation_flags_string(
    resv_ptr: *mut reserve_info_t,
) -> *mut c_char {
    guard(
        "slurm_reservation_flags_string",
        std::ptr::null_mut(),
        || {
            if resv_ptr.is_null() {
                return std::ptr::null_mut();
            }
            // SAFETY: the caller's contract.
            let resv = unsafe { &*resv_ptr };
            c_string(&reservation_flags(resv.flags, resv.purge_comp_time))
        },
    )
}

/// # Safety
/// `str_` has room for `str_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_private_data_string(
    private_data: u16,
    str_: *mut c_char,
    str_len: c_int,
) {
    guard("slurm_private_data_string", (), || {
        // PRIVATE_DATA_* bits, in libslurm's (alphabetical) order.
        const WORDS: [(u32, &str); 9] = [
            (5, "accounts"),
            (7, "cloud"),
            (8, "events"),
            (0, "jobs"),
            (1, "nodes"),
            (2, "partitions"),
            (6, "reservations"),
            (3, "usage"),
            (4, "users"),
        ];
        let words = words_for(private_data, &WORDS);
        // SAFETY: the caller's contract.
        unsafe { write_word_list(str_, str_len, 69, "private_data_string", words) }
    })
}

/// # Safety
/// `str_` has room for `str_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_accounting_enforce_string(
    enforce: u16,
    str_: *mut c_char,
    str_len: c_int,
) {
    guard("slurm_accounting_enforce_string", (), || {
        // ACCOUNTING_ENFORCE_* bits, in libslurm's order.
        const WORDS: [(u32, &str); 7] = [
            (0, "associations"),
            (1, "limits"),
            (5, "nojobs"),
            (6, "nosteps"),
            (3, "qos"),
            (4, "safe"),
            (2, "wckeys"),
        ];
        let words = words_for(enforce, &WORDS);
        // SAFETY: the caller's contract.
        unsafe { write_word_list(str_, str_len, 50, "enforce", words) }
    })
}

#[no_mangle]
pub extern "C" fn slurm_step_layout_type_name(task_dist: u32) -> *mut c_char {
    guard("slurm_step_layout_type_name", std::ptr::null_mut(), || {
        c_string(&layout_type_name(task_dist))
    })
}

/// Writes the CPU binding words (or `(null type)`) into `str_`, which libslurm assumes is large enough.
///
/// # Safety
/// `str_` is NULL or has room for the text (128 bytes always suffice).
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_cpu_bind_type(str_: *mut c_char, cpu_bind_type: u32) {
    guard("slurm_sprint_cpu_bind_type", (), || {
        if str_.is_null() {
            return;
        }
        let words = bind_words(cpu_bind_type, &CPU_BIND_WORDS);
        let text = if words.is_empty() {
            "(null type)".to_string()
        } else {
            words.join(",")
        };
        // SAFETY: the caller's contract; the longest text (every word) is under 200 bytes.
        unsafe { crate::time_strings::write_c(str_, c_int::MAX, &text) }
    })
}

/// The memory binding words, allocated; NULL when no bit is set.
#[no_mangle]
pub extern "C" fn slurm_xstr_mem_bind_type(mem_bind_type: u32) -> *mut c_char {
    guard("slurm_xstr_mem_bind_type", std::ptr::null_mut(), || {
        let words = bind_words(mem_bind_type, &MEM_BIND_WORDS);
        if words.is_empty() {
            std::ptr::null_mut()
        } else {
            c_string(&words.join(","))
        }
    })
}

/// A C string's text, for the tests.
#[cfg(test)]
fn text(p: *const c_char) -> String {
    // SAFETY: test-only, a pointer from this module.
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preempt_modes() {
        assert_eq!(preempt_mode_string(0x8008), "GANG,CANCEL");
        assert_eq!(preempt_mode_string(0x8003), "GANG,UNKNOWN");
        assert_eq!(preempt_mode_num("gang,suspend"), 0x8001);
        assert_eq!(preempt_mode_num("cancel,requeue"), NO_VAL16);
        assert_eq!(preempt_mode_num("gang,within"), NO_VAL16);
        assert_eq!(text(slurm_preempt_mode_string(2)), "REQUEUE");
    }

    #[test]
    fn layouts_and_flags() {
        assert_eq!(
            layout_type_name(0x0321 | 0x0080_0000),
            "CCyclicFCyclic,Pack"
        );
        assert_eq!(layout_type_name(0x2000), "Unknown");
        assert_eq!(
            reservation_flags(1 | (1 << 20), 3_600),
            "MAINT,PURGE_COMP=01:00:00"
        );
    }
}
