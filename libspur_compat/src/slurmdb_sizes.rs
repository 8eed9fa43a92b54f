//! `slurmdb_report_job_sizes_grouped_by_account` (`sreport job SizesByAccount`): the jobs of a condition that ran
//! (elapsed > 0), counted and their TRES seconds summed per cluster, per account and per CPU-count range, as
//! libslurm builds it from `slurmdb_jobs_get` and the association tree. Without `flat_view`, a job counts for the
//! first selected account whose association range (`lft`..`rgt`) holds the job's association: with
//! `acct_as_parent`, the accounts directly under those of the condition (under `root` without any); otherwise the
//! condition's accounts, or all. With `flat_view`, jobs count for their own account. Groups that count nothing are
//! left out.

use std::ffi::{c_char, c_void};

use slurm_headers::{
    slurmdb_job_cond_t, slurmdb_job_rec_t, slurmdb_report_acct_grouping_t,
    slurmdb_report_cluster_grouping_t, slurmdb_report_job_grouping_t, slurmdb_tres_rec_t, List,
};

use crate::ffi::{self, c_calloc, c_free, c_string, guard, opt_str, INFINITE, NO_VAL};
use crate::slurmdb_assoc::{nested_set, tree_order, AssocFilter};
use crate::slurmdb_free::{slurmdb_destroy_job_rec, slurmdb_destroy_tres_rec};
use crate::slurmdb_init::{free_lists, free_strings};
use crate::slurmdb_jobs::string_list;

/// `SLURMDB_JOB_FLAG_NOTSET`: the report asks for every job whatever its flags.
const SLURMDB_JOB_FLAG_NOTSET: u32 = 1;
/// The CPU TRES, whose count sizes a job.
const TRES_CPU: u32 = 1;

/// The `id=count` pairs of a TRES string.
fn tres_counts(text: &str) -> Vec<(u32, u64)> {
    text.split(',')
        .filter_map(|p| {
            let (id, n) = p.split_once('=')?;
            Some((id.trim().parse().ok()?, n.trim().parse().ok()?))
        })
        .collect()
}

/// One size range of an account: [min, max], the jobs it holds, their TRES seconds by id (newest TRES first, as
/// libslurm pushes them).
struct Group {
    min: u32,
    max: u32,
    jobs: Vec<*mut slurmdb_job_rec_t>,
    tres: TresTimes,
}

/// TRES seconds: (TRES id, the count of the first job that had it, seconds).
type TresTimes = Vec<(u32, u64, u64)>;

/// One cluster: its name, how many jobs counted, its accounts and TRES seconds.
struct ClusterGroup {
    name: String,
    count: u32,
    accts: Vec<AcctGroup>,
    tres: TresTimes,
}

struct AcctGroup {
    acct: String,
    lft: u32,
    rgt: u32,
    count: u32,
    groups: Vec<Group>,
    tres: TresTimes,
}

/// Adds a job's TRES seconds (count × elapsed) to a list of (id, count, seconds), as
/// `slurmdb_transfer_tres_time` does.
fn add_time(list: &mut TresTimes, tres: &[(u32, u64)], elapsed: u32) {
    if elapsed == 0 {
        return;
    }
    for &(id, count) in tres {
        let secs = count.saturating_mul(u64::from(elapsed));
        match list.iter_mut().find(|t| t.0 == id) {
            Some(t) => t.2 = t.2.saturating_add(secs),
            None => list.insert(0, (id, count, secs)),
        }
    }
}

fn size_groups(sizes: &[u32], individual: bool) -> Vec<Group> {
    let group = |min, max| Group {
        min,
        max,
        jobs: Vec::new(),
        tres: Vec::new(),
    };
    let mut out = Vec::new();
    let mut last = 0u32;
    for &size in sizes {
        if individual {
            out.push(group(size, size));
        } else {
            out.push(group(last, size.wrapping_sub(1)));
        }
        last = size;
    }
    if last != 0 && !individual {
        out.push(group(last, INFINITE));
    }
    out
}

fn tres_list(tres: &[(u32, u64, u64)]) -> List {
    if tres.is_empty() {
        return std::ptr::null_mut();
    }
    let list = crate::list::create(Some(slurmdb_destroy_tres_rec));
    for &(id, count, secs) in tres {
        let rec = c_calloc::<slurmdb_tres_rec_t>(1);
        if rec.is_null() {
            continue;
        }
        // SAFETY: a fresh zeroed record appended to a live list that owns it.
        unsafe {
            (*rec).id = id;
            (*rec).count = count;
            (*rec).alloc_secs = secs;
            crate::list::append(list, rec as *mut c_void);
        }
    }
    list
}

/// # Safety
/// `job_cond` is NULL or a valid condition; `grouping_list` NULL or a list of size strings.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_report_job_sizes_grouped_by_account(
    _db_conn: *mut c_void,
    job_cond: *mut slurmdb_job_cond_t,
    grouping_list: List,
    flat_view: bool,
    acct_as_parent: bool,
) -> List {
    guard(
        "slurmdb_report_job_sizes_grouped_by_account",
        std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            let loaded = unsafe {
                crate::slurmdb_jobs::load_jobs(job_cond, !flat_view, Some(SLURMDB_JOB_FLAG_NOTSET))
            };
            let (jobs, db) = match loaded {
                Ok(answer) => answer,
                Err(errno) => {
                    ffi::log_plain(" Problem with job query.");
                    ffi::set_errno(errno);
                    return std::ptr::null_mut();
                }
            };
            // SAFETY: every record is live and owned here until placed in a group or freed below.
            let info: Vec<(u32, u64, String, String)> = jobs
                .iter()
                .map(|&j| unsafe {
                    let cpus = tres_counts(&opt_str((*j).tres_alloc_str).unwrap_or_default())
                        .iter()
                        .find(|t| t.0 == TRES_CPU)
                        .map_or(u64::MAX, |t| t.1);
                    (
                        (*j).elapsed,
                        cpus,
                        opt_str((*j).cluster)
                            .map(|c| c.into_owned())
                            .unwrap_or_else(|| "UNKNOWN".into()),
                        opt_str((*j).account)
                            .map(|c| c.into_owned())
                            .unwrap_or_default(),
                    )
                })
                .collect();
            // SAFETY: the caller's contract: a list of strings or NULL.
            let given = unsafe { (!grouping_list.is_null()).then(|| string_list(grouping_list)) };
            let (mut sizes, individual): (Vec<u32>, bool) = match given {
                None => (vec![50, 250, 500, 1000], false),
                Some(list) if list.is_empty() => {
                    let mut sizes: Vec<u32> = info
                        .iter()
                        .filter(|i| i.0 != 0 && i.1 != u64::MAX)
                        .map(|i| u32::try_from(i.1).unwrap_or(u32::MAX))
                        .collect();
                    sizes.sort_unstable();
                    sizes.dedup();
                    (sizes, true)
                }
                // atoi: a size that is no number counts as 0.
                Some(list) => (
                    list.iter().map(|s| s.trim().parse().unwrap_or(0)).collect(),
                    false,
                ),
            };
            if individual {
                sizes.sort_unstable();
            }

            let sets = nested_set(&db);
            let mut clusters: Vec<ClusterGroup> = Vec::new();
            if !flat_view {
                // SAFETY: the caller's contract.
                let cond = unsafe { job_cond.as_ref() };
                // SAFETY: as above: lists of strings.
                let (ids, cluster_names, accounts) = unsafe {
                    cond.map(|c| {
                        (
                            string_list(c.associd_list),
                            string_list(c.cluster_list),
                            string_list(c.acct_list),
                        )
                    })
                    .unwrap_or_default()
                };
                // SAFETY: NULL is a valid (empty) condition.
                let mut filter = unsafe { AssocFilter::of(std::ptr::null()) };
                filter.ids = ids;
                filter.clusters = cluster_names;
                if acct_as_parent {
                    filter.parents = if accounts.is_empty() {
                        vec!["root".into()]
                    } else {
                        accounts
                    };
                } else {
                    filter.accounts = accounts;
                }
                for i in tree_order(&db) {
                    let a = &db.assocs[i];
                    if !filter.selects(&db, a, i as u32 + 1) {
                        continue;
                    }
                    let at = match clusters.iter().position(|c| c.name == db.cluster) {
                        Some(at) => at,
                        None => {
                            clusters.push(ClusterGroup {
                                name: db.cluster.clone(),
                                count: 0,
                                accts: Vec::new(),
                                tres: Vec::new(),
                            });
                            clusters.len() - 1
                        }
                    };
                    if !clusters[at].accts.iter().any(|g| g.acct == a.account) {
                        clusters[at].accts.push(AcctGroup {
                            acct: a.account.clone(),
                            lft: sets[i].0,
                            rgt: sets[i].1,
                            count: 0,
                            groups: size_groups(&sizes, individual),
                            tres: Vec::new(),
                        });
                    }
                }
            }

            let mut unplaced = Vec::new();
            for (&job, (elapsed, cpus, cluster, account)) in jobs.iter().zip(&info) {
                if *elapsed == 0 {
                    unplaced.push(job);
                    continue;
                }
                // SAFETY: a live record.
                let (associd, tres) = unsafe {
                    (
                        (*job).associd,
                        tres_counts(&opt_str((*job).tres_alloc_str).unwrap_or_default()),
                    )
                };
                let job_lft = associd
                    .checked_sub(1)
                    .and_then(|i| sets.get(i as usize))
                    .map_or(NO_VAL, |s| s.0);
                let at = match clusters.iter().position(|c| c.name == *cluster) {
                    Some(at) => at,
                    None if flat_view => {
                        clusters.push(ClusterGroup {
                            name: cluster.clone(),
                            count: 0,
                            accts: Vec::new(),
                            tres: Vec::new(),
                        });
                        clusters.len() - 1
                    }
                    None => {
                        unplaced.push(job);
                        continue;
                    }
                };
                let c = &mut clusters[at];
                let found = c.accts.iter().position(|g| {
                    if !flat_view && g.lft != NO_VAL && job_lft != NO_VAL {
                        job_lft > g.lft && job_lft < g.rgt
                    } else {
                        g.acct == *account
                    }
                });
                let g = match found {
                    Some(g) => g,
                    None if flat_view => {
                        c.accts.push(AcctGroup {
                            acct: account.clone(),
                            lft: 0,
                            rgt: 0,
                            count: 0,
                            groups: size_groups(&sizes, individual),
                            tres: Vec::new(),
                        });
                        c.accts.len() - 1
                    }
                    None => {
                        unplaced.push(job);
                        continue;
                    }
                };
                let acct = &mut c.accts[g];
                let size = (*cpus != u64::MAX).then_some(*cpus);
                match size.and_then(|n| {
                    acct.groups
                        .iter()
                        .position(|r| n >= u64::from(r.min) && n <= u64::from(r.max))
                }) {
                    Some(r) => {
                        let group = &mut acct.groups[r];
                        group.jobs.push(job);
                        add_time(&mut group.tres, &tres, *elapsed);
                        acct.count += 1;
                        add_time(&mut acct.tres, &tres, *elapsed);
                        c.count += 1;
                        add_time(&mut c.tres, &tres, *elapsed);
                    }
                    None => unplaced.push(job),
                }
            }
            for job in unplaced {
                // SAFETY: a record no group holds.
                unsafe { slurmdb_destroy_job_rec(job as *mut c_void) };
            }

            let list = crate::list::create(Some(slurmdb_destroy_report_cluster_grouping));
            for ClusterGroup {
                name,
                count,
                accts,
                tres,
            } in clusters
            {
                if count == 0 {
                    // Their groups hold no jobs.
                    continue;
                }
                let cg = c_calloc::<slurmdb_report_cluster_grouping_t>(1);
                if cg.is_null() {
                    continue;
                }
                let acct_list = crate::list::create(Some(slurmdb_destroy_report_acct_grouping));
                for a in accts.into_iter().filter(|a| a.count > 0) {
                    let ag = c_calloc::<slurmdb_report_acct_grouping_t>(1);
                    if ag.is_null() {
                        continue;
                    }
                    let groups = crate::list::create(Some(slurmdb_destroy_report_job_grouping));
                    for g in a.groups {
                        let jg = c_calloc::<slurmdb_report_job_grouping_t>(1);
                        if jg.is_null() {
                            continue;
                        }
                        // The group owns its jobs (each job is in one group), so freeing the report frees them.
                        let jobs = crate::list::create(Some(slurmdb_destroy_job_rec));
                        // SAFETY: fresh records and live lists; each takes ownership of what is appended.
                        unsafe {
                            (*jg).count = g.jobs.len() as u32;
                            for job in g.jobs {
                                crate::list::append(jobs, job as *mut c_void);
                            }
                            (*jg).jobs = jobs;
                            (*jg).min_size = g.min;
                            (*jg).max_size = g.max;
                            (*jg).tres_list = tres_list(&g.tres);
                            crate::list::append(groups, jg as *mut c_void);
                        }
                    }
                    // SAFETY: as above.
                    unsafe {
                        (*ag).acct = c_string(&a.acct);
                        (*ag).count = a.count;
                        (*ag).groups = groups;
                        (*ag).lft = a.lft;
                        (*ag).rgt = a.rgt;
                        (*ag).tres_list = tres_list(&a.tres);
                        crate::list::append(acct_list, ag as *mut c_void);
                    }
                }
                // SAFETY: as above.
                unsafe {
                    (*cg).cluster = c_string(&name);
                    (*cg).count = count;
                    (*cg).acct_list = acct_list;
                    (*cg).tres_list = tres_list(&tres);
                    crate::list::append(list, cg as *mut c_void);
                }
            }
            list
        },
    )
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_report_job_grouping_t` whose lists are live or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_report_job_grouping(object: *mut c_void) {
    guard("slurmdb_destroy_report_job_grouping", (), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { (object as *mut slurmdb_report_job_grouping_t).as_mut() } {
            // SAFETY: the record's own lists, then the record.
            unsafe {
                free_lists(&mut [&mut r.jobs, &mut r.tres_list]);
                c_free(object);
            }
        }
    })
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_report_acct_grouping_t` whose members are live or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_report_acct_grouping(object: *mut c_void) {
    guard("slurmdb_destroy_report_acct_grouping", (), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { (object as *mut slurmdb_report_acct_grouping_t).as_mut() } {
            // SAFETY: the record's own members, then the record.
            unsafe {
                free_strings(&mut [&mut r.acct as &mut *mut c_char]);
                free_lists(&mut [&mut r.groups, &mut r.tres_list]);
                c_free(object);
            }
        }
    })
}

/// # Safety
/// `object` is NULL or a malloc'd `slurmdb_report_cluster_grouping_t` whose members are live or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_destroy_report_cluster_grouping(object: *mut c_void) {
    guard("slurmdb_destroy_report_cluster_grouping", (), || {
        // SAFETY: the caller's contract.
        if let Some(r) = unsafe { (object as *mut slurmdb_report_cluster_grouping_t).as_mut() } {
            // SAFETY: the record's own members, then the record.
            unsafe {
                free_strings(&mut [&mut r.cluster]);
                free_lists(&mut [&mut r.acct_list, &mut r.tres_list]);
                c_free(object);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_ranges_as_libslurm_makes_them() {
        let ranges = |sizes: &[u32], individual| {
            size_groups(sizes, individual)
                .iter()
                .map(|g| (g.min, g.max))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ranges(&[50, 250], false),
            vec![(0, 49), (50, 249), (250, INFINITE)]
        );
        assert_eq!(ranges(&[1, 4], true), vec![(1, 1), (4, 4)]);
        assert_eq!(ranges(&[], false), vec![]);
    }

    #[test]
    fn tres_seconds_add_up_newest_tres_first() {
        let mut list = Vec::new();
        add_time(&mut list, &[(1, 2), (2, 100)], 10);
        add_time(&mut list, &[(1, 2), (4, 1)], 5);
        add_time(&mut list, &[(1, 8)], 0);
        assert_eq!(list, vec![(4, 1, 5), (2, 100, 1000), (1, 2, 30)]);
    }
}
