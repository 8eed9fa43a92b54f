//! libslurm's environment arrays (`slurm_env_array_*`, `slurm_getenvp`, `slurm_unsetenvp`): NULL-terminated
//! `char **` of `NAME=value` strings, as pyslurm builds a job's environment with them.
//!
//! The array and its strings are plain `malloc` memory here (libslurm's are `xmalloc`'d; this library's
//! `slurm_xfree` and `slurm_env_array_free` release either). Lookups match libslurm's byte comparison: an entry
//! belongs to `NAME` when it starts with `NAME=`. The variadic `_fmt` forms are not exported from Rust.

use std::ffi::{c_char, c_int, CStr};

use crate::ffi::{c_free, c_string, guard};

/// libslurm's `ENV_BUFSIZE`: a merged value must fit it (with its NUL), else the entry is skipped.
const ENV_BUFSIZE: usize = 256 * 1024;
/// The name buffer `env_array_merge` splits entries into: a name must fit it with its NUL.
const NAME_BUFSIZE: usize = 256;

/// The number of entries before the terminating NULL.
///
/// # Safety
/// `env` is a live NULL-terminated array.
unsafe fn count(env: *mut *mut c_char) -> usize {
    let mut n = 0;
    // SAFETY: the caller's contract; we stop at the terminator.
    while !unsafe { *env.add(n) }.is_null() {
        n += 1;
    }
    n
}

/// The index of `name`'s entry, or the terminator's index when it is not set.
///
/// # Safety
/// `env` is a live NULL-terminated array of C strings.
unsafe fn find(env: *mut *mut c_char, name: &[u8]) -> usize {
    let mut i = 0;
    loop {
        // SAFETY: the caller's contract.
        let entry = unsafe { *env.add(i) };
        if entry.is_null() {
            return i;
        }
        // SAFETY: a C string of the array.
        let bytes = unsafe { CStr::from_ptr(entry) }.to_bytes();
        if bytes.len() > name.len() && bytes.starts_with(name) && bytes[name.len()] == b'=' {
            return i;
        }
        i += 1;
    }
}

/// A new array holding only its terminator; NULL if memory ran out.
pub fn create() -> *mut *mut c_char {
    crate::ffi::c_calloc::<*mut c_char>(1)
}

/// Sets `name=value` in `*array` (creating the array when `*array` is NULL): appends it when unset, replaces it
/// when `overwrite`; returns 1 when set, 0 when left alone (or out of memory), as libslurm's `_env_array_update`.
///
/// # Safety
/// `array` is NULL or points to NULL or to a live array from this module.
unsafe fn update(
    array: *mut *mut *mut c_char,
    name: &[u8],
    value: &[u8],
    overwrite: bool,
) -> c_int {
    if array.is_null() {
        return 0;
    }
    // SAFETY: the caller's contract.
    unsafe {
        if (*array).is_null() {
            *array = create();
            if (*array).is_null() {
                return 0;
            }
        }
        let env = *array;
        let at = find(env, name);
        let mut text = Vec::with_capacity(name.len() + value.len() + 1);
        text.extend_from_slice(name);
        text.push(b'=');
        text.extend_from_slice(value);
        let entry = c_string(&String::from_utf8_lossy(&text));
        if entry.is_null() {
            return 0;
        }
        if !(*env.add(at)).is_null() {
            if !overwrite {
                c_free(entry);
                return 0;
            }
            c_free(*env.add(at));
            *env.add(at) = entry;
            return 1;
        }
        let Some(bytes) = at
            .checked_add(2)
            .and_then(|n| n.checked_mul(std::mem::size_of::<*mut c_char>()))
        else {
            c_free(entry);
            return 0;
        };
        let grown = libc::realloc(env as *mut libc::c_void, bytes) as *mut *mut c_char;
        if grown.is_null() {
            c_free(entry);
            return 0;
        }
        *grown.add(at) = entry;
        *grown.add(at + 1) = std::ptr::null_mut();
        *array = grown;
        1
    }
}

/// Bytes of a C string (NULL is an empty name, which no entry matches).
///
/// # Safety
/// `p` is NULL or a C string.
unsafe fn bytes<'a>(p: *const c_char) -> &'a [u8] {
    if p.is_null() {
        b""
    } else {
        // SAFETY: the caller's contract.
        unsafe { CStr::from_ptr(p) }.to_bytes()
    }
}

#[no_mangle]
pub extern "C" fn slurm_env_array_create() -> *mut *mut c_char {
    guard("slurm_env_array_create", std::ptr::null_mut(), create)
}

/// # Safety
/// `env_array` is NULL or a live array from this module, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_free(env_array: *mut *mut c_char) {
    guard("slurm_env_array_free", (), || {
        if env_array.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            for i in 0..count(env_array) {
                c_free(*env_array.add(i));
            }
            c_free(env_array);
        }
    })
}

/// # Safety
/// `array_ptr` is NULL or points to NULL or a live array; `name` and `value` are C strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_append(
    array_ptr: *mut *mut *mut c_char,
    name: *const c_char,
    value: *const c_char,
) -> c_int {
    // SAFETY: the caller's contract.
    guard("slurm_env_array_append", 0, || unsafe {
        update(array_ptr, bytes(name), bytes(value), false)
    })
}

/// # Safety
/// As [`slurm_env_array_append`].
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_overwrite(
    array_ptr: *mut *mut *mut c_char,
    name: *const c_char,
    value: *const c_char,
) -> c_int {
    // SAFETY: the caller's contract.
    guard("slurm_env_array_overwrite", 0, || unsafe {
        update(array_ptr, bytes(name), bytes(value), true)
    })
}

/// Copies every `NAME=value` entry of `src_array` into `*dest_array` (created when NULL), replacing entries of
/// the same name. Entries without `=`, with a name of 256 bytes or more, or a value past `ENV_BUFSIZE` are
/// skipped, as libslurm's fixed buffers skip them.
///
/// # Safety
/// `dest_array` is NULL or points to NULL or a live array; `src_array` is NULL or a NULL-terminated array of C
/// strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_merge(
    dest_array: *mut *mut *mut c_char,
    src_array: *mut *const c_char,
) {
    guard("slurm_env_array_merge", (), || {
        if src_array.is_null() {
            return;
        }
        let mut i = 0;
        loop {
            // SAFETY: the caller's contract; we stop at the terminator.
            let entry = unsafe { *src_array.add(i) };
            if entry.is_null() {
                break;
            }
            i += 1;
            // SAFETY: a C string of the array.
            let text = unsafe { CStr::from_ptr(entry) }.to_bytes();
            let Some(eq) = text.iter().position(|&b| b == b'=') else {
                continue;
            };
            let (name, value) = (&text[..eq], &text[eq + 1..]);
            if name.len() + 1 > NAME_BUFSIZE || value.len() + 1 > ENV_BUFSIZE {
                continue;
            }
            // SAFETY: the caller's contract.
            unsafe { update(dest_array, name, value, true) };
        }
    })
}

/// A new array with the entries of `array` (NULL when `array` is NULL), merged as [`slurm_env_array_merge`].
///
/// # Safety
/// `array` is NULL or a NULL-terminated array of C strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_copy(array: *mut *const c_char) -> *mut *mut c_char {
    guard("slurm_env_array_copy", std::ptr::null_mut(), || {
        let mut out: *mut *mut c_char = std::ptr::null_mut();
        // SAFETY: the caller's contract.
        unsafe { slurm_env_array_merge(&mut out, array) };
        out
    })
}

/// A pointer to the value of `name` inside its entry of `env`, or NULL.
///
/// # Safety
/// `env` is NULL or a NULL-terminated array of C strings; `name` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_getenvp(env: *mut *mut c_char, name: *const c_char) -> *mut c_char {
    guard("slurm_getenvp", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        unsafe {
            if name.is_null() || env.is_null() || (*env).is_null() {
                return std::ptr::null_mut();
            }
            let name = bytes(name);
            let entry = *env.add(find(env, name));
            if entry.is_null() {
                std::ptr::null_mut()
            } else {
                entry.add(name.len() + 1)
            }
        }
    })
}

/// Removes every entry of `name` from `env`, freeing it (the array keeps its allocation, as in libslurm).
///
/// # Safety
/// `env` is NULL or a live array from this module; `name` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_unsetenvp(env: *mut *mut c_char, name: *const c_char) {
    guard("slurm_unsetenvp", (), || {
        if env.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let name = bytes(name);
            let mut from = 0;
            loop {
                let at = from + find(env.add(from), name);
                if (*env.add(at)).is_null() {
                    break;
                }
                c_free(*env.add(at));
                let mut j = at;
                loop {
                    *env.add(j) = *env.add(j + 1);
                    if (*env.add(j)).is_null() {
                        break;
                    }
                    j += 1;
                }
                // libslurm steps past the slot it just filled before looking again.
                from = at + 1;
                if (*env.add(at)).is_null() {
                    break;
                }
            }
        }
    })
}

/// Unsets every variable of this process's environment whose entry libslurm can split (a `=`, a name under 256
/// bytes, a value within `ENV_BUFSIZE`); the others stay.
#[no_mangle]
pub extern "C" fn slurm_env_unset_environment() {
    extern "C" {
        static mut environ: *mut *mut c_char;
    }
    guard("slurm_env_unset_environment", (), || {
        let mut i = 0;
        loop {
            // SAFETY: the process environment, re-read after each unsetenv (which shifts the entries down).
            let entry = unsafe {
                let env = std::ptr::addr_of!(environ).read();
                if env.is_null() {
                    return;
                }
                *env.add(i)
            };
            if entry.is_null() {
                return;
            }
            // SAFETY: an entry of the environment.
            let text = unsafe { CStr::from_ptr(entry) }.to_bytes().to_vec();
            let removed = match text.iter().position(|&b| b == b'=') {
                Some(eq) if eq < NAME_BUFSIZE && text.len() - eq <= ENV_BUFSIZE => {
                    match std::ffi::CString::new(&text[..eq]) {
                        // SAFETY: a NUL-terminated name.
                        Ok(name) => (unsafe { libc::unsetenv(name.as_ptr()) }) != -1,
                        Err(_) => false,
                    }
                }
                _ => false,
            };
            if !removed {
                i += 1;
            }
        }
    })
}
