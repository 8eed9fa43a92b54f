//! `slurmdb_associations_modify`: an association record's set limits applied to the associations a condition
//! names, as `sacctmgr modify user|account ... set` applies them (the controller's accounting entities,
//! docs/accounting.md). A field left `NO_VAL` is unchanged, `INFINITE` clears the limit; TRES limits are by id
//! (`1=4,4=-1`), the QOS list holds ids or names (all `+`/`-` prefixed: added/removed). The answer is slurmdbd's:
//! one `C = cluster A = account [of parent]` or `... U = user` line per association changed (an account's Max
//! limits also reach the associations below it that set none, and they are listed too); an empty list and
//! libslurm's log line when nothing was to be set or nothing matched; NULL with errno when the caller may not
//! change accounting. As slurmdbd keeps the change in the connection's transaction, the change is made only when
//! the caller commits the connection (`slurmdb_connection_commit(db, 1)`, slurmdb_conn.rs); rolling back or
//! closing drops it. The answer is predicted from the current entities by the same pure rules the controller
//! applies on commit ([`AcctDb::apply`], as sacctmgr predicts its messages), and the controller checks again then.

use std::ffi::c_void;

use slurm_headers::{slurmdb_assoc_cond_t, slurmdb_assoc_rec_t, List};
use spur_core::model::assoc::{AcctDb, AcctError, AcctRequest, AssocSet, ListEdit};
use spur_core::wire::api::{ControlRequest, Query, QueryReply};

use crate::client;
use crate::ffi::{self, c_string, guard, opt_str, INFINITE, NO_VAL};
use crate::slurmdb_jobs::{string_list, tres_ids};

/// `SLURM_NO_CHANGE_IN_DATA`.
const NO_CHANGE_IN_DATA: i32 = 1900;
/// `ESLURM_ACCESS_DENIED`.
const ACCESS_DENIED: i32 = 2002;

/// Whether the caller may change accounting entities: the controller's rule (root and `SlurmUser`).
fn may_change_accounting() -> bool {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    uid == 0
        || client::load_conf().is_some_and(|conf| {
            nix::unistd::User::from_name(conf.slurm_user())
                .ok()
                .flatten()
                .is_some_and(|u| u.uid.as_raw() == uid)
        })
}

/// `NO_VAL` unchanged, `INFINITE` cleared, else the value.
fn limit(v: u32) -> Option<Option<u32>> {
    match v {
        NO_VAL => None,
        INFINITE => Some(None),
        v => Some(Some(v)),
    }
}

/// A TRES limit by id (`1=4,2=2048,4=-1`) in sacctmgr's words (`cpu=4,mem=2048,node=-1`); ids the cluster does
/// not track are dropped.
fn tres_names(text: &str, ids: &[(String, u32)]) -> String {
    text.split(',')
        .filter_map(|p| {
            let (id, n) = p.split_once('=')?;
            let id: u32 = id.trim().parse().ok()?;
            let name = &ids.iter().find(|(_, i)| *i == id)?.0;
            Some(format!("{name}={}", n.trim()))
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// # Safety
/// `a` is a valid record whose strings and lists are NULL or valid.
unsafe fn assoc_set(a: &slurmdb_assoc_rec_t, db: &AcctDb) -> AssocSet {
    let ids = tres_ids();
    let qos_name = |s: &str| -> String {
        s.parse::<u32>()
            .ok()
            .and_then(|id| db.qos.iter().find(|q| q.id == id))
            .map_or_else(|| s.to_ascii_lowercase(), |q| q.name.clone())
    };
    // SAFETY: the caller's contract.
    let qos: Vec<String> = unsafe { string_list(a.qos_list) };
    let edit = if qos.is_empty() {
        None
    } else if qos.iter().all(|q| q.starts_with('+')) {
        Some(ListEdit::Add(
            qos.iter().map(|q| qos_name(&q[1..])).collect(),
        ))
    } else if qos.iter().all(|q| q.starts_with('-')) {
        Some(ListEdit::Remove(
            qos.iter().map(|q| qos_name(&q[1..])).collect(),
        ))
    } else {
        Some(ListEdit::Set(qos.iter().map(|q| qos_name(q)).collect()))
    };
    // SAFETY: the caller's contract.
    let tres = |p| unsafe { opt_str(p) }.map(|t| Some(tres_names(&t, &ids)));
    AssocSet {
        shares: match a.shares_raw {
            NO_VAL => None,
            INFINITE => Some(1),
            n => Some(n),
        },
        qos: edit,
        default_qos: match a.def_qos_id {
            NO_VAL => None,
            0 | INFINITE => Some(None),
            id => db
                .qos
                .iter()
                .find(|q| q.id == id)
                .map(|q| Some(q.name.clone())),
        },
        max_jobs: limit(a.max_jobs),
        max_submit: limit(a.max_submit_jobs),
        max_wall_min: limit(a.max_wall_pj),
        max_tres: tres(a.max_tres_pj),
        grp_jobs: limit(a.grp_jobs),
        grp_submit: limit(a.grp_submit_jobs),
        grp_tres: tres(a.grp_tres),
    }
}

/// # Safety
/// `assoc_cond` is NULL or a valid condition; `assoc` NULL or a valid record.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_associations_modify(
    db_conn: *mut c_void,
    assoc_cond: *mut slurmdb_assoc_cond_t,
    assoc: *mut slurmdb_assoc_rec_t,
) -> List {
    guard("slurmdb_associations_modify", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let (Some(cond), Some(rec)) = (unsafe { assoc_cond.as_ref() }, unsafe { assoc.as_ref() })
        else {
            ffi::set_errno(NO_CHANGE_IN_DATA);
            return std::ptr::null_mut();
        };
        let db = match client::query(&Query::AcctDb) {
            Ok(QueryReply::AcctDb { db }) => db,
            Ok(_) => {
                ffi::set_errno(ffi::SLURM_ERROR);
                return std::ptr::null_mut();
            }
            Err(e) => {
                ffi::set_errno(e.errno);
                return std::ptr::null_mut();
            }
        };
        // SAFETY: the caller's contract: lists of strings.
        let (accounts, users) =
            unsafe { (string_list(cond.acct_list), string_list(cond.user_list)) };
        let accounts: Vec<String> = accounts.iter().map(|a| a.to_ascii_lowercase()).collect();
        // SAFETY: as above.
        let set = unsafe { assoc_set(rec, &db) };
        let list = crate::list::create(Some(libc::free));
        if set.is_empty() || (accounts.is_empty() && users.is_empty()) {
            // Nothing to set, as slurmdbd answers it; a condition naming nothing is refused rather than applied
            // to every association.
            no_change();
            return list;
        }
        let user_level = !users.is_empty();
        let inherited = set.max_jobs.is_some()
            || set.max_submit.is_some()
            || set.max_wall_min.is_some()
            || set.max_tres.is_some();
        let request = if user_level {
            AcctRequest::ModifyUsers {
                names: users,
                accounts,
                default_account: None,
                admin: None,
                set: set.clone(),
            }
        } else {
            AcctRequest::ModifyAccounts {
                names: accounts,
                description: None,
                organization: None,
                set: set.clone(),
            }
        };
        if !may_change_accounting() {
            // slurmdbd refuses before changing anything; the controller would refuse the commit alike.
            // SAFETY: the empty list made above.
            unsafe { crate::list::slurm_list_destroy(list) };
            ffi::set_errno(ACCESS_DENIED);
            return std::ptr::null_mut();
        }
        let change = match db.clone().apply(&request) {
            Ok(change) => change,
            Err(AcctError::NothingModified) => {
                no_change();
                return list;
            }
            Err(_) => {
                // SAFETY: the empty list made above.
                unsafe { crate::list::slurm_list_destroy(list) };
                ffi::set_errno(ffi::SLURM_ERROR);
                return std::ptr::null_mut();
            }
        };
        let change_request = ControlRequest::Accounting { request };
        if !crate::slurmdb_conn::stage(db_conn, change_request.clone()) {
            // Not a connection of ours (NULL, or a caller's own pointer): nothing could commit it later.
            if let Err(e) = client::control(&change_request) {
                // SAFETY: the empty list made above.
                unsafe { crate::list::slurm_list_destroy(list) };
                ffi::set_errno(e.errno);
                return std::ptr::null_mut();
            }
        }
        let mut lines = Vec::new();
        for (account, user) in &change.assocs {
            match user {
                Some(user) => lines.push(user_line(&db.cluster, account, user)),
                None => {
                    lines.push(account_line(&db, account));
                    if inherited {
                        // slurmdbd also changes (and lists) the associations below that set none of the Max
                        // limits changed: they take them from this account.
                        lines.extend(inheriting(&db, account, &set));
                    }
                }
            }
        }
        if lines.is_empty() {
            no_change();
        }
        for line in lines {
            let p = c_string(&line);
            if !p.is_null() {
                // SAFETY: a live list made above; it owns the string.
                unsafe { crate::list::append(list, p as *mut c_void) };
            }
        }
        list
    })
}

/// What libslurm's slurmdbd plugin logs when a change affected nothing (it answers an empty list).
fn no_change() {
    ffi::log_plain(&format!(
        "{}: accounting_storage/slurmdbd: acct_storage_p_modify_assocs: Request didn't affect anything or your \
         user doesn't have privilege to perform this action",
        crate::submit::program_name()
    ));
}

fn user_line(cluster: &str, account: &str, user: &str) -> String {
    format!("C = {cluster:<10} A = {account:<20} U = {user:<9}")
}

fn account_line(db: &AcctDb, account: &str) -> String {
    let parent = db
        .assocs
        .iter()
        .find(|a| a.user.is_none() && a.account == account)
        .and_then(|a| a.parent.clone());
    match parent {
        Some(parent) => format!("C = {:<10} A = {account} of {parent}", db.cluster),
        None => format!("C = {:<10} A = {account}", db.cluster),
    }
}

/// The associations under `account` (in slurmdbd's order) that set none of the Max limits `set` changes.
fn inheriting(db: &AcctDb, account: &str, set: &AssocSet) -> Vec<String> {
    let mut under = vec![account.to_string()];
    let mut lines = Vec::new();
    for i in crate::slurmdb_assoc::tree_order(db) {
        let a = &db.assocs[i];
        let parent = match &a.user {
            Some(_) => a.account.as_str(),
            None => match a.parent.as_deref() {
                Some(p) => p,
                None => continue,
            },
        };
        if !under.iter().any(|u| u == parent) || (a.user.is_none() && a.account == account) {
            continue;
        }
        let l = &a.limits;
        let unset = (set.max_jobs.is_some() && l.max_jobs.is_none())
            || (set.max_submit.is_some() && l.max_submit.is_none())
            || (set.max_wall_min.is_some() && l.max_wall_min.is_none())
            || (set.max_tres.is_some() && l.max_tres.is_none());
        if a.user.is_none() {
            under.push(a.account.clone());
        }
        if unset {
            lines.push(match &a.user {
                Some(user) => user_line(&db.cluster, &a.account, user),
                None => account_line(db, &a.account),
            });
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_tres_in_sacctmgr_terms() {
        assert_eq!(limit(NO_VAL), None);
        assert_eq!(limit(INFINITE), Some(None));
        assert_eq!(limit(3), Some(Some(3)));
        let ids = vec![
            ("cpu".to_string(), 1),
            ("mem".to_string(), 2),
            ("node".to_string(), 4),
        ];
        assert_eq!(tres_names("1=4,4=-1,99=1", &ids), "cpu=4,node=-1");
    }
}
