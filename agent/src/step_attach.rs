//! `sattach` on a node: the controller's request goes to the step's supervisor here, or to the srun that runs the
//! step itself, which connects to the client; when neither runs here (the step just ended, the batch script),
//! the agent tells the client that no task runs on this node, as slurmd answers a reattach for a step it does
//! not have.

use std::path::Path;

use spur_core::model::step_launch::StepAttach;

pub fn attach(socket: &Path, order: &StepAttach) {
    let (job_id, step_id) = (order.job_id, order.step_id);
    if let Err(e) = spur_stepd::step_attach::request(socket, order) {
        tracing::debug!(job_id, step_id, "no step supervisor to attach to: {e}");
        let Err(e) = spur_stepd::step_attach::request_srun(order) else {
            return;
        };
        tracing::debug!(job_id, step_id, "no srun to attach to: {e}");
        if let Err(e) = spur_stepd::step_attach::report_absent(order) {
            tracing::warn!(job_id, step_id, "cannot reach sattach: {e}");
        }
    }
}
