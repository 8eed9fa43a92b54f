//! Job priorities through the C API: `slurm_load_job_prio` (what sprio reads) from the controller's priority
//! factors, and `slurm_top_job` (`scontrol top`). Under `priority/basic` the controller computes no factors and
//! the list is empty, as slurmctld's is.

use std::ffi::{c_char, c_int, c_void};

use slurm_headers::{priority_factors_object_t, priority_factors_response_msg_t, List};
use spur_core::policy::priority::JobFactors;
use spur_core::wire::api::{ControlRequest, Query, QueryReply};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc, c_free, c_string, guard, opt_str};

/// The filters `slurm_load_job_prio` takes: job ids and user ids (lists of `uint32_t *`), partition names.
#[derive(Default)]
struct Filter {
    jobs: Option<Vec<u32>>,
    users: Option<Vec<u32>>,
    partitions: Option<Vec<String>>,
}

impl Filter {
    fn keeps(&self, f: &JobFactors) -> bool {
        self.jobs.as_ref().is_none_or(|ids| ids.contains(&f.job_id))
            && self
                .users
                .as_ref()
                .is_none_or(|ids| ids.contains(&f.user_id))
            && self
                .partitions
                .as_ref()
                .is_none_or(|names| names.contains(&f.partition))
    }
}

/// The `uint32_t` items of a caller's list; NULL or an empty list filters nothing.
///
/// # Safety
/// `l` is NULL or a live list whose items point to `uint32_t`.
unsafe fn u32_items(l: List) -> Option<Vec<u32>> {
    if l.is_null() {
        return None;
    }
    let mut out = Vec::new();
    // SAFETY: the caller's contract.
    unsafe {
        crate::list::for_each(l, |item| {
            if !item.is_null() {
                out.push(*(item as *const u32));
            }
        })
    };
    (!out.is_empty()).then_some(out)
}

/// `NICE_OFFSET`: slurmctld stores nice and site factors offset by it, so 0 reads as "no adjustment".
const NICE_OFFSET: i64 = 0x8000_0000;

/// The TRES part of a factors object: one slot per TRES of the cluster (`tres_names`), each with its weighted
/// factor and its `PriorityWeightTRES` weight (0 for TRES without one), as slurmctld packs them.
pub struct TresColumns {
    pub names: Vec<String>,
    pub weights: Vec<f64>,
}

impl TresColumns {
    pub fn new(names: Vec<String>, weights: &[(String, f64)]) -> Self {
        let weights = names
            .iter()
            .map(|n| {
                weights
                    .iter()
                    .find(|(w, _)| w.eq_ignore_ascii_case(n))
                    .map_or(0.0, |(_, v)| *v)
            })
            .collect();
        TresColumns { names, weights }
    }

    /// The job's weighted factor for each TRES column.
    pub fn factors(&self, f: &JobFactors) -> Vec<f64> {
        self.names
            .iter()
            .map(|n| {
                f.tres
                    .iter()
                    .find(|(t, _, _)| t.eq_ignore_ascii_case(n))
                    .map_or(0.0, |(_, v, _)| *v)
            })
            .collect()
    }
}

/// One factors object, its TRES arrays parallel to `tres.names`.
fn factors_object(f: &JobFactors, tres: &TresColumns) -> *mut priority_factors_object_t {
    let obj = c_calloc::<priority_factors_object_t>(1);
    if obj.is_null() {
        return obj;
    }
    let n = tres.names.len();
    // SAFETY: fresh zeroed object; the arrays hold n elements.
    unsafe {
        let o = &mut *obj;
        o.job_id = f.job_id;
        o.user_id = f.user_id;
        o.partition = c_string(&f.partition);
        o.priority_age = f.age;
        o.priority_assoc = f.assoc;
        o.priority_fs = f.fairshare;
        o.priority_js = f.job_size;
        o.priority_part = f.partition_factor;
        o.priority_qos = f.qos;
        o.direct_prio = f.direct_priority.map_or(0.0, f64::from);
        o.priority_site = (f.site + NICE_OFFSET).clamp(0, i64::from(u32::MAX)) as u32;
        o.nice = (i64::from(f.nice) + NICE_OFFSET).clamp(0, i64::from(u32::MAX)) as u32;
        if n > 0 {
            o.tres_names = c_calloc::<*mut c_char>(n);
            o.priority_tres = c_calloc::<f64>(n);
            o.tres_weights = c_calloc::<f64>(n);
            if !o.tres_names.is_null() && !o.priority_tres.is_null() && !o.tres_weights.is_null() {
                o.tres_cnt = n as u32;
                for (i, value) in tres.factors(f).into_iter().enumerate() {
                    *o.tres_names.add(i) = c_string(&tres.names[i]);
                    *o.priority_tres.add(i) = value;
                    *o.tres_weights.add(i) = tres.weights[i];
                }
            }
        }
    }
    obj
}

/// The list's destructor for factors objects.
unsafe extern "C" fn free_factors_object(item: *mut c_void) {
    let obj = item as *mut priority_factors_object_t;
    if obj.is_null() {
        return;
    }
    // SAFETY: `obj` came from `factors_object`.
    unsafe {
        let o = &mut *obj;
        c_free(o.cluster_name);
        c_free(o.partition);
        if !o.tres_names.is_null() {
            for i in 0..o.tres_cnt as usize {
                c_free(*o.tres_names.add(i));
            }
        }
        c_free(o.tres_names);
        c_free(o.priority_tres);
        c_free(o.tres_weights);
        c_free(obj);
    }
}

fn factors_message(
    rows: Vec<JobFactors>,
    tres: &TresColumns,
    filter: &Filter,
) -> *mut priority_factors_response_msg_t {
    let msg = c_calloc::<priority_factors_response_msg_t>(1);
    if msg.is_null() {
        return msg;
    }
    let list = crate::list::create(Some(free_factors_object));
    for row in rows.iter().filter(|r| filter.keeps(r)) {
        let obj = factors_object(row, tres);
        if !obj.is_null() {
            // SAFETY: a live list we just made.
            unsafe { crate::list::append(list, obj as *mut c_void) };
        }
    }
    // SAFETY: fresh zeroed message.
    unsafe { (*msg).priority_factors_list = list };
    msg
}

/// # Safety
/// `factors_resp` is a valid slot; `job_id_list`/`uid_list` NULL or lists of `uint32_t *`; `partitions` NULL or a
/// comma-separated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_job_prio(
    factors_resp: *mut *mut priority_factors_response_msg_t,
    job_id_list: List,
    partitions: *mut c_char,
    uid_list: List,
    _show_flags: u16,
) -> c_int {
    guard("slurm_load_job_prio", ffi::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let filter = unsafe {
            Filter {
                jobs: u32_items(job_id_list),
                users: u32_items(uid_list),
                partitions: opt_str(partitions).map(|p| {
                    p.split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                }),
            }
        };
        let answer = client::query(&Query::PriorityFactors).and_then(|reply| match reply {
            QueryReply::PriorityFactors { jobs, weights, .. } => Ok((jobs, weights)),
            _ => Err(CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR)),
        });
        ffi::deliver_message(factors_resp, answer, |(rows, weights)| {
            let conf = client::load_conf();
            let names = crate::accounting::tres_names(
                conf.as_ref()
                    .and_then(|c| c.get_str("AccountingStorageTRES")),
            );
            let tres = TresColumns::new(names, weights.as_ref().map_or(&[], |w| &w.tres));
            factors_message(rows, &tres, &filter)
        })
    })
}

/// # Safety
/// `factors_resp` is NULL or a message from `slurm_load_job_prio`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_priority_factors_response_msg(
    factors_resp: *mut priority_factors_response_msg_t,
) {
    guard("slurm_free_priority_factors_response_msg", (), || {
        if factors_resp.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let list = (*factors_resp).priority_factors_list;
            if !list.is_null() {
                crate::list::slurm_list_destroy(list);
            }
            c_free(factors_resp);
        }
    })
}

/// `scontrol top`: libslurm returns the controller's error code itself (and sets errno to it).
///
/// # Safety
/// `job_id_str` is NULL or a NUL-terminated job list.
#[no_mangle]
pub unsafe extern "C" fn slurm_top_job(job_id_str: *mut c_char) -> c_int {
    guard("slurm_top_job", ffi::SLURM_ERROR, || {
        // SAFETY: the caller's contract.
        let job_list = unsafe { opt_str(job_id_str) }
            .map(|s| s.into_owned())
            .unwrap_or_default();
        match client::control(&ControlRequest::Top { job_list }) {
            Ok(()) => ffi::SLURM_SUCCESS,
            Err(e) => {
                ffi::set_errno(e.errno);
                e.errno
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(job_id: u32, user_id: u32, partition: &str) -> JobFactors {
        JobFactors {
            job_id,
            user_id,
            partition: partition.to_string(),
            age: 0.0,
            assoc: 0.0,
            fairshare: 0.0,
            job_size: 5.0,
            partition_factor: 10.0,
            qos: 0.0,
            site: 0,
            nice: -3,
            tres: vec![("cpu".to_string(), 2.0, 100.0)],
            direct_priority: None,
        }
    }

    #[test]
    fn filters_and_objects() {
        let filter = Filter {
            jobs: None,
            users: Some(vec![7]),
            partitions: Some(vec!["high".to_string()]),
        };
        let tres = TresColumns::new(
            crate::accounting::tres_names(None),
            &[("CPU".to_string(), 100.0), ("Node".to_string(), 50.0)],
        );
        let msg = factors_message(
            vec![row(1, 7, "high"), row(2, 8, "high"), row(3, 7, "low")],
            &tres,
            &filter,
        );
        // SAFETY: `msg` is the message factors_message just built; its list holds the one row the filter kept, with the TRES arrays of `tres`'s length, and everything is freed once at the end.
        unsafe {
            let list = (*msg).priority_factors_list;
            assert_eq!(crate::list::slurm_list_count(list), 1);
            let obj = crate::list::slurm_list_pop(list) as *mut priority_factors_object_t;
            assert_eq!((*obj).job_id, 1);
            assert_eq!((*obj).priority_part, 10.0);
            assert_eq!((*obj).nice, 0x8000_0000 - 3);
            assert_eq!((*obj).priority_site, 0x8000_0000);
            assert_eq!((*obj).tres_cnt, 8);
            assert_eq!(*(*obj).priority_tres, 2.0);
            assert_eq!(*(*obj).tres_weights, 100.0);
            assert_eq!(*(*obj).tres_weights.add(3), 50.0);
            assert_eq!(*(*obj).priority_tres.add(3), 0.0);
            free_factors_object(obj as *mut c_void);
            slurm_free_priority_factors_response_msg(msg);
        }
    }
}
