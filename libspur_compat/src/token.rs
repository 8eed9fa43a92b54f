//! `slurm_fetch_token`: an auth/jwt token from the controller, as `scontrol token` gets it.

use std::ffi::{c_char, c_int};

use spur_core::wire::api::{Query, QueryReply};

use crate::client::{self, CallError};
use crate::ffi::{self, c_string, guard, opt_str};

/// A lifespan of 0 or less asks for the controller's default, as `scontrol token` without `lifespan=` does.
fn lifespan_secs(lifespan: c_int) -> Option<u32> {
    u32::try_from(lifespan).ok().filter(|&s| s > 0)
}

/// # Safety
/// `username` is NULL (the caller) or a NUL-terminated user name. The token is malloc'd; `free()` releases it.
#[no_mangle]
pub unsafe extern "C" fn slurm_fetch_token(username: *mut c_char, lifespan: c_int) -> *mut c_char {
    guard("slurm_fetch_token", std::ptr::null_mut(), || {
        let query = Query::Token {
            // SAFETY: the caller's contract.
            username: unsafe { opt_str(username) }.map(|s| s.into_owned()),
            lifespan_secs: lifespan_secs(lifespan),
        };
        match client::query(&query) {
            Ok(QueryReply::Token { token }) => c_string(&token),
            Ok(_) => {
                CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR).fail();
                std::ptr::null_mut()
            }
            Err(e) => {
                e.fail();
                std::ptr::null_mut()
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifespans() {
        assert_eq!(lifespan_secs(0), None);
        assert_eq!(lifespan_secs(-5), None);
        assert_eq!(lifespan_secs(60), Some(60));
    }
}
