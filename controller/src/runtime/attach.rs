//! `sattach`: the leader, which holds the agents' sessions, asks each node of a running step to connect to the
//! attaching client. Nothing here is state: the request goes through no log, and a node that cannot be reached
//! simply never calls (sattach reports it).

use std::time::Duration;

use spur_core::model::step_launch::StepAttach;
use spur_core::wire::agent_proto::ControllerToAgent;

use super::Controller;
use crate::raft::PeerError;

/// The peer call a follower makes to have the leader pass an attach on to the nodes.
pub const KIND_ATTACH: &str = "step.attach";
/// How long a follower waits for the leader to take the request.
const FORWARD_WAIT: Duration = Duration::from_secs(5);
/// How long the leader holds a node's request while the node has no session, as just after a leader change
/// when agents are still moving over; shorter than the follower's wait and sattach's wait for the nodes.
const SESSION_WAIT: Duration = Duration::from_secs(3);

/// One attach request per node of the step, each for its agent.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct AttachRequest {
    pub nodes: Vec<(String, StepAttach)>,
}

impl Controller {
    /// Sends the requests from here when this controller leads, else through the leader.
    pub async fn attach_step_anywhere(&self, request: AttachRequest) -> Result<(), String> {
        if self.is_leader() {
            self.attach_step(request).await;
            return Ok(());
        }
        let (Some(peers), Some((_, addr))) = (self.peers(), self.state.leader()) else {
            return Err("no controller leads the cluster".to_string());
        };
        let reply: Result<(), PeerError> =
            peers.call(&addr, KIND_ATTACH, &request, FORWARD_WAIT).await;
        reply.map_err(|e| format!("the leading controller did not answer: {e}"))
    }

    /// Hands each node's agent its request, waiting a little for a node whose session is not (yet) open; a
    /// node still without one is left to sattach's wait.
    pub async fn attach_step(&self, request: AttachRequest) {
        let deadline = tokio::time::Instant::now() + SESSION_WAIT;
        for (node, attach) in request.nodes {
            while !self.agent_connected(&node).await && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            self.send(&node, ControllerToAgent::AttachStep(Box::new(attach)))
                .await;
        }
    }
}
