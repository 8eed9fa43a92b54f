//! libslurm's time texts: `slurm_make_time_str` (local time, honouring `SLURM_TIME_FORMAT`), the duration
//! printers `slurm_secs2time_str`/`slurm_mins2time_str`, their parsers `slurm_time_str2secs`/`_mins`,
//! `slurm_parse_time` (spur-core's `parse_time`, the one sbatch `--begin` uses) and `slurm_mon_abbr`.
//!
//! The printers write into the caller's buffer with `snprintf`'s rules (at most `size - 1` bytes and a NUL;
//! nothing when `size <= 0`).

use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use spur_core::grammar::values::begin::{parse_time, LocalNow};

use crate::ffi::{self, guard, opt_str, INFINITE, NO_VAL};
use crate::state_strings::static_c;

/// `ESLURM_INVALID_TIME_VALUE`.
const ESLURM_INVALID_TIME_VALUE: i32 = 2054;

/// `snprintf(buf, size, "%s", text)`.
///
/// # Safety
/// `buf` is NULL or has room for `size` bytes.
pub(crate) unsafe fn write_c(buf: *mut c_char, size: c_int, text: &str) {
    let Ok(size) = usize::try_from(size) else {
        return;
    };
    if buf.is_null() || size == 0 {
        return;
    }
    let bytes = text.as_bytes();
    let len = bytes.len().min(size - 1);
    // SAFETY: the caller's contract: `size` bytes at `buf`; we write len < size bytes and a NUL.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf as *mut u8, len);
        *buf.add(len) = 0;
    }
}

/// `secs2time_str`: `[D-]HH:MM:SS`, `UNLIMITED` for `INFINITE`, `INVALID` for negative times.
pub fn secs2time(time: i64) -> String {
    if time == i64::from(INFINITE) {
        return "UNLIMITED".to_string();
    }
    // C's `%` and `/` truncate toward zero, as Rust's do.
    let (days, hours, minutes, seconds) = (
        time / 86_400,
        (time / 3_600) % 24,
        (time / 60) % 60,
        time % 60,
    );
    if days < 0 || hours < 0 || minutes < 0 || seconds < 0 {
        "INVALID".to_string()
    } else if days != 0 {
        format!("{days}-{hours:02}:{minutes:02}:{seconds:02}")
    } else {
        format!("{hours:02}:{minutes:02}:{seconds:02}")
    }
}

/// `mins2time_str`: as [`secs2time`] for a count of minutes (unsigned, so never `INVALID`).
pub fn mins2time(time: u32) -> String {
    if time == INFINITE {
        return "UNLIMITED".to_string();
    }
    let (days, hours, minutes) = (time / 1_440, time / 60 % 24, time % 60);
    if days != 0 {
        format!("{days}-{hours:02}:{minutes:02}:00")
    } else {
        format!("{hours:02}:{minutes:02}:00")
    }
}

/// libslurm's `_is_valid_timespec`: digits, at most one `-` (before any `:`), at most two `:`, and enough digit
/// groups for the separators.
fn valid_timespec(s: &[u8]) -> bool {
    let (mut digit, mut dash, mut colon) = (0, 0, 0);
    let mut in_digits = false;
    for &b in s {
        match b {
            b'0'..=b'9' => {
                if !in_digits {
                    digit += 1;
                    in_digits = true;
                }
            }
            b'-' => {
                in_digits = false;
                dash += 1;
                if colon > 0 {
                    return false;
                }
            }
            b':' => {
                in_digits = false;
                colon += 1;
            }
            _ => return false,
        }
    }
    let needed = match (dash > 0, colon) {
        (_, 0) => 1,
        (true, c) => c + 2,
        (false, c) => c + 1,
    };
    digit > 0 && dash <= 1 && colon <= 2 && digit >= needed
}

/// Reads `%d` fields separated by the literal bytes of `seps` the way `sscanf` does, stopping at the first
/// mismatch; returns the fields read.
fn scan_ints(s: &[u8], seps: &[u8]) -> Vec<i32> {
    let mut out = Vec::new();
    let mut pos = 0;
    for i in 0..=seps.len() {
        if i > 0 {
            if s.get(pos) != Some(&seps[i - 1]) {
                break;
            }
            pos += 1;
        }
        let start = pos;
        if matches!(s.get(pos), Some(b'-') | Some(b'+')) {
            pos += 1;
        }
        let digits_start = pos;
        while s.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        if pos == digits_start {
            break;
        }
        let text = std::str::from_utf8(&s[start..pos]).unwrap_or("0");
        // glibc's %d of an out-of-range number stores the value truncated to int.
        let value = text
            .parse::<i64>()
            .map(|v| v as i32)
            .unwrap_or(if text.starts_with('-') { 0 } else { -1 });
        out.push(value);
    }
    out
}

/// `time_str2secs`: seconds (int arithmetic, wrapping as libslurm's does), `INFINITE` (-1) for `-1`, `INFINITE`
/// or `UNLIMITED`, `NO_VAL` (-2) for anything else.
pub fn time_str2secs(s: Option<&str>) -> i32 {
    let Some(s) = s.filter(|s| !s.is_empty()) else {
        return NO_VAL as i32;
    };
    if ["-1", "INFINITE", "UNLIMITED"]
        .iter()
        .any(|u| u.eq_ignore_ascii_case(s))
    {
        return INFINITE as i32;
    }
    let b = s.as_bytes();
    if !valid_timespec(b) {
        return NO_VAL as i32;
    }
    let field = |v: &[i32], i: usize| v.get(i).copied().unwrap_or(0);
    if b.contains(&b'-') {
        let v = scan_ints(b, b"-::");
        field(&v, 0)
            .wrapping_mul(86_400)
            .wrapping_add(field(&v, 1).wrapping_mul(3_600))
            .wrapping_add(field(&v, 2).wrapping_mul(60))
            .wrapping_add(field(&v, 3))
    } else {
        let v = scan_ints(b, b"::");
        if v.len() == 3 {
            v[0].wrapping_mul(3_600)
                .wrapping_add(v[1].wrapping_mul(60))
                .wrapping_add(v[2])
        } else {
            field(&v, 0).wrapping_mul(60).wrapping_add(field(&v, 1))
        }
    }
}

/// `time_str2mins`: [`time_str2secs`] rounded up to minutes.
pub fn time_str2mins(s: Option<&str>) -> i32 {
    let secs = time_str2secs(s);
    if secs == INFINITE as i32 || secs == NO_VAL as i32 {
        secs
    } else {
        secs.wrapping_add(59) / 60
    }
}

/// What `SLURM_TIME_FORMAT` selects, read once per process as libslurm does.
enum TimeFormat {
    Fixed(CString),
    Relative,
}

fn time_format() -> &'static TimeFormat {
    static FORMAT: OnceLock<TimeFormat> = OnceLock::new();
    FORMAT.get_or_init(|| {
        let standard = TimeFormat::Fixed(CString::new("%FT%T").unwrap_or_default());
        let Some(fmt) = std::env::var_os("SLURM_TIME_FORMAT") else {
            return standard;
        };
        let fmt = fmt.to_string_lossy().into_owned();
        if fmt.is_empty() || fmt == "standard" {
            standard
        } else if fmt == "relative" {
            TimeFormat::Relative
        } else if !fmt.contains('%') || fmt.len() >= 32 {
            crate::print_misc::log_error(&format!("invalid SLURM_TIME_FORMAT = '{fmt}'"));
            standard
        } else {
            CString::new(fmt).map_or(standard, TimeFormat::Fixed)
        }
    })
}

/// `YYYYddd` of a broken-down time, the day arithmetic of libslurm's relative format.
fn year_day(tm: &libc::tm) -> i32 {
    1000 * (tm.tm_year + 1900) + tm.tm_yday
}

/// The strftime format libslurm's `relative` style picks for a time, by its distance in days from today (today
/// being fixed at the first use, as there).
fn relative_format(when: &libc::tm) -> &'static [u8] {
    static TODAY: OnceLock<i32> = OnceLock::new();
    let today = *TODAY.get_or_init(|| {
        // SAFETY: time and localtime_r with valid pointers.
        unsafe {
            let now = libc::time(std::ptr::null_mut());
            let mut tm: libc::tm = std::mem::zeroed();
            libc::localtime_r(&now, &mut tm);
            year_day(&tm)
        }
    });
    match year_day(when) - today {
        -1 => b"Ystday %H:%M\0",
        0 => b"%H:%M:%S\0",
        1 => b"Tomorr %H:%M\0",
        d if !(-365..=365).contains(&d) => b"%-d %b %Y\0",
        d if !(-1..=6).contains(&d) => b"%-d %b %H:%M\0",
        _ => b"%a %H:%M\0",
    }
}

/// # Safety
/// `time` points to a `time_t`; `string` has room for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_make_time_str(
    time: *mut libc::time_t,
    string: *mut c_char,
    size: c_int,
) {
    guard("slurm_make_time_str", (), || {
        if time.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let t = unsafe { *time };
        if t == 0 || t == libc::time_t::from(INFINITE) {
            // SAFETY: the caller's contract.
            return unsafe { write_c(string, size, "Unknown") };
        }
        if t == libc::time_t::from(NO_VAL) {
            // SAFETY: the caller's contract.
            return unsafe { write_c(string, size, "None") };
        }
        let Ok(max) = usize::try_from(size) else {
            return;
        };
        if max == 0 || string.is_null() {
            return;
        }
        // SAFETY: localtime_r/strftime with valid pointers and the buffer's real length; the result is copied
        // into the caller's buffer with at most `max - 1` bytes and a NUL, as libslurm's slurm_strftime does.
        unsafe {
            let mut tm: libc::tm = std::mem::zeroed();
            libc::localtime_r(&t, &mut tm);
            let fmt_ptr = match time_format() {
                TimeFormat::Fixed(f) => f.as_ptr(),
                TimeFormat::Relative => relative_format(&tm).as_ptr() as *const c_char,
            };
            let mut tmp = vec![0u8; max.max(256) + usize::from(max >= 256)];
            let n = libc::strftime(tmp.as_mut_ptr() as *mut c_char, tmp.len(), fmt_ptr, &tm);
            if n == 0 {
                tmp[..max].fill(b'#');
            }
            tmp[max - 1] = 0;
            let len = tmp.iter().position(|&b| b == 0).unwrap_or(max - 1);
            std::ptr::copy_nonoverlapping(tmp.as_ptr(), string as *mut u8, len);
            *string.add(len) = 0;
        }
    })
}

/// # Safety
/// `string` has room for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_secs2time_str(time: libc::time_t, string: *mut c_char, size: c_int) {
    // SAFETY: the caller's contract.
    guard("slurm_secs2time_str", (), || unsafe {
        write_c(string, size, &secs2time(time))
    })
}

/// # Safety
/// `string` has room for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_mins2time_str(time: u32, string: *mut c_char, size: c_int) {
    // SAFETY: the caller's contract.
    guard("slurm_mins2time_str", (), || unsafe {
        write_c(string, size, &mins2time(time))
    })
}

/// # Safety
/// `string` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_time_str2secs(string: *const c_char) -> c_int {
    guard("slurm_time_str2secs", NO_VAL as i32, || {
        // SAFETY: the caller's contract.
        time_str2secs(unsafe { opt_str(string) }.as_deref())
    })
}

/// # Safety
/// `string` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_time_str2mins(string: *const c_char) -> c_int {
    guard("slurm_time_str2mins", NO_VAL as i32, || {
        // SAFETY: the caller's contract.
        time_str2mins(unsafe { opt_str(string) }.as_deref())
    })
}

/// A time as `parse_time` reads it (`now+1hour`, `tomorrow`, `16:00`, `2026-12-24T18:00`, `uts<epoch>` ...);
/// 0 with errno `ESLURM_INVALID_TIME_VALUE` and libslurm's line on stderr when the text is not a time.
///
/// # Safety
/// `time_str` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_parse_time(time_str: *const c_char, past: c_int) -> libc::time_t {
    guard("slurm_parse_time", 0, || {
        // SAFETY: the caller's contract.
        let Some(text) = (unsafe { opt_str(time_str) }) else {
            ffi::set_errno(ESLURM_INVALID_TIME_VALUE);
            return 0;
        };
        // libslurm stops at the first newline.
        let text = text.split('\n').next().unwrap_or_default();
        let now = LocalNow {
            epoch_secs: ffi::now(),
            utc_offset_secs: crate::print::local_utc_offset(),
        };
        match parse_time(text, now, past != 0) {
            Ok(t) => t,
            Err(e) => {
                ffi::log_plain(&e.to_string());
                ffi::set_errno(ESLURM_INVALID_TIME_VALUE);
                0
            }
        }
    })
}

/// A month's two-letter abbreviation (`Ja` ... `De`, `Un` for anything else), static text.
#[no_mangle]
pub extern "C" fn slurm_mon_abbr(mon: c_int) -> *mut c_char {
    guard("slurm_mon_abbr", std::ptr::null_mut(), || {
        const ABBR: [&str; 12] = [
            "Ja", "Fe", "Ma", "Ap", "Ma", "Ju", "Jl", "Au", "Se", "Oc", "No", "De",
        ];
        static_c(
            usize::try_from(mon)
                .ok()
                .and_then(|m| ABBR.get(m))
                .copied()
                .unwrap_or("Un"),
        )
    })
}

/// `mktime` deciding daylight saving time itself (`tm_isdst` is set to -1 first, in the caller's struct).
///
/// # Safety
/// `tp` points to a writable `struct tm`.
#[no_mangle]
pub unsafe extern "C" fn slurm_mktime(tp: *mut libc::tm) -> libc::time_t {
    guard("slurm_mktime", -1, || {
        if tp.is_null() {
            return -1;
        }
        // SAFETY: the caller's contract.
        unsafe {
            (*tp).tm_isdst = -1;
            libc::mktime(tp)
        }
    })
}

/// `ctime` without the newline (`Mon Nov 30 14:58:05 2026`) into a 25-byte buffer.
///
/// # Safety
/// `timep` points to a `time_t`; `out` has room for 25 bytes.
unsafe fn ctime2_into(timep: *const libc::time_t, out: *mut c_char) {
    // SAFETY: the caller's contract; strftime writes at most 25 bytes.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(timep, &mut tm);
        libc::strftime(out, 25, c"%a %b %d %T %Y".as_ptr(), &tm);
    }
}

/// # Safety
/// `timep` points to a `time_t`; `time_str` has room for 25 bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_ctime2_r(
    timep: *const libc::time_t,
    time_str: *mut c_char,
) -> *mut c_char {
    guard("slurm_ctime2_r", std::ptr::null_mut(), || {
        if timep.is_null() || time_str.is_null() {
            return time_str;
        }
        // SAFETY: the caller's contract.
        unsafe { ctime2_into(timep, time_str) };
        time_str
    })
}

/// As [`slurm_ctime2_r`] into a buffer of the calling thread (libslurm's is one static buffer), rewritten by
/// the thread's next call.
///
/// # Safety
/// `timep` points to a `time_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_ctime2(timep: *const libc::time_t) -> *mut c_char {
    thread_local! {
        static BUFFER: std::cell::UnsafeCell<[c_char; 25]> = const { std::cell::UnsafeCell::new([0; 25]) };
    }
    guard("slurm_ctime2", std::ptr::null_mut(), || {
        if timep.is_null() {
            return std::ptr::null_mut();
        }
        BUFFER.with(|b| {
            let buf = b.get() as *mut c_char;
            // SAFETY: the caller's contract; this thread's 25-byte buffer.
            unsafe { ctime2_into(timep, buf) };
            buf
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(secs2time(0), "00:00:00");
        assert_eq!(secs2time(90_061), "1-01:01:01");
        assert_eq!(secs2time(-5), "INVALID");
        assert_eq!(secs2time(i64::from(INFINITE)), "UNLIMITED");
        assert_eq!(mins2time(1_441), "1-00:01:00");
    }

    #[test]
    fn time_specs() {
        assert_eq!(time_str2secs(Some("1-2:3:4")), 93_784);
        assert_eq!(time_str2secs(Some("5:6")), 306);
        assert_eq!(time_str2secs(Some("1:2:3")), 3_723);
        assert_eq!(time_str2secs(Some("-5")), -432_000);
        assert_eq!(time_str2secs(Some("1::2")), NO_VAL as i32);
        assert_eq!(time_str2secs(Some("unlimited")), -1);
        assert_eq!(time_str2mins(Some("61")), 61);
        assert_eq!(time_str2mins(Some("0:61")), 2);
    }
}
