//! The FFI boundary's rules in one place: no panic crosses into C (every export runs inside [`guard`]), errors are
//! reported through C `errno` as libslurm does, and memory handed to C comes from libc's allocator so the matching
//! `slurm_free_*` (or a caller's `free()`) releases it.

use std::collections::HashSet;
use std::ffi::{c_char, c_void, CStr};
use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

pub const SLURM_SUCCESS: i32 = 0;
pub const SLURM_ERROR: i32 = -1;
/// `ESLURM_NOT_SUPPORTED`: "Requested operation not supported on this system".
pub const ESLURM_NOT_SUPPORTED: i32 = 2036;
/// `SLURM_UNEXPECTED_MSG_ERROR`: an answer the shim could not read.
pub const SLURM_UNEXPECTED_MSG_ERROR: i32 = 1000;
/// No credential could be made (munged unreachable): libslurm's SLURM_PROTOCOL_AUTHENTICATION_ERROR.
pub const SLURM_PROTOCOL_AUTHENTICATION_ERROR: i32 = 1007;
/// `SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR`: the controller did not answer.
pub const SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR: i32 = 1800;
/// `ESLURM_INTERNAL`-like failure of the shim itself (a caught panic): Slurm's plain `SLURM_ERROR`.
pub const SHIM_INTERNAL: i32 = SLURM_ERROR;

thread_local! {
    /// Whether the export running on this thread set errno itself (see [`guard`]).
    static ERRNO_SET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Sets C `errno` (thread-local), which is what `slurm_get_errno()` reads in libslurm too.
pub fn set_errno(code: i32) {
    ERRNO_SET.with(|set| set.set(true));
    // SAFETY: __errno_location returns this thread's errno slot, valid for the thread's life.
    unsafe { *libc::__errno_location() = code };
}

pub fn errno() -> i32 {
    // SAFETY: as above.
    unsafe { *libc::__errno_location() }
}

/// Runs an export's body; a panic becomes `fallback` with errno set, never an unwind into C.
///
/// As libslurm's, an export changes `errno` only when it reports an error: what the system calls under it left
/// there (an `EAGAIN` from a socket read that was simply retried) is put back as the caller had it.
pub fn guard<R>(name: &str, fallback: R, body: impl FnOnce() -> R) -> R {
    let caller_errno = errno();
    let outer_set = ERRNO_SET.with(|set| set.replace(false));
    let result = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(_) => {
            log(&format!("internal error in {name}"));
            set_errno(SHIM_INTERNAL);
            fallback
        }
    };
    let set_here = ERRNO_SET.with(|set| set.replace(outer_set));
    if set_here {
        ERRNO_SET.with(|set| set.set(true));
    } else {
        // SAFETY: as in set_errno; this restores without marking it set.
        unsafe { *libc::__errno_location() = caller_errno };
    }
    result
}

/// One line on stderr; never panics (stderr may be closed in a daemon host).
pub fn log(message: &str) {
    let _ = writeln!(std::io::stderr(), "libspur_compat: {message}");
}

/// Logs `message` the first time `key` is seen in this process.
pub fn log_once(key: &str, message: &str) {
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let first = match SEEN.lock() {
        Ok(mut seen) => seen
            .get_or_insert_with(HashSet::new)
            .insert(key.to_string()),
        Err(_) => false,
    };
    if first {
        log(message);
    }
}

/// What a not-yet-implemented export returns: Slurm's error value for its return type.
pub trait StubReturn {
    fn failure() -> Self;
}

macro_rules! stub_return {
    ($value:expr => $($ty:ty),*) => { $(impl StubReturn for $ty { fn failure() -> Self { $value } })* };
}
stub_return!(-1 => i8, i16, i32, i64, isize);
stub_return!(0 => u8, u16, u32, u64, usize);
impl StubReturn for () {
    fn failure() -> Self {}
}
impl StubReturn for bool {
    fn failure() -> Self {
        false
    }
}
impl StubReturn for f64 {
    fn failure() -> Self {
        0.0
    }
}
impl<T> StubReturn for *mut T {
    fn failure() -> Self {
        std::ptr::null_mut()
    }
}
impl<T> StubReturn for *const T {
    fn failure() -> Self {
        std::ptr::null()
    }
}

/// The body of every generated stub.
pub fn unsupported<R: StubReturn>(name: &str) -> R {
    guard(name, R::failure(), || {
        log_once(
            name,
            &format!("{name}() is not supported by Spur (returns an error)"),
        );
        set_errno(ESLURM_NOT_SUPPORTED);
        R::failure()
    })
}

/// A C string from a nullable pointer; invalid UTF-8 is replaced rather than rejected.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that outlives the returned value.
pub unsafe fn opt_str<'a>(p: *const c_char) -> Option<std::borrow::Cow<'a, str>> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy())
    }
}

/// A malloc'd copy of `s` (NUL-terminated; interior NULs cut it short), or NULL when malloc fails.
pub fn c_string(s: &str) -> *mut c_char {
    let bytes = s.as_bytes();
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    // SAFETY: malloc of len+1 bytes; we write exactly len bytes and a NUL.
    unsafe {
        let p = libc::malloc(len + 1) as *mut u8;
        if p.is_null() {
            return std::ptr::null_mut();
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, len);
        *p.add(len) = 0;
        p as *mut c_char
    }
}

/// `c_string` for optional values: `None` is NULL, as Slurm leaves unset strings.
pub fn c_opt_string(s: Option<&str>) -> *mut c_char {
    s.map_or(std::ptr::null_mut(), c_string)
}

/// A zeroed, malloc'd array of `n` `T`s (at least one element, so the pointer is never NULL on success).
pub fn c_calloc<T>(n: usize) -> *mut T {
    // SAFETY: calloc returns zeroed memory or NULL; every struct we allocate is plain C data valid when zeroed.
    unsafe { libc::calloc(n.max(1), std::mem::size_of::<T>()) as *mut T }
}

/// A zeroed response message and its zeroed record array of `n`, as every `slurm_load_*` returns them; `None`
/// (nothing left allocated) when memory ran out.
pub fn c_calloc_msg<M, R>(n: usize) -> Option<(*mut M, *mut R)> {
    let msg = c_calloc::<M>(1);
    let array = c_calloc::<R>(n);
    if msg.is_null() || array.is_null() {
        // SAFETY: both NULL or fresh from calloc.
        unsafe {
            c_free(msg);
            c_free(array);
        }
        return None;
    }
    Some((msg, array))
}

/// Frees memory from [`c_string`]/[`c_calloc`] (or from the caller's malloc); NULL is fine.
///
/// # Safety
/// `p` is NULL or a live malloc'd pointer not used afterwards.
pub unsafe fn c_free<T>(p: *mut T) {
    // SAFETY: the caller's contract.
    unsafe { libc::free(p as *mut c_void) }
}

/// Slurm's "no value" and "unlimited" markers, typed as the struct fields hold them (bindgen types the macros
/// by their literal, e.g. `NO_VAL64` as `i32`).
pub const NO_VAL: u32 = 0xffff_fffe;
pub const INFINITE: u32 = 0xffff_ffff;
pub const NO_VAL16: u16 = 0xfffe;
pub const INFINITE16: u16 = 0xffff;
pub const NO_VAL64: u64 = 0xffff_ffff_ffff_fffe;
pub const INFINITE64: u64 = 0xffff_ffff_ffff_ffff;
/// The flag bit of `pn_min_memory`/`def_mem_per_cpu` meaning "per CPU" rather than "per node".
pub const MEM_PER_CPU: u64 = 0x8000_0000_0000_0000;

/// The current time, as the controller's replies report it when a reply carries none.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// A plain line on stderr, as libslurm's `info()` prints it for a program that did not set up logging.
pub fn log_plain(message: &str) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// The tail of every `slurm_load_*`: checks the caller's slot, builds the message from what the controller
/// answered (NULL from `build` is an allocation failure), stores it, and answers as libslurm does: SLURM_SUCCESS, or
/// SLURM_ERROR with errno set.
pub(crate) fn deliver_message<T, R>(
    out: *mut *mut T,
    answer: Result<R, crate::client::CallError>,
    build: impl FnOnce(R) -> *mut T,
) -> std::ffi::c_int {
    if out.is_null() {
        return crate::client::CallError::new(libc::EINVAL).fail();
    }
    match answer {
        Ok(records) => {
            let msg = build(records);
            if msg.is_null() {
                return crate::client::CallError::new(libc::ENOMEM).fail();
            }
            // SAFETY: `out` is non-NULL and the caller's slot for the result.
            unsafe { *out = msg };
            SLURM_SUCCESS
        }
        Err(e) => e.fail(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_errno(code: i32) {
        // SAFETY: as in set_errno; a system call's leftover, not the shim's own setting.
        unsafe { *libc::__errno_location() = code };
    }

    #[test]
    fn exports_change_errno_only_when_they_report_an_error() {
        raw_errno(7);
        // A success whose system calls left EAGAIN behind gives the caller its errno back.
        let rc = guard("ok", -1, || {
            raw_errno(libc::EAGAIN);
            0
        });
        assert_eq!((rc, errno()), (0, 7));
        let rc = guard("fails", 0, || {
            set_errno(2017);
            -1
        });
        assert_eq!((rc, errno()), (-1, 2017));
        // An export calling another that succeeds keeps the error it set itself.
        let rc = guard("outer", 0, || {
            set_errno(2024);
            guard("inner", -1, || {
                raw_errno(libc::EAGAIN);
                0
            });
            -1
        });
        assert_eq!((rc, errno()), (-1, 2024));
        // An error set by an export called inside another stays when the outer one passes it on.
        raw_errno(0);
        let rc = guard("outer", -1, || {
            guard("inner", 0, || crate::client::CallError::new(2017).fail())
        });
        assert_eq!((rc, errno()), (-1, 2017));
    }
}
