//! The body of the generated stubs for libslurm's exports beyond the public API (`internal-api.txt`; build.rs
//! writes one stub per name nobody implements, into [`crate::generated`]). See docs/libspur_compat.md.

use crate::ffi::{guard, log_once, set_errno, ESLURM_NOT_SUPPORTED};
pub use crate::generated::{INTERNAL_IMPLEMENTED, INTERNAL_STUBBED};

/// Logs once per process that `name` is not supported, sets `errno` to `ESLURM_NOT_SUPPORTED` and returns
/// `value`, the failure value of the function's return type.
pub fn fail<R: Copy>(name: &str, value: R) -> R {
    guard(name, value, || {
        log_once(
            name,
            &format!("{name}() is not supported by Spur (returns an error)"),
        );
        set_errno(ESLURM_NOT_SUPPORTED);
        value
    })
}
