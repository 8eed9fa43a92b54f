//! spurd carries out the node state machine's decisions (crate::machine): each effect becomes a supervisor
//! started, a request to one, a spool file written or removed, a script run or a reply queued for the controller.
//! The simulator performs the same effects on simulated jobs instead (crate::sim::node).

use std::sync::Arc;

use tokio::sync::mpsc;

use spur_core::wire::agent_proto::{AgentToController, ControllerToAgent};
use spur_core::wire::pb;
use spur_core::wire::supervisor::Outcome;

use crate::error::SessionError;
use crate::in_flight::InFlightLaunches;
use crate::machine::{Effect, NodeMachine, NodeView};
use crate::session::{envelope, launch_job, write_failed_result, Agent};
use crate::users;

/// Carries out one (proved and permitted) controller message: the machine decides, and its effects are
/// performed here with supervisors and the spool.
pub(crate) async fn carry_out(
    agent: &Arc<Agent>,
    machine: &NodeMachine,
    message: ControllerToAgent,
    outbox: &mpsc::Sender<pb::ApiRequest>,
    launches: &mut InFlightLaunches,
) -> Result<(), SessionError> {
    // A terminate may cancel a launch waiting for an earlier run, which may have stopped waiting since it was
    // looked at; then the terminate is decided again against what the node holds now.
    let mut again = match &message {
        ControllerToAgent::Terminate { .. } => Some(message.clone()),
        _ => None,
    };
    let mut effects = machine.handle(message, &SpoolView(agent))?;
    while !effects.is_empty() {
        let mut redo = Vec::new();
        for effect in effects {
            match effect {
                Effect::CancelWaitingRun { job_id, run } => {
                    if !agent.deferred.cancel(job_id, run) {
                        if let Some(message) = again.take() {
                            redo = machine.handle(message, &SpoolView(agent))?;
                        }
                    }
                }
                effect => perform(agent, effect, outbox, launches).await?,
            }
        }
        effects = redo;
    }
    Ok(())
}

/// What the machine sees of spurd's node: its spool (and the launches waiting for an earlier run).
pub(crate) struct SpoolView<'a>(pub(crate) &'a Agent);

impl NodeView for SpoolView<'_> {
    fn run_of(&self, job_id: u32) -> Option<u32> {
        self.0.spool.run_of(job_id)
    }

    fn holds(&self, job_id: u32) -> bool {
        self.0.spool.job_dir(job_id).exists()
    }

    fn alive(&self, job_id: u32) -> bool {
        spur_stepd::is_alive(&self.0.spool.job_dir(job_id))
    }

    fn waiting_run(&self, job_id: u32) -> Option<u32> {
        self.0.deferred.waiting_run(job_id)
    }
}

/// One effect of the machine, carried out on this node.
async fn perform(
    agent: &Arc<Agent>,
    effect: Effect,
    outbox: &mpsc::Sender<pb::ApiRequest>,
    launches: &mut InFlightLaunches,
) -> Result<(), SessionError> {
    match effect {
        Effect::Registered { node } => {
            tracing::info!(node, "registered with the controller")
        }
        Effect::StartJob { job, context } => {
            let worker = agent.clone();
            launches.start(job.job_id, async move {
                launch_job(&worker, job, *context).await
            });
        }
        Effect::StartAfterEarlierRun { job, context } => {
            crate::runs::defer_launch(agent.clone(), job, *context);
        }
        Effect::Signal {
            job_id,
            signal,
            scope,
            step_pids,
        } => {
            let agent = agent.clone();
            tokio::task::spawn_blocking(move || {
                agent.spool.signal(job_id, signal, scope, &step_pids)
            })
            .await?;
        }
        Effect::SignalSteps {
            job_id,
            step_ids,
            signal,
        } => {
            let agent = agent.clone();
            tokio::task::spawn_blocking(move || {
                agent.spool.signal_step_tasks(job_id, &step_ids, signal)
            })
            .await?;
        }
        Effect::CancelWaitingRun { job_id, run } => {
            agent.deferred.cancel(job_id, run);
        }
        Effect::RetireOlderRun { job_id, run } => {
            agent.spool.retire_older_run(job_id, run);
        }
        Effect::EndAfterEarlierRun {
            job_id,
            run,
            kill_wait_secs,
        } => crate::runs::answer_after_earlier_run(agent.clone(), job_id, run, kill_wait_secs),
        Effect::ReportNeverLaunched { job_id, run } => {
            write_failed_result(&agent.spool, job_id, Outcome::Failed, Some(9), run);
        }
        Effect::Terminate { job_id, reason, at } => {
            let agent = agent.clone();
            tokio::task::spawn_blocking(move || agent.spool.terminate(job_id, reason, at)).await?;
        }
        Effect::StartStep {
            launch,
            job,
            context,
        } => {
            let worker = agent.clone();
            let (job_id, step_id) = (launch.job_id, launch.step_id);
            let started = tokio::task::spawn_blocking(move || {
                let user = users::lookup(launch.uid, launch.gid).map_err(|e| e.to_string())?;
                // The node's prolog before the job's first step here; if it fails, the step's supervisor still
                // starts, to tell srun that this node's tasks cannot run.
                let refused = match (&job, &context) {
                    (Some(job), Some(context)) => {
                        worker.spool.prolog_before_step(job, context, &user).err()
                    }
                    _ => None,
                };
                let reason = refused.as_ref().map(|_| "Job's prolog failed".to_string());
                let limits = match (&job, &context) {
                    (Some(job), Some(context)) => worker.spool.step_limits(job, context),
                    // A step beside the batch script: the job's limits here are the script's.
                    _ => worker.spool.batch_limits(launch.job_id),
                }
                .map(|limits| {
                    worker
                        .spool
                        .with_step_memory(limits, launch.mem_per_node_mb)
                });
                let pid = worker
                    .spool
                    .launch_step(&launch, &user, reason, limits)
                    .map_err(|e| e.to_string())?;
                Ok::<_, String>((pid, refused))
            })
            .await?;
            // srun notices a supervisor that never calls and gives up on the step itself.
            match started {
                Ok((pid, None)) => tracing::info!(job_id, step_id, pid, "step tasks started"),
                Ok((_, Some(message))) => {
                    tracing::warn!(job_id, step_id, "prolog failed: {message}");
                    let report = AgentToController::PrologFailed { job_id, message };
                    outbox.send(envelope(&report)?).await?;
                }
                Err(message) => tracing::warn!(job_id, step_id, "step launch failed: {message}"),
            }
        }
        Effect::RunEpilog { job, context } => {
            // The epilog may take a while; the session goes on meanwhile.
            let worker = agent.clone();
            let outbox = outbox.clone();
            tokio::task::spawn_blocking(move || {
                let failed = match users::lookup(job.spec.user_id, job.spec.group_id) {
                    Ok(user) => worker
                        .spool
                        .epilog_after_job(&job, &context, &user)
                        .is_err(),
                    Err(e) => {
                        tracing::warn!(job_id = job.job_id, "epilog not run: {e}");
                        false
                    }
                };
                if failed {
                    // Slurm drains a node whose epilog failed.
                    let report = AgentToController::EpilogFailed { job_id: job.job_id };
                    if let Ok(message) = envelope(&report) {
                        let _ = outbox.blocking_send(message);
                    }
                }
                // The controller holds the node (and the job COMPLETING) until this arrives.
                let done = AgentToController::EpilogFinished { job_id: job.job_id };
                if let Ok(message) = envelope(&done) {
                    let _ = outbox.blocking_send(message);
                }
            });
        }
        Effect::RunProlog {
            job,
            context,
            contain,
        } => {
            // The prolog may take a while; the session goes on meanwhile.
            let worker = agent.clone();
            let outbox = outbox.clone();
            tokio::spawn(async move {
                let (job_id, run) = (job.job_id, job.restarts);
                let result = tokio::task::spawn_blocking(move || {
                    let user = users::lookup(job.spec.user_id, job.spec.group_id)
                        .map_err(|e| e.to_string())?;
                    worker
                        .spool
                        .prolog_at_allocation(&job, &context, &user, contain)
                })
                .await
                .unwrap_or_else(|e| Err(e.to_string()));
                if let Err(message) = &result {
                    tracing::warn!(job_id, "prolog failed: {message}");
                }
                let report = AgentToController::PrologFinished {
                    job_id,
                    run,
                    failed: result.is_err(),
                };
                // A report lost with the session is asked for again at the next registration.
                if let Ok(message) = envelope(&report) {
                    let _ = outbox.send(message).await;
                }
            });
        }
        Effect::Notify { job_id, message } => {
            let agent = agent.clone();
            tokio::task::spawn_blocking(move || agent.spool.notify(job_id, message)).await?;
        }
        Effect::Forget { job_id, run } => {
            let agent = agent.clone();
            tokio::task::spawn_blocking(move || agent.spool.forget(job_id, run)).await?;
        }
        Effect::MeasureSteps {
            request_id,
            job_id,
            uid,
            steps,
        } => {
            // Measured off the session's task: a /proc scan must not hold up launches and acknowledgements.
            let node = agent.hello.name.clone();
            let outbox = outbox.clone();
            tokio::spawn(async move {
                let usage = tokio::task::spawn_blocking(move || {
                    crate::step_usage::measure(
                        std::path::Path::new("/proc"),
                        &node,
                        job_id,
                        uid,
                        &steps,
                    )
                })
                .await
                .unwrap_or_default();
                let reply = AgentToController::StepUsage { request_id, usage };
                if let Ok(message) = envelope(&reply) {
                    let _ = outbox.send(message).await;
                }
            });
        }
        Effect::AttachStep(order) => {
            let socket = agent.spool.step_attach_socket(order.job_id, order.step_id);
            tokio::task::spawn_blocking(move || crate::step_attach::attach(&socket, &order));
        }
        Effect::FileBcast(order) => {
            let stepd = agent.spool.stepd_binary().to_path_buf();
            tokio::task::spawn_blocking(move || {
                let job_id = order.job_id;
                let groups = match crate::users::lookup(order.uid, order.gid) {
                    Ok(user) => user.supplementary_gids,
                    Err(e) => {
                        tracing::warn!(job_id, "sbcast: {e}");
                        return;
                    }
                };
                let spec = spur_stepd::bcast::BcastSpec {
                    order: *order,
                    groups,
                };
                if let Err(e) = spur_stepd::client::bcast(&spec, &stepd) {
                    tracing::warn!(job_id, "sbcast: {e}");
                }
            });
        }
    }
    Ok(())
}
