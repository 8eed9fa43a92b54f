//! `slurm_hostlist_*`: Slurm's opaque `hostlist_t` as a boxed, locked spur-core `Hostlist` (Slurm's hostlists
//! carry a mutex too, so one may be shared between threads).

use std::ffi::{c_char, c_int};
use std::sync::Mutex;

use slurm_headers::hostlist_t;
use spur_core::grammar::hostlist::Hostlist;

use crate::ffi::{self, c_string, guard, opt_str};

type Handle = Mutex<Hostlist>;

/// # Safety
/// `hl` is NULL or a live handle from `slurm_hostlist_create`.
unsafe fn with<R>(hl: hostlist_t, missing: R, f: impl FnOnce(&mut Hostlist) -> R) -> R {
    if hl.is_null() {
        ffi::set_errno(libc::EINVAL);
        return missing;
    }
    // SAFETY: the caller's contract: `hl` came from Box::into_raw of a Handle.
    let handle = unsafe { &*(hl as *const Handle) };
    match handle.lock() {
        Ok(mut list) => f(&mut list),
        Err(_) => missing,
    }
}

/// # Safety
/// `hostlist` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_create(hostlist: *const c_char) -> hostlist_t {
    guard("slurm_hostlist_create", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let list = match unsafe { opt_str(hostlist) } {
            None => Hostlist::new(),
            Some(text) if text.trim().is_empty() => Hostlist::new(),
            Some(text) => match Hostlist::parse(&text) {
                Ok(list) => list,
                Err(_) => {
                    ffi::set_errno(libc::EINVAL);
                    return std::ptr::null_mut();
                }
            },
        };
        Box::into_raw(Box::new(Mutex::new(list))) as hostlist_t
    })
}

/// # Safety
/// `hl` is NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_destroy(hl: hostlist_t) {
    guard("slurm_hostlist_destroy", (), || {
        if !hl.is_null() {
            // SAFETY: the caller's contract.
            drop(unsafe { Box::from_raw(hl as *mut Handle) });
        }
    })
}

/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_count(hl: hostlist_t) -> c_int {
    // SAFETY: the caller's contract.
    guard("slurm_hostlist_count", -1, || unsafe {
        with(hl, -1, |l| c_int::try_from(l.len()).unwrap_or(c_int::MAX))
    })
}

/// Index of `hostname` in the list, or -1.
///
/// # Safety
/// `hl` is NULL or a live handle; `hostname` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_find(hl: hostlist_t, hostname: *const c_char) -> c_int {
    guard("slurm_hostlist_find", -1, || {
        // SAFETY: the caller's contract.
        let Some(name) = (unsafe { opt_str(hostname) }) else {
            return -1;
        };
        // SAFETY: the caller's contract.
        unsafe {
            with(hl, -1, |l| {
                l.find(&name)
                    .map_or(-1, |i| c_int::try_from(i).unwrap_or(-1))
            })
        }
    })
}

/// Appends every host of the expression `hosts`; returns how many were added (0 on a bad expression).
///
/// # Safety
/// `hl` is NULL or a live handle; `hosts` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_push(hl: hostlist_t, hosts: *const c_char) -> c_int {
    guard("slurm_hostlist_push", 0, || {
        // SAFETY: the caller's contract.
        let Some(text) = (unsafe { opt_str(hosts) }) else {
            return 0;
        };
        let Ok(added) = Hostlist::parse(&text) else {
            ffi::set_errno(libc::EINVAL);
            return 0;
        };
        // SAFETY: the caller's contract.
        unsafe {
            with(hl, 0, |l| {
                let mut n = 0;
                for name in added.iter() {
                    l.push(&name);
                    n += 1;
                }
                n
            })
        }
    })
}

/// Appends one host name as given (no range expansion); returns 1.
///
/// # Safety
/// `hl` is NULL or a live handle; `host` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_push_host(hl: hostlist_t, host: *const c_char) -> c_int {
    guard("slurm_hostlist_push_host", 0, || {
        // SAFETY: the caller's contract.
        let Some(name) = (unsafe { opt_str(host) }) else {
            return 0;
        };
        // SAFETY: the caller's contract.
        unsafe {
            with(hl, 0, |l| {
                l.push(&name);
                1
            })
        }
    })
}

/// Removes and returns the first host (malloc'd; the caller frees it), or NULL when empty.
///
/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_shift(hl: hostlist_t) -> *mut c_char {
    guard("slurm_hostlist_shift", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        unsafe {
            with(hl, std::ptr::null_mut(), |l| {
                l.remove_nth(0)
                    .map_or(std::ptr::null_mut(), |n| c_string(&n))
            })
        }
    })
}

/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_uniq(hl: hostlist_t) {
    // SAFETY: the caller's contract.
    guard("slurm_hostlist_uniq", (), || unsafe {
        with(hl, (), |l| l.uniq())
    })
}

/// Writes the ranged form into `buf` (at most `n` bytes with the NUL); returns its length, or -1 when it did not
/// fit (the buffer then holds as much as fit, NUL-terminated).
///
/// # Safety
/// `hl` is NULL or a live handle; `buf` has room for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_ranged_string(
    hl: hostlist_t,
    n: usize,
    buf: *mut c_char,
) -> isize {
    guard("slurm_hostlist_ranged_string", -1, || {
        // SAFETY: the caller's contract.
        let Some(text) = (unsafe { with(hl, None, |l| Some(l.to_ranged_string())) }) else {
            return -1;
        };
        if buf.is_null() || n == 0 {
            return -1;
        }
        let bytes = text.as_bytes();
        let fit = bytes.len().min(n - 1);
        // SAFETY: `buf` has `n` bytes; we write `fit` < n bytes and a NUL.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf as *mut u8, fit);
            *buf.add(fit) = 0;
        }
        if fit < bytes.len() {
            -1
        } else {
            isize::try_from(fit).unwrap_or(-1)
        }
    })
}

/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_ranged_string_malloc(hl: hostlist_t) -> *mut c_char {
    guard(
        "slurm_hostlist_ranged_string_malloc",
        std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            unsafe {
                with(hl, std::ptr::null_mut(), |l| {
                    c_string(&l.to_ranged_string())
                })
            }
        },
    )
}

/// Same as the malloc variant: this library's "xmalloc" is plain malloc (`slurm_xfree` frees it).
///
/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_ranged_string_xmalloc(hl: hostlist_t) -> *mut c_char {
    guard(
        "slurm_hostlist_ranged_string_xmalloc",
        std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            unsafe {
                with(hl, std::ptr::null_mut(), |l| {
                    c_string(&l.to_ranged_string())
                })
            }
        },
    )
}

/// Reads a hostfile (one host expression per line, `#` comments) into a comma-separated list of `n` hosts,
/// as `slurm_read_hostfile` does for arbitrary distribution; malloc'd.
///
/// # Safety
/// `filename` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_read_hostfile(filename: *const c_char, n: c_int) -> *mut c_char {
    guard("slurm_read_hostfile", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let Some(path) = (unsafe { opt_str(filename) }) else {
            return std::ptr::null_mut();
        };
        let Ok(text) = std::fs::read_to_string(&*path) else {
            return std::ptr::null_mut();
        };
        let mut hosts = Vec::new();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            match Hostlist::parse(line) {
                Ok(list) => hosts.extend(list.iter()),
                Err(_) => return std::ptr::null_mut(),
            }
        }
        if n > 0 {
            let want = n as usize;
            if hosts.len() < want {
                return std::ptr::null_mut();
            }
            hosts.truncate(want);
        }
        c_string(&hosts.join(","))
    })
}

/// Writes `text` into `buf` as the `slurm_hostlist_*_string` writers do: its length, or -1 when it did not fit
/// (the buffer then holds as much as fit, NUL-terminated).
///
/// # Safety
/// `buf` is NULL or has room for `n` bytes.
unsafe fn write_bounded(text: &str, n: usize, buf: *mut c_char) -> isize {
    if buf.is_null() || n == 0 {
        return -1;
    }
    let bytes = text.as_bytes();
    let fit = bytes.len().min(n - 1);
    // SAFETY: `buf` has `n` bytes; we write `fit` < n bytes and a NUL.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf as *mut u8, fit);
        *buf.add(fit) = 0;
    }
    if fit < bytes.len() {
        -1
    } else {
        isize::try_from(fit).unwrap_or(-1)
    }
}

/// Every host spelled out, comma-separated (`n1,n2,n3`), as libslurm's "deranged" form.
fn deranged(l: &Hostlist) -> String {
    l.expand().join(",")
}

/// # Safety
/// `hl` is NULL or a live handle; `buf` has room for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_deranged_string(
    hl: hostlist_t,
    n: usize,
    buf: *mut c_char,
) -> isize {
    guard("slurm_hostlist_deranged_string", -1, || {
        // SAFETY: the caller's contract.
        let Some(text) = (unsafe { with(hl, None, |l| Some(deranged(l))) }) else {
            return -1;
        };
        // SAFETY: the caller's contract.
        unsafe { write_bounded(&text, n, buf) }
    })
}

/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_deranged_string_malloc(hl: hostlist_t) -> *mut c_char {
    guard(
        "slurm_hostlist_deranged_string_malloc",
        std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            unsafe { with(hl, std::ptr::null_mut(), |l| c_string(&deranged(l))) }
        },
    )
}

/// Same as the malloc variant: this library's "xmalloc" is plain malloc (`slurm_xfree` frees it).
///
/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_deranged_string_xmalloc(hl: hostlist_t) -> *mut c_char {
    guard(
        "slurm_hostlist_deranged_string_xmalloc",
        std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            unsafe { with(hl, std::ptr::null_mut(), |l| c_string(&deranged(l))) }
        },
    )
}

/// Spur's hostnames have one dimension; `dims` is accepted and ignored, as libslurm does for 1-D clusters.
///
/// # Safety
/// `hl` is NULL or a live handle; `buf` has room for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_deranged_string_dims(
    hl: hostlist_t,
    n: usize,
    buf: *mut c_char,
    _dims: c_int,
) -> isize {
    // SAFETY: the caller's contract.
    guard("slurm_hostlist_deranged_string_dims", -1, || unsafe {
        slurm_hostlist_deranged_string(hl, n, buf)
    })
}

/// # Safety
/// `hl` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_deranged_string_xmalloc_dims(
    hl: hostlist_t,
    _dims: c_int,
) -> *mut c_char {
    // SAFETY: the caller's contract.
    guard(
        "slurm_hostlist_deranged_string_xmalloc_dims",
        std::ptr::null_mut(),
        || unsafe { slurm_hostlist_deranged_string_xmalloc(hl) },
    )
}
