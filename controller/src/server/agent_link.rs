//! One long-lived session per node agent: the agent's `Hello` registers the node (and reconciles its jobs), its
//! reports become commands, and the controller's launches, signals and acknowledgements flow back down.

use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use spur_core::auth::AuthMethod;
use spur_core::wire::agent_proto::{AgentToController, ControllerToAgent};
use spur_core::wire::{from_doc, pb, to_doc};

use super::auth::Authenticator;
use crate::runtime::{Controller, AGENT_QUEUE_MAX};
use crate::state::{Command, Effect, Outcome};

/// What a follower answers an agent, which then tries the next controller.
pub const NOT_LEADER_TEXT: &str = "this controller is not the leader";

pub struct AgentLinkService {
    controller: Arc<Controller>,
    auth: Arc<Authenticator>,
}

impl AgentLinkService {
    pub fn new(controller: Arc<Controller>, auth: Arc<Authenticator>) -> Self {
        AgentLinkService { controller, auth }
    }
}

type ReplyStream = Pin<Box<dyn Stream<Item = Result<pb::ApiReply, Status>> + Send>>;

#[tonic::async_trait]
impl pb::agent_link_server::AgentLink for AgentLinkService {
    type SessionStream = ReplyStream;

    async fn session(
        &self,
        request: Request<Streaming<pb::ApiRequest>>,
    ) -> Result<Response<Self::SessionStream>, Status> {
        let (metadata, extensions, mut inbound) = request.into_parts();
        let first = inbound
            .next()
            .await
            .ok_or_else(|| Status::invalid_argument("empty agent session"))??;
        // The session's credential (opened by the service's `DaemonGate` before anything was read) is bound to
        // its Hello; the rest of the stream rides on the same connection.
        let peer = tonic::Request::from_parts(metadata, extensions.clone(), ()).remote_addr();
        let identity = self
            .auth
            .bind_daemon(&extensions, "Session", &first, self.controller.now(), peer)
            .map_err(|e| Status::unauthenticated(e.errno.text()))?;
        if !self.auth.may_act_as_agent(&identity) {
            tracing::warn!(
                uid = identity.uid,
                "agent session refused: only root or SlurmUser may register a node"
            );
            return Err(Status::permission_denied(
                spur_core::wire::api::SlurmErrno::AccessDenied.text(),
            ));
        }
        let mut hello = match from_doc::<AgentToController>(first.body.as_ref()) {
            Ok(AgentToController::Hello(hello)) => hello,
            Ok(_) => {
                return Err(Status::invalid_argument(
                    "an agent session must start with Hello",
                ))
            }
            Err(e) => return Err(Status::invalid_argument(e.to_string())),
        };
        // The agent's request that every order of this session be sealed for it (docs/security.md, "Agents and
        // the controller"). Not part of the node's record.
        let nonce = hello.session_nonce.take();
        // On the local socket the agent checked this process's uid when it connected; nothing to seal.
        let sealer = match (nonce, identity.method) {
            (Some(_), AuthMethod::PeerCred) | (None, _) => None,
            (Some(nonce), _) => match self.auth.verifier().munge_socket() {
                Some(socket) => Some(OrderSealer {
                    socket: socket.to_string(),
                    nonce,
                }),
                None => {
                    tracing::error!(
                        node = hello.name,
                        "agent asks for sealed orders, but auth/munge is not configured here"
                    );
                    return Err(Status::failed_precondition(
                        "auth/munge is not configured on the controller",
                    ));
                }
            },
        };
        // Launches and signals flow from the leader only, so agents keep their session there; a follower turns
        // them away and they try the next controller.
        if !self.controller.is_leader() {
            return Err(not_leader(
                self.controller.state.leader().map(|(_, addr)| addr),
                sealer.as_ref(),
            ));
        }
        let node = hello.name.clone();
        let reported_gpus = hello.gpu_topology.as_ref().map(|t| t.summary());
        let (sender, receiver) = mpsc::channel::<ControllerToAgent>(AGENT_QUEUE_MAX);
        let controller = self.controller.clone();
        let session = controller.attach_agent(&node, sender.clone()).await;
        controller.agent_seen(&node);
        let now = controller.now();
        let registration = Command::RegisterNode {
            registration: hello,
            now,
        };
        match controller.commit(registration).await {
            Ok(_) => {
                let _ = sender.try_send(ControllerToAgent::Welcome { node: node.clone() });
                log_gpu_links(&controller, &node, reported_gpus.as_deref());
            }
            Err(e) => {
                controller.detach_agent(&node, session).await;
                let _ = sender.try_send(ControllerToAgent::Rejected {
                    message: format!("{}: {}", e.errno.text(), e.detail.unwrap_or_default()),
                });
            }
        }
        tokio::spawn(serve_reports(controller, node, session, inbound));
        let outbound = ReceiverStream::new(receiver).then(move |message| {
            let sealer = sealer.clone();
            async move {
                let reply = to_doc(&message)
                    .map(|doc| pb::ApiReply {
                        body: Some(doc),
                        ..Default::default()
                    })
                    .map_err(|e| Status::internal(e.to_string()))?;
                match sealer {
                    Some(sealer) => sealer.seal(reply).await,
                    None => Ok(reply),
                }
            }
        });
        Ok(Response::new(Box::pin(outbound)))
    }
}

/// Seals each order of one agent session for the nonce its agent sent (spur_auth::orders).
#[derive(Clone)]
struct OrderSealer {
    socket: String,
    nonce: String,
}

impl OrderSealer {
    /// An encode asks munged over its socket (about 0.1 ms), off the async workers. If munged cannot seal, the
    /// session ends: the agent would refuse the order anyway, and reconnects.
    async fn seal(self, mut reply: pb::ApiReply) -> Result<pb::ApiReply, Status> {
        tokio::task::spawn_blocking(move || {
            spur_auth::orders::seal_order(&self.socket, &self.nonce, &mut reply).map(|()| reply)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?
        .map_err(|e| {
            tracing::error!("cannot seal an order for an agent: Munge encode failed: {e}");
            Status::unavailable(format!("Munge encode failed: {e}"))
        })
    }
}

/// A follower's refusal, naming the leader (`addr`, host:port) where it knows one; with a credential for the hint
/// where the agent asked for sealed orders, so the agent may follow it to a controller it was not configured with
/// (one added with `spur admin controller add`).
fn not_leader(addr: Option<String>, sealer: Option<&OrderSealer>) -> Status {
    let mut refusal = Status::unavailable(NOT_LEADER_TEXT);
    let Some(addr) = addr else { return refusal };
    let Ok(value) = addr.parse() else {
        return refusal;
    };
    refusal
        .metadata_mut()
        .insert(spur_core::model::controllers::LEADER_HINT_HEADER, value);
    if let Some(sealer) = sealer {
        let payload = spur_auth::orders::hint_payload(&sealer.nonce, &addr);
        // A refusal is rare (once per agent and leader change): encoded inline.
        match spur_auth::munge::encode(&sealer.socket, &payload).map(|c| c.parse()) {
            Ok(Ok(value)) => {
                refusal
                    .metadata_mut()
                    .insert(spur_auth::orders::LEADER_HINT_CREDENTIAL_HEADER, value);
            }
            Ok(Err(_)) => tracing::warn!("a munge credential is not valid header text"),
            Err(e) => tracing::warn!("cannot seal the leader hint: Munge encode failed: {e}"),
        }
    }
    refusal
}

/// Tells the admin whether the node's GPUs are placed by their links (docs/gpus.md), and why not when its agent
/// found GPUs that gres.conf does not name.
fn log_gpu_links(controller: &Controller, node: &str, reported: Option<&str>) {
    let (units, in_use) = controller.gpu_links_in_use(node);
    match (in_use, reported) {
        (Some((source, summary)), _) => {
            tracing::info!("node {node}: GPUs placed by their links ({source:?}): {summary}");
        }
        (None, Some(reported)) if units > 1 => tracing::warn!(
            "node {node}: its agent found {reported}, but not every gres.conf File= of its gpu units is among \
             them: GPUs are placed lowest index first"
        ),
        _ => {}
    }
}

/// Drains the node as slurmctld does when slurmd reports a failed node script (`Prolog error`, `Epilog error`).
async fn drain(controller: &Controller, node: &str, reason: &str) {
    let command = Command::Control {
        caller_uid: 0,
        request: spur_core::wire::api::ControlRequest::UpdateNode {
            nodes: vec![node.to_string()],
            state: Some(spur_core::wire::api::NodeUpdateState::Drain),
            reason: Some(reason.to_string()),
            weight: None,
            features: None,
            active_features: None,
        },
        now: controller.now(),
    };
    if let Err(e) = controller.commit(command).await {
        tracing::error!(node, "cannot drain the node ({reason}): {e}");
    }
}

async fn serve_reports(
    controller: Arc<Controller>,
    node: String,
    session: u64,
    mut inbound: Streaming<pb::ApiRequest>,
) {
    while let Some(message) = inbound.next().await {
        let Ok(message) = message else { break };
        controller.agent_seen(&node);
        match from_doc::<AgentToController>(message.body.as_ref()) {
            Ok(AgentToController::Heartbeat {
                free_mem_mb,
                cpu_load,
            }) => {
                controller.record_telemetry(&node, free_mem_mb, cpu_load);
            }
            Ok(AgentToController::Hello(_)) => {}
            Ok(AgentToController::PrologFailed { job_id, message }) => {
                tracing::warn!(node, job_id, "prolog failed: {message}");
                drain(&controller, &node, "Prolog error").await;
            }
            Ok(AgentToController::EpilogFailed { job_id }) => {
                tracing::warn!(node, job_id, "epilog failed");
                drain(&controller, &node, "Epilog error").await;
            }
            Ok(AgentToController::EpilogFinished { job_id }) => {
                let command = Command::EpilogFinished {
                    job_id,
                    node: node.clone(),
                    now: controller.now(),
                };
                // A report lost here is given up when the agent registers again (the epilog ran or died with it).
                if let Err(e) = controller.commit(command).await {
                    tracing::error!(node, job_id, "cannot record the epilog's end: {e}");
                }
            }
            Ok(AgentToController::PrologFinished {
                job_id,
                run,
                failed,
            }) => {
                let command = Command::PrologFinished {
                    job_id,
                    run,
                    node: node.clone(),
                    failed,
                    now: controller.now(),
                };
                // A report lost here is asked for again when the agent registers (prologs_owed).
                if let Err(e) = controller.commit(command).await {
                    tracing::error!(node, job_id, "cannot record the prolog's end: {e}");
                }
            }
            Ok(AgentToController::StepUsage { request_id, usage }) => {
                controller.deliver_usage(request_id, usage);
            }
            Ok(AgentToController::Finished(outcome)) => {
                let result = match outcome.exit_code {
                    Some(code) if outcome.out_of_memory => Outcome::OutOfMemory {
                        code,
                        signal: outcome.signal,
                    },
                    Some(code) => Outcome::Exited {
                        code,
                        signal: outcome.signal,
                    },
                    None if outcome.prolog_failed => Outcome::PrologFailed,
                    None => Outcome::LaunchFailed,
                };
                if outcome.epilog_failed {
                    // Before the job's resources are given back, so no job is placed there meanwhile.
                    tracing::warn!(node, job_id = outcome.job_id, "epilog failed");
                    drain(&controller, &node, "Epilog error").await;
                }
                if let Some(usage) = outcome.usage.clone() {
                    let record = Command::RecordUsage {
                        job_id: outcome.job_id,
                        run: outcome.run,
                        step: spur_core::model::step_usage::StepRef::Batch,
                        usage,
                    };
                    // Before the end, so the finished job is never listed without it. After a failure the end
                    // is not acknowledged either, and the agent's resend carries the usage again.
                    if let Err(e) = controller.commit(record).await {
                        tracing::warn!(
                            node,
                            job_id = outcome.job_id,
                            "cannot record the batch step's usage: {e}"
                        );
                    }
                }
                let command = Command::Finished {
                    job_id: outcome.job_id,
                    outcome: result,
                    now: outcome.end_time,
                    run: outcome.run,
                };
                // On failure the agent keeps the report and resends it; nothing is lost.
                match controller.commit(command).await {
                    // Committed, so the reporter may forget it. The state machine acknowledges to the job's first
                    // node, which is not the reporter when a node that never ran the job answers a terminate, and
                    // not at all for a job already purged (a node back after MinJobAge): such reports were resent
                    // forever (found by controller/tests/simulation.rs). Only those get an acknowledgement here:
                    // a second one could reach the agent after a new launch of the job and make it forget that.
                    Ok(applied) => {
                        let acknowledged = applied.effects.iter().any(|e| {
                            matches!(e, Effect::AckFinished { node: n, job_id, .. }
                                if *n == node && *job_id == outcome.job_id)
                        });
                        if !acknowledged {
                            let ack = ControllerToAgent::FinishedAck {
                                job_id: outcome.job_id,
                                run: outcome.run,
                            };
                            controller.send(&node, ack).await;
                        }
                    }
                    Err(e) => tracing::error!(
                        node,
                        job_id = outcome.job_id,
                        "cannot commit job result: {e}"
                    ),
                }
            }
            Err(e) => tracing::warn!(node, "malformed agent message: {e}"),
        }
    }
    controller.detach_agent(&node, session).await;
    tracing::info!(node, "agent session closed");
}
