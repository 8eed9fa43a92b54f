//! The slurmdbd connection (`slurmdb_connection_get`, `_close`, `_commit`) and the queries Spur has no history
//! for (`slurmdb_events_get`, `slurmdb_reservations_get`: an empty list once the controller answered).

use std::collections::HashSet;
use std::ffi::{c_int, c_void};
use std::sync::{Mutex, PoisonError};

use slurm_headers::{slurmdb_event_cond_t, slurmdb_reservation_cond_t, List};

use crate::client;
use crate::ffi::{self, c_calloc, guard};

/// The handle `slurmdb_connection_get` returns: Spur asks the controller on every call, so it holds nothing but
/// marks a connection as open.
const CONNECTION_MAGIC: u32 = 0x5350_4442;

/// The handles handed out and not yet closed. `_close` frees only these: callers do pass other pointers (Debian's
/// Perl `Slurmdb::connection_close(\$db)` hands over the address of a Perl reference), and libslurm answers those
/// with success instead of crashing, so the shim must recognise its own handles rather than free whatever it gets.
static OPEN: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn open_handles<T>(f: impl FnOnce(&mut HashSet<usize>) -> T) -> T {
    let mut guard = OPEN.lock().unwrap_or_else(PoisonError::into_inner);
    f(guard.get_or_insert_with(HashSet::new))
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
            open_handles(|open| open.insert(conn as usize));
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
            if open_handles(|open| open.remove(&(handle as usize))) {
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

/// Every change Spur makes is committed by the controller when made, so there is nothing to commit or roll back.
#[no_mangle]
pub extern "C" fn slurmdb_connection_commit(_db_conn: *mut c_void, _commit: bool) -> c_int {
    guard("slurmdb_connection_commit", ffi::SLURM_ERROR, || {
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
