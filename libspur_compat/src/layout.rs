//! `slurm_job_step_layout_get`: which tasks of a running step run on which node. Spur records a step's nodes and
//! task count but not a distribution, so tasks are laid out as srun's default block distribution places them
//! (consecutive task ids per node, the first nodes taking the remainder); the batch step is one task on the
//! batch host, as slurmctld reports it.

use std::ffi::c_void;

use slurm_headers::{slurm_selected_step_t, slurm_step_id_t, slurm_step_layout_t};
use spur_core::format::steps::StepView;
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::SlurmErrno;

use crate::client::CallError;
use crate::ffi::{c_calloc, c_free, c_string, guard};
use crate::steps::selected_steps;

/// `SLURM_DIST_BLOCK`.
const SLURM_DIST_BLOCK: u32 = 0x2;
/// `SLURM_PROTOCOL_VERSION` of 22.05 (`SLURM_22_05_PROTOCOL_VERSION`): srun steps report it.
const SLURM_22_05_PROTOCOL_VERSION: u16 = 38 << 8;

/// The layout of a step in plain terms: node names and each node's task ids.
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    pub nodes: Vec<String>,
    pub node_list: String,
    pub tids: Vec<Vec<u32>>,
    pub task_dist: u32,
    pub protocol: u16,
}

/// Block distribution of `tasks` over `nodes`: node i gets an equal share, the first `tasks % nodes` one more.
pub fn block(tasks: u32, nodes: usize) -> Vec<Vec<u32>> {
    if nodes == 0 {
        return Vec::new();
    }
    let n = nodes as u32;
    let (base, extra) = (tasks / n, tasks % n);
    let mut next = 0;
    (0..n)
        .map(|i| {
            let count = base + u32::from(i < extra);
            let ids = (next..next + count).collect();
            next += count;
            ids
        })
        .collect()
}

pub fn layout_of(step: &StepView<'_>) -> Layout {
    let mut nodes = spur_core::grammar::hostlist::expand(&step.node_list).unwrap_or_default();
    if step.step_id.is_none() {
        nodes.truncate(1);
        return Layout {
            node_list: nodes.first().cloned().unwrap_or_default(),
            tids: vec![vec![0]; nodes.len()],
            nodes,
            task_dist: 0,
            protocol: 0,
        };
    }
    Layout {
        node_list: step.node_list.to_string(),
        tids: block(step.num_tasks, nodes.len()),
        nodes,
        task_dist: SLURM_DIST_BLOCK,
        protocol: SLURM_22_05_PROTOCOL_VERSION,
    }
}

fn c_layout(l: &Layout) -> *mut slurm_step_layout_t {
    let out = c_calloc::<slurm_step_layout_t>(1);
    let tasks = c_calloc::<u16>(l.tids.len());
    let tids = c_calloc::<*mut u32>(l.tids.len());
    if out.is_null() || tasks.is_null() || tids.is_null() {
        // SAFETY: fresh allocations or NULL.
        unsafe {
            c_free(out);
            c_free(tasks);
            c_free(tids);
        }
        return std::ptr::null_mut();
    }
    // SAFETY: fresh zeroed layout; `tasks` and `tids` hold l.tids.len() elements, each id array its node's ids.
    unsafe {
        for (i, ids) in l.tids.iter().enumerate() {
            *tasks.add(i) = ids.len() as u16;
            let arr = c_calloc::<u32>(ids.len());
            if !arr.is_null() {
                std::ptr::copy_nonoverlapping(ids.as_ptr(), arr, ids.len());
            }
            *tids.add(i) = arr;
        }
        let o = &mut *out;
        o.node_cnt = l.tids.len() as u32;
        o.node_list = c_string(&l.node_list);
        o.start_protocol_ver = l.protocol;
        o.tasks = tasks;
        o.task_cnt = l.tids.iter().map(|t| t.len() as u32).sum();
        o.task_dist = l.task_dist;
        o.tids = tids;
    }
    out
}

/// NULL with errno `ESLURM_JOB_PENDING` for a pending job and `ESLURM_INVALID_JOB_ID` for an unknown job or step,
/// as libslurm answers.
///
/// # Safety
/// `step_id` is NULL or a valid step id.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_layout_get(
    step_id: *mut slurm_step_id_t,
) -> *mut slurm_step_layout_t {
    guard("slurm_job_step_layout_get", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let Some(id) = (unsafe { step_id.as_ref() }) else {
            CallError::new(libc::EINVAL).fail();
            return std::ptr::null_mut();
        };
        let jobs = match crate::client::job_list(spur_core::wire::api::JobListing::job(id.job_id)) {
            Ok(list) => list.jobs,
            Err(e) => {
                e.fail();
                return std::ptr::null_mut();
            }
        };
        if jobs.is_empty() {
            CallError::new(SlurmErrno::InvalidJobId.code()).fail();
            return std::ptr::null_mut();
        }
        match selected_steps(&jobs, id.job_id, id.step_id).first() {
            Some(step) => c_layout(&layout_of(step)),
            None => {
                let pending = jobs.iter().all(|j| j.state == JobBaseState::Pending);
                let errno = if pending {
                    SlurmErrno::JobPending
                } else {
                    SlurmErrno::InvalidJobId
                };
                CallError::new(errno.code()).fail();
                std::ptr::null_mut()
            }
        }
    })
}

/// # Safety
/// `layout` is NULL or a layout from `slurm_job_step_layout_get`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_step_layout_free(layout: *mut slurm_step_layout_t) {
    guard("slurm_job_step_layout_free", (), || {
        if layout.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let l = &mut *layout;
            if !l.tids.is_null() {
                for i in 0..l.node_cnt as usize {
                    c_free(*l.tids.add(i));
                }
            }
            c_free(l.tids);
            c_free(l.tasks);
            c_free(l.node_list);
            c_free(l.front_end);
            c_free(layout);
        }
    })
}

/// Frees a `slurm_selected_step_t` (the items of the step lists scancel and squeue build); it owns no memory
/// besides itself.
///
/// # Safety
/// `object` is NULL or a malloc'd `slurm_selected_step_t`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_destroy_selected_step(object: *mut c_void) {
    guard("slurm_destroy_selected_step", (), || {
        // SAFETY: the caller's contract.
        unsafe { c_free(object as *mut slurm_selected_step_t) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_distribution() {
        assert_eq!(block(2, 1), vec![vec![0, 1]]);
        assert_eq!(block(5, 2), vec![vec![0, 1, 2], vec![3, 4]]);
        assert_eq!(block(2, 3), vec![vec![0], vec![1], vec![]]);
        assert!(block(4, 0).is_empty());
    }

    #[test]
    fn c_layout_round_trip() {
        let l = Layout {
            nodes: vec!["n1".into(), "n2".into()],
            node_list: "n[1-2]".into(),
            tids: block(3, 2),
            task_dist: SLURM_DIST_BLOCK,
            protocol: SLURM_22_05_PROTOCOL_VERSION,
        };
        let c = c_layout(&l);
        // SAFETY: `c` is the layout c_layout just built from `l` (2 nodes, 3 tasks), so the indexed arrays hold those entries; it is freed once, here.
        unsafe {
            assert_eq!((*c).node_cnt, 2);
            assert_eq!((*c).task_cnt, 3);
            assert_eq!(*(*c).tasks.add(1), 1);
            assert_eq!(*(*(*c).tids.add(1)), 2);
            assert_eq!((*c).start_protocol_ver, 9728);
            slurm_job_step_layout_free(c);
        }
    }
}
