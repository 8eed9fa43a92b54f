//! Measures a job's steps on this node for `sstat`. The measuring itself is the step supervisors' `jobacct_gather`
//! code ([`spur_stepd::gather`]), so sstat and sacct count processes the same way.

pub use spur_stepd::gather::{job_has_processes, measure};
