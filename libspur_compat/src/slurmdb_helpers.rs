//! Small slurmdb helpers pyslurm and the Perl `Slurmdb` module call: `slurmdb_create_job_rec`,
//! `slurmdb_find_tres_count_in_string`, and the default report/query windows of `sacct` and `sreport`
//! (`slurmdb_job_cond_def_start_end`, `slurmdb_report_set_start_end_time`), computed in local time as libslurm's.

use std::ffi::{c_char, c_int, c_void, CStr};

use slurm_headers::{slurmdb_job_cond_t, slurmdb_job_rec_t};

use crate::ffi::{c_calloc, guard, INFINITE64, NO_VAL, SLURM_ERROR, SLURM_SUCCESS};
use crate::list;
use crate::print_misc::log_error;

const JOBCOND_FLAG_RUNAWAY: u32 = 1 << 3;
const JOBCOND_FLAG_NO_DEFAULT_USAGE: u32 = 1 << 7;

extern "C" {
    // The step record destructor this library exports (wherever it is implemented), the steps list's destructor
    // as in libslurm.
    fn slurmdb_destroy_step_rec(object: *mut c_void);
}

unsafe extern "C" fn destroy_step_rec(object: *mut c_void) {
    // SAFETY: forwards the list's item to the exported destructor.
    unsafe { slurmdb_destroy_step_rec(object) }
}

fn localtime(t: libc::time_t) -> Option<libc::tm> {
    // SAFETY: localtime_r with valid pointers.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        (!libc::localtime_r(&t, &mut tm).is_null()).then_some(tm)
    }
}

/// libslurm's `slurm_mktime`: `mktime` deciding daylight saving time itself.
fn mktime(mut tm: libc::tm) -> libc::time_t {
    tm.tm_isdst = -1;
    // SAFETY: a valid broken-down time.
    unsafe { libc::mktime(&mut tm) }
}

fn now() -> libc::time_t {
    // SAFETY: time(NULL).
    unsafe { libc::time(std::ptr::null_mut()) }
}

#[no_mangle]
pub extern "C" fn slurmdb_create_job_rec() -> *mut slurmdb_job_rec_t {
    guard("slurmdb_create_job_rec", std::ptr::null_mut(), || {
        let job = c_calloc::<slurmdb_job_rec_t>(1);
        if job.is_null() {
            return job;
        }
        // SAFETY: a fresh zeroed record.
        let j = unsafe { &mut *job };
        j.array_task_id = NO_VAL;
        j.derived_ec = NO_VAL;
        j.state = 0; // JOB_PENDING
        j.steps = list::create(Some(destroy_step_rec));
        j.requid = u32::MAX; // -1
        j.lft = NO_VAL;
        j.resvid = NO_VAL;
        job
    })
}

/// `id=count` pairs separated by commas: the count of TRES `id`, or `INFINITE64` when absent.
pub fn find_tres_count(text: &CStr, id: c_int) -> u64 {
    let bytes = text.to_bytes();
    if bytes.is_empty() {
        return INFINITE64;
    }
    let mut at = 0;
    loop {
        let rest = &text.to_bytes_with_nul()[at..];
        // SAFETY: atoi on a NUL-terminated tail of the string.
        if unsafe { libc::atoi(rest.as_ptr() as *const c_char) } == id {
            let Some(eq) = bytes[at..].iter().position(|&b| b == b'=') else {
                log_error("slurmdb_find_tres_count_in_string: no value found");
                return INFINITE64;
            };
            let value = &text.to_bytes_with_nul()[at + eq + 1..];
            // SAFETY: strtoull on a NUL-terminated tail.
            return unsafe {
                libc::strtoull(value.as_ptr() as *const c_char, std::ptr::null_mut(), 10)
            };
        }
        match bytes[at..].iter().position(|&b| b == b',') {
            Some(comma) => at += comma + 1,
            None => return INFINITE64,
        }
    }
}

/// # Safety
/// `tres_str_in` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_find_tres_count_in_string(
    tres_str_in: *mut c_char,
    id: c_int,
) -> u64 {
    guard("slurmdb_find_tres_count_in_string", INFINITE64, || {
        if tres_str_in.is_null() {
            return INFINITE64;
        }
        // SAFETY: the caller's contract.
        find_tres_count(unsafe { CStr::from_ptr(tres_str_in) }, id)
    })
}

/// Fills in `sacct`'s default window: see libslurm's `slurmdb_job_cond_def_start_end` (states given: from now;
/// jobs given: from the epoch; neither: from midnight; until now, exclusive end bumped by a second).
///
/// # Safety
/// `job_cond` is NULL or a valid condition whose lists are NULL or live.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_job_cond_def_start_end(job_cond: *mut slurmdb_job_cond_t) {
    guard("slurmdb_job_cond_def_start_end", (), || {
        if job_cond.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let c = unsafe { &mut *job_cond };
        if c.flags & (JOBCOND_FLAG_RUNAWAY | JOBCOND_FLAG_NO_DEFAULT_USAGE) != 0 {
            return;
        }
        let now = now();
        // SAFETY: the caller's contract.
        let has = |l: slurm_headers::List| unsafe { !l.is_null() && list::count(l) > 0 };
        if has(c.state_list) {
            if c.usage_start == 0 && !has(c.step_list) {
                c.usage_start = now;
            }
            if c.usage_start != 0 && c.usage_end == 0 {
                c.usage_end = c.usage_start;
            }
        } else if !has(c.step_list) && c.usage_start == 0 {
            c.usage_start = now;
            match localtime(now) {
                Some(mut tm) => {
                    tm.tm_sec = 0;
                    tm.tm_min = 0;
                    tm.tm_hour = 0;
                    c.usage_start = mktime(tm);
                }
                None => log_error(&format!("Couldn't get localtime from {now}")),
            }
        }
        if c.usage_end == 0 {
            c.usage_end = now;
        }
        if c.usage_end == c.usage_start || c.usage_end == now {
            c.usage_end += 1;
        }
    })
}

/// Rounds a report window to whole hours as `sreport` does: default end is the start of today, default start
/// the day before; given times round to the nearest hour; the window is at least an hour.
///
/// # Safety
/// `start` and `end` point to `time_t`s.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_report_set_start_end_time(
    start: *mut libc::time_t,
    end: *mut libc::time_t,
) -> c_int {
    guard("slurmdb_report_set_start_end_time", SLURM_ERROR, || {
        if start.is_null() || end.is_null() {
            return SLURM_ERROR;
        }
        let my_time = now();
        // libslurm keeps the given times in ints.
        // SAFETY: the caller's contract.
        let (sent_start, sent_end) = unsafe { (*start as i32, *end as i32) };
        let round = |sent: i32, what: &str| -> Option<libc::tm> {
            let Some(mut tm) = localtime(if sent == 0 { my_time } else { i64::from(sent) }) else {
                log_error(&format!("Couldn't get localtime from {what} {my_time}"));
                return None;
            };
            if sent != 0 {
                if tm.tm_sec >= 30 {
                    tm.tm_min += 1;
                }
                if tm.tm_min >= 30 {
                    tm.tm_hour += 1;
                }
            }
            tm.tm_sec = 0;
            tm.tm_min = 0;
            Some(tm)
        };
        let Some(mut end_tm) = round(sent_end, if sent_end == 0 { "end" } else { "user end" })
        else {
            return SLURM_ERROR;
        };
        if sent_end == 0 {
            end_tm.tm_hour = 0;
        }
        let end_time = mktime(end_tm);
        // SAFETY: the caller's contract.
        unsafe { *end = end_time };
        let Some(mut start_tm) = round(
            sent_start,
            if sent_start == 0 {
                "start"
            } else {
                "user start"
            },
        ) else {
            return SLURM_ERROR;
        };
        if sent_start == 0 {
            start_tm.tm_hour = 0;
            start_tm.tm_mday -= 1;
        }
        let start_time = mktime(start_tm);
        // SAFETY: the caller's contract.
        unsafe {
            *start = start_time;
            if *end - *start < 3600 {
                *end = *start + 3600;
            }
        }
        SLURM_SUCCESS
    })
}
