//! `slurm_xstr*`: libslurm's NULL-safe string helpers. Strings they create or grow are libc-malloc'd (see
//! [`crate::xmem`]), so a caller may release them with `free()`, `slurm_xfree` or `slurm_xfree_ptr`. The printf-style
//! ones (`slurm_xstrdup_printf`, `slurm_xstrfmtcat`, `slurm_xstrfmtcatat`) are in `variadic.c` and end here.

use std::ffi::{c_char, c_int, c_void};

use crate::ffi::guard;
use crate::xmem::{bytes_or_abort, c_bytes};

/// Appends `add` to `*s` at byte `at` (the current length when None), growing the block; returns the new
/// length.
///
/// # Safety
/// `s` points to NULL or a malloc'd NUL-terminated string at least `at` bytes long.
unsafe fn append_at(s: *mut *mut c_char, at: Option<usize>, add: &[u8]) -> usize {
    // SAFETY: the caller's contract.
    unsafe {
        let cur = *s;
        let len = match at {
            Some(n) => n,
            None if cur.is_null() => 0,
            None => libc::strlen(cur),
        };
        let Some(total) = len.checked_add(add.len()).and_then(|n| n.checked_add(1)) else {
            crate::xmem::oom_abort("xstrcat")
        };
        let p = libc::realloc(cur as *mut c_void, total) as *mut c_char;
        if p.is_null() {
            crate::xmem::oom_abort("xstrcat");
        }
        if cur.is_null() {
            *p = 0;
        }
        std::ptr::copy_nonoverlapping(add.as_ptr(), p.add(len) as *mut u8, add.len());
        *p.add(len + add.len()) = 0;
        *s = p;
        len + add.len()
    }
}

/// Appends `str2` (`(null)` for NULL) to `*str1`.
///
/// # Safety
/// `str1` points to NULL or a malloc'd string; `str2` is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrcat(str1: *mut *mut c_char, str2: *const c_char) {
    guard("slurm_xstrcat", (), || {
        // SAFETY: the caller's contract.
        unsafe {
            let add = c_bytes(str2).unwrap_or(b"(null)");
            append_at(str1, None, add);
        }
    })
}

/// Appends at most `len` bytes of `str2` (`(null)` for NULL).
///
/// # Safety
/// As `slurm_xstrcat`.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrncat(str1: *mut *mut c_char, str2: *const c_char, len: usize) {
    guard("slurm_xstrncat", (), || {
        // SAFETY: the caller's contract.
        unsafe {
            let add = c_bytes(str2).unwrap_or(b"(null)");
            append_at(str1, None, &add[..add.len().min(len)]);
        }
    })
}

/// Appends `str2` at `*pos` (the end of `*str` when `*pos` is NULL) and moves `*pos` past it; NULL `str2` does
/// nothing.
///
/// # Safety
/// `str`, `pos` point to slots as libslurm's `xstrcatat` expects (`*pos` NULL or inside `*str`).
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrcatat(
    str: *mut *mut c_char,
    pos: *mut *mut c_char,
    str2: *const c_char,
) {
    guard("slurm_xstrcatat", (), || {
        // SAFETY: the caller's contract.
        unsafe {
            let Some(add) = c_bytes(str2) else { return };
            if (*str).is_null() || (*pos).is_null() {
                let end = append_at(str, None, add);
                *pos = (*str).add(end);
                return;
            }
            // Like libslurm's, the text is copied over what follows `*pos` without a NUL after it: the string
            // ends there only when the copy reaches or passes its old end.
            let at = (*pos).offset_from(*str).max(0) as usize;
            let cur = libc::strlen(*str);
            let end = at + add.len();
            let Some(need) = end.max(cur).checked_add(1) else {
                crate::xmem::oom_abort("xstrcatat")
            };
            let p = libc::realloc(*str as *mut c_void, need) as *mut c_char;
            if p.is_null() {
                crate::xmem::oom_abort("xstrcatat");
            }
            std::ptr::copy_nonoverlapping(add.as_ptr(), p.add(at) as *mut u8, add.len());
            if end >= cur {
                *p.add(end) = 0;
            }
            *str = p;
            *pos = p.add(end);
        }
    })
}

/// # Safety
/// `str` points to NULL or a malloc'd string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrcatchar(str: *mut *mut c_char, c: c_char) {
    guard("slurm_xstrcatchar", (), || {
        // SAFETY: the caller's contract.
        unsafe { append_at(str, None, &[c as u8]) };
    })
}

/// Appends the bytes `start..end` (at most 4095, up to a NUL among them).
///
/// # Safety
/// `str` as in `slurm_xstrcat`; `start..end` a readable range.
#[no_mangle]
pub unsafe extern "C" fn slurm_xmemcat(
    str: *mut *mut c_char,
    start: *mut c_char,
    end: *mut c_char,
) {
    guard("slurm_xmemcat", (), || {
        // SAFETY: the caller's contract.
        unsafe {
            let len = (end as usize).saturating_sub(start as usize).min(4095);
            if len == 0 {
                return;
            }
            let bytes = std::slice::from_raw_parts(start as *const u8, len);
            let cut = bytes.iter().position(|&b| b == 0).unwrap_or(len);
            append_at(str, None, &bytes[..cut]);
        }
    })
}

/// `strftime` of the local time now (at most 255 bytes, as libslurm's buffer).
fn local_time(fmt: &[u8]) -> Vec<u8> {
    let Ok(fmt) = std::ffi::CString::new(fmt) else {
        return Vec::new();
    };
    let mut buf = [0u8; 256];
    // SAFETY: time/localtime_r/strftime with valid buffers.
    unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&t, &mut tm);
        let n = libc::strftime(
            buf.as_mut_ptr() as *mut c_char,
            buf.len(),
            fmt.as_ptr(),
            &tm,
        );
        buf[..n].to_vec()
    }
}

/// `yyyy-mm-ddThh:mm:ss[.mmm]` with an optional RFC 5424 zone (`+hh:mm`), as libslurm's timestamps.
pub fn timestamp(msec: bool, zone: bool) -> String {
    // SAFETY: gettimeofday/localtime_r/strftime with valid buffers.
    unsafe {
        let mut tv: libc::timeval = std::mem::zeroed();
        libc::gettimeofday(&mut tv, std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&tv.tv_sec, &mut tm);
        let mut buf = [0u8; 64];
        let n = libc::strftime(
            buf.as_mut_ptr() as *mut c_char,
            buf.len(),
            c"%Y-%m-%dT%T".as_ptr(),
            &tm,
        );
        let mut out = String::from_utf8_lossy(&buf[..n]).into_owned();
        if msec {
            out.push_str(&format!(".{:03}", tv.tv_usec / 1000));
        }
        if zone {
            let mut z = [0u8; 12];
            let n = libc::strftime(z.as_mut_ptr() as *mut c_char, z.len(), c"%z".as_ptr(), &tm);
            let z = String::from_utf8_lossy(&z[..n]).into_owned();
            if z.len() == 5 {
                out.push_str(&format!("{}:{}", &z[..3], &z[3..]));
            } else {
                out.push_str(&z);
            }
        }
        out
    }
}

/// Appends the local time in `fmt` (NULL: `%m/%d/%Y %H:%M:%S %Z`).
///
/// # Safety
/// `buf` as in `slurm_xstrcat`; `fmt` NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrftimecat(buf: *mut *mut c_char, fmt: *const c_char) {
    guard("slurm_xstrftimecat", (), || {
        // SAFETY: the caller's contract.
        unsafe {
            let fmt = c_bytes(fmt).unwrap_or(b"%m/%d/%Y %H:%M:%S %Z");
            append_at(buf, None, &local_time(fmt));
        }
    })
}

/// # Safety
/// `buf` as in `slurm_xstrcat`.
#[no_mangle]
pub unsafe extern "C" fn slurm_xiso8601timecat(buf: *mut *mut c_char, msec: bool) {
    guard("slurm_xiso8601timecat", (), || {
        // SAFETY: the caller's contract.
        unsafe { append_at(buf, None, timestamp(msec, false).as_bytes()) };
    })
}

/// # Safety
/// `buf` as in `slurm_xstrcat`.
#[no_mangle]
pub unsafe extern "C" fn slurm_xrfc5424timecat(buf: *mut *mut c_char, msec: bool) {
    guard("slurm_xrfc5424timecat", (), || {
        // SAFETY: the caller's contract.
        unsafe { append_at(buf, None, timestamp(msec, true).as_bytes()) };
    })
}

/// # Safety
/// `str` is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrdup(str: *const c_char) -> *mut c_char {
    guard("slurm_xstrdup", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        unsafe { c_bytes(str) }.map_or(std::ptr::null_mut(), bytes_or_abort)
    })
}

/// # Safety
/// `str` is NULL or points to `n` readable bytes or a shorter string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrndup(str: *const c_char, n: usize) -> *mut c_char {
    guard("slurm_xstrndup", std::ptr::null_mut(), || {
        if str.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: strnlen reads at most n bytes.
        let len = unsafe { libc::strnlen(str, n) };
        // SAFETY: len readable bytes.
        bytes_or_abort(unsafe { std::slice::from_raw_parts(str as *const u8, len) })
    })
}

/// The part of `path` after its last `/` (a pointer into `path`).
///
/// # Safety
/// `path` is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xbasename(path: *mut c_char) -> *mut c_char {
    guard("slurm_xbasename", path, || {
        if path.is_null() {
            return path;
        }
        // SAFETY: the caller's contract.
        let slash = unsafe { libc::strrchr(path, c_int::from(b'/')) };
        if slash.is_null() {
            path
        } else {
            // SAFETY: inside the string.
            unsafe { slash.add(1) }
        }
    })
}

/// A new string: `path` up to its last `/` (`.` when it has none or is NULL).
///
/// # Safety
/// `path` is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xdirname(path: *const c_char) -> *mut c_char {
    guard("slurm_xdirname", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let bytes = unsafe { c_bytes(path) }.unwrap_or(b"");
        match bytes.iter().rposition(|&c| c == b'/') {
            Some(i) => bytes_or_abort(&bytes[..i]),
            None => bytes_or_abort(b"."),
        }
    })
}

/// `s` with `pattern` replaced by `rep` once or everywhere; searching resumes after each replacement.
pub fn substitute(s: &[u8], pattern: &[u8], rep: &[u8], all: bool) -> Option<Vec<u8>> {
    let mut out = s.to_vec();
    let mut from = 0;
    let mut changed = false;
    while let Some(i) = out[from..]
        .windows(pattern.len())
        .position(|w| w == pattern)
    {
        let at = from + i;
        out.splice(at..at + pattern.len(), rep.iter().copied());
        changed = true;
        from = at + rep.len();
        if !all {
            break;
        }
    }
    changed.then_some(out)
}

/// Replaces the first (or, with `all`, every) `pattern` in `*str` by `replacement` (NULL: removes it).
///
/// # Safety
/// `str` points to NULL or a malloc'd string; the others are NULL or strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrsubstitute(
    str: *mut *mut c_char,
    pattern: *const c_char,
    replacement: *const c_char,
    all: bool,
) {
    guard("slurm_xstrsubstitute", (), || {
        // SAFETY: the caller's contract.
        unsafe {
            let Some(cur) = c_bytes(*str) else { return };
            let Some(pat) = c_bytes(pattern).filter(|p| !p.is_empty()) else {
                return;
            };
            let rep = c_bytes(replacement).unwrap_or(b"");
            if let Some(new) = substitute(cur, pat, rep, all) {
                let p = bytes_or_abort(&new);
                libc::free(*str as *mut c_void);
                *str = p;
            }
        }
    })
}

/// This host's name up to its first `.`, or NULL when `gethostname` fails.
#[no_mangle]
pub extern "C" fn slurm_xshort_hostname() -> *mut c_char {
    guard("slurm_xshort_hostname", std::ptr::null_mut(), || {
        let mut buf = [0u8; 1024];
        // SAFETY: a buffer of the size given.
        if unsafe { libc::gethostname(buf.as_mut_ptr() as *mut c_char, buf.len()) } != 0 {
            return std::ptr::null_mut();
        }
        let end = buf
            .iter()
            .position(|&c| c == 0 || c == b'.')
            .unwrap_or(buf.len());
        bytes_or_abort(&buf[..end])
    })
}

/// # Safety
/// `str` is NULL (true here) or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstring_is_whitespace(str: *const c_char) -> bool {
    guard("slurm_xstring_is_whitespace", false, || {
        // SAFETY: the caller's contract.
        unsafe { c_bytes(str) }
            .unwrap_or(b"")
            .iter()
            // SAFETY: isspace takes any unsigned char value.
            .all(|&c| unsafe { libc::isspace(c_int::from(c as i8)) } != 0)
    })
}

/// Lowers `str` in place and returns it.
///
/// # Safety
/// `str` is NULL or a writable string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrtolower(str: *mut c_char) -> *mut c_char {
    guard("slurm_xstrtolower", str, || {
        let mut p = str;
        if p.is_null() {
            return str;
        }
        // SAFETY: walks the caller's string up to its NUL.
        unsafe {
            while *p != 0 {
                *p = libc::tolower(c_int::from(*p)) as c_char;
                p = p.add(1);
            }
        }
        str
    })
}

/// # Safety
/// `s` is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrchr(s: *const c_char, c: c_int) -> *mut c_char {
    guard("slurm_xstrchr", std::ptr::null_mut(), || {
        if s.is_null() {
            std::ptr::null_mut()
        } else {
            // SAFETY: the caller's contract.
            unsafe { libc::strchr(s, c) }
        }
    })
}

/// # Safety
/// `s` is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrrchr(s: *const c_char, c: c_int) -> *mut c_char {
    guard("slurm_xstrrchr", std::ptr::null_mut(), || {
        if s.is_null() {
            std::ptr::null_mut()
        } else {
            // SAFETY: the caller's contract.
            unsafe { libc::strrchr(s, c) }
        }
    })
}

/// NULL sorts before any string; two NULLs are equal; otherwise `cmp`.
fn null_safe(
    s1: *const c_char,
    s2: *const c_char,
    cmp: impl FnOnce(*const c_char, *const c_char) -> c_int,
) -> c_int {
    match (s1.is_null(), s2.is_null()) {
        (true, true) => 0,
        (true, false) => -1,
        (false, true) => 1,
        (false, false) => cmp(s1, s2),
    }
}

/// # Safety
/// Each is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrcmp(s1: *const c_char, s2: *const c_char) -> c_int {
    guard("slurm_xstrcmp", 0, || {
        null_safe(s1, s2, |a, b| {
            // SAFETY: both non-NULL strings (the caller's contract).
            unsafe { libc::strcmp(a, b) }
        })
    })
}

/// # Safety
/// Each is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrncmp(s1: *const c_char, s2: *const c_char, n: usize) -> c_int {
    guard("slurm_xstrncmp", 0, || {
        null_safe(s1, s2, |a, b| {
            // SAFETY: both non-NULL strings (the caller's contract).
            unsafe { libc::strncmp(a, b, n) }
        })
    })
}

/// # Safety
/// Each is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrcasecmp(s1: *const c_char, s2: *const c_char) -> c_int {
    guard("slurm_xstrcasecmp", 0, || {
        null_safe(s1, s2, |a, b| {
            // SAFETY: both non-NULL strings (the caller's contract).
            unsafe { libc::strcasecmp(a, b) }
        })
    })
}

/// # Safety
/// Each is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrncasecmp(
    s1: *const c_char,
    s2: *const c_char,
    n: usize,
) -> c_int {
    guard("slurm_xstrncasecmp", 0, || {
        null_safe(s1, s2, |a, b| {
            // SAFETY: both non-NULL strings (the caller's contract).
            unsafe { libc::strncasecmp(a, b, n) }
        })
    })
}

/// # Safety
/// Each is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrstr(
    haystack: *const c_char,
    needle: *const c_char,
) -> *mut c_char {
    guard("slurm_xstrstr", std::ptr::null_mut(), || {
        if haystack.is_null() || needle.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract.
        unsafe { libc::strstr(haystack, needle) }
    })
}

/// Case-insensitive search as libslurm's: an empty needle matches at the start of a non-empty haystack only.
///
/// # Safety
/// Each is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrcasestr(
    haystack: *const c_char,
    needle: *const c_char,
) -> *mut c_char {
    guard("slurm_xstrcasestr", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let (Some(hay), Some(need)) = (unsafe { c_bytes(haystack) }, unsafe { c_bytes(needle) })
        else {
            return std::ptr::null_mut();
        };
        for i in 0..hay.len() {
            let rest = &hay[i..];
            if rest.len() >= need.len() && rest[..need.len()].eq_ignore_ascii_case(need) {
                // SAFETY: i is inside the haystack.
                return unsafe { haystack.add(i) } as *mut c_char;
            }
        }
        std::ptr::null_mut()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitution_resumes_after_the_replacement() {
        assert_eq!(
            substitute(b"aaa", b"a", b"aa", true),
            Some(b"aaaaaa".to_vec())
        );
        assert_eq!(
            substitute(b"abab", b"ab", b"x", false),
            Some(b"xab".to_vec())
        );
        // Removing resumes where the pattern was, so a pattern formed across the join is not seen.
        assert_eq!(substitute(b"aabb", b"ab", b"", true), Some(b"ab".to_vec()));
        assert_eq!(substitute(b"abc", b"z", b"y", true), None);
    }
}
