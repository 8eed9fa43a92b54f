//! Job priorities through the C API: `slurm_load_job_prio` (what sprio reads) from the controller's priority
//! factors, and `slurm_top_job` (`scontrol top`). Under `priority/basic` the controller computes no factors and
//! the list is empty, as slurmctld's is.

use std::ffi::{c_char, c_int, c_void};

use slurm_headers::{priority_factors_object_t, priority_factors_response_msg_t, List};
use spur_core::api::{ControlRequest, Query, QueryReply};
use spur_core::priority::JobFactors;

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

/// One factors object, its TRES arrays parallel (name, weighted factor, weight).
fn factors_object(f: &JobFactors) -> *mut priority_factors_object_t {
    let obj = c_calloc::<priority_factors_object_t>(1);
    if obj.is_null() {
        return obj;
    }
    // SAFETY: fresh zeroed object; the arrays hold tres.len() elements.
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
        o.priority_site = f.site.clamp(0, i64::from(u32::MAX)) as u32;
        // Slurm stores nice offset by NICE_OFFSET (0x80000000), so 0 reads as "no adjustment".
        o.nice = (i64::from(f.nice) + 0x8000_0000) as u32;
        if !f.tres.is_empty() {
            let n = f.tres.len();
            o.tres_cnt = n as u32;
            o.tres_names = c_calloc::<*mut c_char>(n);
            o.priority_tres = c_calloc::<f64>(n);
            o.tres_weights = c_calloc::<f64>(n);
            if !o.tres_names.is_null() && !o.priority_tres.is_null() && !o.tres_weights.is_null() {
                for (i, (name, value, weight)) in f.tres.iter().enumerate() {
                    *o.tres_names.add(i) = c_string(name);
                    *o.priority_tres.add(i) = *value;
                    *o.tres_weights.add(i) = *weight;
                }
            } else {
                o.tres_cnt = 0;
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

fn factors_message(rows: Vec<JobFactors>, filter: &Filter) -> *mut priority_factors_response_msg_t {
    let msg = c_calloc::<priority_factors_response_msg_t>(1);
    if msg.is_null() {
        return msg;
    }
    let list = crate::list::create(Some(free_factors_object));
    for row in rows.iter().filter(|r| filter.keeps(r)) {
        let obj = factors_object(row);
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
            QueryReply::PriorityFactors { jobs, .. } => Ok(jobs),
            _ => Err(CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR)),
        });
        ffi::deliver_message(factors_resp, answer, |rows| factors_message(rows, &filter))
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
        let msg = factors_message(
            vec![row(1, 7, "high"), row(2, 8, "high"), row(3, 7, "low")],
            &filter,
        );
        unsafe {
            let list = (*msg).priority_factors_list;
            assert_eq!(crate::list::slurm_list_count(list), 1);
            let obj = crate::list::slurm_list_pop(list) as *mut priority_factors_object_t;
            assert_eq!((*obj).job_id, 1);
            assert_eq!((*obj).priority_part, 10.0);
            assert_eq!((*obj).nice, 0x8000_0000 - 3);
            assert_eq!((*obj).tres_cnt, 1);
            assert_eq!(*(*obj).tres_weights, 100.0);
            free_factors_object(obj as *mut c_void);
            slurm_free_priority_factors_response_msg(msg);
        }
    }
}
