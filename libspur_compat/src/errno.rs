//! Slurm's error reporting: `slurm_get_errno`/`slurm_seterrno` use C `errno` (per thread), and
//! `slurm_strerror`/`slurm_perror` give Slurm's texts for its numbers and the C library's for system errors.

use std::ffi::{c_char, c_int};
use std::sync::OnceLock;

use spur_core::wire::api::SlurmErrno;

use crate::ffi::{self, guard};

/// Slurm numbers the shim itself reports that spur-core's API errors do not cover, with libslurm's texts.
const SHIM_ERRNOS: &[(i32, &str)] = &[
    (0, "No error"),
    (1000, "Unexpected message received"),
    (1001, "Communication connection failure"),
    (1800, "Unable to contact slurm controller (connect failure)"),
    (2036, "Requested operation not supported on this system"),
    (
        crate::resv_admin::ESLURM_RESERVATION_EMPTY,
        "Reservation request lacks users, groups or accounts",
    ),
];

/// The text for `code`, as libslurm's `slurm_strerror` gives it.
pub fn text(code: i32) -> String {
    if let Some((_, t)) = SHIM_ERRNOS.iter().find(|(c, _)| *c == code) {
        return (*t).to_string();
    }
    if let Some(e) = SlurmErrno::from_code(code) {
        return e.text().to_string();
    }
    if code > 0 && code < 1000 {
        // SAFETY: strerror returns a valid NUL-terminated string for any int.
        return unsafe { std::ffi::CStr::from_ptr(libc::strerror(code)) }
            .to_string_lossy()
            .into_owned();
    }
    format!("Unknown error {code}")
}

/// Interned texts: `slurm_strerror` returns a pointer the caller must not free, valid for the process.
fn interned(code: i32) -> *const c_char {
    static TEXTS: OnceLock<std::sync::Mutex<std::collections::HashMap<i32, std::ffi::CString>>> =
        OnceLock::new();
    let map = TEXTS.get_or_init(Default::default);
    let Ok(mut map) = map.lock() else {
        return c"Unknown error".as_ptr();
    };
    map.entry(code)
        .or_insert_with(|| {
            std::ffi::CString::new(text(code)).unwrap_or_else(|_| c"Unknown error".to_owned())
        })
        .as_ptr()
}

#[no_mangle]
pub extern "C" fn slurm_get_errno() -> c_int {
    ffi::errno()
}

#[no_mangle]
pub extern "C" fn slurm_seterrno(errnum: c_int) {
    ffi::set_errno(errnum);
}

#[no_mangle]
pub extern "C" fn slurm_strerror(errnum: c_int) -> *mut c_char {
    guard("slurm_strerror", std::ptr::null_mut(), || {
        interned(errnum) as *mut c_char
    })
}

/// # Safety
/// `msg` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_perror(msg: *const c_char) {
    let code = ffi::errno();
    guard("slurm_perror", (), || {
        // SAFETY: the caller's contract.
        let prefix = unsafe { ffi::opt_str(msg) };
        let line = match prefix {
            Some(p) => format!("{p}: {}\n", text(code)),
            None => format!("{}\n", text(code)),
        };
        use std::io::Write as _;
        let _ = std::io::stderr().write_all(line.as_bytes());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_follow_libslurm() {
        assert_eq!(text(2017), "Invalid job id specified");
        assert_eq!(
            text(2036),
            "Requested operation not supported on this system"
        );
        assert_eq!(text(-1), "Unspecified error");
        assert_eq!(text(2), "No such file or directory");
        assert_eq!(text(9999), "Unknown error 9999");
    }
}
