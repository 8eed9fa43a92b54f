//! The node index arrays of `job_info_t` (`node_inx`, `exc_node_inx`, `req_node_inx`): pairs of first/last
//! indexes into the node table, -1 terminated. libslurm always fills all three (a lone -1 when the job has no
//! such nodes), and programs rely on it: Debian's Perl API walks each array without a NULL check, so a NULL here
//! crashes `load_jobs` in Perl and the Torque wrappers' `qstat` on it.

use slurm_headers::job_info_t;
use spur_core::grammar::hostlist;
use spur_core::model::job::JobRecord;
use spur_core::model::records::NodeRecord;

use crate::ffi::c_free;
use crate::partitions::node_index;

/// Fills the three arrays of `array[i]` from `jobs[i]`. The node table is fetched only when some job names nodes;
/// if that fetch fails the arrays are left empty (-1) rather than failing a load that otherwise succeeded.
///
/// # Safety
/// `array` points to `jobs.len()` records whose three arrays are unset (NULL).
pub unsafe fn fill(array: *mut job_info_t, jobs: &[JobRecord]) {
    let names_nodes = jobs.iter().any(|j| {
        j.alloc.as_ref().is_some_and(|a| !a.node_names.is_empty())
            || j.spec.excluded_nodes.is_some()
            || j.spec.required_nodes.is_some()
    });
    let nodes: Vec<NodeRecord> = if names_nodes {
        crate::nodes::fetch_nodes()
            .map(|(n, _)| n)
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    for (i, job) in jobs.iter().enumerate() {
        let alloc: Vec<String> = job
            .alloc
            .as_ref()
            .map(|a| a.node_names.clone())
            .unwrap_or_default();
        let excluded = expand(job.spec.excluded_nodes.as_deref());
        let required = expand(job.spec.required_nodes.as_deref());
        // SAFETY: the caller's contract: `i` is within the array.
        let out = unsafe { &mut *array.add(i) };
        out.node_inx = node_index(&nodes, |n| alloc.iter().any(|a| a == n));
        out.exc_node_inx = node_index(&nodes, |n| excluded.iter().any(|a| a == n));
        out.req_node_inx = node_index(&nodes, |n| required.iter().any(|a| a == n));
    }
}

/// A hostlist expression's names; an expression that does not parse names no node of the table.
fn expand(expr: Option<&str>) -> Vec<String> {
    expr.and_then(|e| hostlist::expand(e).ok())
        .unwrap_or_default()
}

/// Frees the three arrays of a record.
///
/// # Safety
/// Each array is NULL or was made by [`fill`] and not freed yet.
pub unsafe fn free(j: &mut job_info_t) {
    // SAFETY: the caller's contract.
    unsafe {
        c_free(j.node_inx);
        c_free(j.exc_node_inx);
        c_free(j.req_node_inx);
    }
}
