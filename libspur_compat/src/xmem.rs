//! `slurm_xcalloc`, `slurm_xrecalloc`, `slurm_xsize`, `slurm_xfree_array`: libslurm's allocator entry points.
//!
//! Memory convention: every pointer this library hands out, and every block these functions allocate, comes
//! straight from libc's `malloc`/`calloc`/`realloc`, so `free()`, `slurm_xfree(&p)` and `slurm_xfree_ptr(p)` all
//! release it. libslurm's `xmalloc` instead hides two words (a magic number and the requested size) before the
//! pointer; no consumer can see that header through the API (they only pass pointers back to `slurm_xfree`), so
//! the shim does without it and keeps one allocator for everything. The one visible difference is
//! `slurm_xsize`, which reports the usable size of the block (`malloc_usable_size`, at least what was asked for)
//! instead of exactly the requested size. So that `slurm_xrecalloc`'s "new bytes are zero" holds without the
//! recorded size, blocks from `slurm_xcalloc` keep their slack (the bytes past the request) zeroed.
//!
//! Out of memory: libslurm logs `file:line: func: malloc failed` and aborts unless the caller asked to "try";
//! these do the same.

use std::ffi::{c_char, c_int, c_void, CStr};

use crate::ffi::guard;

/// libslurm's out-of-memory end: the line its `log_oom` prints, then `abort()`.
pub fn oom_abort(func: &str) -> ! {
    crate::log::log_oom_line(&format!("{func}: malloc failed"));
    std::process::abort()
}

/// `count * size` zeroed bytes from `calloc`, aborting when memory is exhausted.
pub fn alloc_or_abort(count: usize, size: usize, func: &str) -> *mut c_void {
    // SAFETY: calloc checks count * size for overflow itself.
    let p = unsafe { libc::calloc(count.max(1), size.max(1)) };
    if p.is_null() {
        oom_abort(func);
    }
    p
}

/// A malloc'd NUL-terminated copy of `s` (cut at an interior NUL), aborting when memory is exhausted.
pub fn string_or_abort(s: &str) -> *mut c_char {
    bytes_or_abort(s.as_bytes())
}

/// A malloc'd NUL-terminated copy of `b` (cut at an interior NUL).
pub fn bytes_or_abort(b: &[u8]) -> *mut c_char {
    let len = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    let p = alloc_or_abort(len + 1, 1, "xstrdup") as *mut u8;
    // SAFETY: p holds len + 1 zeroed bytes.
    unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, len) };
    p as *mut c_char
}

/// A malloc'd copy of `v`.
pub fn copy_or_abort<T: Copy>(v: &[T]) -> *mut T {
    let p = alloc_or_abort(v.len(), std::mem::size_of::<T>(), "xmalloc") as *mut T;
    // SAFETY: p holds v.len() elements.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    p
}

/// The usable size of a malloc'd block.
///
/// # Safety
/// `p` is a live block from libc's allocator.
unsafe fn usable(p: *mut c_void) -> usize {
    // SAFETY: the caller's contract.
    unsafe { libc::malloc_usable_size(p) }
}

/// Zeroes `[from, to)` of block `p`.
///
/// # Safety
/// `to` does not exceed the block's usable size.
unsafe fn zero(p: *mut c_void, from: usize, to: usize) {
    if to > from {
        // SAFETY: the caller's contract.
        unsafe { std::ptr::write_bytes((p as *mut u8).add(from), 0, to - from) };
    }
}

/// libslurm's size check: refuses `count * size` that would leave no room for its header (a quarter of the
/// address space), and zero sizes.
fn request(count: usize, size: usize) -> Option<Option<usize>> {
    if size == 0 || count == 0 {
        return None;
    }
    if count != 1 && count > usize::MAX / size / 4 {
        return Some(None);
    }
    Some(count.checked_mul(size))
}

/// The failure of an allocation: NULL when the caller asked to try, else libslurm's log line and `abort()`.
///
/// # Safety
/// `file` and `func` are NULL or NUL-terminated strings.
unsafe fn failed(try_: bool, file: *const c_char, line: c_int, func: *const c_char) -> *mut c_void {
    if try_ {
        return std::ptr::null_mut();
    }
    // SAFETY: the caller's contract.
    let text = |p: *const c_char| unsafe { crate::ffi::opt_str(p) }.unwrap_or_default();
    crate::log::log_oom_line(&format!(
        "{}:{line}: {}: malloc failed",
        text(file),
        text(func)
    ));
    std::process::abort()
}

/// `count * size` bytes (zeroed when `clear`); NULL for a zero size, or on failure when `try_`.
///
/// # Safety
/// `file` and `func` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_xcalloc(
    count: usize,
    size: usize,
    clear: bool,
    try_: bool,
    file: *const c_char,
    line: c_int,
    func: *const c_char,
) -> *mut c_void {
    guard("slurm_xcalloc", std::ptr::null_mut(), || {
        let Some(total) = request(count, size) else {
            return std::ptr::null_mut();
        };
        // SAFETY: malloc of the checked total; the strings are the caller's.
        unsafe {
            let p = match total {
                Some(n) => libc::malloc(n),
                None => std::ptr::null_mut(),
            };
            if p.is_null() {
                return failed(try_, file, line, func);
            }
            let end = usable(p);
            zero(p, if clear { 0 } else { total.unwrap_or(0) }, end);
            p
        }
    })
}

/// Resizes `*item` to `count * size` bytes (a new block when `*item` is NULL); with `clear`, bytes past the old
/// size are zero. Returns the block, also stored in `*item`.
///
/// # Safety
/// `item` points to NULL or to a block from this library's (libc's) allocator; `file`/`func` as in xcalloc.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn slurm_xrecalloc(
    item: *mut *mut c_void,
    count: usize,
    size: usize,
    clear: bool,
    try_: bool,
    file: *const c_char,
    line: c_int,
    func: *const c_char,
) -> *mut c_void {
    guard("slurm_xrecalloc", std::ptr::null_mut(), || {
        let Some(total) = request(count, size) else {
            return std::ptr::null_mut();
        };
        // SAFETY: the caller's contract for item; realloc/malloc of the checked total.
        unsafe {
            let Some(n) = total else {
                return failed(try_, file, line, func);
            };
            let old = *item;
            let old_end = if old.is_null() { 0 } else { usable(old) };
            let p = libc::realloc(old, n);
            if p.is_null() {
                return failed(try_, file, line, func);
            }
            let end = usable(p);
            // The old block's slack was zero (kept so by xcalloc and here), so with `clear` zeroing from its
            // usable end zeroes everything past the old size; either way the new slack is zeroed.
            let from = if clear { old_end.min(n) } else { n };
            zero(p, from.min(end), end);
            *item = p;
            p
        }
    })
}

/// The usable size of `item`'s block (at least the size asked for; libslurm gives exactly that), 0 for NULL.
///
/// # Safety
/// `item` is NULL or a live block from libc's allocator.
#[no_mangle]
pub unsafe extern "C" fn slurm_xsize(item: *mut c_void) -> usize {
    guard("slurm_xsize", 0, || {
        if item.is_null() {
            0
        } else {
            // SAFETY: the caller's contract.
            unsafe { usable(item) }
        }
    })
}

/// Frees each element of a NULL-terminated array and the array, leaving `*array` NULL. As libslurm's, it does
/// nothing at all (not even free the array) when the array or its first element is NULL.
///
/// # Safety
/// `array` points to NULL or to a malloc'd NULL-terminated array of malloc'd blocks.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree_array(array: *mut *mut *mut c_void) {
    guard("slurm_xfree_array", (), || {
        // SAFETY: the caller's contract.
        unsafe {
            if array.is_null() || (*array).is_null() || (**array).is_null() {
                return;
            }
            let mut i = 0;
            while !(*(*array).add(i)).is_null() {
                libc::free(*(*array).add(i));
                i += 1;
            }
            libc::free(*array as *mut c_void);
            *array = std::ptr::null_mut();
        }
    })
}

/// `CStr` bytes of a nullable pointer.
///
/// # Safety
/// `p` is NULL or NUL-terminated.
pub unsafe fn c_bytes<'a>(p: *const c_char) -> Option<&'a [u8]> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        Some(unsafe { CStr::from_ptr(p) }.to_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_libslurm() {
        assert_eq!(request(0, 4), None);
        assert_eq!(request(4, 0), None);
        assert_eq!(request(3, 4), Some(Some(12)));
        assert_eq!(request(usize::MAX / 2, 4), Some(None));
    }

    #[test]
    fn recalloc_zeroes_growth() {
        // SAFETY: test allocations through the exports.
        unsafe {
            let mut p = slurm_xcalloc(1, 5, false, false, std::ptr::null(), 0, std::ptr::null());
            std::ptr::write_bytes(p as *mut u8, 0xaa, 5);
            slurm_xrecalloc(
                &mut p,
                1,
                4000,
                true,
                false,
                std::ptr::null(),
                0,
                std::ptr::null(),
            );
            let s = std::slice::from_raw_parts(p as *const u8, 4000);
            assert!(s[..5].iter().all(|&b| b == 0xaa));
            assert!(s[5..].iter().all(|&b| b == 0));
            assert!(slurm_xsize(p) >= 4000);
            crate::config::slurm_xfree(&mut p);
            assert!(p.is_null());
        }
    }
}
