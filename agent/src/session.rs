//! The agent's session with the controller: connect, say hello (with the jobs still running here), then carry out
//! launches, signals and terminations, and report results until the controller acknowledges them. Any failure
//! ends the session; the loop reconnects with a bounded backoff, and the spool makes that lossless.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use spur_core::agent_proto::{AgentToController, ControllerToAgent, NodeHello};
use spur_core::job::EpochSecs;
use spur_core::wire::{from_doc, pb, to_doc};
use spur_stepd::protocol::{JobResult, Outcome, PROTOCOL_VERSION, RESULT_FILE};

use crate::discover;
use crate::jobs::JobSpool;
use crate::users;

/// How often the agent looks at its spool for results and sends heartbeats.
pub const SPOOL_SCAN_INTERVAL: Duration = Duration::from_millis(200);
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(10);
/// An unacknowledged result is sent again after this long.
pub const RESULT_RESEND_AFTER: Duration = Duration::from_secs(3);
pub const RECONNECT_BACKOFF_MAX: Duration = Duration::from_secs(5);
pub const OUTBOX_MAX: usize = 1024;

pub struct Agent {
    pub spool: JobSpool,
    pub controller_url: String,
    pub hello: NodeHello,
}

pub async fn run_forever(agent: Arc<Agent>) {
    let mut backoff = Duration::from_millis(100);
    loop {
        let started = Instant::now();
        match session(&agent).await {
            Ok(()) => tracing::info!("controller closed the session"),
            Err(e) => tracing::warn!("session with {} ended: {e}", agent.controller_url),
        }
        if started.elapsed() > Duration::from_secs(10) {
            backoff = Duration::from_millis(100);
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(RECONNECT_BACKOFF_MAX);
    }
}

fn envelope(message: &AgentToController) -> anyhow::Result<pb::ApiRequest> {
    Ok(pb::ApiRequest {
        request_id: String::new(),
        caller: None,
        body: Some(to_doc(message)?),
    })
}

async fn session(agent: &Arc<Agent>) -> anyhow::Result<()> {
    let mut client =
        pb::agent_link_client::AgentLinkClient::connect(agent.controller_url.clone()).await?;
    let (outbox, outbox_rx) = mpsc::channel::<pb::ApiRequest>(OUTBOX_MAX);
    record_orphans(&agent.spool);
    let mut hello = agent.hello.clone();
    hello.running_jobs = agent.spool.running_jobs();
    outbox
        .send(envelope(&AgentToController::Hello(Box::new(hello)))?)
        .await?;
    let mut inbound = client
        .session(ReceiverStream::new(outbox_rx))
        .await?
        .into_inner();
    let mut scan = tokio::time::interval(SPOOL_SCAN_INTERVAL);
    // The first heartbeat goes out with the first scan, so the controller has load and memory figures at once.
    let mut last_heartbeat: Option<Instant> = None;
    let mut sent_results: HashMap<u32, Instant> = HashMap::new();
    loop {
        tokio::select! {
            message = inbound.message() => {
                let Some(reply) = message? else { return Ok(()) };
                let message: ControllerToAgent = from_doc(reply.body.as_ref())?;
                handle(agent, message).await?;
            }
            _ = scan.tick() => {
                record_orphans(&agent.spool);
                for outcome in agent.spool.finished_jobs() {
                    let due = sent_results.get(&outcome.job_id).is_none_or(|t| t.elapsed() > RESULT_RESEND_AFTER);
                    if due {
                        sent_results.insert(outcome.job_id, Instant::now());
                        outbox.send(envelope(&AgentToController::Finished(outcome))?).await?;
                    }
                }
                if last_heartbeat.is_none_or(|t| t.elapsed() > HEARTBEAT_INTERVAL) {
                    last_heartbeat = Some(Instant::now());
                    let beat = AgentToController::Heartbeat {
                        free_mem_mb: discover::free_memory_mb(),
                        cpu_load: discover::load_average(),
                    };
                    outbox.send(envelope(&beat)?).await?;
                }
            }
        }
    }
}

async fn handle(agent: &Arc<Agent>, message: ControllerToAgent) -> anyhow::Result<()> {
    match message {
        ControllerToAgent::Welcome { node } => {
            tracing::info!(node, "registered with the controller")
        }
        ControllerToAgent::Rejected { message } => {
            anyhow::bail!("controller rejected this node: {message}")
        }
        ControllerToAgent::Launch { job, context } => {
            let worker = agent.clone();
            let job_id = job.job_id;
            let launched = tokio::task::spawn_blocking(move || {
                let user = users::lookup(job.spec.user_id, job.spec.group_id)
                    .map_err(|e| e.to_string())?;
                worker
                    .spool
                    .launch(&job, &context, &user)
                    .map_err(|e| e.to_string())
            })
            .await?;
            match launched {
                Ok(_) => tracing::info!(job_id, "launched"),
                Err(message) => {
                    tracing::warn!(job_id, "launch failed: {message}");
                    write_failed_result(
                        &agent.spool,
                        job_id,
                        Outcome::LaunchFailed { message },
                        None,
                    );
                }
            }
        }
        ControllerToAgent::Signal {
            job_id,
            signal,
            scope,
        } => {
            let agent = agent.clone();
            tokio::task::spawn_blocking(move || agent.spool.signal(job_id, signal, scope)).await?;
        }
        ControllerToAgent::Terminate {
            job_id, reason, at, ..
        } => {
            let dir = agent.spool.job_dir(job_id);
            if !dir.exists() {
                // Never launched here: nothing to kill, but the controller waits for a result to free the job.
                write_failed_result(&agent.spool, job_id, Outcome::Failed, Some(9));
                return Ok(());
            }
            let agent = agent.clone();
            tokio::task::spawn_blocking(move || agent.spool.terminate(job_id, reason, at)).await?;
        }
        ControllerToAgent::FinishedAck { job_id } => {
            let agent = agent.clone();
            tokio::task::spawn_blocking(move || agent.spool.forget(job_id)).await?;
        }
    }
    Ok(())
}

/// Supervisors that died without a result (kill -9, OOM killer) get one written for them, so the controller
/// learns the job is gone instead of waiting forever.
fn record_orphans(spool: &JobSpool) {
    for job_id in spool.orphaned_jobs() {
        tracing::warn!(
            job_id,
            "spurstepd vanished without a result; killing what is left of the job"
        );
        if let Ok(Some(started)) = spur_stepd::read_started(&spool.job_dir(job_id)) {
            if let Ok(pgid) = i32::try_from(started.pid) {
                // The script led its own process group; nothing else may remain once its supervisor is gone.
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pgid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        write_failed_result(spool, job_id, Outcome::Failed, Some(9));
    }
}

fn write_failed_result(spool: &JobSpool, job_id: u32, outcome: Outcome, signal: Option<i32>) {
    let dir = spool.job_dir(job_id);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::error!(job_id, "cannot record the job's failure: {e}");
        return;
    }
    let message = match &outcome {
        Outcome::LaunchFailed { message } => Some(message.clone()),
        _ => None,
    };
    let result = JobResult {
        version: PROTOCOL_VERSION,
        job_id,
        pid: None,
        wait_status: None,
        exit_code: None,
        signal,
        core_dumped: false,
        start_time: None,
        end_time: now(),
        outcome,
        message,
    };
    if let Err(e) = spur_stepd::files::write_json_atomic(&dir.join(RESULT_FILE), &result, 0o644) {
        tracing::error!(job_id, "cannot record the job's failure: {e}");
    }
}

fn now() -> EpochSecs {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
        .unwrap_or(0)
}
