//! The entity queries (`slurmdb_qos_get`, `_associations_get`, `_users_get`, `_clusters_get`, `_tres_get`,
//! `slurmdb_get_first_avail_cluster`), answered from the controller's accounting entities (what `sacctmgr show`
//! lists, docs/accounting.md). Records are filled as slurmdbd fills them: limits not set are `INFINITE`, TRES
//! limits are strings by TRES id, QOS lists hold QOS ids. Spur numbers associations by their place in its list
//! (from 1), as it has no database ids.

use std::ffi::{c_char, c_int, c_void};

use slurm_headers::{
    job_desc_msg_t, slurmdb_assoc_cond_t, slurmdb_assoc_rec_t, slurmdb_cluster_cond_t,
    slurmdb_cluster_rec_t, slurmdb_qos_cond_t, slurmdb_qos_rec_t, slurmdb_tres_cond_t,
    slurmdb_tres_rec_t, slurmdb_user_cond_t, slurmdb_user_rec_t, List,
};
use spur_core::model::assoc::{AcctDb, AdminLevel, Association};
use spur_core::model::records::PreemptMode;
use spur_core::wire::api::{Query, QueryReply};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc, c_opt_string, c_string, guard, opt_str, INFINITE, NO_VAL};
use crate::slurmdb_free::{
    slurmdb_destroy_assoc_rec, slurmdb_destroy_cluster_rec, slurmdb_destroy_coord_rec,
    slurmdb_destroy_qos_rec, slurmdb_destroy_tres_rec, slurmdb_destroy_user_rec,
};
use crate::slurmdb_jobs::{string_list, tres_by_id, tres_ids};

/// `SLURM_22_05_PROTOCOL_VERSION`, what slurmdbd records for a 22.05 slurmctld.
const RPC_VERSION_22_05: u16 = 38 << 8;

/// The accounting entities, or NULL with errno set.
fn acct_db() -> Option<AcctDb> {
    match client::query(&Query::AcctDb) {
        Ok(QueryReply::AcctDb { db }) => Some(db),
        Ok(_) => {
            ffi::set_errno(ffi::SLURM_ERROR);
            None
        }
        Err(CallError { errno }) => {
            ffi::set_errno(errno);
            None
        }
    }
}

/// Whether `value` passes a filter list (an empty list passes everything).
fn passes(filter: &[String], value: &str) -> bool {
    filter.is_empty() || filter.iter().any(|f| f.eq_ignore_ascii_case(value))
}

fn opt_limit(v: Option<u32>) -> u32 {
    v.unwrap_or(INFINITE)
}

fn tres_limit(v: &Option<String>, ids: &[(String, u32)]) -> *mut c_char {
    match v {
        Some(t) if !t.is_empty() => c_string(&tres_by_id(t, ids)),
        _ => std::ptr::null_mut(),
    }
}

fn uid_of(user: &str) -> u32 {
    nix::unistd::User::from_name(user)
        .ok()
        .flatten()
        .map_or(NO_VAL, |u| u.uid.as_raw())
}

/// `QOS_FLAG_*` bits by the names sacctmgr takes.
fn qos_flags(names: &[String]) -> u32 {
    const BITS: [(&str, u32); 10] = [
        ("partitionminnodes", 1 << 0),
        ("partitionmaxnodes", 1 << 1),
        ("partitiontimelimit", 1 << 2),
        ("enforceusagethreshold", 1 << 3),
        ("noreserve", 1 << 4),
        ("requiresreservation", 1 << 5),
        ("denyonlimit", 1 << 6),
        ("overpartqos", 1 << 7),
        ("nodecay", 1 << 8),
        ("usagefactorsafe", 1 << 9),
    ];
    names
        .iter()
        .filter_map(|n| {
            BITS.iter()
                .find(|(b, _)| n.eq_ignore_ascii_case(b))
                .map(|(_, bit)| *bit)
        })
        .fold(0, |a, b| a | b)
}

fn preempt_mode(mode: Option<PreemptMode>) -> u16 {
    match mode {
        None | Some(PreemptMode::Off) => 0,
        Some(PreemptMode::Suspend) => 0x0001,
        Some(PreemptMode::Requeue) => 0x0002,
        Some(PreemptMode::Cancel) => 0x0008,
    }
}

/// A list of malloc'd strings freed with the list.
fn char_list(items: impl IntoIterator<Item = String>) -> List {
    let list = crate::list::create(Some(libc::free));
    for s in items {
        let p = c_string(&s);
        if !p.is_null() {
            // SAFETY: a live list made above; it owns the string.
            unsafe { crate::list::append(list, p as *mut c_void) };
        }
    }
    list
}

/// # Safety
/// `qos_cond` is NULL or a valid condition.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_qos_get(
    _db_conn: *mut c_void,
    qos_cond: *mut slurmdb_qos_cond_t,
) -> List {
    guard("slurmdb_qos_get", std::ptr::null_mut(), || {
        let Some(db) = acct_db() else {
            return std::ptr::null_mut();
        };
        // SAFETY: the caller's contract; the lists hold strings.
        let (names, ids, descriptions) = unsafe {
            match qos_cond.as_ref() {
                Some(c) => (
                    string_list(c.name_list),
                    string_list(c.id_list),
                    string_list(c.description_list),
                ),
                None => Default::default(),
            }
        };
        let tres = tres_ids();
        let list = crate::list::create(Some(slurmdb_destroy_qos_rec));
        // slurmdbd lists QOS by name.
        let mut by_name: Vec<_> = db.qos.iter().collect();
        by_name.sort_by(|a, b| a.name.cmp(&b.name));
        for q in by_name {
            if !passes(&names, &q.name)
                || !passes(&ids, &q.id.to_string())
                || !passes(&descriptions, &q.description)
            {
                continue;
            }
            let rec = c_calloc::<slurmdb_qos_rec_t>(1);
            if rec.is_null() {
                continue;
            }
            // SAFETY: a fresh record; init sets the unset markers, then every member set is malloc'd and owned.
            unsafe {
                crate::slurmdb_init::slurmdb_init_qos_rec(rec, false, INFINITE);
                let r = &mut *rec;
                let l = &q.limits;
                r.id = q.id;
                r.name = c_string(&q.name);
                r.description = c_string(&q.description);
                r.flags = qos_flags(&q.flags);
                r.priority = q.priority;
                r.preempt_mode = preempt_mode(q.preempt_mode);
                r.usage_factor = q.usage_factor;
                r.usage_thres = f64::from(INFINITE);
                r.limit_factor = f64::from(INFINITE);
                r.grace_time = q.grace_time_secs;
                r.max_wall_pj = opt_limit(l.max_wall_min);
                r.max_tres_pj = tres_limit(&l.max_tres_per_job, &tres);
                r.max_tres_pu = tres_limit(&l.max_tres_per_user, &tres);
                r.max_tres_pa = tres_limit(&l.max_tres_per_account, &tres);
                r.max_jobs_pu = opt_limit(l.max_jobs_per_user);
                r.max_submit_jobs_pu = opt_limit(l.max_submit_jobs_per_user);
                r.max_jobs_pa = opt_limit(l.max_jobs_per_account);
                r.max_submit_jobs_pa = opt_limit(l.max_submit_jobs_per_account);
                r.grp_tres = tres_limit(&l.grp_tres, &tres);
                r.grp_jobs = opt_limit(l.grp_jobs);
                r.grp_submit_jobs = opt_limit(l.grp_submit);
                r.preempt_list = char_list(q.preempt.iter().cloned());
                crate::list::append(list, rec as *mut c_void);
            }
        }
        list
    })
}

/// One association as slurmdbd reports it; `id` is its place in Spur's list from 1.
fn assoc_record(
    db: &AcctDb,
    a: &Association,
    id: u32,
    tres: &[(String, u32)],
) -> *mut slurmdb_assoc_rec_t {
    let rec = c_calloc::<slurmdb_assoc_rec_t>(1);
    if rec.is_null() {
        return rec;
    }
    let qos_id = |name: &str| db.qos.iter().find(|q| q.name == name).map(|q| q.id);
    let mut qos_ids: Vec<u32> = a.qos.iter().filter_map(|q| qos_id(q)).collect();
    qos_ids.sort_unstable();
    // slurmdbd names the parent account of an account's association only; a user's points to its account's
    // association by id.
    let parent = match &a.user {
        Some(_) => None,
        None => a.parent.as_deref(),
    };
    let parent_of = match &a.user {
        Some(_) => Some(a.account.as_str()),
        None => parent,
    };
    let parent_id = parent_of.map_or(0, |p| {
        db.assocs
            .iter()
            .position(|x| x.user.is_none() && x.account == p)
            .map_or(0, |i| i as u32 + 1)
    });
    // SAFETY: a fresh record; init sets the unset markers, then every member set is malloc'd and owned.
    unsafe {
        crate::slurmdb_init::slurmdb_init_assoc_rec(rec, false);
        let r = &mut *rec;
        let l = &a.limits;
        r.id = id;
        r.acct = c_string(&a.account);
        r.cluster = c_string(&db.cluster);
        r.user = c_opt_string(a.user.as_deref());
        r.partition = c_opt_string(a.partition.as_deref());
        r.parent_acct = c_opt_string(parent);
        r.parent_id = parent_id;
        r.shares_raw = a.shares;
        r.is_def = match &a.user {
            Some(u) => u16::from(
                db.users
                    .get(u)
                    .is_some_and(|u| u.default_account == a.account),
            ),
            None => 0,
        };
        r.uid = a.user.as_deref().map_or(NO_VAL, uid_of);
        r.def_qos_id = a.default_qos.as_deref().and_then(qos_id).unwrap_or(0);
        r.qos_list = char_list(qos_ids.iter().map(u32::to_string));
        r.max_jobs = opt_limit(l.max_jobs);
        r.max_submit_jobs = opt_limit(l.max_submit);
        r.max_wall_pj = opt_limit(l.max_wall_min);
        r.max_tres_pj = tres_limit(&l.max_tres, tres);
        r.grp_jobs = opt_limit(l.grp_jobs);
        r.grp_submit_jobs = opt_limit(l.grp_submit);
        r.grp_tres = tres_limit(&l.grp_tres, tres);
        r.grp_jobs_accrue = INFINITE;
        r.grp_wall = INFINITE;
        r.max_jobs_accrue = INFINITE;
        r.min_prio_thresh = INFINITE;
        r.priority = INFINITE;
        r.flags = 0;
    }
    rec
}

/// The filters of an association condition that Spur's associations can answer.
pub(crate) struct AssocFilter {
    pub(crate) accounts: Vec<String>,
    pub(crate) clusters: Vec<String>,
    pub(crate) users: Vec<String>,
    pub(crate) partitions: Vec<String>,
    pub(crate) ids: Vec<String>,
    pub(crate) parents: Vec<String>,
}

impl AssocFilter {
    /// # Safety
    /// `c` is NULL or a valid condition whose lists hold strings.
    pub(crate) unsafe fn of(c: *const slurmdb_assoc_cond_t) -> AssocFilter {
        // SAFETY: the caller's contract.
        match unsafe { c.as_ref() } {
            // SAFETY: as above.
            Some(c) => unsafe {
                AssocFilter {
                    accounts: string_list(c.acct_list),
                    clusters: string_list(c.cluster_list),
                    users: string_list(c.user_list),
                    partitions: string_list(c.partition_list),
                    ids: string_list(c.id_list),
                    parents: string_list(c.parent_acct_list),
                }
            },
            None => AssocFilter {
                accounts: Vec::new(),
                clusters: Vec::new(),
                users: Vec::new(),
                partitions: Vec::new(),
                ids: Vec::new(),
                parents: Vec::new(),
            },
        }
    }

    pub(crate) fn selects(&self, db: &AcctDb, a: &Association, id: u32) -> bool {
        passes(&self.accounts, &a.account)
            && passes(&self.clusters, &db.cluster)
            // A user filter selects users' associations only, as slurmdbd's does.
            && (self.users.is_empty() || a.user.as_deref().is_some_and(|u| passes(&self.users, u)))
            && (self.partitions.is_empty()
                || a.partition.as_deref().is_some_and(|p| passes(&self.partitions, p)))
            && passes(&self.ids, &id.to_string())
            && (self.parents.is_empty()
                || a.user.is_none() && a.parent.as_deref().is_some_and(|p| passes(&self.parents, p)))
    }
}

/// The associations' places in Spur's list in slurmdbd's order (`lft`): the tree from `root` depth first, an
/// account's association before what is under it, the children newest first (slurmdbd inserts a new association
/// as the first child of its parent).
pub(crate) fn tree_order(db: &AcctDb) -> Vec<usize> {
    fn visit(db: &AcctDb, account_index: usize, seen: &mut Vec<bool>, out: &mut Vec<usize>) {
        if seen[account_index] {
            return;
        }
        seen[account_index] = true;
        out.push(account_index);
        let account = &db.assocs[account_index].account;
        for (i, a) in db.assocs.iter().enumerate().rev() {
            let child = match &a.user {
                Some(_) => a.account == *account,
                None => a.parent.as_deref() == Some(account.as_str()),
            };
            if !child || seen[i] {
                continue;
            }
            if a.user.is_some() {
                seen[i] = true;
                out.push(i);
            } else {
                visit(db, i, seen, out);
            }
        }
    }
    let mut seen = vec![false; db.assocs.len()];
    let mut out = Vec::with_capacity(db.assocs.len());
    for (i, a) in db.assocs.iter().enumerate() {
        if a.user.is_none() && a.parent.is_none() {
            visit(db, i, &mut seen, &mut out);
        }
    }
    // Anything the tree did not reach (an association whose parent is gone) keeps its place at the end.
    out.extend((0..db.assocs.len()).filter(|&i| !seen[i]));
    out
}

/// Each association's `lft` and `rgt` in slurmdbd's nested set (by place in Spur's list): numbered in
/// [`tree_order`], an association's range holding everything under it.
pub(crate) fn nested_set(db: &AcctDb) -> Vec<(u32, u32)> {
    fn visit(
        db: &AcctDb,
        i: usize,
        next: &mut u32,
        out: &mut Vec<(u32, u32)>,
        seen: &mut Vec<bool>,
    ) {
        if seen[i] {
            return;
        }
        seen[i] = true;
        let lft = *next;
        *next += 1;
        if db.assocs[i].user.is_none() {
            let account = db.assocs[i].account.clone();
            for j in (0..db.assocs.len()).rev() {
                let a = &db.assocs[j];
                let child = match &a.user {
                    Some(_) => a.account == account,
                    None => a.parent.as_deref() == Some(account.as_str()),
                };
                if child {
                    visit(db, j, next, out, seen);
                }
            }
        }
        out[i] = (lft, *next);
        *next += 1;
    }
    let mut out = vec![(NO_VAL, NO_VAL); db.assocs.len()];
    let mut seen = vec![false; db.assocs.len()];
    let mut next = 1;
    for i in 0..db.assocs.len() {
        if db.assocs[i].user.is_none() && db.assocs[i].parent.is_none() {
            visit(db, i, &mut next, &mut out, &mut seen);
        }
    }
    out
}

fn assoc_list(db: &AcctDb, filter: &AssocFilter) -> List {
    let tres = tres_ids();
    let list = crate::list::create(Some(slurmdb_destroy_assoc_rec));
    for i in tree_order(db) {
        let a = &db.assocs[i];
        let id = i as u32 + 1;
        if !filter.selects(db, a, id) {
            continue;
        }
        let rec = assoc_record(db, a, id, &tres);
        if !rec.is_null() {
            // SAFETY: a live list made above; it owns the record.
            unsafe { crate::list::append(list, rec as *mut c_void) };
        }
    }
    list
}

/// # Safety
/// `assoc_cond` is NULL or a valid condition.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_associations_get(
    _db_conn: *mut c_void,
    assoc_cond: *mut slurmdb_assoc_cond_t,
) -> List {
    guard("slurmdb_associations_get", std::ptr::null_mut(), || {
        let Some(db) = acct_db() else {
            return std::ptr::null_mut();
        };
        // SAFETY: the caller's contract.
        let filter = unsafe { AssocFilter::of(assoc_cond) };
        assoc_list(&db, &filter)
    })
}

/// # Safety
/// `user_cond` is NULL or a valid condition.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_users_get(
    _db_conn: *mut c_void,
    user_cond: *mut slurmdb_user_cond_t,
) -> List {
    guard("slurmdb_users_get", std::ptr::null_mut(), || {
        let Some(db) = acct_db() else {
            return std::ptr::null_mut();
        };
        // SAFETY: the caller's contract.
        let cond = unsafe { user_cond.as_ref() };
        // SAFETY: the association condition is NULL or valid, its lists hold strings.
        let filter = unsafe { AssocFilter::of(cond.map_or(std::ptr::null(), |c| c.assoc_cond)) };
        // SAFETY: as above.
        let defaults = unsafe {
            cond.map(|c| string_list(c.def_acct_list))
                .unwrap_or_default()
        };
        let admin_level = cond.map_or(0, |c| c.admin_level);
        let with_assocs = cond.is_some_and(|c| c.with_assocs != 0);
        let with_coords = cond.is_some_and(|c| c.with_coords != 0);
        let list = crate::list::create(Some(slurmdb_destroy_user_rec));
        for u in db.users.values() {
            let level: u16 = match u.admin {
                AdminLevel::None => 1,
                AdminLevel::Operator => 2,
                AdminLevel::Administrator => 3,
            };
            // The assoc condition's user list names users; its account list, users with an association there.
            if !passes(&filter.users, &u.name)
                || !passes(&defaults, &u.default_account)
                || (admin_level > 1 && level != admin_level)
                || (!filter.accounts.is_empty()
                    && !db.assocs.iter().any(|a| {
                        a.user.as_deref() == Some(u.name.as_str())
                            && passes(&filter.accounts, &a.account)
                    }))
            {
                continue;
            }
            let rec = c_calloc::<slurmdb_user_rec_t>(1);
            if rec.is_null() {
                continue;
            }
            // SAFETY: a fresh record; every member set is malloc'd and owned by it.
            unsafe {
                let r = &mut *rec;
                r.name = c_string(&u.name);
                r.uid = uid_of(&u.name);
                r.admin_level = level;
                r.default_acct = c_string(&u.default_account);
                if with_assocs {
                    let mine = AssocFilter {
                        users: vec![u.name.clone()],
                        ..AssocFilter::of(std::ptr::null())
                    };
                    let mine = AssocFilter {
                        accounts: filter.accounts.clone(),
                        partitions: filter.partitions.clone(),
                        ..mine
                    };
                    r.assoc_list = assoc_list(&db, &mine);
                }
                if with_coords {
                    // Spur keeps no coordinators.
                    r.coord_accts = crate::list::create(Some(slurmdb_destroy_coord_rec));
                }
                crate::list::append(list, rec as *mut c_void);
            }
        }
        list
    })
}

/// `SELECT_PLUGIN_*` ids slurmdbd records for the select plugin slurmctld runs.
fn select_plugin_id(select_type: Option<&str>) -> u32 {
    match select_type.map(str::to_ascii_lowercase).as_deref() {
        Some("select/linear") => 102,
        Some("select/cons_res") => 101,
        Some("select/cray_aries") => 107,
        _ => 109,
    }
}

/// This cluster's record, as slurmdbd keeps it once slurmctld registered.
fn cluster_record(name: &str) -> *mut slurmdb_cluster_rec_t {
    let rec = c_calloc::<slurmdb_cluster_rec_t>(1);
    if rec.is_null() {
        return rec;
    }
    let conf = client::load_conf();
    let get = |key: &str| {
        conf.as_ref()
            .and_then(|c| c.get_str(key).map(str::to_string))
    };
    // slurmdbd records the address the (first) slurmctld registered from: `SlurmctldHost=name(addr)`'s address.
    let host = conf
        .as_ref()
        .and_then(|c| c.controllers.first().map(|c| c.addr.to_string()))
        .unwrap_or_else(|| "127.0.0.1".to_string());
    let port = conf.as_ref().map_or(6817, |c| c.slurmctld_port().first);
    // SAFETY: a fresh record; init sets the unset markers, then every member set is malloc'd and owned.
    unsafe {
        crate::slurmdb_init::slurmdb_init_cluster_rec(rec, false);
        let r = &mut *rec;
        r.name = c_string(name);
        r.control_host = c_string(&host);
        r.control_port = port;
        r.rpc_version = RPC_VERSION_22_05;
        r.dimensions = 1;
        r.flags = 0;
        r.plugin_id_select = select_plugin_id(get("SelectType").as_deref());
        r.classification = 0;
    }
    rec
}

/// Spur runs one cluster, slurm.conf's `ClusterName`.
///
/// # Safety
/// `cluster_cond` is NULL or a valid condition.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_clusters_get(
    _db_conn: *mut c_void,
    cluster_cond: *mut slurmdb_cluster_cond_t,
) -> List {
    guard("slurmdb_clusters_get", std::ptr::null_mut(), || {
        let Some(db) = acct_db() else {
            return std::ptr::null_mut();
        };
        // SAFETY: the caller's contract; the list holds strings.
        let names = unsafe {
            cluster_cond
                .as_ref()
                .map(|c| string_list(c.cluster_list))
                .unwrap_or_default()
        };
        let list = crate::list::create(Some(slurmdb_destroy_cluster_rec));
        if passes(&names, &db.cluster) {
            let rec = cluster_record(&db.cluster);
            if !rec.is_null() {
                // SAFETY: a live list made above; it owns the record.
                unsafe { crate::list::append(list, rec as *mut c_void) };
            }
        }
        list
    })
}

/// The TRES slurmdbd's table holds for this cluster: type and name (`gres`, `gpu`) by id.
///
/// # Safety
/// `tres_cond` is NULL or a valid condition.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_tres_get(
    _db_conn: *mut c_void,
    tres_cond: *mut slurmdb_tres_cond_t,
) -> List {
    guard("slurmdb_tres_get", std::ptr::null_mut(), || {
        if let Err(e) = client::ping() {
            ffi::set_errno(e.errno);
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract; the lists hold strings.
        let (ids, names, types) = unsafe {
            match tres_cond.as_ref() {
                Some(c) => (
                    string_list(c.id_list),
                    string_list(c.name_list),
                    string_list(c.type_list),
                ),
                None => Default::default(),
            }
        };
        let list = crate::list::create(Some(slurmdb_destroy_tres_rec));
        for (full, id) in tres_ids() {
            let (kind, name) = match full.split_once('/') {
                Some((k, n)) => (k.to_string(), Some(n.to_string())),
                None => (full.clone(), None),
            };
            if !passes(&ids, &id.to_string())
                || !passes(&types, &kind)
                || (!names.is_empty() && !name.as_deref().is_some_and(|n| passes(&names, n)))
            {
                continue;
            }
            let rec = c_calloc::<slurmdb_tres_rec_t>(1);
            if rec.is_null() {
                continue;
            }
            // SAFETY: a fresh record; its strings are malloc'd and owned by it.
            unsafe {
                (*rec).id = id;
                (*rec).type_ = c_string(&kind);
                (*rec).name = c_opt_string(name.as_deref());
                crate::list::append(list, rec as *mut c_void);
            }
        }
        list
    })
}

/// Of the clusters named (comma-separated, `all` for every one; NULL for this one), the first that can run the
/// job: Spur runs one cluster, so its record when it is named, else `SLURM_ERROR`. The record is the caller's
/// (`slurmdb_destroy_cluster_rec`).
///
/// # Safety
/// `cluster_names` is NULL or a C string; `cluster_rec` a valid slot.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_get_first_avail_cluster(
    _req: *mut job_desc_msg_t,
    cluster_names: *mut c_char,
    cluster_rec: *mut *mut slurmdb_cluster_rec_t,
) -> c_int {
    guard("slurmdb_get_first_avail_cluster", ffi::SLURM_ERROR, || {
        if cluster_rec.is_null() {
            ffi::set_errno(libc::EINVAL);
            return ffi::SLURM_ERROR;
        }
        // SAFETY: the caller's contract.
        unsafe { *cluster_rec = std::ptr::null_mut() };
        let Some(db) = acct_db() else {
            return ffi::SLURM_ERROR;
        };
        // SAFETY: the caller's contract.
        let names = unsafe { opt_str(cluster_names) }.map(|s| s.into_owned());
        let named = match names.as_deref() {
            None => true,
            Some(list) => list
                .split(',')
                .map(str::trim)
                .any(|n| n.eq_ignore_ascii_case("all") || n.eq_ignore_ascii_case(&db.cluster)),
        };
        if !named {
            return ffi::SLURM_ERROR;
        }
        let rec = cluster_record(&db.cluster);
        if rec.is_null() {
            ffi::set_errno(libc::ENOMEM);
            return ffi::SLURM_ERROR;
        }
        // SAFETY: the caller's contract.
        unsafe { *cluster_rec = rec };
        ffi::SLURM_SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_flags_and_modes_as_slurmdbd_stores_them() {
        assert_eq!(
            qos_flags(&["DenyOnLimit".into(), "NoReserve".into()]),
            (1 << 6) | (1 << 4)
        );
        assert_eq!(qos_flags(&[]), 0);
        assert_eq!(preempt_mode(Some(PreemptMode::Requeue)), 2);
        assert_eq!(preempt_mode(None), 0);
    }

    #[test]
    fn associations_in_slurmdbd_order() {
        let assoc = |account: &str, user: Option<&str>, parent: Option<&str>| Association {
            account: account.into(),
            user: user.map(Into::into),
            partition: None,
            parent: parent.map(Into::into),
            shares: 1,
            qos: Vec::new(),
            default_qos: None,
            limits: Default::default(),
            qos_given: false,
            default_qos_given: false,
            qos_raw: String::new(),
            delta_qos_raw: String::new(),
        };
        let db = AcctDb {
            assocs: vec![
                assoc("root", None, None),
                assoc("root", Some("root"), None),
                assoc("a", None, Some("root")),
                assoc("a", Some("alice"), None),
                assoc("b", None, Some("a")),
                assoc("a", Some("bob"), None),
            ],
            ..Default::default()
        };
        assert_eq!(tree_order(&db), vec![0, 2, 5, 4, 3, 1]);
        // root [1,12] > a [2,9] > bob [3,4], b [5,6], alice [7,8]; root's user [10,11].
        assert_eq!(
            nested_set(&db),
            vec![(1, 12), (10, 11), (2, 9), (7, 8), (5, 6), (3, 4)]
        );
    }
}
