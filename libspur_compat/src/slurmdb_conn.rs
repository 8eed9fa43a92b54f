//! The slurmdbd connection (`slurmdb_connection_get`, `_close`, `_commit`) and the queries Spur has no history
//! for (`slurmdb_events_get`, `slurmdb_reservations_get`: an empty list once the controller answered).
//!
//! A connection holds the changes made through it that slurmdbd keeps uncommitted until the caller commits them
//! (`slurmdb_job_modify`): `slurmdb_connection_commit(conn, 1)` sends them to the controller in order,
//! `commit(conn, 0)` and closing the connection drop them, as slurmdbd rolls back an uncommitted transaction.

use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::{Mutex, PoisonError};

use slurm_headers::{slurmdb_event_cond_t, slurmdb_reservation_cond_t, List};
use spur_core::wire::api::ControlRequest;

use crate::client;
use crate::ffi::{self, c_calloc, guard};

/// The handle `slurmdb_connection_get` returns: Spur asks the controller on every call, so it holds nothing but
/// marks a connection as open.
const CONNECTION_MAGIC: u32 = 0x5350_4442;

/// The handles handed out and not yet closed. `_close` frees only these: callers do pass other pointers (Debian's
/// Perl `Slurmdb::connection_close(\$db)` hands over the address of a Perl reference), and libslurm answers those
/// with success instead of crashing, so the shim must recognise its own handles rather than free whatever it gets.
/// Each open handle with the changes staged on it, oldest first.
static OPEN: Mutex<Option<HashMap<usize, Vec<ControlRequest>>>> = Mutex::new(None);

fn open_handles<T>(f: impl FnOnce(&mut HashMap<usize, Vec<ControlRequest>>) -> T) -> T {
    let mut guard = OPEN.lock().unwrap_or_else(PoisonError::into_inner);
    f(guard.get_or_insert_with(HashMap::new))
}

/// Keeps `request` on the open connection `db_conn` until it is committed; `false` (nothing kept) when
/// `db_conn` is not an open handle of ours.
pub(crate) fn stage(db_conn: *mut c_void, request: ControlRequest) -> bool {
    open_handles(|open| match open.get_mut(&(db_conn as usize)) {
        Some(pending) => {
            pending.push(request);
            true
        }
        None => false,
    })
}

/// # Safety
/// `persist_conn_flags` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_connection_get(persist_conn_flags: *mut u16) -> *mut c_void {
    guard("slurmdb_connection_get", std::ptr::null_mut(), || {
        // libslurm leaves `persist_conn_flags` as the caller set it; so does this.
        let _ = persist_conn_flags;
        let conn = c_calloc::<u32>(1);
        if !conn.is_null() {
            // SAFETY: fresh allocation of one u32.
            unsafe { *conn = CONNECTION_MAGIC };
            open_handles(|open| open.insert(conn as usize, Vec::new()));
        }
        conn as *mut c_void
    })
}

/// Releases the handle and clears the caller's pointer; NULL, an already closed handle or a pointer that is not
/// one of ours is left alone and answered with success, as libslurm answers it.
///
/// # Safety
/// `db_conn` is NULL or points to a readable pointer.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_connection_close(db_conn: *mut *mut c_void) -> c_int {
    guard("slurmdb_connection_close", ffi::SLURM_ERROR, || {
        if !db_conn.is_null() {
            // SAFETY: the caller's contract.
            let handle = unsafe { *db_conn };
            // Changes not committed are dropped with the handle.
            if open_handles(|open| open.remove(&(handle as usize))).is_some() {
                // SAFETY: a live handle from slurmdb_connection_get, removed from the open set just now, so it
                // is freed once.
                unsafe {
                    ffi::c_free(handle);
                    *db_conn = std::ptr::null_mut();
                }
            }
        }
        ffi::SLURM_SUCCESS
    })
}

/// Sends the changes staged on `db_conn` to the controller (`commit`), or drops them; either way the connection
/// holds none afterwards. The first change the controller refuses ends the commit with its errno and
/// `SLURM_ERROR`; the changes after it are dropped, as a failed transaction's are.
#[no_mangle]
pub extern "C" fn slurmdb_connection_commit(db_conn: *mut c_void, commit: bool) -> c_int {
    guard("slurmdb_connection_commit", ffi::SLURM_ERROR, || {
        let pending = open_handles(|open| {
            open.get_mut(&(db_conn as usize))
                .map(std::mem::take)
                .unwrap_or_default()
        });
        if !commit {
            return ffi::SLURM_SUCCESS;
        }
        for request in &pending {
            if let Err(e) = client::control(request) {
                ffi::set_errno(e.errno);
                return ffi::SLURM_ERROR;
            }
        }
        ffi::SLURM_SUCCESS
    })
}

/// An empty list (freeing records of its type) once the controller answered, NULL with errno when it did not.
fn empty_answer(destroy: slurm_headers::ListDelF) -> List {
    match client::ping() {
        Ok(()) => crate::list::create(destroy),
        Err(e) => {
            ffi::set_errno(e.errno);
            std::ptr::null_mut()
        }
    }
}

/// Spur records no node or cluster events: an empty list.
///
/// # Safety
/// `event_cond` is NULL or a valid condition.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_events_get(
    _db_conn: *mut c_void,
    _event_cond: *mut slurmdb_event_cond_t,
) -> List {
    guard("slurmdb_events_get", std::ptr::null_mut(), || {
        empty_answer(Some(crate::slurmdb_free::slurmdb_destroy_event_rec))
    })
}

/// Spur keeps no history of reservations (`slurm_load_reservations` lists the current ones): an empty list.
///
/// # Safety
/// `resv_cond` is NULL or a valid condition.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_reservations_get(
    _db_conn: *mut c_void,
    _resv_cond: *mut slurmdb_reservation_cond_t,
) -> List {
    guard("slurmdb_reservations_get", std::ptr::null_mut(), || {
        empty_answer(Some(crate::slurmdb_free::slurmdb_destroy_reservation_rec))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_handle_opens_and_closes() {
        let mut flags = 7u16;
        // SAFETY: valid slots; the handle is closed once.
        unsafe {
            let mut conn = slurmdb_connection_get(&mut flags);
            assert!(!conn.is_null());
            assert_eq!(flags, 7);
            assert_eq!(slurmdb_connection_commit(conn, true), 0);
            assert_eq!(slurmdb_connection_close(&mut conn), 0);
            assert!(conn.is_null());
            assert_eq!(slurmdb_connection_close(&mut conn), 0);
        }
    }
}
